"""The scores grid (one AG Grid) and the raw / normalised toggle of a benchmark view.

A row is one model (:func:`index_rows`: its key, display name and index on the board); every
number in it is read from the browser's live result (``assets/live.js``) by the columns'
valueGetters (``tables.column_defs``). So an edit changes no row: the grid redraws its cells.
Its cells and headers navigate through ``navigation.register``."""

from __future__ import annotations

import hashlib

import dash_ag_grid as dag
import orjson
from dash import dcc, html

from ... import a11y, ids
from ..explore import compare

GRID_THEME = (
    "themeQuartz.withParams({fontFamily: 'inherit', fontSize: 13, headerFontSize: 13,"
    " headerFontWeight: 600, spacing: 5, wrapperBorderRadius: 6, borderColor: '#d0d7de',"
    " headerBackgroundColor: '#f6f8fa', foregroundColor: '#1f2328', accentColor: '#0969da',"
    " rowHoverColor: 'rgba(9,105,218,0.06)'}, 'light')"
    # the dark mode (assets/theme.js sets data-ag-theme-mode on the page when it is dark)
    ".withParams({backgroundColor: '#0d1117', foregroundColor: '#e6edf3',"
    " borderColor: '#30363d', headerBackgroundColor: '#161b22', accentColor: '#4493f8',"
    " rowHoverColor: 'rgba(68,147,248,0.10)', chromeBackgroundColor: '#161b22'}, 'dark')"
)

AUTO_HEIGHT_ROWS = 12  # up to this many models the table grows to show every row
SHOW_OPTIONS = ("raw", "score")  # the toggle's values, the default first


def colsig(cols: list[dict]) -> str:
    """A short signature of column definitions (the server sends columns only when it changes)."""
    return hashlib.blake2b(orjson.dumps(cols), digest_size=8).hexdigest()


def index_rows(models, names=None, shown=None) -> list[dict]:
    """One row per model: ``{model: key, i: index on the board}`` and ``mn`` (its display name)
    when it differs from the key. ``shown``: only these models (board order kept)."""
    keep = None if shown is None else set(shown)
    rows = []
    for i, key in enumerate(models):
        if keep is not None and key not in keep:
            continue
        row = {ids.COL_MODEL: key, ids.ROW_INDEX: i}
        name = (names or {}).get(key)
        if name and name != key:
            row[ids.COL_NAME] = name
        rows.append(row)
    return rows


def layout(columns: list[dict], rows: list[dict], n_models: int) -> list:
    """The toggle (hidden until a benchmark view) and the grid in its box."""
    auto_height = n_models <= AUTO_HEIGHT_ROWS
    grid = dag.AgGrid(
        id=ids.GRID,
        columnDefs=columns,
        rowData=rows,
        getRowId=f"params.data.{ids.COL_MODEL}",
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
            # each cell's value computed once per result (live.js expires the cache on a new
            # one): a sort then compares cached values instead of calling the getters again
            "valueCache": True,
            # a phone: the rank stays first (assets/dashAgGridFunctions.js)
            "processUnpinnedColumns": {"function": "unpinInner(params)"},
            **({"domLayout": "autoHeight"} if auto_height else {}),
            "theme": {"function": GRID_THEME},
            **compare.GRID_OPTIONS,  # a tick column: the models to compare
        },
        # the first view goes once the grid has drawn its first rows (assets/firstview.js)
        eventListeners={"firstDataRendered": [ids.FIRST_ROWS_LISTENER]},
        className="scores-grid",
        style={"width": "100%"} if auto_height else {"height": "100%", "width": "100%"},
    )
    return [
        html.Div(
            [
                dcc.RadioItems(
                    id=ids.SHOW,
                    options=[
                        {"label": "Raw values", "value": SHOW_OPTIONS[0]},
                        {"label": "Normalised scores", "value": SHOW_OPTIONS[1]},
                    ],
                    value=SHOW_OPTIONS[0],
                    inline=True,
                    className="show-toggle",
                ),
            ],
            id=ids.SHOW_WRAP,
            style={"display": "none"},
            **{a11y.ATTR_GROUP: "The table shows"},
            className="show-wrap",
        ),
        html.Div(
            grid,
            className="grid-wrap auto" if auto_height else "grid-wrap",
            id=ids.GRID_WRAP,
        ),
    ]
