"""Quantities to plot against each other, their values per model, and the Pareto front
(no Dash, no Plotly: the dashboard's Explore and Compare views draw what this computes).

A quantity is named by text (the URL's ``x=``, ``y=``, ``c=``):

* ``overall``: the overall score; ``rank``: the overall rank (lower is better);
* a category, benchmark or metric key path (``Cat``, ``Cat/Bench``, ``Cat/Bench/Metric``, or the
  short forms the config accepts): its score (higher is better);
* ``raw:Cat/Bench/Metric``: the metric's raw value (better as the metric says, else no direction);
* ``attr:NAME``: a column of ``models.csv``: numbers, dates (ISO text) or categories (no
  direction).

:func:`pareto_front` gives the models no other model beats on both of two directed quantities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import Benchmark, Category, Config, Metric
from .errors import ConfigError, Problem
from .scoring import Scores
from .support.lazy import lazy_module

pd = lazy_module("pandas")  # imported on first use: the first page needs none

HIGHER = "higher"
LOWER = "lower"
#: value kinds: numbers, dates (ISO text), categories (text)
NUMBER, DATE, CATEGORY = "number", "date", "category"
OVERALL = "overall"
RANK = "rank"
RAW_PREFIX = "raw:"
ATTR_PREFIX = "attr:"


@dataclass(frozen=True)
class Quantity:
    """A parsed quantity: ``kind`` is overall, rank, score, raw or attr; ``path`` the full key
    path (score, raw) or the attribute's name; ``better`` higher, lower or None."""

    text: str
    kind: str
    path: str
    label: str
    better: str | None
    unit: str | None = None


def parse_quantity(cfg: Config, text: str, attributes: pd.DataFrame | None = None) -> Quantity:
    """The quantity named by ``text``; ConfigError (naming it) when there is none."""
    t = (text or "").strip()
    if t == OVERALL:
        return Quantity(t, OVERALL, "", "Overall score", HIGHER)
    if t == RANK:
        return Quantity(t, RANK, "", "Rank", LOWER)
    if t.startswith(ATTR_PREFIX):
        name = t[len(ATTR_PREFIX) :]
        if attributes is None or name not in attributes.columns:
            raise ConfigError([Problem(t, f"no model attribute {name!r} in models.csv")])
        return Quantity(t, "attr", name, name, None)
    raw = t.startswith(RAW_PREFIX)
    path = t[len(RAW_PREFIX) :] if raw else t
    try:
        node = cfg.node(path)
    except KeyError:
        raise ConfigError([Problem(t or "quantity", "no such quantity")]) from None
    full = cfg.full_path(path)
    if raw:
        if not isinstance(node, Metric):
            raise ConfigError([Problem(t, "a raw value needs a metric's key path")])
        unit = node.unit
        label = f"{full} (raw{', ' + unit if unit else ''})"
        return Quantity(RAW_PREFIX + full, "raw", full, label, node.direction, unit)
    return Quantity(full, "score", full, f"{full} score", HIGHER)


def quantity_options(cfg: Config, attributes: pd.DataFrame | None = None) -> list[tuple[str, str]]:
    """(value, label) of every quantity of a dataset, in a reading order."""
    out = [(OVERALL, "Overall score"), (RANK, "Rank")]
    for c in cfg.categories:
        out.append((c.name, f"{c.name} score"))
        for b in c.benchmarks:
            bp = f"{c.name}/{b.name}"
            out.append((bp, f"{bp} score"))
            for m in b.metrics:
                mp = f"{bp}/{m.name}"
                out.append((mp, f"{mp} score"))
                out.append((RAW_PREFIX + mp, f"{mp} (raw)"))
    if attributes is not None:
        out += [(ATTR_PREFIX + str(a), f"{a} (attribute)") for a in attributes.columns]
    return out


def attribute_kind(values: pd.Series) -> str:
    """number, date or category: numbers when every non-empty value is a number, dates when
    every one is an ISO date (``2024-05-01``, optionally with a time), else categories."""
    s = values.dropna().astype(str).str.strip()
    s = s[s != ""]
    if s.empty:
        return CATEGORY
    if pd.to_numeric(s, errors="coerce").notna().all():
        return NUMBER
    if s.str.match(r"^\d{4}-\d{2}(-\d{2})?([T ][0-9:.]+)?$").all():
        if pd.to_datetime(s, errors="coerce", format="ISO8601").notna().all():
            return DATE
    return CATEGORY


