"""convert ml-peg: ML-PEG app tables (+ app config, analysis thresholds) -> dataset directory.

Real data: ../shared/anchors/ml-peg (skipped when absent). Edge cases: hand-written fixtures in
tests/fixtures/convert/mlpeg.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

import ml_peg_like as mpl
from ml_peg_like.cli.convert import main as convert_main
from ml_peg_like.errors import DataError
from ml_peg_like.io.mlpeg import compare_stored_scores, mlpeg_config_from_analysis, mlpeg_to_dataset

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures" / "convert" / "mlpeg"


@pytest.fixture(scope="module")
def mlpeg_anchor(anchors) -> Path:
    return anchors / "ml-peg"


def _stored(tables_dir: Path):
    """(benchmark, model id) -> ML-PEG's stored Score (None/NaN = missing), read independently."""
    out = {}
    for path in sorted(tables_dir.rglob("*_table.json")):
        table = json.loads(path.read_text(encoding="utf-8"))
        for row in table["data"]:
            if isinstance(row, dict):
                out[(path.parent.name, row.get("id") or row.get("MLIP"))] = row.get("Score")
    return out


def _check_reproduced(out: Path, tables_dir: Path) -> tuple[int, float]:
    cfg, raw = mpl.load_dataset(out)
    res = mpl.score(raw, cfg)
    n, max_diff = 0, 0.0
    for (bench, model), stored in _stored(tables_dir).items():
        ours = float(res.benchmarks.loc[model, bench])
        if stored is None or (isinstance(stored, float) and math.isnan(stored)):
            assert math.isnan(ours), f"{bench}/{model}: ML-PEG has no Score, ours is {ours}"
        else:
            assert ours == pytest.approx(stored, abs=1e-9), f"{bench}/{model}"
            max_diff = max(max_diff, abs(ours - stored))
        n += 1
    return n, max_diff


# ------------------------------------------------------------------------------------------------
# Real ML-PEG tables
# ------------------------------------------------------------------------------------------------


@pytest.mark.anchors
def test_every_stored_score_reproduced_from_tables(mlpeg_anchor, tmp_path, capsys):
    out = tmp_path / "ds"
    assert convert_main(["ml-peg", str(mlpeg_anchor / "tables"), "--out", str(out)]) == 0
    assert {p.name for p in out.iterdir()} == {
        "config.yml",
        "raw_metrics.csv",
        "models.csv",
        "source.json",  # the converter record the exports' provenance repeats
    }
    source = json.loads((out / "source.json").read_text())
    assert source["converter"] == "ml-peg"
    assert source["inputs"]["src"] == str(mlpeg_anchor / "tables")
    n, max_diff = _check_reproduced(out, mlpeg_anchor / "tables")
    assert n == 57  # 3 tables x 19 models
    assert max_diff < 1e-9
    assert "57/57 model-benchmark scores reproduced" in capsys.readouterr().out


@pytest.mark.anchors
def test_with_app_config_and_analysis_thresholds(mlpeg_anchor, tmp_path, capsys):
    out = tmp_path / "ds"
    rc = convert_main(
        [
            "ml-peg",
            str(mlpeg_anchor / "tables"),
            "--out",
            str(out),
            "--app-config",
            str(mlpeg_anchor / "configs" / "app"),
            "--thresholds",
            str(mlpeg_anchor / "configs" / "analysis"),
        ]
    )
    assert rc == 0
    cfg = mpl.load_config(out)
    # categories are named by their app titles, with their weights and descriptions
    assert cfg.category_names() == ["Non-covalent interactions", "Physicality"]
    assert cfg.node("Non-covalent interactions").weight == 0.0
    assert cfg.node("Physicality").description.startswith("Extensitivty")
    # analysis thresholds (tables define what exists: the other 74 benchmarks are not added)
    assert sorted(cfg.benchmark_names()) == ["IONPI19", "extensivity", "oxidation_states"]
    split = cfg.node("oxidation_states/Fe-O RDF Peak Split")
    assert (split.good, split.bad, split.weight) == (1.0, 0.0, 5.0)
    assert split.meta == {"level_of_theory": "Experimental"}
    assert cfg.node("IONPI19/MAE").unit == "kcal/mol"
    assert "Mean Absolute Error" in cfg.node("IONPI19/MAE").description
    # presets: only the categories present, titles kept weight 1; the two
    # presets that keep none of the converted categories are left out, with a warning
    assert set(cfg.presets) == {"Materials", "Molecules", "Non-covalent"}
    err = capsys.readouterr().err
    for name in ("Reactivity", "Transition metals & f-block"):
        assert f"preset {name!r} keeps none of the categories converted: left out" in err
    assert cfg.presets["Materials"] == {
        "Non-covalent interactions": {"weight": 0.0},
        "Physicality": {"weight": 1.0},
    }
    assert cfg.presets["Non-covalent"] == {
        "Non-covalent interactions": {"weight": 1.0},
        "Physicality": {"weight": 0.0},
    }
    cfg.apply_changes(cfg.presets["Molecules"])  # presets are valid changes
    # the analysis thresholds of these three equal the tables': scores still reproduced
    n, _ = _check_reproduced(out, mlpeg_anchor / "tables")
    assert n == 57


