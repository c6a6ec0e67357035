"""Flask-level guards of the dashboard's server: a request size limit, security headers on
every response, a short 400 for anything that escapes Dash's dispatch, and ``/health``."""

from __future__ import annotations

import logging

import flask
from werkzeug.exceptions import HTTPException

#: the largest request body accepted (a 2 MB YAML upload is ~2.7 MB of base64 in a callback)
MAX_REQUEST_BYTES = 5 * 1024 * 1024

#: sent with every response: no MIME sniffing, never framed (clickjacking), no referrer to
#: other sites (the URL holds the user's settings)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Referrer-Policy": "same-origin",
}


def harden(server: flask.Flask) -> None:
    """A request size limit (413), the security headers, and any exception that escapes Dash's
    dispatch (a forged callback request that does not match the callback's shape) answered by a
    short 400 JSON and one log line, never a 500 with a traceback."""
    server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    log = logging.getLogger("ml_peg_like.dashboard")

    @server.errorhandler(Exception)
    def _refuse(exc: Exception):
        if isinstance(exc, HTTPException):
            return exc
        log.warning(
            "refused %s %s: %s", flask.request.method, flask.request.path, type(exc).__name__
        )
        return flask.jsonify(error="bad request"), 400

    @server.after_request
    def _headers(response: flask.Response) -> flask.Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response


def add_health(server: flask.Flask, n_models: int, n_metrics: int) -> None:
    """``/health``: liveness for load balancers and process managers (a small JSON)."""

    @server.route("/health")
    def health():
        return flask.jsonify(status="ok", models=n_models, metrics=n_metrics)
