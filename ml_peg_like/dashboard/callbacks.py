"""The dashboard's callbacks.

One server callback (:func:`register`'s ``update``) takes every user action (a box, a reset, a
preset, an upload, the URL, navigation, the raw/normalised toggle, the model filter) and returns
every output of the page in ONE round trip: the changes, the URL, the table, the plot, the boxes'
states and messages. It sends only what changed (``no_update`` elsewhere). Navigation (sidebar,
breadcrumbs, cell and header clicks, the metric picker) is a clientside callback
(assets/navigation.js) that writes the ``want`` store, so the server callback does not carry the
~100 navigation buttons as inputs; the sidebar's highlight follows the ``view`` store in the
browser too. An edit or a click still costs exactly one request. Exports are separate callbacks
that run only on their button.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import threading
from collections import OrderedDict
from typing import Any

import orjson
from dash import (
    ALL,
    ClientsideFunction,
    Input,
    Output,
    State,
    ctx,
    dcc,
    html,
    no_update,
    set_props,
)
from dash.exceptions import PreventUpdate

from ..config import Config, Metric, dump_config, loads_config
from ..errors import ConfigError, Problem
from ..io.export import tables_csv_zip, tables_xlsx
from ..raw import RawData
from ..scoring import Scores, score_values
from .figures import curve_figure
from .layout import breadcrumb, curve_graph, metric_options, settings_panel
from .state import (
    MAX_STATE_CHARS,
    MAX_TEXT,
    Q_FILTER,
    Q_METRIC,
    Q_STATE,
    Q_VIEW,
    Changes,
    apply_edit,
    attribute_options,
    attribute_values,
    changes_from_upload,
    clean_changes,
    clean_filters,
    decode_changes,
    decode_filters,
    display_value,
    effective_changes,
    encode_changes,
    filtered_models,
    make_query,
    node_value,
    parse_box,
    parse_query,
    reset_paths,
    same_value,
    split_where,
    try_changes,
)
from .tables import canonical_view, column_defs, row_data, view_node

MAX_UPLOAD_BYTES = 2 * 1024 * 1024
CACHE_BYTES = 256 * 1024 * 1024  # the memo of scores per change set, per worker process
MAX_BOXES = 5000  # boxes on one view (3 per metric of the largest benchmark, with room)
HIDDEN = {"display": "none"}
WILDCARD_OUTPUTS = ("box_value", "box_class", "msg", "attr_value")
SHOWN: dict[str, str] = {}


class Engine:
    """The default config and raw values, and a small memo of scores per change set.

    The memo is an optimisation only (same input, same output): every request carries its whole
    state, so any worker process can answer any request.
    """

    def __init__(self, config: Config, raw: RawData, cache_size: int = 64):
        self.defaults = config
        self.raw = raw
        self.models = tuple(raw.models)
        self.values = raw.aligned(config)
        self.default_scores = score_values(self.values, self.models, config)
        self.paths = set(config._paths)
        self.attr_options = attribute_options(raw.attributes)  # the model filters offered
        self.attr_values = (
            attribute_values(raw.attributes, self.attr_options) if self.attr_options else {}
        )
        self._cache: OrderedDict[str, tuple[Config, Scores]] = OrderedDict()
        self._lock = threading.Lock()
        # bounded in bytes too: a client cycling through distinct states cannot hold more than
        # ~CACHE_BYTES of score matrices (about 2 models x metrics float64 matrices per entry)
        per_entry = 16 * max(1, self.values.size)
        self._size = max(2, min(cache_size, CACHE_BYTES // per_entry))

    def scores_for(self, changes: Changes) -> tuple[Config, Scores]:
        """(config, scores) of defaults + changes; ConfigError when the changes are invalid."""
        key = encode_changes(changes)
        if not key:
            return self.defaults, self.default_scores
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        cfg = try_changes(self.defaults, changes)
        result = (cfg, score_values(self.values, self.models, cfg))
        with self._lock:
            self._cache[key] = result
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return result


def _problem_text(exc: ConfigError, limit: int = 3) -> str:
    lines = [str(p) for p in exc.problems[:limit]]
    if len(exc.problems) > limit:
        lines.append(f"… and {len(exc.problems) - limit} more")
    return "; ".join(lines)


def _status(text: str, kind: str = "ok") -> html.Div:
    return html.Div(text, className=f"status-msg {kind}")


def _colsig(cols: list[dict]) -> str:
    return hashlib.blake2b(orjson.dumps(cols), digest_size=8).hexdigest()


def _first_metric(cfg: Config, view: str) -> str:
    node = view_node(cfg, view)
    if node is None or not hasattr(node, "metrics"):
        return ""
    return f"{cfg.full_path(view)}/{node.metrics[0].name}"


def register(app, engine: Engine) -> None:
    defaults = engine.defaults
    paths = engine.paths

    # navigation (sidebar, breadcrumbs, metric links, cell and header clicks, the metric picker)
    # runs in the browser: it writes the ``want`` store, the one input of the server callback
    # that stands for all of them (assets/navigation.js)
    app.clientside_callback(
        ClientsideFunction("mpl", "navigate"),
        Output("want", "data"),
        Input({"type": "nav", "path": ALL}, "n_clicks"),
        Input({"type": "crumb", "path": ALL}, "n_clicks"),
        Input({"type": "pick", "path": ALL}, "n_clicks"),
        Input("grid", "cellClicked"),
        Input("hdr", "data"),
        Input("metric-pick", "value"),
        State("view", "data"),
        State("tree", "data"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("mpl", "drawCurve"),
        Output({"type": "curve", "i": ALL}, "figure"),
        Input("fig", "data"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("mpl", "navClasses"),
        Output({"type": "nav", "path": ALL}, "className"),
        Input("view", "data"),
        State("tree", "data"),
        prevent_initial_call=True,
    )

    @app.callback(
        output=dict(
            changes=Output("changes", "data"),
            view=Output("view", "data"),
            search=Output("url", "search"),
            qs=Output("qs", "data"),
            rows=Output("grid", "rowData"),
            cols=Output("grid", "columnDefs"),
            colsig=Output("colsig", "data"),
            settings=Output("settings", "children"),
            box_value=Output({"type": "setting", "path": ALL, "field": ALL}, "value"),
            box_class=Output({"type": "setting", "path": ALL, "field": ALL}, "className"),
            msg=Output({"type": "msg", "path": ALL}, "children"),
            crumbs=Output("crumbs", "children"),
            curve=Output("curve-holder", "children"),
            figure=Output("fig", "data"),
            mopts=Output("metric-pick", "options"),
            mval=Output("metric-pick", "value"),
            plot_style=Output("plot-wrap", "style"),
            show_style=Output("show-wrap", "style"),
            status=Output("status", "children"),
            reset_label=Output("reset-all", "children"),
            reset_disabled=Output("reset-all", "disabled"),
            upload=Output("upload", "contents"),
            picks=Output("model-filter", "value"),
            attr_value=Output({"type": "attr", "name": ALL}, "value"),
        ),
        inputs=dict(
            box=Input({"type": "setting", "path": ALL, "field": ALL}, "value"),
            reset_one=Input({"type": "reset", "path": ALL}, "n_clicks"),
            reset_table=Input("reset-table", "n_clicks"),
            reset_all=Input("reset-all", "n_clicks"),
            preset=Input("preset", "value"),
            upload=Input("upload", "contents"),
            search=Input("url", "search"),
            want=Input("want", "data"),
            show=Input("show", "value"),
            models=Input("model-filter", "value"),
            attrs=Input({"type": "attr", "name": ALL}, "value"),
        ),
        state=dict(
            filename=State("upload", "filename"),
            changes=State("changes", "data"),
            view=State("view", "data"),
            qs=State("qs", "data"),
            colsig=State("colsig", "data"),
            shown_status=State("status", "children"),
            graph=State({"type": "curve", "i": ALL}, "id"),
        ),
        prevent_initial_call=True,
    )
    def update(**kw: Any) -> dict[str, Any]:
        out = _update(**kw)
        for key in WILDCARD_OUTPUTS:
            if out[key] is no_update:
                out[key] = [no_update] * len(ctx.outputs_grouping[key])
        return out

    def _update(**kw: Any) -> dict[str, Any]:
        trig = ctx.triggered_id
        if trig is None:
            raise PreventUpdate
        if "url.search" in ctx.triggered_prop_ids:
            trig = "url"  # a page load (or back/forward) wins over anything fired with it
        # everything from the client is checked for type and size first: a forged request that
        # does not look like the page's own is ignored (204), it never reaches the engine
        try:
            changes: Changes = clean_changes(defaults, kw["changes"])
            boxes = _boxes(ctx.args_grouping["box"])
        except ValueError:
            raise PreventUpdate from None
        if isinstance(trig, dict) and not all(isinstance(x, str) for x in trig.values()):
            raise PreventUpdate
        raw_view = kw["view"] if isinstance(kw["view"], dict) else {}
        v = canonical_view(defaults, _text(raw_view.get("v")))
        metric = _text(raw_view.get("m"))
        view0 = {"v": v, "m": metric}
        show = kw["show"] if kw["show"] in ("raw", "score") else "raw"
        filters = clean_filters(
            {"p": kw["models"], "a": _attr_selection(ctx.args_grouping["attrs"])},
            engine.models,
            engine.attr_options,
        )
        for key, limit in (("qs", MAX_STATE_CHARS + 4000), ("colsig", 64), ("filename", 255)):
            kw[key] = _text(kw[key], limit)
        out: dict[str, Any] = {k: no_update for k in ctx.outputs_grouping}
        new_changes = changes
        set_values = False  # rewrite every box from the state (reset, preset, upload, URL)
        edit_error: tuple[str, str, str] | None = None  # (path, field, message)
        pending: set[tuple[str, str]] = set()
        status: Any = no_update

        def eff(path: str, field: str, ch: Changes) -> Any:
            if field in ch.get(path, {}):
                return ch[path][field]
            return node_value(defaults, path, field)

        if isinstance(trig, dict) and trig.get("type") == "setting":
            path, field = trig.get("path", ""), trig.get("field", "")
            text = next((val for p, f, val in boxes if p == path and f == field), None)
            edits = {(path, field): text}
            # other boxes of the same row still holding a refused value are retried with it
            for p, f, val in boxes:
                if p == path and f != field and not same_value(parse_box(val), eff(p, f, changes)):
                    edits[(p, f)] = val
            pending = set(edits)
            try:
                if any(isinstance(t, str) and len(t) > MAX_TEXT for t in edits.values()):
                    raise ConfigError([Problem(f"{path}.{field}", "too long: type a number")])
                new_changes, _cfg = apply_edit(defaults, changes, edits)
            except ConfigError as exc:
                mine = [
                    pr.message for pr in exc.problems if split_where(pr.where, paths)[0] == path
                ]
                edit_error = (path, field, "; ".join(dict.fromkeys(mine)) or _problem_text(exc))
        elif isinstance(trig, dict) and trig.get("type") == "reset":
            new_changes = reset_paths(changes, [trig.get("path", "")])
            set_values = True
        elif trig == "reset-table":
            new_changes = reset_paths(changes, {p for p, _f, _v in boxes})
            set_values = True
        elif trig == "reset-all":
            new_changes = {}
            set_values = True
            status = _status("Back to the default settings.")
        elif trig == "preset":
            name = kw["preset"]
            if not name or not isinstance(name, str):
                raise PreventUpdate
            try:
                new_changes = effective_changes(defaults, defaults.presets[name])
                engine.scores_for(new_changes)
                status = _status(f"Preset “{name}” applied.")
            except (KeyError, ConfigError) as exc:
                new_changes = changes
                status = _status(f"Preset {name!r} cannot be applied: {exc}", "err")
            set_values = True
        elif trig == "upload":
            contents = kw["upload"]
            if not contents or not isinstance(contents, str):
                raise PreventUpdate
            out["upload"] = None
            fname = kw["filename"] or "upload"
            try:
                data = _decode_upload(contents)
                uploaded = loads_config(data, fname)
                new_changes = changes_from_upload(defaults, uploaded)
                n = sum(len(f) for f in new_changes.values())
                status = _status(
                    f"Loaded settings from {fname}: {n} change{'s' if n != 1 else ''} "
                    "from the defaults."
                )
                set_values = True
            except ConfigError as exc:
                out["status"] = _status(f"{fname} was not applied: {_problem_text(exc)}", "err")
                return out
        elif trig == "url":
            search = _text(kw["search"], MAX_STATE_CHARS + 4000)
            if search == (kw["qs"] or ""):
                raise PreventUpdate
            q = parse_query(search)
            try:
                linked_changes = effective_changes(defaults, decode_changes(q.get(Q_STATE)))
                new_changes = clean_changes(defaults, linked_changes)
                engine.scores_for(new_changes)
            except (ValueError, ConfigError) as exc:
                msg = _problem_text(exc) if isinstance(exc, ConfigError) else str(exc)
                status = _status(f"The settings in the link were ignored: {msg}", "err")
                new_changes = {}
            v = canonical_view(defaults, q.get(Q_VIEW, ""))
            metric = q.get(Q_METRIC, "")
            set_values = True
            linked = decode_filters(q.get(Q_FILTER), engine.models, engine.attr_options)
            if linked != filters:
                filters = linked
                out["picks"] = linked.get("p") or None
                sel = linked.get("a") or {}
                out["attr_value"] = [
                    sel.get(o["id"]["name"]) or None for o in ctx.outputs_grouping["attr_value"]
                ]
        elif trig == "want":
            want = kw["want"]
            if not isinstance(want, dict) or "t" not in want:
                raise PreventUpdate
            v = canonical_view(defaults, _text(want.get("v")))
            metric = _text(want.get("m"))
        elif trig in ("show", "model-filter") or (
            isinstance(trig, dict) and trig.get("type") == "attr"
        ):
            pass
        else:
            raise PreventUpdate

        view_changed = v != view0.get("v", "")
        if view_node(defaults, v) is None or not hasattr(view_node(defaults, v), "metrics"):
            metric = ""
        elif not metric or not metric.startswith(v + "/") or metric not in paths:
            metric = _first_metric(defaults, v)

        if edit_error is not None:
            # refused: the scores, changes and URL keep their last valid values
            p, f, message = edit_error
            out["box_class"] = [
                ("box invalid" if (bp, bf) in pending else no_update) for bp, bf, _ in boxes
            ]
            out["msg"] = [
                message if m["id"]["path"] == p else no_update for m in ctx.outputs_grouping["msg"]
            ]
            return out

        try:
            cfg, scores = engine.scores_for(new_changes)
        except ConfigError:
            raise PreventUpdate from None  # a forged state the page itself never holds
        changed_set = {p for p, f in new_changes.items() if f}
        if new_changes != changes:
            out["changes"] = new_changes
            if getattr(engine, "tau_line", False):  # the Robustness view's tau line, same response
                from .robustness_view import tau_line_text

                tau = tau_line_text(engine, new_changes)
                if tau is not None:
                    set_props("rob-tau", {"children": tau})
        if v != view0.get("v", "") or metric != view0.get("m", ""):
            out["view"] = {"v": v, "m": metric}
        query = make_query(
            new_changes, v, metric if metric != _first_metric(defaults, v) else "", filters
        )
        if query != (kw["qs"] or "") or trig == "url":
            out["search"] = query
            out["qs"] = query
        out["rows"] = row_data(
            scores,
            v,
            default_ranks=engine.default_scores.ranks,
            models=filtered_models(filters, engine.models, engine.attr_values),
        )
        cols = column_defs(scores, v, show=show, changed=changed_set, metric=metric)
        sig = _colsig(cols)
        if sig != kw["colsig"]:
            out["cols"] = cols
            out["colsig"] = sig
        is_bench = bool(metric)
        if is_bench:
            figure = curve_figure(scores, metric)
            if kw["graph"]:
                # the graph exists: its figure follows in the browser once the table is drawn
                out["figure"] = figure
            else:
                out["curve"] = curve_graph(figure)  # first benchmark view: create it
            if metric != view0.get("m") or view_changed:
                out["mval"] = metric
        n_changed = sum(len(f) for f in new_changes.values())
        n_before = sum(len(f) for f in changes.values())
        if n_changed != n_before or set_values:
            out["reset_label"] = f"Reset all ({n_changed})" if n_changed else "Reset all"
            out["reset_disabled"] = n_changed == 0
        if status is not no_update:
            out["status"] = status
        elif kw["shown_status"] and trig != "want":  # a message lasts until the next action
            out["status"] = None

        if view_changed:
            out["settings"] = settings_panel(defaults, cfg, new_changes, v)
            out["crumbs"] = breadcrumb(defaults, v)
            out["mopts"] = metric_options(defaults, v)
            out["plot_style"] = SHOWN if is_bench else HIDDEN
            out["show_style"] = SHOWN if is_bench else HIDDEN
            return out

        # same view: update the boxes in place (never re-render them: focus stays where it is);
        # only the boxes whose value or mark changes are sent
        values, classes = [], []
        for bp, bf, text in boxes:
            value = eff(bp, bf, new_changes)
            was = bf in changes.get(bp, {})
            now = bf in new_changes.get(bp, {})
            klass = "box modified" if now else "box"
            if set_values:
                same = same_value(parse_box(text), value)
                values.append(no_update if same else display_value(value))
                classes.append(klass)
            elif (bp, bf) in pending:
                values.append(no_update)
                classes.append(klass)
            elif same_value(parse_box(text), value):
                values.append(no_update)
                classes.append(klass if was != now else no_update)
            else:
                values.append(no_update)
                classes.append(no_update)  # still holds a refused value: stays red
        out["box_value"] = values
        out["box_class"] = classes
        edited = {bp for bp, _bf in pending}
        out["msg"] = [
            "" if (set_values or m["id"]["path"] in edited) else no_update
            for m in ctx.outputs_grouping["msg"]
        ]
        return out

    for kind, fn in (("csv", _csv), ("xlsx", _xlsx), ("yaml", _yaml)):
        _register_download(app, engine, kind, fn)


def _text(value: Any, limit: int = 2000) -> str:
    """A short string from a client value (anything else: "")."""
    return value if isinstance(value, str) and len(value) <= limit else ""


def _boxes(group: Any) -> list[tuple[str, str, Any]]:
    """(path, field, value) of every box in the request; ValueError when it is malformed."""
    if not isinstance(group, list) or len(group) > MAX_BOXES:
        raise ValueError("boxes")
    out = []
    for b in group:
        bid = b.get("id") if isinstance(b, dict) else None
        if not isinstance(bid, dict):
            raise ValueError("box id")
        path, field, value = bid.get("path"), bid.get("field"), b.get("value")
        if not isinstance(path, str) or not isinstance(field, str):
            raise ValueError("box id")
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, str | int | float)
        ):
            raise ValueError("box value")
        out.append((path, field, value))
    return out


def _attr_selection(group: Any) -> dict[str, Any]:
    """``{attribute: selected values}`` of the attribute dropdowns in the request."""
    if not isinstance(group, list):
        return {}
    out = {}
    for a in group:
        aid = a.get("id") if isinstance(a, dict) else None
        if isinstance(aid, dict) and isinstance(aid.get("name"), str):
            out[aid["name"]] = a.get("value")
    return out


def tree_store(cfg: Config) -> dict[str, Any]:
    """What the browser's navigation needs: the category of every view path, and the view path
    of every drill-down column (``c<i>`` overview, ``b<k>`` category view) and metric column."""
    cat_of: dict[str, str] = {}
    cols: dict[str, str] = {}
    k = 0
    for i, c in enumerate(cfg.categories):
        cat_of[c.name] = c.name
        cols[f"c{i}"] = c.name
        for b in c.benchmarks:
            p = f"{c.name}/{b.name}"
            cat_of[p] = c.name
            cols[f"b{k}"] = p
            k += 1
    return {"cat": cat_of, "col": cols, "metrics": cfg.metric_paths()}


def _decode_upload(contents: str) -> bytes:
    head, _, body = contents.partition(",")
    if not body:
        raise ConfigError("the file could not be read")
    if len(body) > (MAX_UPLOAD_BYTES * 4) // 3 + 8:
        raise ConfigError(f"the file is larger than {MAX_UPLOAD_BYTES // 2**20} MB")
    try:
        data = base64.b64decode(body, validate=False)
    except (binascii.Error, ValueError):
        raise ConfigError("the file could not be decoded") from None
    if len(data) > MAX_UPLOAD_BYTES:
        raise ConfigError(f"the file is larger than {MAX_UPLOAD_BYTES // 2**20} MB")
    if not data.strip():
        raise ConfigError("the file is empty")
    return data


def _csv(engine: Engine, changes: Changes):
    _cfg, scores = engine.scores_for(changes)
    return dcc.send_bytes(tables_csv_zip(scores), "scores.zip")


def _xlsx(engine: Engine, changes: Changes):
    _cfg, scores = engine.scores_for(changes)
    return dcc.send_bytes(tables_xlsx(scores), "scores.xlsx")


def _yaml(engine: Engine, changes: Changes):
    cfg, _scores = engine.scores_for(changes)
    return dcc.send_string(dump_config(cfg), "config.yml")


def _register_download(app, engine: Engine, kind: str, fn) -> None:
    @app.callback(
        Output(f"dl-{kind}", "data"),
        Input(f"dl-{kind}-btn", "n_clicks"),
        State("changes", "data"),
        prevent_initial_call=True,
    )
    def download(_n, changes):
        try:
            return fn(engine, clean_changes(engine.defaults, changes))
        except (ConfigError, ValueError):
            raise PreventUpdate from None


def is_metric(cfg: Config, path: str) -> bool:
    try:
        return isinstance(cfg.node(path), Metric)
    except KeyError:
        return False