@pytest.mark.anchors
def test_real_unicode_names_and_display_names(mlpeg_anchor, tmp_path):
    out = tmp_path / "ds"
    assert convert_main(["ml-peg", str(mlpeg_anchor / "tables"), "--out", str(out)]) == 0
    text = (out / "config.yml").read_text(encoding="utf-8")
    assert "ΔE:" in text and "σ" in text  # not \u escapes
    rows = list(csv.DictReader((out / "raw_metrics.csv").open(encoding="utf-8")))
    assert any(r["metric"] == "ΔE" for r in rows)
    models = {r["model"]: r for r in csv.DictReader((out / "models.csv").open(encoding="utf-8"))}
    assert len(models) == 19
    # IONPI19 calls it mace-mp-0a-D3, the two other tables mace-mp-0a: the most frequent name wins
    assert models["mace-mp-0a"]["display_name"] == "mace-mp-0a"
    assert models["mace-omol"]["level_of_theory"] == "ωB97M-V/def2-TZVPD"
    # the extensivity outlier (9.5e23) round-trips exactly
    big = [r for r in rows if r["model"] == "mace-polar-1-l" and r["metric"] == "ΔE"]
    assert float(big[0]["value"]) == 9.485584224987686e23


@pytest.mark.anchors
def test_full_config_from_analysis(mlpeg_anchor):
    warnings: list[str] = []
    d = mlpeg_config_from_analysis(
        mlpeg_anchor / "configs" / "analysis", mlpeg_anchor / "configs" / "app", warnings=warnings
    )
    cfg = mpl.config_from_dict(d)
    assert len(cfg.categories) == 18
    assert len(cfg.benchmark_names()) == 77
    assert len(cfg.metric_ids()) == 339
    # booleans as thresholds, the key spelled "level of theory", benchmark_weights, presets
    cl2 = cfg.node("Physicality/water_cl2_relaxation/Cl2_stability")
    assert (cl2.good, cl2.bad) == (1.0, 0.0)
    frac = cfg.node("Physicality/water_slab_dipoles/Fraction Breakdown Candidates")
    assert frac.meta == {"level_of_theory": "revPBE-D3"}
    assert cfg.node("Supramolecular Complexes/PLA15").weight == 0.0
    assert cfg.node("Conformers").weight == 0.0
    assert cfg.node("3dTMV/SR/MR MAE").weight == 0.0  # "/" inside a metric name
    assert len(cfg.presets) == 5
    assert len(cfg.presets["Materials"]) == 18
    assert cfg.presets["Materials"]["Defects"] == {"weight": 0.0}  # preset says "Defect"
    assert any("'Defect' matches no category" in w for w in warnings)
    # without the app config: folder names, weight 1
    bare = mpl.config_from_dict(mlpeg_config_from_analysis(mlpeg_anchor / "configs" / "analysis"))
    assert "physicality" in bare.category_names() and len(bare.metric_ids()) == 339
    assert not bare.presets


# ------------------------------------------------------------------------------------------------
# Hand-written fixtures: edge cases
# ------------------------------------------------------------------------------------------------


def test_fixture_scores_none_nan_strings_bools_nested(tmp_path):
    conv = mlpeg_to_dataset(FIX / "tables")
    n, both_missing, mismatches, max_diff = compare_stored_scores(conv)
    assert mismatches == [] and max_diff < 1e-12
    assert n == 8 and both_missing == 3  # m2 (None), m4 (NaN), m6 (nested record -> missing)
    cfg, raw = conv.build()
    res = mpl.score(raw, cfg)
    b = res.benchmarks
    assert b.loc["m1", "smooth"] == pytest.approx(0.5833333333333334, abs=1e-12)
    assert b.loc["m3", "smooth"] == 1.0  # a string in a weight-0 metric does not matter
    assert b.loc["m5", "smooth"] == pytest.approx((0.9 + 2) / 3)  # true read as 1
    assert math.isnan(b.loc["m2", "smooth"]) and math.isnan(b.loc["m4", "smooth"])
    # the model without an `id` is named by its MLIP
    assert "m6-D3" in raw.models
    # the empty table is a benchmark without values; the table without thresholds is skipped
    assert "empty_bench" in cfg.benchmark_names()
    assert "no_thresholds" not in cfg.benchmark_names()
    assert b["empty_bench"].isna().all()
    joined = "\n".join(conv.warnings)
    assert "no metric with thresholds" in joined
    assert "appears twice" in joined
    assert "non-numeric value(s) read as missing" in joined
    assert "'colour'" in joined  # an unknown row key is ignored (with a note)


