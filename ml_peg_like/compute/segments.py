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
