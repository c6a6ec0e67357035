"""Raw-metrics CSV reading (long and wide) and the CLI's score / validate commands."""

from __future__ import annotations

import io
import json
import math
import zipfile

import numpy as np
import pandas as pd
import pytest

import ml_peg_like as mpl
from ml_peg_like import DataError
from ml_peg_like.cli import main
from ml_peg_like.io.export import build_report, report_xlsx, tables_csv_zip

CONFIG = """
title: CLI test
categories:
  Cat:
    benchmarks:
      Iris:
        metrics:
          Accuracy: {good: 1.0, bad: 0.5}
          Time: {good: 0, bad: 10, unit: s}
"""


def load(text: str, **kw):
    cfg = mpl.loads_config(CONFIG)
    return mpl.load_raw(io.BytesIO(text.encode("utf-8")), cfg, **kw)


def errors(text: str) -> list[str]:
    with pytest.raises(DataError) as exc:
        load(text)
    return exc.value.lines()


def test_long_csv_with_bom_extra_columns_and_missing_values():
    raw = load(
        "\ufeffcategory,model,benchmark,metric,value\nCat,a,Iris,Accuracy,0.75\nCat,a,Iris,Time,NaN\nCat,b,Iris,Accuracy,\n"
    )
    assert raw.models == ("a", "b")
    assert raw.values[0, 0] == 0.75
    assert np.isnan(raw.values[0, 1]) and np.isnan(raw.values[1]).all()


def test_every_problem_has_its_line_number():
    lines = errors(
        "model,benchmark,metric,value\n"
        "a,Iris,Accuracy,0.9\n"
        "a,Iris,Accuracy,0.8\n"
        "a,Wine,Accuracy,0.8\n"
        "a,Iris,F1,0.8\n"
        "b,Iris,Time,fast\n"
        ",Iris,Time,1\n"
    )
    assert lines == [
        "<upload>:7: empty model name",
        "<upload>:4: unknown benchmark 'Wine'",
        "<upload>:5: unknown metric 'F1' of benchmark 'Iris'",
        "<upload>:6: value 'fast' is not a number",
        "<upload>:3: duplicate row for model 'a', Iris/Accuracy (first at line 2)",
    ]


def test_ignore_unknown_skips_with_a_warning():
    raw = load(
        "model,benchmark,metric,value\na,Wine,Accuracy,0.8\na,Iris,Accuracy,0.9\n",
        ignore_unknown=True,
    )
    assert raw.values[0, 0] == 0.9
    assert raw.warnings == ["<upload>:2: unknown benchmark 'Wine' (skipped)"]


def test_wide_csv_is_accepted():
    raw = load("model,Iris/Accuracy,Cat/Iris/Time\na,0.9,2\nb,,4\n")
    assert raw.models == ("a", "b")
    assert raw.values[1, 1] == 4 and np.isnan(raw.values[1, 0])


def test_latin1_bytes_and_bad_headers_are_clear_errors():
    cfg = mpl.loads_config(CONFIG)
    with pytest.raises(DataError, match="not UTF-8"):
        mpl.load_raw(
            io.BytesIO("model,benchmark,metric,value\nna\xefve,Iris,Time,1\n".encode("latin-1")),
            cfg,
        )
    assert "expected a header" in errors("a,b\n1,2\n")[0]


def test_strange_model_names_are_kept_verbatim():
    raw = load(
        'model,benchmark,metric,value\n"<img src=x onerror=alert(1)>",Iris,Time,1\n=SUM(A1),Iris,Time,2\nκ-ω ²,Iris,Time,3\n'
    )
    assert raw.models == ("<img src=x onerror=alert(1)>", "=SUM(A1)", "κ-ω ²")


@pytest.fixture
def dataset(tmp_path):
    (tmp_path / "config.yml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "raw_metrics.csv").write_text(
        "model,benchmark,metric,value\na,Iris,Accuracy,0.75\na,Iris,Time,5\nb,Iris,Accuracy,1\nb,Iris,Time,0\n=cmd,Iris,Accuracy,0.5\n",
        encoding="utf-8",
    )
    return tmp_path


