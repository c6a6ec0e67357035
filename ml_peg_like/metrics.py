"""Error metrics computed from predictions: pure, vectorised numpy functions.

Every function takes whole arrays (no Python loop per sample), checks its arguments at the edge
(shape mismatch, empty input, bad options raise :class:`ValueError` naming the argument) and
states its formula in its docstring. Residuals are ``r_i = ref_i - pred_i`` (seed 004's sign; the
sign does not matter for any metric here except :func:`mpe_error`).

Missing predictions
-------------------
A prediction is *missing* when it is not finite (NaN or +-inf). Missing values are never dropped
silently: every metric takes ``nan_policy``:

- ``"propagate"`` (default): any missing value in the inputs makes the result NaN;
- ``"omit"``: the samples with a missing value (in any input array, any component) are left out
  explicitly, and the metric is computed over the rest (NaN when nothing is left);
- ``"raise"``: a missing value raises :class:`ValueError` with the count.

:func:`finite_mask` gives the mask of complete samples and :func:`missing_fraction` the share of
missing ones; :func:`ml_peg_like.compute.compute_raw_metrics` reports that share as a
``missing fraction`` metric for every (model, benchmark).

Units: MAE, RMSE, max error, the UAI errors and the vector metrics are in the unit of the inputs;
:func:`mape` and :func:`mape_top_quantile` are in **percent**; :func:`share_negative` and
:func:`share_nonzero` are fractions in [0, 1]; :func:`r2` is dimensionless.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from .norms import rms, row_norms

__all__ = [
    "NanPolicy",
    "finite_mask",
    "missing_fraction",
    "mae",
    "rmse",
    "max_abs_error",
    "mape",
    "r2",
    "per_atom",
    "per_sqrt_atom",
    "vector_mae",
    "vector_rmse",
    "mape_top_quantile",
    "top_quantile_count",
    "share_negative",
    "share_nonzero",
    "log_partition_error",
    "mean_hellinger",
    "mpe_error",
]

NanPolicy = Literal["propagate", "omit", "raise"]
_NAN_POLICIES = ("propagate", "omit", "raise")
VectorMode = Literal["magnitude", "component"]
_VECTOR_MODES = ("magnitude", "component")


# --------------------------------------------------------------------------------------------
# argument checks and missing values
# --------------------------------------------------------------------------------------------


def _as_float(x, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: cannot be read as an array of numbers ({exc})") from None
    return arr


def _check_1d(arr: np.ndarray, name: str) -> None:
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: empty input (no samples)")


def _check_same_shape(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: {name_a} has shape {a.shape}, {name_b} has {b.shape}")


def _check_policy(nan_policy: str) -> None:
    if nan_policy not in _NAN_POLICIES:
        raise ValueError(f"nan_policy: expected one of {_NAN_POLICIES}, got {nan_policy!r}")


def finite_mask(*arrays) -> np.ndarray:
    """Mask of complete samples: True where every array is finite at that sample.

    Arrays share their first axis (samples); a 2-D array (samples x components) counts a sample
    as missing when any of its components is not finite.
    """
    if not arrays:
        raise ValueError("finite_mask: give at least one array")
    mask = None
    for i, a in enumerate(arrays):
        arr = np.asarray(a, dtype=float)
        if arr.ndim == 0:
            raise ValueError(f"finite_mask: array {i} is a scalar, expected samples on axis 0")
        m = np.isfinite(arr)
        if m.ndim > 1:
            m = m.reshape(m.shape[0], -1).all(axis=1)
        if mask is None:
            mask = m
        else:
            if m.shape != mask.shape:
                raise ValueError(
                    f"finite_mask: array {i} has {m.shape[0]} samples, expected {mask.shape[0]}"
                )
            mask = mask & m
    return mask


def missing_fraction(*arrays) -> float:
    """Share of samples with a missing (non-finite) value: ``1 - mean(finite_mask(*arrays))``."""
    mask = finite_mask(*arrays)
    if mask.size == 0:
        raise ValueError("missing_fraction: empty input (no samples)")
    return float(1.0 - mask.mean())


def _apply_policy(nan_policy: str, arrays: list[np.ndarray], names: list[str]):
    """Return ``(arrays, ok)``: the arrays after the policy, ``ok=False`` when the result is NaN."""
    _check_policy(nan_policy)
    mask = finite_mask(*arrays)
    if mask.all():
        return arrays, True
    n_bad = int((~mask).sum())
    if nan_policy == "raise":
        raise ValueError(
            f"{n_bad} of {mask.size} samples have a missing (NaN or infinite) value in "
            f"{', '.join(names)}; pass nan_policy='omit' to leave them out"
        )
    if nan_policy == "propagate":
        return arrays, False
    kept = [a[mask] for a in arrays]
    return kept, bool(mask.any())


def _pair(ref, pred, nan_policy: str, weights=None, *, ndim: int = 1):
    """Validate ``ref``/``pred`` (+ optional weights); return (ref, pred, weights, ok)."""
    r = _as_float(ref, "ref")
    p = _as_float(pred, "pred")
    _check_same_shape(r, p, "ref", "pred")
    if ndim == 1:
        _check_1d(r, "ref")
    else:
        if r.ndim != 2 or r.shape[1] == 0:
            raise ValueError(f"ref: expected a 2-D array (samples x components), got {r.shape}")
        if r.shape[0] == 0:
            raise ValueError("ref: empty input (no samples)")
    arrays, names = [r, p], ["ref", "pred"]
    w = None
    if weights is not None:
        w = _as_float(weights, "weights")
        if w.shape != (r.shape[0],):
            raise ValueError(
                f"shape mismatch: weights has shape {w.shape}, expected ({r.shape[0]},)"
            )
        if not np.isfinite(w).all():
            raise ValueError("weights: must all be finite (weights are not predictions)")
        if (w < 0).any():
            raise ValueError("weights: must be >= 0")
        arrays.append(w)
        names.append("weights")
    arrays, ok = _apply_policy(nan_policy, arrays, names)
    r, p = arrays[0], arrays[1]
    w = arrays[2] if weights is not None else None
    return r, p, w, ok


# --------------------------------------------------------------------------------------------
# scalar metrics (seed 004)
# --------------------------------------------------------------------------------------------


def mae(ref, pred, weights=None, *, nan_policy: NanPolicy = "propagate") -> float:
    r"""Mean absolute error, weighted as seed 004 writes it.

    ``MAE = (1/N) sum_i |r_i| w_i`` with ``r_i = ref_i - pred_i`` and ``w_i = 1`` without weights.

    This is **not** a normalised weighted mean: the sum is divided by the number of samples N,
    not by ``sum_i w_i``. With ``w_i = 1/sqrt(n_atoms_i)`` it is seed 004's "scaled energy error";
    equivalently ``mae(per_sqrt_atom(ref, n), per_sqrt_atom(pred, n))``.
    """
    r, p, w, ok = _pair(ref, pred, nan_policy, weights)
    if not ok:
        return float("nan")
    a = np.abs(r - p)
    if w is not None:
        a = a * w
    return float(a.mean())


def rmse(ref, pred, weights=None, *, nan_policy: NanPolicy = "propagate") -> float:
    r"""Root-mean-square error, weighted as seed 004 writes it.

    ``RMSE = sqrt((1/N) sum_i r_i^2 w_i^2)``: the weights are applied to the residuals *before*
    squaring, so they enter **squared**, and the sum is divided by N, not by ``sum_i w_i`` (nor
    ``sum_i w_i^2``). It is therefore not the usual "weighted RMSE"
    ``sqrt(sum w r^2 / sum w)``. With ``w_i = 1/sqrt(n_atoms_i)`` it equals
    ``rmse(per_sqrt_atom(ref, n), per_sqrt_atom(pred, n))``.
    """
    r, p, w, ok = _pair(ref, pred, nan_policy, weights)
    if not ok:
        return float("nan")
    d = r - p
    if w is not None:
        d = d * w
    return rms(d)


def max_abs_error(ref, pred, *, nan_policy: NanPolicy = "propagate") -> float:
    """Largest absolute error: ``max_i |ref_i - pred_i|``."""
    r, p, _, ok = _pair(ref, pred, nan_policy)
    if not ok:
        return float("nan")
    return float(np.max(np.abs(r - p)))


def _ape(r: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Absolute percentage errors ``100 |r - p| / |r|``; ``0`` when ``r == p`` (also 0/0),
    ``inf`` when ``r == 0 != p``."""
    d = np.abs(r - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 100.0 * d / np.abs(r)
    out[d == 0] = 0.0
    return out


def mape(ref, pred, *, nan_policy: NanPolicy = "propagate") -> float:
    r"""Mean absolute percentage error, in **percent**.

    ``MAPE = (100/N) sum_i |ref_i - pred_i| / |ref_i|``.

    A sample with ``ref_i = 0`` contributes 0 when ``pred_i = 0`` and ``+inf`` otherwise (the
    MAPE "explodes" near zero; see :func:`mape_top_quantile` for the LIPS variants that avoid it).
    """
    r, p, _, ok = _pair(ref, pred, nan_policy)
    if not ok:
        return float("nan")
    return float(_ape(r, p).mean())


def r2(ref, pred, *, nan_policy: NanPolicy = "propagate") -> float:
    r"""Coefficient of determination.

    ``R2 = 1 - sum_i (ref_i - pred_i)^2 / sum_i (ref_i - mean(ref))^2``.

    NaN when the reference is constant (the denominator is 0: R2 is undefined), including N = 1.
    """
    r, p, _, ok = _pair(ref, pred, nan_policy)
    if not ok:
        return float("nan")
    ss_res = float(np.sum((r - p) ** 2))
    ss_tot = float(np.sum((r - r.mean()) ** 2))
    if ss_tot == 0.0:
        return float("nan")
    return 1.0 - ss_res / ss_tot


def _n_atoms(values, n_atoms):
    v = _as_float(values, "values")
    n = _as_float(n_atoms, "n_atoms")
    if v.ndim == 0 or v.shape[0] == 0:
        raise ValueError("values: empty input (no samples)")
    if n.shape != (v.shape[0],):
        raise ValueError(f"shape mismatch: n_atoms has shape {n.shape}, expected ({v.shape[0]},)")
    if not np.isfinite(n).all() or (n <= 0).any():
        raise ValueError("n_atoms: every atom count must be a finite number > 0")
    if v.ndim > 1:
        n = n.reshape((-1,) + (1,) * (v.ndim - 1))
    return v, n


def per_atom(values, n_atoms) -> np.ndarray:
    """Per-atom values: ``values_i / N_i`` (N_i atoms in structure i). NaN stays NaN."""
    v, n = _n_atoms(values, n_atoms)
    return v / n


def per_sqrt_atom(values, n_atoms) -> np.ndarray:
    """Values scaled as seed 004 does for energies: ``values_i / sqrt(N_i)``. NaN stays NaN.

    Seed 004 calls the result "eV/atom", but dividing a per-cell error by sqrt(N) (the growth of
    a sum of N independent per-atom errors) is not the same as dividing by N (:func:`per_atom`).
    """
    v, n = _n_atoms(values, n_atoms)
    return v / np.sqrt(n)


# --------------------------------------------------------------------------------------------
# vector metrics (seed 004)
# --------------------------------------------------------------------------------------------


def _check_mode(mode: str) -> None:
    if mode not in _VECTOR_MODES:
        raise ValueError(f"mode: expected one of {_VECTOR_MODES}, got {mode!r}")


def vector_mae(
    ref, pred, mode: VectorMode = "magnitude", *, nan_policy: NanPolicy = "propagate"
) -> float:
    r"""MAE of vector residuals ``r_i = ref_i - pred_i`` (arrays of shape N x d, d = 3 for forces).

    - ``mode="magnitude"``: ``(1/N) sum_i ||r_i||_2`` (MAE of the residual lengths; invariant
      under rotations of the vectors).
    - ``mode="component"``: ``(1/(dN)) sum_i sum_k |r_ik|`` = MAE of the flattened residuals =
      ``(1/N) sum_i ||r_i||_1 / d`` (changes under rotations).

    A sample with any non-finite component counts as one missing sample.
    """
    _check_mode(mode)
    r, p, _, ok = _pair(ref, pred, nan_policy, ndim=2)
    if not ok:
        return float("nan")
    d = r - p
    if mode == "magnitude":
        return float(row_norms(d).mean())
    return float(np.abs(d).mean())


def vector_rmse(
    ref, pred, mode: VectorMode = "magnitude", *, nan_policy: NanPolicy = "propagate"
) -> float:
    r"""RMSE of vector residuals ``r_i = ref_i - pred_i`` (arrays of shape N x d).

    - ``mode="magnitude"``: ``sqrt((1/N) sum_i ||r_i||_2^2)``;
    - ``mode="component"``: ``sqrt((1/(dN)) sum_i sum_k r_ik^2)`` = magnitude RMSE / sqrt(d).

    Both are rotation invariant. Residuals up to about 1e300 give finite values (scaled sums,
    see :mod:`ml_peg_like.norms`).
    """
    _check_mode(mode)
    r, p, _, ok = _pair(ref, pred, nan_policy, ndim=2)
    if not ok:
        return float("nan")
    d = r - p
    ms = np.einsum("ij,ij->", d, d) / d.shape[0]
    if mode == "component":
        ms = ms / d.shape[1]
    out = float(np.sqrt(ms))
    if 0.0 < out < np.inf or not d.any():
        return out
    # a square overflowed (or underflowed): the same value from scaled sums
    return rms(d.reshape(-1)) if mode == "component" else rms(row_norms(d))


# --------------------------------------------------------------------------------------------
# LIPS (seed 000)
# --------------------------------------------------------------------------------------------


def _check_quantile(quantile) -> float:
    try:
        q = float(quantile)
    except (TypeError, ValueError):
        raise ValueError(f"quantile: expected a number in (0, 1), got {quantile!r}") from None
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile: expected a number in (0, 1), got {quantile!r}")
    return q


def top_quantile_count(n, quantile: float):
    """How many samples :func:`mape_top_quantile` keeps out of ``n``: ``max(floor((1-q) n), 1)``.

    ``n`` may be an integer array (one count per group). ``(1 - q) n`` is rounded to 9 decimals
    before the floor so that e.g. ``(1 - 0.9) * 10`` gives 1, not 0.
    """
    q = _check_quantile(quantile)
    k = np.floor(np.round((1.0 - q) * np.asarray(n, dtype=float), 9)).astype(np.int64)
    return np.maximum(k, 1)


def mape_top_quantile(ref, pred, quantile: float, *, nan_policy: NanPolicy = "propagate") -> float:
    r"""MAPE (percent) over the samples with the largest ``|ref|``: the LIPS MAPE90 / MAPE10.

    Seed 000 writes "MAPE90: the MAPE computed on %10 highest quantile" and "MAPE10: ... on %90
    highest quantile": the number in the name is the *percentile* above which samples are kept.
    So, with ``quantile`` = q (0 < q < 1):

    - ``quantile=0.9`` is **MAPE90**: the MAPE over the top 10 % of samples by ``|ref|`` (at or
      above the 90th percentile; LIPS uses it for currents);
    - ``quantile=0.1`` is **MAPE10**: the MAPE over the top 90 % of samples by ``|ref|`` (at or
      above the 10th percentile), which drops the near-zero references that make the plain MAPE
      explode (LIPS uses it for powers).

    Selection rule (deterministic): ``k = max(floor((1 - q) N), 1)`` (:func:`top_quantile_count`),
    ``t`` = the k-th largest ``|ref_i|``, and the kept set is ``{i : |ref_i| >= t}`` (ties with
    the k-th value are all kept, so it can hold more than k samples). Then
    ``MAPE_q = (100/|kept|) sum_{i in kept} |ref_i - pred_i| / |ref_i|``, with the same zero
    rules as :func:`mape`. LIPS's reference implementation (leap_net ``mape_quantile``) keeps
    exactly k samples (``argpartition``, ties broken arbitrarily), takes its ``quantile`` argument
    as the *kept fraction* (its MAPE_90 passes 0.1) and, as a side effect of reusing that number
    as a threshold, also ignores samples with ``|ref| <=`` that fraction; neither quirk is copied.
    """
    q = _check_quantile(quantile)
    r, p, _, ok = _pair(ref, pred, nan_policy)
    if not ok:
        return float("nan")
    a = np.abs(r)
    k = int(top_quantile_count(a.size, q))
    t = np.partition(a, a.size - k)[a.size - k]
    keep = a >= t
    return float(_ape(r[keep], p[keep]).mean())


def _one_array(values, name: str, nan_policy: str):
    v = _as_float(values, name)
    _check_1d(v, name)
    (v,), ok = _apply_policy(nan_policy, [v], [name])
    return v, ok


def share_negative(pred, *, nan_policy: NanPolicy = "propagate") -> float:
    r"""Proportion of negative predictions: ``(1/L) sum_l 1(pred_l < 0)`` (LIPS P1-P3).

    P1 (currents), P2 (voltages) and P3 (losses: pass ``p_ex + p_or`` per line) of seed 000.
    """
    v, ok = _one_array(pred, "pred", nan_policy)
    if not ok:
        return float("nan")
    return float(np.mean(v < 0))


def share_nonzero(pred, tol: float = 0.0, *, nan_policy: NanPolicy = "propagate") -> float:
    r"""Proportion of non-null predictions where zero is required: ``(1/L) sum_l 1(|pred_l| > tol)``.

    LIPS P4 (disconnected lines): pass only the values that must be zero (e.g.
    ``|a_ex| + |a_or|`` of the disconnected lines). ``tol = 0`` is the seed's strict "> 0".
    """
    tol = float(tol)
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol: expected a finite number >= 0, got {tol!r}")
    v, ok = _one_array(pred, "pred", nan_policy)
    if not ok:
        return float("nan")
    return float(np.mean(np.abs(v) > tol))


# --------------------------------------------------------------------------------------------
# UAI (seed 002)
# --------------------------------------------------------------------------------------------


def log_partition_error(log_z_true, log_z_pred, *, nan_policy: NanPolicy = "propagate"):
    r"""Partition-function error ``|log(Z* / Z_hat)| = |log Z* - log Z_hat|`` (UAI PR task).

    Takes the *logarithms* (any base; the error is in the same base), so a huge Z such as
    ``log Z = 1e5`` never overflows. Scalars give a float; arrays (one value per problem
    instance) give the element-wise errors, NaN where an input is missing (``"omit"`` drops them).
    """
    return _elementwise(log_z_true, log_z_pred, ("log_z_true", "log_z_pred"), nan_policy, _abs_diff)


def _abs_diff(a: np.ndarray, b: np.ndarray):
    return np.abs(a - b)


def _diff(a: np.ndarray, b: np.ndarray):
    return a - b


def _elementwise(a, b, names: tuple[str, str], nan_policy: NanPolicy, fn):
    """``fn(a, b)`` on two scalars (a float) or two 1-D arrays (NaN where either is missing;
    ``"omit"`` drops those samples, ``"raise"`` refuses them)."""
    x = _as_float(a, names[0])
    y = _as_float(b, names[1])
    _check_same_shape(x, y, *names)
    if x.ndim == 0:
        _check_policy(nan_policy)
        if not (np.isfinite(x) and np.isfinite(y)):
            if nan_policy == "raise":
                raise ValueError(f"{names[0]}/{names[1]}: missing (NaN or infinite) value")
            return float("nan")
        return float(fn(x, y))
    _check_1d(x, names[0])
    if nan_policy == "omit":
        (x, y), _ = _apply_policy(nan_policy, [x, y], list(names))
    else:
        _apply_policy(nan_policy, [x, y], list(names))
        x = np.where(finite_mask(x, y), x, np.nan)
    return fn(x, y)


def mpe_error(loglik_best, loglik, *, nan_policy: NanPolicy = "propagate"):
    r"""MPE/MAP error ``log(L_best / L) = log L_best - log L`` (UAI MAP, MMAP and MLC tasks).

    Takes log-likelihoods (any base; the error is in the same base). It is >= 0 when
    ``L_best`` is the best known solution; a negative value means the evaluated assignment beats
    the recorded best (it is returned as is, not clipped). Scalars give a float, arrays the
    element-wise errors (NaN where missing; ``"omit"`` drops them).
    """
    return _elementwise(loglik_best, loglik, ("loglik_best", "loglik"), nan_policy, _diff)


def _distributions(p, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Flatten a (variables x states) array or a list of 1-D arrays: (values, starts)."""
    if isinstance(p, np.ndarray) and p.dtype != object:
        arr = np.asarray(p, dtype=float)
        if arr.ndim != 2:
            raise ValueError(f"{name}: expected a 2-D array (variables x states), got {arr.shape}")
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ValueError(f"{name}: empty input (no variables or no states)")
        starts = np.arange(arr.shape[0], dtype=np.int64) * arr.shape[1]
        return arr.reshape(-1), starts
    if not isinstance(p, Sequence) and not isinstance(p, np.ndarray):
        raise ValueError(f"{name}: expected a 2-D array or a list of 1-D arrays")
    parts = [_as_float(x, f"{name}[{i}]") for i, x in enumerate(p)]
    if not parts:
        raise ValueError(f"{name}: empty input (no variables)")
    for i, x in enumerate(parts):
        if x.ndim != 1 or x.size == 0:
            raise ValueError(f"{name}[{i}]: expected a non-empty 1-D array, got shape {x.shape}")
    lengths = np.fromiter((x.size for x in parts), dtype=np.int64, count=len(parts))
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.concatenate(parts), starts


def mean_hellinger(p_true, p_pred, *, nan_policy: NanPolicy = "propagate") -> float:
    r"""Average Hellinger distance over variables (UAI MAR task).

    ``HErr = (1/N) sum_i H(P*_i, P^_i)`` with
    ``H(P, Q) = (1/sqrt 2) ||sqrt P - sqrt Q||_2 = sqrt((1/2) sum_s (sqrt p_s - sqrt q_s)^2)``,
    which is 0 for identical and 1 for disjoint (normalised) distributions.

    ``p_true``/``p_pred`` are either 2-D arrays (variables x states) or lists of 1-D arrays (one
    per variable, lengths may differ; the two lists must match length by length). The lists are
    concatenated and summed per variable with ``np.add.reduceat`` (no loop per variable).
    Probabilities must be >= 0; they are not renormalised. A variable with any missing
    probability is one missing sample for ``nan_policy``.
    """
    _check_policy(nan_policy)
    t, starts_t = _distributions(p_true, "p_true")
    q, starts_q = _distributions(p_pred, "p_pred")
    if t.shape != q.shape or not np.array_equal(starts_t, starts_q):
        raise ValueError(
            "shape mismatch: p_true and p_pred must have the same number of variables and the "
            f"same number of states per variable ({t.size} vs {q.size} probabilities, "
            f"{starts_t.size} vs {starts_q.size} variables)"
        )
    finite = np.isfinite(t) & np.isfinite(q)
    if ((t < 0) & finite).any() or ((q < 0) & finite).any():
        raise ValueError("p_true/p_pred: probabilities must be >= 0")
    d = np.sqrt(np.where(finite, t, 0.0)) - np.sqrt(np.where(finite, q, 0.0))
    sq = np.add.reduceat(d * d, starts_t)
    ok_var = np.add.reduceat((~finite).astype(np.int64), starts_t) == 0
    (h, ok_var), ok = _apply_policy_var(nan_policy, np.sqrt(0.5 * sq), ok_var)
    if not ok:
        return float("nan")
    return float(h.mean())


def _apply_policy_var(nan_policy: str, h: np.ndarray, ok_var: np.ndarray):
    if ok_var.all():
        return (h, ok_var), True
    n_bad = int((~ok_var).sum())
    if nan_policy == "raise":
        raise ValueError(
            f"{n_bad} of {ok_var.size} variables have a missing (NaN or infinite) probability; "
            "pass nan_policy='omit' to leave them out"
        )
    if nan_policy == "propagate":
        return (h, ok_var), False
    return (h[ok_var], ok_var[ok_var]), bool(ok_var.any())
