"""Flask-level guards of the dashboard's server: a request size limit, security headers on
every response (a page's ``Content-Security-Policy`` names its inline scripts' hashes), a short 400 for anything that escapes Dash's dispatch, and ``/health``."""

from __future__ import annotations

import logging
import os
import re

import flask
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from .csp import page_policy
from .earlypage import SECURITY_HEADERS

#: the largest settings file the page accepts: a real ML-PEG settings file is ~60 KB (the full
#: ML-PEG config ~94 KB); a larger file is refused in the browser before it is read or sent
MAX_UPLOAD_BYTES = 512 * 1024
#: the same limit as the page and the README state it
UPLOAD_LIMIT_TEXT = f"{MAX_UPLOAD_BYTES // 1024} KB"
#: room for the rest of the largest edit request (every box of a view, the changes, the URL)
STATE_REQUEST_BYTES = 2 * 1024 * 1024
#: the largest request body accepted (413 above): an upload at the limit as base64 in a data URL
#: (4/3 of its size, plus the data URL's head), and the page's state
MAX_REQUEST_BYTES = (MAX_UPLOAD_BYTES * 4) // 3 + 1024 + STATE_REQUEST_BYTES


#: the page's icon (Dash's, versioned by ``?v=<dash version>``) is cached: Chromium asks for the
#: icon again at every history entry, so without a lifetime every edit (it rewrites the URL) cost
#: one more request to the server
FAVICON_CACHE = "public, max-age=86400"


#: how many reverse proxies in front of the server are trusted to say the client's address
#: (``X-Forwarded-For``); unset or 0: none, the connection's address is the client's
TRUSTED_PROXIES_ENV = "ML_PEG_LIKE_TRUSTED_PROXIES"


def trusted_proxies() -> int:
    """The number in :data:`TRUSTED_PROXIES_ENV` (0 when unset or not a small number)."""
    text = os.environ.get(TRUSTED_PROXIES_ENV, "").strip()
    return int(text) if text.isdigit() and 0 < int(text) <= 8 else 0


def harden(server: flask.Flask) -> None:
    """A request size limit (413), the security headers, and any exception that escapes Dash's
    dispatch (a forged callback request that does not match the callback's shape) answered by a
    short 400 JSON and one log line, never a 500 with a traceback. Behind trusted reverse
    proxies (:data:`TRUSTED_PROXIES_ENV`), the client's address is the one they forward
    (werkzeug's ``ProxyFix``): what the per-client job limit counts."""
    proxies = trusted_proxies()
    if proxies:
        server.wsgi_app = ProxyFix(server.wsgi_app, x_for=proxies)
    server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    log = logging.getLogger("ml_peg_like.dashboard")

    @server.errorhandler(413)
    def _too_large(_exc):
        text = f"request larger than {MAX_REQUEST_BYTES // 1024} KB: refused"
        return flask.jsonify(error=text), 413

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
        if response.mimetype == "text/html" and not response.direct_passthrough:
            # a page: its own inline scripts' hashes, taken from the HTML it is (csp.py)
            response.headers["Content-Security-Policy"] = page_policy(response.get_data())
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if flask.request.path.endswith("/_favicon.ico") and response.status_code == 200:
            response.headers["Cache-Control"] = FAVICON_CACHE
        return response


_PYTHON_VERSION = re.compile(r'("python_version"\s*:\s*)"(?:[^"\\]|\\.)*"')


def without_versions(config_html: str) -> str:
    """Dash's config element with its ``python_version`` emptied (the page does not need to
    tell anyone which Python the server runs)."""
    return _PYTHON_VERSION.sub(r'\1""', config_html)


def hide_versions(app) -> None:
    """Serve the app's page without the Python version in Dash's config (Dash's documented
    override point, ``interpolate_index``)."""
    interpolate = app.interpolate_index

    def interpolate_index(**kw):
        if isinstance(kw.get("config"), str):
            kw["config"] = without_versions(kw["config"])
        return interpolate(**kw)

    app.interpolate_index = interpolate_index


def add_health(server: flask.Flask, n_models: int, n_metrics: int) -> None:
    """``/health``: liveness for load balancers and process managers (a small JSON)."""

    @server.route("/health")
    def health():
        return flask.jsonify(status="ok", models=n_models, metrics=n_metrics)
