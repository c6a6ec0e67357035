"""The pinned baseline: "Compare against this view", "Unpin", the line that names the baseline
and the readable list of the changes shown.

The baseline is part of the settings the server answers (``actions.pin`` / ``actions.unpin``,
a link's ``b=``: ``state.read_baseline``); the server writes the baseline store
(``ids.BASE``: ``{changes, n, pinned[, result]}``, or None for the published settings) and the
tau line. In the browser (``assets/baseline.js``) the store's changes are scored once per pin
by the JavaScript engine; the grid's rank change and score change then compare with them, so
an edit still needs no request. The changes list follows the changes store on every edit.
"""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, dcc, html

from ... import ids

PUBLISHED = "Compared with: the published settings"
NO_CHANGES = "No changes from the published settings"


def layout() -> html.Div:
    """The baseline bar: the store, the line naming the baseline, the two buttons and the
    changes list (its items are drawn by ``assets/baseline.js``)."""
    return html.Div(
        [
            dcc.Store(id=ids.BASE, data=None),
            html.Div(
                [
                    html.Span(PUBLISHED, id=ids.BASE_TEXT, className="base-text", role="status"),
                    html.Button(
                        "Compare against this view",
                        id=ids.BASE_PIN,
                        n_clicks=0,
                        className="btn",
                        title="Pin the current settings: rank change, score change and Kendall "
                        "τ compare with them (kept in the link as b=)",
                    ),
                    html.Button(
                        "Unpin",
                        id=ids.BASE_UNPIN,
                        n_clicks=0,
                        disabled=True,
                        className="btn",
                        title="Compare with the published settings again",
                    ),
                ],
                className="base-line",
            ),
            html.Div(
                [
                    html.Span(NO_CHANGES, id=ids.CHANGES_LABEL, className="changes-label"),
                    html.Div(id=ids.CHANGES_LIST, className="changes-list"),
                ],
                className="changes-line",
            ),
        ],
        className="baseline-bar",
    )


def register(app) -> None:
    """The browser's side: the baseline store to the live result and its line; the changes
    store to the readable list."""
    app.clientside_callback(
        ClientsideFunction("mplBaseline", "sync"),
        Output(ids.BASE_TEXT, "children"),
        Output(ids.BASE_UNPIN, "disabled"),
        Input(ids.BASE, "data"),
    )
    app.clientside_callback(
        ClientsideFunction("mplBaseline", "list"),
        Output(ids.CHANGES_LABEL, "children"),
        Input(ids.CHANGES, "data"),
    )
