"""Sensitivity in the dashboard: beside every weight and threshold box its stability
interval ("leader holds for 0 – 1.33"), dominated models marked in the grid, the thresholds'
intervals shaded on the curve, and a "what would put this model first?" picker.

The intervals and the dominance marks are parts of the edit callback's response (one round trip
per edit): :class:`Sensitivity` computes them for the boxes of the view on screen only, memoised
per (change set, view). The picker runs its own callback on request (a what-if walk costs ~0.6 s
at ML-PEG scale); its apply / undo buttons are inputs of the edit callback, and an apply is an
edit of that box (``state.apply_edit``).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import Any

from dash import ALL, ClientsideFunction, Input, Output, State, dcc, html, no_update
from dash.exceptions import PreventUpdate

from ....config import Benchmark, Category, Config
from ....errors import ConfigError
from ....scoring import Scores
from ....sensitivity import DominanceMemo, LevelsMemo, leader_intervals_of, what_if_of
from ... import ids
from ...cache import ScoreCache
from ...state import (
    Changes,
    clean_changes,
    display_value,
    node_value,
    parse_box,
    same_value,
)
from . import modelsearch

MEMO = 32  # (change set, view) entries kept
MAX_WHATIF_ROWS = 25  # single changes listed (the smallest changes first)
#: the longest the picker's analysis runs inside a request (seconds of wall clock); what it has
#: not examined by then is left out, and the list says so
WHATIF_BUDGET_S = 3.0
#: what-if analyses running at once in this process (more clients wait up to the budget, then
#: are told the server is busy): a bound on the CPU many clients can ask for
WHATIF_AT_ONCE = 2
_WHATIF_SLOTS = threading.BoundedSemaphore(WHATIF_AT_ONCE)
WHATIF_BUSY = "The server is busy with other what-if analyses: try again in a moment."
APPLY, UNDO = "Apply", "Undo"
#: model attribute columns (models.csv) used as the model's display name, first found
DISPLAY_COLUMNS = ("display_name", "display", "name", "label")

#: added to the edit callback (components/editing/edit.py). The interval texts of the view are ONE
#: store output (not one output per box, each rendered as a component: ~50 ms of browser CPU
#: per edit at 30 boxes); assets/sensitivity.js writes them into the holders beside the boxes
EDIT_OUTPUTS = dict(
    sens_texts=Output(ids.SENS_TEXTS, "data"),
    whatif_label=Output(ids.whatif(ALL, ALL, ALL, ALL), "children"),
)
EDIT_INPUTS = dict(whatif=Input(ids.whatif(ALL, ALL, ALL, ALL), "n_clicks"))
WILDCARD_OUTPUTS = ("whatif_label",)


# ------------------------------------------------------------------------------------------------
# texts
# ------------------------------------------------------------------------------------------------


def fmt_end(v: float) -> str:
    """An interval's end: 3 significant figures, ``∞`` / ``-∞`` when unbounded."""
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    text = f"{v:.3g}"
    return "0" if text == "-0" else text


def interval_text(low: float, high: float) -> str:
    """``leader holds for LOW – HIGH`` ("" when no model has an overall score)."""
    if math.isnan(low) or math.isnan(high):
        return ""
    return f"leader holds for {fmt_end(low)} – {fmt_end(high)}"


def view_paths(cfg: Config, view: str) -> list[str]:
    """The key paths whose boxes ``view`` shows: the categories (overview), the benchmarks of a
    category, the metrics of a benchmark."""
    node = cfg.node(view) if view else None
    if node is None:
        return [c.name for c in cfg.categories]
    full = cfg.full_path(view)
    if isinstance(node, Category):
        return [f"{full}/{b.name}" for b in node.benchmarks]
    if isinstance(node, Benchmark):
        return [f"{full}/{m.name}" for m in node.metrics]
    return []


class ViewSensitivity:
    """The intervals of one view's values and the dominance of every model, for one state."""

    def __init__(self, intervals: dict[tuple[str, str], tuple], dominated: dict[str, list[str]]):
        self.intervals = intervals  # {(path, field): (current, low, high)}
        self.dominated = dominated
        self.texts = {k: interval_text(lo, hi) for k, (_c, lo, hi) in intervals.items()}

    def band(self, metric: str) -> dict[str, tuple[float, float]]:
        """``{field: (low, high)}`` of the good/bad thresholds of ``metric`` (curve bands)."""
        out = {}
        for field in ("good", "bad"):
            hit = self.intervals.get((metric, field))
            if hit is not None and not math.isnan(hit[1]):
                out[field] = (hit[1], hit[2])
        return out

    def store(self, shown: ViewSensitivity | None = None) -> Any:
        """The ``SENS_TEXTS`` store's data: ``{box name: text}`` of every box of the view;
        ``no_update`` when ``shown`` (the state the page shows now, same view) has the same
        texts."""
        if shown is not None and shown.texts == self.texts:
            return no_update
        return {ids.box_name(p, f): text for (p, f), text in self.texts.items()}


