"""Property tests: every built-in normaliser and the aggregation hierarchy against
plain, independent implementations written here (math on Python floats, one cell at a time)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ml_peg_like.config import Benchmark, Category, Config, Metric
from ml_peg_like.normalisers import apply_normaliser, get_normaliser
from ml_peg_like.scoring import score_values

NAN, INF = math.nan, math.inf
SETTINGS = settings(max_examples=300, deadline=None)

# ------------------------------------------------------------------------------------------
# Independent reference implementations (documented rules: README table, docs/NORMALISERS.md)
# ------------------------------------------------------------------------------------------


def ref_linear(x: float, good: float, bad: float) -> float:
    if math.isnan(x) or math.isnan(good) or math.isnan(bad):
        return NAN
    if good == bad:
        return 1.0 if x == good else 0.0
    if good < bad:  # orient so that higher is better
        x, good, bad = -x, -good, -bad
    if x >= good:
        return 1.0
    if x <= bad:
        return 0.0
    if math.isinf(good) and math.isinf(bad):
        return 0.5
    if math.isinf(bad):
        return 1.0  # seed 002: 1 - Err / inf
    if math.isinf(good):
        return 0.0
    return float((Fraction(x) - Fraction(bad)) / (Fraction(good) - Fraction(bad)))


def ref_traffic_light(x: float, good: float, bad: float) -> float:
    if math.isnan(x) or math.isnan(good) or math.isnan(bad):
        return NAN
    if good <= bad:  # lower is better
        return 1.0 if x <= good else (0.0 if x > bad else 0.5)
    return 1.0 if x >= good else (0.0 if x < bad else 0.5)


def ref_speedup(x: float, reference: float | None) -> float:
    if reference is None or math.isnan(reference):
        s = x
    elif x == reference:
        s = 1.0
    elif x == 0:
        s = math.copysign(INF, reference) * math.copysign(1.0, x)
    else:
        s = reference / x
    return NAN if math.isnan(s) or s < 0 else s


def ref_weibull(x: float, b: float, c: float, reference: float | None = None) -> float:
    s = ref_speedup(x, reference) if not math.isnan(x) else NAN
    if math.isnan(s):
        return NAN
    a = c * (-math.log(0.9)) ** (-1.0 / b)
    try:
        p = (s / a) ** b
    except OverflowError:
        p = INF
    return min(max(1.0 - math.exp(-p), 0.0), 1.0)


def ref_log_speedup(x: float, max_speedup: float, reference: float | None = None) -> float:
    s = ref_speedup(x, reference) if not math.isnan(x) else NAN
    if math.isnan(s):
        return NAN
    if s == 0:
        return 0.0
    if math.isinf(s):
        return 1.0
    return min(max(math.log10(s) / math.log10(max_speedup), 0.0), 1.0)


# ------------------------------------------------------------------------------------------
# Strategies
# ------------------------------------------------------------------------------------------

SPECIAL = st.sampled_from([NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0])
ANY = st.one_of(
    SPECIAL,
    st.floats(-1e6, 1e6, allow_subnormal=False),
    st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=False),
)


@st.composite
def threshold_block(draw):
    """(x (n, k), good (k,), bad (k,)) with values often at, or beyond, a threshold."""
    k = draw(st.integers(1, 4))
    n = draw(st.integers(1, 5))
    good = [draw(ANY) for _ in range(k)]
    bad = [draw(ANY) for _ in range(k)]
    x = [
        [draw(st.one_of(ANY, st.sampled_from([good[j], bad[j]]))) for j in range(k)]
        for _ in range(n)
    ]
    return np.array(x, dtype=float).reshape(n, k), np.array(good), np.array(bad)


def _check(name, x, params, ref):
    out = apply_normaliser(get_normaliser(name), x, {k: np.asarray(v) for k, v in params.items()})
    assert out.shape == x.shape
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            cell = {k: float(v[j]) for k, v in params.items()}
            want = ref(float(x[i, j]), **cell)
            got = float(out[i, j])
            where = (name, float(x[i, j]), cell)
            if math.isnan(want):
                assert math.isnan(got), (where, got)
            else:
                assert 0.0 <= got <= 1.0 and got == pytest.approx(want, rel=1e-9, abs=1e-12), (
                    where,
                    got,
                    want,
                )


@SETTINGS
@given(threshold_block())
@example((np.array([[1.0], [0.0], [INF]]), np.array([0.0]), np.array([INF])))  # infinite worst
@example((np.array([[1.0], [-INF], [INF]]), np.array([-INF]), np.array([INF])))
@example((np.array([[1e308], [-1e308], [0.0]]), np.array([-1e308]), np.array([1e308])))
def test_linear_matches_reference(block):
    x, good, bad = block
    _check("linear", x, {"good": good, "bad": bad}, ref_linear)


@SETTINGS
@given(threshold_block())
def test_traffic_light_matches_reference(block):
    x, good, bad = block
    _check("traffic_light", x, {"good": good, "bad": bad}, ref_traffic_light)


RUN = st.one_of(SPECIAL, st.floats(-10.0, 1e7, allow_subnormal=False), st.floats(0, 1e300))
REF = st.one_of(st.just(NAN), SPECIAL, st.floats(1e-3, 1e7, allow_subnormal=False))


@st.composite
def speed_block(draw):
    k = draw(st.integers(1, 3))
    n = draw(st.integers(1, 5))
    ref = [draw(REF) for _ in range(k)]
    x = [[draw(st.one_of(RUN, st.just(ref[j]))) for j in range(k)] for _ in range(n)]
    return np.array(x, dtype=float).reshape(n, k), np.array(ref)


@SETTINGS
@given(
    speed_block(),
    st.floats(0.2, 5.0),
    st.floats(0.1, 1e3),
    st.booleans(),
)
@example((np.array([[INF], [1500.0], [0.0]]), np.array([INF])), 1.7, 5.0, True)
def test_weibull_speedup_matches_reference(block, b, c, with_ref):
    x, ref = block
    k = x.shape[1]
    params = {"b": np.full(k, b), "c": np.full(k, c)}
    if with_ref:
        params["reference"] = ref
    _check("weibull_speedup", x, params, ref_weibull)


@SETTINGS
@given(speed_block(), st.floats(1.001, 1e6), st.booleans())
@example((np.array([[1500.0], [5.0], [INF], [0.0]]), np.array([1500.0])), 10000.0, True)
def test_log_speedup_matches_reference(block, max_speedup, with_ref):
    x, ref = block
    k = x.shape[1]
    params = {"max_speedup": np.full(k, max_speedup)}
    if with_ref:
        params["reference"] = ref
    _check("log_speedup", x, params, ref_log_speedup)


def test_every_builtin_normaliser_has_a_reference_here():
    from ml_peg_like.normalisers import _REGISTRY

    builtin = {n for n, v in _REGISTRY.items() if v.trusted}
    assert builtin == {"linear", "traffic_light", "weibull_speedup", "log_speedup"}


# ------------------------------------------------------------------------------------------
# Aggregation: the weighted-mean hierarchy through the public API
# ------------------------------------------------------------------------------------------


def ref_node(children: list[tuple[float, float, float]], policy: str) -> tuple[float, float]:
    """(score, coverage) of a group of (score, weight, coverage) children.

    Weight-0 children are ignored. invalidate: missing when any child is missing; skip: the
    weighted mean of the children present. Coverage: the fraction of the positive weight actually
    used (a missing child, e.g. one invalidated under its own invalidate policy, adds 0); a
    missing group has coverage 0; a group without positive weight has no score and no coverage.
    """
    used = [(s, w, c) for s, w, c in children if w > 0]
    total = sum(w for _, w, _ in used)
    if total == 0:
        return NAN, NAN
    present = [(s, w, c) for s, w, c in used if not math.isnan(s)]
    if not present or (policy == "invalidate" and len(present) < len(used)):
        return NAN, 0.0
    w_present = sum(w for _, w, _ in present)
    score = sum(s * w for s, w, _ in present) / w_present
    return score, sum(w * c for _, w, c in present) / total


def ref_hierarchy(tree, policy: str, row: dict[str, float]):
    """{node name: (score, coverage)} for one model; ``tree`` = [(cat, w, override, [(bench,
    w, [(metric, w)])])]; the metric score is its raw value (linear, good 1, bad 0, in [0, 1])."""
    out = {}
    cats = []
    for cname, cw, override, benches in tree:
        pol = override or policy
        bchildren = []
        # a weight-0 group whose children all have weight 0 is scored with equal
        # weights (shown greyed; its parent ignores it)
        shown_b = cw == 0 and all(bw == 0 for _b, bw, _m in benches)
        for bname, bw, metrics in benches:
            shown_m = bw == 0 and all(mw == 0 for _m, mw in metrics)
            mchildren = [
                (
                    row[f"{bname}/{m}"],
                    1.0 if shown_m else mw,
                    0.0 if math.isnan(row[f"{bname}/{m}"]) else 1.0,
                )
                for m, mw in metrics
            ]
            out[bname] = ref_node(mchildren, pol)
            bchildren.append((*out[bname][:1], 1.0 if shown_b else bw, out[bname][1]))
        out[cname] = ref_node(bchildren, pol)
        cats.append((out[cname][0], cw, out[cname][1]))
    out[""] = ref_node(cats, policy)
    return out


WEIGHT = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7])
POLICY = st.sampled_from(["invalidate", "skip"])


@st.composite
def hierarchy(draw, min_children: int = 1):
    tree = []
    n_m = 0
    for ci in range(draw(st.integers(1, 3))):
        benches = []
        for bi in range(draw(st.integers(min_children, 3))):
            metrics = [(f"m{k}", draw(WEIGHT)) for k in range(draw(st.integers(min_children, 3)))]
            n_m += len(metrics)
            benches.append((f"B{ci}{bi}", draw(WEIGHT), metrics))
        tree.append(
            (f"C{ci}", draw(WEIGHT), draw(st.sampled_from([None, "invalidate", "skip"])), benches)
        )
    policy = draw(POLICY)
    n_models = draw(st.integers(1, 4))
    cell = st.one_of(st.just(NAN), st.sampled_from([0.0, 0.25, 1.0]), st.floats(0, 1))
    values = [[draw(cell) for _ in range(n_m)] for _ in range(n_models)]
    return tree, policy, values


def build(tree, policy) -> Config:
    return Config(
        categories=tuple(
            Category(
                name=c,
                weight=cw,
                missing=override,
                benchmarks=tuple(
                    Benchmark(
                        name=b,
                        weight=bw,
                        metrics=tuple(Metric(name=m, good=1.0, bad=0.0, weight=mw) for m, mw in ms),
                    )
                    for b, bw, ms in benches
                ),
            )
            for c, cw, override, benches in tree
        ),
        missing=policy,
    )


def _same(got: float, want: float) -> bool:
    return math.isnan(got) if math.isnan(want) else got == pytest.approx(want, rel=1e-9, abs=1e-12)


def check_hierarchy(tree, policy, values, *, coverage: bool):
    cfg = build(tree, policy)
    columns = [f"{b}/{m}" for _, _, _, benches in tree for b, _, ms in benches for m, _ in ms]
    models = [f"model{i}" for i in range(len(values))]
    res = score_values(
        np.array(values, dtype=float).reshape(len(models), len(columns)), models, cfg
    )
    for i in range(len(models)):
        want = ref_hierarchy(tree, policy, dict(zip(columns, values[i], strict=True)))
        got = {
            b: (res.bench_scores[i, j], res.bench_coverage[i, j])
            for j, b in enumerate(res.plan.benchmarks)
        }
        got |= {
            c: (res.cat_scores[i, j], res.cat_coverage[i, j])
            for j, c in enumerate(res.plan.categories)
        }
        got[""] = (res.overall_scores[i], res.overall_coverage[i])
        for name, (ws, wc) in want.items():
            gs, gc = got[name]
            assert _same(gs, ws), (name or "overall", "score", gs, ws)
            # a missing node's own coverage is left open; what it adds to its parent is not
            if coverage and not math.isnan(ws):
                assert _same(gc, wc), (name or "overall", "coverage", gc, wc)


@SETTINGS
@given(hierarchy())
def test_aggregation_scores_match_reference_under_mixed_policies(case):
    tree, policy, values = case
    check_hierarchy(tree, policy, values, coverage=False)


@SETTINGS
@given(hierarchy(), POLICY)
def test_aggregation_coverage_matches_reference_under_one_policy(case, policy):
    tree, _, values = case
    tree = [(c, cw, None, benches) for c, cw, _, benches in tree]
    check_hierarchy(tree, policy, values, coverage=True)


# global skip, C0 (invalidate) with one of its two metrics missing, C1 complete
_MIXED = (
    [
        ("C0", 1.0, "invalidate", [("B00", 1.0, [("m0", 1.0), ("m1", 1.0)])]),
        ("C1", 1.0, None, [("B10", 1.0, [("m0", 1.0), ("m1", 1.0)])]),
    ],
    "skip",
    [[0.5, NAN, 1.0, 0.5]],
)


def test_issue_13_mixed_policy_coverage_is_the_weight_used():
    tree, policy, values = _MIXED
    res = score_values(np.array(values), ["a"], build(tree, policy))
    assert res.overall_scores[0] == 0.75  # C1 alone
    assert res.overall_coverage[0] == 0.5  # "the fraction of the weight present"


@SETTINGS
@given(hierarchy())
@example(_MIXED)
def test_aggregation_coverage_matches_reference_under_mixed_policies(case):
    tree, policy, values = case
    check_hierarchy(tree, policy, values, coverage=True)


# an empty benchmark (possible through the dataclasses) between two full ones
_EMPTY = (
    [
        (
            "C0",
            1.0,
            None,
            [("B00", 1.0, [("m0", 1.0)]), ("B01", 1.0, []), ("B02", 1.0, [("m0", 1.0)])],
        )
    ],
    "skip",
    [[0.2, 0.8]],
)


def test_issue_13_empty_benchmark_is_missing_not_its_neighbour():
    tree, policy, values = _EMPTY
    res = score_values(np.array(values), ["a"], build(tree, policy))
    assert res.bench_scores[0, 0] == 0.2 and res.bench_scores[0, 2] == 0.8
    assert math.isnan(res.bench_scores[0, 1])
    assert res.cat_scores[0, 0] == pytest.approx(0.5)


def test_issue_13_empty_group_in_last_position_does_not_raise():
    tree = [("C0", 1.0, None, [("B00", 1.0, [("m0", 1.0)]), ("B01", 1.0, [])])]
    res = score_values(np.array([[0.4]]), ["a"], build(tree, "invalidate"))
    assert math.isnan(res.bench_scores[0, 1]) and math.isnan(res.overall_scores[0])


@SETTINGS
@given(hierarchy(min_children=0))
@example(_EMPTY)
def test_aggregation_scores_match_reference_with_empty_groups(case):
    tree, policy, values = case
    check_hierarchy(tree, policy, values, coverage=False)
