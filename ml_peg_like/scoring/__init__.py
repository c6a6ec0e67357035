"""Raw matrix (models x metrics) + config -> scores at every level, and ranks. Vectorised.

* :mod:`.plan`: the config compiled to arrays; threshold resolution; normalisation.
* :mod:`.scores`: :class:`Scores`, :func:`score`, :func:`score_values`, :func:`rank_desc`.
* :mod:`.ranks`: :func:`rank_change` (the one rule for a rank change: arrows or a word).

The weighted means and the missing-data policy are :mod:`ml_peg_like.aggregation`'s.
"""

from .plan import Plan, compile_config, normalise, resolve_threshold
from .ranks import NEW, NO_SCORE, largest_change, rank_change, ranks_or_none
from .scores import TIE_DECIMALS, Scores, rank_desc, score, score_values
from .vetoes import apply_vetoes, veto_reason

__all__ = [
    "NEW",
    "NO_SCORE",
    "TIE_DECIMALS",
    "Plan",
    "Scores",
    "apply_vetoes",
    "compile_config",
    "largest_change",
    "normalise",
    "rank_change",
    "ranks_or_none",
    "rank_desc",
    "resolve_threshold",
    "score",
    "score_values",
    "veto_reason",
]
