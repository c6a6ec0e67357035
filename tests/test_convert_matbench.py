"""convert matbench-discovery: model YAMLs -> dataset whose default overall score is the CPS.

Real data: ../shared/anchors/matbench-discovery (skipped when absent). Edge cases: hand-written
fixtures in tests/fixtures/convert/matbench.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
from pathlib import Path

import pytest
import yaml

import ml_peg_like as mpl
from ml_peg_like.cli.convert import main as convert_main
from ml_peg_like.errors import DataError
from ml_peg_like.io.matbench import matbench_to_dataset, nice_ceil

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures" / "convert" / "matbench"


@pytest.fixture(scope="module")
def mbd_models(anchors) -> Path:
    return anchors / "matbench-discovery" / "models"


@pytest.fixture(scope="module")
def mbd_out(mbd_models, tmp_path_factory) -> tuple[Path, str]:
    """The real models converted once through the CLI: (dataset dir, what it printed)."""
    out = tmp_path_factory.mktemp("mbd") / "ds"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert convert_main(["matbench-discovery", str(mbd_models), "--out", str(out)]) == 0
    return out, buf.getvalue()


def _get(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def cps_from_yaml(path: Path) -> tuple[str, float]:
    """CPS straight from a model YAML, by the formula in the anchors README (NaN when missing)."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    m = doc.get("metrics") or {}
    f1 = _get(m, "discovery", "unique_prototypes", "F1")
    kappa = _get(m, "phonons", "kappa_103", "κ_SRME")
    rmsd = _get(m, "geo_opt", "symprec=1e-2", "rmsd")
    key = doc.get("model_key") or path.stem
    vals = [f1, kappa, rmsd]
    if any(not isinstance(v, int | float) or isinstance(v, bool) or math.isnan(v) for v in vals):
        return key, math.nan
    cps = (0.5 * f1 + 0.4 * (1 - kappa / 2) + 0.1 * min(max(1 - rmsd / 0.15, 0), 1)) / (
        0.5 + 0.4 + 0.1
    )
    return key, cps


def _overall(out: Path):
    cfg, raw = mpl.load_dataset(out)
    return cfg, raw, mpl.score(raw, cfg)


# ------------------------------------------------------------------------------------------------
# Real Matbench Discovery models
# ------------------------------------------------------------------------------------------------


@pytest.mark.anchors
def test_overall_score_is_cps_for_every_model(mbd_models, mbd_out):
    out, printed = mbd_out
    _cfg, raw, res = _overall(out)
    files = sorted(mbd_models.rglob("*.yml"))
    assert len(files) == 51 and len(raw.models) == 51
    n_cps = 0
    for f in files:
        key, ref = cps_from_yaml(f)
        ours = float(res.overall.loc[key, "score"])
        if math.isnan(ref):
            assert math.isnan(ours), f"{key}: no CPS inputs, but overall {ours}"
        else:
            assert abs(ours - ref) <= 1e-12, f"{key}: {ours} != CPS {ref}"
            n_cps += 1
    assert n_cps == 42
    assert "CPS: 42 of 51 models have one" in printed


