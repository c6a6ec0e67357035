"""The server's callback: ONE callback takes every user action but a box edit (a reset, a
preset, an upload, the URL, navigation, the raw/normalised toggle, the model filter, the policy)
and returns every part's new state in one round trip: the changes, the URL, the columns, the
boxes, the curve and messages. It sends only what changed (``no_update`` elsewhere).

A box edit is scored and drawn in the browser (``liveedit.py``); its new changes reach this
callback through the changes store (the trigger ``ids.CHANGES``), and the parts that need Python
follow: the stability intervals and dominance marks, Explore, the policy bar, the robustness tau
line (the ``on_changes`` hook given at composition). The grid's numbers are never sent: its rows
are the models, and its cells read the browser's live result.

The flow of one request (``update``):

1. :func:`_request`: the trigger (a page load or back/forward wins over what fired with it) and
   the page's values, checked for type and size (a forged request is ignored: 204); the page's
   changes, view and controls become the step before the action (``actions.Step``).
2. ``actions.dispatch``: the action's small pure function (``actions.ACTIONS``, one per kind of
   trigger; its docstring says what each changes) returns the new step: the changes, the view,
   the metric, Explore's selection, the filters, the toggle, the sort, the digits, the message,
   whether every box is rewritten, and the controls it sets. None: nothing to answer (204). A
   refused policy or upload answers its message (and the control it sets back) alone.
3. ``actions.settle``: the sort and metric of the new view; then the new changes are scored
   once (:func:`_scored`; a link whose settings leave a metric unscored says so).
4. The parts (:data:`PARTS`), each filling only the outputs it declares: the stores and tau line
   (changed settings or view), the URL's query (when it says something new), the grid's rows
   (a filter or a link), columns (when their signature changed) and dominance marks, the
   what-if labels and interval texts, the policy bar, the curve (a benchmark view), Explore /
   Compare / the benchmark chart, the status line and "Reset all", a new view's panel,
   breadcrumb and picker, or, on the same view, the boxes and row messages in place.
5. :func:`_only_new`: a box's mark or a row's message equal to what the page shows is not sent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dash import ALL, Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from ....bundle import result_of
from ....config import Config
from ....errors import ConfigError
from ....numfmt import SCORE_DIGITS, clean_digits
from ... import ids
from ...cache import ScoreCache
from ...figures import curve_figure
from ...state import (
    Q_BASE,
    Q_DIGITS,
    Q_SHOW,
    Q_SORT,
    Changes,
    clean_changes,
    clean_filters,
    count_changes,
    encode_changes,
    filtered_models,
    make_query,
    parse_query,
    same_query,
)
from ...tables import canonical_view, column_defs, resolved_params, threshold_problems
from ..board import contrib, curve, grid, modelsearch, navigation
from ..board.sensitivity import EDIT_INPUTS as SENS_INPUTS
from ..board.sensitivity import EDIT_OUTPUTS as SENS_OUTPUTS
from ..board.sensitivity import WILDCARD_OUTPUTS as SENS_WILDCARD
from ..board.sensitivity import Sensitivity
from ..board.sensitivity import labels as whatif_labels
from ..controls import policy, settings, toolbar
from ..controls.inputs import attr_selection, boxes_of, same_as_shown, text
from ..explore import view as explore_view
from ..status import threshold_status
from . import actions
from .actions import MAX_QUERY_CHARS
from .viewstate import apply_sort, sort_text

MAX_BOXES = 5000  # boxes on one view (3 per metric of the largest benchmark, with room)
HIDDEN = {"display": "none"}
SHOWN: dict[str, str] = {}
WILDCARD_OUTPUTS = ("box_value", "box_class", "msg", "attr_value", *explore_view.WILDCARD_OUTPUTS)
BOX = ids.box(ALL, ALL)
MSG = ids.by_path(ids.T_MSG, ALL)
#: (output, its State, id keys) sent only where they differ from what the page shows: a prop
#: Dash sets, even to the same text, notifies every component and re-renders its own
SHOWN_ONLY = (
    ("box_class", "shown_class", (ids.KEY_PATH, ids.KEY_FIELD)),
    ("msg", "shown_msg", (ids.KEY_PATH,)),
)

#: what the composition may hand in: called with each accepted change and the pinned baseline
#: (None: the defaults); the robustness tau line's text, or None
OnChanges = Callable[[Changes, Changes | None], str | None]
TAU_OUTPUT = dict(tau=Output(ids.ROB_TAU, "children"))
#: a board the browser cannot score (liveedit.page_bundle): the scores of the answer's changes
LIVE_OUTPUT = dict(live_result=Output(ids.LIVE_RESULT, "data"))
#: a large board (components/board/modelsearch.py): a link's picked models come with their options
PICKS_OUTPUT = dict(pick_options=Output(ids.MODEL_FILTER, "options", allow_duplicate=True))

OUTPUTS = dict(
    changes=Output(ids.CHANGES, "data"),
    view=Output(ids.VIEW, "data"),
    search=Output(ids.URL, "search"),
    qs=Output(ids.QS, "data"),
    rows=Output(ids.GRID, "rowData"),
    dominated=Output(ids.DOMINATED, "data"),
    answered=Output(ids.ANSWERED, "data"),
    cols=Output(ids.GRID, "columnDefs"),
    colsig=Output(ids.COLSIG, "data"),
    contrib_legend=Output(ids.CONTRIB_LEGEND, "children"),  # the breakdown bars' legend
    settings=Output(ids.SETTINGS, "children"),
    box_value=Output(BOX, "value"),
    box_class=Output(BOX, "className"),
    msg=Output(MSG, "children"),
    crumbs=Output(ids.CRUMBS, "children"),
    curve=Output(ids.CURVE_HOLDER, "children"),
    mopts=Output(ids.METRIC_PICK, "options"),
    mval=Output(ids.METRIC_PICK, "value"),
    plot_style=Output(ids.PLOT_WRAP, "style"),
    show_style=Output(ids.SHOW_WRAP, "style"),
    status=Output(ids.STATUS, "children"),
    reset_label=Output(ids.RESET_ALL, "children"),
    reset_disabled=Output(ids.RESET_ALL, "disabled"),
    upload=Output(ids.UPLOAD, "contents"),
    picks=Output(ids.MODEL_FILTER, "value"),
    attr_value=Output(ids.attr(ALL), "value"),
    shown_count=Output(ids.SHOWN_COUNT, "children"),
    policy=Output(ids.MISSING_POLICY, "value"),
    overrides=Output(ids.POLICY_OVERRIDES, "children"),
    no_score=Output(ids.NO_SCORE, "children"),
    skip_style=Output(ids.MISSING_SKIP, "style"),
    summary=Output(ids.SUMMARY, "children"),
    digits=Output(ids.DIGITS, "value"),
    show_value=Output(ids.SHOW, "value"),
    preset=Output(ids.PRESET, "value"),
    base=Output(ids.BASE, "data"),
    **explore_view.OUTPUTS,
    **curve.OUTPUTS,
)
INPUTS = dict(
    changes=Input(ids.CHANGES, "data"),  # written by a box edit in the browser (liveedit.py)
    reset_one=Input(ids.by_path(ids.T_RESET, ALL), "n_clicks"),
    reset_table=Input(ids.RESET_TABLE, "n_clicks"),
    reset_all=Input(ids.RESET_ALL, "n_clicks"),
    preset=Input(ids.PRESET, "value"),
    upload=Input(ids.UPLOAD, "contents"),
    search=Input(ids.URL, "search"),
    want=Input(ids.WANT, "data"),
    show=Input(ids.SHOW, "value"),
    models=Input(ids.MODEL_FILTER, "value"),
    attrs=Input(ids.attr(ALL), "value"),
    rank_shown=Input(ids.RANK_SHOWN, "value"),
    xscale=Input(ids.CURVE_XSCALE, "value"),
    policy=Input(ids.MISSING_POLICY, "value"),
    use_skip=Input(ids.MISSING_SKIP, "n_clicks"),
    sort=Input(ids.SORT, "data"),
    digits=Input(ids.DIGITS, "value"),
    pin=Input(ids.BASE_PIN, "n_clicks"),
    unpin=Input(ids.BASE_UNPIN, "n_clicks"),
    **explore_view.INPUTS,
)
STATES = dict(
    box=State(BOX, "value"),
    pending=State(ids.PENDING, "data"),
    filename=State(ids.UPLOAD, "filename"),
    view=State(ids.VIEW, "data"),
    qs=State(ids.QS, "data"),
    colsig=State(ids.COLSIG, "data"),
    shown_status=State(ids.STATUS, "children"),
    shown_class=State(BOX, "className"),
    shown_msg=State(MSG, "children"),
    graph=State(ids.curve_graph(ALL), "id"),
    plot_graphs=explore_view.plots.EXISTING,
    plot_sig=explore_view.plots.HELD,
    **curve.STATES,
)


def default_thresholds(cache: ScoreCache, metric: str) -> dict[str, float]:
    """The default config's resolved parameters of ``metric`` (the curve draws them faintly
    when an edit moved them)."""
    plan = cache.default_scores.plan
    if metric not in plan.metric_paths:
        return {}
    return resolved_params(cache.default_scores, plan.metric_paths.index(metric))


first_metric = actions.first_metric


# ------------------------------------------------------------------------------------------------
# the request: the trigger and the page's step, checked for type and size
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One request: the action, the step the page shows (``before``) and the page's values."""

    act: actions.Action
    before: actions.Step
    kw: dict[str, Any]

    @property
    def trig(self) -> Any:
        return self.act.trig

    @property
    def kind(self) -> Any:
        return self.trig.get(ids.KEY_TYPE) if isinstance(self.trig, dict) else None

    @property
    def from_browser(self) -> bool:
        """A box edit's changes: the browser holds its changes, URL and boxes."""
        return self.trig == ids.CHANGES


