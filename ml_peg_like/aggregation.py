"""The missing-data policy and the weighted mean that every level of scoring uses.

This module is the one place that knows the policies (``invalidate``: a missing child with a
positive weight makes its parent missing, ML-PEG's rule; ``skip``: the parent is the weighted mean
of the children present, with a coverage figure). Scoring, the robustness analysis and the
dashboard's "why is this missing" call it; nothing else compares policy names.

Children are the last axis of an array, split into contiguous groups by ``starts`` (the first
child of each group, non-decreasing; a group may be empty, also in last position). Scores are
``(models, children)`` or batched ``(samples, models, children)``; weights are ``(children,)``
or one vector per sample ``(samples, children)``. The rules, for each group:

* a child with weight 0 never matters, even when missing;
* a group with no positive weight (all weights 0, or no children at all) is missing (the scoring
  first gives an excluded group, one of weight 0 itself, equal weights: :func:`shown_weights`);
* ``invalidate``: sum(w s) / sum(w), missing when a child with w > 0 is missing;
* ``skip``: sum over the present children of w s / sum of their w, missing when none is present;
* coverage = the fraction of the group's weight actually used: sum(w * child coverage) / sum(w),
  a missing child counting 0, and 0 for a missing group (an ``invalidate`` group that lost a
  child is not used by its parent, so none of its weight is present).

Reason codes (uint8, :data:`REASON_TEXT`) say why a score is missing.
"""

from __future__ import annotations

import numpy as np

INVALIDATE = "invalidate"
SKIP = "skip"
#: the missing-data policies, the default first
POLICIES = (INVALIDATE, SKIP)
DEFAULT_POLICY = INVALIDATE

#: why a score is missing (uint8 codes; 0 = the score is present)
PRESENT, NO_DATA, NO_THRESHOLD, EXCLUDED, INVALIDATED = range(5)
REASON_TEXT = {
    NO_DATA: "no data",
    NO_THRESHOLD: "no threshold: the model it refers to has no value",
    EXCLUDED: "excluded: every weight below is 0",
    INVALIDATED: "invalidated: a part of it is missing (policy 'invalidate')",
}

#: the state of a group for one model (see :func:`group_state`)
FULL, PARTIAL, NONE_PRESENT = range(3)


def is_skip(policy: str) -> bool:
    """True for the policy that averages over the children present."""
    return policy == SKIP


def group_sum(a: np.ndarray, starts: np.ndarray, n: int | None = None) -> np.ndarray:
    """Sums of contiguous groups over the last axis; an empty group sums to 0.

    ``np.add.reduceat`` gives an empty group its neighbour's element (and raises IndexError
    for an empty group at the end): only the non-empty groups are reduced here.
    """
    a = np.asarray(a)
    starts = np.asarray(starts, dtype=np.intp)
    n = a.shape[-1] if n is None else n
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    if starts.size:
        ends[-1] = n
    full = ends > starts
    if starts.size and full.all():
        return np.add.reduceat(a, starts, axis=-1)
    out = np.zeros(a.shape[:-1] + (starts.size,), dtype=np.result_type(a.dtype, float))
    if full.any():
        out[..., full] = np.add.reduceat(a, starts[full], axis=-1)
    return out


