"""Root mean squares and vector lengths that stay finite for values up to about 1e300.

The plain formulas (``sqrt(mean(x**2))``, ``sqrt(sum_k d_k**2)``) overflow when a square does
(``|x|`` above about 1e154) and underflow to 0 below about 1e-154. These functions use the plain
formula first, keep its result bit for bit when it is finite and not 0, and otherwise redo the
sum on the values scaled by a power of two (an exact scaling) before scaling the result back.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rms", "row_norms", "scaled_norms"]


def rms(x: np.ndarray) -> float:
    """Root mean square ``sqrt(mean(x**2))`` of finite values, finite whenever ``max|x|`` is.

    The plain formula is used first (its result is kept bit for bit); when ``x**2`` overflows
    (``|x|`` above about 1e154) or underflows to 0, ``x`` is scaled by the power of two ``2**-e``
    with ``2**(e-1) <= max|x| < 2**e`` (an exact scaling), and the result scaled back.
    """
    with np.errstate(over="ignore", under="ignore"):
        out = float(np.sqrt(np.mean(x * x)))
    if 0.0 < out < np.inf:
        return out
    s = float(np.max(np.abs(x)))
    if s == 0.0 or not np.isfinite(s):
        return out
    e = int(np.frexp(s)[1])
    y = np.ldexp(x, -e)
    return float(np.ldexp(np.sqrt(np.mean(y * y)), e))


def row_norms(d: np.ndarray) -> np.ndarray:
    """Euclidean length of each row of ``d`` (N x k), finite whenever the components are.

    ``sqrt(sum_k d_ik**2)``; the rows where a square overflows (or underflows to 0) are
    recomputed on the row scaled by a power of two, as in :func:`rms`.
    """
    with np.errstate(over="ignore", under="ignore"):
        out = np.sqrt(np.einsum("ij,ij->i", d, d))
    bad = ~np.isfinite(out) | ((out == 0) & (d != 0).any(axis=1))
    if bad.any():
        out[bad] = scaled_norms(d[bad])
    return out


def scaled_norms(d: np.ndarray) -> np.ndarray:
    """``sqrt(sum_k d_ik**2)`` per row computed on ``d_i * 2**-e_i`` (``e_i`` the exponent of
    ``max_k |d_ik|``), then scaled back: no overflow for finite components."""
    e = np.frexp(np.abs(d).max(axis=1))[1]
    y = np.ldexp(d, -e[:, None])
    return np.ldexp(np.sqrt(np.einsum("ij,ij->i", y, y)), e)
