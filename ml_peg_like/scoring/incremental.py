"""Scores of an edited config derived from the scores of a close one (an edit of one
threshold at 10,000 x 339 or 1,000 x 1,000 need not normalise and average every metric again).

:func:`rescore` handles the simple change only: the two configs have the same tree, weights,
normalisers, policies, vetoes and scale, and differ in the numeric parameters (thresholds,
normaliser parameters) of a few metrics that are not per-instance and whose parameters are
numbers before and after (no ``{model: NAME}``, ``best`` or ``worst``: they resolve from the data
and may warn). Then only those metric columns are normalised again, only their benchmarks and
categories are averaged again (the same kernel, :func:`~ml_peg_like.aggregation.weighted_mean`,
on the same children) and the overall score and ranks follow. Anything else returns None and the
caller scores in full (:func:`.scores.score_values`); the result is the full scoring's, within
rounding (the tests compare them for random edit sequences).
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np

from ..aggregation import shown_weights, weighted_mean
from ..config import Config
from ..normalisers import apply_normaliser, get_normaliser
from .plan import Plan, remember_plan
from .scores import Scores, levels

#: more changed metrics than this: score in full (the walk gains little)
MAX_CHANGED = 8
_ONE = np.zeros(1, dtype=np.intp)


def _same_fields(a, b, skip: str) -> bool:
    """``a`` and ``b`` (dataclasses of one type) equal in every field but ``skip``."""
    return type(a) is type(b) and all(
        getattr(a, f.name) == getattr(b, f.name) for f in dataclasses.fields(a) if f.name != skip
    )


def changed_metrics(old: Config, new: Config) -> list[int] | None:
    """The metric columns whose parameters differ between ``old`` and ``new`` (config order),
    or None when the configs differ in anything else (tree, names, weights, normalisers,
    policies, vetoes, ...). Nodes shared by both (the unchanged ones of configs built from the
    same defaults) are skipped by identity."""
    if not _same_fields(old, new, "categories") or len(old.categories) != len(new.categories):
        return None
    out: list[int] = []
    j = 0
    for c0, c1 in zip(old.categories, new.categories, strict=True):
        if c0 is c1:
            j += sum(len(b.metrics) for b in c0.benchmarks)
            continue
        if not _same_fields(c0, c1, "benchmarks") or len(c0.benchmarks) != len(c1.benchmarks):
            return None
        for b0, b1 in zip(c0.benchmarks, c1.benchmarks, strict=True):
            if b0 is b1:
                j += len(b0.metrics)
                continue
            if not _same_fields(b0, b1, "metrics") or len(b0.metrics) != len(b1.metrics):
                return None
            for m0, m1 in zip(b0.metrics, b1.metrics, strict=True):
                if m0 is not m1 and m0 != m1:
                    if (m0.name, m0.weight, m0.normaliser, m0.better) != (
                        m1.name,
                        m1.weight,
                        m1.normaliser,
                        m1.better,
                    ):
                        return None
                    out.append(j)
                    if len(out) > MAX_CHANGED:
                        return None
                j += 1
    return out


def _number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _new_plan(plan: Plan, cfg: Config, cols: list[int], instances) -> tuple[Plan, dict] | None:
    """``plan`` with the parameters of metric columns ``cols`` taken from ``cfg``, and
    {column: (group index, position in group)}; None when a parameter is not a number (before
    or after), the column is per-instance or its group does not pass the parameter."""
    where: dict[int, tuple[int, int]] = {}
    groups = list(plan.groups)
    for j in cols:
        if j in instances:
            return None
        m = cfg.node(plan.metric_paths[j])
        for g, (name, gcols, static, dynamic) in enumerate(groups):
            hit = np.flatnonzero(gcols == j)
            if not hit.size:
                continue
            i = int(hit[0])
            if name != m.normaliser or any(d[0] == i for d in dynamic):
                return None
            norm = get_normaliser(name)
            pnames = (["good", "bad"] if norm.uses_thresholds else []) + [
                p.name for p in norm.params
            ]
            new_static = dict(static)
            for pn in pnames:
                v = m.value(pn)
                if pn not in static:
                    if v is None:
                        continue
                    return None  # an optional parameter passed by no metric of the group
                if not _number(v):
                    return None
                if float(v) != static[pn][i]:
                    arr = new_static[pn] = new_static[pn].copy()
                    arr[i] = float(v)
            groups[g] = (name, gcols, new_static, dynamic)
            where[j] = (g, i)
            break
        else:
            return None
    return dataclasses.replace(plan, groups=tuple(groups)), where


def rescore(prev: Scores, cfg: Config) -> Scores | None:
    """The scores of ``cfg`` from ``prev`` (the scores of a close config of the same raw
    values) when the change is simple (see the module), else None."""
    if prev.config is cfg:
        return prev
    cols = changed_metrics(prev.config, cfg)
    if not cols:  # None: not simple; []: the configs differ in nothing this module handles
        return None
    made = _new_plan(prev.plan, cfg, cols, prev.instances)
    if made is None:
        return None
    plan, where = made
    remember_plan(cfg, plan)  # as compile_config(cfg) would build it
    values = prev.raw_values
    ms = prev.metric_scores.copy(order="K")
    resolved = dict(prev.resolved)
    for j in cols:
        g, i = where[j]
        name, _gcols, static, _dyn = plan.groups[g]
        params = {k: v[i : i + 1] for k, v in static.items()}
        ms[:, j] = apply_normaliser(get_normaliser(name), values[:, j : j + 1], params)[:, 0]
        res = resolved[name] = {k: v.copy() for k, v in resolved[name].items()}
        for k, v in static.items():
            res[k][i] = v[i]
    need = plan.need_coverage
    n_metrics = ms.shape[1]
    n_bench = len(plan.benchmarks)
    m_ends = np.r_[plan.metric_starts[1:], n_metrics]
    b_ends = np.r_[plan.bench_starts[1:], n_bench]
    benches = sorted({int(np.searchsorted(plan.metric_starts, j, side="right")) - 1 for j in cols})
    wm = shown_weights(plan.w_metric, plan.metric_starts, plan.w_bench)
    wb = shown_weights(plan.w_bench, plan.bench_starts, plan.w_cat)
    bs = prev.bench_scores.copy(order="K")
    bcov = prev.bench_coverage.copy(order="K")
    for b in benches:
        lo, hi = int(plan.metric_starts[b]), int(m_ends[b])
        s, c = weighted_mean(ms[:, lo:hi], wm[lo:hi], _ONE, plan.bench_skip[b], None, need)
        bs[:, b], bcov[:, b] = s[:, 0], c[:, 0]
    cats = sorted({int(np.searchsorted(plan.bench_starts, b, side="right")) - 1 for b in benches})
    cs = prev.cat_scores.copy(order="K")
    ccov = prev.cat_coverage.copy(order="K")
    for k in cats:
        lo, hi = int(plan.bench_starts[k]), int(b_ends[k])
        s, c = weighted_mean(bs[:, lo:hi], wb[lo:hi], _ONE, plan.cat_skip[k], bcov[:, lo:hi], need)
        cs[:, k], ccov[:, k] = s[:, 0], c[:, 0]
    os_, ocov = weighted_mean(cs, plan.w_cat, _ONE, plan.overall_skip, ccov, need)
    return dataclasses.replace(
        prev,
        config=cfg,
        plan=plan,
        **levels(ms, bs, cs, os_, (bcov, ccov, ocov), prev.vetoed),
        resolved=resolved,
        warnings=list(prev.warnings),
        veto_reasons=list(prev.veto_reasons),
    )
