"""Come back to your work: the browser remembers the last settings and offers them back.

Everything happens in the browser (``assets/restore.js``); the server keeps nothing. On every
change of the URL's query, a query that holds settings (``?s=`` changes, ``?missing=`` policy,
``?f=`` model filter) is kept in the browser's localStorage, keyed by the page's path. Opening
the plain address (no query at all) while a query is kept shows one line near the top:
"Restore your last settings: N changes · Restore · Dismiss". Restore writes the kept query
into the URL, which the page then loads as it loads a link; Dismiss hides the line and forgets
the query. A link's settings always win: an address with a query is never offered anything.
Undoing every change in the page (a query without settings after one with) forgets the kept
query: the last settings are then the defaults.
"""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, html

from ... import ids

#: the line's words; its count is written by ``assets/restore.js``
LEAD = "Restore your last settings"
TIP = (
    "The settings you last used on this board in this browser (kept by the browser only). "
    "Restore loads them as a link would; Dismiss forgets them."
)


def layout() -> html.Div:
    """The line offering the remembered settings (hidden until ``assets/restore.js`` shows it)."""
    return html.Div(
        [
            html.Span(LEAD, id=ids.RESTORE_TEXT, title=TIP),
            html.Span(" · ", **{"aria-hidden": "true"}),
            html.Button("Restore", id=ids.RESTORE_YES, className="btn restore-yes", n_clicks=0),
            html.Span(" · ", **{"aria-hidden": "true"}),
            html.Button("Dismiss", id=ids.RESTORE_NO, className="btn restore-no", n_clicks=0),
        ],
        id=ids.RESTORE,
        className="restore-line",
        role="status",
        hidden=True,
    )


def register(app) -> None:
    """The three browser-side callbacks: remember (or offer) on every change of the URL's
    query, Restore (writes the kept query into the URL) and Dismiss (forgets it)."""
    app.clientside_callback(
        ClientsideFunction("mplRestore", "remember"),
        Output(ids.RESTORE, "hidden"),
        Output(ids.RESTORE_TEXT, "children"),
        Input(ids.URL, "search"),
    )
    app.clientside_callback(
        ClientsideFunction("mplRestore", "restore"),
        Output(ids.URL, "search", allow_duplicate=True),
        Output(ids.RESTORE, "hidden", allow_duplicate=True),
        Input(ids.RESTORE_YES, "n_clicks"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("mplRestore", "dismiss"),
        Output(ids.RESTORE, "hidden", allow_duplicate=True),
        Input(ids.RESTORE_NO, "n_clicks"),
        prevent_initial_call=True,
    )