def _trigger(kw: dict[str, Any]) -> Any:
    """The request's trigger: a page load (or back/forward) wins over anything fired with it,
    but an edit in the browser writes both its changes and the URL: then its changes."""
    trig = ctx.triggered_id
    if trig is None:
        raise PreventUpdate
    if f"{ids.URL}.search" in ctx.triggered_prop_ids:
        trig = ids.URL
        if f"{ids.CHANGES}.data" in ctx.triggered_prop_ids and kw["search"] == kw["qs"]:
            trig = ids.CHANGES
    if isinstance(trig, dict) and not all(isinstance(x, str) for x in trig.values()):
        raise PreventUpdate
    return trig


def _before(cache: ScoreCache, kw: dict[str, Any], changes: Changes) -> actions.Step:
    """The step the page shows: its changes, view, controls and the sort of its URL."""
    raw_view = kw["view"] if isinstance(kw["view"], dict) else {}
    filters = clean_filters(
        {
            ids.FILTER_PICKS: kw["models"],
            ids.FILTER_ATTRS: attr_selection(ctx.args_grouping["attrs"]),
        },
        cache.models,
        cache.attr_options,
    )
    return actions.Step(
        changes=changes,
        view=canonical_view(cache.defaults, text(raw_view.get(ids.VIEW_PATH))),
        metric=text(raw_view.get(ids.VIEW_METRIC)),
        page=explore_view.page_of(raw_view.get(ids.VIEW_PATH)),  # explore, compare
        sel=explore_view.selection(cache, kw),
        filters=filters,
        show=kw["show"] if kw["show"] in grid.SHOW_OPTIONS else grid.SHOW_OPTIONS[0],
        sort=sort_text(parse_query(kw["qs"] or "").get(Q_SORT, "")),  # kept unless changed
        digits=clean_digits(kw["digits"], SCORE_DIGITS),
        baseline=actions.page_baseline(cache.defaults, kw["qs"]),  # kept unless changed
    )


