"""The curve and the benchmark figure built in the browser (``assets/curve.js``) are those Python
builds (``figures.curve_figure``, ``compare.bench_figure``: the reference), on the demo data's
metrics, the small test board, random columns (NaN, inf, outliers, ties, one value, none), every
x scale, log-hinted normalisers, scale 100, unresolved thresholds, shaded bands and default
thresholds.

The normaliser itself is the engine's business: the test asks the JS for the raw values at
which it evaluates the curve (``mplCurve.grid``), evaluates the Python normaliser there, and
hands the JS those values through its ``evaluate`` (which checks it is asked for that grid).
Every number is compared within 1e-12 (relative; scores also within 1e-12 absolute), every
text exactly."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from browser_utils import CHROMIUM, CHROMIUM_ARGS, require_browser, small_dataset

from ml_peg_like import load_dataset, score
from ml_peg_like.config import Metric
from ml_peg_like.dashboard.components.explore.view import compare
from ml_peg_like.dashboard.figures import _grid, curve_figure
from ml_peg_like.dashboard.tables import resolved_params, unresolved_thresholds
from ml_peg_like.normalisers import apply_normaliser
from ml_peg_like.scoring import score_values

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
CURVE_JS = ROOT / "assets" / "curve.js"
REL = 1e-12

#: the JS figure with `evaluate` answering from the values Python computed on the JS grid
FIGURE = """([input, ys]) => {
  const grid = window.mplCurve.grid(input);
  input.evaluate = (xs) => {
    if (xs.length !== grid.length || xs.some((x, i) => x !== grid[i])) throw new Error("grid");
    return Float64Array.from(ys);
  };
  return window.mplCurve.figure(input);
}"""
GRID = "(input) => { const g = window.mplCurve.grid(input); return g && Array.from(g); }"


@pytest.fixture(scope="module")
def chromium():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def page(chromium):
    """A blank page with ``assets/curve.js`` and nothing else."""
    pg = chromium.new_page()
    pg.set_content("<!doctype html><html><body></body></html>")
    pg.add_script_tag(path=str(CURVE_JS))
    yield pg
    pg.close()


# ------------------------------------------------------------------------------------------------
# The input the page gives the JS, from the Python scores
# ------------------------------------------------------------------------------------------------


def js_input(scores, path, *, names=None, xscale="auto", digits=3, band=None, defaults=None,
             theme="light") -> dict:  # fmt: skip
    cfg = scores.config
    metric = cfg.node(path)
    assert isinstance(metric, Metric)
    j = scores.plan.metric_paths.index(cfg.full_path(path))
    params = resolved_params(scores, j)
    marks = metric.norm.curve_marks(params)
    return dict(
        path=cfg.full_path(path),
        name=metric.name,
        unit=metric.unit or "",
        normaliser=metric.normaliser,
        logHint=bool(metric.norm.log_x),
        params=params,
        marks=[dict(label=m.label, x=m.x, kind=m.kind) for m in marks],
        unresolved=unresolved_thresholds(scores, j),
        models=list(scores.models),
        names=names or {},
        raw=scores.raw_values[:, j].tolist(),
        score=scores.metric_scores[:, j].tolist(),
        scale=cfg.scale,
        xscale=xscale,
        digits=digits,
        band={k: list(v) for k, v in band.items()} if band else None,
        theme=theme,
        defaults=defaults,
    )


def js_figure(page, scores, path, **kw) -> dict | None:
    inp = js_input(scores, path, **kw)
    grid = page.evaluate(GRID, inp)
    if grid is None:
        return page.evaluate("(input) => window.mplCurve.figure(input)", inp)
    cfg = scores.config
    j = scores.plan.metric_paths.index(cfg.full_path(path))
    norm = cfg.node(path).norm
    if inp["unresolved"]:  # no threshold, no curve: the JS does not evaluate it
        return page.evaluate(FIGURE, [inp, []])
    arr = {k: np.asarray([v]) for k, v in inp["params"].items()}
    with np.errstate(all="ignore"):
        ys = apply_normaliser(norm, np.asarray(grid, dtype=float)[:, None], arr)[:, 0]
    assert scores.plan.metric_paths[j] == cfg.full_path(path)
    return page.evaluate(FIGURE, [inp, ys.tolist()])


def same(py, js, where="figure") -> None:
    """``py`` and ``js`` agree: dicts key for key, lists item for item, numbers within
    :data:`REL` (relative), texts exactly; a missing number is None on both sides."""
    if isinstance(py, dict):
        assert isinstance(js, dict), where
        assert set(py) == set(js), (where, sorted(set(py) ^ set(js)))
        for k in py:
            same(py[k], js[k], f"{where}.{k}")
    elif isinstance(py, list | tuple):
        assert isinstance(js, list), (where, js)
        assert len(py) == len(js), (where, len(py), len(js))
        for i, (a, b) in enumerate(zip(py, js, strict=True)):
            same(a, b, f"{where}[{i}]")
    elif isinstance(py, bool) or py is None or isinstance(py, str):
        assert py == js, (where, py, js)
    elif isinstance(py, int | float):
        assert isinstance(js, int | float) and not isinstance(js, bool), (where, py, js)
        if math.isnan(py):
            assert math.isnan(js), (where, py, js)
        else:
            # a score (y) of 1e-16 is a score of 0: the line's corner may be kept at the
            # threshold or at the next float (a log grid's powers of ten differ by an ulp
            # between numpy and V8): scores are compared within 1e-12 of 1 too
            floor = 1.0 if ".y[" in where else 0.0
            tol = REL * max(abs(py), abs(js), floor)
            assert py == js or abs(py - js) <= tol, (where, py, js)
    else:
        raise AssertionError(f"{where}: unexpected {type(py)}")


def check(page, scores, path, **kw) -> dict:
    """The JS figure of ``path`` is the Python figure; returns the Python figure."""
    py = curve_figure(
        scores,
        path,
        kw.get("band"),
        names=kw.get("names"),
        xscale=kw.get("xscale", "auto"),
        digits=kw.get("digits", 3),
        defaults=kw.get("defaults"),
    )
    same(py, js_figure(page, scores, path, **kw), path)
    return py


def metric_paths(cfg) -> list[str]:
    return [p for p in cfg.metric_paths()]


# ------------------------------------------------------------------------------------------------
# Conformance
# ------------------------------------------------------------------------------------------------


def test_the_demo_metrics(page):
    cfg, raw = load_dataset(ROOT / "data" / "demo")
    scores = score(raw, cfg)
    names = {m: f"{m} <{i}> & co" for i, m in enumerate(scores.models) if i % 3 == 0}
    paths = metric_paths(cfg)
    assert len(paths) >= 20
    logs = 0
    for path in paths:
        for xscale in ("auto", "linear", "log"):
            fig = check(page, scores, path, names=names, xscale=xscale)
            logs += fig["layout"]["xaxis"].get("type") == "log"
    assert logs >= len(paths)  # "log" asked for: every metric with a positive value


def test_the_small_board_every_scale_digits_and_scale_100(page, tmp_path):
    cfg, raw = small_dataset(tmp_path)
    names = {"Ridge": "Ridge <b>regression</b>", "kNN": "k & NN"}
    for c in (cfg, dataclasses.replace(cfg, scale=100.0)):
        scores = score(raw, c)
        for path in metric_paths(c):
            for xscale in ("auto", "linear", "log"):
                for digits in (2, 3, 8):
                    check(page, scores, path, names=names, xscale=xscale, digits=digits)


def _random_columns(rng, n: int) -> np.ndarray:
    """Columns of raw values with what real data has: NaN, inf, outliers, ties, one value."""
    cols = []
    base = rng.uniform(0.3, 1.0, n)
    cols.append(base)
    c = base.copy()
    c[rng.random(n) < 0.2] = np.nan
    c[:3] = [np.inf, -np.inf, 1e9]  # inf and an outlier
    cols.append(c)
    c = np.round(rng.uniform(0.4, 1.0, n), 2)  # many ties
    c[: n // 3] = 0.8
    cols.append(c)
    cols.append(np.full(n, 0.75))  # one value
    c = np.full(n, np.nan)
    c[5] = 0.9  # a single model with a value
    cols.append(c)
    cols.append(np.full(n, np.nan))  # no value at all
    cols.append(rng.lognormal(0, 4, n))  # many decades
    c = rng.uniform(-1.0, 2.0, n)
    c[:4] = [-50.0, 60.0, 0.0, -0.0]
    cols.append(c)
    return np.stack(cols, axis=1)


def test_random_columns(page, tmp_path):
    cfg, _raw = small_dataset(tmp_path)
    rng = np.random.default_rng(20)
    paths = metric_paths(cfg)
    n = 150
    models = tuple(f"m{i}" for i in range(n))
    names = {f"m{i}": f"Model {i} <i>" for i in range(0, n, 2)}
    cols = _random_columns(rng, n)
    for k in range(cols.shape[1]):
        values = np.tile(cols[:, k : k + 1], (1, len(paths)))
        for scale in (1.0, 100.0):
            c = dataclasses.replace(cfg, scale=scale)
            scores = score_values(values, models, c)
            for path in paths:
                for xscale in ("auto", "log"):
                    check(page, scores, path, names=names, xscale=xscale, digits=3)
            check(page, scores, paths[0], names=names, digits=2)  # scores written in texts
            band = {"good": (0.9, 1.2), "bad": (0.45, 0.55)}
            check(page, scores, paths[0], band=band, defaults={"good": 0.95, "bad": 0.5})


def test_many_models_at_one_place_and_the_gl_trace(page, tmp_path):
    cfg, _raw = small_dataset(tmp_path)
    rng = np.random.default_rng(21)
    n = 2000
    models = tuple(f"m{i}" for i in range(n))
    col = np.round(rng.uniform(0.4, 1.0, n), 3)
    col[:40] = 0.8
    values = np.tile(col[:, None], (1, len(cfg.metric_paths())))
    scores = score_values(values, models, cfg)
    fig = check(page, scores, "Classification/Iris/Accuracy", digits=4)
    assert fig["data"][1]["type"] == "scattergl"
    at = int(np.count_nonzero(col == 0.8))  # the 40 set there and those rounded to it
    assert at >= 40
    texts = fig["data"][1]["text"]
    assert any(t.startswith(f"{at} models<br>") and f"and {at - 12} more" in t for t in texts)


UNRESOLVED = """\
title: Unresolved
categories:
  C:
    benchmarks:
      B:
        metrics:
          Err: {good: {model: ghost}, bad: 3.0}
          Empty: {good: {model: ghost}, bad: {model: nobody}}
          Time: {normaliser: weibull_speedup, reference: {model: ghost}}
