"""ml_peg_like.metrics: hand-computed values, seed identities (004, 000, 002), argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ml_peg_like import metrics as m
from ml_peg_like.norms import row_norms

# ------------------------------------------------------------------------------------------------
# scalar metrics (seed 004)
# ------------------------------------------------------------------------------------------------

REF = [1.0, 2.0, 3.0, 4.0]
PRED = [2.0, 2.0, 2.0, 2.0]  # residuals -1, 0, 1, 2


def test_scalar_by_hand():
    assert m.mae(REF, PRED) == pytest.approx(1.0)  # (1 + 0 + 1 + 2) / 4
    assert m.rmse(REF, PRED) == pytest.approx(math.sqrt(1.5))  # sqrt((1 + 0 + 1 + 4) / 4)
    assert m.max_abs_error(REF, PRED) == 2.0


def test_weights_are_not_a_normalised_mean():
    w = [2.0, 2.0, 2.0, 2.0]
    # seed 004: (1/N) sum |r| w, not sum |r| w / sum w (which would give 1.0)
    assert m.mae(REF, PRED, w) == pytest.approx(2.0)
    # sqrt((1/N) sum r^2 w^2): the weights enter squared
    assert m.rmse(REF, PRED, w) == pytest.approx(2.0 * math.sqrt(1.5))
    w = [1.0, 5.0, 0.0, 0.5]  # 1*1 + 0*5 + 1*0 + 2*0.5 = 2
    assert m.mae(REF, PRED, w) == pytest.approx(0.5)
    assert m.rmse(REF, PRED, w) == pytest.approx(math.sqrt((1 + 0 + 0 + 1) / 4))


def test_seed004_scaled_energy_error_equals_weights():
    e_ref = np.array([10.0, -4.0, 7.0])
    e_pred = np.array([12.0, -1.0, 7.5])
    n = np.array([4, 9, 1])
    w = 1 / np.sqrt(n)
    assert m.mae(e_ref, e_pred, w) == pytest.approx(
        m.mae(m.per_sqrt_atom(e_ref, n), m.per_sqrt_atom(e_pred, n))
    )
    # |r| / sqrt(n) = 2/2, 3/3, 0.5/1 -> mean 2.5/3
    assert m.mae(e_ref, e_pred, w) == pytest.approx(2.5 / 3)
    assert m.rmse(e_ref, e_pred, w) == pytest.approx(math.sqrt((1 + 1 + 0.25) / 3))


def test_per_atom_helpers():
    np.testing.assert_allclose(m.per_atom([4.0, 9.0], [2, 3]), [2.0, 3.0])
    np.testing.assert_allclose(m.per_sqrt_atom([4.0, 9.0], [4, 9]), [2.0, 3.0])
    np.testing.assert_allclose(m.per_atom([[2.0, 4.0]], [2]), [[1.0, 2.0]])
    out = m.per_atom([np.nan, 1.0], [1, 1])
    assert np.isnan(out[0]) and out[1] == 1.0
    with pytest.raises(ValueError, match="n_atoms"):
        m.per_atom([1.0, 2.0], [1, 0])
    with pytest.raises(ValueError, match="shape mismatch"):
        m.per_sqrt_atom([1.0, 2.0], [1, 2, 3])


def test_mape_percent_and_zero_references():
    assert m.mape([1.0, 2.0, 4.0], [2.0, 1.0, 4.0]) == pytest.approx(50.0)  # 100, 50, 0
    assert m.mape([0.0, 1.0], [0.0, 1.5]) == pytest.approx(25.0)  # 0/0 counts 0
    assert m.mape([0.0, 1.0], [0.1, 1.0]) == math.inf


def test_r2():
    assert m.r2([1.0, 2.0, 3.0], [1.0, 2.0, 4.0]) == pytest.approx(0.5)  # 1 - 1/2
    assert m.r2([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]) == 1.0
    assert math.isnan(m.r2([2.0, 2.0], [2.0, 1.0]))  # constant reference: undefined


# ------------------------------------------------------------------------------------------------
# vector metrics (seed 004)
# ------------------------------------------------------------------------------------------------


def test_vector_by_hand():
    ref = np.zeros((2, 3))
    pred = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 1.0]])  # |r| = 5 and 1
    assert m.vector_mae(ref, pred) == pytest.approx(3.0)
    assert m.vector_rmse(ref, pred) == pytest.approx(math.sqrt(13.0))  # sqrt((25 + 1) / 2)
    assert m.vector_mae(ref, pred, mode="component") == pytest.approx(8 / 6)
    assert m.vector_rmse(ref, pred, mode="component") == pytest.approx(math.sqrt(26 / 6))


def test_component_mae_changes_under_a_rotation_by_hand():
    ref = np.zeros((1, 3))
    pred = np.array([[1.0, 0.0, 0.0]])
    c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    assert m.vector_mae(ref, pred, mode="component") == pytest.approx(1 / 3)
    assert m.vector_mae(ref, pred @ rot.T, mode="component") == pytest.approx(math.sqrt(2) / 3)
    assert m.vector_mae(ref, pred @ rot.T) == pytest.approx(1.0)


finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


def _rotation(q) -> np.ndarray:
    """Rotation matrix of a (non-zero) quaternion: covers SO(3) uniformly for random q."""
    w, x, y, z = np.asarray(q) / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


vectors = st.integers(1, 20).flatmap(lambda n: arrays(float, (n, 3), elements=finite))
quaternions = arrays(float, 4, elements=st.floats(-1, 1)).filter(lambda q: np.linalg.norm(q) > 1e-3)


pairs = st.integers(1, 20).flatmap(
    lambda n: st.tuples(
        arrays(float, (n, 3), elements=finite), arrays(float, (n, 3), elements=finite)
    )
)


@given(pairs)
def test_component_rmse_is_magnitude_rmse_over_sqrt3(pair):
    ref, pred = pair
    assert m.vector_rmse(ref, pred, mode="component") == pytest.approx(
        m.vector_rmse(ref, pred) / math.sqrt(3), rel=1e-9, abs=1e-12
    )


@given(vectors, quaternions)
def test_magnitude_metrics_are_rotation_invariant(res, q):
    rot = _rotation(q)
    ref = np.zeros_like(res)
    rotated = res @ rot.T
    scale = 1e-9 * (1 + np.abs(res).max())
    assert m.vector_mae(ref, rotated) == pytest.approx(m.vector_mae(ref, res), abs=scale)
    assert m.vector_rmse(ref, rotated) == pytest.approx(m.vector_rmse(ref, res), abs=scale)
    # the residual is what matters: rotating both ref and pred rotates the residual
    pred = res + 1.0
    assert m.vector_mae(pred @ rot.T, (pred - res) @ rot.T) == pytest.approx(
        m.vector_mae(pred, pred - res), abs=scale * 10
    )


@given(vectors, quaternions)
def test_component_mae_stays_within_its_bounds_under_rotation(res, q):
    # ||r||_2 <= ||r||_1 <= sqrt(3) ||r||_2, so MAE_mag/3 <= MAE_comp <= MAE_mag/sqrt(3)
    rotated = res @ _rotation(q).T
    ref = np.zeros_like(res)
    mag = m.vector_mae(ref, res)
    comp = m.vector_mae(ref, rotated, mode="component")
    tol = 1e-9 * (1 + mag)
    assert mag / 3 - tol <= comp <= mag / math.sqrt(3) + tol


@given(st.floats(1e-3, 1e3), st.floats(0.05, math.pi / 2 - 0.05))
def test_component_mae_changes_under_rotation(length, angle):
    # a residual along x rotated by angle about z: ||r||_1 = length (|cos| + |sin|) > length
    res = np.array([[length, 0.0, 0.0]])
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    ref = np.zeros_like(res)
    before = m.vector_mae(ref, res, mode="component")
    after = m.vector_mae(ref, res @ rot.T, mode="component")
    assert after > before * (1 + 1e-3)
    assert m.vector_mae(ref, res @ rot.T) == pytest.approx(m.vector_mae(ref, res))


# ------------------------------------------------------------------------------------------------
# LIPS (seed 000)
# ------------------------------------------------------------------------------------------------


def test_top_quantile_count():
    assert int(m.top_quantile_count(10, 0.9)) == 1  # (1 - 0.9) * 10 is 0.99999... in floats
    assert int(m.top_quantile_count(10, 0.1)) == 9
    assert int(m.top_quantile_count(20, 0.9)) == 2
    assert int(m.top_quantile_count(5, 0.9)) == 1  # at least one sample
    assert int(m.top_quantile_count(100, 0.9)) == 10
    np.testing.assert_array_equal(m.top_quantile_count(np.array([1, 10, 19]), 0.9), [1, 1, 1])


def test_mape90_keeps_the_top_10_percent():
    ref = np.arange(1.0, 11.0)  # 1..10
    pred = ref * 1.1  # 10 % everywhere...
    pred[-1] = 12.0  # ...except 20 % on the largest reference
    assert m.mape_top_quantile(ref, pred, 0.9) == pytest.approx(20.0)  # only ref = 10 kept
    assert m.mape(ref, pred) == pytest.approx(11.0)  # (9 * 10 + 20) / 10


def test_mape10_drops_near_zero_references():
    ref = np.array([0.01] + [1.0] * 9)
    pred = ref + 0.5
    # plain MAPE explodes on 0.01: (5000 + 9 * 50) / 10
    assert m.mape(ref, pred) == pytest.approx(545.0)
    # MAPE10 keeps the top 9 of 10 (at or above the 10th percentile): 50 % each
    assert m.mape_top_quantile(ref, pred, 0.1) == pytest.approx(50.0)


def test_mape_top_quantile_keeps_ties():
    ref = np.array([1.0, 1.0, 1.0, 1.0])
    pred = np.array([1.0, 2.0, 1.0, 1.0])
    # k = 1 but all four tie with the largest |ref|: all kept (deterministic)
    assert m.mape_top_quantile(ref, pred, 0.9) == pytest.approx(25.0)


def test_mape_top_quantile_uses_absolute_reference():
    ref = np.array([-10.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    pred = ref.copy()
    pred[0] = -13.0
    assert m.mape_top_quantile(ref, pred, 0.9) == pytest.approx(30.0)


@pytest.mark.parametrize("q", [0, 1, 1.5, -0.1, "x", None])
def test_mape_top_quantile_rejects_bad_quantiles(q):
    with pytest.raises(ValueError, match="quantile"):
        m.mape_top_quantile([1.0, 2.0], [1.0, 2.0], q)


def test_physics_compliance_shares():
    assert m.share_negative([-1.0, 0.0, 2.0, -3.0]) == 0.5  # P1-P3
    assert m.share_nonzero([0.0, 0.0, 1e-9, 2.0]) == 0.5  # P4, strict > 0
    assert m.share_nonzero([0.0, 0.0, 1e-9, 2.0], tol=1e-6) == 0.25
    assert m.share_nonzero([0.0, -2.0]) == 0.5  # |x| > tol
    with pytest.raises(ValueError, match="tol"):
        m.share_nonzero([1.0], tol=-1)


# ------------------------------------------------------------------------------------------------
# UAI (seed 002)
# ------------------------------------------------------------------------------------------------


def test_log_partition_error_no_overflow():
    with np.errstate(all="raise"):
        assert m.log_partition_error(1e5, 1e5 - 2.5) == pytest.approx(2.5)
        assert m.log_partition_error(-1e5, -1e5 + 2.5) == pytest.approx(2.5)
        np.testing.assert_allclose(m.log_partition_error([1e5, 3.0], [1e5 + 1.0, 1.0]), [1.0, 2.0])
    assert math.isnan(m.log_partition_error(1.0, math.nan))
    np.testing.assert_allclose(
        m.log_partition_error([1.0, 2.0], [np.nan, 1.0], nan_policy="omit"), [1.0]
    )


def test_mpe_error():
    assert m.mpe_error(-10.0, -12.0) == pytest.approx(2.0)  # log(L_best / L)
    assert m.mpe_error(-10.0, -9.0) == pytest.approx(-1.0)  # beats the recorded best: not clipped
    np.testing.assert_allclose(m.mpe_error([0.0, -1.0], [-1.0, -1.0]), [1.0, 0.0])


def test_hellinger_identical_and_disjoint():
    p = np.array([[0.2, 0.8], [0.5, 0.5]])
    assert m.mean_hellinger(p, p) == 0.0
    assert m.mean_hellinger([[1.0, 0.0]], [[0.0, 1.0]]) == pytest.approx(1.0)
    assert m.mean_hellinger(np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 0.3, 0.7]])) == (
        pytest.approx(1.0)
    )


def test_hellinger_by_hand_and_ragged():
    # H([1, 0], [0.5, 0.5]) = sqrt(0.5 ((1 - sqrt .5)^2 + .5)) = sqrt(1 - sqrt(2)/2)
    h = math.sqrt(1 - math.sqrt(2) / 2)
    assert m.mean_hellinger([[1.0, 0.0]], [[0.5, 0.5]]) == pytest.approx(h)
    # variables with different numbers of states: mean(1, 0, h)
    p_true = [np.array([1.0, 0.0]), np.array([0.5, 0.25, 0.25]), np.array([1.0, 0.0])]
    p_pred = [np.array([0.0, 1.0]), np.array([0.5, 0.25, 0.25]), np.array([0.5, 0.5])]
    assert m.mean_hellinger(p_true, p_pred) == pytest.approx((1 + 0 + h) / 3)
    with pytest.raises(ValueError, match="shape mismatch"):
        m.mean_hellinger([[1.0, 0.0], [1.0]], [[1.0, 0.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match=">= 0"):
        m.mean_hellinger([[1.0, 0.0]], [[1.5, -0.5]])


def test_hellinger_missing_variable():
    p_true = [np.array([1.0, 0.0]), np.array([0.5, 0.5])]
    p_pred = [np.array([0.0, 1.0]), np.array([np.nan, 0.5])]
    assert math.isnan(m.mean_hellinger(p_true, p_pred))
    assert m.mean_hellinger(p_true, p_pred, nan_policy="omit") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="1 of 2 variables"):
        m.mean_hellinger(p_true, p_pred, nan_policy="raise")


@settings(max_examples=50)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_hellinger_vectorised_equals_loop(lengths, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    p = [rng.dirichlet(np.ones(k)) for k in lengths]
    q = [rng.dirichlet(np.ones(k)) for k in lengths]
    loop = np.mean(
        [np.linalg.norm(np.sqrt(a) - np.sqrt(b)) / math.sqrt(2) for a, b in zip(p, q, strict=True)]
    )
    assert m.mean_hellinger(p, q) == pytest.approx(loop, abs=1e-12)
    assert 0.0 <= m.mean_hellinger(p, q) <= 1.0 + 1e-12


# ------------------------------------------------------------------------------------------------
# missing values and argument checks
# ------------------------------------------------------------------------------------------------


def test_missing_values_are_never_silently_dropped():
    ref, pred = [1.0, 2.0, 3.0], [1.0, np.nan, 5.0]
    assert math.isnan(m.mae(ref, pred))  # propagate (default)
    assert m.mae(ref, pred, nan_policy="omit") == pytest.approx(1.0)  # (0 + 2) / 2
    with pytest.raises(ValueError, match="1 of 3 samples"):
        m.mae(ref, pred, nan_policy="raise")
    assert math.isnan(m.share_negative([-1.0, np.nan]))  # NaN < 0 would be False
    assert m.share_negative([-1.0, np.nan], nan_policy="omit") == 1.0
    assert math.isnan(m.mae([1.0], [np.inf]))  # infinite = missing
    assert math.isnan(m.mae([1.0, 2.0], [np.nan, np.nan], nan_policy="omit"))  # nothing left


def test_finite_mask_and_missing_fraction():
    np.testing.assert_array_equal(
        m.finite_mask([1.0, np.nan, 3.0, 4.0], [1.0, 2.0, np.inf, 4.0]), [True, False, False, True]
    )
    vec = np.array([[1.0, 2.0, 3.0], [1.0, np.nan, 3.0]])
    np.testing.assert_array_equal(m.finite_mask(vec), [True, False])
    assert m.missing_fraction([1.0, np.nan, np.inf, 2.0]) == 0.5
    assert math.isnan(m.vector_mae(np.zeros((2, 3)), vec))
    assert m.vector_mae(np.zeros((2, 3)), vec, nan_policy="omit") == pytest.approx(math.sqrt(14))


@pytest.mark.parametrize(
    "call",
    [
        lambda: m.mae([], []),
        lambda: m.rmse([1.0, 2.0], [1.0]),
        lambda: m.mae([[1.0, 2.0]], [[1.0, 2.0]]),
        lambda: m.mae([1.0], [1.0], weights=[-1.0]),
        lambda: m.mae([1.0], [1.0], weights=[np.nan]),
        lambda: m.mae([1.0, 2.0], [1.0, 2.0], weights=[1.0]),
        lambda: m.mae([1.0], [1.0], nan_policy="drop"),
        lambda: m.vector_mae(np.zeros((2, 3)), np.zeros((2, 2))),
        lambda: m.vector_mae(np.zeros(3), np.zeros(3)),
        lambda: m.vector_rmse(np.zeros((0, 3)), np.zeros((0, 3))),
        lambda: m.vector_mae(np.zeros((1, 3)), np.zeros((1, 3)), mode="l1"),
        lambda: m.share_negative([]),
        lambda: m.mean_hellinger([], []),
        lambda: m.log_partition_error([1.0, 2.0], [1.0]),
        lambda: m.mae(["a"], [1.0]),
    ],
)
def test_argument_checks(call):
    with pytest.raises(ValueError):
        call()


# --------------------------------------------------------------------------------------------
# huge residuals: finite values, no overflow of the squares
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("big", [1e200, 1e300])
def test_rmse_of_huge_residuals_is_finite_and_exact(big):
    # sqrt((big^2 + big^2) / 2) = big; the plain formula gives inf (big^2 overflows)
    assert m.rmse([big, -big], [0.0, 0.0]) == big
    assert m.rmse([big, big], [0.0, 0.0], weights=[0.5, 0.5]) == big / 2
    # per-atom form: residuals 2*big / 2 atoms = big
    assert m.rmse(m.per_atom([2 * big, 2 * big], [2, 2]), [0.0, 0.0]) == big
    assert m.rmse(m.per_sqrt_atom([2 * big, 2 * big], [4, 4]), [0.0, 0.0]) == big
    # [3 big, 0]: sqrt(9 big^2 / 2) = 3 big / sqrt 2 (to the last bit or one ulp)
    assert m.rmse([3 * big, 0.0], [0.0, 0.0]) == pytest.approx(3 * big / math.sqrt(2), rel=1e-15)


def test_vector_metrics_of_huge_residuals_are_finite_and_exact():
    ref = np.array([[3e300, 4e300, 0.0], [0.0, 0.0, 0.0]])
    pred = np.zeros((2, 3))
    # lengths 5e300 and 0
    assert m.vector_mae(ref[:1], pred[:1]) == 5e300
    assert m.vector_mae(ref, pred) == 2.5e300
    assert m.vector_rmse(ref[:1], pred[:1]) == 5e300
    assert m.vector_rmse(ref, pred) == pytest.approx(5e300 / math.sqrt(2), rel=1e-15)
    assert m.vector_rmse(ref[:1], pred[:1], "component") == pytest.approx(
        5e300 / math.sqrt(3), rel=1e-15
    )
    # 1e200: (6e200, 8e200, 0) -> 1e201 within one ulp; (1e200, 0, 0) -> 1e200 exactly
    assert m.vector_mae([[1e200, 0.0, 0.0]], [[0.0, 0.0, 0.0]]) == 1e200
    assert m.vector_mae([[6e200, 8e200, 0.0]], [[0.0] * 3]) == pytest.approx(1e201, rel=1e-15)
    assert np.array_equal(row_norms(ref), [5e300, 0.0])


def test_tiny_residuals_do_not_underflow_to_zero():
    assert m.rmse([1e-200, 1e-200], [0.0, 0.0]) == 1e-200
    assert m.vector_mae([[3e-200, 4e-200, 0.0]], [[0.0] * 3]) == pytest.approx(5e-200, rel=1e-15)
