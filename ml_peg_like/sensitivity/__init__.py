"""Sensitivity of the ranking to each weight and threshold, exactly (no sampling).

- :func:`stability_intervals`: how far each value can move, all else fixed, before the leader
  (or the top-k set) changes;
- :func:`what_if`: for a chosen model, the value nearest the current one that puts it first;
- :func:`dominance`: the models that stay ahead of a model under any weights.
"""

from .api import (
    dominance,
    dominance_of,
    families,
    leader_intervals_of,
    stability_intervals,
    what_if,
    what_if_of,
)

__all__ = [
    "dominance",
    "dominance_of",
    "families",
    "leader_intervals_of",
    "stability_intervals",
    "what_if",
    "what_if_of",
]