@pytest.mark.anchors
def test_real_config_shape_weights_and_thresholds(mbd_out):
    out, _ = mbd_out
    cfg, _raw, res = _overall(out)
    assert cfg.category_names() == ["discovery", "geo_opt", "phonons", "md", "diatomics"]
    assert [c.weight for c in cfg.categories] == [0.5, 0.1, 0.4, 0.0, 0.0]
    assert cfg.missing == "invalidate"
    names = cfg.benchmark_names()
    assert "geo_opt symprec=1e-2" in names and "unique_prototypes" in names
    assert all("/" not in n for n in names)
    # exactly three metrics carry weight, each in a weight-1 benchmark
    weighted = [(b.name, m.name) for c, b, m in cfg.iter_metrics() if m.weight > 0]
    assert weighted == [
        ("unique_prototypes", "F1"),
        ("geo_opt symprec=1e-2", "rmsd"),
        ("kappa_103", "κ_SRME"),
    ]
    for _c, b, m in cfg.iter_metrics():
        if m.weight > 0:
            assert b.weight == 1.0
        elif b.name not in ("unique_prototypes", "geo_opt symprec=1e-2", "kappa_103"):
            assert b.weight == 0.0
    f1, kappa, rmsd = (
        cfg.node(p)
        for p in ("unique_prototypes/F1", "kappa_103/κ_SRME", "geo_opt symprec=1e-2/rmsd")
    )
    assert (f1.good, f1.bad, kappa.good, kappa.bad, rmsd.good, rmsd.bad) == (1, 0, 0, 2, 0, 0.15)
    # counts, strings and file records are not metrics
    metric_names = {m for _b, m in cfg.metric_ids()}
    assert not metric_names & {
        "TP",
        "FP",
        "TN",
        "FN",
        "missing_preds",
        "n_structures",
        "n_systems",
        "hardware",
        "pred_file",
        "size",
        "md5",
    }
    assert "n_sym_ops_mae" in metric_names  # an error, not a count
    # directions and sensible thresholds of the other metrics
    assert cfg.node("unique_prototypes/FPR").direction == "lower"
    assert cfg.node("unique_prototypes/Precision").direction == "higher"
    daf = cfg.node("unique_prototypes/DAF")
    assert daf.bad == 1.0 and 5 < daf.good < 7
    mae = cfg.node("unique_prototypes/MAE")
    assert mae.good == 0.0 and mae.bad >= max(res.raw["unique_prototypes/MAE"].dropna())
    si = cfg.node("geo_opt symprec=1e-2/symmetry_increase")
    assert si.weight == 0.0 and (si.good, si.bad) == (0.0, 1.0) and "no direction" in si.description
    assert cfg.node("kappa_103/κ_SRE").direction == "lower"
    assert cfg.node("md metrics/run_time_sec").direction == "lower"
    # raising another metric's weight works (the dashboard's presets and changes)
    cfg.apply_changes({"discovery/unique_prototypes/DAF": {"weight": 1}})
    for preset in cfg.presets.values():
        cfg.apply_changes(preset)


@pytest.mark.anchors
def test_real_model_attributes(mbd_out):
    out, _ = mbd_out
    rows = {r["model"]: r for r in csv.DictReader((out / "models.csv").open(encoding="utf-8"))}
    assert len(rows) == 51
    ms = rows["mattersim-v1-5m"]
    assert ms["display_name"] == "MatterSim v1 5M"
    assert ms["family"] == "mattersim"
    assert ms["openness"] == "OSCD"
    assert ms["training_set"] == "MatterSim"
    assert ms["date_added"] == "2024-12-16"
    assert ms["model_params"] == "4549142"
    assert ms["targets"] == "EFS_G"
    assert ms["architecture"] == "gnn"
    assert all(r["display_name"] for r in rows.values())
    _cfg, raw, _res = _overall(out)
    assert raw.attributes.loc["mattersim-v1-5m", "openness"] == "OSCD"


# ------------------------------------------------------------------------------------------------
# Hand-written fixtures
# ------------------------------------------------------------------------------------------------


