"""Rank change between two rankings, only where it means something.

A model ranked both before and after gets a number (positive: it moved up); a model ranked only
after is ``"new"``; a model ranked only before is ``"no score"``; a model ranked in neither gets
``None``. One rule for the grid, leave-one-out and every export.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

NEW = "new"
NO_SCORE = "no score"


def _rank(value) -> int | None:
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(v) or v < 1:
        return None
    return int(v)


def rank_change(before, after) -> int | str | None:
    """The change of one model: ``before - after`` (ranks, 1 = best) when both are ranks;
    ``"new"`` / ``"no score"`` / ``None`` otherwise (``None`` or NaN means unranked)."""
    b, a = _rank(before), _rank(after)
    if b is not None and a is not None:
        return b - a
    if a is not None:
        return NEW
    if b is not None:
        return NO_SCORE
    return None


def rank_changes(before: Iterable, after: Iterable) -> list[int | str | None]:
    """:func:`rank_change` of each pair (same model order)."""
    return [rank_change(b, a) for b, a in zip(before, after, strict=True)]


def ranks_or_none(scores: Iterable, ranks: Iterable) -> list[int | None]:
    """The ranks of the models that have a score; ``None`` for the others (rank_desc gives
    those n_valid + 1)."""
    out = []
    for s, r in zip(scores, ranks, strict=True):
        ok = s is not None and not (isinstance(s, float) and math.isnan(s))
        out.append(int(r) if ok else None)
    return out
