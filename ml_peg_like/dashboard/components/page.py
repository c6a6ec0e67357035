"""The page: the stores, the header and the places of the other components. It registers no
callback; ``create_app`` hands it the parts."""

from __future__ import annotations

from typing import Any

from dash import dcc, html

from ...config import Config
from ...scoring import Scores
from .. import ids

HELP = (
    "Each raw metric maps to a score from 0 (at or beyond 'bad') to 1 (at or beyond 'good'); "
    "scores are weighted means up the tree: metric → benchmark → category → overall. Edit a box "
    "and press Enter to rescore everything; click a column's name or a score cell to open it "
    "(the arrow beside a name sorts)."
)


def summary_line(cfg: Config, scores: Scores) -> str:
    n_b = sum(len(c.benchmarks) for c in cfg.categories)
    n_m = len(cfg.metric_paths())
    differ = [c for c in cfg.categories if c.missing and c.missing != cfg.missing]
    pol = cfg.missing
    if differ:
        others = sorted({c.missing for c in differ})
        n = len(differ)
        pol += f" ({n} categor{'y' if n == 1 else 'ies'} {', '.join(others)})"
    return (
        f"{len(scores.models)} models · {len(cfg.categories)} categories · {n_b} benchmarks · "
        f"{n_m} metrics · missing data: {pol}"
    )


def stores(colsig: str, tree: dict[str, Any]) -> list:
    """The page's state in the browser (see ids.py for what each holds)."""
    return [
        dcc.Location(id=ids.URL, refresh=False),
        dcc.Store(id=ids.CHANGES, data={}),
        dcc.Store(id=ids.VIEW, data={ids.VIEW_PATH: "", ids.VIEW_METRIC: ""}),
        dcc.Store(id=ids.QS, data=""),
        dcc.Store(id=ids.COLSIG, data=colsig),
        dcc.Store(id=ids.WANT, data=None),
        dcc.Store(id=ids.HDR, data=None),
        dcc.Store(id=ids.TREE, data=tree),
    ]


def layout(
    *,
    title: str,
    summary: str,
    stores: list,
    toolbar: list,
    sidebar: Any,
    crumbs: Any,
    grid: list,
    settings: Any,
    curve: Any,
    after_grid: list | None = None,
    main_end: list | None = None,
    head_tools: Any = None,
) -> html.Div:
    """The page from its parts: ``after_grid`` goes right below the grid, ``main_end`` at the end
    of the main area (the places of the robustness view's tau line and panel); ``head_tools``
    at the end of the title row (the menu and theme buttons)."""
    return html.Div(
        [
            *stores,
            html.Header(
                [
                    html.Div(
                        [
                            html.H1(title, id=ids.TITLE),
                            html.Span(summary, className="summary", id=ids.SUMMARY),
                            *([head_tools] if head_tools is not None else []),
                        ],
                        className="title-row",
                    ),
                    html.P(HELP, className="help"),
                ],
                className="app-header",
            ),
            html.Div(toolbar, className="toolbar", id=ids.TOOLBAR),
            html.Div(id=ids.STATUS, className="status", role="status"),
            html.Div(
                [
                    sidebar,
                    html.Main(
                        [
                            crumbs,
                            *grid,
                            *(after_grid or []),
                            html.Div([settings, curve], className="lower"),
                            *(main_end or []),
                        ],
                        className="main",
                    ),
                ],
                className="body",
            ),
        ],
        className="app",
    )
