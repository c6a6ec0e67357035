"""The Compare view (``?v=compare&models=a,b,c``): up to six models side by side, a radar of
their category scores (bars when more than eight categories) and a table of every score with the
difference to the first model and raw values with units; and the benchmark figure (a benchmark
view's metric scores per model, sorted). Figures are plain dicts in the theme of ``plots.py``."""

from __future__ import annotations

import math
import re

import numpy as np
from dash import ClientsideFunction, Input, Output, State, dcc, html

from .... import explore as ex
from ... import ids
from ...tables import fmt_raw, fmt_score
from . import plots

MAX_MODELS = ids.COMPARE_MAX
#: the grid's tick column (AG Grid row selection; row ids are model names): ticks pick the models
GRID_OPTIONS = {
    "rowSelection": {
        "mode": "multiRow",
        "checkboxes": True,
        "headerCheckbox": False,
        "enableClickSelection": False,
    },
    "selectionColumnDef": {
        "pinned": "left",
        "width": 38,
        "maxWidth": 38,
        "minWidth": 38,
        "resizable": False,
        "sortable": False,
        "suppressHeaderMenuButton": True,
        "headerTooltip": f"Tick up to {ids.COMPARE_MAX} models to compare them",
    },
}
RADAR_MAX_AXES = 8
BENCH_MAX_MODELS = 40  # the benchmark figure shows the best 40 (a note says so)


def layout(cache) -> html.Section:
    names = cache.display
    opts = [{"label": names[m], "value": m} for m in cache.models]
    return html.Section(
        [
            html.H3("Compare models"),
            html.Label(
                [
                    f"models (up to {MAX_MODELS}; differences are to the first)",
                    dcc.Dropdown(
                        id=ids.COMPARE_MODELS,
                        options=opts,
                        value=[],
                        multi=True,
                        placeholder="the three best shown models",
                    ),
                ],
                className="ex-field cmp-pick",
            ),
            html.Div(id=ids.COMPARE_HOLDER, className="cmp-holder"),
            html.Div(id=ids.COMPARE_TABLE_HOLDER),
        ],
        id=ids.COMPARE_WRAP,
        className="ex-panel",
        style={"display": "none"},
    )


def bar() -> html.Div:
    """Above the grid: the "Compare (n)" button (opens the Compare view with the ticked models)
    and why a tick was refused."""
    return html.Div(
        [
            html.Button(
                "Compare (0)",
                id=ids.COMPARE_OPEN,
                className="btn small",
                title=f"Tick up to {MAX_MODELS} models in the table, then compare them side by side",
            ),
            html.Span(id=ids.COMPARE_NOTE, className="cmp-note", role="status"),
        ],
        className="cmp-bar",
    )


