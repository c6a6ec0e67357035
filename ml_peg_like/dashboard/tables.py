"""Grid contents: column definitions and row data of the one table each view shows.

Pure functions of a :class:`~ml_peg_like.scoring.Scores` (no Dash). Rows carry numbers (scores
rounded to 9 decimals, raw values as they are); the browser formats them with the functions in
``assets/dashAgGridFunctions.js``, whose Python twins (:func:`fmt_score`, :func:`fmt_raw`) the
tests use to predict the text on screen.

Views: ``""`` the overview (a column per category), ``"Cat"`` a category (a column per
benchmark), ``"Cat/Bench"`` a benchmark (a column per metric: raw values or normalised scores).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import aggregation as agg
from ..config import Benchmark, Category, Config, Metric, ModelRef
from ..numfmt import MISSING_TEXT, fmt_raw, fmt_score  # noqa: F401 (re-exported)
from ..scoring import Scores, rank_change, rank_ties
from . import contrib, ids
from .reasoncodes import level_reasons
from .rowblock import RowTable

DIGITS = 9


# ------------------------------------------------------------------------------------------------
# Formatting twins of the browser's functions
# ------------------------------------------------------------------------------------------------


# fmt_score / fmt_raw (the twins of fmtScore / fmtRaw) are ml_peg_like.numfmt's: one rule.


def fmt_coverage(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING_TEXT
    return f"{math.floor(float(value) * 100 + 0.5)}%"


# ------------------------------------------------------------------------------------------------
# Views
# ------------------------------------------------------------------------------------------------


def view_node(cfg: Config, view: str) -> Category | Benchmark | None:
    """The category or benchmark a view shows (None: overview or an unknown path)."""
    if not view:
        return None
    try:
        node = cfg.node(view)
    except KeyError:
        return None
    return node if isinstance(node, Category | Benchmark) else None


def canonical_view(cfg: Config, view: str | None) -> str:
    """A valid view path: ``""``, ``Cat`` or ``Cat/Bench`` (unknown paths fall back to ``""``)."""
    node = view_node(cfg, view or "")
    if node is None:
        return ""
    return cfg.full_path(view)


def _round(arr: np.ndarray) -> list:
    """Floats rounded to DIGITS decimals, NaN -> None (JSON null)."""
    r = np.round(np.asarray(arr, dtype=float), DIGITS)
    out = r.astype(object)
    out[np.isnan(r)] = None
    return out.tolist()


#: reason codes (aggregation's uint8 codes while computing: object arrays of letters cost ~50 ms
#: at 1,000 x 1,000); a letter per code only for the columns a view sends
_LETTERS = np.array(["", "n", "t", "z", "i"], dtype=object)
assert (agg.PRESENT, agg.NO_DATA, agg.NO_THRESHOLD, agg.EXCLUDED, agg.INVALIDATED) == (
    0,
    1,
    2,
    3,
    4,
)


#: the tooltip of a missing cell by its reason code (the grid's JS reads them by code)
REASON_BY_CODE = {code: text[:1].upper() + text[1:] for code, text in agg.REASON_TEXT.items()}


def missing_reasons(
    child_scores: np.ndarray,
    weights: np.ndarray,
    starts: np.ndarray,
    parent: np.ndarray,
    child_codes: np.ndarray | None = None,
) -> np.ndarray:
    """Reason codes (models x groups) for missing parent scores: '' where present.

    ``n`` no child has data (and none was itself invalidated, per ``child_codes``), ``i`` a
    missing child invalidated it, ``z`` every weight of the group is 0.
    """
    if child_codes is not None and child_codes.dtype == object:
        lookup = {letter: k for k, letter in enumerate(_LETTERS)}
        child_codes = np.vectorize(lookup.get, otypes=[np.uint8])(child_codes)
    return _LETTERS[agg.reasons(child_scores, weights, starts, parent, child_codes)]


class Layout:
    """Index arithmetic of a config: which columns of the score matrices a view shows."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.cat_index = {c.name: i for i, c in enumerate(cfg.categories)}
        self.bench_index: dict[str, int] = {}
        self.bench_metrics: dict[str, list[int]] = {}
        self.cat_benches: dict[str, list[int]] = {}
        j = k = 0
        for c in cfg.categories:
            self.cat_benches[c.name] = []
            for b in c.benchmarks:
                self.bench_index[b.name] = k
                self.cat_benches[c.name].append(k)
                self.bench_metrics[b.name] = list(range(j, j + len(b.metrics)))
                j += len(b.metrics)
                k += 1


