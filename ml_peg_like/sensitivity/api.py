"""Public entry points: stability intervals, what-if values and dominance."""

from __future__ import annotations

import time

import numpy as np

from ..config import Config
from ..errors import ConfigError, Problem
from ..scoring import Scores, score_values
from ..support.lazy import lazy_module
from .dominance import dominance_of
from .families import LevelsMemo, WeightFamily, levels_of, param_families
from .walk import global_interval, leader_intervals, nearest_first

pd = lazy_module("pandas")  # imported on first use: the first page needs none


def _scores(values, models, cfg: Config, instances=None) -> Scores:
    return score_values(np.asarray(values, dtype=float), tuple(models), cfg, instances)


def families(sc: Scores, paths=None, memo: LevelsMemo | None = None) -> list:
    """The weight family and one family per (normaliser, editable numeric field); ``paths``:
    only the values of these key paths (None: every value). The levels' sums are computed once,
    for the values asked only (``memo``: the benchmark level from the last state's)."""
    levels = levels_of(sc, paths, memo)
    return [WeightFamily(sc, paths, levels), *param_families(sc, paths, levels)]


def leader_intervals_of(
    sc: Scores, paths=None, memo: LevelsMemo | None = None
) -> dict[tuple[str, str], tuple]:
    """``{(path, field): (current, low, high)}``: the stability intervals of the leader(s) of
    ``sc`` for the values of ``paths`` (None: all), as in :func:`stability_intervals`
    (``memo``: a :class:`~.families.LevelsMemo` of the states asked before)."""
    leaders = np.nonzero((sc.ranks <= 1) & ~np.isnan(sc.overall_scores))[0]
    out = {}
    for fam in families(sc, paths, memo):
        low, high = leader_intervals(fam, leaders)
        for k, (p, f) in enumerate(zip(fam.paths, fam.fields, strict=True)):
            out[(p, f)] = (float(fam.t0[k]), float(low[k]), float(high[k]))
    return out


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


def stability_intervals(
    values, models, cfg: Config, top_k: int = 1, instances=None
) -> pd.DataFrame:
    """For every weight and numeric threshold/parameter: the interval [low, high] around its
    current value in which, all else fixed, the current rank-1 model(s) stay first (ties count);
    with ``top_k`` > 1, in which every model now ranked <= k stays ranked <= k.

    Columns ``path, field, current, low, high`` (``inf``/``-inf`` for unbounded ends; NaN when
    no model has an overall score). Thresholds move within their direction: the interval of a
    ``bad`` below ``good`` ends at ``good`` at most.

    ``instances``: the per-instance blocks (``RawData.aligned_instances``). The thresholds and
    parameters of a per-instance metric get no row (its score is a mean of instance scores, which
    the exact walk does not model); its weight does (exact: weights act on metric scores).
    """
    sc = _scores(values, models, cfg, instances)
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


def what_if(values, models, cfg: Config, model: str, instances=None) -> pd.DataFrame:
    """For every weight and numeric threshold/parameter: the value nearest the current one at
    which ``model`` ranks first (a tie for first counts), changing that value alone; NaN when
    no value does. Columns ``path, field, current, value``. Per-instance metrics: as in
    :func:`stability_intervals` (weights only)."""
    models = tuple(models)
    if model not in models:
        known = ", ".join(models)
        raise ConfigError([Problem("model", f"no model {model!r} (known: {known})")])
    return what_if_of(_scores(values, models, cfg, instances), models.index(model))


class Budget:
    """A wall-clock allowance: ``over()`` once ``seconds`` have passed since it was made (never
    with ``seconds`` None)."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def over(self) -> bool:
        return self.seconds is not None and self.elapsed() > self.seconds


def what_if_of(sc: Scores, m: int, budget: float | None = None) -> pd.DataFrame:
    """:func:`what_if` for model index ``m`` of already computed scores. ``budget`` (seconds):
    stop examining values once it is spent; the values not examined get NaN and the frame's
    ``attrs["stopped"]`` says ``{"after_s", "examined", "total"}`` (absent when complete)."""
    rows = []
    clock = Budget(budget)
    examined = total = 0
    for fam in families(sc):
        value = np.full(len(fam.t0), np.nan)
        if not (np.isnan(sc.overall_scores[m]) and fam.kind != "weight"):
            for col in range(len(fam.t0)):  # (thresholds never give a model without one a score)
                if clock.over():
                    break
                value[col] = nearest_first(fam, col, m)
                examined += 1
        else:
            examined += len(fam.t0)
        total += len(fam.t0)
        rows.append(
            pd.DataFrame(
                {"path": fam.paths, "field": fam.fields, "current": fam.t0, "value": value}
            )
        )
    out = _order(sc.config, pd.concat(rows, ignore_index=True))
    if examined < total:
        out.attrs["stopped"] = {"after_s": clock.elapsed(), "examined": examined, "total": total}
    return out


def dominance(values, models, cfg: Config, instances=None) -> dict[str, list[str]]:
    """For each model, the models that dominate it: at least as good on every metric with a
    positive effective weight (metric, benchmark and category weights all > 0) after
    normalisation, strictly better on one, and missing the same metrics. They stay ahead of it
    under any weights, so a dominated model can never lead."""
    return dominance_of(_scores(values, tuple(models), cfg, instances))
