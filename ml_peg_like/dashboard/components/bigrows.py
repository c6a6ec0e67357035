"""Large tables (more than :data:`LARGE_ROWS` models): the browser holds only the rows it shows.

The grid uses AG Grid's infinite row model: it asks the server for blocks of rows (``POST``
:data:`~ml_peg_like.dashboard.ids.ROWS_ROUTE` with the row key, the block and its sort model;
``assets/bigrows.js`` is its datasource) and the server answers from the same row builder as
the edit callback (``rowsync.RowSync``: the rows as columns, ``rowblock.RowTable``), sorted by
``rowblock`` on those columns, the dicts built for the block's rows only. An edit sends the
new row key and its first block in the URL's sort (``rowsync.RowSync.output``); the browser
then refreshes the blocks it holds (the ~100 rows it shows), the first from the response when
the grid asks for that block in that sort, and draws the plots after them
(``mplBig.settled``). The model filter offers the models that match what is typed (:data:`SEARCH_LIMIT`)
instead of every model in the page. Tables up to :data:`LARGE_ROWS` models keep the client-side
row model (the whole table in the browser, row deltas: ``rowsync``).
"""

from __future__ import annotations

import flask
import orjson
from dash import ClientsideFunction, Input, Output, State, dcc
from dash.exceptions import PreventUpdate

from .. import ids
from ..rowblock import BLOCK_ROWS, MAX_BLOCK, clean_sort
from .rowsync import RowSync

#: above this many models a table is large (infinite row model, searched model filter)
LARGE_ROWS = 2000
#: blocks the browser keeps (a screen spans at most two)
MAX_BLOCKS = 4
#: the model filter's options while searching (plus the models already picked)
SEARCH_LIMIT = 50


def is_large(n_models: int, large_rows: int = LARGE_ROWS) -> bool:
    return n_models > large_rows


def grid_options() -> dict:
    """The grid's row model options (``grid.layout(..., infinite=...)``)."""
    return {
        "rowModelType": "infinite",
        "cacheBlockSize": BLOCK_ROWS,
        # an edit refetches every block held: only those near the screen are kept
        "maxBlocksInCache": MAX_BLOCKS,
        "infiniteInitialRowCount": BLOCK_ROWS,
        "maxConcurrentDatasourceRequests": 2,
        "blockLoadDebounceMillis": 0,
    }


def store(prefix: str) -> dcc.Store:
    """Where the browser's datasource sends its requests."""
    return dcc.Store(id=ids.BIG_SRC, data={"url": prefix + ids.ROWS_ROUTE})


def model_options(models, names, search, picked, limit: int = SEARCH_LIMIT) -> list[dict]:
    """The model filter's options: the models whose key or display name contains ``search``
    (case-insensitive; the first ``limit``), after the ``picked`` ones (always offered, so the
    box shows them)."""
    names = names or {}
    known = set(models)
    picked = [m for m in (picked if isinstance(picked, list) else [])[:1000] if m in known]
    out = [{"label": names.get(m, m), "value": m} for m in picked]
    seen = set(picked)
    q = search.strip().lower() if isinstance(search, str) else ""
    q = q[:200]
    n = 0
    for m in models:
        if n >= limit:
            break
        if m in seen:
            continue
        if not q or q in m.lower() or q in names.get(m, m).lower():
            out.append({"label": names.get(m, m), "value": m})
            n += 1
    return out


def _block_request(body: object) -> tuple[str, int, int, list] | None:
    if not isinstance(body, dict):
        return None
    key, start, end = body.get("key"), body.get("start"), body.get("end")
    if not isinstance(key, str) or not isinstance(start, int) or not isinstance(end, int):
        return None
    if start < 0 or end < start or end - start > MAX_BLOCK:
        return None
    return key, start, end, clean_sort(body.get("sort"))


def register(app, rowsync: RowSync, cache) -> None:
    """The block route, the refresh of the grid on a new row key (in the browser) and the model
    filter's search."""
    blocks = rowsync.blocks
    route = app.config.routes_pathname_prefix + ids.ROWS_ROUTE

    @app.server.route(route, methods=["POST"])
    def rows_block():
        req = _block_request(flask.request.get_json(silent=True))
        if req is None:
            return flask.jsonify(error="bad request"), 400
        key, start, end, sort = req
        rows = rowsync.rows_for(key)
        if rows is None:
            return flask.jsonify(error="unknown state"), 400
        out = {"rows": blocks.block(key, rows, sort, start, end), "n": len(rows)}
        return flask.Response(
            orjson.dumps(out, option=orjson.OPT_SERIALIZE_NUMPY), mimetype="application/json"
        )

    # a new row key refetches the grid's blocks (the first from the edit's response when the
    # grid asks for it in the same sort); a request of dash-ag-grid's own datasource
    # (installed when the grid is ready, maybe after ours) puts ours back
    app.clientside_callback(
        ClientsideFunction("mplBig", "refresh"),
        Output(ids.BIG_SRC, "data"),
        Input(ids.ROWKEY, "data"),
        Input(ids.GRID, "getRowsRequest"),
        State(ids.BIG_SRC, "data"),
        State(ids.BIG_BLOCK, "data"),
    )

    register_search(app, cache, ids.MODEL_FILTER)
    present = {i for c in app.layout._traverse() if isinstance(i := getattr(c, "id", None), str)}
    for dropdown in SEARCHED:
        if dropdown in present:
            register_search(app, cache, dropdown)


#: the other model pickers whose value only a person sets from their options (the what-if's
#: model): a large table's page offers them the searched options too (:func:`searched_pickers`);
#: with every model it carried ~480 KB of the 10,000-model page's layout. Not Compare's models:
#: the grid's ticks set them, and the options of an earlier search arriving after a tick would
#: make the dropdown drop the ticked model it has no option for (seen in a browser)
SEARCHED = (ids.WHATIF_MODEL,)


def searched_pickers(layout, cache) -> None:
    """Give the :data:`SEARCHED` dropdowns of ``layout`` (those it has) the options of an empty
    search instead of every model (:func:`register` makes them search)."""
    first = model_options(cache.models, cache.display, "", [])
    for comp in layout._traverse():
        if isinstance(getattr(comp, "id", None), str) and comp.id in SEARCHED:
            comp.options = first


def register_search(app, cache, dropdown_id) -> None:
    """Make a model dropdown (single or multi) offer only the models matching what is typed
    (:func:`model_options`, the picked ones kept): its layout holds ``model_options(...,
    "", [])`` instead of every model. A callback that sets its value must send the options
    with it (``model_options(..., picked)``): Dash's dropdown drops a value it has no option
    for."""

    @app.callback(
        Output(dropdown_id, "options"),
        Input(dropdown_id, "search_value"),
        Input(dropdown_id, "value"),
        prevent_initial_call=True,
    )
    def search_models(search, picked):
        if search is not None and not isinstance(search, str):
            raise PreventUpdate
        picked = [picked] if isinstance(picked, str) else picked
        return model_options(cache.models, cache.display, search, picked)
