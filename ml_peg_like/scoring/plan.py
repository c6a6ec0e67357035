"""The config compiled to arrays, and raw values normalised into metric scores.

:func:`compile_config` turns a config into weight vectors, contiguous groups (metrics of a
benchmark, benchmarks of a category) and per-normaliser parameter arrays, once per config.
:func:`normalise` resolves the data-driven thresholds (``{model: NAME}``, ``best``, ``worst``)
and runs every normaliser on its block of columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..aggregation import is_skip
from ..config import Config, Metric, ModelRef
from ..normalisers import apply_normaliser, get_normaliser


@dataclass(frozen=True)
class Plan:
    """The config compiled to arrays (built once per config)."""

    metric_columns: tuple[str, ...]
    metric_paths: tuple[str, ...]
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


_PLAN = "_plan"  # where a config holds its plan (a frozen dataclass: beside the fields)


def remember_plan(cfg: Config, plan: Plan) -> Plan:
    """Hold ``plan`` as ``cfg``'s compiled plan unless it has one (:func:`compile_config` finds
    it; the re-scoring of an edit derives the plan of a close config, scoring.incremental)."""
    return cfg.__dict__.setdefault(_PLAN, plan)


def _normaliser_groups(metrics: list[Metric]) -> list[tuple]:
    """Per normaliser: (name, its metric columns, parameter arrays of the numbers given,
    dynamic entries for the data-driven thresholds)."""
    by_norm: dict[str, list[int]] = {}
    for j, m in enumerate(metrics):
        by_norm.setdefault(m.normaliser, []).append(j)
    return [_normaliser_group(name, cols, metrics) for name, cols in by_norm.items()]


def _normaliser_group(name: str, cols: list[int], metrics: list[Metric]) -> tuple:
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
    return (name, np.asarray(cols, dtype=np.intp), static, tuple(dynamic))


def compile_config(cfg: Config) -> Plan:
    """The arrays of ``cfg`` (cached on the config)."""
    cached = cfg.__dict__.get(_PLAN)
    if cached is not None:
        return cached
    metrics: list[Metric] = []
    w_metric, w_bench, w_cat = [], [], []
    metric_starts, bench_starts, bench_skip, cat_skip = [], [], [], []
    for c in cfg.categories:
        bench_starts.append(len(w_bench))
        skip = is_skip(cfg.policy(c))
        cat_skip.append(skip)
        for b in c.benchmarks:
            metric_starts.append(len(metrics))
            w_bench.append(b.weight)
            bench_skip.append(skip)
            for m in b.metrics:
                metrics.append(m)
                w_metric.append(m.weight)
        w_cat.append(c.weight)

    groups = _normaliser_groups(metrics)
    plan = Plan(
        metric_columns=tuple(cfg.metric_columns()),
        metric_paths=tuple(cfg.metric_paths()),
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
        overall_skip=is_skip(cfg.missing),
        need_coverage=cfg.uses_skip,
        groups=tuple(groups),
    )
    return remember_plan(cfg, plan)


def resolve_threshold(spec, column: np.ndarray, models: dict[str, int], metric: Metric):
    """A data-driven threshold as a number: {model: NAME}, best or worst over ``column``.

    ``column``: (models,) gives a float; a (models, instances) block gives one value per
    instance (per-instance metrics). NaN when it cannot be resolved (an unknown model, a model
    without a value, no value at all, anything else): the caller leaves the metric (instance)
    unscored. Never raises.
    """
    if isinstance(spec, ModelRef):
        name = spec.model
        i = models.get(name) if isinstance(name, str) else None
        if i is None:
            return math.nan
        try:
            row = np.asarray(column, dtype=float)[i]
        except (TypeError, ValueError, IndexError):
            return math.nan
        return float(row) if row.ndim == 0 else row
    if spec not in ("best", "worst"):
        return math.nan
    col = np.asarray(column, dtype=float)
    lower = metric.better == "lower"
    # NaN-ignoring min/max; NaN when a column has no value (or no model)
    fn = np.fmin if (spec == "best") == lower else np.fmax
    r = fn.reduce(col, axis=0, initial=np.nan)
    return float(r) if col.ndim == 1 else r


def _unresolved(spec, path: str, param: str, models: dict[str, int]) -> str:
    """The warning for a threshold that could not be resolved (names the metric and model)."""
    if isinstance(spec, ModelRef):
        who = spec.model if isinstance(spec.model, str) else repr(spec.model)
        why = "is not a model of the data" if who not in models else "has no value"
        return f"{path}.{param}: model '{who}' {why}; metric left unscored for every model"
    return f"{path}.{param}: {spec} has no value; metric left unscored for every model"


def normalise(values: np.ndarray, plan: Plan, models: dict[str, int], per_instance=()):
    """Normalised scores (models x metrics) and the resolved parameters of every group.

    ``per_instance``: the per-instance columns (scored again by
    :func:`.instances.normalise_instances`): no warning about their column-wide thresholds."""
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
                if cols[i] not in per_instance:
                    warnings.append(_unresolved(spec, plan.metric_paths[cols[i]], pn, models))
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
