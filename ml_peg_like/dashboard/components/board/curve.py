"""The normalisation curve of the selected metric (figure from ``figures.py``). The graph is
created on the first benchmark view (plotly.js stays out of the first render); later figures go
through the ``fig`` holder (``plots.holder``) and are drawn in the browser after the table
(``register``). An edit sends the holder only what changed of the figure (``update``: nothing, a
Dash ``Patch`` or the whole figure), told by the hashes the ``curve-sig`` holder holds beside
it."""

from __future__ import annotations

from typing import Any

from dash import ALL, ClientsideFunction, Input, Output, State, dcc, html, no_update

from ....config import Benchmark, Config
from ... import a11y, figpatch, ids
from ...curve_axis import XSCALES
from ..explore import plots

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

#: the edit callback's outputs of the curve's next figure (the ``fig`` holder) and its signature
OUTPUTS = dict(figure=Output(ids.FIG, ids.HELD), curve_sig=Output(ids.CURVE_SIG, ids.HELD))
STATES = dict(curve_sig=State(ids.CURVE_SIG, ids.HELD))


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
                        **{a11y.ATTR_GROUP: "Curve x axis"},
                        title=(
                            "auto: linear; log for a speed-up normaliser whose values span "
                            "more than 50x"
                        ),
                    ),
                ],
                className="panel-head",
            ),
            html.Div(id=ids.CURVE_HOLDER, className="curve-holder"),
            plots.holder(ids.FIG),
            plots.holder(ids.CURVE_SIG),
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
    """The figure in the ``fig`` holder is drawn after the browser has painted the table."""
    app.clientside_callback(
        ClientsideFunction("mpl", "drawCurve"),
        Output(ids.curve_graph(ALL), "figure"),
        Input(ids.FIG, ids.HELD),
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


def signature(figure: dict) -> str:
    """The figure's signature (``figpatch.signature`` of its changing parts, ``_parts``)."""
    return figpatch.signature(figure, _parts(figure))


def update(figure: dict, held: Any) -> tuple[Any, str]:
    """(the ``fig`` holder's output, the new signature) for ``figure`` when the holder holds the
    figure of signature ``held``: nothing when they are the same, a Dash ``Patch`` of the parts
    that differ when only changing parts differ (the same metric, axis type, points and hover
    text), else the whole figure (``figpatch.update``)."""
    answer, sig = figpatch.update(figure, held, _parts(figure))
    return answer, (no_update if answer is no_update else sig)
