"""A ``Server-Timing`` header on the answers of the callback and row routes: the milliseconds
the server spent on the request (Flask's view, Dash's dispatch and its JSON), so a benchmark
or the browser's devtools can split an edit's time into server and browser."""

from __future__ import annotations

import time

import flask

from . import ids

#: the paths whose answers carry the header (the edit callback's and a large table's rows)
TIMED = ("_dash-update-component", ids.ROWS_ROUTE)
#: the metric's name in the header (``app;dur=12.3``)
METRIC = "app"


def install(server: flask.Flask) -> None:
    """Stamp each request's start and add ``Server-Timing: app;dur=MS`` to the timed answers."""

    @server.before_request
    def _start() -> None:
        flask.g.mpl_t0 = time.perf_counter()

    @server.after_request
    def _timing(response: flask.Response) -> flask.Response:
        t0 = flask.g.get("mpl_t0")
        if t0 is not None and flask.request.path.endswith(TIMED):
            ms = (time.perf_counter() - t0) * 1000
            response.headers["Server-Timing"] = f"{METRIC};dur={ms:.1f}"
        return response


def server_ms(headers: dict) -> float | None:
    """The ``app`` duration of a ``Server-Timing`` header (None when there is none)."""
    for part in (headers.get("server-timing") or headers.get("Server-Timing") or "").split(","):
        name, _, rest = part.strip().partition(";")
        if name == METRIC and rest.startswith("dur="):
            try:
                return float(rest[4:])
            except ValueError:
                return None
    return None