def group_count(mask: np.ndarray, starts: np.ndarray, n: int | None = None) -> np.ndarray:
    """How many entries of each contiguous group of the last axis are True (int64): equal to
    ``group_sum(mask.astype(np.int64), starts, n)``, counted from the True or the False
    entries, whichever are fewer (a table's missing cells are few: 10,000 x 339 counts in a
    few ms where the sums of its 3.4 M cells took ~14)."""
    mask = np.asarray(mask, dtype=bool)
    starts = np.asarray(starts, dtype=np.intp)
    n = mask.shape[-1] if n is None else n
    groups = starts.size
    sizes = np.diff(np.append(starts, n))
    if mask.ndim != 2 or groups == 0 or mask.size == 0:
        return group_sum(mask.astype(np.int64), starts, n).astype(np.int64)
    rows = mask.shape[0]
    true = int(np.count_nonzero(mask))
    few = mask if 2 * true <= mask.size else ~mask
    at = np.flatnonzero(few)  # (2-D nonzero is several times slower)
    owner = np.full(n, -1, dtype=np.intp)  # children before the first group count nowhere
    owner[starts[0] :] = np.repeat(np.arange(groups), sizes)
    grp = owner[at % n]
    cell = ((at // n) * groups + grp)[grp >= 0]
    counts = np.bincount(cell, minlength=rows * groups).reshape(rows, groups)
    counts = counts.astype(np.int64, copy=False)
    return counts if few is mask else sizes[None, :].astype(np.int64) - counts


def _batched_weights(weights: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Weights as (n,) for shared weights, or (R, 1, n) to broadcast over the models."""
    w = np.asarray(weights, dtype=float)
    return w if w.ndim == 1 else w[:, None, :]


def weighted_mean(
    scores: np.ndarray,
    weights: np.ndarray,
    starts: np.ndarray,
    skip,
    coverage: np.ndarray | None = None,
    need_coverage: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted means of contiguous groups of children, with the policy of each group.

    ``scores``: (M, n) or (R, M, n), NaN = missing. ``weights``: (n,) or (R, n) (with (M, n)
    scores shared by every weight vector, the result is (R, M, groups)). ``skip``: bool per
    group (or one bool). ``coverage``: the children's coverage (None: 1 when present, else 0).
    Returns ``(means, coverage)``; with ``need_coverage=False`` (every policy ``invalidate``)
    the coverage is 1 where the mean is present, else 0.
    """
    scores = np.asarray(scores, dtype=float)
    starts = np.asarray(starts, dtype=np.intp)
    n = scores.shape[-1]
    skip = np.broadcast_to(np.asarray(skip, dtype=bool), starts.shape)
    w = _batched_weights(weights, scores)
    w_total = group_sum(np.asarray(weights, dtype=float), starts, n)
    if w.ndim == 3:
        w_total = w_total[:, None, :]
    sw = _weighted_scores(scores, w)
    missing = np.isnan(sw)
    out = cov = None
    with np.errstate(divide="ignore", invalid="ignore"):
        if not skip.all() or not skip.size:  # (no group at all: an empty result)
            out = group_sum(sw, starts, n) / w_total  # NaN iff a w > 0 child is missing
        if skip.any() or need_coverage:
            out, cov = _over_present(
                sw, missing, w, w_total, starts, skip, out, coverage, need_coverage
            )
    return _empty_groups(out, cov, w_total)


def _weighted_scores(scores: np.ndarray, w: np.ndarray) -> np.ndarray:
    """score x weight per child, NaN where a child is missing, 0 for a weight-0 child (it never
    matters, even when missing)."""
    sw = scores * w
    zero = w == 0
    if zero.any():
        if w.ndim == 1:
            sw[..., zero] = 0.0
        else:
            np.copyto(sw, 0.0, where=zero)
    return sw


def _over_present(sw, missing, w, w_total, starts, skip, out, coverage, need_coverage):
    """The means over the present children (groups under ``skip``) and the coverage: the share
    of a group's weight that is present (or, with the children's ``coverage``, their
    weighted coverage). ``sw`` is overwritten."""
    n = sw.shape[-1]
    cov = None
    np.copyto(sw, 0.0, where=missing)
    num = group_sum(sw, starts, n)
    pw = (~missing) * w
    w_present = group_sum(pw, starts, n)
    if skip.any():
        skipped = num / w_present
        skipped[w_present == 0] = np.nan
        out = skipped if out is None else np.where(skip, skipped, out)
    if need_coverage:
        if coverage is None:
            cov = w_present / w_total
        else:
            cw = np.asarray(coverage, dtype=float) * w
            np.copyto(cw, 0.0, where=np.isnan(cw))
            cov = group_sum(cw, starts, n) / w_total
    return out, cov


def _empty_groups(out: np.ndarray, cov: np.ndarray | None, w_total: np.ndarray):
    """A group without weight has no mean and no coverage; a missing group covers nothing."""
    empty = np.broadcast_to(w_total == 0, out.shape)
    if empty.any():
        out[empty] = np.nan
    if cov is None:
        cov = (~np.isnan(out)).astype(float)
    else:
        # a missing group uses none of its weight (an invalidated group is not used above it)
        cov[np.isnan(out) & ~empty] = 0.0
        cov[empty] = np.nan
    return out, cov


def shown_weights(weights: np.ndarray, starts: np.ndarray, group_weights: np.ndarray) -> np.ndarray:
    """The children's weights with which a group is scored for its own sake.

    A group whose own weight is 0 (its parent ignores it) and whose children all have weight 0
    would have no score at all; it is scored with equal weights instead, so that an excluded
    part still shows what it scores (greyed in the dashboard). Every other group keeps its
    weights: its parent's score is unchanged.
    """
    w = np.asarray(weights, dtype=float)
    n = w.shape[-1]
    starts = np.asarray(starts, dtype=np.intp)
    empty = (group_sum(w, starts, n) == 0) & (np.asarray(group_weights, dtype=float) == 0)
    if not empty.any():
        return w
    counts = np.diff(np.r_[starts, n])
    owner = np.repeat(np.arange(starts.size), counts)
    out = w.copy()
    out[empty[owner]] = 1.0
    return out


def group_state(scores: np.ndarray, weights: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per (model, group): FULL (every positive-weight child present), PARTIAL or NONE_PRESENT.

    A group with no positive weight is NONE_PRESENT. Under ``invalidate`` only FULL groups have
    a score; under ``skip`` FULL and PARTIAL ones (PARTIAL: the present weight is the
    denominator).
    """
    scores = np.asarray(scores, dtype=float)
    pos = np.asarray(weights) > 0
    present = ~np.isnan(scores) & pos
    n = scores.shape[-1]
    n_pos = group_sum(pos.astype(np.int64), starts, n)
    n_present = group_sum(present.astype(np.int64), starts, n)
    state = np.full(n_present.shape, PARTIAL, dtype=np.uint8)
    state[n_present == n_pos] = FULL
    state[n_present == 0] = NONE_PRESENT
    return state


def metric_reasons(raw: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Why each metric score (models x metrics) is missing: uint8 codes, PRESENT where it is not.

    NO_DATA: the model has no raw value; NO_THRESHOLD: it has one, but the metric cannot be
    normalised (a threshold names a model that has no value).
    """
    miss = np.isnan(np.asarray(scores, dtype=float))
    codes = np.where(miss, NO_THRESHOLD, PRESENT).astype(np.uint8)
    codes[miss & np.isnan(np.asarray(raw, dtype=float))] = NO_DATA
    return codes


def reasons(
    child_scores: np.ndarray,
    weights: np.ndarray,
    starts: np.ndarray,
    parent: np.ndarray,
    child_codes: np.ndarray | None = None,
) -> np.ndarray:
    """Why each parent score (models x groups) is missing: uint8 codes, PRESENT where it is not.

    NO_DATA: no positive-weight child has data (and none was itself invalidated, per
    ``child_codes``); EXCLUDED: every weight of the group is 0; INVALIDATED: a missing child
    made it missing (policy ``invalidate``).
    """
    child_scores = np.asarray(child_scores, dtype=float)
    weights = np.asarray(weights, dtype=float)
    n = child_scores.shape[-1]
    w = weights > 0
    n_present = group_count(~np.isnan(child_scores) & w, starts, n)
    w_total = group_sum(weights, starts, n)
    miss = np.isnan(parent)
    codes = np.where(miss, INVALIDATED, PRESENT).astype(np.uint8)
    no_data = n_present == 0
    if child_codes is not None:
        inval = (np.asarray(child_codes) == INVALIDATED) & w
        no_data &= group_count(inval, starts, n) == 0
    codes[miss & no_data] = NO_DATA
    zero = w_total == 0
    codes[:, zero] = np.where(miss[:, zero], EXCLUDED, PRESENT)
    return codes
