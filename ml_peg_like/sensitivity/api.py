"""Public entry points: stability intervals, what-if values and dominance."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..config import Config
from ..errors import ConfigError, Problem
from ..scoring import TIE_DECIMALS, Scores, score_values
from .families import WeightFamily, param_families
from .walk import global_interval, leader_intervals, nearest_first

COLUMNS = ["path", "field", "current", "low", "high"]


def _scores(values, models, cfg: Config) -> Scores:
    return score_values(np.asarray(values, dtype=float), tuple(models), cfg)


def families(sc: Scores) -> list:
    """The weight family and one family per (normaliser, editable numeric field)."""
    return [WeightFamily(sc), *param_families(sc)]


def _order(cfg: Config, df: pd.DataFrame) -> pd.DataFrame:
    """Rows in config order (category, its benchmarks, their metrics), weight first."""
    rank = {}
    for c in cfg.categories:
        rank[c.name] = len(rank)
        for b in c.benchmarks:
            rank[f"{c.name}/{b.name}"] = len(rank)
            for m in b.metrics:
                rank[f"{c.name}/{b.name}/{m.name}"] = len(rank)
    fields = {"weight": 0, "good": 1, "bad": 2}
    key = df["path"].map(rank) * 1000 + df["field"].map(lambda f: fields.get(f, 3))
    return df.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)


def stability_intervals(values, models, cfg: Config, top_k: int = 1) -> pd.DataFrame:
    """For every weight and numeric threshold/parameter: the interval [low, high] around its
    current value in which, all else fixed, the current rank-1 model(s) stay first (ties count);
    with ``top_k`` > 1, in which every model now ranked <= k stays ranked <= k.

    Columns ``path, field, current, low, high`` (``inf``/``-inf`` for unbounded ends; NaN when
    no model has an overall score). Thresholds move within their direction: the interval of a
    ``bad`` below ``good`` ends at ``good`` at most.
    """
    sc = _scores(values, models, cfg)
    if int(top_k) < 1:
        raise ConfigError([Problem("top_k", f"must be at least 1, got {top_k}")])
    members = np.nonzero((sc.ranks <= top_k) & ~np.isnan(sc.overall_scores))[0]
    rows = []
    for fam in families(sc):
        if top_k == 1 or len(members) == 0:
            low, high = leader_intervals(fam, members)
        else:
            pairs = [global_interval(fam, col, members, top_k) for col in range(len(fam.t0))]
            low = np.array([p[0] for p in pairs])
            high = np.array([p[1] for p in pairs])
        rows.append(
            pd.DataFrame(
                {
                    "path": fam.paths,
                    "field": fam.fields,
                    "current": fam.t0,
                    "low": low,
                    "high": high,
                }
            )
        )
    return _order(cfg, pd.concat(rows, ignore_index=True))


def what_if(values, models, cfg: Config, model: str) -> pd.DataFrame:
    """For every weight and numeric threshold/parameter: the value nearest the current one at
    which ``model`` ranks first (a tie for first counts), changing that value alone; NaN when
    no value does. Columns ``path, field, current, value``."""
    models = tuple(models)
    if model not in models:
        known = ", ".join(models)
        raise ConfigError([Problem("model", f"no model {model!r} (known: {known})")])
    sc = _scores(values, models, cfg)
    m = models.index(model)
    rows = []
    for fam in families(sc):
        if np.isnan(sc.overall_scores[m]) and fam.kind != "weight":
            value = np.full(len(fam.t0), np.nan)  # thresholds never give it a score
        else:
            value = np.array([nearest_first(fam, col, m) for col in range(len(fam.t0))])
        rows.append(
            pd.DataFrame(
                {"path": fam.paths, "field": fam.fields, "current": fam.t0, "value": value}
            )
        )
    return _order(cfg, pd.concat(rows, ignore_index=True))


def dominance(values, models, cfg: Config) -> dict[str, list[str]]:
    """For each model, the models that dominate it: at least as good on every metric with a
    positive effective weight (metric, benchmark and category weights all > 0) after
    normalisation, strictly better on one, and missing the same metrics. They stay ahead of it
    under any weights, so a dominated model can never lead."""
    models = tuple(models)
    sc = _scores(values, models, cfg)
    plan = sc.plan
    bench_of = np.repeat(
        np.arange(len(plan.w_bench)), np.diff(np.append(plan.metric_starts, len(plan.w_metric)))
    )
    cat_of = np.repeat(
        np.arange(len(plan.w_cat)), np.diff(np.append(plan.bench_starts, len(plan.w_bench)))
    )
    live = (plan.w_metric > 0) & (plan.w_bench[bench_of] > 0) & (plan.w_cat[cat_of[bench_of]] > 0)
    ms = np.round(sc.metric_scores[:, live], TIE_DECIMALS)
    missing = np.isnan(ms)
    filled = np.where(missing, 0.0, ms)
    out: dict[str, list[str]] = {}
    for i, name in enumerate(models):
        same = (missing == missing[i]).all(axis=1)
        geq = (filled >= filled[i]).all(axis=1)
        gt = (filled > filled[i]).any(axis=1)
        dom = np.nonzero(same & geq & gt)[0]
        out[name] = [models[j] for j in dom]
    return out