def register(app) -> None:
    """Ticks <-> the compare set (the picker's value) and the button, in the browser
    (``assets/compare.js``): ticking is a view change, no request."""
    app.clientside_callback(
        ClientsideFunction("mplCompare", "ticked"),
        Output(ids.COMPARE_MODELS, "value", allow_duplicate=True),
        Output(ids.COMPARE_NOTE, "children"),
        Input(ids.GRID, "selectedRows"),
        State(ids.COMPARE_MODELS, "value"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("mplCompare", "sync"),
        Output(ids.COMPARE_OPEN, "children"),
        Input(ids.COMPARE_MODELS, "value"),
        Input(ids.GRID, "rowData"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("mplCompare", "open"),
        Output(ids.WANT, "data", allow_duplicate=True),
        Input(ids.COMPARE_OPEN, "n_clicks"),
        prevent_initial_call=True,
    )


def default_models(scores, shown: list[str], n: int = 3) -> list[str]:
    """The ``n`` best ranked of the shown models (board order breaks ties)."""
    pos = {m: i for i, m in enumerate(scores.models)}
    ranks = np.nan_to_num(np.asarray(scores.ranks, float), nan=np.inf)  # no rank: last
    ranked = sorted((m for m in shown if m in pos), key=lambda m: (ranks[pos[m]], pos[m]))
    return ranked[:n]


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


#: a radar's category label longer than this wraps (at spaces and after hyphens): the labels are
#: drawn outside the circle and Plotly makes no room for them on a narrow screen
RADAR_LABEL_LINE = 12


def wrap_label(text: str, width: int = RADAR_LABEL_LINE) -> str:
    """``text`` (escaped already) on lines of about ``width`` characters, broken at spaces and
    after hyphens, joined by ``<br>`` (Plotly's line break)."""
    words = re.findall(r"[^\s-]+-?|-", text)
    lines: list[str] = []
    for w in words:
        if lines and len(lines[-1]) + len(w) + (0 if lines[-1].endswith("-") else 1) <= width:
            lines[-1] += w if lines[-1].endswith("-") else " " + w
        else:
            lines.append(w)
    return "<br>".join(lines) if lines else text


def radar_figure(scores, models: list[str], names: dict[str, str], theme: str = "light") -> dict:
    rows = [r for r in ex.compare_rows(scores, models) if r["level"] == 1]
    cats = [plots.esc(r["name"]) for r in rows]
    if len(cats) <= RADAR_MAX_AXES:
        cats = [wrap_label(c) for c in cats]
    traces = []
    for i, m in enumerate(models):
        vals = [None if _nan(r["scores"][i]) else r["scores"][i] for r in rows]
        colour = plots.PALETTE[i % len(plots.PALETTE)]
        name = plots.esc(names.get(m, m))
        if len(cats) > RADAR_MAX_AXES:  # bars across: the category names down the left
            traces.append(
                dict(
                    type="bar",
                    orientation="h",
                    y=cats,
                    x=vals,
                    name=name,
                    marker=dict(color=colour),
                )
            )
        else:
            traces.append(
                dict(
                    type="scatterpolar",
                    r=vals + vals[:1],
                    theta=cats + cats[:1],
                    name=name,
                    mode="lines+markers",
                    line=dict(color=colour),
                    fill="toself",
                    opacity=0.75,
                )
            )
    return dict(
        data=traces,
        layout=plots.layout(
            theme,
            height=420,
            showlegend=True,
            title=dict(text="Category scores", x=0.01),
            **_radar_frame(theme, bars=len(cats) > RADAR_MAX_AXES),
        ),
    )


#: a legend above the plot, right-aligned, growing upwards into the top margin (Plotly widens
#: the margin for it): it never covers the bars or the axis labels below them
LEGEND_ABOVE = dict(orientation="h", yanchor="bottom", y=1.02, x=1, xanchor="right")
#: a legend under the radar, growing downwards into the bottom margin: the circle and its
#: category labels stay clear however many models wrap onto more rows
LEGEND_BELOW = dict(orientation="h", yanchor="top", y=-0.1, x=0.5, xanchor="center")
#: a title at the very top of the figure, the legend (LEGEND_ABOVE) between it and the plot
TITLE_TOP = dict(x=0.01, xanchor="left", y=1, yref="container", yanchor="top", pad=dict(t=8))
#: the benchmark figure's top margin: its title and four rows of legend (a phone's width)
BENCH_TOP = 130
#: room left and right of the radar for its category labels (they are drawn outside the circle)
RADAR_MARGIN = dict(l=80, r=80, t=48, b=40)


def _radar_frame(theme: str, bars: bool) -> dict:
    """The layout of the radar (or of its bars when there are many categories): axes, legend
    and margins."""
    if bars:
        return dict(
            barmode="group",
            xaxis=plots.axis(theme, range=[0, 1]),
            yaxis=plots.axis(theme, autorange="reversed"),  # the first category on top
            legend=dict(LEGEND_BELOW, y=-0.15),  # clear of the score ticks
        )
    t = plots.THEMES.get(theme, plots.THEMES["light"])
    return dict(
        polar=dict(
            bgcolor=t["bg"],
            radialaxis=dict(range=[0, 1], gridcolor=t["grid"], linecolor=t["line"]),
            angularaxis=dict(gridcolor=t["grid"], linecolor=t["line"]),
        ),
        legend=LEGEND_BELOW,
        margin=RADAR_MARGIN,
    )


def _diff(v: float, v0: float) -> html.Span | str:
    if _nan(v) or _nan(v0):
        return ""
    d = float(v) - float(v0)
    text = fmt_score(d)
    if not text.startswith("-") and float(text) != 0:
        text = "+" + text
    klass = "cmp-diff up" if d > 5e-4 else "cmp-diff down" if d < -5e-4 else "cmp-diff"
    return html.Span(f" ({text})", className=klass)


def table(scores, models: list[str], names: dict[str, str]) -> html.Table:
    """Rows: overall, categories, benchmarks, metrics; a column per model."""
    head = html.Tr([html.Th("")] + [html.Th(names.get(m, m), title=m) for m in models])
    body = []
    for r in ex.compare_rows(scores, models):
        cells = [
            html.Td(r["name"], className=f"cmp-name l{r['level']}", title=r["path"] or "Overall")
        ]
        for i, v in enumerate(r["scores"]):
            parts: list = [fmt_score(v)]
            if i:
                parts.append(_diff(v, r["scores"][0]))
            if r.get("raw") is not None:
                raw = r["raw"][i]
                unit = r.get("unit")
                parts.append(
                    html.Div(
                        fmt_raw(raw) + (f" {unit}" if unit and not _nan(raw) else ""),
                        className="cmp-raw",
                    )
                )
            cells.append(html.Td(parts, className="num"))
        body.append(html.Tr(cells, className=f"l{r['level']}"))
    return html.Table(
        [html.Thead(head), html.Tbody(body)], id=ids.COMPARE_TABLE, className="cmp-table"
    )


def fill(
    out: dict,
    scores,
    models: list[str],
    names: dict[str, str],
    graphs,
    fresh: bool,
    theme: str = "light",
    held=None,
) -> None:
    """The table, and the radar when its graph is made (a graph that stays is redrawn in the
    browser from the live result: ``assets/liveexplore.js``)."""
    if not models:
        out["cmp_fig"] = None
        out["cmp_table"] = html.P("No model to compare: pick some above.")
        return
    if fresh or plots.COMPARE not in graphs:
        fig = radar_figure(scores, models, names, theme)
        plots.put(
            out, "cmp_fig", ids.COMPARE_GRAPH, plots.COMPARE, fig, graphs, fresh, held, height=420
        )
    out["cmp_table"] = html.Div(table(scores, models, names), className="cmp-table-wrap")


def bench_parts(figure: dict) -> list[tuple]:
    """The parts of a benchmark figure an edit changes (``figpatch``): each trace's models (the
    order follows the scores) and values, and the title (how many models are shown)."""
    n = len(figure.get("data") or [])
    return [("data", k, a) for k in range(n) for a in ("x", "y")] + [("layout", "title", "text")]


def bench_figure(
    scores, bench: str, shown: list[str], names: dict[str, str], theme: str = "light"
) -> dict:
    """The metric scores of benchmark ``bench`` per shown model: bars grouped by model, models
    sorted by the benchmark score (best first), the benchmark score as a marker."""
    cfg = scores.config
    node = cfg.node(bench)
    full = cfg.full_path(bench)
    plan = scores.plan
    k = plan.benchmarks.index(node.name)
    pos = {m: i for i, m in enumerate(scores.models)}
    ix_arr = np.asarray([pos[m] for m in shown if m in pos], dtype=np.intp)
    bs = scores.bench_scores[:, k]
    b = bs[ix_arr]
    # best first, missing last, ties in the models' order (one sort in C: 10,000 models)
    ix = ix_arr[np.lexsort((ix_arr, np.where(np.isfinite(b), -b, np.inf)))].tolist()
    note = ""
    if len(ix) > BENCH_MAX_MODELS:
        note = f" (best {BENCH_MAX_MODELS} of {len(ix)} shown models)"
        ix = ix[:BENCH_MAX_MODELS]
    xs = [plots.esc(names.get(scores.models[i], scores.models[i])) for i in ix]
    traces = []
    for n, m in enumerate(node.metrics):
        j = plan.metric_paths.index(f"{full}/{m.name}")
        col = scores.metric_scores[:, j]
        traces.append(
            dict(
                type="bar",
                x=xs,
                y=[None if not np.isfinite(col[i]) else float(col[i]) for i in ix],
                name=plots.esc(m.name),
                marker=dict(color=plots.PALETTE[n % len(plots.PALETTE)]),
                hovertemplate="%{x}<br>" + plots.esc(m.name) + ": %{y:.3f}<extra></extra>",
            )
        )
    traces.append(
        dict(
            type="scatter",
            mode="markers",
            x=xs,
            y=[None if not np.isfinite(bs[i]) else float(bs[i]) for i in ix],
            name="benchmark score",
            marker=dict(symbol="diamond", size=10, color=plots.FRONT),
            hovertemplate="%{x}<br>benchmark: %{y:.3f}<extra></extra>",
        )
    )
    return dict(
        data=traces,
        layout=plots.layout(
            theme,
            height=360,
            barmode="group",
            showlegend=True,
            title=dict(
                text=plots.esc(f"{node.name}: metric scores per model{note}"),
                **TITLE_TOP,
                font=dict(size=13),
            ),
            xaxis=plots.axis(theme, tickangle=-40),
            yaxis=plots.axis(theme, range=[0, 1.05], title=dict(text="score")),
            legend=dict(LEGEND_ABOVE, x=0, xanchor="left"),
            margin=dict(l=60, r=20, t=BENCH_TOP, b=110),
        ),
    )
