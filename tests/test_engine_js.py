"""assets/engine.js gives the Python engine's numbers, run in headless Chromium.

Every case of tests/conformance_cases.py (random trees and data, the seeds' worked examples, the
demo data set, the converted ML-PEG and Matbench Discovery sets) is scored by engine.js on a
blank page; ranks, ties, reasons, vetoes, warnings and refused changes must be equal, scores
equal within 1e-12 relative (or 2**-50 absolute: see ATOL; NaN where Python has NaN), resolved
thresholds exactly equal.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import conformance_cases as cc
import numpy as np
import pytest
from browser_utils import chromium, require_browser

import ml_peg_like as mpl

pytestmark = pytest.mark.browser

ENGINE_JS = Path(__file__).resolve().parents[1] / "assets" / "engine.js"
RTOL = 1e-12
#: besides RTOL: 4 units in the last place of 1.0. A Weibull score 1 - exp(-t) of a small t
#: (say 6.5e-8) keeps the last bit of exp, which Math.exp and numpy may round differently:
#: both are then within 2.2e-16 of the true score, not within 1e-12 of each other
ATOL = 2.0**-50

#: scores a case's steps in the page; typed arrays come back as plain arrays
RUN = """([bundle, stepsJson]) => {
  const board = mplEngine.prepare(bundle);
  const steps = JSON.parse(stepsJson);  // as the page reads changes (own keys, "__proto__" too)
  const arr = (a) => (a ? Array.from(a) : a);
  return steps.map((changes) => {
    const r = mplEngine.score(board, changes);
    if (r.errors.length) return { errors: r.errors };
    const cov = r.coverage && { bench: arr(r.coverage.bench), cat: arr(r.coverage.cat),
                                overall: arr(r.coverage.overall) };
    const resolved = {};
    for (const k of Object.keys(r.resolved)) resolved[k] = arr(r.resolved[k]);
    const reasons = {};
    for (const k of Object.keys(r.reasons)) reasons[k] = arr(r.reasons[k]);
    reasons.metric = arr(mplEngine.metricReasons(board, r.metric));
    const contributions = {};
    const paths = [""].concat(bundle.categories.map((c) => c.path),
      ...bundle.categories.map((c) => c.benchmarks.map((b) => b.path)));
    for (const p of paths) {
      const c = mplEngine.contributions(board, r, changes, p);
      contributions[p] = c.errors.length ? { errors: c.errors } : {
        children: c.children.map((k) => k.path), weights: c.children.map((k) => k.weight),
        policy: c.policy, parts: arr(c.parts), score: arr(c.score),
        vetoed: Array.from(c.vetoed, Boolean) };
    }
    return { contributions, metric: arr(r.metric), bench: arr(r.bench), cat: arr(r.cat),
             overall: arr(r.overall), coverage: cov, ranks: r.ranks, tied: r.tied,
             vetoed: Array.from(r.vetoed, Boolean), vetoReasons: r.vetoReasons, reasons,
             resolved, warnings: r.warnings };
  });
}"""


@pytest.fixture(scope="module")
def browser():
    require_browser()
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def page(browser):
    """A blank page with engine.js, which must add the one global ``mplEngine``."""
    pg = browser.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_content("<!doctype html><html><body></body></html>")
    before = set(pg.evaluate("Object.keys(window)"))
    pg.add_script_tag(path=str(ENGINE_JS))
    added = set(pg.evaluate("Object.keys(window)")) - before
    assert added == {"mplEngine"}, f"engine.js defined {added}"
    yield pg
    pg.close()
    assert not errors, errors


def _close(name: str, got, exp, rtol: float = RTOL, atol: float = ATOL) -> None:
    g = np.asarray([np.nan if v is None else v for v in got], dtype=float)
    e = np.asarray([np.nan if v is None else v for v in exp], dtype=float)
    assert g.shape == e.shape, f"{name}: {g.shape} values, expected {e.shape}"
    nan_g, nan_e = np.isnan(g), np.isnan(e)
    bad = np.flatnonzero(nan_g != nan_e)
    assert not bad.size, f"{name}[{bad[0]}]: got {g[bad[0]]}, expected {e[bad[0]]}"
    with np.errstate(invalid="ignore"):
        ok = (g == e) | (np.abs(g - e) <= rtol * np.maximum(np.abs(g), np.abs(e)) + atol)
    bad = np.flatnonzero(~ok & ~nan_e)
    assert not bad.size, f"{name}[{bad[0]}]: got {g[bad[0]]!r}, expected {e[bad[0]]!r}"


def check_step(where: str, got: dict, exp: dict) -> None:
    if "errors" in exp:
        assert got.get("errors") == exp["errors"], where
        return
    assert "errors" not in got, f"{where}: refused: {got.get('errors')}"
    for k in ("metric", "bench", "cat", "overall"):
        _close(f"{where} {k}", got[k], exp[k])
    n = len(exp["overall"])
    for j in exp["exact_columns"]:  # linear, traffic light: exact
        col = slice(j * n, (j + 1) * n)
        _close(f"{where} metric column {j}", got["metric"][col], exp["metric"][col], 0.0, 0.0)
    for k in ("metric", "bench", "cat", "overall"):
        assert got["reasons"][k] == exp["reasons"][k], f"{where} reasons.{k}"
    assert (got["coverage"] is None) == (exp["coverage"] is None), f"{where} coverage"
    for k in ("bench", "cat", "overall") if exp["coverage"] else ():
        _close(f"{where} coverage.{k}", got["coverage"][k], exp["coverage"][k])
    for k, v in exp["resolved"].items():
        _close(f"{where} resolved.{k}", got["resolved"][k], v, rtol=0.0, atol=0.0)
    assert got["ranks"] == exp["ranks"], f"{where} ranks"
    assert got["tied"] == exp["tied"], f"{where} tied"
    assert got["vetoed"] == exp["vetoed"], f"{where} vetoed"
    assert got["vetoReasons"] == exp["vetoReasons"], f"{where} veto reasons"
    assert got["warnings"] == exp["warnings"], f"{where} warnings"
    check_contributions(where, got["contributions"], exp["contributions"])


def check_contributions(where: str, got: dict, exp: dict) -> None:
    """mplEngine.contributions of every node equal to ml_peg_like.scoring.contributions."""
    assert set(got) == set(exp), f"{where} contribution nodes"
    for path, e in exp.items():
        g = got[path]
        at = f"{where} contributions of {path!r}"
        assert "errors" not in g, f"{at}: {g.get('errors')}"
        assert (g["children"], g["weights"], g["policy"]) == (
            e["children"],
            e["weights"],
            e["policy"],
        ), at
        _close(f"{at} parts", g["parts"], e["parts"])
        _close(f"{at} score", g["score"], e["score"])
        assert g["vetoed"] == e["vetoed"], f"{at} vetoed"


def run_cases(page, cases) -> int:
    steps = 0
    for case in cases:
        json.dumps(case["bundle"], allow_nan=False)  # plain JSON: no NaN/inf literal
        changes = json.dumps([s["changes"] for s in case["steps"]], allow_nan=False)
        results = page.evaluate(RUN, [case["bundle"], changes])
        for k, (step, got) in enumerate(zip(case["steps"], results, strict=True)):
            check_step(f"{case['name']} step {k} {step['changes']}", got, step["expected"])
            steps += 1
    return steps


def test_edge_case_infinities_policies_vetoes_and_refused_changes(page):
    case = cc.edge_case()
    refused = sum("errors" in s["expected"] for s in case["steps"])
    assert refused >= 10  # the refusals are compared too, message by message
    assert run_cases(page, [case]) == len(case["steps"])


def test_seed_worked_examples(page):
    cases = cc.seed_cases()
    assert run_cases(page, cases) >= 10
    # the worked examples' own numbers (seed 000: Grid2Op 0.625, LeapNet 0.376, rounded)
    lips = page.evaluate(
        "b => Array.from(mplEngine.score(mplEngine.prepare(b), {}).overall)", cases[0]["bundle"]
    )
    assert lips == pytest.approx([0.625, 0.376], abs=5e-4)


def test_demo_dataset(page):
    assert run_cases(page, [cc.demo_case()]) >= 3


def test_random_trees_and_data(page):
    cases = cc.random_cases()
    n = run_cases(page, cases)
    assert n == sum(len(c["steps"]) for c in cases) >= 60


def test_refusals_of_any_field_set_to_any_value(page):
    cases = cc.junk_cases()
    refused = sum("errors" in s["expected"] for c in cases for s in c["steps"])
    assert refused >= 100  # each compared message by message with Python's
    assert run_cases(page, cases) == 120


def test_converted_real_datasets(page, request, tmp_path):
    env = os.environ.get("MPL_ANCHORS")
    anchors = Path(env) if env else request.getfixturevalue("anchors")
    if not anchors.is_dir():
        pytest.skip(f"{anchors} is absent: real-data checks skipped")
    cases = cc.converted_cases(anchors, tmp_path)
    assert [c["name"] for c in cases] == ["ML-PEG", "ML-PEG full tree", "Matbench Discovery"]
    assert len(cases[1]["bundle"]["metric_columns"]) == 339
    assert run_cases(page, cases) >= 4


def test_contributions_of_a_hand_board_and_bad_paths(page):
    """The hand-worked board of tests/test_contributions.py (a vetoed model, a weight-0 metric
    and category, a missing value) under both policies and a weight edit; then the paths that
    have no parts are named as Python names them."""
    import test_contributions as tc

    cfg = mpl.loads_config(tc.BOARD.format(policy="invalidate"))
    steps = [{}, {"": {"missing": "skip"}}, {"Surfaces": {"weight": 0.5}, "S2": {"weight": 1}}]
    case = cc.case("contributions", cfg, np.array(tc.VALUES), steps, models=list(tc.MODELS))
    assert run_cases(page, [case]) == 3
    # m1's overall parts by hand (test_contributions): 2 x 0.7625 / 3 and 0.5 / 3
    parts = page.evaluate(
        "b => { const bd = mplEngine.prepare(b); const r = mplEngine.score(bd, {});"
        " const c = mplEngine.contributions(bd, r, {}, ''); return [c.parts[0], c.parts[3]]; }",
        case["bundle"],
    )
    assert parts == pytest.approx([2 * 0.7625 / 3, 0.5 / 3], abs=1e-15)
    errors = page.evaluate(
        "b => { const bd = mplEngine.prepare(b); const r = mplEngine.score(bd, {});"
        " return ['Nope', 'S1/a'].map((p) => mplEngine.contributions(bd, r, {}, p).errors); }",
        case["bundle"],
    )
    assert errors == [
        [{"where": "Nope", "message": "no category or benchmark at this path"}],
        [
            {
                "where": "Surfaces/S1/a",
                "message": "a metric has no parts: give a category or a benchmark",
            }
        ],
    ]


def test_ranking_rule_on_hand_made_scores(page):
    a = 0.5
    vectors = [
        [0.612 + 1e-10, 0.612, 0.612 - 1e-10, 0.612 + 2e-10, 0.9, math.nan],
        [a, a - 0.6e-9 * a, a - 1.2e-9 * a],
        [0.0, 0.0, math.nan, 0.3],
        [math.nan, math.nan],
        [0.5, 0.9, 0.5, math.nan, 0.1],
    ]
    got = page.evaluate(
        "vs => vs.map(v => { const r = mplEngine.rankScores(v); return [r.ranks, r.tied]; })",
        vectors,
    )
    hand = [
        ([2, 2, 2, 2, 1, None], [True, True, True, True, False, False]),
        ([1, 1, 3], [True, True, False]),
        ([2, 2, None, 1], [True, True, False, False]),
        ([None, None], [False, False]),
        ([2, 1, 2, None, 4], [True, False, True, False, False]),
    ]
    assert [tuple(g) for g in got] == [tuple(map(list, h)) for h in hand]
    for v, h in zip(vectors, hand, strict=True):
        assert cc.reference_ranks(v) == h


def test_rank_change_words_and_deltas(page):
    before = [0.5, math.nan, 0.3, 0.2]
    after = [0.1, 0.4, math.nan, 0.2]
    got = page.evaluate(
        "([b, a]) => { const r = mplEngine.rankChange(b, a); "
        "return [Array.from(r.delta), r.word]; }",
        [before, after],
    )
    # before: ranks 1, -, 2, 3; after: 3, 1, -, 2
    assert got == [[-2, 0, 0, 1], ["", "new", "no score", ""]]


def test_score_change_is_the_python_rule(page):
    from ml_peg_like.scoring import score_change

    before = [0.5, math.nan, 0.3, 0.2, 0.1 + 0.2, 0.9]
    after = [0.75, 0.4, math.nan, 0.2, 0.3, 0.6]
    got = page.evaluate("([b, a]) => Array.from(mplEngine.scoreChange(b, a))", [before, after])
    # by hand: +0.25, no score before, none now, unchanged, a tie (5.6e-17 apart), -0.3
    want = score_change(before, after)
    assert [0.25, None, None, 0.0, 0.0, -0.3] == [
        None if math.isnan(v) else round(v, 12) for v in got
    ]
    assert all((math.isnan(g) and math.isnan(w)) or g == w for g, w in zip(got, want, strict=True))


def test_unsupported_board_is_scored_on_the_server_only(page):
    import ml_peg_like as mpl
    from ml_peg_like.bundle import make_bundle
    from ml_peg_like.raw import InstanceBlock

    cfg = mpl.loads_config("categories: {C: {benchmarks: {B: {metrics: {e: {good: 0, bad: 1}}}}}}")
    raw = mpl.RawData(
        ("x", "y"),
        (("B", "e"),),
        np.array([[0.2], [0.4]]),
        instances={("B", "e"): InstanceBlock(("i1", "i2"), np.array([[0.1, 0.3], [0.4, 0.4]]))},
    )
    bundle = make_bundle(cfg, raw)
    got = page.evaluate("b => mplEngine.score(mplEngine.prepare(b), {})", bundle)
    assert got["unsupported"] is True
    assert got["errors"][0]["where"] == "C/B/e"
    assert "per-instance" in got["errors"][0]["message"]


CURVES = [
    ("linear", {"good": 0.0, "bad": 10.0}),
    ("linear", {"good": 1.0, "bad": -np.inf}),
    ("linear", {"good": -np.inf, "bad": np.inf}),
    ("linear", {"good": 2.0, "bad": 2.0}),
    ("traffic_light", {"good": 0.1, "bad": 0.5}),
    ("traffic_light", {"good": 0.9, "bad": 0.5}),
    ("weibull_speedup", {"b": 1.7, "c": 5.0}),
    ("weibull_speedup", {"b": 0.4, "c": 12.0, "reference": 3.0}),
    ("log_speedup", {"max_speedup": 100.0}),
    ("log_speedup", {"max_speedup": 1e4, "reference": 1500.0}),
]
GRID = [-np.inf, -5.0, -0.0, 0.0, 0.02, 0.1, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 1e3]
GRID += [1e300, np.inf, np.nan]


def test_evaluate_and_curve_marks_match_the_python_normalisers(page):
    from ml_peg_like.normalisers import apply_normaliser, get_normaliser

    x = np.asarray(GRID)
    got = page.evaluate(
        """([cases, xs]) => cases.map(([name, p]) =>
             [Array.from(mplEngine.evaluate(name, p, xs)), mplEngine.curveMarks(name, p)])""",
        [CURVES, GRID],
    )
    for (name, params), (ys, marks) in zip(CURVES, got, strict=True):
        norm = get_normaliser(name)
        want = apply_normaliser(norm, x[:, None], {k: np.array([v]) for k, v in params.items()})
        _close(f"{name} {params}", ys, want[:, 0])
        expect = [{"label": m.label, "x": m.x, "kind": m.kind} for m in norm.curve_marks(params)]
        assert marks == expect, f"{name} {params}"


RAW_SHAPE = "bundle.raw: expected {dtype, shape, order, b64} (or the bytes fetched from its href)"


def test_a_malformed_bundle_is_refused_naming_the_key(page):
    import ml_peg_like as mpl
    from ml_peg_like.bundle import make_bundle

    cfg = mpl.loads_config("categories: {C: {benchmarks: {B: {metrics: {e: {good: 0, bad: 1}}}}}}")
    good = make_bundle(cfg, np.zeros((2, 1)), models=["a", "b"])
    bad = [
        ({}, "bundle.version: expected 1, got None"),
        ({**good, "version": 2}, "bundle.version: expected 1, got 2"),
        ({**good, "models": "a,b"}, "bundle.models: expected a list"),
        ({**good, "raw": None}, RAW_SHAPE),
        ({**good, "raw": {k: v for k, v in good["raw"].items() if k != "b64"}}, RAW_SHAPE),
        ({**good, "models": ["a"]}, "bundle.raw.shape: [2,1] for 1 models and 1 metrics"),
        (
            {**good, "raw": {**good["raw"], "b64": "AAAA"}},
            "bundle.raw.b64: 3 bytes, expected 16 (8 per value)",
        ),
        ({**good, "raw": {**good["raw"], "b64": "%%%"}}, "bundle.raw.b64: not base64"),
        (
            {
                **good,
                "categories": json.loads(
                    json.dumps(good["categories"]).replace('"bad": 1.0', '"bad": "x"')
                ),
            },
            "bundle.categories: C/B/e.bad: expected a number, got 'x'",
        ),
        (
            {**good, "raw": {**good["raw"], "order": "C"}},
            "bundle.raw: expected dtype '<f8' and order 'F' (little-endian float64, column-major)",
        ),
    ]
    got = page.evaluate(
        "bs => bs.map(b => { try { mplEngine.prepare(b); return ''; } catch (e) { return e.message; } })",
        [b for b, _ in bad],
    )
    for (_, want), message in zip(bad, got, strict=True):
        # after " (": the browser's own words on a text that is not base64
        assert message == f"engine: {want}" or (
            want.endswith("not base64") and message.startswith(f"engine: {want} (")
        )


def test_a_matrix_given_as_bytes_is_the_matrix(page):
    """The page's board brings its raw matrix as bytes fetched on their own (``raw.bytes``, an
    ArrayBuffer: little-endian float64, column-major) instead of base64: read bit for bit,
    refused when its length is not 8 per value."""
    import ml_peg_like as mpl
    from ml_peg_like.bundle import make_bundle

    cfg = mpl.loads_config(
        "categories: {C: {benchmarks: {B: {metrics: {e: {good: 0, bad: 1}, f: {good: 4, bad: 0}}}}}}"
    )
    bundle = make_bundle(cfg, np.zeros((2, 2)), models=["a", "b"], raw_href="/raw")
    assert "b64" not in bundle["raw"]
    # e = (0.25, 0.1), f = (1, missing), column by column; 0.1 has no short binary form
    got = page.evaluate(
        """([b, cols]) => {
          const one = (values) => {
            const nums = values.map((v) => (v === null ? NaN : v));
            const raw = { ...b.raw, bytes: new Float64Array(nums).buffer };
            try {
              const board = mplEngine.prepare({ ...b, raw });
              const res = mplEngine.score(board, {});
              return { raw: Array.from(board.raw), overall: Array.from(res.overall) };
            } catch (e) { return e.message; }
          };
          return [one(cols), one(cols.slice(0, 3))];
        }""",
        [bundle, [0.25, 0.1, 1.0, None]],
    )
    ok, short = got
    assert ok["raw"][:3] == [0.25, 0.1, 1.0] and np.isnan(ok["raw"][3])
    # a: mean of e's 1 - 0.25 = 0.75 and f's 1 / 4 = 0.25 -> 0.5; b: f missing, and a missing
    # metric leaves its benchmark without a score (the default policy, invalidate)
    _close("overall from bytes", ok["overall"], [0.5, None])
    assert short == "engine: bundle.raw.bytes: 24 bytes, expected 32 (8 per value)"


def test_the_dashboard_page_carries_the_engine(browser):
    """Among the page's other assets, engine.js defines window.mplEngine and scores the demo
    board as the Python engine does (no clash with the page's scripts)."""
    from browser_utils import live_server, open_dashboard

    import ml_peg_like as mpl
    from ml_peg_like.bundle import make_bundle
    from ml_peg_like.dashboard import create_app
    from ml_peg_like.support.resources import demo_dir

    cfg, raw = mpl.load_dataset(demo_dir())
    want = mpl.score(raw, cfg).overall_scores
    with live_server(create_app(cfg, raw)) as url:
        seen = open_dashboard(browser, url)
        got = seen.page.evaluate(
            "b => Array.from(mplEngine.score(mplEngine.prepare(b), {}).overall)",
            make_bundle(cfg, raw),
        )
        seen.page.context.close()
    _close("demo overall in the dashboard page", got, want)
    assert not seen.problems, seen.problems
