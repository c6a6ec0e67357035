"""Raw matrix (models x metrics) + config -> scores at every level, and ranks. Vectorised.

One representation: a float matrix with NaN for missing, weight vectors, and contiguous groups
(metrics of a benchmark, benchmarks of a category) so that a weighted mean with a missing-data
policy is a handful of ``np.add.reduceat`` calls, the same at every level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .config import Config, Metric, ModelRef
from .normalisers import apply_normaliser, get_normaliser
from .raw import RawData


@dataclass(frozen=True)
class Plan:
    """The config compiled to arrays (built once per config)."""

    metric_columns: tuple[str, ...]
    metric_ids: tuple[tuple[str, str], ...]
    benchmarks: tuple[str, ...]
    categories: tuple[str, ...]
    w_metric: np.ndarray
    w_bench: np.ndarray
    w_cat: np.ndarray
    metric_starts: np.ndarray  # first metric of each benchmark
    bench_starts: np.ndarray  # first benchmark of each category
    bench_skip: np.ndarray  # bool per benchmark: its category's policy is skip
    cat_skip: np.ndarray  # bool per category
    overall_skip: bool
    need_coverage: bool
    # normaliser groups: (normaliser name, column indices, static params {name: (k,) array},
    # dynamic entries [(position in group, param name, threshold spec, metric)])
    groups: tuple = ()


def compile_config(cfg: Config) -> Plan:
    cached = cfg.__dict__.get("_plan")
    if cached is not None:
        return cached
    metrics: list[Metric] = []
    w_metric, w_bench, w_cat = [], [], []
    metric_starts, bench_starts, bench_skip, cat_skip = [], [], [], []
    for c in cfg.categories:
        bench_starts.append(len(w_bench))
        skip = cfg.policy(c) == "skip"
        cat_skip.append(skip)
        for b in c.benchmarks:
            metric_starts.append(len(metrics))
            w_bench.append(b.weight)
            bench_skip.append(skip)
            for m in b.metrics:
                metrics.append(m)
                w_metric.append(m.weight)
        w_cat.append(c.weight)

    by_norm: dict[str, list[int]] = {}
    for j, m in enumerate(metrics):
        by_norm.setdefault(m.normaliser, []).append(j)
    groups = []
    for name, cols in by_norm.items():
        norm = get_normaliser(name)
        pnames = (["good", "bad"] if norm.uses_thresholds else []) + [p.name for p in norm.params]
        static: dict[str, np.ndarray] = {}
        dynamic = []
        for pn in pnames:
            arr = np.full(len(cols), np.nan)
            for i, j in enumerate(cols):
                v = metrics[j].value(pn)
                if isinstance(v, float | int):
                    arr[i] = float(v)
                elif v is not None:
                    dynamic.append((i, pn, v, metrics[j]))
            static[pn] = arr
        # optional params that are absent everywhere are not passed (fn defaults apply)
        for p in norm.params:
            if (
                p.optional
                and np.isnan(static[p.name]).all()
                and not any(d[1] == p.name for d in dynamic)
            ):
                del static[p.name]
        groups.append((name, np.asarray(cols, dtype=np.intp), static, tuple(dynamic)))

    plan = Plan(
        metric_columns=tuple(cfg.metric_columns()),
        metric_ids=tuple(cfg.metric_ids()),
        benchmarks=tuple(cfg.benchmark_names()),
        categories=tuple(cfg.category_names()),
        w_metric=np.asarray(w_metric, dtype=float),
        w_bench=np.asarray(w_bench, dtype=float),
        w_cat=np.asarray(w_cat, dtype=float),
        metric_starts=np.asarray(metric_starts, dtype=np.intp),
        bench_starts=np.asarray(bench_starts, dtype=np.intp),
        bench_skip=np.asarray(bench_skip, dtype=bool),
        cat_skip=np.asarray(cat_skip, dtype=bool),
        overall_skip=cfg.missing == "skip",
        need_coverage=cfg.uses_skip,
        groups=tuple(groups),
    )
    cfg.__dict__["_plan"] = plan  # frozen dataclass: cache beside the fields
    return plan


def resolve_threshold(spec, column: np.ndarray, models: dict[str, int], metric: Metric) -> float:
    """A data-driven threshold as a number: {model: NAME}, best or worst over ``column``."""
    if isinstance(spec, ModelRef):
        i = models.get(spec.model)
        return float(column[i]) if i is not None else np.nan
    finite = column[~np.isnan(column)]
    if finite.size == 0:
        return np.nan
    lower = metric.better == "lower"
    if spec == "best":
        return float(finite.min() if lower else finite.max())
    if spec == "worst":
        return float(finite.max() if lower else finite.min())
    return np.nan


def normalise(values: np.ndarray, plan: Plan, models: dict[str, int]):
    """Normalised scores (models x metrics) and the resolved parameters of every group."""
    n_metrics = values.shape[1]
    single = len(plan.groups) == 1
    out = None if single else np.empty(values.shape, order="F")
    resolved: dict[str, dict[str, np.ndarray]] = {}
    warnings: list[str] = []
    for name, cols, static, dynamic in plan.groups:
        params = {k: v.copy() for k, v in static.items()} if dynamic else static
        unscored = []
        for i, pn, spec, metric in dynamic:
            v = resolve_threshold(spec, values[:, cols[i]], models, metric)
            if np.isnan(v):
                what = f"model '{spec.model}'" if isinstance(spec, ModelRef) else spec
                warnings.append(
                    f"{plan.metric_columns[cols[i]]}.{pn}: {what} has no value; metric left unscored"
                )
                unscored.append(i)
            if pn not in params:
                params[pn] = np.full(len(cols), np.nan)
            params[pn][i] = v
        x = values if single and len(cols) == n_metrics else values[:, cols]
        s = apply_normaliser(get_normaliser(name), x, params)
        if unscored:
            s[:, unscored] = np.nan
        if out is None:
            out = s
        else:
            out[:, cols] = s
        resolved[name] = params
    return out, resolved, warnings


def aggregate(
    scores: np.ndarray,
    coverage: np.ndarray | None,
    weights: np.ndarray,
    starts: np.ndarray,
    skip: np.ndarray,
    need_coverage: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Weighted mean of contiguous column groups with a missing policy per group.

    invalidate: sum(w s) / sum(w), missing when any child with w > 0 is missing.
    skip: sum over present children of w s / sum of their w.
    Coverage: sum(w * child coverage) / sum(w) (``coverage=None``: a child's coverage is 1 when
    present, else 0). A group whose weights are all 0 is missing.
    """
    w_total = np.add.reduceat(weights, starts)
    sw = np.multiply(scores, weights)  # NaN where a child is missing
    zero = weights == 0
    if zero.any():
        sw[:, zero] = 0.0  # a weight-0 child never matters, even when missing
    out = cov = None
    with np.errstate(divide="ignore", invalid="ignore"):
        if not skip.all():
            out = np.add.reduceat(sw, starts, axis=1) / w_total  # NaN iff a w > 0 child is missing
        if skip.any() or need_coverage:
            missing = np.isnan(sw)
            np.copyto(sw, 0.0, where=missing)
            num = np.add.reduceat(sw, starts, axis=1)
            pw = (~missing).astype(float)
            pw *= weights
            w_present = np.add.reduceat(pw, starts, axis=1)
            if skip.any():
                skipped = num / w_present
                skipped[w_present == 0] = np.nan
                out = skipped if out is None else np.where(skip, skipped, out)
            if need_coverage:
                if coverage is None:
                    cov = w_present / w_total
                else:
                    cw = np.multiply(coverage, weights)
                    np.copyto(cw, 0.0, where=np.isnan(cw))
                    cov = np.add.reduceat(cw, starts, axis=1) / w_total
    empty = w_total == 0
    if empty.any():
        out[:, empty] = np.nan
        if cov is not None:
            cov[:, empty] = np.nan
    return out, cov


