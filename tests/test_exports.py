"""Paper-ready exports: the XLSX workbook opened with openpyxl, the LaTeX
table, the CLI's --format xlsx|latex and --digits, shortest repr in CSV/JSON, rank change words,
and the converters' display names and metadata."""

from __future__ import annotations

import datetime
import io
import json
import re

import openpyxl
import pytest

import ml_peg_like as mpl
from ml_peg_like.cli import main
from ml_peg_like.io.export import level_tables
from ml_peg_like.io.latex import latex_escape, report_latex
from ml_peg_like.io.matbench import matbench_to_dataset
from ml_peg_like.io.mlpeg import mlpeg_to_dataset
from ml_peg_like.io.report import build_report, safe_file_stem
from ml_peg_like.io.xlsx import report_xlsx, score_format
from ml_peg_like.numfmt import fmt_raw, fmt_score, shortest

CONFIG = """
title: "Paper & Co_test"
missing: invalidate
categories:
  A:
    benchmarks:
      B1:
        metrics:
          M1: {good: 0, bad: 10, unit: meV}
  C:
    benchmarks:
      B2:
        metrics:
          M2: {good: 1, bad: 0}
"""
# x: M1 2.5 -> 0.75, M2 0.5 -> 0.5, overall 0.625; y: 1, 0.9 -> 0.95; z: 0.5, M2 missing -> none
RAW = "model,benchmark,metric,value\nx,B1,M1,2.5\nx,B2,M2,0.5\ny,B1,M1,0\ny,B2,M2,0.9\nz,B1,M1,5\n"
MODELS = "model,display_name,family\nx,Model_X & 1%,f1\ny,Y,f2\nz,,f1\n"


