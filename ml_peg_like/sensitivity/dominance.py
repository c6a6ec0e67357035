"""Dominance: the models at least as good on every live metric and better on one.

A model ``j`` dominates ``i`` when, on every metric with a positive effective weight (metric,
benchmark and category weights all > 0), after normalisation, ``j`` is at least as good, strictly
better on one, and missing the same metrics; two metric scores within the ranking rule's
tolerance (``scoring.scores_tie``) count as equal. It then stays ahead of
``i`` under any weights.

:func:`dominance_of` computes it from scratch. :class:`DominanceMemo` gives the same answer for a
sequence of states (the dashboard's edits): a state whose live metric scores differ from the last
computed one in one metric only (an edit of that metric's threshold) is answered from the pairs
that dominate on every other metric, computed once per metric; a weight edit that keeps the live
metrics changes nothing. Exact either way: only where the pairs come from differs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from ..scoring import Scores, scores_tie

PAIR_BLOCK = 4_000_000  # pair x metric comparisons per block
DENSE_METRICS = 8  # metrics compared on a large group's model x model grid first
SMALL_GROUP = 64  # groups up to this many models: their pairs listed (see _at_least)
ROW_BLOCK = 512  # rows of a large group's grid compared at a time (~5 MB at 10,000 models)
MEMO_COLUMNS = 4  # DominanceMemo: "every metric but one" pair sets kept


def live_metrics(sc: Scores) -> np.ndarray:
    """Which metric columns have a positive effective weight."""
    plan = sc.plan
    bench_of = np.repeat(
        np.arange(len(plan.w_bench)), np.diff(np.append(plan.metric_starts, len(plan.w_metric)))
    )
    cat_of = np.repeat(
        np.arange(len(plan.w_cat)), np.diff(np.append(plan.bench_starts, len(plan.w_bench)))
    )
    return (plan.w_metric > 0) & (plan.w_bench[bench_of] > 0) & (plan.w_cat[cat_of[bench_of]] > 0)


def _at_least_as_good(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise: metric score ``a`` is at least as good as ``b`` (above, or tied by the
    ranking rule's tolerance)."""
    return (a >= b) | scores_tie(a, b)