def test_fixture_unicode_kept_in_every_export(tmp_path):
    out = tmp_path / "ds"
    assert convert_main(["ml-peg", str(FIX / "tables"), "--out", str(out)]) == 0
    cfg, raw = mpl.load_dataset(out)
    assert cfg.node("smooth").metrics[0].name == "κ_ratio"
    assert {m.name for m in cfg.node("smooth").metrics} == {"ΔE", "κ_ratio", "ω²_err"}
    assert cfg.node("smooth/ω²_err").unit == "THz²"
    raw_text = (out / "raw_metrics.csv").read_text(encoding="utf-8")
    assert "ω²_err" in raw_text and "κ_ratio" in raw_text
    assert "ω²_err" in (out / "config.yml").read_text(encoding="utf-8")
    attrs = raw.attributes
    assert attrs.loc["m1", "display_name"] == "model one"
    assert attrs.loc["m7", "level_of_theory"] == "ωB97M-V"


def test_fixture_app_config_and_thresholds_override(tmp_path):
    conv = mlpeg_to_dataset(FIX / "tables", app_dir=FIX / "app", thresholds_dir=FIX / "analysis")
    cfg, _raw = conv.build()
    assert cfg.category_names() == ["Molecules", "Physicality ω"]
    phys = cfg.node("Physicality ω")
    assert phys.weight == 2.0 and phys.description == "Smoothness and extensivity"
    assert cfg.node("smooth").weight == 3.0  # benchmark_weights
    de = cfg.node("smooth/ΔE")
    assert (de.good, de.bad) == (0.0, 20.0)  # overridden by metrics.yml
    assert de.meta == {"level_of_theory": "revPBE-D3"}  # "level of theory" key
    kr = cfg.node("smooth/κ_ratio")
    assert (kr.good, kr.bad, kr.weight) == (1.0, 0.0, 1.0)  # True/False -> 1/0; weight overridden
    assert "not_in_tables" not in cfg.benchmark_names()
    assert "not_a_column" not in {m.name for m in cfg.node("smooth").metrics}
    assert cfg.presets == {
        "Physics only": {"Molecules": {"weight": 0.0}, "Physicality ω": {"weight": 1.0}},
        "Molecules and a typo": {"Molecules": {"weight": 1.0}, "Physicality ω": {"weight": 0.0}},
    }
    joined = "\n".join(conv.warnings)
    assert "'Molecule' matches no category" in joined
    assert "not_a_column" in joined
    # changed thresholds and weights: the stored scores differ where they should
    _n, _b, mismatches, _d = compare_stored_scores(conv)
    assert {m.split(":")[0] for m in mismatches} == {"smooth/m1", "smooth/m5"}


def test_malformed_table_skipped_or_strict(tmp_path, capsys):
    out = tmp_path / "ds"
    assert convert_main(["ml-peg", str(FIX / "broken"), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "bad_table.json:2: invalid JSON" in err and "file skipped" in err
    assert mpl.load_config(out).benchmark_names() == ["good"]

    out2 = tmp_path / "strict"
    assert convert_main(["ml-peg", str(FIX / "broken"), "--out", str(out2), "--strict"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad_table.json:2" in err
    assert "Traceback" not in err
    assert not out2.exists()  # nothing written on error
    with pytest.raises(DataError):
        mlpeg_to_dataset(FIX / "broken", strict=True)


def test_bad_source_is_an_error_not_a_traceback(tmp_path, capsys):
    assert convert_main(["ml-peg", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    (tmp_path / "empty").mkdir()
    assert convert_main(["ml-peg", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "no *_table.json" in capsys.readouterr().err


def test_main_cli_wires_convert_and_scores_the_directory(tmp_path):
    from ml_peg_like import cli

    # no skip: a main CLI without `convert` fails here (argparse exits 2 on an unknown command)
    out = tmp_path / "ds"
    assert cli.main(["convert", "ml-peg", str(FIX / "tables"), "--out", str(out)]) == 0
    assert cli.main(["score", str(out), "--out", str(tmp_path / "scores")]) == 0
    assert any((tmp_path / "scores").iterdir())
