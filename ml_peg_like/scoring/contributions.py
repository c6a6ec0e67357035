"""Why a model leads: each child's share of a node's score.

A node's score is the weighted mean of its children's scores; child ``k``'s contribution is
``w_k * s_k / W``, with ``W`` the total weight actually used for that model: under ``invalidate``
every child with a positive weight (a model missing one has no node score and so no
contributions), under ``skip`` the children that have a score. Weight-0 children contribute
nothing and are not listed. The contributions of a model sum to its node score.

The overall score of a vetoed model is 0 (:mod:`.vetoes`): its contributions still explain the
score before the veto (``score``), and ``vetoed`` marks it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..aggregation import shown_weights
from ..config import Benchmark, Category
from ..errors import ConfigError, Problem
from ..support.lazy import lazy_module
from .scores import Scores

pd = lazy_module("pandas")

OVERALL, CATEGORY, BENCHMARK = "overall", "category", "benchmark"


@dataclass(frozen=True)
class Contributions:
    """The contributions of the children of one node (the overall score, a category or a
    benchmark) for every model."""

    #: the node: ``""`` for the overall score, else its full key path
    path: str
    #: ``overall`` (children: categories), ``category`` (benchmarks), ``benchmark`` (metrics)
    level: str
    #: the missing-data policy of the node (``invalidate`` or ``skip``)
    policy: str
    models: tuple[str, ...]
    #: the children with a positive weight: their names and full key paths, in config order
    names: tuple[str, ...]
    children: tuple[str, ...]
    #: (children,) their weights as used (an excluded node's children: 1 each)
    weights: np.ndarray
    #: (models, children) the children's scores (NaN: missing)
    child_scores: np.ndarray
    #: (models, children) weight x score / used weight; NaN where the child is not used (missing
    #: under ``skip``) and on every child of a model without a node score
    parts: np.ndarray
    #: (models,) the weight used (NaN: no node score)
    used_weight: np.ndarray
    #: (models,) the node's score the parts sum to: before the veto for a vetoed model
    score: np.ndarray
    #: (models,) bool: the overall score shown is 0 (a config veto); False below the overall
    vetoed: np.ndarray

    @property
    def frame(self) -> pd.DataFrame:
        """The parts as a DataFrame: a row per model, a column per child (its name)."""
        return pd.DataFrame(
            self.parts, index=pd.Index(self.models, name="model"), columns=list(self.names)
        )

    def of(self, model: str) -> list[dict]:
        """One model's breakdown, a dict per child: ``name``, ``path``, ``weight``, ``score``
        and ``part`` (None for a missing score or a part not used)."""
        if model not in self.models:
            raise ConfigError(Problem(str(model)[:80], "no such model"))
        i = self.models.index(model)
        return [
            {
                "name": name,
                "path": path,
                "weight": float(self.weights[k]),
                "score": _num(self.child_scores[i, k]),
                "part": _num(self.parts[i, k]),
            }
            for k, (name, path) in enumerate(zip(self.names, self.children, strict=True))
        ]


def _num(v: float) -> float | None:
    return None if np.isnan(v) else float(v)


def _node_parts(scores: Scores, path: str | None):
    """(full path, level, policy, child names, child paths, weights, child scores) of the node
    at ``path`` (None or ``""``: the overall score)."""
    cfg = scores.config
    plan = scores.plan
    if not path:
        names = [c.name for c in cfg.categories]
        return "", OVERALL, cfg.missing, names, names, plan.w_cat, scores.cat_scores
    try:
        node = cfg.node(path)
    except KeyError:
        raise ConfigError(
            Problem(str(path)[:200], "no category or benchmark at this path")
        ) from None
    full = cfg.full_path(path)
    if isinstance(node, Category):
        k = plan.categories.index(node.name)
        lo = int(plan.bench_starts[k])
        hi = lo + len(node.benchmarks)
        w = shown_weights(plan.w_bench, plan.bench_starts, plan.w_cat)[lo:hi]
        names = [b.name for b in node.benchmarks]
        return (
            full,
            CATEGORY,
            cfg.policy(node),
            names,
            _under(full, names),
            w,
            _cols(scores.bench_scores, lo, hi),
        )
    if isinstance(node, Benchmark):
        k = plan.benchmarks.index(node.name)
        lo = int(plan.metric_starts[k])
        hi = lo + len(node.metrics)
        w = shown_weights(plan.w_metric, plan.metric_starts, plan.w_bench)[lo:hi]
        names = [m.name for m in node.metrics]
        policy = "skip" if plan.bench_skip[k] else "invalidate"
        return (
            full,
            BENCHMARK,
            policy,
            names,
            _under(full, names),
            w,
            _cols(scores.metric_scores, lo, hi),
        )
    raise ConfigError(Problem(full, "a metric has no parts: give a category or a benchmark"))


def _under(parent: str, names: list[str]) -> list[str]:
    return [f"{parent}/{n}" for n in names]


def _cols(a: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return np.asarray(a, dtype=float)[:, lo:hi]


def contributions(scores: Scores, path: str | None = None) -> Contributions:
    """Each child's contribution to a node's score, per model (see the module's doc).

    ``path``: None (or ``""``) for the overall score (children: the categories), a category's
    path (its benchmarks) or a benchmark's (its metrics); short forms as ``Config.node``.
    Raises :class:`~ml_peg_like.errors.ConfigError` naming a path that is neither."""
    full, level, policy, names, paths, w, child = _node_parts(scores, path)
    w = np.asarray(w, dtype=float)
    keep = w > 0
    w, child = w[keep], child[:, keep]
    names = tuple(n for n, k in zip(names, keep, strict=True) if k)
    paths = tuple(p for p, k in zip(paths, keep, strict=True) if k)
    present = ~np.isnan(child)
    if policy == "skip":
        used = (present * w).sum(axis=1)
        ok = used > 0
    else:
        used = np.full(child.shape[0], w.sum())
        ok = present.all(axis=1) & (used > 0)
    used = np.where(ok, used, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        parts = child * w / used[:, None]
    total = np.where(ok, np.nansum(parts, axis=1), np.nan)
    vetoed = np.zeros(len(scores.models), dtype=bool)
    if level == OVERALL and scores.vetoed is not None:
        vetoed = np.asarray(scores.vetoed, dtype=bool).copy()
    return Contributions(
        path=full,
        level=level,
        policy=policy,
        models=tuple(scores.models),
        names=names,
        children=paths,
        weights=w,
        child_scores=child,
        parts=parts,
        used_weight=used,
        score=total,
        vetoed=vetoed,
    )