def _request(cache: ScoreCache, kw: dict[str, Any]) -> Request:
    """Everything from the client is checked for type and size first: a forged request that
    does not look like the page's own is ignored (204), it never reaches the engine."""
    trig = _trigger(kw)
    try:
        changes: Changes = clean_changes(cache.defaults, kw["changes"])
        boxes = boxes_of(ctx.args_grouping["box"], MAX_BOXES)
    except ValueError:
        raise PreventUpdate from None
    limits = (("qs", MAX_QUERY_CHARS), ("colsig", 64), ("filename", 255))
    kw = {**kw, **{key: text(kw[key], limit) for key, limit in limits}}
    kw["search"] = text(kw["search"], MAX_QUERY_CHARS)
    clicked = bool(ctx.triggered) and bool(ctx.triggered[0].get("value"))
    act = actions.Action(
        trig=trig,
        kw=kw,
        boxes=tuple(boxes),
        attr_names=tuple(o["id"][ids.KEY_NAME] for o in ctx.outputs_grouping["attr_value"]),
        clicked=clicked,
    )
    return Request(act, _before(cache, kw, changes), kw)


# ------------------------------------------------------------------------------------------------
# the answer: each part fills the outputs it declares
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What the parts of the answer read: the request, the step after the action (settled)
    and its scores."""

    env: actions.Env
    req: Request
    step: actions.Step
    key: str  # the changes encoded: the cache key and the URL's state
    cfg: Config
    scores: Any
    problems: dict[tuple[str, str], str]
    sv: Any  # the view's sensitivity (intervals, dominance), or None
    shown_models: list[str] | None
    on_changes: OnChanges | None

    @property
    def before(self) -> actions.Step:
        return self.req.before

    @property
    def view_changed(self) -> bool:
        return actions.view_changed(self.before, self.step)

    @property
    def is_bench(self) -> bool:
        return bool(self.step.metric)


def _scored(env, req: Request, step: actions.Step, on_changes: OnChanges | None) -> Answer:
    """The answer's scores; a link whose settings leave a metric unscored says so."""
    cache = env.cache
    key = encode_changes(step.changes)
    try:
        cfg, scores = cache.scores_for(step.changes, config=step.cfg, key=key)
    except ConfigError:
        raise PreventUpdate from None  # a forged state the page itself never holds
    # {model: NAME} thresholds whose model has no value: the metric is not scored (red box)
    problems = threshold_problems(scores)
    linked = {k: m for k, m in problems.items() if step.link and k[0] in step.changes}
    if linked and step.status is no_update:
        what = "The link's settings leave a metric unscored"
        step = dataclasses.replace(step, status=threshold_status(linked, what))
    sv = env.sens.view_state(key, scores, step.view) if env.sens else None
    shown_models = filtered_models(step.filters, cache.models, cache.attr_values)
    return Answer(env, req, step, key, cfg, scores, problems, sv, shown_models, on_changes)


