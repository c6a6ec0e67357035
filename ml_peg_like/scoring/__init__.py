"""Raw matrix (models x metrics) + config -> scores at every level, and ranks. Vectorised.

* :mod:`.plan`: the config compiled to arrays; threshold resolution; normalisation.
* :mod:`.scores`: :class:`Scores`, :func:`score`, :func:`score_values`.
* :mod:`.contributions`: :func:`contributions` (each child's share of a node's score).
* :mod:`.ranks`: the ranking rule (:data:`RANK_RTOL`, :func:`rank_desc`, :func:`rank_ties`,
  :func:`rank_rows`, :func:`scores_tie`) and :func:`rank_change` (arrows or a word) and
  :func:`score_change` (the overall score's difference).

The weighted means and the missing-data policy are :mod:`ml_peg_like.aggregation`'s.
"""

from .contributions import Contributions, contributions
from .plan import Plan, compile_config, normalise, resolve_threshold
from .ranks import (
    NEW,
    NO_SCORE,
    RANK_RTOL,
    largest_change,
    not_below,
    rank_change,
    rank_desc,
    rank_rows,
    rank_text,
    rank_ties,
    ranks_or_none,
    score_change,
    scores_tie,
)
from .scores import Scores, score, score_values
from .vetoes import apply_vetoes, veto_reason

__all__ = [
    "NEW",
    "NO_SCORE",
    "RANK_RTOL",
    "Contributions",
    "Plan",
    "Scores",
    "apply_vetoes",
    "compile_config",
    "contributions",
    "largest_change",
    "not_below",
    "normalise",
    "rank_change",
    "ranks_or_none",
    "rank_desc",
    "rank_rows",
    "rank_text",
    "rank_ties",
    "score_change",
    "resolve_threshold",
    "score",
    "score_values",
    "scores_tie",
    "veto_reason",
]