def _header_tip(node, extra: str = "") -> str:
    parts = []
    if getattr(node, "description", None):
        parts.append(node.description)
    if extra:
        parts.append(extra)
    parts.append(f"weight {node.weight:g}" + (" (excluded)" if node.weight == 0 else ""))
    return "\n".join(parts)


def resolved_params(scores: Scores, j: int) -> dict[str, float]:
    """The normaliser parameters of metric column ``j`` as used (thresholds resolved)."""
    for name, cols, _static, _dyn in scores.plan.groups:
        hit = np.flatnonzero(cols == j)
        if hit.size:
            i = int(hit[0])
            out = {}
            for k, arr in scores.resolved.get(name, {}).items():
                v = float(arr[i])
                if not math.isnan(v):
                    out[k] = v
            return out
    return {}


def unresolved_thresholds(scores: Scores, j: int, path: str | None = None) -> dict[str, str]:
    """``{field: why}``: the ``{model: NAME}`` parameters of metric column ``j`` (at ``path``,
    when the caller has it) whose model has no value (the metric then has no score)."""
    cfg = scores.config
    metric = cfg.node(path if path is not None else scores.plan.metric_paths[j])
    if not isinstance(metric, Metric):
        return {}
    refs = {f: v for f in metric.norm.editable if isinstance(v := metric.value(f), ModelRef)}
    if not refs:
        return {}
    params = resolved_params(scores, j)
    inst = scores.instances.get(j)  # per instance: resolved on each instance
    out = {}
    for f, ref in refs.items():
        if inst is not None:
            i = scores.models.index(ref.model) if ref.model in scores.models else None
            if i is not None and not np.isnan(inst.values[i]).all():
                continue
        if f not in params:
            known = ref.model in scores.models
            out[f] = f"{f} is the value of model {ref.model}, " + (
                "which has none for this metric" if known else "which is not on this board"
            )
    return out


def threshold_problems(scores: Scores, paths=None) -> dict[tuple[str, str], str]:
    """``{(metric path, field): why}`` of every unresolved ``{model: NAME}`` threshold (of the
    metrics at ``paths``; None: all)."""
    plan = scores.plan
    # only a metric with a {model: NAME} parameter can have one (the plan's data-driven ones)
    refs = {
        int(cols[i])
        for _name, cols, _static, dynamic in plan.groups
        for i, _pn, spec, _metric in dynamic
        if isinstance(spec, ModelRef)
    }
    out = {}
    for j in sorted(refs):
        p = plan.metric_paths[j]
        if paths is None or p in paths:
            for f, why in unresolved_thresholds(scores, j, p).items():
                out[(p, f)] = why
    return out


SCORE_COL = {
    "type": "rightAligned",
    "cellClass": "num",
    "filter": False,
    "width": 96,
}


def header_width(header: str, lo: int = 96, hi: int = 190) -> int:
    """A column width that fits a header of this length on at most two lines."""
    longest = max((len(w) for w in header.split()), default=0)
    return int(min(hi, max(lo, 7.5 * max(longest, len(header) / 2) + 34)))


def live_getter(kind: str, index: int = 0) -> dict[str, str]:
    """The valueGetter of a cell that shows the live result's ``kind`` (``assets/live.js``:
    "o" overall, "cov" its coverage, "c" category, "ccov" its coverage, "b" benchmark, "s" a
    metric's score, "r" its raw value, "rank", "d" the rank change) of column ``index``."""
    return {"function": f"mplValue(params, '{kind}', {int(index)})"}