def _better(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise: metric score ``a`` is strictly better than ``b`` (above and not tied)."""
    return (a > b) & ~scores_tie(a, b)


def _filled(ms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(scores with 0 for missing, missing mask)."""
    missing = np.isnan(ms)
    return np.where(missing, 0.0, ms), missing


def _groups(missing: np.ndarray) -> np.ndarray:
    """Models missing the same metrics share a group id."""
    if not len(missing):
        return np.zeros(0, dtype=np.intp)
    packed = np.packbits(missing, axis=1)
    return np.unique(packed, axis=0, return_inverse=True)[1].ravel()


def _by_group(group: np.ndarray):
    """The models sorted by group: (order, first position of each group, its size)."""
    order = np.argsort(group, kind="stable")
    g = group[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if len(g) else np.zeros(0, np.intp)
    return order, starts, np.diff(np.r_[starts, len(g)])


def _keep_at_least(filled: np.ndarray, ii: np.ndarray, jj: np.ndarray, start: int):
    """The pairs with ``jj`` at least as good as ``ii`` on every column from ``start`` on,
    compared a block of columns at a time (``PAIR_BLOCK`` comparisons per block)."""
    k = filled.shape[1]
    while start < k and len(ii):
        stop = min(k, start + max(1, PAIR_BLOCK // len(ii)))
        keep = _at_least_as_good(filled[jj, start:stop], filled[ii, start:stop]).all(axis=1)
        ii, jj = ii[keep], jj[keep]
        start = stop
    return ii, jj


def _at_least(filled: np.ndarray, group: np.ndarray):
    """(ii, jj): the pairs of one group (i != j) with ``j`` at least as good as ``i`` on every
    column, sorted by ``ii`` then ``jj``. Only models of one group can pair, so the pairs of a
    small group (at most ``SMALL_GROUP`` models; a board with missing values has mostly groups
    of one) are listed and compared column by column; a large group's models are compared on
    the first columns on their model x model grid, ``ROW_BLOCK`` rows at a time, then the
    surviving pairs on the rest: most pairs fail within the first few columns, so the cost is
    about the sum of the groups' sizes squared, not n^2 x columns."""
    n, k = filled.shape
    order, starts, sizes = _by_group(group)
    found_i, found_j = [], []
    small = (sizes >= 2) & (sizes <= SMALL_GROUP)
    for m in np.unique(sizes[small]).tolist():
        firsts = starts[small & (sizes == m)]
        a, b = np.nonzero(~np.eye(m, dtype=bool))  # every ordered pair of a group of m
        ii = order[(firsts[:, None] + a[None, :]).ravel()]
        jj = order[(firsts[:, None] + b[None, :]).ravel()]
        ii, jj = _keep_at_least(filled, ii, jj, 0)
        found_i.append(ii)
        found_j.append(jj)
    dense = min(k, DENSE_METRICS)
    big = sizes > SMALL_GROUP
    for first, m in zip(starts[big].tolist(), sizes[big].tolist(), strict=True):
        members = np.sort(order[first : first + m])
        cols = np.ascontiguousarray(filled[members, :dense].T)
        for r0 in range(0, m, ROW_BLOCK):
            r1 = min(m, r0 + ROW_BLOCK)
            pair = np.ones((r1 - r0, m), dtype=bool)
            for f in cols:
                pair &= _at_least_as_good(f[None, :], f[r0:r1, None])
            pair[np.arange(r1 - r0), np.arange(r0, r1)] = False
            bi, bj = np.nonzero(pair)
            ii, jj = _keep_at_least(filled, members[bi + r0], members[bj], dense)
            found_i.append(ii)
            found_j.append(jj)
    if not found_i:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty.copy()
    ii, jj = np.concatenate(found_i), np.concatenate(found_j)
    by = np.lexsort((jj, ii))
    return ii[by], jj[by]


def _strict(filled: np.ndarray, ii: np.ndarray, jj: np.ndarray) -> np.ndarray:
    """Per pair: ``jj`` strictly better than ``ii`` on some column."""
    k = filled.shape[1]
    out = np.zeros(len(ii), dtype=bool)
    step = max(1, PAIR_BLOCK // max(1, len(ii)))
    for start in range(0, k, step):
        out |= _better(filled[jj, start : start + step], filled[ii, start : start + step]).any(
            axis=1
        )
    return out


def _named(models, ii, jj) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {name: [] for name in models}
    for i, j in zip(ii.tolist(), jj.tolist(), strict=True):  # j ascending per i
        out[models[i]].append(models[j])
    return out


def dominance_of(sc: Scores) -> dict[str, list[str]]:
    """For each model of ``sc``, the models that dominate it (see the module's docstring)."""
    filled, missing = _filled(sc.metric_scores[:, live_metrics(sc)])
    ii, jj = _at_least(filled, _groups(missing))
    keep = _strict(filled, ii, jj)
    return _named(sc.models, ii[keep], jj[keep])


class DominanceMemo:
    """:func:`dominance_of` for a sequence of states of one board, reusing the last one.

    Holds the last state computed from scratch (its metric scores, bit for bit, and its live
    columns) and, per metric edited since, the pairs at least as good on every other live
    metric; the last answer is returned again (the same dict) while its pairs are the same.
    Thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        # (live mask, every metric score, filled, missing, group, result, live position)
        self._base = None
        self._except: OrderedDict[int, tuple] = OrderedDict()  # col -> (ii, jj, strict)
        self._last = None  # (models, ii, jj, result) of the last answer from the pairs

    def __call__(self, sc: Scores) -> dict[str, list[str]]:
        live = live_metrics(sc)
        ms = sc.metric_scores
        with self._lock:
            base = self._base
        if base is None or not np.array_equal(base[0], live) or base[1].shape != ms.shape:
            return self._fresh(sc, live)
        # bit-for-bit comparison of every score (no copy of the live columns: the compare of
        # the whole table is the cheaper): a NaN equals the same NaN; any other difference
        # in a live column counts
        changed = np.nonzero((base[1].view(np.int64) != ms.view(np.int64)).any(axis=0) & live)[0]
        if len(changed) == 0:
            return base[5]
        if len(changed) > 1:
            return self._fresh(sc, live)
        c = int(base[6][int(changed[0])])  # its position among the live columns
        col, col_missing = _filled(ms[:, int(changed[0])])
        _b_live, _b_ms, filled, missing, group, _res, _pos = base
        if not np.array_equal(col_missing, missing[:, c]):
            return self._fresh(sc, live)  # a model gained or lost that metric
        with self._lock:
            hit = self._except.get(c)
            if hit is not None:
                self._except.move_to_end(c)
        if hit is None:
            others = np.delete(filled, c, axis=1)
            ii, jj = _at_least(others, group)
            hit = (ii, jj, _strict(others, ii, jj))
            with self._lock:
                if self._base is base:
                    self._except[c] = hit
                    while len(self._except) > MEMO_COLUMNS:
                        self._except.popitem(last=False)
        ii, jj, strict = hit
        keep = _at_least_as_good(col[jj], col[ii])
        keep &= strict | _better(col[jj], col[ii])
        ii, jj = ii[keep], jj[keep]
        with self._lock:
            last = self._last
        if (
            last is not None
            and last[0] is sc.models
            and np.array_equal(last[1], ii)
            and np.array_equal(last[2], jj)
        ):
            return last[3]  # the same pairs: the same answer (10,000 models: ~2 ms of lists)
        result = _named(sc.models, ii, jj)
        with self._lock:
            self._last = (sc.models, ii, jj, result)
        return result

    def _fresh(self, sc: Scores, live: np.ndarray) -> dict[str, list[str]]:
        ms = sc.metric_scores if live.all() else sc.metric_scores[:, live]
        filled, missing = _filled(ms)
        group = _groups(missing)
        ii, jj = _at_least(filled, group)
        keep = _strict(filled, ii, jj)
        result = _named(sc.models, ii[keep], jj[keep])
        pos = np.cumsum(live) - 1  # a live column's position among the live ones
        with self._lock:
            self._base = (live, sc.metric_scores.copy(), filled, missing, group, result, pos)
            self._except.clear()
        return result
