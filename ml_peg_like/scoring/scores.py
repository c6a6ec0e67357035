"""Scores at every level (metric, benchmark, category, overall), coverage and ranks (the rule:
:mod:`.ranks`).

One representation: a float matrix with NaN for missing, weight vectors and contiguous groups;
every level is one call of the aggregation kernel (:func:`ml_peg_like.aggregation.weighted_mean`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..aggregation import shown_weights, weighted_mean
from ..config import Config
from ..raw import RawData
from ..support.lazy import lazy_module
from .instances import normalise_instances
from .plan import Plan, compile_config, normalise
from .ranks import rank_ties
from .vetoes import apply_vetoes, find_vetoes

pd = lazy_module("pandas")  # imported on first use: the first page needs none


@dataclass
class Scores:
    """All levels of scores for one config and one raw data set."""

    models: tuple[str, ...]
    config: Config
    plan: Plan
    raw_values: np.ndarray
    metric_scores: np.ndarray
    bench_scores: np.ndarray
    cat_scores: np.ndarray
    overall_scores: np.ndarray
    #: the ranking rule's ranks (:mod:`.ranks`: float, NaN = no rank) and which are shared
    ranks: np.ndarray
    tied: np.ndarray
    bench_coverage: np.ndarray
    cat_coverage: np.ndarray
    overall_coverage: np.ndarray
    resolved: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: per-instance metrics: {metric column: InstanceBlock} and {column: instance scores}
    instances: dict = field(default_factory=dict)
    instance_scores: dict = field(default_factory=dict)
    #: config vetoes: the vetoed models (overall score 0) and the reason per model ("" if none)
    vetoed: np.ndarray | None = None
    veto_reasons: list[str] = field(default_factory=list)

    def _frame(self, data: np.ndarray, columns) -> pd.DataFrame:
        return pd.DataFrame(data, index=pd.Index(self.models, name="model"), columns=list(columns))

    @cached_property
    def raw(self) -> pd.DataFrame:
        return self._frame(self.raw_values, self.plan.metric_columns)

    @cached_property
    def metrics(self) -> pd.DataFrame:
        return self._frame(self.metric_scores, self.plan.metric_columns)

    @cached_property
    def benchmarks(self) -> pd.DataFrame:
        return self._frame(self.bench_scores, self.plan.benchmarks)

    @cached_property
    def categories(self) -> pd.DataFrame:
        return self._frame(self.cat_scores, self.plan.categories)

    @cached_property
    def overall(self) -> pd.DataFrame:
        df = pd.DataFrame(
            {
                "score": self.overall_scores,
                # a model without an overall score has no rank: <NA>, written empty
                "rank": pd.array(self.ranks, dtype="Int64"),
                "tied": self.tied,
            },
            index=pd.Index(self.models, name="model"),
        )
        if self.config.uses_skip:
            df["coverage"] = self.overall_coverage
        if self.config.vetoes:
            df["vetoed"] = self.vetoed
        return df

    def tables(self, scale: float | None = None) -> dict[str, pd.DataFrame]:
        """The four score tables (model as first column), scores multiplied by ``scale``."""
        k = float(scale if scale is not None else self.config.scale)
        out = {}
        for name, df in (
            ("metric_scores", self.metrics),
            ("benchmark_scores", self.benchmarks),
            ("category_scores", self.categories),
        ):
            out[name] = (df * k).reset_index()
        ov = self.overall.copy()
        ov["score"] = ov["score"] * k
        out["overall_scores"] = ov.reset_index()
        return out


def score_values(values: np.ndarray, models, cfg: Config, instances=None) -> Scores:
    """Score an already aligned raw matrix (columns in ``cfg.metric_ids()`` order).

    ``instances``: {column: InstanceBlock} of the per-instance metrics
    (:meth:`RawData.aligned_instances`); their scores are the means of the instance scores
    (:mod:`.instances`)."""
    plan = compile_config(cfg)
    models = tuple(models)
    index = {m: i for i, m in enumerate(models)}
    instances = instances or {}
    ms, resolved, warnings = normalise(values, plan, index, per_instance=instances)
    inst_scores, inst_warnings = normalise_instances(ms, plan, index, instances, resolved)
    warnings += inst_warnings
    need = plan.need_coverage
    # an excluded group (weight 0, every child weight 0) still gets its own score (equal
    # weights); its parent ignores it (weight 0), so no parent score changes
    wm = shown_weights(plan.w_metric, plan.metric_starts, plan.w_bench)
    wb = shown_weights(plan.w_bench, plan.bench_starts, plan.w_cat)
    bs, bcov = weighted_mean(ms, wm, plan.metric_starts, plan.bench_skip, None, need)
    cs, ccov = weighted_mean(bs, wb, plan.bench_starts, plan.cat_skip, bcov, need)
    os_, ocov = weighted_mean(
        cs, plan.w_cat, np.zeros(1, dtype=np.intp), plan.overall_skip, ccov, need
    )
    vetoed, reasons, veto_warnings = find_vetoes(values, cfg, models)
    warnings += veto_warnings
    return Scores(
        models=models,
        config=cfg,
        plan=plan,
        raw_values=values,
        **levels(ms, bs, cs, os_, (bcov, ccov, ocov), vetoed),
        resolved=resolved,
        warnings=warnings,
        instances=instances,
        instance_scores=inst_scores,
        vetoed=vetoed,
        veto_reasons=reasons,
    )


def levels(ms, bs, cs, os_, coverage, vetoed) -> dict:
    """The ``Scores`` fields of the four levels from the weighted means (``os_`` and the
    overall coverage as ``weighted_mean`` returns them: one column): the overall score after the
    vetoes and the ranks that follow from it. One place for both the full scoring and the
    re-scoring of an edit (:mod:`.incremental`)."""
    bcov, ccov, ocov = coverage
    overall = apply_vetoes(os_[:, 0], vetoed)
    ranks, tied = rank_ties(overall)
    return dict(
        metric_scores=ms,
        bench_scores=bs,
        cat_scores=cs,
        overall_scores=overall,
        ranks=ranks,
        tied=tied,
        bench_coverage=bcov,
        cat_coverage=ccov,
        overall_coverage=ocov[:, 0],
    )


def score(raw: RawData, cfg: Config) -> Scores:
    """Score ``raw`` with ``cfg``: metric, benchmark, category and overall scores and ranks."""
    values = raw.aligned(cfg)
    return score_values(values, raw.models, cfg, raw.aligned_instances(cfg))
