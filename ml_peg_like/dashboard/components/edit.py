"""The server's callback: ONE callback takes every user action but a box edit (a reset, a
preset, an upload, the URL, navigation, the raw/normalised toggle, the model filter, the policy)
and returns every part's new state in one round trip: the changes, the URL, the columns, the
boxes, the curve and messages. It sends only what changed (``no_update`` elsewhere).

A box edit is scored and drawn in the browser (``liveedit.py``); its new changes reach this
callback through the changes store (the trigger ``ids.CHANGES``), and the parts that need Python
follow: the stability intervals and dominance marks, Explore, the policy bar, the robustness tau
line (the ``on_changes`` hook given at composition). The grid's numbers are never sent: its rows
are the models, and its cells read the browser's live result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dash import ALL, Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from ...bundle import result_of
from ...config import ROOT, Config, loads_config
from ...errors import ConfigError
from ...numfmt import SCORE_DIGITS, clean_digits
from .. import ids
from ..cache import ScoreCache
from ..figures import curve_figure
from ..state import (
    MAX_STATE_CHARS,
    Q_DIGITS,
    Q_FILTER,
    Q_METRIC,
    Q_MISSING,
    Q_SHOW,
    Q_SORT,
    Q_STATE,
    Q_VIEW,
    Changes,
    apply_edit,
    changes_from_upload,
    clean_changes,
    clean_filters,
    decode_changes,
    effective_changes,
    encode_changes,
    filtered_models,
    make_query,
    parse_query,
    reset_paths,
    same_query,
)
from ..tables import (
    canonical_view,
    column_defs,
    resolved_params,
    threshold_problems,
    view_node,
)
from . import curve, grid, navigation, policy, settings, toolbar
from . import explore as explore_view
from .inputs import attr_selection, boxes_of, same_as_shown, text
from .presets import apply_preset
from .sensitivity import EDIT_INPUTS as SENS_INPUTS
from .sensitivity import EDIT_OUTPUTS as SENS_OUTPUTS
from .sensitivity import WILDCARD_OUTPUTS as SENS_WILDCARD
from .sensitivity import Sensitivity, click_edit
from .sensitivity import labels as whatif_labels
from .status import linked_filters, problem_text, status, threshold_status
from .viewstate import apply_sort, effective_sort, sort_text

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

#: what the composition may hand in: called with each accepted change; the robustness tau line's
#: text, or None
OnChanges = Callable[[Changes], str | None]
TAU_OUTPUT = dict(tau=Output(ids.ROB_TAU, "children"))
LIVE_OUTPUT = dict(live_result=Output(ids.LIVE_RESULT, "data"))

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


def first_metric(cfg: Config, view: str) -> str:
    node = view_node(cfg, view)
    if node is None or not hasattr(node, "metrics"):
        return ""
    return f"{cfg.full_path(view)}/{node.metrics[0].name}"


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
    what-if buttons (components/sensitivity.py) go in the same response.
    ``server_scored``: the browser cannot score this board (``liveedit.page_bundle``): every
    answer carries the scores of its changes (``ids.LIVE_RESULT``)."""
    defaults = cache.defaults
    paths = cache.paths
    sens = sensitivity
    outputs = {**OUTPUTS, **SENS_OUTPUTS} if sens else dict(OUTPUTS)
    if on_changes is not None:
        outputs.update(TAU_OUTPUT)
    if server_scored:
        outputs.update(LIVE_OUTPUT)
    inputs = {**INPUTS, **SENS_INPUTS} if sens else INPUTS
    wildcards = (*WILDCARD_OUTPUTS, *SENS_WILDCARD) if sens else WILDCARD_OUTPUTS

    @app.callback(output=outputs, inputs=inputs, state=STATES, prevent_initial_call=True)
    def update(**kw: Any) -> dict[str, Any]:
        out = _update(**kw)
        for key, state, keys in SHOWN_ONLY:
            if out[key] is not no_update:
                grouping = ctx.outputs_grouping[key], ctx.args_grouping[state]
                same = same_as_shown(out[key], *grouping, keys, MAX_BOXES)
                out[key] = [no_update if s else v for v, s in zip(out[key], same, strict=True)]
        for key in wildcards:
            if out[key] is no_update:
                out[key] = [no_update] * len(ctx.outputs_grouping[key])
        return out

    def _update(**kw: Any) -> dict[str, Any]:  # noqa: C901 (one dispatcher, one round trip)
        trig = ctx.triggered_id
        if trig is None:
            raise PreventUpdate
        if f"{ids.URL}.search" in ctx.triggered_prop_ids:
            trig = ids.URL  # a page load (or back/forward) wins over anything fired with it
            if f"{ids.CHANGES}.data" in ctx.triggered_prop_ids and kw["search"] == kw["qs"]:
                trig = ids.CHANGES  # an edit in the browser wrote both: its changes
        # everything from the client is checked for type and size first: a forged request that
        # does not look like the page's own is ignored (204), it never reaches the engine
        try:
            changes: Changes = clean_changes(defaults, kw["changes"])
            boxes = boxes_of(ctx.args_grouping["box"], MAX_BOXES)
        except ValueError:
            raise PreventUpdate from None
        if isinstance(trig, dict) and not all(isinstance(x, str) for x in trig.values()):
            raise PreventUpdate
        kind = trig.get(ids.KEY_TYPE) if isinstance(trig, dict) else None
        raw_view = kw["view"] if isinstance(kw["view"], dict) else {}
        v = canonical_view(defaults, text(raw_view.get(ids.VIEW_PATH)))
        metric = text(raw_view.get(ids.VIEW_METRIC))
        v0, metric0 = v, metric
        page = page0 = explore_view.page_of(raw_view.get(ids.VIEW_PATH))  # explore, compare
        sel = explore_view.selection(cache, kw)
        if explore_view.idle(trig, page):
            raise PreventUpdate  # a closed view's control (a model ticked in the grid)
        show = kw["show"] if kw["show"] in grid.SHOW_OPTIONS else grid.SHOW_OPTIONS[0]
        filters = clean_filters(
            {
                ids.FILTER_PICKS: kw["models"],
                ids.FILTER_ATTRS: attr_selection(ctx.args_grouping["attrs"]),
            },
            cache.models,
            cache.attr_options,
        )
        for key, limit in (("qs", MAX_STATE_CHARS + 4000), ("colsig", 64), ("filename", 255)):
            kw[key] = text(kw[key], limit)
        out: dict[str, Any] = {k: no_update for k in ctx.outputs_grouping}
        sort = sort_text(parse_query(kw["qs"] or "").get(Q_SORT, ""))  # kept unless changed
        digits = clean_digits(kw["digits"], SCORE_DIGITS)
        new_changes = changes
        new_cfg: Config | None = None  # the config of new_changes, when already built
        rewrite = False  # rewrite every box from the state (reset, preset, upload, URL)
        pending: set[tuple[str, str]] = set()  # boxes whose text stays (none: the browser's)
        shown: Any = no_update
        link = False

        if trig == ids.CHANGES:
            pass  # scored and drawn in the browser: what needs Python follows
        elif kind == ids.T_RESET:
            new_changes = reset_paths(changes, [trig.get(ids.KEY_PATH, "")])
            rewrite = True
        elif trig == ids.RESET_TABLE:
            new_changes = reset_paths(changes, {p for p, _f, _v in boxes})
            rewrite = True
        elif trig == ids.RESET_ALL:
            new_changes = {}
            rewrite = True
            shown = status("Back to the default settings.")
        elif trig == ids.PRESET:
            name = kw["preset"]
            if not name or not isinstance(name, str):
                raise PreventUpdate
            new_changes, new_cfg, message, ok = apply_preset(cache, changes, name)
            shown = status(message, "ok" if ok else "err")
            if not ok:
                out["preset"] = None  # a failed preset is not left shown as selected
            rewrite = True
        elif trig in (ids.MISSING_POLICY, ids.MISSING_SKIP):
            if trig == ids.MISSING_SKIP and not kw["use_skip"]:
                raise PreventUpdate
            cur, _ = cache.scores_for(changes)
            if trig == ids.MISSING_SKIP:
                wanted = policy.agg.SKIP
                new_changes = effective_changes(
                    defaults, policy.policy_changes(changes, wanted, cur)
                )
            else:
                wanted = text(kw["policy"], 40)
                new_changes = effective_changes(defaults, policy.policy_changes(changes, wanted))
            try:
                new_cfg, _ = cache.scores_for(new_changes)
            except ConfigError as exc:
                out["status"] = status(f"Policy not applied: {problem_text(exc)}", "err")
                out["policy"] = cur.missing
                return out
            shown = status(f"Missing-data policy: {new_cfg.missing}.")
            rewrite = True  # the categories' policy boxes follow
        elif trig == ids.SORT:
            sort = sort_text(kw["sort"])
        elif trig == ids.UPLOAD:
            contents = kw["upload"]
            if not contents or not isinstance(contents, str):
                raise PreventUpdate
            out["upload"] = None
            fname = kw["filename"] or "upload"
            try:
                uploaded = loads_config(toolbar.decode_upload(contents), fname)
                new_changes = changes_from_upload(defaults, uploaded)
            except ConfigError as exc:
                out["status"] = status(f"{fname} was not applied: {problem_text(exc)}", "err")
                return out
            n = sum(len(f) for f in new_changes.values())
            shown = status(
                f"Loaded settings from {fname}: {n} change{'s' if n != 1 else ''} "
                "from the defaults."
            )
            rewrite = True
        elif trig == ids.URL:
            search = text(kw["search"], MAX_STATE_CHARS + 4000)
            if search == (kw["qs"] or ""):
                raise PreventUpdate
            q = parse_query(search)
            try:
                decoded = decode_changes(q.get(Q_STATE))
                if q.get(Q_MISSING):
                    decoded[ROOT] = {"missing": q[Q_MISSING][:40]}
                linked_changes = effective_changes(defaults, decoded)
                new_changes = clean_changes(defaults, linked_changes)
                new_cfg, _ = cache.scores_for(new_changes)
            except (ValueError, ConfigError) as exc:
                msg = problem_text(exc) if isinstance(exc, ConfigError) else str(exc)
                shown = status(f"The settings in the link were ignored: {msg}", "err")
                new_changes, new_cfg = {}, None
            link = True
            linked_show = q.get(Q_SHOW, "")
            show = linked_show if linked_show in grid.SHOW_OPTIONS else grid.SHOW_OPTIONS[0]
            if show != kw["show"]:
                out["show_value"] = show
            sort = sort_text(q.get(Q_SORT, ""))
            digits = clean_digits(q.get(Q_DIGITS), SCORE_DIGITS)
            digits = digits if digits in toolbar.DIGIT_CHOICES else SCORE_DIGITS
            if digits != kw["digits"]:
                out["digits"] = digits
            v = canonical_view(defaults, q.get(Q_VIEW, ""))
            metric = q.get(Q_METRIC, "")
            page = explore_view.page_of(q.get(Q_VIEW))
            sel = explore_view.from_query(cache, q, out)
            rewrite = True
            linked, shown = linked_filters(q.get(Q_FILTER), cache, shown)
            if linked != filters:
                filters = linked
                out["picks"] = linked.get(ids.FILTER_PICKS) or None
                attrs = linked.get(ids.FILTER_ATTRS) or {}  # not ``sel``: Explore's selection
                out["attr_value"] = [
                    attrs.get(o["id"][ids.KEY_NAME]) or None
                    for o in ctx.outputs_grouping["attr_value"]
                ]
        elif trig == ids.WANT:
            want = kw["want"]
            if not isinstance(want, dict) or ids.WANT_TIME not in want:
                raise PreventUpdate
            v = canonical_view(defaults, text(want.get(ids.VIEW_PATH)))
            metric = text(want.get(ids.VIEW_METRIC))
            page = explore_view.page_of(want.get(ids.VIEW_PATH))
        elif kind == ids.T_WHATIF and sens:  # a what-if change: an edit of that box
            if not ctx.triggered or not ctx.triggered[0].get("value"):
                raise PreventUpdate  # the button was just drawn, not clicked
            try:
                new_changes, new_cfg = apply_edit(
                    defaults, changes, click_edit(trig, defaults, changes)
                )
            except (KeyError, ConfigError) as exc:
                msg = problem_text(exc) if isinstance(exc, ConfigError) else "unknown path"
                new_changes, new_cfg = changes, None
                shown = status(f"That change cannot be applied: {msg}", "err")
            rewrite = True
        elif (
            trig
            not in (
                ids.SHOW,
                ids.MODEL_FILTER,
                ids.RANK_SHOWN,
                ids.CURVE_XSCALE,
                ids.DIGITS,
                *explore_view.CONTROLS,
            )
            and kind != ids.T_ATTR
        ):
            raise PreventUpdate

        view_changed = v != v0 or page != page0
        # the sort belongs to a view (a link sets both); a metric's sort follows the toggle
        sort = (
            ""
            if view_changed and trig != ids.URL
            else effective_sort(sort, show, grid.SHOW_OPTIONS[0])
        )
        node = view_node(defaults, v)
        if node is None or not hasattr(node, "metrics"):
            metric = ""
        elif not metric or not metric.startswith(v + "/") or metric not in paths:
            metric = first_metric(defaults, v)

        key = encode_changes(new_changes)  # once: the cache key and the URL's state
        try:
            cfg, scores = cache.scores_for(new_changes, config=new_cfg, key=key)
        except ConfigError:
            raise PreventUpdate from None  # a forged state the page itself never holds
        # {model: NAME} thresholds whose model has no value: the metric is not scored (red box)
        problems = threshold_problems(scores)
        linked_problems = {k: m for k, m in problems.items() if link and k[0] in new_changes}
        if linked_problems and shown is no_update:
            shown = threshold_status(linked_problems, "The link's settings leave a metric unscored")
        from_browser = trig == ids.CHANGES  # the browser holds its changes, URL and boxes
        if from_browser and isinstance(kw["pending"], int):
            out["answered"] = kw["pending"]  # the parts that need Python: in this answer
        if server_scored and (from_browser or new_changes != changes or trig == ids.URL):
            out["live_result"] = result_of(scores)
        if new_changes != changes:
            out["changes"] = new_changes
        if on_changes is not None and (new_changes != changes or from_browser):
            out["tau"] = on_changes(new_changes) or no_update
        if view_changed or metric != metric0:
            out["view"] = {ids.VIEW_PATH: page or v, ids.VIEW_METRIC: metric}
        query = make_query(
            new_changes,
            page or v,
            metric if metric != first_metric(defaults, v) else "",
            filters,
            encoded=key,
            view_extra={
                Q_SHOW: "" if show == grid.SHOW_OPTIONS[0] else show,
                Q_SORT: sort,
                Q_DIGITS: "" if digits == SCORE_DIGITS else str(digits),
            },
        )
        query = explore_view.query_tail(query, page, sel)
        if trig == ids.URL:
            out["qs"] = query
            if not same_query(query, search):  # the link said something else: say it as it is
                out["search"] = query
        elif not from_browser and query != (kw["qs"] or ""):
            out["search"] = query
            out["qs"] = query
        sv = sens.view_state(key, scores, v) if sens else None
        shown_models = filtered_models(filters, cache.models, cache.attr_values)
        n_all = len(cache.models)
        if sv is not None:
            out["dominated"] = {k: ", ".join(v) for k, v in (sv.dominated or {}).items() if v}
        if trig in (ids.MODEL_FILTER, ids.URL) or kind == ids.T_ATTR:  # else the same filters
            out["rows"] = grid.index_rows(cache.models, cache.display, shown_models)
            out["shown_count"] = toolbar.shown_text(
                n_all if shown_models is None else len(shown_models), n_all
            )
        if sens:
            out["whatif_label"] = whatif_labels(
                ctx.outputs_grouping["whatif_label"], defaults, new_changes
            )
        changed_set = {p for p, f in new_changes.items() if f}
        cols = apply_sort(
            column_defs(scores, v, show=show, changed=changed_set, metric=metric), sort
        )
        try:  # the page shows the bar of ``changes``: what equals it is not sent
            shown_scores = None if from_browser else cache.scores_for(changes)[1]
        except ConfigError:
            shown_scores = None
        policy.fill(out, kw["policy"], scores, shown=shown_scores)
        sig = grid.colsig(cols)
        if sig != kw["colsig"]:
            out["cols"] = cols
            out["colsig"] = sig
        is_bench = bool(metric)
        if is_bench:
            xscale = kw["xscale"] if kw["xscale"] in curve.XSCALES else curve.XSCALES[0]
            figure = curve_figure(
                scores,
                metric,
                sv.band(metric) if sv else None,
                names=cache.display,
                xscale=xscale,
                digits=digits,
                defaults=default_thresholds(cache, metric),
            )
            if kw["graph"]:
                # the graph exists: its figure (what changed of it) follows in the browser once
                # the table is drawn
                out["figure"], out["curve_sig"] = curve.update(figure, kw["curve_sig"])
            else:
                out["curve"] = curve.graph(figure)  # first benchmark view: create it
                out["curve_sig"] = None  # the fig holder does not hold it
            if metric != metric0 or view_changed:
                out["mval"] = metric
        n_changed = sum(len(f) for f in new_changes.values())
        n_before = sum(len(f) for f in changes.values())
        explore_view.fill(
            out,
            cache=cache,
            scores=scores,
            page=page,
            view=v,
            is_bench=is_bench,
            sel=sel,
            models=shown_models,
            view_changed=view_changed,
            graphs=explore_view.plots.existing(kw["plot_graphs"]),
            held=kw["plot_sig"],
        )
        if n_changed != n_before or rewrite:
            out["reset_label"] = f"Reset all ({n_changed})" if n_changed else "Reset all"
            out["reset_disabled"] = n_changed == 0
        if shown is not no_update:
            out["status"] = shown
        elif kw["shown_status"] and trig != ids.WANT:  # a message lasts until the next action
            out["status"] = None

        if sv:  # the view's interval texts, unless the page shows the same (one store)
            out["sens_texts"] = sv.store(
                None if view_changed or from_browser else sens.cached(encode_changes(changes), v)
            )
        if view_changed:
            out["settings"] = settings.panel(
                defaults, cfg, new_changes, v, problems, sv.texts if sv else None
            )
            out["crumbs"] = navigation.breadcrumb(defaults, v)
            out["mopts"] = curve.metric_options(defaults, v)
            out["plot_style"] = SHOWN if is_bench else HIDDEN
            out["show_style"] = SHOWN if is_bench else HIDDEN
            return out

        if from_browser:
            return out  # the browser has marked its boxes
        # same view: update the boxes in place (never re-render them: focus stays where it is);
        # only the boxes whose value or mark changes are sent
        out["box_value"], out["box_class"] = settings.box_states(
            boxes,
            defaults,
            changes,
            new_changes,
            rewrite=rewrite,
            pending=pending,
            problems=problems,
            cfg=cfg,
        )
        out["msg"] = [
            settings.row_message(m["id"][ids.KEY_PATH], problems)
            if rewrite
            else no_update
            for m in ctx.outputs_grouping["msg"]
        ]
        return out

