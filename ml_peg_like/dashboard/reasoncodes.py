"""The levels' reason codes of a state (why a benchmark, category or overall score is missing),
kept between edits: they follow from which scores are missing, not from their values (no Dash)."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from .. import aggregation as agg
from ..scoring import Scores

#: the levels' reason codes kept (``level_reasons``) for the last few NaN patterns
REASONS_CACHE = 4
_reasons_kept: OrderedDict[bytes, tuple] = OrderedDict()
_reasons_lock = threading.Lock()


def _reasons_key(scores: Scores) -> bytes:
    """What the levels' reason codes depend on: which scores are missing at each level, the
    weights and the groups (an edit of a threshold changes none of them, mostly)."""
    plan = scores.plan
    h = hashlib.blake2b(digest_size=20)
    for a in (scores.metric_scores, scores.bench_scores, scores.cat_scores, scores.overall_scores):
        miss = np.isnan(a)
        h.update(repr(miss.shape).encode())
        h.update(np.packbits(miss, axis=None).tobytes())
    for a in (plan.w_metric, plan.w_bench, plan.w_cat, plan.metric_starts, plan.bench_starts):
        arr = np.ascontiguousarray(a)
        h.update(repr((arr.dtype.str, arr.shape)).encode())
        h.update(arr.tobytes())
    return h.digest()


def level_reasons(scores: Scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(benchmark, category, overall ``(models, 1)``) reason codes (``agg.reasons``) of every
    model, kept for the last :data:`REASONS_CACHE` patterns of missing scores and weights
    (read-only arrays): they follow from which scores are missing, not from their values, so
    an edit that leaves every missing score missing (a threshold moved) reuses them."""
    key = _reasons_key(scores)
    with _reasons_lock:
        hit = _reasons_kept.get(key)
        if hit is not None:
            _reasons_kept.move_to_end(key)
            return hit
    plan = scores.plan
    # a metric's code is never INVALIDATED (agg.metric_reasons), so the benchmarks' codes need
    # none of them: the metric codes are made for the benchmark view's columns only
    bcodes = agg.reasons(
        scores.metric_scores, plan.w_metric, plan.metric_starts, scores.bench_scores
    )
    ccodes = agg.reasons(
        scores.bench_scores, plan.w_bench, plan.bench_starts, scores.cat_scores, bcodes
    )
    ocodes = agg.reasons(
        scores.cat_scores,
        plan.w_cat,
        np.zeros(1, dtype=np.intp),
        scores.overall_scores[:, None],
        ccodes,
    )
    for a in (bcodes, ccodes, ocodes):
        a.setflags(write=False)
    out = (bcodes, ccodes, ocodes)
    with _reasons_lock:
        _reasons_kept[key] = out
        while len(_reasons_kept) > REASONS_CACHE:
            _reasons_kept.popitem(last=False)
    return out
