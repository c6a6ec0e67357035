"""The tables of a paper-ready export, built once for every file format and for the dashboard
and the CLI alike (:func:`build_report`; writers: :mod:`.xlsx`, :mod:`.latex`).

Rows are in rank order (the ranking rule of :mod:`ml_peg_like.scoring.ranks`; tied models in the
board's order; models without an overall score, which have no rank, last); every model sheet
starts with Rank, Model (the ``display_name`` of models.csv, else the key) and Key; the Overall
sheet has a Tied column (TRUE where the rank is shared).
Scores are multiplied by the config's scale; raw values are as read. Normalised score headers
carry no unit; raw value headers do (``Bench/Metric [unit]``).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import Config
from ..config.nodes import to_yaml_value
from ..models import display_names
from ..numfmt import SCORE_DIGITS, clean_digits, shortest
from ..scoring import Scores, rank_change, ranks_or_none, score_change
from ..support.lazy import lazy_module
from .provenance import baseline_record, provenance_of_scores, tool_version

pd = lazy_module("pandas")  # imported on first use: the first page needs none

RANK, NAME, KEY, TIED = "Rank", "Model", "Key", "Tied"
OVERALL, COVERAGE, CHANGE = "Overall", "Coverage", "Rank change vs defaults"
#: the columns of a report compared with a pinned baseline instead of the defaults
BASE_CHANGE, BASE_SCORE_CHANGE = "Rank change vs baseline", "Score change vs baseline"
ID_COLUMNS = (RANK, NAME, KEY)
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise_text(value):
    """Prefix a text cell that a spreadsheet would execute as a formula with a quote."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


@dataclass
class Report:
    """What an export holds: model sheets (``Overall``, ``Categories``, ``Benchmarks``,
    ``Metrics``) and the ``Settings`` rows ``(setting, value)``."""

    title: str
    sheets: dict[str, pd.DataFrame]
    settings: list[tuple[str, str]]
    score_columns: dict[str, list[str]]  # sheet -> its score columns (scaled scores)
    raw_columns: dict[str, list[str]] = field(default_factory=dict)  # sheet -> raw columns
    coverage_columns: dict[str, list[str]] = field(default_factory=dict)
    scale: float = 1.0
    digits: int = SCORE_DIGITS
    #: the provenance record (:mod:`.provenance`) every writer includes
    provenance: dict = field(default_factory=dict)
    #: each category's weight in the overall score (0: it does not count, by its own weight
    #: or because every benchmark in it has weight 0)
    weights: dict[str, float] = field(default_factory=dict)
    #: the changes from the defaults (key path -> {field: value}); empty: published defaults
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    missing: str = ""  # the missing-data policy
    uses_skip: bool = False  # some level skips missing children (the Coverage column)

    @property
    def categories(self) -> list[str]:
        ov = self.score_columns["Overall"]
        return [c for c in ov if c != OVERALL]


def _value_text(v: Any) -> str:
    v = to_yaml_value(v)
    if isinstance(v, Mapping) and "model" in v:
        return f"the value of model {v['model']}"
    if isinstance(v, float):
        return shortest(v)
    return str(v)


