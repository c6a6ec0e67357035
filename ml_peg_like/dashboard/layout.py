"""Dash components of the dashboard. Builders only: no callback is registered here."""

from __future__ import annotations

from typing import Any

import dash_ag_grid as dag
from dash import dcc, html

from ..config import Benchmark, Category, Config
from ..scoring import Scores
from .state import display_value, metric_fields, node_value

HELP = (
    "Each raw metric maps to a score from 0 (at or beyond 'bad') to 1 (at or beyond 'good'); "
    "scores are weighted means up the tree: metric → benchmark → category → overall. Edit a box "
    "and press Enter to rescore everything; click a column's name or a score cell to open it "
    "(the arrow beside a name sorts)."
)

GRID_THEME = (
    "themeQuartz.withParams({fontFamily: 'inherit', fontSize: 13, headerFontSize: 13,"
    " headerFontWeight: 600, spacing: 5, wrapperBorderRadius: 6, borderColor: '#d0d7de',"
    " headerBackgroundColor: '#f6f8fa', foregroundColor: '#1f2328', accentColor: '#0969da',"
    " rowHoverColor: 'rgba(9,105,218,0.06)'})"
)

AUTO_HEIGHT_ROWS = 12  # up to this many models the table grows to show every row

PARAM_LABELS = {
    "good": "good",
    "bad": "bad",
    "weight": "weight",
    "c": "c",
    "b": "b",
    "max_speedup": "max speed-up",
}


def _input(cfg: Config, defaults: Config, path: str, field: str, changed: bool) -> dcc.Input:
    default = display_value(node_value(defaults, path, field))
    return dcc.Input(
        id={"type": "setting", "path": path, "field": field},
        type="text",
        value=display_value(node_value(cfg, path, field)),
        debounce=True,
        autoComplete="off",
        spellCheck=False,
        className="box modified" if changed else "box",
        placeholder=default,
        name=f"{path}.{field}",
    )


def _reset_button(path: str) -> html.Button:
    return html.Button(
        "↺",
        id={"type": "reset", "path": path},
        className="reset-one",
        title="Reset this row to the defaults",
        n_clicks=0,
    )


def settings_panel(defaults: Config, cfg: Config, changes: dict, view: str) -> list:
    """The boxes of the view: category weights (overview), benchmark weights (a category),
    good / bad / weight or the normaliser's parameters of every metric (a benchmark)."""
    node = cfg.node(view) if view else None

    def changed(path: str, field: str) -> bool:
        return field in changes.get(path, {})

    def weight_row(path: str, name: str) -> html.Tr:
        return html.Tr(
            [
                html.Td(
                    [
                        html.Button(
                            name, id={"type": "crumb", "path": path}, className="link", n_clicks=0
                        ),
                        html.Div(id={"type": "msg", "path": path}, className="msg"),
                    ],
                    className="name",
                ),
                html.Td(_input(cfg, defaults, path, "weight", changed(path, "weight"))),
                html.Td(_reset_button(path)),
            ]
        )

    rows: list = []
    if node is None:
        title = "Category weights"
        head = ["Category", "Weight", ""]
        rows = [weight_row(c.name, c.name) for c in cfg.categories]
    elif isinstance(node, Category):
        title = f"Benchmark weights in {node.name}"
        head = ["Benchmark", "Weight", ""]
        rows = [weight_row(f"{node.name}/{b.name}", b.name) for b in node.benchmarks]
    else:
        assert isinstance(node, Benchmark)
        full = cfg.full_path(view)
        title = f"Metric settings of {node.name}"
        head = ["Metric", "Thresholds / parameters", "Weight", ""]
        for m in node.metrics:
            p = f"{full}/{m.name}"
            fields = metric_fields(m)
            params = [
                html.Label(
                    [
                        html.Span(PARAM_LABELS.get(f, f), className="plabel"),
                        _input(cfg, defaults, p, f, changed(p, f)),
                    ],
                    className="param",
                )
                for f in fields
                if f != "weight"
            ]
            rows.append(
                html.Tr(
                    [
                        html.Td(
                            [
                                html.Button(
                                    m.name,
                                    id={"type": "pick", "path": p},
                                    className="link",
                                    title="Plot this metric's normalisation curve",
                                    n_clicks=0,
                                ),
                                html.Div(
                                    m.normaliser.replace("_", " ")
                                    + (f" · {m.unit}" if m.unit else ""),
                                    className="norm",
                                    title=m.norm.description,
                                ),
                                html.Div(id={"type": "msg", "path": p}, className="msg"),
                            ],
                            className="name",
                        ),
                        html.Td(params, className="params"),
                        html.Td(_input(cfg, defaults, p, "weight", changed(p, "weight"))),
                        html.Td(_reset_button(p)),
                    ]
                )
            )
    return [
        html.Div(
            [
                html.H3(title),
                html.Button(
                    "Reset this table",
                    id="reset-table",
                    className="btn small",
                    n_clicks=0,
                    title="Reset every box of this table to the defaults",
                ),
            ],
            className="panel-head",
        ),
        html.Table(
            [html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(rows)],
            className="settings",
        ),
    ]


