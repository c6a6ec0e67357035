"""convert lips: a LIPS scoring INI -> traffic-light metrics (hand-written fixtures only)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import ml_peg_like as mpl
from ml_peg_like.cli.convert import main as convert_main
from ml_peg_like.errors import DataError
from ml_peg_like.io.lips import lips_to_dataset, parse_threshold

FIX = Path(__file__).resolve().parent / "fixtures" / "convert" / "lips"
INI = FIX / "score_config.ini"


def test_default_section_config_only(tmp_path, capsys):
    out = tmp_path / "ds"
    assert convert_main(["lips", str(INI), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Thresholds.broken" in err and "Thresholds.flat" in err  # skipped with a warning
    cfg, raw = mpl.load_dataset(out)
    assert (out / "raw_metrics.csv").read_text(
        encoding="utf-8"
    ).strip() == "model,benchmark,metric,value"
    assert raw.models == ()
    metrics = {m.name: m for m in cfg.node("Thresholds").metrics}
    assert set(metrics) == {"mae_flow", "mape_ω", "rank_corr", "ΔE_check"}
    assert all(m.normaliser == "traffic_light" for m in metrics.values())
    # minimize: good = the lower threshold; maximize: good = the upper one; order-insensitive
    assert (metrics["mae_flow"].good, metrics["mae_flow"].bad) == (0.1, 0.3)
    assert (metrics["mape_ω"].good, metrics["mape_ω"].bad) == (2.0, 5.0)
    assert (metrics["rank_corr"].good, metrics["rank_corr"].bad) == (0.95, 0.8)
    assert "ΔE_check" in (out / "config.yml").read_text(encoding="utf-8")


def test_traffic_light_matches_lips_colours():
    """LIPS colours by bisect_left over the sorted thresholds; 2/1/0 points = 1/0.5/0 here."""
    import bisect

    cfg, _ = lips_to_dataset(INI).build()
    for m in cfg.node("Thresholds").metrics:
        lo, hi = sorted((m.good, m.bad))
        minimize = m.good < m.bad
        for x in np.linspace(lo - 1, hi + 1, 41):
            if not minimize and x in (lo, hi):
                continue  # at exactly a threshold LIPS gives maximize the lower colour (documented)
            pos = bisect.bisect_left([lo, hi], x)
            points = [2, 1, 0][pos] if minimize else [0, 1, 2][pos]
            ours = mpl.apply_normaliser(
                m.norm, np.array([[x]]), {"good": np.array([m.good]), "bad": np.array([m.bad])}
            )
            assert ours[0, 0] == points / 2, (m.name, x)


def test_section_with_tuples_coefficients_speed_and_results(tmp_path, capsys):
    out = tmp_path / "ds"
    rc = convert_main(
        [
            "lips",
            str(INI),
            "--section",
            "CASE A",
            "--results",
            str(FIX / "results.csv"),
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    assert "unknown_metric" in capsys.readouterr().err
    cfg, raw = mpl.load_dataset(out)
    assert cfg.benchmark_names() == ["ML", "Physics", "Speed"]
    assert [cfg.node(b).weight for b in ("ML", "Physics", "Speed")] == [
        0.5,
        0.25,
        0.2,
    ]  # Coefficients
    speed = cfg.node("Speed/inference_time")
    assert speed.normaliser == "log_speedup" and speed.params == {
        "max_speedup": 10000.0,
        "reference": 1500.0,
    }
    res = mpl.score(raw, cfg)
    b = res.benchmarks
    # group score = (2 Ng + No) / (2 N)
    assert b.loc["solver", "ML"] == 1.0
    assert b.loc["surrogate", "ML"] == (2 * 1 + 1) / 4
    assert b.loc["surrogate", "Physics"] == 0.0
    # anchors README fact: reference 1500 s, inference 5 s, max 10000 -> 0.61928
    assert b.loc["surrogate", "Speed"] == pytest.approx(0.61928, abs=1e-5)
    assert math.isnan(b.loc["other", "ML"])  # "n/a" is missing
    assert res.overall.loc["solver", "score"] == pytest.approx((0.5 + 0.25 + 0) / 0.95)


def test_parse_threshold_forms():
    assert parse_threshold("a", {"comparison_type": "minimize", "thresholds": [0.02, 0.05]}) == (
        "lower",
        0.02,
        0.05,
    )
    assert parse_threshold("a", (0.8, 0.9, "max")) == ("higher", 0.9, 0.8)
    assert parse_threshold("a", [5, 1, "minimize"]) == ("lower", 1.0, 5.0)
    assert "comparison_type" in parse_threshold("a", [1, 2])
    assert "two numeric" in parse_threshold(
        "a", {"comparison_type": "maximize", "thresholds": [1, 2, 3]}
    )
    assert "equal" in parse_threshold("a", (1, 1, "min"))


def test_bad_inputs_are_errors_without_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.ini"
    bad.write_text("[DEFAULT]\nThresholds = {'a': (1, 2, 'min')\n", encoding="utf-8")
    assert convert_main(["lips", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    notini = tmp_path / "x.ini"
    notini.write_text("no section header\n", encoding="utf-8")
    assert convert_main(["lips", str(notini), "--out", str(tmp_path / "o")]) == 2
    assert "malformed INI" in capsys.readouterr().err
    assert convert_main(["lips", str(INI), "--section", "NOPE", "--out", str(tmp_path / "o")]) == 2
    assert "no section [NOPE]" in capsys.readouterr().err
    with pytest.raises(DataError):
        lips_to_dataset(tmp_path / "missing.ini")


def test_wide_results(tmp_path):
    res_csv = tmp_path / "wide.csv"
    res_csv.write_text("model,mae_flow,ΔE_check\nm,0.05,5\n", encoding="utf-8")
    cfg, raw = lips_to_dataset(INI, results=res_csv).build()
    s = mpl.score(raw, cfg)
    assert s.benchmarks.loc["m", "Thresholds"] == (2 + 0) / 4


AIRFOIL = FIX / "airfoil.ini"
AIRFOIL_RESULTS = FIX / "airfoil_results.csv"


def test_seed_001_airfoil_openfoam_82_5_percent_through_the_cli(tmp_path, capsys):
    """Seed 001: OpenFOAM (exact, speed-up 1) scores 0.4 x 0.75 + 0.3 x 0.75 + 0.3 x 1 = 82.5 %
    with LIPS's nested airfoil coefficients, via ``convert lips --results`` then ``score``."""
    from ml_peg_like.cli import main as cli_main

    ds = tmp_path / "ds"
    args = ["lips", str(AIRFOIL), "--results", str(AIRFOIL_RESULTS), "--out", str(ds)]
    assert convert_main(args) == 0
    err = capsys.readouterr().err
    assert "ratio" not in err and "not used" not in err and "weight 1" not in err, err
    out = tmp_path / "scores"
    assert cli_main(["score", str(ds), "--out", str(out)]) == 0
    capsys.readouterr()
    overall = {
        r.split(",")[0]: r.split(",")[1:]
        for r in (out / "overall_scores.csv").read_text(encoding="utf-8").splitlines()[1:]
    }
    assert float(overall["OpenFOAM"][0]) == pytest.approx(0.825, abs=1e-12)
    # surrogate, colours counted by hand from the fixture: ML accuracy 3 g 1 o 1 r, OOD accuracy
    # 1 g 4 o 4 r, Physics 2 g 2 o; speed-up 1500 / 5 = 300 -> log10(300) / log10(10000)
    speed = math.log10(300) / 4
    ml = 0.75 * (2 * 3 + 1) / 10 + 0.25 * speed
    ood = 0.75 * (2 * 1 + 4) / 18 + 0.25 * speed
    phys = (2 * 2 + 2) / 8
    assert float(overall["surrogate"][0]) == pytest.approx(0.4 * ml + 0.3 * ood + 0.3 * phys)

    cfg, raw = mpl.load_dataset(ds)
    # the same sub-score name under two categories is kept, with one unambiguous name everywhere
    assert cfg.benchmark_names() == [
        "Accuracy (ML)",
        "Speed (ML)",
        "Accuracy (OOD)",
        "Speed (OOD)",
        "Physics",
    ]
    assert [c.weight for c in cfg.categories] == [0.4, 0.3, 0.3]
    assert [cfg.node(b).weight for b in ("Accuracy (OOD)", "Speed (OOD)")] == [0.75, 0.25]
    assert cfg.node("OOD/Accuracy (OOD)/pressure").good == 0.002
    assert "OpenFOAM,Accuracy (OOD),pressure,0" in (ds / "raw_metrics.csv").read_text(
        encoding="utf-8"
    )
    res = mpl.score(raw, cfg)
    assert res.benchmarks.loc["OpenFOAM", "Speed (ML)"] == 0.0  # speed-up 1
    assert res.categories.loc["OpenFOAM"].tolist() == [0.75, 0.75, 1.0]


