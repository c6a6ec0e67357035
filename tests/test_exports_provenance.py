"""Exports fit for a paper: provenance in every export (hashes recomputed here with hashlib over
the same bytes), the LaTeX table's columns, decimals, bold, caption, label and fits, and a
compile with pdflatex when it is installed."""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import re
import shutil
import subprocess
import zipfile

import numpy as np
import openpyxl
import pytest

import ml_peg_like as mpl
from ml_peg_like.cli import main
from ml_peg_like.io.common import Converted, write_dataset
from ml_peg_like.io.export import tables_csv_zip
from ml_peg_like.io.latex import LatexOptions, column_decimals, report_latex
from ml_peg_like.io.provenance import (
    CANONICAL_CONFIG,
    CANONICAL_RAW,
    FILE_BYTES,
    provenance_of_scores,
    source_record,
)
from ml_peg_like.io.report import build_report
from ml_peg_like.io.xlsx import report_xlsx

CONFIG = """title: Prov
missing: skip
categories:
  A:
    benchmarks:
      B1:
        metrics:
          M1: {good: 0, bad: 10}
  C:
    benchmarks:
      B2:
        metrics:
          M2: {good: 1, bad: 0}
  Z:
    weight: 0
    benchmarks:
      B3:
        metrics:
          M3: {good: 1, bad: 0}
"""
# x: M1 2.5 -> 0.75, M2 0.5, M3 0.2: overall (0.75 + 0.5) / 2 = 0.625 (Z has weight 0)
# y: M1 0 -> 1, M2 0.9, M3 0.9: overall 0.95; w: M1 10 -> 0, M2 missing: skip -> 0, coverage 1/2
RAW = (
    "model,benchmark,metric,value\n"
    "x,B1,M1,2.5\nx,B2,M2,0.5\nx,B3,M3,0.2\n"
    "y,B1,M1,0\ny,B2,M2,0.9\ny,B3,M3,0.9\n"
    "w,B1,M1,10\n"
)
WHEN = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def dataset(tmp_path):
    d = tmp_path / "ds"
    d.mkdir()
    (d / "config.yml").write_bytes(CONFIG.encode())
    (d / "raw_metrics.csv").write_bytes(RAW.encode())
    return d


def loaded(d):
    cfg, raw = mpl.load_dataset(d)
    return cfg, raw, mpl.score(raw, cfg)