def _state_part(a: Answer) -> dict[str, Any]:
    """The changes store, the robustness tau line, the view store and the browser's answered
    count."""
    out: dict[str, Any] = {}
    new, old = a.step.changes, a.before.changes
    if a.req.from_browser and isinstance(a.req.kw["pending"], int):
        out["answered"] = a.req.kw["pending"]  # the parts that need Python: in this answer
    if new != old:
        out["changes"] = new
    moved_base = a.step.baseline != a.before.baseline
    if a.on_changes is not None and (new != old or a.req.from_browser or moved_base):
        out["tau"] = a.on_changes(new, a.step.baseline) or no_update
    if a.view_changed or a.step.metric != a.before.metric:
        out["view"] = {ids.VIEW_PATH: a.step.page or a.step.view, ids.VIEW_METRIC: a.step.metric}
    return out


def _query_part(a: Answer) -> dict[str, Any]:
    """The URL's query (only when it says something new) and the query store."""
    s = a.step
    first = first_metric(a.env.cache.defaults, s.view)
    query = make_query(
        s.changes,
        s.page or s.view,
        s.metric if s.metric != first else "",
        s.filters,
        encoded=a.key,
        view_extra={
            Q_SHOW: "" if s.show == grid.SHOW_OPTIONS[0] else s.show,
            Q_SORT: s.sort,
            Q_DIGITS: "" if s.digits == SCORE_DIGITS else str(s.digits),
            Q_BASE: encode_changes(s.baseline) if s.baseline else "",
        },
    )
    query = explore_view.query_tail(query, s.page, s.sel)
    if a.req.trig == ids.URL:
        if same_query(query, a.req.kw["search"]):
            return {"qs": query}
        return {"qs": query, "search": query}  # the link said something else: say it as it is
    if not a.req.from_browser and query != (a.req.kw["qs"] or ""):
        return {"search": query, "qs": query}
    return {}


