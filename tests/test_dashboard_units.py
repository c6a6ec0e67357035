"""Unit tests of the dashboard's pure helpers (no browser): state encoding, box edits,
formatting, missing-cell reasons, table contents and the curve figure."""

from __future__ import annotations

import math

import numpy as np
import pytest
from browser_utils import small_dataset

from ml_peg_like import ConfigError, dump_config, loads_config, score
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.figures import curve_figure
from ml_peg_like.dashboard.state import (
    apply_edit,
    changes_from_upload,
    decode_changes,
    effective_changes,
    encode_changes,
    make_query,
    parse_box,
    parse_query,
    zero_weight_problems,
)
from ml_peg_like.dashboard.tables import (
    column_defs,
    fmt_coverage,
    fmt_raw,
    fmt_score,
    missing_reasons,
    row_data,
)

IRIS_ACC = "Classification/Iris/Accuracy"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return small_dataset(tmp_path_factory.mktemp("small"))


def test_changes_round_trip_through_the_url_compactly():
    changes = {IRIS_ACC: {"good": 0.95, "bad": 0.6}, "Speed <b>&</b>/x": {"weight": 0.0}}
    enc = encode_changes(changes)
    assert decode_changes(enc) == changes
    assert set(enc) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
    q = make_query(changes, "Classification/Iris", "")
    assert parse_query(q)["v"] == "Classification/Iris"
    assert decode_changes(parse_query(q)["s"]) == changes
    big = {f"Cat/Bench/Metric {i}": {"good": i / 7, "bad": 1.0} for i in range(200)}
    assert decode_changes(encode_changes(big)) == big
    assert len(encode_changes(big)) < len(str(big))  # deflated
    assert encode_changes({}) == "" and decode_changes("") == {}


@pytest.mark.parametrize("text", ["x", "jnotbase64!!", "j" + "A" * 10, "zAAAA", "jWzFd"])
def test_unreadable_url_state_is_a_value_error(text):
    with pytest.raises(ValueError):
        decode_changes(text)


def test_parse_box():
    assert parse_box(" 0.5 ") == 0.5
    assert parse_box("1e3") == 1000.0
    assert parse_box("model: Ridge") == {"model": "Ridge"}
    assert parse_box("abc") == "abc"
    assert parse_box(None) == ""
    assert math.isnan(parse_box("nan"))


def test_an_edit_back_to_the_default_leaves_no_change(data):
    cfg, _raw = data
    ch, new = apply_edit(cfg, {}, {(IRIS_ACC, "good"): "0.95"})
    assert ch == {IRIS_ACC: {"good": 0.95}} and new.node(IRIS_ACC).good == 0.95
    ch, new = apply_edit(cfg, ch, {(IRIS_ACC, "good"): "1"})
    assert ch == {} and new == cfg
    # short paths (presets use them) become full paths
    assert effective_changes(cfg, {"Iris/Accuracy": {"bad": 0.4}}) == {IRIS_ACC: {"bad": 0.4}}


@pytest.mark.parametrize(
    "field,text,needle",
    [
        ("good", "abc", "expected a number"),
        ("good", "", "empty"),
        ("good", "nan", "finite"),
        ("good", "inf", "finite"),
        ("good", "0.5", "differ"),
        ("weight", "-1", ">= 0"),
    ],
)
def test_bad_box_values_raise_config_errors_naming_the_field(data, field, text, needle):
    cfg, _raw = data
    with pytest.raises(ConfigError) as err:
        apply_edit(cfg, {}, {(IRIS_ACC, field): text})
    assert any(needle in p.message and p.where.startswith(IRIS_ACC) for p in err.value.problems)


def test_all_zero_weights_of_a_group_are_refused(data):
    cfg, _raw = data
    ch, _ = apply_edit(cfg, {}, {(IRIS_ACC, "weight"): "0"})
    with pytest.raises(ConfigError) as err:
        apply_edit(cfg, ch, {("Classification/Iris/F1", "weight"): "0"})
    assert "every metric of Iris has weight 0" in str(err.value)
    zero = cfg.apply_changes({c.name: {"weight": 0} for c in cfg.categories})
    assert len(zero_weight_problems(zero)) == len(cfg.categories)


def test_an_uploaded_config_becomes_changes_and_a_different_tree_is_refused(data):
    cfg, _raw = data
    mine = cfg.apply_changes({IRIS_ACC: {"bad": 0.4}, "Regression": {"weight": 3}})
    up = loads_config(dump_config(mine))
    assert changes_from_upload(cfg, up) == {IRIS_ACC: {"bad": 0.4}, "Regression": {"weight": 3.0}}
    other = loads_config(dump_config(cfg).replace("F1:", "F2:"))
    with pytest.raises(ConfigError, match="different tree"):
        changes_from_upload(cfg, other)