def rank_desc(values: np.ndarray) -> np.ndarray:
    """Rank 1 = highest; ties share the best rank; NaN ranks last (n_valid + 1)."""
    v = np.round(np.asarray(values, dtype=float), 12)
    valid = ~np.isnan(v)
    ranks = np.full(v.shape, valid.sum() + 1, dtype=np.int64)
    if valid.any():
        sv = np.sort(-v[valid])
        ranks[valid] = np.searchsorted(sv, -v[valid], side="left") + 1
    return ranks


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
    ranks: np.ndarray
    bench_coverage: np.ndarray
    cat_coverage: np.ndarray
    overall_coverage: np.ndarray
    resolved: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

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
            {"score": self.overall_scores, "rank": self.ranks},
            index=pd.Index(self.models, name="model"),
        )
        if self.config.uses_skip:
            df["coverage"] = self.overall_coverage
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


def score_values(values: np.ndarray, models, cfg: Config) -> Scores:
    """Score an already aligned raw matrix (columns in ``cfg.metric_ids()`` order)."""
    plan = compile_config(cfg)
    models = tuple(models)
    index = {m: i for i, m in enumerate(models)}
    ms, resolved, warnings = normalise(values, plan, index)
    need = plan.need_coverage
    bs, bcov = aggregate(ms, None, plan.w_metric, plan.metric_starts, plan.bench_skip, need)
    cs, ccov = aggregate(bs, bcov, plan.w_bench, plan.bench_starts, plan.cat_skip, need)
    os_, ocov = aggregate(
        cs, ccov, plan.w_cat, np.zeros(1, dtype=np.intp), np.array([plan.overall_skip]), need
    )
    if not need:  # all-invalidate: a score is either complete or missing
        bcov, ccov, ocov = ((~np.isnan(a)).astype(float) for a in (bs, cs, os_))
    overall = os_[:, 0]
    return Scores(
        models=models,
        config=cfg,
        plan=plan,
        raw_values=values,
        metric_scores=ms,
        bench_scores=bs,
        cat_scores=cs,
        overall_scores=overall,
        ranks=rank_desc(overall),
        bench_coverage=bcov,
        cat_coverage=ccov,
        overall_coverage=ocov[:, 0],
        resolved=resolved,
        warnings=warnings,
    )


def score(raw: RawData, cfg: Config) -> Scores:
    """Score ``raw`` with ``cfg``: metric, benchmark, category and overall scores and ranks."""
    values = raw.aligned(cfg)
    return score_values(values, raw.models, cfg)