def _grid_part(a: Answer) -> dict[str, Any]:
    """The grid's rows (when the filter may have changed), the shown count, its columns (when
    their signature changed) and the dominance marks."""
    out: dict[str, Any] = {}
    cache, s = a.env.cache, a.step
    if a.sv is not None:
        out["dominated"] = {k: ", ".join(m) for k, m in (a.sv.dominated or {}).items() if m}
    if a.req.trig in (ids.MODEL_FILTER, ids.URL) or a.req.kind == ids.T_ATTR:
        n_all = len(cache.models)
        out["rows"] = grid.index_rows(cache.models, cache.display, a.shown_models)
        n = n_all if a.shown_models is None else len(a.shown_models)
        out["shown_count"] = toolbar.shown_text(n, n_all)
    changed = {p for p, f in s.changes.items() if f}
    cols = column_defs(a.scores, s.view, show=s.show, changed=changed, metric=s.metric)
    cols = apply_sort(cols, s.sort)
    sig = grid.colsig(cols)
    if sig != a.req.kw["colsig"]:
        out["cols"], out["colsig"] = cols, sig
        out["contrib_legend"] = contrib.legend(a.scores.config, s.view)
    return out


def _sensitivity_part(a: Answer) -> dict[str, Any]:
    """The what-if buttons' labels and the view's interval texts (unless the page shows the
    same: one store)."""
    sens = a.env.sens
    if not sens:
        return {}
    group = ctx.outputs_grouping["whatif_label"]
    out = {"whatif_label": whatif_labels(group, a.env.cache.defaults, a.step.changes)}
    if a.sv:
        fresh = a.view_changed or a.req.from_browser
        shown = None if fresh else sens.cached(encode_changes(a.before.changes), a.step.view)
        out["sens_texts"] = a.sv.store(shown)
    return out


def _policy_part(a: Answer) -> dict[str, Any]:
    """The missing-data policy bar and the header's summary (what equals the bar the page
    shows, that of the changes before the action, is not sent)."""
    try:
        shown = None if a.req.from_browser else a.env.cache.scores_for(a.before.changes)[1]
    except ConfigError:
        shown = None
    out: dict[str, Any] = {}
    policy.fill(out, a.req.kw["policy"], a.scores, shown=shown)
    return out


def _curve_part(a: Answer) -> dict[str, Any]:
    """A benchmark view's curve: created on the first benchmark view, else its figure (what
    changed of it) follows in the browser once the table is drawn; the metric picker."""
    if not a.is_bench:
        return {}
    kw, cache, metric = a.req.kw, a.env.cache, a.step.metric
    figure = curve_figure(
        a.scores,
        metric,
        a.sv.band(metric) if a.sv else None,
        names=cache.display,
        xscale=kw["xscale"] if kw["xscale"] in curve.XSCALES else curve.XSCALES[0],
        digits=a.step.digits,
        defaults=default_thresholds(cache, metric),
    )
    out: dict[str, Any] = {}
    if kw["graph"]:
        out["figure"], out["curve_sig"] = curve.update(figure, kw["curve_sig"])
    else:
        out["curve"] = curve.graph(figure)  # first benchmark view: create it
        out["curve_sig"] = None  # the fig holder does not hold it
    if metric != a.before.metric or a.view_changed:
        out["mval"] = metric
    return out


def _explore_part(a: Answer) -> dict[str, Any]:
    """Explore's scatter, Compare and the benchmark's bar chart (for the open view)."""
    out: dict[str, Any] = {}
    explore_view.fill(
        out,
        cache=a.env.cache,
        scores=a.scores,
        page=a.step.page,
        view=a.step.view,
        is_bench=a.is_bench,
        sel=a.step.sel,
        models=a.shown_models,
        view_changed=a.view_changed,
        graphs=explore_view.plots.existing(a.req.kw["plot_graphs"]),
        held=a.req.kw["plot_sig"],
        selection_changed=explore_view.new_selection(),
    )
    return out


