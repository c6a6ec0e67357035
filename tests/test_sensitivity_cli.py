"""``ml-peg-like sensitivity``: a worked example, computed by hand, through the command line."""

from __future__ import annotations

import pandas as pd
import pytest

from ml_peg_like.cli import main

CONFIG = """
categories:
  C:
    benchmarks:
      B1: {metrics: {m: {good: 1, bad: 0}}}
      B2: {metrics: {m: {good: 1, bad: 0}}}
"""
RAW = "model,benchmark,metric,value\nA,B1,m,1\nA,B2,m,0\nB,B1,m,0.4\nB,B2,m,0.8\nD,B1,m,0.3\nD,B2,m,0.3\n"


@pytest.fixture
def dataset(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "config.yml").write_text(CONFIG)
    (d / "raw_metrics.csv").write_text(RAW)
    return d


def _run(argv):
    return main(argv)


def test_writes_the_three_tables(dataset, tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(["sensitivity", str(dataset), "--model", "A", "--out", str(out)]) == 0
    iv = pd.read_csv(out / "intervals.csv")
    assert list(iv.columns) == ["path", "field", "current", "low", "high"]
    row = iv[(iv["path"] == "C/B2") & (iv["field"] == "weight")].iloc[0]
    assert row["low"] == pytest.approx(0.75) and row["high"] == float("inf")
    text = (out / "intervals.csv").read_text()
    assert "C/B1/m,bad,0,-inf,0.25" in text
    wi = pd.read_csv(out / "whatif.csv", keep_default_na=False)
    assert list(wi.columns) == ["path", "field", "current", "value"]
    b1 = wi[(wi["path"] == "C/B1") & (wi["field"] == "weight")].iloc[0]
    assert float(b1["value"]) == pytest.approx(4 / 3)
    assert wi[(wi["path"] == "C/B1/m") & (wi["field"] == "good")].iloc[0]["value"] == ""
    assert (out / "dominance.csv").read_text().splitlines() == [
        "model,dominated_by",
        "A,",
        "B,",
        "D,B",
    ]
    assert "wrote" in capsys.readouterr().out


def test_config_and_raw_paths_work_too(dataset, tmp_path):
    out = tmp_path / "o2"
    assert (
        _run(
            [
                "sensitivity",
                str(dataset / "config.yml"),
                str(dataset / "raw_metrics.csv"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert (out / "intervals.csv").is_file() and not (out / "whatif.csv").exists()


def test_unknown_model_exits_2_naming_the_known_ones(dataset, tmp_path, capsys):
    assert _run(["sensitivity", str(dataset), "--model", "Z", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "--model" in err and "known: A, B, D" in err


def test_bad_top_k_and_missing_file_exit_2(dataset, tmp_path, capsys):
    assert _run(["sensitivity", str(dataset), "--top-k", "0", "--out", str(tmp_path / "x")]) == 2
    assert _run(["sensitivity", str(tmp_path / "nope.yml"), "r.csv", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("error:") == 2


def test_top_k_two(dataset, tmp_path):
    out = tmp_path / "k2"
    assert _run(["sensitivity", str(dataset), "--top-k", "2", "--out", str(out)]) == 0
    iv = pd.read_csv(out / "intervals.csv")
    # top 2 = {B, A}; D (0.3) overtakes A only if B2's weight grows until A's 1/(1+w) < 0.3
    row = iv[(iv["path"] == "C/B2") & (iv["field"] == "weight")].iloc[0]
    assert row["high"] == pytest.approx(7 / 3)
