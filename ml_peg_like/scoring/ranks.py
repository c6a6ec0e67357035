"""The ranking rule and the rank change: the ONE place every ranking of models comes from (the
score tables, the exports, the grid, leave one out, robustness, sensitivity, Kendall tau).

The rule:

* a model with no overall score (NaN) has no rank (NaN here; empty in the exports, "—" on the
  page) and is left out of every rank statistic;
* the scored models are sorted by score, highest first; two scores tie when
  ``|a - b| <= RANK_RTOL * max(|a|, |b|)`` (equal scores, zeros too, always tie); a model joins
  the tie group of the model above it only if it ties with that group's FIRST (highest) member,
  else it starts a new group (so ties are transitive: a chain of small steps does not merge);
* a group's rank is 1 + the number of scored models strictly above it (1, 2, 2, 4), and every
  member of a group of two or more is marked tied (shown "=2"); nothing breaks a tie.

A rank change means something only for a model ranked both before and after (it has an overall
score in both). Any other model gets a word instead of a number: ``"new"`` (no score before, a
score now) or ``"no score"`` (no score now, whatever it had before).
"""

from __future__ import annotations

import numpy as np

#: the relative tolerance within which two scores tie (float summation order moves the same
#: score by ~1e-16 relative; scores read from rounded tables differ by far more than 1e-9)
RANK_RTOL = 1e-9

#: the words shown instead of a number
NEW = "new"
NO_SCORE = "no score"


def scores_tie(a, b) -> np.ndarray:
    """Elementwise: scores ``a`` and ``b`` tie (``|a - b| <= RANK_RTOL * max(|a|, |b|)``, or
    equal); NaN ties nothing."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        return (a == b) | (np.abs(a - b) <= RANK_RTOL * np.maximum(np.abs(a), np.abs(b)))


def not_below(a, b) -> np.ndarray:
    """Elementwise: score ``a`` ranks at least as high as ``b`` in a pair (above or tied); NaN
    is below everything."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore"):
        return ~np.isnan(a) & ((a >= b) | np.isnan(b) | scores_tie(a, b))


def _group_starts(sv: np.ndarray) -> np.ndarray:
    """(rows, n) rows sorted highest first (NaN at the end): True where a tie group starts
    (every NaN starts its own). A position that ties its upper neighbour without being equal to
    it is checked against the first member of its group, in order along the row."""
    starts = np.ones(sv.shape, dtype=bool)
    if sv.shape[1] < 2:
        return starts
    above, here = sv[:, :-1], sv[:, 1:]
    near = scores_tie(above, here)
    starts[:, 1:] = ~near
    rows, cols = np.nonzero(near & (above != here))  # row-major: positions in order per row
    for r, j in zip(rows.tolist(), (cols + 1).tolist(), strict=True):
        first = int(np.flatnonzero(starts[r, :j])[-1])
        starts[r, j] = not scores_tie(sv[r, first], sv[r, j])
    return starts