def test_coefficients_it_cannot_use_are_reported(tmp_path):
    ini = tmp_path / "c.ini"
    ini.write_text(
        AIRFOIL.read_text(encoding="utf-8")
        .replace(
            '"Physics": {"value": 0.3}}',
            '"Physics": {"value": 0.3}, "Extra": 2,\n                "Speed2": {"value": "fast"}}',
        )
        # drop the Speed sub-weight of OOD and nest the ML accuracy one level too deep
        .replace(
            '"OOD": {"value": 0.3, "Accuracy": {"value": 0.75}, "Speed": {"value": 0.25}}',
            '"OOD": {"value": 0.3, "Accuracy": {"value": 0.75}}',
        )
        .replace(
            '"Accuracy": {"value": 0.75}, "Speed"', '"Accuracy": {"value": 0.75, "x": 1}, "Speed"'
        ),
        encoding="utf-8",
    )
    conv = lips_to_dataset(ini, results=AIRFOIL_RESULTS)
    text = "\n".join(conv.warnings)
    assert "Coefficients.Extra: matches no category or benchmark: not used" in text
    assert "Coefficients.Speed2: 'fast' is not a weight >= 0: not used" in text
    assert "no usable coefficient for OOD.Speed: weight 1" in text
    assert "Coefficients.ML.Accuracy: nested deeper than category / sub-score (x)" in text
    assert "the weights of the benchmarks of 'OOD' sum to 1.75" in text
    cfg, _ = conv.build()
    assert cfg.node("Speed (OOD)").weight == 1.0 and cfg.node("Accuracy (ML)").weight == 0.75


