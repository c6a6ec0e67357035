"""The dashboard's callbacks.

One server callback (:func:`register`'s ``update``) takes every user action (a box, a reset, a
preset, an upload, the URL, navigation, the metric picker, the raw/normalised toggle, the model
filter) and returns every output of the page in ONE round trip: the changes, the URL, the table,
the plot, the boxes' states and messages. No callback feeds another, so an edit costs one request.
Exports are separate callbacks that run only on their button.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import threading
from collections import OrderedDict
from typing import Any

import orjson
from dash import ALL, Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from ..config import Config, Metric, dump_config, loads_config
from ..errors import ConfigError
from ..io.export import tables_csv_zip, tables_xlsx
from ..raw import RawData
from ..scoring import Scores, score_values
from .figures import curve_figure
from .layout import breadcrumb, curve_graph, metric_options, settings_panel
from .state import (
    Q_METRIC,
    Q_STATE,
    Q_VIEW,
    Changes,
    apply_edit,
    changes_from_upload,
    decode_changes,
    display_value,
    effective_changes,
    encode_changes,
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
HIDDEN = {"display": "none"}
WILDCARD_OUTPUTS = ("box_value", "box_class", "msg", "nav_class")
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
        self._cache: OrderedDict[str, tuple[Config, Scores]] = OrderedDict()
        self._lock = threading.Lock()
        self._size = cache_size

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


def _metric_of_col(cfg: Config, col_id: str | None) -> str:
    """Metric key path of a benchmark-view column id ``r<j>`` / ``n<j>``."""
    if not col_id or col_id[0] not in "rn" or not col_id[1:].isdigit():
        return ""
    j = int(col_id[1:])
    paths = cfg.metric_paths()
    return paths[j] if j < len(paths) else ""


def _drill_of_col(cfg: Config, col_id: str | None) -> str:
    """View path of an overview column ``c<i>`` or a category-view column ``b<k>``."""
    if not col_id or not col_id[1:].isdigit():
        return ""
    i = int(col_id[1:])
    if col_id[0] == "c" and i < len(cfg.categories):
        return cfg.categories[i].name
    if col_id[0] == "b":
        benches = [(c.name, b.name) for c in cfg.categories for b in c.benchmarks]
        if i < len(benches):
            return "/".join(benches[i])
    return ""


def register(app, engine: Engine) -> None:
    defaults = engine.defaults
    paths = engine.paths

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
            nav_class=Output({"type": "nav", "path": ALL}, "className"),
            crumbs=Output("crumbs", "children"),
            curve=Output("curve-holder", "children"),
            mopts=Output("metric-pick", "options"),
            mval=Output("metric-pick", "value"),
            plot_style=Output("plot-wrap", "style"),
            show_style=Output("show-wrap", "style"),
            status=Output("status", "children"),
            reset_label=Output("reset-all", "children"),
            reset_disabled=Output("reset-all", "disabled"),
            upload=Output("upload", "contents"),
        ),
        inputs=dict(
            box=Input({"type": "setting", "path": ALL, "field": ALL}, "value"),
            reset_one=Input({"type": "reset", "path": ALL}, "n_clicks"),
            reset_table=Input("reset-table", "n_clicks"),
            reset_all=Input("reset-all", "n_clicks"),
            preset=Input("preset", "value"),
            upload=Input("upload", "contents"),
            search=Input("url", "search"),
            nav=Input({"type": "nav", "path": ALL}, "n_clicks"),
            crumb=Input({"type": "crumb", "path": ALL}, "n_clicks"),
            pick=Input({"type": "pick", "path": ALL}, "n_clicks"),
            cell=Input("grid", "cellClicked"),
            header=Input("grid", "eventData"),
            metric=Input("metric-pick", "value"),
            show=Input("show", "value"),
            models=Input("model-filter", "value"),
        ),
        state=dict(
            filename=State("upload", "filename"),
            changes=State("changes", "data"),
            view=State("view", "data"),
            qs=State("qs", "data"),
            colsig=State("colsig", "data"),
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
        prop = ctx.triggered[0]["prop_id"].rsplit(".", 1)[-1]
        groups = ctx.args_grouping
        boxes = [(b["id"]["path"], b["id"]["field"], b["value"]) for b in groups["box"]]
        changes: Changes = kw["changes"] or {}
        view0 = kw["view"] or {"v": "", "m": ""}
        v, metric = view0.get("v", ""), view0.get("m", "")
        show = kw["show"] or "raw"
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
            path, field = trig["path"], trig["field"]
            text = next((val for p, f, val in boxes if p == path and f == field), None)
            edits = {(path, field): text}
            # other boxes of the same row still holding a refused value are retried with it
            for p, f, val in boxes:
                if p == path and f != field and not same_value(parse_box(val), eff(p, f, changes)):
                    edits[(p, f)] = val
            pending = set(edits)
            try:
                new_changes, _cfg = apply_edit(defaults, changes, edits)
            except ConfigError as exc:
                mine = [
                    pr.message for pr in exc.problems if split_where(pr.where, paths)[0] == path
                ]
                edit_error = (path, field, "; ".join(dict.fromkeys(mine)) or _problem_text(exc))
        elif isinstance(trig, dict) and trig.get("type") == "reset":
            new_changes = reset_paths(changes, [trig["path"]])
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
            if not name:
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
            if not contents:
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
            search = kw["search"] or ""
            if search == (kw["qs"] or ""):
                raise PreventUpdate
            q = parse_query(search)
            try:
                new_changes = effective_changes(defaults, decode_changes(q.get(Q_STATE)))
                engine.scores_for(new_changes)
            except (ValueError, ConfigError) as exc:
                msg = _problem_text(exc) if isinstance(exc, ConfigError) else str(exc)
                status = _status(f"The settings in the link were ignored: {msg}", "err")
                new_changes = {}
            v = canonical_view(defaults, q.get(Q_VIEW, ""))
            metric = q.get(Q_METRIC, "")
            set_values = True
        elif isinstance(trig, dict) and trig.get("type") in ("nav", "crumb"):
            v = canonical_view(defaults, trig["path"])
        elif isinstance(trig, dict) and trig.get("type") == "pick":
            metric = trig["path"]
        elif trig == "grid" and prop == "cellClicked":
            col = (kw["cell"] or {}).get("colId")
            target = _drill_of_col(defaults, col)
            if target:
                v = canonical_view(defaults, target)
            else:
                metric = _metric_of_col(defaults, col) or metric
        elif trig == "grid" and prop == "eventData":
            data = (kw["header"] or {}).get("data") or {}
            metric = _metric_of_col(defaults, data.get("colId")) or metric
        elif trig == "metric-pick":
            metric = kw["metric"] or metric
        elif trig in ("show", "model-filter"):
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

        cfg, scores = engine.scores_for(new_changes)
        changed_set = {p for p, f in new_changes.items() if f}
        out["changes"] = new_changes
        out["view"] = {"v": v, "m": metric}
        query = make_query(new_changes, v, metric if metric != _first_metric(defaults, v) else "")
        if query != (kw["qs"] or "") or trig == "url":
            out["search"] = query
            out["qs"] = query
        out["rows"] = row_data(
            scores, v, default_ranks=engine.default_scores.ranks, models=kw["models"] or None
        )
        cols = column_defs(scores, v, show=show, changed=changed_set, metric=metric)
        sig = _colsig(cols)
        if sig != kw["colsig"]:
            out["cols"] = cols
            out["colsig"] = sig
        is_bench = bool(metric)
        if is_bench:
            out["curve"] = curve_graph(curve_figure(scores, metric))
            if metric != view0.get("m") or view_changed:
                out["mval"] = metric
        elif view_changed:
            out["curve"] = None
        n_changed = sum(len(f) for f in new_changes.values())
        out["reset_label"] = f"Reset all ({n_changed})" if n_changed else "Reset all"
        out["reset_disabled"] = n_changed == 0
        if status is not no_update:
            out["status"] = status
        elif trig not in ("show", "model-filter", "metric-pick", "grid") and not (
            isinstance(trig, dict) and trig.get("type") in ("nav", "crumb", "pick")
        ):
            out["status"] = None

        if view_changed:
            out["settings"] = settings_panel(defaults, cfg, new_changes, v)
            out["crumbs"] = breadcrumb(defaults, v)
            out["nav_class"] = [
                nav_class(defaults, n["id"]["path"], v) for n in ctx.outputs_grouping["nav_class"]
            ]
            out["mopts"] = metric_options(defaults, v)
            out["plot_style"] = SHOWN if is_bench else HIDDEN
            out["show_style"] = SHOWN if is_bench else HIDDEN
            return out

        # same view: update the boxes in place (never re-render them: focus stays where it is)
        values, classes = [], []
        for bp, bf, text in boxes:
            value = eff(bp, bf, new_changes)
            klass = "box modified" if bf in new_changes.get(bp, {}) else "box"
            if set_values:
                values.append(display_value(value))
                classes.append(klass)
            elif (bp, bf) in pending or same_value(parse_box(text), value):
                values.append(no_update)
                classes.append(klass)
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


def nav_class(cfg: Config, path: str, view: str) -> str:
    """Sidebar item classes: kind, ``active`` (the view), ``open``/``shown`` (its category)."""
    if not path:
        return "nav-item top" + (" active" if not view else "")
    node = view_node(cfg, path)
    view_cat = cfg.full_path(view).split("/")[0] if view else ""
    if node is not None and hasattr(node, "benchmarks"):
        klass = "nav-item cat" + (" open" if node.name == view_cat else "")
    else:
        cat = path[: len(path) - len(node.name) - 1] if node is not None else ""
        klass = "nav-item bench" + (" shown" if cat == view_cat else "")
    return klass + (" active" if path == view else "")


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
            return fn(engine, changes or {})
        except ConfigError:
            raise PreventUpdate from None


def is_metric(cfg: Config, path: str) -> bool:
    try:
        return isinstance(cfg.node(path), Metric)
    except KeyError:
        return False
