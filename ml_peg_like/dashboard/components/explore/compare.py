"""The Compare view (``?v=compare&models=a,b,c``): up to six models side by side, a radar of
their category scores (bars when more than eight categories) and a table of every score with the
difference to the first model and raw values with units; and the benchmark figure (a benchmark
view's metric scores per model, sorted). Figures are plain dicts in the theme of ``plots.py``."""

from __future__ import annotations

import math
import re

import dash_ag_grid as dag
import numpy as np
from dash import ClientsideFunction, Input, Output, State, dcc, html

from .... import explore as ex
from ... import ids
from ...tables import GRID_THEME, fmt_raw, fmt_score
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
    """Rows: overall, categories, benchmarks, metrics; a column per model. The reference of the
    Compare grid's text (:func:`grid`, whose cells are drawn in the browser)."""
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


#: the Compare grid (``grid``): a row per node of the tree, a column per compared model whose
#: cells read the live result (``assets/compare.js``: ``mplCmpValue``, ``MplCmpCell``); an edit
#: redraws them in the browser (``assets/liveexplore.js``), no request
CMP_GETTER = {"function": "mplCmpValue(params)"}
CMP_CELL = "MplCmpCell"
#: a model column's id: the model's key after this prefix (no clash with the name column's)
CMP_COL_PREFIX = "m:"
#: the name column (``assets/liveexplore.js`` writes the same when the compared models change)
CMP_NAME_COLUMN = {
    "colId": "node",
    "headerName": "",
    "field": "name",
    "pinned": "left",
    "tooltipField": "tip",
    "cellClass": "cmp-name",
    "width": 190,
    "minWidth": 120,
}
#: the row heights: a metric's row has a second line (its raw value)
CMP_ROW_HEIGHT = {"function": "params.data.k === 's' ? 46 : 30"}
#: up to this many rows the grid is as tall as its rows; beyond, it scrolls (AG Grid draws the
#: rows in view only)
CMP_AUTO_ROWS = 80


def grid_rows(cfg) -> list[dict]:
    """The Compare grid's rows, those of ``explore.compare_rows`` (depth-first): ``{id, name,
    tip (the path), level, k, j}``, ``k``/``j`` the live result's kind and index of the row's
    scores (``assets/live.js`` ``value``); a metric's ``unit`` too."""
    rows = [dict(name="Overall", tip="Overall", level=0, k="o", j=0)]
    k = j = 0
    for i, c in enumerate(cfg.categories):
        rows.append(dict(name=c.name, tip=c.name, level=1, k="c", j=i))
        for b in c.benchmarks:
            bp = f"{c.name}/{b.name}"
            rows.append(dict(name=b.name, tip=bp, level=2, k="b", j=k))
            k += 1
            for m in b.metrics:
                rows.append(
                    dict(name=m.name, tip=f"{bp}/{m.name}", level=3, k="s", j=j, unit=m.unit or "")
                )
                j += 1
    for n, r in enumerate(rows):
        r["id"] = str(n)
    return rows


def model_column(key: str, name: str, i: int, i0: int) -> dict:
    """The column of model ``key`` (index ``i`` on the board; ``i0``: the first compared model's,
    whose scores the differences are to). ``assets/liveexplore.js`` ``modelColumn`` is its twin."""
    return {
        "colId": CMP_COL_PREFIX + key,
        "headerName": name,
        "headerTooltip": key,
        "valueGetter": CMP_GETTER,
        "cellRenderer": CMP_CELL,
        "cellRendererParams": {"i": i, "i0": i0},
        "cellClass": "num",
        "flex": 1,
        "minWidth": 130,
    }


def grid(scores, models: list[str], names: dict[str, str]):
    """The Compare table as a dash-ag-grid grid (rows: ``grid_rows``; columns: the name, then a
    :func:`model_column` per model of ``models`` on the board). Its text is :func:`table`'s."""
    pos = {m: i for i, m in enumerate(scores.models)}
    keep = [m for m in models if m in pos]
    i0 = pos[keep[0]] if keep else 0
    rows = grid_rows(scores.config)
    auto = len(rows) <= CMP_AUTO_ROWS
    return dag.AgGrid(
        id=ids.COMPARE_TABLE,
        rowData=rows,
        columnDefs=[CMP_NAME_COLUMN]
        + [model_column(m, names.get(m, m), pos[m], i0) for m in keep],
        getRowId="params.data.id",
        defaultColDef={"sortable": False, "suppressMovable": True, "resizable": True},
        dashGridOptions={
            "theme": {"function": GRID_THEME},
            "animateRows": False,
            "enableCellTextSelection": True,
            "tooltipShowDelay": 300,
            "getRowHeight": CMP_ROW_HEIGHT,
            "rowClassRules": {f"l{n}": f"params.data.level === {n}" for n in range(4)},
            **({"domLayout": "autoHeight"} if auto else {}),
        },
        className="cmp-grid",
        style={"width": "100%"} if auto else {"width": "100%", "height": "70vh"},
    )


def fill(
    out: dict,
    scores,
    models: list[str],
    names: dict[str, str],
    graphs,
    fresh: bool,
    theme: str = "light",
) -> None:
    """The radar and the table, when the radar's graph is made: afterwards both follow the live
    result in the browser (``assets/liveexplore.js``: the radar's figure, the grid's cells and,
    when the compared models change, its columns)."""
    if not models:
        out["cmp_fig"] = None
        out["cmp_table"] = html.P("No model to compare: pick some above.")
        return
    if fresh or plots.COMPARE not in graphs:
        fig = radar_figure(scores, models, names, theme)
        plots.put(out, "cmp_fig", ids.COMPARE_GRAPH, plots.COMPARE, fig, graphs, fresh, height=420)
        out["cmp_table"] = html.Div(grid(scores, models, names), className="cmp-table-wrap")


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
