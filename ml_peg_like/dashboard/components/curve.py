"""The normalisation curve of the selected metric (figure from ``figures.py``). The graph is
created on the first benchmark view (plotly.js stays out of the first render); later figures go
through the ``fig`` store and are drawn in the browser after the table (``register``). An edit
sends the store only what changed of the figure (``update``: nothing, a Dash ``Patch`` or the
whole figure), told by the hashes the ``curve-sig`` store holds beside it."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from dash import ALL, ClientsideFunction, Input, Output, Patch, State, dcc, html, no_update

from ...config import Benchmark, Config
from .. import ids
from ..curve_axis import XSCALES

__all__ = [
    "OUTPUTS",
    "STATES",
    "XSCALES",
    "graph",
    "layout",
    "metric_options",
    "register",
    "update",
]

#: the edit callback's outputs and states of the curve's signature (``update``)
OUTPUTS = dict(curve_sig=Output(ids.CURVE_SIG, "data"))
STATES = dict(curve_sig=State(ids.CURVE_SIG, "data"))


def layout() -> html.Div:
    """The panel: a title, the metric picker and the (empty) holder of the graph."""
    return html.Div(
        [
            html.Div(
                [
                    html.H3("Normalisation curve"),
                    dcc.Dropdown(
                        id=ids.METRIC_PICK,
                        options=[],
                        clearable=False,
                        className="metric-pick",
                        placeholder="Metric…",
                    ),
                    html.Div(
                        [
                            html.Span("x axis", className="xscale-label"),
                            dcc.RadioItems(
                                id=ids.CURVE_XSCALE,
                                options=[
                                    {"label": "auto", "value": "auto"},
                                    {"label": "linear", "value": "linear"},
                                    {"label": "log x", "value": "log"},
                                ],
                                value=XSCALES[0],
                                inline=True,
                                className="xscale",
                            ),
                        ],
                        className="xscale-wrap",
                        title="auto: a log axis when the values span more than three decades",
                    ),
                ],
                className="panel-head",
            ),
            html.Div(id=ids.CURVE_HOLDER, className="curve-holder"),
            dcc.Store(id=ids.CURVE_SIG, data=None),
            html.Div(id=ids.BENCH_FIG_HOLDER, className="bench-fig-holder"),
        ],
        id=ids.PLOT_WRAP,
        className="plot-panel",
        style={"display": "none"},
    )


def metric_options(cfg: Config, view: str) -> list[dict]:
    """The picker's options: the metrics of a benchmark view (none elsewhere)."""
    node = cfg.node(view) if view else None
    if not isinstance(node, Benchmark):
        return []
    full = cfg.full_path(view)
    return [{"label": m.name, "value": f"{full}/{m.name}"} for m in node.metrics]


def graph(figure: dict) -> html.Div:
    """The curve's graph, created once (on the first benchmark view); later edits update its
    ``figure`` through a pattern-matching output (no re-render of the layout)."""
    return html.Div(
        dcc.Graph(
            id=ids.curve_graph(0),
            figure=figure,
            config={"displaylogo": False, "responsive": True},
            style={"height": "320px"},
        ),
        id=ids.CURVE,
    )


def register(app) -> None:
    """The figure in the ``fig`` store is drawn after the browser has painted the table."""
    app.clientside_callback(
        ClientsideFunction("mpl", "drawCurve"),
        Output(ids.curve_graph(ALL), "figure"),
        Input(ids.FIG, "data"),
        prevent_initial_call=True,
    )


# ------------------------------------------------------------------------------------------------
# An edit sends what changed of the figure
# ------------------------------------------------------------------------------------------------

#: the parts of a curve figure that settings of the same metric change (paths into the figure;
#: also ``"y"`` of every trace, the x of the line and each element of these lists): an edit
#: resends those of them that differ, nothing else
_LAYOUT_PARTS = (
    ("layout", "title", "text"),
    ("layout", "xaxis", "range"),
    ("layout", "xaxis", "type"),
)
_LAYOUT_LISTS = ("shapes", "annotations")  # their lengths are fixed, each element a part
_SLOT = "\x00part"  # what stands for a part in the figure whose hash says what is fixed


def _parts(figure: dict) -> list[tuple]:
    n = len(figure.get("data") or [])
    line = [("data", 0, "x")] if n else []
    layout = figure.get("layout") if isinstance(figure.get("layout"), dict) else {}
    items = [
        ("layout", key, i)
        for key in _LAYOUT_LISTS
        if isinstance(layout.get(key), list)
        for i in range(len(layout[key]))
    ]
    return [*line, *(("data", k, "y") for k in range(n)), *_LAYOUT_PARTS, *items]


def _get(obj: Any, path: tuple) -> Any:
    for key in path:
        try:
            obj = obj[key]
        except (KeyError, IndexError, TypeError):
            return _SLOT
    return obj


def _hash(value: Any, size: int) -> str:
    blob = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY)
    return hashlib.blake2b(blob, digest_size=size).hexdigest()


def signature(figure: dict) -> str:
    """``FIXED:PART,PART...``: a hash of the figure without its changing parts (``_parts``), then
    a hash of each of those parts (absent: ``-``)."""
    parts = _parts(figure)
    fixed = {"data": [dict(t) for t in figure.get("data") or []], "layout": figure.get("layout")}
    fixed["layout"] = _strip(fixed["layout"], [p[1:] for p in _LAYOUT_PARTS])
    for p in parts:
        if p[0] == "data" and p[2] in fixed["data"][p[1]]:
            fixed["data"][p[1]][p[2]] = _SLOT
    hashes = [("-" if (v := _get(figure, p)) is _SLOT else _hash(v, 4)) for p in parts]
    return _hash(fixed, 8) + ":" + ",".join(hashes)


def _strip(layout: Any, paths: list[tuple]) -> Any:
    """``layout`` with the values at ``paths`` replaced by a placeholder (copied as needed)."""
    if not isinstance(layout, dict):
        return layout
    out = dict(layout)
    for key in _LAYOUT_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_SLOT] * len(out[key])
    for path in paths:
        if len(path) == 1:
            if path[0] in out:
                out[path[0]] = _SLOT
        elif isinstance(out.get(path[0]), dict):
            out[path[0]] = _strip(out[path[0]], [path[1:]])
    return out


def update(figure: dict, held: Any) -> tuple[Any, str]:
    """(the ``fig`` store's output, the new signature) for ``figure`` when the store holds the
    figure of signature ``held``: nothing when they are the same, a Dash ``Patch`` of the parts
    that differ when only changing parts differ (the same metric, axis type, points and hover
    text), else the whole figure."""
    sig = signature(figure)
    if sig == held:
        return no_update, no_update
    fixed, _, hashes = sig.partition(":")
    if not isinstance(held, str) or held.partition(":")[0] != fixed:
        return figure, sig
    old = held.partition(":")[2].split(",")
    parts = _parts(figure)
    if len(old) != len(parts):  # not a signature this wrote
        return figure, sig
    patch = Patch()
    for path, new, was in zip(parts, hashes.split(","), old, strict=True):
        if new != was and new != "-":
            at = patch
            for key in path[:-1]:
                at = at[key]
            at[path[-1]] = _get(figure, path)
    return patch, sig
