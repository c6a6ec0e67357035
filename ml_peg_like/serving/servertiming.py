"""A ``Server-Timing`` header on the callback's answers: the milliseconds the server spent on
the request (Flask's view, Dash's dispatch and its JSON), so a benchmark can split an action's
time into server and browser. Only when the environment asks for it (:data:`ENV`, set by the
benchmark harness): the product's answers carry no timing by default."""

from __future__ import annotations

import os
import time

import flask

#: the environment variable that turns the header on ("1")
ENV = "ML_PEG_LIKE_SERVER_TIMING"
#: the paths whose answers carry the header (the server callback's)
TIMED = ("_dash-update-component",)
#: the metric's name in the header (``app;dur=12.3``)
METRIC = "app"


def install(server: flask.Flask) -> None:
    """When :data:`ENV` is "1": stamp each request's start and add ``Server-Timing: app;dur=MS``
    to the timed answers."""
    if os.environ.get(ENV) != "1":
        return

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