def check_files(prov, d):
    assert prov["tool"] == "ml-peg-like"
    assert prov["config"]["sha256"] == sha((d / "config.yml").read_bytes())
    assert prov["config"]["hash_of"] == FILE_BYTES
    assert prov["raw_data"]["sha256"] == sha((d / "raw_metrics.csv").read_bytes())
    assert prov["missing_data_policy"] == {"default": "skip"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", prov["created_utc"])


def test_the_cli_csv_and_json_carry_the_provenance(dataset, tmp_path):
    out = tmp_path / "c"
    assert main(["score", str(dataset), "--out", str(out)]) == 0
    prov = json.loads((out / "provenance.json").read_text())
    check_files(prov, dataset)
    assert prov["settings"] == "published defaults" and prov["changes_from_defaults"] == {}
    # settings.yml: the provenance as comments, then a config that loads back to the same
    text = (out / "settings.yml").read_text()
    assert text.startswith("# Provenance (ml-peg-like)\n")
    assert f"#   config.sha256: {prov['config']['sha256']}" in text
    assert mpl.loads_config(text) == mpl.load_config(dataset / "config.yml")
    out = tmp_path / "j"
    assert main(["score", str(dataset), "--out", str(out), "--format", "json"]) == 0
    for name in ("overall", "category", "benchmark", "metric"):
        check_files(json.loads((out / f"{name}_scores.json").read_text())["provenance"], dataset)


def test_the_zip_workbook_and_latex_carry_the_provenance(dataset):
    cfg, raw, s = loaded(dataset)
    prov = provenance_of_scores(s, origin=raw.origin)
    with zipfile.ZipFile(io.BytesIO(tables_csv_zip(s, provenance=prov))) as zf:
        check_files(json.loads(zf.read("provenance.json")), dataset)
        assert zf.read("settings.yml").decode().startswith("# Provenance")
    rep = build_report(s, origin=raw.origin, now=WHEN)
    wb = openpyxl.load_workbook(io.BytesIO(report_xlsx(rep)))
    rows = dict(wb["Provenance"].iter_rows(min_row=2, values_only=True))
    assert rows["config.sha256"] == sha((dataset / "config.yml").read_bytes())
    assert rows["raw_data.sha256"] == sha((dataset / "raw_metrics.csv").read_bytes())
    assert rows["created_utc"] == "2026-01-02T03:04:05Z"
    assert rows["missing_data_policy.default"] == "skip"
    assert rows["settings"] == "published defaults"
    tex = report_latex(rep)
    comments = [ln for ln in tex.splitlines() if ln.startswith("%")]
    assert f"%   raw_data.sha256: {sha((dataset / 'raw_metrics.csv').read_bytes())}" in comments
    assert "%   created_utc: 2026-01-02T03:04:05Z" in comments
    caption = re.search(r"\\caption\{(.*)\}", tex).group(1)
    assert "missing-data policy: skip" in caption and "published defaults" in caption


def test_in_memory_data_is_hashed_in_its_canonical_form():
    cfg = mpl.loads_config(CONFIG)
    raw = mpl.RawData(
        ("p", "q"),
        tuple(cfg.metric_ids()),
        np.array([[1.5, np.nan, 0.25], [2.0, 0.1, 1e-20]]),
    )
    prov = provenance_of_scores(mpl.score(raw, cfg))
    # written out by hand: one row per model and metric, board order, missing empty
    canonical = (
        "model,benchmark,metric,value\n"
        "p,B1,M1,1.5\np,B2,M2,\np,B3,M3,0.25\n"
        "q,B1,M1,2.0\nq,B2,M2,0.1\nq,B3,M3,1e-20\n"
    )
    assert prov["raw_data"] == {"sha256": sha(canonical.encode()), "hash_of": CANONICAL_RAW}
    assert prov["config"]["hash_of"] == CANONICAL_CONFIG
    assert prov["config"]["sha256"] == sha(mpl.dump_config(cfg).encode("utf-8"))


def test_every_change_from_the_defaults_is_recorded_and_captioned(dataset):
    cfg, raw, _s = loaded(dataset)
    mine = cfg.apply_changes({"A/B1/M1": {"bad": 5.0}, "C": {"weight": 2.0}})
    s = mpl.score(raw, mine)
    rep = build_report(s, defaults=cfg, origin=raw.origin)
    prov = rep.provenance
    assert prov["changes_from_defaults"] == {"A/B1/M1": {"bad": 5.0}, "C": {"weight": 2.0}}
    assert prov["settings"] == "2 changed from defaults"
    # the config hash stays the file's (the defaults as read); the changes say the rest
    assert prov["config"]["sha256"] == sha((dataset / "config.yml").read_bytes())
    caption = re.search(r"\\caption\{(.*)\}", report_latex(rep)).group(1)
    assert "changed from the defaults: A/B1/M1: bad = 5.0; C: weight = 2.0" in caption


def test_a_converted_dataset_records_its_converter(dataset, tmp_path):
    cfg_dict = {"categories": {"A": {"benchmarks": {"B1": {"metrics": {"M1": {"good": 1}}}}}}}
    cfg_dict["categories"]["A"]["benchmarks"]["B1"]["metrics"]["M1"]["bad"] = 0
    conv = Converted(config=cfg_dict, rows=[("m", "B1", "M1", 0.5)])
    conv.source = source_record("ml-peg", {"src": "/data/ml-peg", "strict": None}, now=WHEN)
    out = tmp_path / "conv"
    write_dataset(conv, out)
    record = json.loads((out / "source.json").read_text())
    assert record["converter"] == "ml-peg" and record["inputs"] == {"src": "/data/ml-peg"}
    assert record["converted_utc"] == "2026-01-02T03:04:05Z"
    assert record["converter_version"].startswith("ml-peg-like ")
    cfg, raw = mpl.load_dataset(out)
    prov = provenance_of_scores(mpl.score(raw, cfg), origin=raw.origin)
    assert prov["source"] == record


# ------------------------------------------------------------------------------------------------
# LaTeX
# ------------------------------------------------------------------------------------------------


def body_lines(tex: str) -> list[str]:
    return [ln for ln in tex.splitlines() if ln.endswith("\\\\")]


def test_latex_counts_only_weighted_columns_with_coverage_and_per_column_decimals(dataset):
    _cfg, raw, s = loaded(dataset)
    tex = report_latex(build_report(s, origin=raw.origin))
    # Z (weight 0) left out; skip policy: a Coverage column; w: 0 overall, coverage 50%
    assert body_lines(tex) == [
        "Rank & Model & Overall & Coverage & A & C \\\\",
        "1 & y & \\textbf{0.950} & 100\\% & \\textbf{1.00} & \\textbf{0.900} \\\\",
        "2 & x & 0.625 & 100\\% & 0.75 & 0.500 \\\\",
        "3 & w & 0.000 & 50\\% & 0.00 & -- \\\\",
    ]
    assert "\\label{tab:scores}" in tex and "\\usepackage{booktabs}" in tex
    marked = report_latex(build_report(s), LatexOptions(zero_weight="mark", label="tab:x"))
    assert body_lines(marked)[0] == "Rank & Model & Overall & Coverage & A & C & Z$^\\dagger$ \\\\"
    assert "$^\\dagger$: weight 0" in marked and "\\label{tab:x}" in marked
    # a category of weight 1 whose only benchmark has weight 0 counts for nothing either
    cfg0 = mpl.loads_config(CONFIG.replace("      B2:\n", "      B2:\n        weight: 0\n"))
    s0 = mpl.score(mpl.load_raw(dataset / "raw_metrics.csv", cfg0), cfg0)
    assert (
        body_lines(report_latex(build_report(s0)))[0]
        == "Rank & Model & Overall & Coverage & A \\\\"
    )


def test_latex_bold_only_among_scored_models_and_shared_ranks():
    cfg = mpl.loads_config(CONFIG.replace("missing: skip", "missing: invalidate"))
    # p: A (M1 5) 0.5, C 0.5 -> 0.5; q: A 1, C 0 -> 0.5: a tie, "=1" for both; r: A 1.0 as
    # q, but no overall score (M2 missing): its 1.00 is not bold, its rank "--"
    raw = mpl.RawData(
        ("p", "q", "r"),
        tuple(cfg.metric_ids()),
        np.array([[5, 0.5, 0], [0, 0, 0], [0, np.nan, 0]], dtype=float),
    )
    lines = body_lines(report_latex(build_report(mpl.score(raw, cfg))))
    assert lines[1:] == [
        "=1 & p & \\textbf{0.500} & 0.50 & \\textbf{0.500} \\\\",
        "=1 & q & \\textbf{0.500} & \\textbf{1.00} & 0.000 \\\\",
        "-- & r & -- & 1.00 & -- \\\\",
    ]


def test_column_decimals_follow_the_largest_value():
    assert column_decimals([0.85, 0.0974], 3) == 3  # 0.850, 0.097
    assert column_decimals([85.0, 9.74], 3) == 1  # 85.0, 9.7
    assert column_decimals([100.0, 50.0], 3) == 0
    assert column_decimals([0.9996], 3) == 2  # rounds to 1.00
    assert column_decimals([None], 3) == 2


def test_latex_fits_resize_transpose_split(dataset):
    _cfg, _raw, s = loaded(dataset)
    rep = build_report(s)
    resized = report_latex(rep, LatexOptions(fit="resize"))
    assert "\\resizebox{\\linewidth}{!}{%" in resized and "\\usepackage{graphicx}" in resized
    flipped = body_lines(report_latex(rep, LatexOptions(fit="transpose")))
    assert flipped[0] == " & y & x & w \\\\"
    assert flipped[1] == "Rank & 1 & 2 & 3 \\\\"
    assert flipped[2] == "Overall & \\textbf{0.950} & 0.625 & 0.000 \\\\"
    split = report_latex(rep, LatexOptions(fit="split", max_columns=2))
    heads = [ln for ln in body_lines(split) if ln.startswith("Rank")]
    assert heads == ["Rank & Model & Overall & Coverage \\\\", "Rank & Model & A & C \\\\"]
    assert "\\label{tab:scores-1}" in split and "\\label{tab:scores-2}" in split
    assert "Part 2 of 2." in split


def test_cli_latex_options_and_bad_label(dataset, tmp_path, capsys):
    out = tmp_path / "t"
    args = ["score", str(dataset), "--out", str(out), "--format", "latex"]
    assert main([*args, "--latex-fit", "split", "--latex-split-columns", "3"]) == 0
    assert (out / "scores.tex").read_text().count("\\begin{table}") == 2  # 4 columns: 3 + 1
    assert main([*args, "--latex-label", "tab:a{b"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: latex label: expected a label without {}%\\#, got 'tab:a{b'"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "--latex-fit", "squeeze"])
    assert exc.value.code == 2


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("fit", ["none", "resize", "transpose", "split"])
def test_the_latex_compiles(dataset, tmp_path, fit):
    _cfg, raw, s = loaded(dataset)
    rep = build_report(s, origin=raw.origin)
    table = report_latex(rep, LatexOptions(fit=fit, max_columns=2, zero_weight="mark"))
    doc = (
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
        "\\begin{document}\n" + table + "\n\\end{document}\n"
    )
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 0


def test_a_sheet_above_the_styled_limit_is_written_general_with_the_same_values(
    dataset, monkeypatch
):
    import ml_peg_like.io.xlsx as xlsx

    _cfg, _raw, s = loaded(dataset)
    rep = build_report(s)
    styled = openpyxl.load_workbook(io.BytesIO(report_xlsx(rep)))
    # Metrics: 3 models x (Rank, Model, Key + 3 x (raw, score)) = 27 cells; Overall: 3 x 9 = 27
    monkeypatch.setattr(xlsx, "STYLED_CELLS", 26)
    plain = openpyxl.load_workbook(io.BytesIO(report_xlsx(rep)))
    assert styled["Metrics"]["E2"].number_format == "0.000"
    assert plain["Metrics"]["E2"].number_format == "General"
    for name in ("Overall", "Metrics"):
        a = list(styled[name].iter_rows(values_only=True))
        assert a == list(plain[name].iter_rows(values_only=True))