@pytest.mark.parametrize(
    "value,scale,text",
    [
        # 3 significant digits (not 3 decimals), trailing zeros kept
        (0.0625, 1, "0.0625"),
        (0.1234, 1, "0.123"),
        (0.91, 1, "0.910"),
        (1.0, 1, "1.00"),
        (0.0, 1, "0.00"),
        (0.8766, 100, "87.7"),
        (1.0, 100, "100"),
        (None, 1, "—"),
        (float("nan"), 1, "—"),
    ],
)
def test_fmt_score(value, scale, text):
    assert fmt_score(value, scale) == text


def test_fmt_score_digits_are_significant_digits():
    assert fmt_score(0.125, 1, 2) == "0.13"  # an exact tie rounds half up (toPrecision)
    assert fmt_score(0.123456, 1, 5) == "0.12346"
    assert fmt_score(0.5, 100, 2) == "50" and fmt_score(1.0, 100, 2) == "100"
    assert fmt_score(0.5, 1, 0) == "0.5"  # digits below 1 are 1


@pytest.mark.parametrize(
    "value,text",
    [
        (0.9, "0.9"),
        (0.95333, "0.9533"),
        (1234.56, "1235"),
        (12345.6, "12346"),
        # 4 significant digits, scientific outside [1e-3, 1e5), zeros dropped
        (1234567.0, "1.235e6"),
        (0.00012345, "1.234e-4"),  # the double is 1.23449999...e-4
        (5e-4, "5e-4"),
        (0.03333, "0.03333"),
        (9.5e23, "9.5e23"),
        (10.133000000000001, "10.13"),
        (-2.5, "-2.5"),
        (0, "0"),
        (None, "—"),
    ],
)
def test_fmt_raw(value, text):
    assert fmt_raw(value) == text


def test_fmt_coverage():
    assert fmt_coverage(0.875) == "88%" and fmt_coverage(1.0) == "100%"


def test_missing_reasons_say_why():
    # two groups of two children; weights (1, 0) and (1, 1)
    child = np.array([[np.nan, 1.0, 0.5, np.nan], [0.2, np.nan, np.nan, np.nan]])
    w = np.array([1.0, 0.0, 1.0, 1.0])
    starts = np.array([0, 2])
    parent = np.array([[np.nan, np.nan], [0.2, np.nan]])
    codes = missing_reasons(child, w, starts, parent)
    assert codes.tolist() == [["n", "i"], ["", "n"]]
    zero = missing_reasons(child, np.zeros(4), starts, parent)
    assert zero.tolist() == [["z", "z"], ["", "z"]]


def test_rows_and_columns_of_each_view(data):
    cfg, raw = data
    s = score(raw, cfg)
    rows = row_data(s, "", default_overall=s.overall_scores)
    by = {r["model"]: r for r in rows}
    assert by["Ridge"]["o"] == round(s.overall["score"]["Ridge"], 9)
    assert by["kNN"]["o"] is None and by["kNN"]["_w"]["o"] == "i"
    assert by["kNN"]["c1"] is None and by["kNN"]["_w"]["c1"] == "i"
    # a model with no overall score shows a word, never a number
    assert all(r["d"] == (0 if r["o"] is not None else "no score") for r in rows)
    cols = [c["colId"] for c in column_defs(s, "")]
    assert cols == ["rank", "d", "model", "o", "ds", "cov", "parts", "c0", "c1", "c2"]
    cols = [c["colId"] for c in column_defs(s, "Classification")]
    assert cols == ["rank", "d", "model", "o", "ds", "cs", "ccov", "parts", "b0", "b1"]
    bench = column_defs(s, "Classification/Iris", show="raw")
    assert [c["colId"] for c in bench][5:] == ["bs", "r0", "r1"]
    assert bench[6]["headerName"] == "Accuracy [fraction]"
    assert [c["colId"] for c in column_defs(s, "Classification/Iris", show="score")][6:] == [
        "n0",
        "n1",
    ]
    rows = row_data(s, "Classification/Iris", models=["Model/β"])
    assert len(rows) == 1 and rows[0]["r1"] is None and rows[0]["_w"]["r1"] == "n"
    assert rows[0]["r0"] == 0.8