def attribute_column(attributes: pd.DataFrame | None, name: str, models) -> tuple[str, list]:
    """(kind, values per model): floats (NaN missing), ISO date text or text (None missing)."""
    if attributes is None or name not in attributes.columns:
        return CATEGORY, [None] * len(models)
    col = attributes[name].reindex(list(models))
    kind = attribute_kind(col)
    if kind == NUMBER:
        return kind, pd.to_numeric(col, errors="coerce").astype(float).tolist()
    out = []
    for v in col.tolist():
        s = "" if v is None or v != v else str(v).strip()
        out.append(s or None)
    if kind == DATE:
        out = [
            None
            if s is None
            else pd.Timestamp(s).strftime("%Y-%m-%d")
            if len(s) <= 10
            else pd.Timestamp(s).isoformat()
            for s in out
        ]
    return kind, out


def quantity_values(
    scores: Scores, q: Quantity, attributes: pd.DataFrame | None = None
) -> tuple[str, list]:
    """(kind, value per model of ``scores.models``): numbers (NaN = missing) for scores, raw
    values and ranks (an unranked model: NaN); an attribute as :func:`attribute_column`."""
    if q.kind == "attr":
        return attribute_column(attributes, q.path, scores.models)
    if q.kind == OVERALL:
        v = np.asarray(scores.overall_scores, float)
    elif q.kind == RANK:
        v = np.asarray(scores.ranks, float).copy()
        v[np.isnan(np.asarray(scores.overall_scores, float))] = np.nan
    else:
        cfg = scores.config
        node = cfg.node(q.path)
        plan = scores.plan
        if isinstance(node, Metric):
            j = plan.metric_paths.index(q.path)
            v = (scores.raw_values if q.kind == "raw" else scores.metric_scores)[:, j]
        elif isinstance(node, Benchmark):
            v = scores.bench_scores[:, plan.benchmarks.index(node.name)]
        elif isinstance(node, Category):
            v = scores.cat_scores[:, plan.categories.index(node.name)]
        else:  # pragma: no cover (parse_quantity names only these)
            raise ConfigError([Problem(q.text, "no such quantity")])
    return NUMBER, np.asarray(v, float).tolist()


def pareto_front(x, y, x_better: str, y_better: str) -> list[int]:
    """Indices of the points no other point dominates (at least as good on both quantities and
    better on one), ordered by x ascending; points with a missing value take no part."""
    xs = np.asarray(x, float)
    ys = np.asarray(y, float)
    sx = 1.0 if x_better == HIGHER else -1.0
    sy = 1.0 if y_better == HIGHER else -1.0
    ok = np.flatnonzero(np.isfinite(xs) & np.isfinite(ys))
    if ok.size == 0:
        return []
    gx, gy = sx * xs[ok], sy * ys[ok]  # both maximised
    order = np.lexsort((-gy, -gx))  # x descending, then y descending
    front: list[int] = []
    best = -np.inf
    i = 0
    while i < order.size:
        j = i
        while j < order.size and gx[order[j]] == gx[order[i]]:
            j += 1
        top = gy[order[i]]
        if top > best:  # the best y at this x, unless a larger x has as good a y
            front += [int(ok[k]) for k in order[i:j] if gy[k] == top]
            best = top
        i = j
    return sorted(front, key=lambda k: (xs[k], ys[k]))


def compare_rows(scores: Scores, models: list[str]) -> list[dict]:
    """Rows of the Compare table: every category, benchmark and metric (depth-first), each
    ``{path, level, name, scores: [...], raw: [...] or None, unit}`` with one entry per model
    (NaN missing); the differences to the first model are ``scores[i] - scores[0]``."""
    pos = {m: i for i, m in enumerate(scores.models)}
    rows_ix = [pos[m] for m in models if m in pos]
    cfg = scores.config
    rows: list[dict] = [
        dict(path="", level=0, name="Overall", scores=_pick(scores.overall_scores, rows_ix))
    ]
    k = j = 0
    for i, c in enumerate(cfg.categories):
        rows.append(
            dict(path=c.name, level=1, name=c.name, scores=_pick(scores.cat_scores[:, i], rows_ix))
        )
        for b in c.benchmarks:
            bp = f"{c.name}/{b.name}"
            rows.append(
                dict(
                    path=bp, level=2, name=b.name, scores=_pick(scores.bench_scores[:, k], rows_ix)
                )
            )
            k += 1
            for m in b.metrics:
                rows.append(
                    dict(
                        path=f"{bp}/{m.name}",
                        level=3,
                        name=m.name,
                        scores=_pick(scores.metric_scores[:, j], rows_ix),
                        raw=_pick(scores.raw_values[:, j], rows_ix),
                        unit=m.unit,
                    )
                )
                j += 1
    return rows


def _pick(col, ix: list[int]) -> list[float]:
    a = np.asarray(col, float)
    return [float(a[i]) for i in ix]