def rank_rows(values, average: bool = False):
    """The rule applied to every row of ``values`` ((n,) or (rows, n); NaN = no score).

    Returns ``(ranks, tied, avg)``, each (rows, n): ``ranks`` float, NaN where no score;
    ``tied`` bool, True for a member of a tie group of two or more; ``avg`` (with ``average``,
    else None): the mean position of the group (1 = highest; Spearman's average ranks), NaN
    where no score."""
    v = np.atleast_2d(np.asarray(values, dtype=float))
    S, n = v.shape
    order = np.argsort(-v, axis=1)  # NaN last; the order within equal scores does not matter
    sv = np.take_along_axis(v, order, axis=1)
    starts = _group_starts(sv)
    ends = np.ones((S, n), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    pos = np.arange(n)
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    missing = np.isnan(sv)
    ranks = np.empty((S, n))
    tied = np.empty((S, n), dtype=bool)
    np.put_along_axis(ranks, order, np.where(missing, np.nan, first + 1.0), axis=1)
    np.put_along_axis(tied, order, ~(starts & ends) & ~missing, axis=1)
    avg = None
    if average:
        last = np.minimum.accumulate(np.where(ends, pos, n - 1)[:, ::-1], axis=1)[:, ::-1]
        avg = np.empty((S, n))
        mean = np.where(missing, np.nan, (first + last) / 2.0 + 1.0)
        np.put_along_axis(avg, order, mean, axis=1)
    return ranks, tied, avg


def rank_desc(values) -> np.ndarray:
    """Ranks of ``values`` by the rule (1 = highest; tied models share a rank; NaN where no
    score); the shape of ``values`` ((n,) or (rows, n))."""
    v = np.asarray(values, dtype=float)
    ranks = rank_rows(v)[0]
    return ranks.reshape(v.shape)


def rank_ties(values) -> tuple[np.ndarray, np.ndarray]:
    """``(ranks, tied)`` of ``values`` ((n,) or (rows, n)) by the rule: :func:`rank_desc` and
    whether each rank is shared."""
    v = np.asarray(values, dtype=float)
    ranks, tied, _ = rank_rows(v)
    return ranks.reshape(v.shape), tied.reshape(v.shape)


def rank_text(rank, tied) -> str:
    """A rank as the page and LaTeX show it: ``"3"``, ``"=3"`` when shared, ``"—"`` when none."""
    if rank is None or rank != rank:
        return "\u2014"
    return f"={int(rank)}" if tied else str(int(rank))


def rank_change(before, after) -> tuple[np.ndarray, np.ndarray]:
    """``(delta, word)`` of each model between overall scores ``before`` and ``after``.

    ``before``: (models,) overall scores, NaN = no score; ``after``: (models,) or (samples,
    models) (e.g. one row per leave-one-out removal). Ranks are :func:`rank_desc` of each row.
    ``delta``: int, rank before - rank after (positive = moved up), 0 wherever ``word`` is set;
    ``word``: str (object array), ``""`` where the model is ranked in both, :data:`NEW` where
    it is ranked only after, :data:`NO_SCORE` where it has no score after.
    """
    b = np.asarray(before, dtype=float)
    a = np.asarray(after, dtype=float)
    if b.ndim != 1 or a.shape[-1:] != b.shape or a.ndim > 2:
        raise ValueError(
            f"rank_change: expected (models,) and (models,) or (samples, models), "
            f"got {b.shape} and {a.shape}"
        )
    rb = rank_desc(b)
    ra = rank_desc(a)
    has_b = ~np.isnan(b)
    has_a = ~np.isnan(a)
    both = has_a & has_b
    with np.errstate(invalid="ignore"):
        delta = np.where(both, rb - ra, 0).astype(np.int64)
    word = np.full(a.shape, "", dtype=object)
    word[has_a & ~has_b] = NEW
    word[~has_a] = NO_SCORE
    return delta, word


def score_change(before, after) -> np.ndarray:
    """Overall score ``after`` minus ``before`` of each model (the score change column): NaN
    where either has no score, exactly 0 where the two tie by the ranking rule
    (:func:`scores_tie`: an unchanged score never reads as a change of 1e-17)."""
    b = np.asarray(before, dtype=float)
    a = np.asarray(after, dtype=float)
    if b.shape != a.shape:
        raise ValueError(
            f"score_change: expected two (models,) arrays, got {b.shape} and {a.shape}"
        )
    with np.errstate(invalid="ignore"):
        out = a - b
    out[scores_tie(a, b)] = 0.0
    return out


def largest_change(delta: np.ndarray, word: np.ndarray) -> tuple[int, int]:
    """``(size, index)`` of the largest rank change of a (models,) result of :func:`rank_change`
    (models ranked in both only); ``(0, -1)`` when no such model moved."""
    d = np.where(np.asarray(word) == "", np.abs(np.asarray(delta)), 0)
    if d.size == 0 or d.max() == 0:
        return 0, -1
    k = int(np.argmax(d))
    return int(d[k]), k


def ranks_or_none(overall, ranks) -> list[int | None]:
    """The ranks as Python ints, ``None`` for the models without an overall score (no rank)."""
    ov = np.asarray(overall, dtype=float)
    return [None if np.isnan(s) else int(r) for s, r in zip(ov, np.asarray(ranks), strict=True)]