class Sensitivity:
    """What the edit callback asks: :meth:`view_state` per (change set, view), memoised."""

    def __init__(self, cache: ScoreCache):
        self.cache = cache
        self._memo: OrderedDict[tuple[str, str], ViewSensitivity] = OrderedDict()
        self._lock = threading.Lock()
        self._dominance = DominanceMemo()  # an edit of one threshold: one metric compared
        self._levels = LevelsMemo()  # ... and one category's benchmark sums

    def cached(self, key: str, view: str) -> ViewSensitivity | None:
        """The memoised state ``key`` of ``view``, None when it is not held."""
        with self._lock:
            return self._memo.get((key, view))

    def view_state(self, key: str, scores: Scores, view: str) -> ViewSensitivity:
        """The intervals of the boxes of ``view`` and the dominance, for the state ``key``
        (``encode_changes``) whose scores are ``scores``."""
        with self._lock:
            hit = self._memo.get((key, view))
            if hit is not None:
                self._memo.move_to_end((key, view))
                return hit
        paths = view_paths(scores.config, view)
        intervals = leader_intervals_of(scores, paths, self._levels)
        out = ViewSensitivity(intervals, self._dominance(scores))
        with self._lock:
            self._memo[(key, view)] = out
            while len(self._memo) > MEMO:
                self._memo.popitem(last=False)
        return out


# ------------------------------------------------------------------------------------------------
# apply / undo (inside the edit callback)
# ------------------------------------------------------------------------------------------------


def _value_now(defaults: Config, changes: Changes, path: str, field: str) -> Any:
    if field in changes.get(path, {}):
        return changes[path][field]
    return node_value(defaults, path, field)


def click_edit(trig: dict, defaults: Config, changes: Changes) -> dict[tuple[str, str], str]:
    """The box edit a click on a what-if button makes: its value when the box does not hold it
    (apply), else the value it held before (undo). KeyError for an unknown path."""
    path, field = trig.get(ids.KEY_PATH, ""), trig.get(ids.KEY_FIELD, "")
    value, prev = trig.get(ids.KEY_VALUE, ""), trig.get(ids.KEY_PREV, "")
    applied = same_value(parse_box(value), _value_now(defaults, changes, path, field))
    return {(path, field): prev if applied else value}


def labels(group: list[dict], defaults: Config, changes: Changes) -> list[str]:
    """``Undo`` on the buttons whose change the state holds, ``Apply`` elsewhere."""
    out = []
    for o in group:
        bid = o["id"]
        try:
            now = _value_now(defaults, changes, bid[ids.KEY_PATH], bid[ids.KEY_FIELD])
        except KeyError:
            out.append(APPLY)
            continue
        out.append(UNDO if same_value(parse_box(bid[ids.KEY_VALUE]), now) else APPLY)
    return out


# ------------------------------------------------------------------------------------------------
# the picker
# ------------------------------------------------------------------------------------------------


def model_options(cache: ScoreCache) -> list[dict]:
    """The picker's models, with their display names when models.csv has a column for them."""
    attrs = cache.raw.attributes
    col = None
    if attrs is not None:
        col = next((c for c in DISPLAY_COLUMNS if c in attrs.columns), None)
    out = []
    for m in cache.models:
        label = m
        if col is not None:
            shown = attrs.at[m, col] if m in attrs.index else None
            if isinstance(shown, str) and shown.strip() and shown.strip() != m:
                label = f"{shown.strip()} ({m})"
        out.append({"label": label, "value": m})
    return out