def test_fixture_cps_missing_task_nan_strings_records(tmp_path):
    out = tmp_path / "ds"
    assert convert_main(["matbench-discovery", str(FIX / "models"), "--out", str(out)]) == 0
    cfg, raw, res = _overall(out)
    for f in sorted((FIX / "models").rglob("*.yml")):
        key, ref = cps_from_yaml(f)
        ours = float(res.overall.loc[key, "score"])
        assert (math.isnan(ours) and math.isnan(ref)) or abs(ours - ref) <= 1e-12, key
    ov = res.overall["score"]
    assert ov["model-a"] == pytest.approx((0.5 * 0.8 + 0.4 * 0.8 + 0.1 * 0.6) / 1.0, abs=1e-12)
    assert ov["model-e"] == pytest.approx(
        0.5 * 0.6 + 0.4 * (1 - 1.9 / 2) + 0.1 * 0.0, abs=1e-12
    )  # RMSD 0.3 clipped
    assert math.isnan(ov["model-b"])  # whole phonons task missing
    assert math.isnan(ov["model-c"])  # κ_SRME: .nan
    assert math.isnan(ov["model-d"])  # no metrics at all, still listed
    assert set(raw.models) == {"model-a", "model-b", "model-c", "model-d", "model-e"}
    # counts, strings and nested records skipped; unknown tasks kept with weight 0
    names = {m for _b, m in cfg.metric_ids()}
    assert not names & {
        "TP",
        "FN",
        "missing_preds",
        "n_structures",
        "n_systems",
        "hardware",
        "size",
        "He-He",
    }
    assert cfg.node("elasticity").weight == 0.0
    assert cfg.node("bulk/K_vrh_mae").direction == "lower"
    # a string where a number belongs: missing, with a warning
    assert math.isnan(res.raw.loc["model-c", "unique_prototypes/DAF"])
    assert math.isnan(res.raw.loc["model-c", "unique_prototypes/MAE"])  # .nan
    # unicode kept exactly in models.csv and the YAML
    assert raw.attributes.loc["model-c", "display_name"] == "Modèl C ω²"
    assert "κ_SRME" in (out / "config.yml").read_text(encoding="utf-8")
    assert "κ_SRD" in (out / "raw_metrics.csv").read_text(encoding="utf-8")
    attrs = raw.attributes
    assert attrs.loc["model-a", "training_set"] == "MPtrj; sAlex"
    assert attrs.loc["model-a", "architecture"] == "gnn; transformer"
    assert attrs.loc["model-b", "date_added"] == "2024-06-30"  # an unquoted YAML date


def test_fixture_warnings():
    conv = matbench_to_dataset(FIX / "models")
    assert any("'not computed' is not a number" in w for w in conv.warnings)


def test_fixture_task_absent_everywhere_gives_no_cps(tmp_path):
    # no model has phonons: the CPS skeleton is still there, so nobody gets a (wrong) CPS
    out = tmp_path / "ds"
    assert convert_main(["matbench-discovery", str(FIX / "no_phonons"), "--out", str(out)]) == 0
    cfg, _raw, res = _overall(out)
    assert cfg.node("phonons").weight == 0.4
    assert res.overall["score"].isna().all()


def test_malformed_yaml_skipped_or_strict(tmp_path, capsys):
    out = tmp_path / "ds"
    assert convert_main(["matbench-discovery", str(FIX / "broken"), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "bad.yml:4: invalid YAML" in err and "(file skipped)" in err
    _cfg, raw, res = _overall(out)
    assert raw.models == ("good",)
    assert res.overall.loc["good", "score"] == pytest.approx(
        0.5 * 0.5 + 0.4 * 0.5 + 0.1 * (1 - 0.05 / 0.15)
    )
    assert (
        convert_main(
            ["matbench-discovery", str(FIX / "broken"), "--out", str(tmp_path / "s"), "--strict"]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad.yml:4" in err and "Traceback" not in err
    with pytest.raises(DataError):
        matbench_to_dataset(FIX / "broken", strict=True)


def test_missing_source_is_an_error(tmp_path, capsys):
    assert (
        convert_main(["matbench-discovery", str(tmp_path / "nope"), "--out", str(tmp_path / "o")])
        == 2
    )
    assert "error: " in capsys.readouterr().err


def test_nice_ceil():
    assert [nice_ceil(x) for x in (0.07, 0.08, 0.151, 1.0, 7.2, 9.5, 11)] == [
        0.08,
        0.08,
        0.2,
        1.0,
        8.0,
        10.0,
        15.0,
    ]