"""


def test_unresolved_thresholds_and_empty_figures(page, tmp_path):
    from ml_peg_like.config import load_config

    (tmp_path / "config.yml").write_text(UNRESOLVED, encoding="utf-8")
    cfg = load_config(tmp_path / "config.yml")
    values = np.array([[0.5, np.nan, 2.0], [1.5, np.nan, 4.0], [np.nan, np.nan, 8.0]])
    scores = score_values(values, ("a", "b", "c"), cfg)
    fig = check(page, scores, "C/B/Err")
    assert "not scored: good is the value of model ghost" in fig["layout"]["title"]["text"]
    assert all(y is None for y in fig["data"][0]["y"])
    fig = check(page, scores, "C/B/Empty")
    assert fig["layout"]["annotations"][0]["text"] == "No data for this metric"
    check(page, scores, "C/B/Time")
    empty = page.evaluate("() => window.mplCurve.figure(null)")
    assert empty["layout"]["annotations"][0]["text"] == "Pick a metric"
    same(curve_figure(scores, "C/B"), empty)  # a benchmark is not a metric
    inp = js_input(scores, "C/B/Err")
    inp["perInstance"] = True  # per-instance metrics are drawn by the server
    assert page.evaluate("(i) => window.mplCurve.figure(i)", inp) is None


def test_bad_input_draws_a_message(page, tmp_path):
    """Lists of the wrong length, an evaluate that throws or answers the wrong length, null
    for a missing value: a figure that says what is wrong (or the same figure as NaN gives),
    never an exception."""
    cfg, raw = small_dataset(tmp_path)
    scores = score(raw, cfg)
    path = "Classification/Iris/Accuracy"
    inp = js_input(scores, path)
    short = dict(inp, raw=inp["raw"][:-1])
    fig = page.evaluate("(i) => window.mplCurve.figure(i)", short)
    want = f"Cannot draw the curve of {inp['path']}: raw has 5 values for 6 models"
    assert fig["layout"]["annotations"][0]["text"] == want
    fig = page.evaluate("(i) => window.mplCurve.figure(i)", dict(inp, models="Ridge"))
    assert fig["layout"]["annotations"][0]["text"].endswith("models is not a list")
    throws = page.evaluate(
        "(i) => { i.evaluate = () => { throw new Error('no engine'); };"
        " return window.mplCurve.figure(i); }",
        inp,
    )
    assert "curve not drawn: evaluate failed: no engine" in throws["layout"]["title"]["text"]
    assert all(y is None for y in throws["data"][0]["y"])
    wrong = page.evaluate(
        "(i) => { i.evaluate = (xs) => [0.5]; return window.mplCurve.figure(i); }", inp
    )
    assert "evaluate gave 1 values for" in wrong["layout"]["title"]["text"]
    for digits in (0, 12, 4.7):  # digits outside 1..8 are clamped, a fraction truncated
        fig = check(page, scores, path, digits=digits)
    assert "%{y:.4r}" in fig["data"][1]["hovertemplate"]
    # null (JSON's missing number) is a missing value, as NaN is (Model/β has no F1)
    f1 = "Classification/Iris/F1"
    inp = js_input(scores, f1)
    nulls = dict(inp, raw=[None if math.isnan(v) else v for v in inp["raw"]])
    assert None in nulls["raw"]
    fig = page.evaluate(FIGURE, [nulls, _ys(page, scores, f1)])
    same(curve_figure(scores, f1), fig)
    assert "1 model without a value" in fig["layout"]["title"]["text"]


def _ys(page, scores, path) -> list[float]:
    """The normaliser of ``path`` on the JS grid."""
    inp = js_input(scores, path)
    grid = np.asarray(page.evaluate(GRID, inp), dtype=float)
    arr = {k: np.asarray([v]) for k, v in inp["params"].items()}
    return apply_normaliser(scores.config.node(path).norm, grid[:, None], arr)[:, 0].tolist()


def test_the_dark_theme_changes_the_colours_only(page, tmp_path):
    cfg, raw = small_dataset(tmp_path)
    scores = score(raw, cfg)
    path = "Classification/Iris/Accuracy"
    light = js_figure(page, scores, path)
    dark = js_figure(page, scores, path, theme="dark")
    lay = dark["layout"]
    assert lay["paper_bgcolor"] == lay["plot_bgcolor"] == "#0d1117"  # plots.THEMES["dark"]
    assert lay["font"]["color"] == "#e6edf3"
    assert lay["xaxis"]["gridcolor"] == "#21262d"
    assert dark["data"][1]["marker"]["line"]["color"] == "#e6edf3"
    same(light["data"][0], dark["data"][0])
    same(light["data"][1]["y"], dark["data"][1]["y"])
    same(light["layout"]["xaxis"]["range"], lay["xaxis"]["range"])


# ------------------------------------------------------------------------------------------------
# The grid and the numbers as Python writes them
# ------------------------------------------------------------------------------------------------


def test_the_grid_is_pythons(page, tmp_path):
    cfg, raw = small_dataset(tmp_path)
    scores = score(raw, cfg)
    for path in metric_paths(cfg):
        for xscale in ("auto", "linear", "log"):
            inp = js_input(scores, path, xscale=xscale)
            js = page.evaluate(GRID, inp)
            fig = curve_figure(scores, path, xscale=xscale)
            lay = fig["layout"]["xaxis"]
            log = lay["type"] == "log"
            lo, hi = (10**r for r in lay["range"]) if log else lay["range"]
            py = _grid(lo, hi, log, [m["x"] for m in inp["marks"]])
            same(py.tolist(), js, f"{path} {xscale}")


def test_python_rounding_in_js(page):
    """Ties at the exact binary value (1/8192 at 12 decimals, 1/2048 at 7 figures) go to the
    even digit as Python's round and format do (JavaScript's toFixed/toPrecision go up); and
    on many values (random, dyadic ties, next to powers of ten, tiny, huge) the JS roundings
    are Python's."""
    values = [1 / 8192, 3 / 8192, 1 / 2048, 0.125, 2.675, 9.5, 0.5, 1e-300, 123456.5, -1 / 8192]
    got = page.evaluate(
        "(vs) => vs.map(v => [window.mplCurve.pyRound(v, 12), window.mplCurve.pySig(v, 7),"
        " window.mplCurve.pyRound(v, 2), window.mplCurve.pySig(v, 1)])",
        values,
    )
    want = [[round(v, 12), float(f"{v:.7g}"), round(v, 2), float(f"{v:.1g}")] for v in values]
    assert got == want
    assert round(1 / 8192, 12) == 0.000122070312  # the tie went down (2 is even)
    rng = np.random.default_rng(23)
    many = [
        *rng.random(400).tolist(),
        *(rng.lognormal(0, 8, 400) * rng.choice([-1, 1], 400)).tolist(),
        *[k / 2**m for m in range(1, 16) for k in range(1, 2**m, max(1, 2**m // 40))],
        *[np.nextafter(10.0**e, d) for e in range(-12, 15) for d in (0.0, np.inf)],
        *[10.0**e for e in range(-12, 15)],
        -0.0,
        5e-324,
        1e300,
    ]
    many = [float(v) for v in many]  # Python's round (a numpy float rounds its own way)
    for nd, p in ((2, 1), (9, 7), (12, 9)):
        got = page.evaluate(
            "([vs, nd, p]) => vs.map(v => [window.mplCurve.pyRound(v, nd),"
            " window.mplCurve.pySig(v, p)])",
            [many, nd, p],
        )
        want = [[round(v, nd), float(f"{v:.{p}g}")] for v in many]
        assert got == want, [(v, g, w) for v, g, w in zip(many, got, want, strict=True) if g != w][
            :5
        ]


def test_the_hover_y_is_pythons(page):
    """A point's y (the score as the grid writes it, when that text is plain) is Python's
    ``figures._score_y`` on awkward values: random, on 9 decimals, dyadic ties, next to powers
    of ten, negative, missing; at scales 1, 100, 3 and 0.001 and 1 to 8 digits."""
    from test_dashboard_curve_scale import _awkward_values

    from ml_peg_like.dashboard.figures import _score_y

    values = [float(v) for v in _awkward_values()]
    for scale in (1.0, 100.0, 3.0, 0.001):
        for digits in (1, 2, 3, 4, 8):
            got = page.evaluate(
                "([vs, s, d]) => vs.map(v => window.mplCurve.scoreY(v, s, d))",
                [values, scale, digits],
            )
            for v, (y, plain) in zip(values, got, strict=True):
                want = _score_y(v, scale, digits)
                if want is None:
                    assert not plain and math.isnan(y), (v, scale, digits, y)
                elif math.isnan(want):
                    assert plain and math.isnan(y), (v, scale, digits, y)
                else:
                    assert plain and y == want, (v, scale, digits, y, want)


# ------------------------------------------------------------------------------------------------
# The benchmark figure
# ------------------------------------------------------------------------------------------------


def bench_input(scores, bench, shown, names, theme) -> dict:
    cfg = scores.config
    node = cfg.node(bench)
    full = cfg.full_path(bench)
    plan = scores.plan
    k = plan.benchmarks.index(node.name)
    cols = [plan.metric_paths.index(f"{full}/{m.name}") for m in node.metrics]
    return dict(
        bench=node.name,
        metrics=[m.name for m in node.metrics],
        models=list(scores.models),
        shown=list(shown),
        names=names,
        metricScores=[scores.metric_scores[:, j].tolist() for j in cols],
        benchScores=scores.bench_scores[:, k].tolist(),
        theme=theme,
    )


def test_the_benchmark_figure(page, tmp_path):
    cfg, raw = small_dataset(tmp_path)
    scores = score(raw, cfg)
    names = {"Ridge": "Ridge <b>", "kNN": "k & NN"}
    benches = ["Classification/Iris", "Classification/Wine", "Regression/Diabetes"]
    for bench in benches:
        for shown in (list(scores.models), list(scores.models)[::-2], ["nobody", "kNN"]):
            for theme in ("light", "dark"):
                py = compare.bench_figure(scores, bench, shown, names, theme=theme)
                js = page.evaluate(
                    "(i) => window.mplCurve.benchFigure(i)",
                    bench_input(scores, bench, shown, names, theme),
                )
                same(py, js, bench)
    rng = np.random.default_rng(22)  # more than 40 models, ties, missing values
    n = 90
    models = tuple(f"m{i}" for i in range(n))
    values = np.round(rng.uniform(0.3, 1.0, (n, len(cfg.metric_paths()))), 1)
    values[rng.random(values.shape) < 0.15] = np.nan
    scores = score_values(values, models, cfg)
    for bench in benches:
        py = compare.bench_figure(scores, bench, list(models), {}, theme="light")
        assert "best 40 of 90" in py["layout"]["title"]["text"]
        js = page.evaluate(
            "(i) => window.mplCurve.benchFigure(i)",
            bench_input(scores, bench, models, {}, "light"),
        )
        same(py, js, bench)


# ------------------------------------------------------------------------------------------------
# What Plotly draws of it: tick labels written in full
# ------------------------------------------------------------------------------------------------

DRAW = """([input, keep]) => {
  input.evaluate = (xs) => xs.map((x) => Math.min(1, Math.max(0, Math.log10(x) / 2)));
  const f = window.mplCurve.figure(input);
  if (!keep) { delete f.layout.xaxis.tickformat; delete f.layout.xaxis.exponentformat; }
  return Plotly.newPlot("g", f.data, f.layout).then(() => [f.layout.xaxis.type,
    Array.from(document.querySelectorAll("#g .xtick text")).map((t) => t.textContent)]);
}"""


def _draw_input(normaliser, log_hint, raw, marks) -> dict:
    return dict(
        path="C/B/M",
        name="M",
        unit="",
        normaliser=normaliser,
        logHint=log_hint,
        params={"good": marks[0], "bad": marks[1]},
        marks=[
            dict(label="good", x=marks[0], kind="good"),
            dict(label="bad", x=marks[1], kind="bad"),
        ],
        unresolved={},
        models=[f"m{i}" for i in range(len(raw))],
        names={},
        raw=raw,
        score=[0.5] * len(raw),
        scale=1,
        xscale="auto",
        digits=3,
    )


def test_tick_labels_keep_their_decade(chromium):
    """On a log axis Plotly labels the ticks between decades by their first digit alone (0.02
    and 0.2 both read "2"); on a linear one it abbreviates (20μ, 1.5M). The curve's axis
    writes every tick in full: drawn by Plotly.js itself in the page."""
    import plotly

    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not plotly_js.exists():
        pytest.skip("plotly.min.js is not in the plotly package")
    pg = chromium.new_page(viewport={"width": 900, "height": 600})
    pg.set_content("<!doctype html><div id='g' style='width:800px;height:320px'></div>")
    pg.add_script_tag(path=str(plotly_js))
    pg.add_script_tag(path=str(CURVE_JS))
    speed = _draw_input("log_speedup", True, [0.02, 0.2, 3.0, 50.0], [100.0, 1.0])
    kind, labels = pg.evaluate(DRAW, [speed, True])
    assert kind == "log"
    assert {"0.02", "0.2", "2", "20"} <= set(labels)
    _kind, before = pg.evaluate(DRAW, [speed, False])  # Plotly's own labels: decades lost
    assert before.count("2") >= 3 and "0.02" not in before
    small = _draw_input("linear", False, [2e-5, 5e-5, 9e-5], [1e-5, 1e-4])
    kind, labels = pg.evaluate(DRAW, [small, True])
    assert kind == "linear" and "0.00002" in labels and not any("μ" in t for t in labels)
    big = _draw_input("linear", False, [2e5, 1e6, 3e6], [3e6, 2e5])
    _kind, labels = pg.evaluate(DRAW, [big, True])
    assert "1,000,000" in labels and not any(t.endswith("M") for t in labels)
    pg.close()


def test_the_module_loads_in_node_too():
    """``module.exports`` under Node (no window): the same functions."""
    import json
    import shutil
    import subprocess

    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed")
    script = (
        f"const c = require({json.dumps(str(CURVE_JS))});"
        "console.log(JSON.stringify([Object.keys(c).sort(), c.figure(null).layout.annotations[0].text,"
        " c.fmtRaw(0.033333), c.pyRound(1 / 8192, 12)]));"
    )
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    keys, text, raw, tie = json.loads(out.stdout)
    assert {"figure", "grid", "axis", "benchFigure"} <= set(keys)
    assert (text, raw, tie) == ("Pick a metric", "0.03333", 0.000122070312)