def breadcrumb(cfg: Config, view: str) -> list:
    """Overview › Category › Benchmark, each a button, plus the node's description."""
    items: list[Any] = [
        html.Button(
            "Overview", id={"type": "crumb", "path": ""}, className="link crumb", n_clicks=0
        )
    ]
    desc = cfg.description
    if view:
        node = cfg.node(view)
        full = cfg.full_path(view)
        parts = full.split("/", 1) if isinstance(node, Benchmark) else [full]
        if isinstance(node, Benchmark):
            cat = full[: len(full) - len(node.name) - 1]
            parts = [cat, full]
        for i, p in enumerate(parts):
            items.append(html.Span("›", className="sep"))
            n = cfg.node(p)
            if i == len(parts) - 1:
                items.append(html.Span(n.name, className="here"))
            else:
                items.append(
                    html.Button(
                        n.name, id={"type": "crumb", "path": p}, className="link crumb", n_clicks=0
                    )
                )
        desc = node.description
        kind = "Category" if isinstance(node, Category) else "Benchmark"
        n_children = len(node.benchmarks) if isinstance(node, Category) else len(node.metrics)
        what = "benchmarks" if isinstance(node, Category) else "metrics"
        meta = f"{kind} · weight {node.weight:g} · {n_children} {what}"
    else:
        meta = f"Overview · {len(cfg.categories)} categories"
    return [
        html.Div(items, className="crumbs"),
        html.Div(
            [html.Span(meta, className="meta")]
            + ([html.Span(desc, className="desc")] if desc else []),
            className="view-info",
        ),
    ]


def nav_tree(cfg: Config) -> html.Nav:
    items = [
        html.Button(
            "Overview", id={"type": "nav", "path": ""}, className="nav-item top active", n_clicks=0
        )
    ]
    for c in cfg.categories:
        items.append(
            html.Button(
                c.name,
                id={"type": "nav", "path": c.name},
                className="nav-item cat",
                n_clicks=0,
                title=c.description or c.name,
            )
        )
        for b in c.benchmarks:
            p = f"{c.name}/{b.name}"
            items.append(
                html.Button(
                    b.name,
                    id={"type": "nav", "path": p},
                    className="nav-item bench",  # hidden until its category opens
                    n_clicks=0,
                    title=b.description or b.name,
                )
            )
    return html.Nav(items, className="sidebar", id="sidebar")


def summary_line(cfg: Config, scores: Scores) -> str:
    n_b = sum(len(c.benchmarks) for c in cfg.categories)
    n_m = len(cfg.metric_paths())
    pol = (
        cfg.missing
        if not any(c.missing for c in cfg.categories)
        else f"{cfg.missing} (some categories differ)"
    )
    return (
        f"{len(scores.models)} models · {len(cfg.categories)} categories · {n_b} benchmarks · "
        f"{n_m} metrics · missing data: {pol}"
    )