def test_no_coefficients_warns_equal_weights(tmp_path):
    ini = tmp_path / "c.ini"
    text = AIRFOIL.read_text(encoding="utf-8")
    ini.write_text(text[: text.index("\nCoefficients")], encoding="utf-8")
    conv = lips_to_dataset(ini, results=AIRFOIL_RESULTS)
    assert any("no Coefficients" in w for w in conv.warnings)
    cfg, _ = conv.build()
    assert {c.weight for c in cfg.categories} == {1.0}


def test_training_time_limit_vetoes_through_the_cli(tmp_path, capsys):
    # seeds 000/001: a training time over the limit is "equivalent to a null global score"
    res_csv = tmp_path / "wide.csv"
    res_csv.write_text(
        "model,mae_flow,ΔE_check,training_time\nm,0.05,5,90000\nn,0.05,5,100\n", encoding="utf-8"
    )
    out = tmp_path / "ds"
    argv = ["lips", str(INI), "--results", str(res_csv), "--out", str(out)]
    assert convert_main([*argv, "--training-time-limit", "86400"]) == 0
    cfg, raw = mpl.load_dataset(out)
    assert [(v.metric, v.above) for v in cfg.vetoes] == [
        ("Training/Training/training_time", 86400.0)
    ]
    assert mpl.load_config(out / "config.yml") == cfg  # the veto is in config.yml
    s = mpl.score(raw, cfg)
    # both: mae_flow green (1), ΔE_check red (0) -> (2 + 0) / 4 = 0.5; m trained 90000 s > 86400
    assert s.overall["score"].to_dict() == {"m": 0.0, "n": 0.5}
    assert s.categories.loc["m", "LIPS"] == 0.5  # lower levels unchanged
    capsys.readouterr()
    assert convert_main([*argv, "--training-time-limit", "-1"]) == 2
    assert "--training-time-limit: expected seconds > 0" in capsys.readouterr().err