def _message_part(a: Answer) -> dict[str, Any]:
    """The status line (a message lasts until the next action but a navigation) and the
    "Reset all" button's count."""
    out: dict[str, Any] = {}
    n_changed = sum(len(f) for f in a.step.changes.values())
    n_before = sum(len(f) for f in a.before.changes.values())
    if n_changed != n_before or a.step.rewrite:
        out["reset_label"] = f"Reset all ({n_changed})" if n_changed else "Reset all"
        out["reset_disabled"] = n_changed == 0
    if a.step.status is not no_update:
        out["status"] = a.step.status
    elif a.req.kw["shown_status"] and a.req.trig != ids.WANT:
        out["status"] = None
    return out


def _view_part(a: Answer) -> dict[str, Any]:
    """A new view: its settings panel, breadcrumb, metric picker and the plot toggles."""
    if not a.view_changed:
        return {}
    defaults, s = a.env.cache.defaults, a.step
    style = SHOWN if a.is_bench else HIDDEN
    texts = a.sv.texts if a.sv else None
    return {
        "settings": settings.panel(defaults, a.cfg, s.changes, s.view, a.problems, texts),
        "crumbs": navigation.breadcrumb(defaults, s.view),
        "mopts": curve.metric_options(defaults, s.view),
        "plot_style": style,
        "show_style": style,
    }


def _boxes_part(a: Answer) -> dict[str, Any]:
    """The same view: the boxes updated in place (never re-rendered: focus stays where it is),
    only those whose value or mark changes; the browser has marked its own boxes."""
    if a.view_changed or a.req.from_browser:
        return {}
    values, classes = settings.box_states(
        list(a.req.act.boxes),
        a.env.cache.defaults,
        a.before.changes,
        a.step.changes,
        rewrite=a.step.rewrite,
        pending=set(),  # boxes whose text stays (none: the browser holds its own)
        problems=a.problems,
        cfg=a.cfg,
    )
    msgs = [
        settings.row_message(m["id"][ids.KEY_PATH], a.problems) if a.step.rewrite else no_update
        for m in ctx.outputs_grouping["msg"]
    ]
    return {"box_value": values, "box_class": classes, "msg": msgs}


def _live_part(a: Answer) -> dict[str, Any]:
    """A board the browser cannot score (``LIVE_OUTPUT`` declared): the Python engine's scores
    of the answer's changes, whenever they may differ from what the page shows."""
    if "live_result" not in ctx.outputs_grouping:
        return {}
    moved = a.step.changes != a.before.changes or a.req.from_browser or a.req.trig == ids.URL
    return {"live_result": result_of(a.scores)} if moved else {}


def _baseline_part(a: Answer) -> dict[str, Any]:
    """The baseline store (when the baseline changed or was pinned again): its changes, their
    count and whether this action pinned it; on a board the browser cannot score, its scores
    too (the browser scores it itself otherwise, once per pin)."""
    s = a.step
    if s.baseline == a.before.baseline and not s.pinned:
        return {}
    if s.baseline is None:
        return {"base": None}
    base: dict[str, Any] = {"changes": s.baseline, "n": count_changes(s.baseline)}
    base["pinned"] = s.pinned
    if "live_result" in ctx.outputs_grouping:
        base["result"] = result_of(a.env.cache.scores_for(s.baseline)[1])
    return {"base": base}