def _score_col(
    col_id: str,
    src: tuple[str, int],
    header: str,
    scale: float,
    *,
    tip: str = "",
    klass: str = "",
    **kw,
):
    # classes go to AG Grid as lists of single names: given one string, AG Grid 35 removes every
    # name of the old string when it changes ("drill modified" -> "drill loses "drill")
    kind, index = src
    col = {
        "colId": col_id,
        "valueGetter": live_getter(kind, index),
        "headerName": header,
        "headerTooltip": tip or header,
        "valueFormatter": {"function": f"fmtScore(params.value, {scale:g})"},
        "cellStyle": {"function": f"scoreStyle(params, '{kind}', {index})"},
        "tooltipValueGetter": {"function": f"missingTip(params, '{kind}', {index})"},
        **SCORE_COL,
        "width": header_width(header),
    }
    if klass:
        col["headerClass"] = klass.split()
        col["cellClass"] = ["num", *klass.split()]
        col.update(_header_component(klass))
    col.update(kw)
    return col


def _header_component(klass: str) -> dict[str, str]:
    """The header component of a column whose name opens a view or selects a metric (its
    classes ``klass`` hold :data:`ids.CLASS_DRILL` or :data:`ids.CLASS_METRIC`), else none."""
    names = klass.split()
    if ids.CLASS_DRILL in names or ids.CLASS_METRIC in names:
        return {
            "headerComponent": ids.HEADER_COMPONENT,
            # Enter / Space on one of its buttons press that button only (AG Grid's colDef
            # callback: the grid takes no action of its own for that key, here a sort)
            "suppressHeaderKeyboardEvent": {"function": "headerOwnKey(params)"},
        }
    return {}


def _coverage_col(col_id: str, src: tuple[str, int], tip: str) -> dict:
    kind, index = src
    return {
        "colId": col_id,
        "valueGetter": live_getter(kind, index),
        "headerName": "Coverage",
        "headerTooltip": tip,
        "valueFormatter": {"function": "fmtCoverage(params.value)"},
        "type": "rightAligned",
        "cellClass": "num cov",
        "width": 96,
    }


def score_change_col(scale: float) -> dict:
    """The score change column: overall score now minus the baseline's (signed; "—" without
    a score in either; sortable by its number)."""
    return {
        "colId": ids.COL_SCORE_DELTA,
        "valueGetter": live_getter("ds"),
        "headerName": "Δ score",
        "headerTooltip": "Overall score now minus the baseline's (the published settings, or "
        "the pinned view); '—': no overall score now or in the baseline",
        "width": 84,
        "valueFormatter": {"function": f"fmtScoreChange(params.value, {scale:g})"},
        "comparator": {"function": "rankCompare"},  # no score: last either way
        "cellClassRules": {  # assets/dashAgGridFunctions.js deltaKind
            "up": {"function": "deltaKind(params) === 'up'"},
            "down": {"function": "deltaKind(params) === 'down'"},
        },
        "cellClass": "num delta",
        "type": "rightAligned",
    }


