"""Per-instance metrics (seed 002): each instance normalised on its own, the
instance scores averaged; through the CLI as a user runs it."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ml_peg_like.cli import main
from ml_peg_like.dashboard.cache import ScoreCache
from ml_peg_like.dashboard.figures import curve_figure
from ml_peg_like.raw import load_dataset

# seed 002 (UAI PR task): errors per instance; MaxErr = the trivial solver's error
ERRORS = {"A": [0.5, 2.0, 10.0], "B": [0.0, 4.0, 1.0], "trivial": [1.0, 4.0, 5.0]}

SPEC = """
benchmarks:
  PR:
    metrics:
      - {name: Err, fn: log_partition_error, per_instance: true}
"""

CONFIG = """
categories:
  UAI:
    benchmarks:
      PR:
        metrics:
          Err: {good: 0, bad: {model: trivial}}
          missing fraction: {good: 0, bad: 1, weight: 0}
"""


def _predictions(path):
    # reference log Z* = 0, prediction log Z_hat = -Err: |log Z* / Z_hat| = Err
    rows = ["model,benchmark,sample,reference,prediction"]
    for model, errs in ERRORS.items():
        rows += [f"{model},PR,p{k + 1},0,{-e}" for k, e in enumerate(errs)]
    path.write_text("\n".join(rows) + "\n")


def _overall(out) -> dict[str, float]:
    df = pd.read_csv(out / "overall_scores.csv")
    return dict(zip(df["model"], df["score"], strict=True))


def test_seed_002_predictions_spec_compute_score(tmp_path, capsys):
    _predictions(tmp_path / "pred.csv")
    (tmp_path / "spec.yml").write_text(SPEC)
    (tmp_path / "config.yml").write_text(CONFIG)
    raw = tmp_path / "raw_metrics.csv"
    pred, spec = str(tmp_path / "pred.csv"), str(tmp_path / "spec.yml")
    assert main(["compute", pred, "--spec", spec, "--out", str(raw)]) == 0
    out = tmp_path / "out"
    cfg = str(tmp_path / "config.yml")
    assert main(["score", cfg, str(raw), "--scale", "100", "--out", str(out)]) == 0
    got = _overall(out)
    # A: (1 - 0.5/1, 1 - 2/4, max(0, 1 - 10/5)) = (0.5, 0.5, 0) -> 33.3
    # B: (1, 0, 1 - 1/5) = (1, 0, 0.8) -> 60; trivial: 0 everywhere
    assert got["A"] == pytest.approx(100 / 3)
    assert got["B"] == pytest.approx(60.0)
    assert got["trivial"] == pytest.approx(0.0)
    # (averaging the errors first would give A 0, B 50: 1 - mean(Err) / mean(MaxErr))
    assert "warning" not in capsys.readouterr().err


RAW = """model,benchmark,metric,instance,value
A,PR,Err,p1,0.5
A,PR,Err,p2,2
A,PR,Err,p3,10
B,PR,Err,p1,0
B,PR,Err,p2,4
B,PR,Err,p3,1
trivial,PR,Err,p1,1
trivial,PR,Err,p2,4
trivial,PR,Err,p3,5
C,PR,Err,p1,0.5
C,PR,Err,p3,
"""


def _dataset(tmp_path, raw=RAW, config=CONFIG):
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    (d / "config.yml").write_text(config)
    (d / "raw_metrics.csv").write_text(raw)
    return d


def test_config_and_raw_csv_route_and_missing_instances(tmp_path):
    d = _dataset(tmp_path)
    out = tmp_path / "out"
    assert main(["score", str(d), "--scale", "100", "--out", str(out)]) == 0
    got = _overall(out)
    assert got["A"] == pytest.approx(100 / 3) and got["B"] == pytest.approx(60.0)
    # C: p1 1 - 0.5/1 = 0.5; p2 (no row) and p3 (empty) are missing and count 0: 0.5 / 3
    assert got["C"] == pytest.approx(50 / 3)
    cfg, raw = load_dataset(d)
    # the raw value of a per-instance metric is the mean of the present instance values
    col = raw.metric_ids.index(("PR", "Err"))
    means = dict(zip(raw.models, raw.values[:, col], strict=True))
    assert means == pytest.approx({"A": 12.5 / 3, "B": 5 / 3, "trivial": 10 / 3, "C": 0.5})
    assert raw.instances[("PR", "Err")].names == ("p1", "p2", "p3")


def test_best_worst_resolved_per_instance(tmp_path):
    config = CONFIG.replace(
        "{good: 0, bad: {model: trivial}}", "{good: best, bad: worst, better: lower}"
    )
    d = _dataset(tmp_path, RAW.replace("C,PR,Err,p1,0.5\nC,PR,Err,p3,\n", ""), config)
    out = tmp_path / "out"
    assert main(["score", str(d), "--out", str(out)]) == 0
    got = _overall(out)
    # p1: best 0, worst 1 -> A 0.5, B 1, trivial 0; p2: best 2, worst 4 -> A 1, B 0, trivial 0;
    # p3: best 1, worst 10 -> A 0, B 1, trivial (10 - 5) / 9
    assert got["A"] == pytest.approx(1.5 / 3)
    assert got["B"] == pytest.approx(2 / 3)
    assert got["trivial"] == pytest.approx(5 / 27)


def test_an_instance_without_threshold_is_left_out_with_a_warning(tmp_path, capsys):
    raw = RAW + "A,PR,Err,p4,1\nB,PR,Err,p4,2\n"  # the trivial solver has no value on p4
    out = tmp_path / "out"
    assert main(["score", str(_dataset(tmp_path, raw)), "--out", str(out)]) == 0
    got = _overall(out)
    assert got["A"] == pytest.approx(1 / 3) and got["B"] == pytest.approx(0.6)
    err = capsys.readouterr().err
    assert "UAI/PR/Err.bad: model 'trivial' has no value on instance(s) p4" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            "A,PR,Err,p1,0.7\n",
            "raw_metrics.csv:13: duplicate row for model 'A', PR/Err, "
            "instance 'p1' (first at line 2)",
        ),
        ("A,PR,Err,,0.7\n", "raw_metrics.csv:13: PR/Err has rows with an instance"),
    ],
)
def test_bad_instance_rows_exit_2(tmp_path, capsys, extra, message):
    d = _dataset(tmp_path, RAW + extra)
    assert main(["score", str(d), "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err


def test_robustness_and_sensitivity_use_instance_scores(tmp_path):
    d = _dataset(tmp_path)
    out = tmp_path / "rob"
    assert main(["robustness", str(d), "--samples", "50", "--out", str(out)]) == 0
    summary = pd.read_csv(out / "robustness_summary.csv")
    now = dict(zip(summary["model"], summary["score_now"], strict=True))
    assert now["A"] == pytest.approx(1 / 3) and now["C"] == pytest.approx(1 / 6)
    # the per-instance metric's thresholds are not moved (one raw value per model is not enough)
    scalars = json.loads((out / "robustness.json").read_text())["scalars"]
    assert scalars["jittered_parameters"] == 0
    sens = tmp_path / "sens"
    assert main(["sensitivity", str(d), "--out", str(sens)]) == 0
    iv = pd.read_csv(sens / "intervals.csv")
    rows = iv[iv["path"] == "UAI/PR/Err"]
    assert rows["field"].tolist() == ["weight"]  # no good/bad rows


def test_dashboard_curve_has_the_instance_points(tmp_path):
    cfg, raw = load_dataset(_dataset(tmp_path))
    cache = ScoreCache(cfg, raw)
    sc = cache.default_scores
    assert sc.overall_scores.tolist() == pytest.approx([1 / 3, 0.6, 0.0, 1 / 6])
    fig = curve_figure(sc, "UAI/PR/Err")
    inst = [t for t in fig["data"] if t.get("name") == "instances"]
    assert len(inst) == 1
    # 10 present instance values (C has only p1); A's p3 (10 vs MaxErr 5) scores 0
    assert len(inst[0]["x"]) == 10
    pts = dict(zip(inst[0]["text"], inst[0]["y"], strict=True))
    assert pts["<b>A</b> · p3<br>raw: 10"] == 0.0
    assert pts["<b>B</b> · p3<br>raw: 1"] == pytest.approx(0.8)
    models = next(t for t in fig["data"] if t.get("name") == "models")
    assert models["x"][0] == pytest.approx(12.5 / 3)  # A's mean raw value
    assert "not scored" not in fig["layout"]["title"]["text"]