def layout(cache: ScoreCache) -> html.Div:
    """The picker's panel: the model, a recompute button and the list (with a spinner)."""
    return html.Div(
        [
            html.Div(
                [
                    html.H3("What would put this model first?"),
                    dcc.Dropdown(
                        id=ids.WHATIF_MODEL,
                        options=modelsearch.first_options(cache)
                        if modelsearch.is_large(len(cache.models))
                        else model_options(cache),
                        placeholder="Model…",
                        className="whatif-model",
                    ),
                    html.Button(
                        "Recompute",
                        id=ids.WHATIF_ASK,
                        className="btn small",
                        n_clicks=0,
                        title="Compute again for the current settings",
                    ),
                ],
                className="panel-head",
            ),
            html.P(
                "Each line is one value changed on its own (everything else as now) to the value "
                "nearest the current one at which the model ranks first (a tie counts).",
                className="help",
            ),
            dcc.Loading(html.Div(id=ids.WHATIF_LIST, className="whatif-list"), type="dot"),
            # the texts beside the boxes (the first view's are in its layout already)
            dcc.Store(id=ids.SENS_TEXTS, data=None),
        ],
        id=ids.SENS_PANEL,
        className="sens-panel",
    )


def stopped_text(stopped: dict | None) -> str:
    """What a what-if stopped by its time budget left out ("" when it was complete)."""
    if not stopped:
        return ""
    return (
        f"Stopped after {stopped['after_s']:.1f} s: {stopped['examined']:,} of "
        f"{stopped['total']:,} values examined; the other {stopped['total'] - stopped['examined']:,}"
        " are not listed (the server bounds this analysis in time)."
    )


def whatif_rows(scores: Scores, model: str, budget: float | None = None) -> Any:
    """The picker's list for ``model`` under ``scores`` (a Div); ``budget``: seconds the
    analysis may take (default :data:`WHATIF_BUDGET_S`)."""
    m = scores.models.index(model)
    if scores.ranks[m] == 1 and not math.isnan(scores.overall_scores[m]):
        return html.P(f"{model} is already ranked first.", className="whatif-none")
    budget = WHATIF_BUDGET_S if budget is None else budget
    if not _WHATIF_SLOTS.acquire(timeout=budget):
        return html.P(WHATIF_BUSY, className="whatif-none")
    try:
        df = what_if_of(scores, m, budget)
    finally:
        _WHATIF_SLOTS.release()
    note = stopped_text(df.attrs.get("stopped"))
    stop = [html.P(note, className="whatif-stopped help")] if note else []
    found = df[df["value"].notna() & (df["value"] != df["current"])].copy()
    if found.empty:
        none = f"No single change puts {model} first" + (" among those." if note else ".")
        return html.Div([*stop, html.P(none, className="whatif-none")])
    scale = found["current"].abs().where(found["current"] != 0, 1.0)
    found["rel"] = (found["value"] - found["current"]).abs() / scale
    found = found.sort_values("rel", kind="stable")
    items = []
    for r in found.head(MAX_WHATIF_ROWS).itertuples():
        value, prev = display_value(float(r.value)), display_value(float(r.current))
        items.append(
            html.Li(
                [
                    html.Span(r.path, className="whatif-path"),
                    html.Span(f" {r.field}: ", className="whatif-field"),
                    html.Span(f"{fmt_end(r.current)} → {fmt_end(r.value)}", className="num"),
                    html.Button(
                        APPLY,
                        id=ids.whatif(r.path, r.field, value, prev),
                        className="btn small whatif-btn",
                        n_clicks=0,
                        title=f"Set {r.path} {r.field} to {value} (click again to undo)",
                    ),
                ],
                className="whatif-item",
            )
        )
    more = len(found) - len(items)
    tail = [html.P(f"… and {more} more (larger changes).", className="help")] if more > 0 else []
    return html.Div(
        [
            html.P(
                f"{len(found)} single change{'s' if len(found) != 1 else ''} put {model} first "
                "(smallest first):",
                className="help",
            ),
            html.Ul(items, className="whatif-items"),
            *tail,
            *stop,
        ]
    )


def register(app, cache: ScoreCache) -> None:
    """The picker's callback: computed on request (a model picked, or Recompute); the browser
    writes the ``SENS_TEXTS`` store into the holders beside the boxes (no request)."""
    defaults = cache.defaults
    app.clientside_callback(ClientsideFunction("mplSens", "texts"), Input(ids.SENS_TEXTS, "data"))

    @app.callback(
        Output(ids.WHATIF_LIST, "children"),
        Input(ids.WHATIF_MODEL, "value"),
        Input(ids.WHATIF_ASK, "n_clicks"),
        State(ids.CHANGES, "data"),
        prevent_initial_call=True,
    )
    def whatif(model, _n, changes_data):
        if not isinstance(model, str) or model not in cache.models:
            return None
        try:
            changes = clean_changes(defaults, changes_data)
            _cfg, scores = cache.scores_for(changes)
        except (ValueError, ConfigError):
            raise PreventUpdate from None
        return whatif_rows(scores, model)