def column_defs(
    scores: Scores,
    view: str,
    *,
    show: str = "raw",
    changed: set[str] | None = None,
    metric: str = "",
) -> list[dict]:
    """AG Grid column definitions for ``view`` (see module doc). ``changed``: key paths whose
    settings differ from the defaults (their headers are marked)."""
    cfg = scores.config
    scale = cfg.scale
    changed = changed or set()
    cols: list[dict] = [
        {
            "colId": ids.COL_RANK,
            "valueGetter": live_getter("rank"),
            "headerName": "#",
            "headerTooltip": "Rank by overall score (1 = best; '=2': a shared rank, scores "
            "within 1e-9 of each other; '—': no overall score, no rank)",
            "width": 58,
            "type": "rightAligned",
            "valueFormatter": {"function": "fmtRank(params)"},
            "comparator": {"function": "rankCompare"},
            "cellClass": "num rank",
            "pinned": "left",
            "sort": "asc",
        },
        {
            "colId": ids.COL_DELTA,
            "valueGetter": live_getter("d"),
            "headerName": "±",
            "headerTooltip": "Rank change against the baseline: the published settings, or "
            "the view pinned by 'Compare against this view' (▲ up, ▼ down; 'new': ranked now, "
            "not before; 'no score': no overall score now)",
            "width": 58,
            "valueFormatter": {"function": "fmtDelta(params.value)"},
            "cellClassRules": {  # assets/dashAgGridFunctions.js deltaKind
                "up": {"function": "deltaKind(params) === 'up'"},
                "down": {"function": "deltaKind(params) === 'down'"},
                "word": {"function": "deltaKind(params) === 'word'"},
            },
            "cellClass": "num delta",
            "type": "rightAligned",
            "pinned": "left",
        },
        {
            "field": ids.COL_MODEL,
            "colId": ids.COL_MODEL,
            "headerName": "Model",
            "headerTooltip": "Model",
            "pinned": "left",
            "width": 215,
            "cellClass": "model",
            # the display name shown (sorted and searched by it); the key, "click for the model
            # card" and, for a dominated model, who dominates it in the tooltip (a mark after its
            # name, from CSS)
            "valueGetter": {"function": "modelName(params)"},
            "tooltipValueGetter": {"function": "modelTip(params)"},
            "cellClassRules": {"dominated": {"function": "isDominated(params)"}},
        },
        _score_col(
            ids.COL_OVERALL,
            ("o", 0),
            "Overall",
            scale,
            tip="Overall score: weighted mean of the category scores",
            pinned="left",
            klass="overall",
            tooltipValueGetter={"function": "overallTip(params)"},
        ),
        score_change_col(scale),  # the first column beside the pinned ones
    ]
    if cfg.uses_skip and not view:
        cols.append(
            _coverage_col(
                ids.COL_COVERAGE,
                ("cov", 0),
                "Share of the overall weight with data (policy 'skip')",
            )
        )
    node = view_node(cfg, view)
    bars = contrib.column(cfg, view)  # the breakdown bars (overview and category views)
    if node is None:
        cols += [bars] if bars else []
        for i, c in enumerate(cfg.categories):
            klass = (
                ids.CLASS_DRILL
                + (" excluded" if c.weight == 0 else "")
                + (
                    " modified"
                    if any(p == c.name or p.startswith(c.name + "/") for p in changed)
                    else ""
                )
            )
            cols.append(
                _score_col(
                    ids.cat_col(i),
                    ("c", i),
                    c.name,
                    scale,
                    tip=_header_tip(
                        c, f"{len(c.benchmarks)} benchmarks · click the name or a cell to open"
                    ),
                    klass=klass,
                )
            )
        return cols
    path = cfg.full_path(view)
    if isinstance(node, Category):
        ci = Layout(cfg).cat_index[node.name]
        cols.append(
            _score_col(
                ids.COL_CAT_SCORE,
                ("c", ci),
                f"{node.name} score",
                scale,
                tip=_header_tip(node, "category score"),
                klass="level" + (" excluded" if node.weight == 0 else ""),
            )
        )
        if agg.is_skip(cfg.policy(node)):
            cols.append(
                _coverage_col(
                    ids.COL_CAT_COVERAGE,
                    ("ccov", ci),
                    f"Share of the weight of {node.name} with data",
                )
            )
        cols += [bars] if bars else []
        for b in node.benchmarks:
            k = Layout(cfg).bench_index[b.name]
            bp = f"{path}/{b.name}"
            klass = (
                ids.CLASS_DRILL
                + (" excluded" if b.weight == 0 else "")
                + (" modified" if any(p == bp or p.startswith(bp + "/") for p in changed) else "")
            )
            cols.append(
                _score_col(
                    ids.bench_col(k),
                    ("b", k),
                    b.name,
                    scale,
                    tip=_header_tip(
                        b, f"{len(b.metrics)} metrics · click the name or a cell to open"
                    ),
                    klass=klass,
                )
            )
        return cols
    # benchmark view
    lay = Layout(cfg)
    cols.append(
        _score_col(
            ids.COL_BENCH_SCORE,
            ("b", lay.bench_index[node.name]),
            f"{node.name} score",
            scale,
            tip=_header_tip(node, "benchmark score"),
            klass="level" + (" excluded" if node.weight == 0 else ""),
        )
    )
    for j, m in zip(lay.bench_metrics[node.name], node.metrics, strict=True):
        mp = f"{path}/{m.name}"
        header = m.name + (f" [{m.unit}]" if m.unit else "")
        tip = _header_tip(m, f"normaliser {m.normaliser} · click the name to plot its curve")
        klass = (
            ids.CLASS_METRIC
            + (" excluded" if m.weight == 0 else "")
            + (" modified" if mp in changed else "")
            + (" selected" if metric == mp else "")
            + (" tl" if m.normaliser == "traffic_light" else "")
        )
        if show == "score":
            cols.append(_score_col(ids.score_col(j), ("s", j), header, scale, tip=tip, klass=klass))
        else:
            cols.append(
                {
                    "colId": ids.raw_col(j),
                    "valueGetter": live_getter("r", j),
                    "headerName": header,
                    "headerTooltip": tip,
                    "valueFormatter": {"function": "fmtRaw(params.value)"},
                    "cellStyle": {"function": f"scoreStyle(params, 's', {j})"},
                    "tooltipValueGetter": {"function": f"rawTip(params, {j}, {scale:g})"},
                    **SCORE_COL,
                    "headerClass": klass.split(),
                    "cellClass": ["num", *klass.split()],
                    "width": header_width(header, 104),
                    **_header_component(klass),
                }
            )
    return cols


