"""The Explore scatter and the Compare radar built in the browser (``assets/explorefig.js``) are
those Python builds (``components/explore/view.py`` ``scatter_figure``, ``components/explore/compare.py``
``radar_figure`` and ``default_models``, ``ml_peg_like.explore.pareto_front``: the reference).

The JS gets what the page gives it: the selection as the server describes it
(``explore.scatter_spec``: the quantities, the attributes' values) and each quantity's values per
model (here from the Python engine, ``explore.quantity_values``; the page reads them from the
live result). Every trace, point, hover text, colour, axis type and range, title, legend flag
and uirevision must be EQUAL: the JS computes no number of its own but a date's position on a
colour scale (the same sum in both), so numbers are compared exactly."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser_utils import CHROMIUM, CHROMIUM_ARGS, require_browser, write_small_dataset

from ml_peg_like import explore as ex
from ml_peg_like import load_dataset, score
from ml_peg_like.config.parse import config_from_dict
from ml_peg_like.dashboard.components.explore.view import compare
from ml_peg_like.dashboard.components.explore import view as view
from ml_peg_like.scoring import score_values

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = [ROOT / "assets" / "curve.js", ROOT / "assets" / "explorefig.js"]
MODELS_CSV = """model,display_name,params,released,family
Ridge,Ridge regression,10,2019-01-01,linear
RandomForest,Random forest,200000,2020-06-01T12:30:00,trees
<script>alert(1)</script>,Script <b>name</b>,5,2021-12-31,other
Model/β,Model beta,30,2024-03-15,linear
kNN,k nearest,,2023-01-01,
Dummy,,1,,baseline
"""


@pytest.fixture(scope="module")
def page():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        pg = browser.new_page()
        pg.set_content("<!doctype html><html><body></body></html>")
        for s in SCRIPTS:
            pg.add_script_tag(path=str(s))
        yield pg
        browser.close()


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    d = write_small_dataset(tmp_path_factory.mktemp("small"))
    (d / "models.csv").write_text(MODELS_CSV, encoding="utf-8")
    cfg, raw = load_dataset(d)
    return score(raw, cfg), raw.attributes


def same(py, js, where="figure") -> None:
    """Dicts key for key, lists item for item, texts, flags and numbers EQUAL."""
    if isinstance(py, dict):
        assert isinstance(js, dict), (where, js)
        assert set(py) == set(js), (where, sorted(set(py) ^ set(js)))
        for k in py:
            same(py[k], js[k], f"{where}.{k}")
    elif isinstance(py, list | tuple):
        assert isinstance(js, list) and len(py) == len(js), (where, py, js)
        for i, (a, b) in enumerate(zip(py, js, strict=True)):
            same(a, b, f"{where}[{i}]")
    elif isinstance(py, float) and math.isnan(py):
        assert js is None or (isinstance(js, float) and math.isnan(js)), (where, js)
    else:
        assert py == js and isinstance(py, bool) == isinstance(js, bool), (where, py, js)


def plain(fig: dict) -> dict:
    return json.loads(json.dumps(fig))


def _nulls(values) -> list:
    return [None if isinstance(v, float) and math.isnan(v) else v for v in values]


def scatter_input(scores, spec: dict, shown, names: dict, theme: str) -> dict:
    """The JS input: the server's spec and each quantity's values from the Python engine."""
    qs = {}
    for axis in ("x", "y"):
        q = dict(spec[axis])
        if q["kind"] != "attr":
            parsed = ex.parse_quantity(scores.config, q["text"])
            q["values"] = _nulls(ex.quantity_values(scores, parsed)[1])
        qs[axis] = q
    pos = {m: i for i, m in enumerate(scores.models)}
    return dict(
        models=list(scores.models),
        names=names,
        shown=None if shown is None else [pos[m] for m in shown if m in pos],
        ranks=_nulls(np.asarray(scores.ranks, float).tolist()),
        tied=[bool(t) for t in scores.tied],
        colour=spec["colour"],
        colourText=spec["colourText"],
        axes=spec["axes"],
        theme=theme,
        **qs,
    )


def check_scatter(page, scores, attrs, sel, shown=None, names=None, theme="light") -> dict:
    """The JS scatter of ``sel`` equals Python's; returns Python's."""
    names = names or {}
    sel = dict({"c": "", "axes": "auto"}, **sel)
    xq = ex.parse_quantity(scores.config, sel["x"], attrs)
    yq = ex.parse_quantity(scores.config, sel["y"], attrs)
    models = list(scores.models) if shown is None else shown
    py = view.scatter_figure(
        scores, xq, yq, models, names, attributes=attrs, colour=sel["c"], axes=sel["axes"],
        theme=theme,
    )  # fmt: skip
    spec = view.scatter_spec(scores.config, attrs, scores.models, sel)
    assert spec["rev"] == py["layout"]["uirevision"]
    js = page.evaluate(
        "(i) => window.mplExploreFig.scatter(i)",
        scatter_input(scores, spec, shown, names, theme),
    )
    same(plain(py), js, f"{sel}")
    return py


SMALL_SELECTIONS = [
    dict(x="raw:Classification/Iris/Accuracy", y="raw:Regression/Diabetes/MAE"),
    dict(x="overall", y="rank"),
    dict(x="Classification", y="overall"),
    dict(
        x="Regression/Diabetes", y="raw:Speed <b>&amp;</b> <script>x</script>/Timing/Predict time"
    ),
    dict(x="Classification/Iris/F1", y="Classification/Wine/Accuracy"),
    dict(x="attr:params", y="attr:released"),
    dict(x="attr:params", y="overall"),
    dict(x="attr:family", y="Regression"),
    dict(x="rank", y="attr:released"),
]


def test_the_scatter_of_the_small_board_is_pythons(page, board):
    scores, attrs = board
    names = {"Ridge": "Ridge regression", "<script>alert(1)</script>": "Script <b>name</b>"}
    some = ["Ridge", "kNN", "Dummy", "Model/β"]
    fronts = 0
    for sel in SMALL_SELECTIONS:
        for colour in ("", "family", "params", "released", "nothing"):
            for axes in ("auto", "linear", "log"):
                for shown in (None, some):
                    py = check_scatter(page, scores, attrs, dict(sel, c=colour, axes=axes), shown,
                                       names)  # fmt: skip
                    fronts += any(t["name"] == "Pareto front" for t in py["data"])
        check_scatter(page, scores, attrs, sel, theme="dark")
    assert fronts  # the cases draw fronts (and scatters without)


def _random_board(n: int, seed: int):
    rng = np.random.default_rng(seed)
    cfg = _small_raw()[1]  # the small board's config
    k = len(cfg.metric_paths())
    values = np.round(rng.uniform(-0.2, 1.2, (n, k)), 2)  # ties on every axis
    values[:, 3] = np.round(rng.uniform(30, 80, n))  # MAE
    values[:, 5] = rng.lognormal(-3, 3, n)  # predict time: decades
    values[rng.random(values.shape) < 0.1] = np.nan
    models = tuple(f"m{i:03d}" for i in range(n))
    scores = score_values(values, models, cfg)
    fam = rng.choice(list("abcdefghijkl"), n, p=[0.2, 0.2, 0.1, 0.1, 0.1] + [0.3 / 7] * 7)
    attrs = pd.DataFrame(
        {
            "size": np.where(rng.random(n) < 0.1, np.nan, rng.lognormal(3, 2, n)),
            "family": np.where(rng.random(n) < 0.05, None, fam),
            "when": [f"20{10 + i % 15}-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(n)],
        },
        index=list(models),
    )
    return scores, attrs


_SMALL = {}


def _small_raw():
    if "raw" not in _SMALL:
        import tempfile

        d = write_small_dataset(Path(tempfile.mkdtemp()) / "b")
        cfg, raw = load_dataset(d)
        _SMALL["raw"] = (raw, cfg)
    return _SMALL["raw"]


def test_the_scatter_of_random_boards_is_pythons(page):
    """Hundreds of models (WebGL points beyond 300, small markers beyond 200), exact ties on
    both axes (the Pareto front's groups), missing values, a colour with twelve values (the
    seven most frequent, ties kept in order of appearance, the rest "other"), sizes over
    decades (a log axis) and dates on a colour scale."""
    for n, seed in ((150, 1), (250, 2), (450, 3)):
        scores, attrs = _random_board(n, seed)
        shown = [m for i, m in enumerate(scores.models) if i % 3]
        for sel in (
            dict(x="Classification/Iris/Accuracy", y="Classification/Iris/F1"),
            dict(x="raw:Regression/Diabetes/MAE", y="raw:Regression/Diabetes/R2"),
            dict(x="raw:Speed <b>&amp;</b> <script>x</script>/Timing/Predict time", y="overall"),
            dict(x="attr:size", y="rank"),
            dict(x="attr:when", y="attr:family"),
        ):
            for colour in ("", "family", "size", "when"):
                for axes in ("auto", "log"):
                    check_scatter(page, scores, attrs, dict(sel, c=colour, axes=axes))
            check_scatter(page, scores, attrs, sel, shown=shown)


def test_the_pareto_front_is_pythons(page):
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 7, 40, 300):
        x = np.round(rng.uniform(0, 1, n), 1).tolist()  # many ties
        y = np.round(rng.uniform(0, 1, n), 1).tolist()
        for k in range(0, n, 5):
            x[k] = math.nan
        for xb in ("higher", "lower"):
            for yb in ("higher", "lower"):
                py = ex.pareto_front(x, y, xb, yb)
                js = page.evaluate(
                    "([x, y, a, b]) => window.mplExploreFig.paretoFront(x, y, a, b)",
                    [_nulls(x), _nulls(y), xb, yb],
                )
                assert js == py, (n, xb, yb)


def test_a_hand_made_pareto_front(page):
    """Maximise x, minimise y: (3, 1) beats all but (1, 0) (lower y) and (3, 1) again (a tie
    on both: both on the front); (2, 2) and (0, 5) are dominated."""
    x, y = [1, 2, 3, 0, 3], [0, 2, 1, 5, 1]
    js = page.evaluate(
        "([x, y]) => window.mplExploreFig.paretoFront(x, y, 'higher', 'lower')", [x, y]
    )
    assert js == [0, 2, 4]


def _many_categories(n_cat: int):
    cats = {
        f"Category number {c} with-a-long-hyphenated name <{c}>": {
            "benchmarks": {f"B{c}": {"metrics": {"M": {"good": 1.0, "bad": 0.0}}}}
        }
        for c in range(n_cat)
    }
    return config_from_dict({"categories": cats})


def test_the_radar_is_pythons(page, board):
    scores, _ = board
    names = {"Ridge": "Ridge regression", "<script>alert(1)</script>": "Script <b>name</b>"}
    cases = [(scores, ["Ridge", "<script>alert(1)</script>", "kNN"], names)]
    rng = np.random.default_rng(9)
    for n_cat in (1, 3, 8, 9, 12):
        cfg = _many_categories(n_cat)
        values = rng.uniform(-0.2, 1.2, (7, n_cat))
        values[rng.random(values.shape) < 0.2] = np.nan
        s = score_values(values, [f"m{i}" for i in range(7)], cfg)
        cases.append((s, [f"m{i}" for i in range(0, 7, 1 + n_cat % 2)], {"m1": "One & <b>"}))
    for s, models, nm in cases:
        rows = [r for r in ex.compare_rows(s, models) if r["level"] == 1]
        for theme in ("light", "dark"):
            py = compare.radar_figure(s, models, nm, theme)
            js = page.evaluate(
                "(i) => window.mplExploreFig.radar(i)",
                dict(
                    categories=[r["name"] for r in rows],
                    models=models,
                    names=nm,
                    scores=[_nulls([r["scores"][i] for r in rows]) for i in range(len(models))],
                    theme=theme,
                ),
            )
            same(plain(py), js, f"radar {len(rows)}")
    assert "<br>" in compare.wrap_label("Category number 1 with-a-long-hyphenated name")


def test_label_wrapping_is_pythons(page):
    for text in ("", "a", "word-word-word", "a b c d e f g h i j k l m n", "x" * 30 + " y",
                 "-", "a - b", "naïve über-long βeta words", "one  two\tthree"):  # fmt: skip
        for width in (1, 5, 12, 20):
            js = page.evaluate("([t, w]) => window.mplExploreFig.wrapLabel(t, w)", [text, width])
            assert js == compare.wrap_label(text, width), (text, width)


def test_the_default_compared_models_are_pythons(page, board):
    scores, _ = board
    for n in (40, 7):
        s, _ = _random_board(n, 11) if n > 7 else (scores, None)
        pos = {m: i for i, m in enumerate(s.models)}
        for shown in (list(s.models), list(s.models)[::2], list(s.models)[1:4]):
            py = compare.default_models(s, shown)
            js = page.evaluate(
                "([m, r, s]) => window.mplExploreFig.defaultModels(m, r, s, 3)",
                [list(s.models), _nulls(np.asarray(s.ranks, float).tolist()),
                 [pos[m] for m in shown]],
            )  # fmt: skip
            assert js == py
