"""The normalisation curve of the selected metric (figure from ``figures.py``). The graph is
created on the first benchmark view (plotly.js stays out of the first render); later figures go
through the ``fig`` store and are drawn in the browser after the table (``register``)."""

from __future__ import annotations

from dash import ALL, ClientsideFunction, Input, Output, dcc, html

from ...config import Benchmark, Config
from .. import ids
from ..curve_axis import XSCALES

__all__ = ["XSCALES", "graph", "layout", "metric_options", "register"]


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
