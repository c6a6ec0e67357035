"""Property tests (issue 13 item 6): every built-in normaliser and the aggregation hierarchy against
plain, independent implementations written here (math on Python floats, one cell at a time)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ml_peg_like.normalisers import apply_normaliser, get_normaliser

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
@example((np.array([[1.0], [0.0], [INF]]), np.array([0.0]), np.array([INF])))  # issue 13 item 1
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
