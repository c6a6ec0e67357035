"""Segment primitives: reductions of a value per row to one value per segment id.

A *segment* is a group of rows with the same integer id (a (model, benchmark) pair, or a
(model, benchmark, instance) triple for per-instance metrics). Everything here works on all the
segments at once (``np.bincount``, or a sort and ``np.ufunc.reduceat``), never with a Python loop.
"""

from __future__ import annotations

import numpy as np

#: a table indexed by key (bincount) is used when it has at most max(DENSE_FACTOR * rows,
#: DENSE_MIN) entries; larger key spaces are sorted instead (np.unique)
DENSE_FACTOR = 4
DENSE_MIN = 1 << 20


def dense_ok(size: int, n_rows: int) -> bool:
    return size <= max(DENSE_FACTOR * n_rows, DENSE_MIN)


def compress(key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids of integer keys in [0, size): ``(ids, uniques)`` with ``uniques`` sorted.

    Uses a bincount table when ``size`` is small enough, a hash table otherwise.
    """
    if dense_ok(size, key.size):
        present = np.bincount(key, minlength=size) > 0
        remap = np.cumsum(present) - 1
        return remap[key], np.flatnonzero(present)
    uniques, ids = np.unique(key, return_inverse=True)
    return ids.reshape(-1), uniques


def seg_mean(g: np.ndarray, x: np.ndarray | None, n: int, cnt=None) -> np.ndarray:
    """Mean of ``x`` per segment (NaN for an empty segment); ``cnt`` = rows per segment."""
    if cnt is None:
        cnt = np.bincount(g, minlength=n)
    s = np.bincount(g, weights=x, minlength=n) if x is not None else cnt
    with np.errstate(divide="ignore", invalid="ignore"):
        return s / cnt


def seg_order(g: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stable order by segment; (order, starts of non-empty segments, their ids)."""
    small = g.astype(np.int16) if n < 2**15 else (g.astype(np.int32) if n < 2**31 else g)
    order = np.argsort(small, kind="stable")
    cnt = np.bincount(g, minlength=n)
    ids = np.flatnonzero(cnt)
    starts = np.concatenate(([0], np.cumsum(cnt)[:-1]))[ids]
    return order, starts, ids


def seg_rms(g: np.ndarray, x: np.ndarray, n: int, cnt=None) -> np.ndarray:
    """``sqrt(mean(x**2))`` per segment, finite whenever ``max|x|`` is (see :func:`fix_rms`)."""
    with np.errstate(over="ignore", under="ignore"):
        out = np.sqrt(seg_mean(g, x * x, n, cnt))
    return fix_rms(out, g, n, lambda sel: x[sel], cnt)


def fix_rms(out: np.ndarray, g: np.ndarray, n: int, values, cnt=None, factor: float = 1.0):
    """Redo the root mean squares ``out = sqrt(factor * mean(x**2))`` whose squares overflowed
    (inf) or underflowed (0), on ``x`` scaled by a power of two per segment (exact), in place.

    ``values(sel)`` gives ``x`` for the rows ``sel`` (only the rows of those segments are
    read); the other segments keep the value of the plain formula, bit for bit.
    """
    with np.errstate(invalid="ignore"):
        redo = np.isinf(out) | (out == 0)
    if not redo.any():
        return out
    sel = redo[g]
    if not sel.any():
        return out
    gs, xs = g[sel], np.abs(values(sel))
    top = np.zeros(n)
    np.maximum.at(top, gs, xs)
    fix = redo & (top > 0) & np.isfinite(top)
    e = np.frexp(top)[1]
    y = np.ldexp(xs, -e[gs])
    with np.errstate(under="ignore"):
        scaled = np.sqrt(factor * seg_mean(gs, y * y, n, cnt))
    out[fix] = np.ldexp(scaled[fix], e[fix])
    return out
