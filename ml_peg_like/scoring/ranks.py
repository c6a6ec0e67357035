"""Rank change between two scorings of the same models: the ONE rule for every place that
shows one (the grid's ± column, leave one out, the exports).

A rank change means something only for a model ranked both before and after (it has an overall
score in both). Any other model gets a word instead of a number: ``"new"`` (no score before, a
score now) or ``"no score"`` (no score now, whatever it had before).
"""

from __future__ import annotations

import numpy as np

from .scores import rank_desc

#: the words shown instead of a number
NEW = "new"
NO_SCORE = "no score"


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
    ra = rank_desc(a) if a.ndim == 1 else np.stack([rank_desc(row) for row in a])
    has_b = ~np.isnan(b)
    has_a = ~np.isnan(a)
    both = has_a & has_b
    delta = np.where(both, rb - ra, 0).astype(np.int64)
    word = np.full(a.shape, "", dtype=object)
    word[has_a & ~has_b] = NEW
    word[~has_a] = NO_SCORE
    return delta, word


def largest_change(delta: np.ndarray, word: np.ndarray) -> tuple[int, int]:
    """``(size, index)`` of the largest rank change of a (models,) result of :func:`rank_change`
    (models ranked in both only); ``(0, -1)`` when no such model moved."""
    d = np.where(np.asarray(word) == "", np.abs(np.asarray(delta)), 0)
    if d.size == 0 or d.max() == 0:
        return 0, -1
    k = int(np.argmax(d))
    return int(d[k]), k


def ranks_or_none(overall, ranks) -> list[int | None]:
    """The ranks of the models that have an overall score, ``None`` for the others (which
    :func:`rank_desc` ranks after every scored model)."""
    ov = np.asarray(overall, dtype=float)
    return [None if np.isnan(s) else int(r) for s, r in zip(ov, np.asarray(ranks), strict=True)]