def test_only_columns_whose_name_opens_or_selects_get_the_header_component(data):
    """The small board: 3 categories (c0-c2), Classification's 2 benchmarks (b0, b1), Iris's
    2 metrics (r0, r1 raw; n0, n1 scores). Those columns' names open a view or select a metric;
    the rank, change, model, overall, coverage and level-score columns keep AG Grid's header."""
    cfg, raw = data
    s = score(raw, cfg)

    def custom(view, **kw):
        return [c["colId"] for c in column_defs(s, view, **kw) if c.get("headerComponent")]

    assert custom("") == ["c0", "c1", "c2"]
    assert custom("Classification") == ["b0", "b1"]
    assert custom("Classification/Iris", show="raw") == ["r0", "r1"]
    assert custom("Classification/Iris", show="score") == ["n0", "n1"]
    names = {c.get("headerComponent") for c in column_defs(s, "")} - {None}
    assert names == {"MplHeader"}  # the name navigation.js registers (ids.HEADER_COMPONENT)


def test_curve_figure_marks_thresholds_and_puts_every_model_on_the_curve(data):
    cfg, raw = data
    s = score(raw, cfg.apply_changes({IRIS_ACC: {"good": 0.95}}))
    fig = curve_figure(s, IRIS_ACC)
    # threshold lines in x order (their labels stack in that order)
    assert [sh["x0"] for sh in fig["layout"]["shapes"]] == [0.5, 0.95]
    pts = fig["data"][1]
    assert pts["x"] == pytest.approx(s.raw["Iris/Accuracy"].tolist())
    # y: the score as the grid shows it (3 significant digits), which the hover formats (d3's
    # ".3r" gives fmt_score's text): the hover text itself holds no score
    assert pts["y"] == [float(fmt_score(v)) for v in s.metrics["Iris/Accuracy"].tolist()]
    assert pts["y"] == pytest.approx(s.metrics["Iris/Accuracy"].tolist(), abs=5e-4)
    assert pts["hovertemplate"] == "%{text}<br>score %{y:.3r}<extra></extra>"
    assert not any("score" in t for t in pts["text"])
    assert any("&lt;script&gt;" in t for t in pts["text"])  # names escaped in hover text
    weib = curve_figure(s, "Speed <b>&amp;</b> <script>x</script>/Timing/Predict time")
    assert weib["layout"]["shapes"] == []  # no good/bad lines for a speed-up normaliser
    assert weib["layout"]["title"]["text"].startswith("Predict time [s]<br>")
    # a name and unit with markup are escaped in the title (Plotly renders pseudo-HTML)
    odd = loads_config(
        "categories:\n  C:\n    benchmarks:\n      B:\n        metrics:\n"
        '          "<i>M</i>": {good: 1, bad: 0, unit: "<u>x</u>"}\n'
    )
    title = curve_figure(score(raw, odd), "C/B/<i>M</i>")["layout"]["title"]["text"]
    assert title.startswith("&lt;i&gt;M&lt;/i&gt; [&lt;u&gt;x&lt;/u&gt;]<br>")
    assert "<i>" not in title and "<u>" not in title


def test_create_app_builds_a_layout_without_scoring_in_the_dashboard(data):
    cfg, raw = data
    app = create_app(cfg, raw, title="T")
    assert app.title == "T"
    c, s = app.score_cache.scores_for({IRIS_ACC: {"good": 0.95}})
    assert s.overall["score"].equals(
        score(raw, cfg.apply_changes({IRIS_ACC: {"good": 0.95}})).overall["score"]
    )
    with pytest.raises(ConfigError):
        app.score_cache.scores_for({IRIS_ACC: {"good": "abc"}})


def test_attribute_filters_offer_few_valued_columns_and_filter_for_display_only():
    import pandas as pd

    from ml_peg_like.dashboard.state import (
        attribute_options,
        attribute_values,
        clean_filters,
        decode_filters,
        filtered_models,
        make_query,
    )

    models = ("a", "b", "c", "d")
    attrs = pd.DataFrame(
        {
            "family": ["lin", "tree", "lin", None],
            "id": ["1", "2", "3", "4"],  # one value per model: not a filter
            "const": ["x", "x", "x", "x"],  # one value: not a filter
        },
        index=list(models),
    )
    options = attribute_options(attrs)
    assert options == {"family": ["lin", "tree"]}
    values = attribute_values(attrs, options)
    f = clean_filters({"a": {"family": ["lin", "nope"], "id": ["1"]}, "p": 5}, models, options)
    assert f == {"a": {"family": ["lin"]}}
    assert filtered_models(f, models, values) == ["a", "c"]  # d (no value) is not 'lin'
    assert filtered_models({"p": ["b", "c"]}, models, values) == ["b", "c"]
    assert filtered_models({"p": ["b"], "a": {"family": ["lin"]}}, models, values) == []
    assert filtered_models({}, models, values) is None
    q = parse_query(make_query({}, "", "", f))
    assert decode_filters(q["f"], models, options) == f
    assert decode_filters("junk!", models, options) == {}
    assert attribute_options(None) == {}