#: the parts of an answer, in order, each with the outputs it owns (and alone may write)
PARTS: tuple[tuple[frozenset[str], Callable[[Answer], dict[str, Any]]], ...] = (
    (frozenset({"answered", "changes", "tau", "view"}), _state_part),
    (frozenset({"search", "qs"}), _query_part),
    (
        frozenset({"dominated", "rows", "shown_count", "cols", "colsig", "contrib_legend"}),
        _grid_part,
    ),
    (frozenset({"whatif_label", "sens_texts"}), _sensitivity_part),
    (frozenset({"policy", "overrides", "no_score", "skip_style", "summary"}), _policy_part),
    (frozenset({"figure", "curve_sig", "curve", "mval"}), _curve_part),
    (frozenset(explore_view.OUTPUTS), _explore_part),
    (frozenset({"reset_label", "reset_disabled", "status"}), _message_part),
    (frozenset({"settings", "crumbs", "mopts", "plot_style", "show_style"}), _view_part),
    (frozenset({"box_value", "box_class", "msg"}), _boxes_part),
    (frozenset({"live_result"}), _live_part),
    (frozenset({"base"}), _baseline_part),
)


def _merge(out: dict[str, Any], owned: frozenset[str], part: Callable, got: dict) -> None:
    stray = set(got) - owned
    if stray:
        raise RuntimeError(f"{part.__name__} wrote outputs it does not own: {sorted(stray)}")
    out.update(got)


def answer(env: actions.Env, req: Request, on_changes: OnChanges | None) -> dict[str, Any]:
    """Every output of the request: ``no_update`` but where the action or a part says."""
    step = actions.dispatch(env, req.before, req.act)
    if step is None:
        raise PreventUpdate
    out: dict[str, Any] = {k: no_update for k in ctx.outputs_grouping}
    out.update(step.set)  # the controls the action sets (a part may set them again)
    if step.final:  # refused: its message, nothing else
        out["status"] = step.status
        return out
    step = actions.settle(env, req.before, step, from_link=req.trig == ids.URL)
    a = _scored(env, req, step, on_changes)
    for owned, part in PARTS:
        _merge(out, owned, part, part(a))
    return out


def _only_new(out: dict[str, Any], wildcards: tuple[str, ...]) -> dict[str, Any]:
    """The pattern outputs: only what differs from what the page shows, and a list of
    ``no_update`` for those not answered."""
    for key, state, keys in SHOWN_ONLY:
        if out[key] is not no_update:
            grouping = ctx.outputs_grouping[key], ctx.args_grouping[state]
            same = same_as_shown(out[key], *grouping, keys, MAX_BOXES)
            out[key] = [no_update if s else v for v, s in zip(out[key], same, strict=True)]
    for key in wildcards:
        if out[key] is no_update:
            out[key] = [no_update] * len(ctx.outputs_grouping[key])
    return out


def register(
    app,
    cache: ScoreCache,
    *,
    on_changes: OnChanges | None = None,
    sensitivity: Sensitivity | None = None,
    server_scored: bool = False,
) -> None:
    """The server's callback of every action but a box edit (the browser scores those:
    ``liveedit.py``; their new changes reach this callback through the changes store, and it
    answers what needs Python).
    ``on_changes(changes)``: called after every accepted change of the settings, inside the
    same request; the text it returns is the robustness tau line's.
    ``sensitivity``: the boxes' stability intervals, dominance marks, curve bands and the
    what-if buttons (components/board/sensitivity.py) go in the same response.
    ``server_scored``: the browser cannot score this board (``liveedit.page_bundle``): the
    answers carry the scores of their changes (``ids.LIVE_RESULT``)."""
    sens = sensitivity
    env = actions.Env(cache, sens)
    outputs = {**OUTPUTS, **SENS_OUTPUTS} if sens else dict(OUTPUTS)
    if on_changes is not None:
        outputs.update(TAU_OUTPUT)
    if server_scored:
        outputs.update(LIVE_OUTPUT)
    if modelsearch.is_large(len(cache.models)):
        outputs.update(PICKS_OUTPUT)
    inputs = {**INPUTS, **SENS_INPUTS} if sens else INPUTS
    wildcards = (*WILDCARD_OUTPUTS, *SENS_WILDCARD) if sens else WILDCARD_OUTPUTS

    @app.callback(output=outputs, inputs=inputs, state=STATES, prevent_initial_call=True)
    def update(**kw: Any) -> dict[str, Any]:
        return _only_new(answer(env, _request(cache, kw), on_changes), wildcards)
