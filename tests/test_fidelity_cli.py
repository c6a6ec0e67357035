"""Infinite data-driven thresholds score as limits, through the CLI as a user runs it."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest


def _score(tmp_path, config: str, raw: str) -> dict[str, dict[str, str]]:
    (tmp_path / "config.yml").write_text(config, encoding="utf-8")
    (tmp_path / "raw.csv").write_text(raw, encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "ml_peg_like", "score", "config.yml", "raw.csv", "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "infinite value kept" in proc.stderr
    tables = {}
    for name in ("metric_scores", "overall_scores"):
        with open(out / f"{name}.csv", encoding="utf-8") as fh:
            tables[name] = {r["model"]: r for r in csv.DictReader(fh)}
    return tables


def _metric(tables, model):
    return float(tables["metric_scores"][model]["B/err"])


def test_issue_13_case_trivial_inf_is_maxerr(tmp_path):
    """Seed 002: Score = max(0, 1 - Err / MaxErr); MaxErr = inf -> finite errors score 1, inf 0."""
    t = _score(
        tmp_path,
        "categories: {C: {benchmarks: {B: {metrics: {err: {good: 0, bad: {model: trivial}}}}}}}\n",
        "model,benchmark,metric,value\nA,B,err,1\nB,B,err,0\ntrivial,B,err,inf\n",
    )
    assert [_metric(t, m) for m in ("A", "B", "trivial")] == [1.0, 1.0, 0.0]
    assert [float(t["overall_scores"][m]["score"]) for m in ("A", "B", "trivial")] == [1, 1, 0]
    assert t["overall_scores"]["trivial"]["rank"] == "3"


@pytest.mark.parametrize(
    "better,values,expected",
    [
        # lower is better: best = 0, worst = inf -> finite values score 1, inf (= bad) 0
        ("lower", {"A": "1", "B": "0", "C": "inf"}, {"A": 1.0, "B": 1.0, "C": 0.0}),
        # higher is better: best = inf, worst = 0 -> finite values score 0, inf (= good) 1
        ("higher", {"A": "1", "B": "0", "C": "inf"}, {"A": 0.0, "B": 0.0, "C": 1.0}),
        # both infinite: best = -inf, worst = inf (lower better) -> finite 0.5, the ends 1 and 0
        ("lower", {"A": "1", "B": "-inf", "C": "inf"}, {"A": 0.5, "B": 1.0, "C": 0.0}),
    ],
)
def test_best_worst_with_infinite_values(tmp_path, better, values, expected):
    t = _score(
        tmp_path,
        "categories: {C: {benchmarks: {B: {metrics: {err: {good: best, bad: worst, better: "
        + better
        + "}}}}}}\n",
        "model,benchmark,metric,value\n" + "".join(f"{m},B,err,{v}\n" for m, v in values.items()),
    )
    assert {m: _metric(t, m) for m in values} == expected
