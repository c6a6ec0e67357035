"""Raw matrix (models x metrics) + config -> scores at every level, and ranks. Vectorised.

* :mod:`.plan`: the config compiled to arrays; threshold resolution; normalisation.
* :mod:`.rankchange`: :func:`rank_change` (numbers, or "new" / "no score").
* :mod:`.scores`: :class:`Scores`, :func:`score`, :func:`score_values`, :func:`rank_desc`.

The weighted means and the missing-data policy are :mod:`ml_peg_like.aggregation`'s.
"""

from .plan import Plan, compile_config, normalise, resolve_threshold
from .rankchange import rank_change, rank_changes, ranks_or_none
from .scores import Scores, rank_desc, score, score_values

__all__ = [
    "Plan",
    "Scores",
    "compile_config",
    "normalise",
    "rank_change",
    "rank_changes",
    "ranks_or_none",
    "rank_desc",
    "resolve_threshold",
    "score",
    "score_values",
]