def build_layout(
    defaults: Config,
    scores: Scores,
    *,
    title: str,
    columns: list[dict],
    rows: list[dict],
    colsig: str,
    tree: dict,
    filters: dict[str, list[str]] | None = None,
) -> html.Div:
    cfg = defaults
    presets = list(cfg.presets)
    auto_height = len(scores.models) <= AUTO_HEIGHT_ROWS
    toolbar = [
        html.Div(
            [
                html.Label("Models", htmlFor="model-filter", className="tlabel"),
                dcc.Dropdown(
                    id="model-filter",
                    options=[{"label": m, "value": m} for m in scores.models],
                    multi=True,
                    placeholder="All models (type to search)",
                    className="model-filter",
                    maxHeight=320,
                ),
            ],
            className="tool grow",
        ),
    ]
    if filters:
        toolbar.append(
            html.Div(
                [
                    html.Span(
                        "Filter", className="tlabel", title="Show only models with these attributes"
                    )
                ]
                + [
                    html.Div(
                        dcc.Dropdown(
                            id={"type": "attr", "name": name},
                            options=[{"label": v, "value": v} for v in values],
                            multi=True,
                            searchable=False,
                            placeholder=name.replace("_", " "),
                        ),
                        className="attr-filter",
                        title=f"Show only the models whose {name} is one of these "
                        "(display only: scores unchanged)",
                    )
                    for name, values in filters.items()
                ],
                className="tool attrs",
            )
        )
    if presets:
        toolbar.append(
            html.Div(
                [
                    html.Label("Preset", htmlFor="preset", className="tlabel"),
                    dcc.Dropdown(
                        id="preset",
                        options=[{"label": p, "value": p} for p in presets],
                        placeholder="Choose a preset…",
                        clearable=True,
                        className="preset",
                    ),
                ],
                className="tool",
            )
        )
    else:
        toolbar.append(html.Div(dcc.Dropdown(id="preset", options=[]), style={"display": "none"}))
    toolbar += [
        html.Div(
            [
                html.Button(
                    "Reset all",
                    id="reset-all",
                    className="btn",
                    n_clicks=0,
                    disabled=True,
                    title="Back to the default settings",
                ),
            ],
            className="tool",
        ),
        html.Div(
            [
                html.Span("Export", className="tlabel"),
                html.Button(
                    "CSV",
                    id="dl-csv-btn",
                    className="btn",
                    n_clicks=0,
                    title="Score tables of every level as CSV files in a zip",
                ),
                html.Button(
                    "Excel",
                    id="dl-xlsx-btn",
                    className="btn",
                    n_clicks=0,
                    title="Score tables of every level, a sheet each",
                ),
                html.Button(
                    "Config YAML",
                    id="dl-yaml-btn",
                    className="btn",
                    n_clicks=0,
                    title="The current settings as a config file (ml-peg-like score accepts it)",
                ),
                dcc.Upload(
                    id="upload",
                    children=html.Button(
                        "Upload YAML",
                        className="btn",
                        title="Apply a config file (same tree, up to 2 MB)",
                    ),
                    accept=".yml,.yaml,text/yaml,application/x-yaml",
                    multiple=False,
                    className="upload",
                ),
            ],
            className="tool",
        ),
        dcc.Download(id="dl-csv"),
        dcc.Download(id="dl-xlsx"),
        dcc.Download(id="dl-yaml"),
    ]
    grid = dag.AgGrid(
        id="grid",
        columnDefs=columns,
        rowData=rows,
        getRowId="params.data.model",
        defaultColDef={
            "sortable": True,
            "resizable": True,
            "suppressMovable": True,
            "wrapHeaderText": True,
            "autoHeaderHeight": True,
            "unSortIcon": True,  # sorting is on the icon; a header's name opens / selects
        },
        dashGridOptions={
            "tooltipShowDelay": 300,
            "tooltipInteraction": False,
            "animateRows": False,
            "suppressCellFocus": False,
            "enableCellTextSelection": True,
            "rowHeight": 30,
            **({"domLayout": "autoHeight"} if auto_height else {}),
            "theme": {"function": GRID_THEME},
        },
        className="scores-grid",
        style={"width": "100%"} if auto_height else {"height": "100%", "width": "100%"},
    )
    return html.Div(
        [
            dcc.Location(id="url", refresh=False),
            dcc.Store(id="changes", data={}),
            dcc.Store(id="view", data={"v": "", "m": ""}),
            dcc.Store(id="qs", data=""),
            dcc.Store(id="colsig", data=colsig),
            dcc.Store(id="want", data=None),  # a navigation request (assets/navigation.js)
            dcc.Store(id="hdr", data=None),  # a click on a column header's name
            dcc.Store(id="tree", data=tree),
            dcc.Store(id="fig", data=None),  # the curve's next figure (drawn after the table)
            html.Header(
                [
                    html.Div(
                        [
                            html.H1(title, id="title"),
                            html.Span(summary_line(cfg, scores), className="summary", id="summary"),
                        ],
                        className="title-row",
                    ),
                    html.P(HELP, className="help"),
                ],
                className="app-header",
            ),
            html.Div(toolbar, className="toolbar"),
            html.Div(id="status", className="status", role="status"),
            html.Div(
                [
                    nav_tree(cfg),
                    html.Main(
                        [
                            html.Div(breadcrumb(cfg, ""), id="crumbs", className="view-head"),
                            html.Div(
                                [
                                    dcc.RadioItems(
                                        id="show",
                                        options=[
                                            {"label": "Raw values", "value": "raw"},
                                            {"label": "Normalised scores", "value": "score"},
                                        ],
                                        value="raw",
                                        inline=True,
                                        className="show-toggle",
                                    ),
                                ],
                                id="show-wrap",
                                style={"display": "none"},
                                className="show-wrap",
                            ),
                            html.Div(
                                grid,
                                className="grid-wrap auto" if auto_height else "grid-wrap",
                                id="grid-wrap",
                            ),
                            html.Div(
                                [
                                    html.Div(
                                        settings_panel(defaults, defaults, {}, ""),
                                        id="settings",
                                        className="settings-panel",
                                    ),
                                    html.Div(
                                        [
                                            html.Div(
                                                [
                                                    html.H3("Normalisation curve"),
                                                    dcc.Dropdown(
                                                        id="metric-pick",
                                                        options=[],
                                                        clearable=False,
                                                        className="metric-pick",
                                                        placeholder="Metric…",
                                                    ),
                                                ],
                                                className="panel-head",
                                            ),
                                            # the Graph is created on the first benchmark view:
                                            # plotly.js (~1-2 s to load) stays out of first render
                                            html.Div(id="curve-holder", className="curve-holder"),
                                        ],
                                        id="plot-wrap",
                                        className="plot-panel",
                                        style={"display": "none"},
                                    ),
                                ],
                                className="lower",
                            ),
                        ],
                        className="main",
                    ),
                ],
                className="body",
            ),
        ],
        className="app",
    )


def metric_options(cfg: Config, view: str) -> list[dict]:
    node = cfg.node(view) if view else None
    if not isinstance(node, Benchmark):
        return []
    full = cfg.full_path(view)
    return [{"label": m.name, "value": f"{full}/{m.name}"} for m in node.metrics]


def curve_graph(figure: dict) -> html.Div:
    """The normalisation-curve graph, created once (on the first benchmark view); later edits
    update its ``figure`` through a pattern-matching output (no re-render of the layout)."""
    return html.Div(
        dcc.Graph(
            id={"type": "curve", "i": 0},
            figure=figure,
            config={"displaylogo": False, "responsive": True},
            style={"height": "320px"},
        ),
        id="curve",
    )