def _fmt_change(change: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {_value_text(v)}" for k, v in change.items())


def settings_rows(
    cfg: Config,
    *,
    source: str | None,
    changes: Mapping[str, Mapping[str, Any]] | None,
    n_models: int,
    n_total: int,
    model_filter: str | None,
    scale: float | None = None,
    extra: Iterable[tuple[str, str]] = (),
    now: _dt.datetime | None = None,
) -> list[tuple[str, str]]:
    """The Settings sheet: where the numbers come from and which settings made them."""
    now = now or _dt.datetime.now(_dt.UTC)
    rows = [
        ("Title", cfg.title),
        ("Data source", source or "(not given)"),
        ("Missing-data policy", cfg.missing),
    ]
    for c in cfg.categories:
        if c.missing:
            rows.append((f"Missing-data policy of {c.name}", c.missing))
    rows += [
        ("Scale", f"scores from 0 to {scale if scale is not None else cfg.scale:g}"),
        ("Models", f"{n_models} of {n_total}" + (f" ({model_filter})" if model_filter else "")),
    ]
    if changes:
        for path, change in changes.items():
            rows.append((f"Changed: {path}", _fmt_change(change)))
    else:
        rows.append(("Changes from the defaults", "none"))
    rows += list(extra)
    rows += [
        ("Package", f"ml-peg-like {tool_version()}"),
        ("Date", now.strftime("%Y-%m-%d %H:%M UTC")),
    ]
    if cfg.description:
        rows.insert(1, ("Description", cfg.description))
    return rows


def _order(scores: Scores) -> list[int]:
    """Rank order; tied models (and the unranked ones, last) in the board's order."""
    ranks = scores.ranks
    ranked = [i for i in range(len(ranks)) if not math.isnan(ranks[i])]
    unranked = [i for i in range(len(ranks)) if math.isnan(ranks[i])]
    ranked.sort(key=lambda i: (ranks[i], i))
    return ranked + unranked


def _counting_weight(cat) -> float:
    """A category's weight in the overall score: 0 when it, or every benchmark in it (every
    metric of each), has weight 0."""
    counts = any(b.weight > 0 and any(m.weight > 0 for m in b.metrics) for b in cat.benchmarks)
    return float(cat.weight) if counts else 0.0


def _floats(a: np.ndarray) -> list[float | None]:
    return [None if math.isnan(x) else float(x) for x in np.asarray(a, dtype=float)]


@dataclass
class _Selection:
    """The exported models (``order``: indices into ``scores.models``, in rank order) and the
    factor the scores are multiplied by."""

    scores: Scores
    order: list[int]
    names: list[str]
    k: float

    def __post_init__(self):
        ranks = ranks_or_none(self.scores.overall_scores, self.scores.ranks)
        self.rows = np.asarray(self.order, dtype=np.intp)
        self.ids = {
            RANK: [ranks[i] for i in self.order],
            NAME: [self.names[i] for i in self.order],
            KEY: [self.scores.models[i] for i in self.order],
        }

    def frame(self, cols: dict[str, Any]) -> pd.DataFrame:
        """A sheet: the rank, name and key columns, then ``cols``."""
        return pd.DataFrame({**self.ids, **cols}, columns=[*self.ids, *cols], dtype=object)

    def scaled(self, values: np.ndarray) -> list[float | None]:
        """Scores of the exported rows, times the scale."""
        return _floats(values[self.rows] * self.k)

    def plain(self, values: np.ndarray) -> list[float | None]:
        """Values of the exported rows as they are (coverage, raw values)."""
        return _floats(values[self.rows])


def _overall_before(sel: _Selection, before_scores: Scores) -> np.ndarray:
    """The overall scores of ``before_scores`` in the order of the exported scores' models."""
    pos = {m: i for i, m in enumerate(before_scores.models)}
    return np.array(
        [before_scores.overall_scores[pos[m]] if m in pos else np.nan for m in sel.scores.models]
    )


def _rank_change(sel: _Selection, default_scores: Scores) -> list[Any]:
    """Rank change of each exported model against its rank under the default scores."""
    before = _overall_before(sel, default_scores)
    delta, word = rank_change(before, sel.scores.overall_scores)  # the one rank-change rule
    return [word[i] or int(delta[i]) for i in sel.order]


def _baseline_columns(sel: _Selection, baseline_scores: Scores) -> dict[str, list[Any]]:
    """The rank change and the score change (times the scale) against a pinned baseline."""
    before = _overall_before(sel, baseline_scores)
    return {
        BASE_CHANGE: _rank_change(sel, baseline_scores),
        BASE_SCORE_CHANGE: sel.scaled(score_change(before, sel.scores.overall_scores)),
    }


def baseline_rows(defaults: Config, baseline: Config) -> list[tuple[str, str]]:
    """The Settings sheet's rows naming a pinned baseline: how many changes from the defaults
    and each of them."""
    changes = defaults.diff(baseline)
    n = sum(len(c) for c in changes.values())
    rows = [("Baseline", f"a pinned view: {n} change{'s' if n != 1 else ''} from the defaults")]
    rows += [(f"Baseline: {path}", _fmt_change(change)) for path, change in changes.items()]
    return rows


def _overall_sheet(sel: _Selection, change: list[Any] | None) -> tuple[dict[str, Any], list[str]]:
    """(columns of the Overall sheet, its coverage columns)."""
    scores, cats = sel.scores, list(sel.scores.plan.categories)
    ov: dict[str, Any] = {
        TIED: [bool(scores.tied[i]) for i in sel.order],
        OVERALL: sel.scaled(scores.overall_scores),
    }
    cov = []
    if scores.config.uses_skip:
        ov[COVERAGE] = sel.plain(scores.overall_coverage)
        cov = [COVERAGE]
    for j, c in enumerate(cats):
        ov[c] = sel.scaled(scores.cat_scores[:, j])
    if change is not None:
        ov[CHANGE] = change
    return ov, cov


def _categories_sheet(sel: _Selection) -> tuple[dict[str, Any], list[str]]:
    """(columns of the Categories sheet, its coverage columns)."""
    scores, cats = sel.scores, list(sel.scores.plan.categories)
    skip = scores.config.uses_skip
    cs: dict[str, Any] = {}
    for j, c in enumerate(cats):
        cs[c] = sel.scaled(scores.cat_scores[:, j])
        if skip:
            cs[f"{c} coverage"] = sel.plain(scores.cat_coverage[:, j])
    return cs, [f"{c} coverage" for c in cats] if skip else []


def _metrics_sheet(sel: _Selection) -> tuple[dict[str, Any], list[str], list[str]]:
    """(columns of the Metrics sheet: each metric's raw value, with its unit, and its score;
    the score columns; the raw columns)."""
    scores = sel.scores
    units = [m.unit for _c, _b, m in scores.config.iter_metrics()]
    ms: dict[str, Any] = {}
    mscore, mraw = [], []
    for j, col in enumerate(scores.plan.metric_columns):
        unit = units[j] if j < len(units) else None
        rname = f"{col} raw" + (f" [{unit}]" if unit else "")
        sname = f"{col} score"
        ms[rname] = sel.plain(scores.raw_values[:, j])
        ms[sname] = sel.scaled(scores.metric_scores[:, j])
        mraw.append(rname)
        mscore.append(sname)
    return ms, mscore, mraw


def build_report(
    scores: Scores,
    *,
    attributes: pd.DataFrame | None = None,
    models: Iterable[str] | None = None,
    source: str | None = None,
    defaults: Config | None = None,
    default_scores: Scores | None = None,
    model_filter: str | None = None,
    digits: int = SCORE_DIGITS,
    scale: float | None = None,
    now: _dt.datetime | None = None,
    origin: Mapping[str, Any] | None = None,
    baseline: Config | None = None,
    baseline_scores: Scores | None = None,
) -> Report:
    """The export of ``scores``: ``models`` (default: all) in rank order.

    ``attributes``: models.csv (display names); ``source``: where the data came from;
    ``defaults``: the config before the user's changes (the Settings sheet lists the
    differences); ``default_scores``: the scores under ``defaults`` (adds the rank change column
    when some setting changed); ``model_filter``: words describing the filter applied;
    ``origin``: the files' provenance records (``RawData.origin``).
    ``baseline`` / ``baseline_scores``: a pinned view and its scores: the Overall sheet then
    compares with them (rank change and score change vs baseline), the Settings sheet and the
    provenance name them.
    """
    cfg, plan = scores.config, scores.plan
    k = float(scale if scale is not None else cfg.scale)
    keep = set(models) if models is not None else None
    all_names = display_names(attributes, scores.models)
    order = [i for i in _order(scores) if keep is None or scores.models[i] in keep]
    sel = _Selection(scores, order, all_names, k)
    changes = defaults.diff(cfg) if defaults is not None else None
    change = None
    if default_scores is not None and (changes or defaults is None) and baseline_scores is None:
        change = _rank_change(sel, default_scores)
    ov, ov_cov = _overall_sheet(sel, change)
    base_cols = []  # the score change against a pinned baseline is a (scaled) score
    if baseline_scores is not None:
        ov.update(_baseline_columns(sel, baseline_scores))
        base_cols = [BASE_SCORE_CHANGE]
    cs, cs_cov = _categories_sheet(sel)
    bs = {b: sel.scaled(scores.bench_scores[:, j]) for j, b in enumerate(plan.benchmarks)}
    ms, mscore, mraw = _metrics_sheet(sel)
    cats = list(plan.categories)
    sheets = {
        "Overall": sel.frame(ov),
        "Categories": sel.frame(cs),
        "Benchmarks": sel.frame(bs),
        "Metrics": sel.frame(ms),
    }
    score_cols = {
        "Overall": [OVERALL, *cats, *base_cols],
        "Categories": cats,
        "Benchmarks": list(plan.benchmarks),
        "Metrics": mscore,
    }
    cov_cols = {"Categories": cs_cov}
    if ov_cov:
        cov_cols = {"Overall": ov_cov, **cov_cols}
    settings = settings_rows(
        cfg,
        source=source,
        changes=changes,
        n_models=len(order),
        n_total=len(scores.models),
        model_filter=model_filter,
        scale=k,
        now=now,
        extra=baseline_rows(defaults, baseline) if baseline is not None and defaults else (),
    )
    prov = provenance_of_scores(scores, origin=origin, defaults=defaults, scale=k, now=now)
    if baseline is not None:
        prov["baseline"] = baseline_record(defaults, baseline)
    return Report(
        title=cfg.title,
        sheets=sheets,
        settings=settings,
        score_columns=score_cols,
        raw_columns={"Metrics": mraw},
        coverage_columns=cov_cols,
        scale=k,
        digits=clean_digits(digits),
        provenance=prov,
        weights={c.name: _counting_weight(c) for c in cfg.categories},
        changes=prov["changes_from_defaults"],
        missing=cfg.missing,
        uses_skip=bool(cfg.uses_skip),
    )


def safe_file_stem(title: str, when: _dt.date | None = None, max_len: int = 60) -> str:
    """``<title>_<YYYY-MM-DD>`` with only letters, digits, ``-`` and ``_`` (a file name that
    every system accepts)."""
    when = when or _dt.date.today()
    stem = "".join(ch if (ch.isascii() and ch.isalnum()) or ch in "-_" else "_" for ch in title)
    stem = "_".join(p for p in stem.split("_") if p)[:max_len].strip("-_") or "scores"
    return f"{stem}_{when.isoformat()}"
