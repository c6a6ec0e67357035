"""Sensitivity of the ranking to each weight and threshold, exactly (no sampling).

- :func:`stability_intervals`: how far each value can move, all else fixed, before the leader
  (or the top-k set) changes;
- :func:`what_if`: for a chosen model, the value nearest the current one that puts it first;
- :func:`dominance`: the models that stay ahead of a model under any weights.

Per-instance metrics (a mean of instance scores, ``instances=``): their weights are exact and get
rows; their thresholds and parameters get none (left out rather than answered wrongly).
A model vetoed by the config (``vetoes``) is held at an overall score of 0 under every setting
(a constant in every family, so the intervals stay exact).
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
from .dominance import DominanceMemo
from .families import LevelsMemo

__all__ = [
    "DominanceMemo",
    "LevelsMemo",
    "dominance",
    "dominance_of",
    "families",
    "leader_intervals_of",
    "stability_intervals",
    "what_if",
    "what_if_of",
]