def _names_of(keys: list[str], names: Mapping[str, str] | None) -> list[str | None]:
    """The display name of each key where it differs from the key, else None."""
    shown = [(names or {}).get(k) for k in keys]
    return [nm if nm and nm != k else None for nm, k in zip(shown, keys, strict=True)]


_names_kept: list = []  # [(models, names, column)]: the last one (read, never changed)


def _names_column(models, names: Mapping[str, str] | None) -> list[str | None]:
    """:func:`_names_of` every model, kept for the last ``models`` and ``names`` objects (the
    app's own, the same for every state; the entry holds them, so their ids stay theirs)."""
    kept = _names_kept[0] if _names_kept else None
    if kept is not None and kept[0] is models and kept[1] is names:
        return kept[2]
    column = _names_of(list(models), names)
    _names_kept[:] = [(models, names, column)]
    return column


def row_data(scores: Scores, view: str, **options) -> list[dict]:
    """One dict per model for ``view``: rank, rank change, model, overall, the view's columns,
    and ``_w`` (reason codes of the missing cells); the options are :func:`row_table`'s."""
    return row_table(scores, view, **options).rows()


def _rank_columns(scores: Scores, idx: np.ndarray, default_overall, among_shown: bool):
    """``(ranks, tied, delta)`` of the rows ``idx``: the ranking rule's ranks and the rank change
    against the defaults (scoring.rank_change: a number only for models ranked in both, else
    its word, "new" or "no score"); ``among_shown``: both rankings among these rows only."""
    ranks, tied = scores.ranks[idx], scores.tied[idx]
    before, after, sel = default_overall, scores.overall_scores, idx
    if among_shown:
        ranks, tied = rank_ties(scores.overall_scores[idx])
        after, sel = scores.overall_scores[idx], slice(None)
        if default_overall is not None:
            before = np.asarray(default_overall, dtype=float)[idx]
    if before is None:
        return ranks, tied, np.zeros(len(idx), dtype=np.int64)
    dnum, dword = rank_change(before, after)
    return ranks, tied, np.where(dword == "", dnum, dword)[sel]


#: a view's row columns: {column: values} and {column: reason codes}
Fields = tuple[dict[str, list], dict[str, np.ndarray]]


def _view_fields(scores: Scores, node: Any, idx: np.ndarray, codes: tuple, out: Fields) -> None:
    """The columns of a view's rows and their reason codes (``out``): the categories of the
    overall view (``node`` None), a category's benchmarks, or a benchmark's metrics.
    ``codes``: :func:`level_reasons` of ``scores``."""
    if node is None:
        _overall_fields(scores, idx, codes[1], out)
    elif isinstance(node, Category):
        _category_fields(scores, node, idx, codes, out)
    else:
        _bench_fields(scores, node, idx, codes[0], out)


def _overall_fields(scores: Scores, idx: np.ndarray, ccodes: np.ndarray, out: Fields) -> None:
    fields, reasons = out
    cfg = scores.config
    if cfg.uses_skip:
        fields[ids.COL_COVERAGE] = _round(scores.overall_coverage[idx])
    for i in range(len(cfg.categories)):
        fields[ids.cat_col(i)] = _round(scores.cat_scores[idx, i])
        reasons[ids.cat_col(i)] = ccodes[idx, i]


