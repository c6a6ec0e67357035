"""Navigation: the sidebar, the breadcrumbs, and the browser-side callbacks that turn a click
(sidebar, breadcrumb, a metric's name, a score cell, a column header's name, the metric picker)
into a navigation request in the ``want`` store (assets/navigation.js). The server's edit
callback answers it in one round trip."""

from __future__ import annotations

from typing import Any

import orjson
from dash import ALL, ClientsideFunction, Input, Output, State, html

from ....config import Benchmark, Category, Config
from ... import ids


def sidebar_items(cfg: Config) -> list[list[str]]:
    """The sidebar's entries in order, each ``[view path, label, tooltip]``: the top pages,
    then every category followed by its benchmarks (the browser shows those of the open
    category only: its classes come from the ``tree`` store, navigation.js)."""
    items = [["", "Overview", ""]]
    for page, label, tip in (
        (ids.PAGE_EXPLORE, "Explore", "Scatter any two quantities, one point per model"),
        (ids.PAGE_COMPARE, "Compare", "Up to six models side by side"),
    ):
        items.append([page, label, tip])
    for c in cfg.categories:
        items.append([c.name, c.name, c.description or c.name])
        for b in c.benchmarks:
            items.append([f"{c.name}/{b.name}", b.name, b.description or b.name])
    return items


def sidebar(cfg: Config) -> html.Nav:
    """ONE Dash component: the entries travel as JSON in an attribute and the browser makes
    them plain ``<button>`` elements (assets/navigation.js): a Dash component per entry (~90 at
    ML-PEG scale) cost the first page 6-9 % of the browser's main-thread time. A click writes
    the ``want`` store; the highlight follows the ``view`` store (:func:`register`)."""
    attr = {ids.ATTR_NAV_ITEMS: orjson.dumps(sidebar_items(cfg)).decode()}
    return html.Nav(className="sidebar", id=ids.SIDEBAR, **attr)


def breadcrumb(cfg: Config, view: str) -> list:
    """Overview › Category › Benchmark, each a button, plus the node's description."""
    items: list[Any] = [
        html.Button("Overview", id=ids.link(ids.T_CRUMB, ""), className="link crumb", n_clicks=0)
    ]
    desc = cfg.description
    if view:
        node = cfg.node(view)
        full = cfg.full_path(view)
        parts = [full]
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
                        n.name,
                        id=ids.link(ids.T_CRUMB, p),
                        className="link crumb",
                        n_clicks=0,
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


def crumbs_layout(cfg: Config) -> html.Div:
    """The breadcrumbs of the overview (the edit callback replaces them on navigation)."""
    return html.Div(breadcrumb(cfg, ""), id=ids.CRUMBS, className="view-head")


def tree_store(cfg: Config) -> dict[str, Any]:
    """What the browser's navigation needs: the category of every view path, and the view path
    of every drill-down column (categories on the overview, benchmarks in a category) and of
    every metric column."""
    cat_of: dict[str, str] = {}
    cols: dict[str, str] = {}
    k = 0
    for i, c in enumerate(cfg.categories):
        cat_of[c.name] = c.name
        cols[ids.cat_col(i)] = c.name
        for b in c.benchmarks:
            p = f"{c.name}/{b.name}"
            cat_of[p] = c.name
            cols[ids.bench_col(k)] = p
            k += 1
    return {ids.TREE_CAT: cat_of, ids.TREE_COL: cols, ids.TREE_METRICS: cfg.metric_paths()}


def register(app) -> None:
    """The browser-side callbacks: a click becomes a ``want`` request (the sidebar's clicks:
    navigation.js itself); the sidebar's highlight follows the ``view`` store."""
    app.clientside_callback(
        ClientsideFunction("mpl", "navigate"),
        Output(ids.WANT, "data"),
        Input(ids.link(ids.T_CRUMB, ALL), "n_clicks"),
        Input(ids.link(ids.T_PICK, ALL), "n_clicks"),
        Input(ids.GRID, "cellClicked"),
        Input(ids.HDR, "data"),
        Input(ids.METRIC_PICK, "value"),
        State(ids.VIEW, "data"),
        State(ids.TREE, "data"),
        prevent_initial_call=True,
    )
    app.clientside_callback(  # also makes the sidebar's buttons (hence at the start too)
        ClientsideFunction("mpl", "navClasses"),
        Output(ids.SIDEBAR, ids.ATTR_NAV_VIEW),
        Input(ids.VIEW, "data"),
        State(ids.TREE, "data"),
    )
