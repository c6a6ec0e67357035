"""The edit path in the browser: the board travels with the page, the browser scores it.

The page holds the board (:func:`page_bundle`: ``ml_peg_like.bundle.make_bundle`` as a JSON
script element) but for its raw matrix, which is served as bytes of its own (:func:`add_route`:
fetched once, in parallel with the page's scripts; Dash's renderer starts once it is in,
:data:`RENDERER`); ``assets/engine.js`` scores defaults + changes and ``assets/live.js`` keeps the
result the grid's cells read. This module declares the clientside callbacks that keep it so:

- a box edit (:data:`EDIT`): scored in the browser, the grid redrawn, the changes, the URL and the
  boxes' marks written (``assets/edit.js``); no request to the server;
- changes from elsewhere (a link, a reset, a preset, an upload: the server's answer writes the
  changes store), the rows shown (the model filter) and the ranks among them, and the
  dominance marks the server computes: handed to the live result (``mplLiveSync``).

The server hears of an edit through the changes store and answers what needs Python (stability
intervals, dominance, the policy bar, the robustness tau line) when it is ready; the plots and
the Compare table are redrawn in the browser (``assets/livecurve.js``, ``assets/liveexplore.js``). Until then those parts
are marked as not yet updated (``ids.PENDING_CLASS`` on the page, dimmed by the style sheet, and
``aria-busy``): the page never shows old and new numbers side by side without saying so.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import flask
import numpy as np
from dash import ALL, ClientsideFunction, Input, Output, State, dcc

from ....bundle import make_bundle, result_of
from ... import ids

BOX = ids.box(ALL, ALL)
MSG = ids.by_path(ids.T_MSG, ALL)


#: about this many bytes per piece of the raw matrix's answer (:func:`column_pieces`)
PIECE_BYTES = 1 << 20
#: the route of the board's raw matrix (little-endian float64, column-major: ``bundle.matrix_bytes``)
RAW_ROUTE = "_mpl-raw"
#: Dash's renderer, started once the board's raw matrix is in (``mplLive.start``, live.js), so
#: that every callback finds the board whole; at once when live.js did not load. Dash's
#: documented ``app.renderer`` (the script that starts the renderer)
RENDERER = (
    "(window.mplLive && window.mplLive.start ? window.mplLive.start : function (go) { go(); })"
    "(function () { window.renderer = new DashRenderer(); });"
)


def page_bundle(config, raw, scores, raw_href: str) -> tuple[str, bool]:
    """(``<script type="application/json" id=...>`` holding the board for ``assets/live.js``,
    whether the server scores it). Its raw matrix is not in it: ``raw_href`` names where
    ``assets/live.js`` fetches it (:func:`add_route`). Measured at 10,000 x 339 (docs/PERFORMANCE.md):
    as base64 in the page, the page was 35 MiB and each request for it spent ~2 s of the
    server's time on it (Dash's template, the policy's hashes) before its first byte. A board the JavaScript engine cannot score (its
    ``unsupported`` list: per-instance metrics, a normaliser registered only in Python) carries
    the Python engine's default scores (``scores``: ``bundle.result_of``), and the server sends
    the scores of every new change set (``ids.LIVE_RESULT``): the page works the same, an edit
    waits for the server. Simpler than a second engine, and said in docs/ENGINE-JS.md."""
    bundle = make_bundle(config, raw, raw_href=raw_href)
    server_scored = bool(bundle["unsupported"])
    if server_scored:
        bundle["result"] = result_of(scores)
    text = json.dumps(bundle, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{ids.BUNDLE}">{text}</script>', server_scored


def column_pieces(values: np.ndarray) -> Iterator[bytes]:
    """``bundle.matrix_bytes(values)`` in pieces of whole columns (about :data:`PIECE_BYTES`
    each): the answer is made from the scores' own matrix as it is sent, and no column-major
    copy of it is held (25.9 MiB at 10,000 x 339)."""
    n, m = values.shape
    step = max(1, PIECE_BYTES // max(1, 8 * n))
    for j in range(0, m, step):
        yield np.asarray(values[:, j : j + step], dtype="<f8").tobytes(order="F")


def add_route(app, values: np.ndarray) -> str:
    """Serve the board's raw matrix ``values`` (models x metrics, as the page's bundle orders
    them) as ``bundle.matrix_bytes`` at :data:`RAW_ROUTE`, with an ETag (a browser that has it
    gets a 304) and no lifetime (asked again on each load); the URL the page fetches it from.
    ``values`` is read at each request and must not change."""
    digest = hashlib.sha256()
    for piece in column_pieces(values):
        digest.update(piece)
    tag = digest.hexdigest()[:32]
    size = 8 * values.size

    def raw_matrix():
        answer = flask.Response(column_pieces(values), mimetype="application/octet-stream")
        answer.content_length = size
        answer.set_etag(tag)
        answer.headers["Cache-Control"] = "no-cache"
        return answer.make_conditional(flask.request)

    app.server.add_url_rule(
        app.config.routes_pathname_prefix + RAW_ROUTE, "mpl_raw_matrix", raw_matrix
    )
    return app.config.requests_pathname_prefix + RAW_ROUTE


def stores() -> list:
    """The edit counts (how many edits the browser made, which one the server last answered)
    and the server's scores of a board the browser cannot score."""
    return [
        dcc.Store(id=ids.PENDING, data=0),
        dcc.Store(id=ids.ANSWERED, data=0),
        dcc.Store(id=ids.LIVE_RESULT, data=None),
    ]


def register(app) -> None:
    """The clientside callbacks of the live result (see the module doc)."""
    app.clientside_callback(
        ClientsideFunction("mplEdit", "box"),
        Output(ids.CHANGES, "data", allow_duplicate=True),
        Output(ids.QS, "data", allow_duplicate=True),
        Output(ids.URL, "search", allow_duplicate=True),
        Output(BOX, "className", allow_duplicate=True),
        Output(MSG, "children", allow_duplicate=True),
        Output(ids.STATUS, "children", allow_duplicate=True),
        Output(ids.RESET_ALL, "children", allow_duplicate=True),
        Output(ids.RESET_ALL, "disabled", allow_duplicate=True),
        Output(ids.PENDING, "data"),
        Input(BOX, "value"),
        State(ids.CHANGES, "data"),
        State(ids.QS, "data"),
        State(ids.STATUS, "children"),
        State(BOX, "id"),
        State(MSG, "id"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("mplLiveSync", "changes"),
        Input(ids.CHANGES, "data"),
    )
    app.clientside_callback(
        ClientsideFunction("mplLiveSync", "rows"),
        Input(ids.GRID, "rowData"),
        Input(ids.RANK_SHOWN, "value"),
    )
    app.clientside_callback(
        ClientsideFunction("mplLiveSync", "dominated"),
        Input(ids.DOMINATED, "data"),
    )
    app.clientside_callback(  # a board scored on the server: its scores of the changes
        ClientsideFunction("mplLiveSync", "result"),
        Input(ids.LIVE_RESULT, "data"),
    )
    app.clientside_callback(  # the server's answer to an edit is in: nothing is stale
        ClientsideFunction("mplLiveSync", "answered"),
        Input(ids.ANSWERED, "data"),
    )
    app.clientside_callback(  # what the curve redrawn on an edit shows (livecurve.js)
        ClientsideFunction("mplLiveCurve", "options"),
        Input(ids.VIEW, "data"),
        Input(ids.CURVE_XSCALE, "value"),
        Input(ids.DIGITS, "value"),
    )