def _category_fields(
    scores: Scores, node: Category, idx: np.ndarray, codes: tuple, out: Fields
) -> None:
    fields, reasons = out
    cfg = scores.config
    lay = Layout(cfg)
    bcodes, ccodes = codes[0], codes[1]
    i = lay.cat_index[node.name]
    fields[ids.COL_CAT_SCORE] = _round(scores.cat_scores[idx, i])
    reasons[ids.COL_CAT_SCORE] = ccodes[idx, i]
    if agg.is_skip(cfg.policy(node)):
        fields[ids.COL_CAT_COVERAGE] = _round(scores.cat_coverage[idx, i])
    for k in lay.cat_benches[node.name]:
        fields[ids.bench_col(k)] = _round(scores.bench_scores[idx, k])
        reasons[ids.bench_col(k)] = bcodes[idx, k]


def _bench_fields(
    scores: Scores, node: Benchmark, idx: np.ndarray, bcodes: np.ndarray, out: Fields
) -> None:
    fields, reasons = out
    lay = Layout(scores.config)
    k = lay.bench_index[node.name]
    cols = lay.bench_metrics[node.name]
    fields[ids.COL_BENCH_SCORE] = _round(scores.bench_scores[idx, k])
    reasons[ids.COL_BENCH_SCORE] = bcodes[idx, k]
    mr = agg.metric_reasons(scores.raw_values[:, cols][idx], scores.metric_scores[:, cols][idx])
    for c, j in enumerate(cols):
        raw = scores.raw_values[idx, j]
        rv = raw.astype(object)  # Python floats, as they are
        rv[np.isnan(raw)] = None
        fields[ids.raw_col(j)] = rv.tolist()
        fields[ids.score_col(j)] = _round(scores.metric_scores[idx, j])
        reasons[ids.score_col(j)] = mr[:, c]
        reasons[ids.raw_col(j)] = mr[:, c]


def row_table(
    scores: Scores,
    view: str,
    *,
    default_overall: np.ndarray | None = None,
    models: list[str] | None = None,
    dominated: dict[str, list[str]] | None = None,
    names: Mapping[str, str] | None = None,
    rank_shown: bool = False,
) -> RowTable:
    """:func:`row_data`'s rows as columns (:class:`~.rowblock.RowTable`): a large table's
    block builds the dicts of its rows only. ``models``: show only these (display only;
    None: every model, [] none). ``dominated``: ``{model: models dominating it}`` (``_dom``).
    ``names``: ``{key: display name}`` (a row carries ``mn`` when it differs from the key).
    ``rank_shown``: ranks (and their change, against ``default_overall``) among the shown
    models only, by the same overall scores."""
    cfg = scores.config
    n = len(scores.models)
    if models is not None:
        keep = set(models)
        idx = np.array([i for i, m in enumerate(scores.models) if m in keep], dtype=np.intp)
    else:
        idx = np.arange(n, dtype=np.intp)
    fields: dict[str, list] = {}
    reasons: dict[str, np.ndarray] = {}
    ranks, tied, delta = _rank_columns(
        scores, idx, default_overall, rank_shown and models is not None
    )
    overall = scores.overall_scores[idx]
    fields[ids.COL_OVERALL] = _round(overall)
    codes = level_reasons(scores)
    reasons[ids.COL_OVERALL] = codes[2][idx, 0]
    _view_fields(scores, view_node(cfg, view), idx, codes, (fields, reasons))
    if models is None:  # every model: the names column is the same for every state
        keys_, shown = list(scores.models), _names_column(scores.models, names)
    else:
        keys_ = [scores.models[i] for i in idx]
        shown = _names_of(keys_, names)
    return RowTable(
        keys_,
        ranks,
        delta,
        shown,
        fields,
        [(k, _LETTERS[v].tolist()) for k, v in reasons.items() if v.any()],
        [scores.veto_reasons[i] for i in idx] if scores.veto_reasons else None,
        dominated,
        tied,
    )