def test_cli_score_writes_four_tables(dataset, tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        main(
            [
                "score",
                str(dataset / "config.yml"),
                str(dataset / "raw_metrics.csv"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    overall = pd.read_csv(out / "overall_scores.csv", keep_default_na=False)
    assert list(overall.columns) == ["model", "score", "rank", "tied"]
    # a: (0.5 + 0.5) / 2 = 0.5 (rank 2); b: 1 (rank 1); '=cmd': invalidated (Time missing):
    # no overall score, so no rank (an empty cell, not a last place)
    ov = overall.set_index("model")
    assert ov.loc["b", "score"] == "1.0" and ov.loc["b", "rank"] == "1"
    assert ov.loc["a", "score"] == "0.5" and ov.loc["a", "rank"] == "2"
    assert ov.loc["'=cmd", "score"] == "" and ov.loc["'=cmd", "rank"] == ""
    assert ov["tied"].tolist() == [False] * 3
    assert "'=cmd" in overall["model"].tolist()  # formula neutralised
    bench = pd.read_csv(out / "metric_scores.csv")
    assert list(bench.columns) == ["model", "Iris/Accuracy", "Iris/Time"]
    for level in ("benchmark_scores", "category_scores"):
        assert (out / f"{level}.csv").exists()


def test_cli_score_accepts_a_directory_json_and_scale(dataset, tmp_path):
    out = tmp_path / "json"
    assert (
        main(["score", str(dataset), "--out", str(out), "--format", "json", "--scale", "100"]) == 0
    )
    doc = json.loads((out / "overall_scores.json").read_text())
    assert doc["provenance"]["tool"] == "ml-peg-like"  # every JSON file carries it
    rows = doc["rows"]
    a = next(r for r in rows if r["model"] == "a")
    assert a["score"] == 50.0 and a["rank"] == 2
    cmd = next(r for r in rows if r["model"] == "=cmd")
    assert cmd["score"] is None and cmd["rank"] is None  # no score, no rank


def test_cli_xlsx(dataset, tmp_path):
    out = tmp_path / "x"
    assert main(["score", str(dataset), "--out", str(out), "--format", "xlsx"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["scores.xlsx"]  # one workbook, not four
    df = pd.read_excel(out / "scores.xlsx", sheet_name="Overall")
    # rank order: b (1.0) first, a (0.5), then '=cmd (no overall score, no rank) last
    assert df["Key"].tolist() == ["b", "a", "'=cmd"]
    assert df["Overall"].tolist()[:2] == [1.0, 0.5]


def test_cli_validate_and_bad_input_exit_2_with_one_line_per_problem(dataset, tmp_path, capsys):
    assert main(["validate", str(dataset)]) == 0
    assert "OK: 1 categories, 1 benchmarks, 2 metrics; 3 models" in capsys.readouterr().out
    bad = tmp_path / "bad.yml"
    bad.write_text(
        CONFIG.replace("bad: 0.5", "bad: abc").replace("good: 0,", "good: x,"), encoding="utf-8"
    )
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: Cat/Iris/Accuracy.bad: expected a number, got 'abc'",
        "error: Cat/Iris/Time.good: expected a number, got 'x'",
    ]
    assert main(["score", str(tmp_path / "missing.yml"), "r.csv", "--out", str(tmp_path)]) == 2


def test_in_memory_exports_hold_every_level(dataset):
    cfg, raw = mpl.load_dataset(dataset)
    s = mpl.score(raw, cfg)
    with zipfile.ZipFile(io.BytesIO(tables_csv_zip(s))) as zf:
        assert sorted(zf.namelist()) == [
            "benchmark_scores.csv",
            "category_scores.csv",
            "metric_scores.csv",
            "overall_scores.csv",
            "provenance.json",
            "settings.yml",
        ]
        ov = pd.read_csv(zf.open("overall_scores.csv")).set_index("model")
    assert ov.loc["a", "score"] == 0.5 and math.isnan(ov.loc["'=cmd", "score"])
    sheets = pd.read_excel(io.BytesIO(report_xlsx(build_report(s))), sheet_name=None)
    assert list(sheets) == [
        "Overall",
        "Categories",
        "Benchmarks",
        "Metrics",
        "Settings",
        "Provenance",
    ]