@pytest.fixture
def dataset(tmp_path):
    (tmp_path / "config.yml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "raw_metrics.csv").write_text(RAW, encoding="utf-8")
    (tmp_path / "models.csv").write_text(MODELS, encoding="utf-8")
    return tmp_path


@pytest.fixture
def report(dataset):
    cfg, raw = mpl.load_dataset(dataset)
    s = mpl.score(raw, cfg)
    when = datetime.datetime(2025, 3, 4, 5, 6, tzinfo=datetime.UTC)
    return build_report(s, attributes=raw.attributes, source="hand-made", now=when)


def _rows(ws):
    header = [c.value for c in ws[1]]
    return header, [list(r) for r in ws.iter_rows(min_row=2, values_only=True)]


def test_workbook_sheets_rank_order_frozen_header_and_settings(report):
    wb = openpyxl.load_workbook(io.BytesIO(report_xlsx(report)))
    assert wb.sheetnames == [
        "Overall",
        "Categories",
        "Benchmarks",
        "Metrics",
        "Settings",
        "Provenance",
    ]
    header, rows = _rows(wb["Overall"])
    assert header == ["Rank", "Model", "Key", "Tied", "Overall", "A", "C"]
    assert rows == [
        [1, "Y", "y", False, 0.95, 1.0, 0.9],
        [2, "Model_X & 1%", "x", False, 0.625, 0.75, 0.5],
        [None, "z", "z", False, None, 0.5, None],  # no overall score: last, no rank
    ]
    for name in ("Overall", "Categories", "Benchmarks", "Metrics"):
        assert wb[name].freeze_panes == "D2"  # header row and Rank/Model/Key stay in view
        assert wb[name]["A1"].font.bold
    assert wb["Overall"]["E2"].number_format == "0.000"  # 3 significant digits on 0-1
    assert wb["Overall"].column_dimensions["B"].width >= len("Model_X & 1%")
    header, rows = _rows(wb["Metrics"])
    # raw value (with its unit) beside each score; score headers carry no unit
    assert header == ["Rank", "Model", "Key", "B1/M1 raw [meV]", "B1/M1 score", "B2/M2 raw",
                      "B2/M2 score"]  # fmt: skip
    assert rows[0][3:] == [0, 1.0, 0.9, 0.9] and rows[1][3:] == [2.5, 0.75, 0.5, 0.5]
    assert wb["Settings"].freeze_panes == "A2"
    settings = dict(wb["Settings"].iter_rows(min_row=2, values_only=True))
    assert settings["Title"] == "Paper & Co_test"
    assert settings["Data source"] == "hand-made"
    assert settings["Missing-data policy"] == "invalidate"
    assert settings["Changes from the defaults"] == "none"
    assert settings["Models"] == "3 of 3"
    assert re.fullmatch(r"ml-peg-like \S+", settings["Package"])
    assert settings["Date"] == "2025-03-04 05:06 UTC"


def test_settings_list_every_change_and_the_filter(dataset):
    cfg, raw = mpl.load_dataset(dataset)
    mine = cfg.apply_changes({"A/B1/M1": {"bad": 5.0}, "C": {"weight": 0.0}})
    s = mpl.score(raw, mine)
    d = mpl.score(raw, cfg)
    rep = build_report(
        s, defaults=cfg, default_scores=d, models=["x", "z"], model_filter="filter family: f1"
    )
    settings = dict(rep.settings)
    assert settings["Changed: A/B1/M1"] == "bad = 5"
    assert settings["Changed: C"] == "weight = 0"
    assert settings["Models"] == "2 of 3 (filter family: f1)"
    ov = rep.sheets["Overall"]
    # C weight 0: overall = A = M1 scored on [0, 5]: x 0.5, z 0.0 (y 1.0 is filtered out)
    assert ov["Key"].tolist() == ["x", "z"]
    assert ov["Overall"].tolist() == [0.5, 0.0]
    # ranks among all models: y 1, x 2, z 3; before: y 1, x 2, z unranked -> "new"
    assert ov["Rank"].tolist() == [2, 3]
    assert ov["Rank change vs defaults"].tolist() == [0, "new"]


def test_latex_booktabs_bold_best_and_escaping(report):
    text = report_latex(report)
    assert "\\toprule" in text and "\\midrule" in text and "\\bottomrule" in text
    assert "\\begin{tabular}{rlrrr}" in text
    assert "Paper \\& Co\\_test" in text
    lines = [ln for ln in text.splitlines() if ln.endswith("\\\\")]
    # one number of decimals per column, for 3 significant digits of its largest value:
    # Overall 0.95 -> 3 decimals; A 1.0 -> 2; C 0.9 -> 3. z (no overall score) is not bold
    # in A although 0.50 would not be best anyway; its rank is "--"
    assert lines == [
        "Rank & Model & Overall & A & C \\\\",
        "1 & Y & \\textbf{0.950} & \\textbf{1.00} & \\textbf{0.900} \\\\",
        "2 & Model\\_X \\& 1\\% & 0.625 & 0.75 & 0.500 \\\\",
        "-- & z & -- & 0.50 & -- \\\\",
    ]
    assert latex_escape("a\\b~^{}$#<>") == (
        "a\\textbackslash{}b\\textasciitilde{}\\textasciicircum{}\\{\\}\\$\\#"
        "\\textless{}\\textgreater{}"
    )


def test_cli_writes_one_workbook_or_one_latex_table(dataset, tmp_path):
    out = tmp_path / "x"
    assert main(["score", str(dataset), "--out", str(out), "--format", "xlsx"]) == 0
    assert [p.name for p in out.iterdir()] == ["scores.xlsx"]
    wb = openpyxl.load_workbook(out / "scores.xlsx")
    assert [r[2] for r in wb["Overall"].iter_rows(min_row=2, values_only=True)] == ["y", "x", "z"]
    out = tmp_path / "t"
    args = ["score", str(dataset), "--out", str(out), "--format", "latex", "--digits", "2"]
    assert main(args) == 0
    text = (out / "scores.tex").read_text(encoding="utf-8")
    # 2 digits: Overall 0.95 -> 2 decimals, A 1.0 -> 1, C 0.9 -> 2
    assert "1 & Y & \\textbf{0.95} & \\textbf{1.0} & \\textbf{0.90} \\\\" in text
    assert "2 & Model\\_X \\& 1\\% & 0.63 & 0.8 & 0.50 \\\\" in text  # 0.625: half up
    with pytest.raises(SystemExit) as exc:
        main(["score", str(dataset), "--out", str(out), "--digits", "9"])
    assert exc.value.code == 2


def test_csv_and_json_write_the_shortest_repr(dataset, tmp_path):
    (dataset / "raw_metrics.csv").write_text(
        RAW.replace("x,B2,M2,0.5", "x,B2,M2,0.421"), encoding="utf-8"
    )
    assert main(["score", str(dataset), "--out", str(tmp_path / "c")]) == 0
    text = (tmp_path / "c" / "metric_scores.csv").read_text(encoding="utf-8")
    numbers = re.findall(r"(?<=,)-?[0-9][0-9.e+-]*", text)
    assert numbers and all(n == shortest(float(n)) or n == repr(float(n)) for n in numbers)
    assert "0.421" in text and "0.42099999" not in text
    # display names beside the key
    assert text.splitlines()[0] == "model,display_name,B1/M1,B2/M2"
    assert main(["score", str(dataset), "--out", str(tmp_path / "j"), "--format", "json"]) == 0
    raw_json = (tmp_path / "j" / "metric_scores.json").read_text(encoding="utf-8")
    assert "0.421" in raw_json and "0.42099999" not in raw_json
    assert json.loads(raw_json)["rows"][0]["display_name"] == "Model_X & 1%"


def test_level_tables_keep_only_the_filtered_models(dataset):
    cfg, raw = mpl.load_dataset(dataset)
    t = level_tables(mpl.score(raw, cfg), attributes=raw.attributes, models=["z"])
    assert t["overall_scores"]["model"].tolist() == ["z"]
    assert t["overall_scores"]["display_name"].tolist() == ["z"]  # empty name -> the key


def test_number_format_rule():
    assert [fmt_score(v) for v in (0.91, 0.929, 0.0005, 1.0)] == ["0.910", "0.929", "0.000500",
                                                               "1.00"]  # fmt: skip
    assert [fmt_raw(v) for v in (5e-4, 0.03333, 10.133000000000001, 9.5e23, 123456.0)] == [
        "5e-4",
        "0.03333",
        "10.13",
        "9.5e23",
        "1.235e5",
    ]
    assert shortest(0.90000000000000002) == "0.9" and shortest(10.133) == "10.133"
    assert shortest(0.1 + 0.2) == "0.30000000000000004"  # a different float keeps its digits
    assert score_format(1.0, 3) == "0.000" and score_format(100.0, 3) == "0.0"


def test_file_stem_is_safe_and_dated():
    when = datetime.date(2025, 1, 2)
    assert safe_file_stem("Matbench Discovery", when) == "Matbench_Discovery_2025-01-02"
    assert safe_file_stem("../a<b>:κ", when) == "a_b_2025-01-02"
    assert safe_file_stem("///", when) == "scores_2025-01-02"


# ------------------------------------------------------------------------------------------------
# converters: display names and metadata (item 3), presets (item 5)
# ------------------------------------------------------------------------------------------------

FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures" / "convert"


def test_matbench_fixture_models_carry_names_and_metadata():
    conv = matbench_to_dataset(FIXTURES / "matbench" / "models")
    a = next(m for m in conv.models if m["model"] == "model-a")
    assert a["display_name"] == "Model A"
    assert a["model_params"] == "1234567"
    assert a["training_set"] == "MPtrj; sAlex"
    assert a["date_added"] == "2025-01-02"
    assert a["openness"] == "OSOD" and a["model_version"] == "v1"
    assert a["paper"] is None and a["repo"] is None  # the fixture names none


@pytest.mark.anchors
def test_matbench_anchor_links_and_parameters(anchors):
    conv = matbench_to_dataset(anchors / "matbench-discovery" / "models")
    assert len(conv.models) == 51
    m = next(m for m in conv.models if m["model"] == "mattersim-v1-5m")
    # from models/mattersim/mattersim-v1-5m.yml
    assert m["display_name"] == "MatterSim v1 5M"
    assert m["model_params"] == "4549142"
    assert m["training_set"] == "MatterSim"
    assert m["date_added"] == "2024-12-16"
    assert m["paper"] == "https://arxiv.org/abs/2405.04967"
    assert m["repo"] == "https://github.com/microsoft/mattersim"
    assert m["checkpoint"].endswith("/mattersim-v1.0.0-5M.pth")
    assert m["openness"] == "OSCD"


@pytest.mark.anchors
def test_mlpeg_anchor_model_configs(anchors):
    conv = mlpeg_to_dataset(anchors / "ml-peg" / "tables")
    m = next(m for m in conv.models if m["model"] == "mace-matpes-r2scan")
    assert m["calculator"] == "mace.calculators.mace_mp"
    assert m["checkpoint"] == "mace-matpes-r2scan-0"
    assert m["trained_on_dispersion"] == "false"
    assert m["dispersion"] == "D4"
    assert m["level_of_theory"] == "r2SCAN"
    assert next(x for x in conv.models if x["model"] == "mattersim-5M")["checkpoint"] == (
        "mattersim-v1.0.0-5m"
    )


def test_mlpeg_fixture_presets_that_match_nothing_are_left_out(tmp_path):
    import shutil

    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "mlpeg" / "app", app)
    presets = app / "utils" / "weight_presets.yml"
    presets.write_text(
        presets.read_text(encoding="utf-8") + "Nothing here:\n  - Absent\n", encoding="utf-8"
    )
    conv = mlpeg_to_dataset(FIXTURES / "mlpeg" / "tables", app_dir=app)
    assert set(conv.config["presets"]) == {"Physics only", "Molecules and a typo"}
    assert any(
        "preset 'Nothing here' keeps none of the categories converted: left out" in w
        for w in conv.warnings
    )
