"""The address answers from the first moment of ``ml-peg-like serve`` (fast start).

Python needs ~1 s to import Dash and build the app; the page's first view (the ranking in the
page's HTML, ``dashboard/firstview.py``) is then drawn ~0.4 s after the browser asked for it.
Meanwhile this server already listens (no Dash, no Flask imported here; werkzeug's own server,
the one Dash's ``app.run`` uses):

* ``GET /`` without a query is answered with **the page the same data, options and code served
  last time** (kept in the user's private cache, ``private.py``; never beside the data, where
  someone else might plant a page) with :data:`EARLY_ATTR` on its scripts' ``<template>``;
  ``assets/loader.js`` then paints it and, before it starts the scripts, asks for the page
  again (:data:`BOOT_HEADER`), which waits for the app: the app's own page gives the scripts,
  Dash's config (its per-load ``end_id``) and the first view, which replaces a kept one that
  differs. A kept page is shown at most until the app is up; the key (:func:`page_key`) only
  decides whether one is tried.
* every other request (and ``GET /`` with nothing kept) waits until the app is ready (at most
  :data:`HOLD_S`), then the app answers it: a browser opened early spins instead of being
  refused.

Once the app is ready, its page for ``/`` is kept for the next start (``dashboard.run_app``).
Only for one process (``--workers 1``) and never in Dash's debug mode.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from collections.abc import Callable, Iterable
from importlib.util import find_spec
from pathlib import Path

from ..support.private import PrivateStateError, open_user_dir, user_cache_dir
from ..support.resources import assets_dir
from .csp import BASE_POLICY, page_policy

#: sent with every response: no MIME sniffing, never framed (clickjacking), no referrer to
#: other sites (the URL holds the user's settings); the app's (``serving/server.py``) and
#: the early page's
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": BASE_POLICY,  # a page's own: csp.page_policy
    "Referrer-Policy": "same-origin",
}
#: the ``Server`` header of the single-process server (werkzeug's names werkzeug's and
#: Python's versions)
SERVER_NAME = "ml-peg-like"
#: the ``<template>`` that holds the page's scripts until ``assets/loader.js`` adds them
#: (``dashboard/firstpage.py``)
SCRIPTS_HOLDER = "mpl-scripts"
#: set on that template in a kept page: the loader asks for the app's page before it starts
EARLY_ATTR = "data-early"
#: the loader's request for the app's own page (never answered from the kept one)
BOOT_HEADER = "X-Mpl-Boot"
#: the longest a request waits for the app (a start that takes longer gets a 503)
HOLD_S = 300.0
#: kept pages (the newest; one per data set and options)
MAX_PAGES = 8
#: their directory in the user's cache directory
PAGES = "pages"
#: a kept page larger than this is not one this server wrote (refused)
MAX_PAGE_BYTES = 64 * 1024 * 1024

#: connections the single-process server serves at once (a browser keeps ~6 open); a further
#: one waits :data:`BUSY_WAIT_S` for a free slot, then gets a 503
MAX_CONNECTIONS = 256
BUSY_WAIT_S = 5.0
#: a connection that sends nothing for this long (seconds) is closed: an idle keep-alive, or a
#: client that stopped sending in the middle of its request
READ_TIMEOUT_S = 20.0

WSGIApp = Callable[[dict, Callable], Iterable[bytes]]


def pages_dir() -> Path:
    """Where the kept pages live: ``pages/`` in the user's private cache directory."""
    return user_cache_dir() / PAGES


def _stat(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return f"{path}:-"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file())
    return [path]


def page_key(data: Iterable[str | os.PathLike | None], options: dict) -> str:
    """Which kept page to try: the data's files (a directory's files, by path, size and
    modification time), ``options`` (what the page depends on), this package's files and its
    assets (the page inlines the style sheets, the theme and the loader) and the versions of Dash and dash-ag-grid (their ``package-info`` and version files), all without
    reading a file's content or importing them."""
    h = hashlib.sha256()
    for item in data:
        if item is not None:
            for f in _files(Path(item).resolve()):
                h.update(_stat(f).encode() + b"\0")
    h.update(repr(sorted(options.items())).encode() + b"\0")
    h.update(sys.version.encode() + b"\0")
    package = Path(__file__).resolve().parents[1]  # the whole ml_peg_like package
    code = [package]
    assets = assets_dir().resolve()  # the page inlines some (a checkout keeps them outside)
    if package not in assets.parents:
        code.append(assets)
    for top in code:
        for root, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if not name.endswith((".pyc", ".pyo")):
                    h.update(_stat(Path(root) / name).encode() + b"\0")
    for name in ("dash", "dash_ag_grid"):
        spec = find_spec(name)
        if spec is not None and spec.origin:
            where = Path(spec.origin).parent
            for f in ("version.py", "package-info.json", "__init__.py"):
                h.update(_stat(where / f).encode() + b"\0")
    return h.hexdigest()[:32]


def kept_page(key: str) -> bytes | None:
    """The page kept under ``key`` in the private cache, or None: none kept, or refused — the
    cache directory and ``pages/`` are opened as checked handles and the page relative to them
    (``private.open_user_dir``: this user's, 0700, no symlink; the file this user's, regular,
    0600), so nothing is read by a path someone could swap after the check."""
    try:
        with open_user_dir(PAGES, create=False) as d:
            return d.read(f"page-{key}.html", MAX_PAGE_BYTES)
    except (OSError, PrivateStateError):
        return None


def keep_page(key: str, page: bytes) -> Path | None:
    """Keep ``page`` under ``key`` (0600 in a 0700 directory), the :data:`MAX_PAGES` newest;
    None when the private cache cannot be used."""
    try:
        with open_user_dir(PAGES) as d:
            out = d.write(f"page-{key}.html", page)
            pages = [n for n in d.names() if n.startswith("page-") and n.endswith(".html")]
            pages.sort(key=d.mtime_ns, reverse=True)
            for old in pages[MAX_PAGES:]:
                d.remove(old)
            return out
    except (OSError, PrivateStateError):
        return None


def mark_early(page: bytes) -> bytes:
    """``page`` with :data:`EARLY_ATTR` on its scripts' template (unchanged without one)."""
    holder = f'<template id="{SCRIPTS_HOLDER}"'.encode()
    return page.replace(holder, holder + f" {EARLY_ATTR}".encode(), 1)


def request_handler():
    """werkzeug's request handler, with :data:`SERVER_NAME` as the ``Server`` header and the
    security headers on every response, also those the HTTP server writes itself before any
    application runs (400 malformed request, 414 URI too long, 431 headers too large)."""
    from werkzeug.serving import WSGIRequestHandler

    class Handler(WSGIRequestHandler):
        timeout = READ_TIMEOUT_S  # socketserver sets it on the connection's socket

        def version_string(self) -> str:
            return SERVER_NAME

        def send_response_only(self, code, message=None) -> None:
            self.mpl_sent: set[str] = set()
            super().send_response_only(code, message)

        def send_header(self, keyword, value) -> None:
            getattr(self, "mpl_sent", set()).add(keyword.lower())
            super().send_header(keyword, value)

        def end_headers(self) -> None:
            sent = getattr(self, "mpl_sent", set())
            for name, value in SECURITY_HEADERS.items():
                if name.lower() not in sent:
                    super().send_header(name, value)
            super().end_headers()

    return Handler


def _with_csp(headers: list, policy: str) -> list:
    """``headers`` with ``policy`` as the ``Content-Security-Policy``."""
    return [(k, v) for k, v in headers if k != "Content-Security-Policy"] + [
        ("Content-Security-Policy", policy)
    ]


def _busy(request) -> None:
    """Answer a connection beyond :data:`MAX_CONNECTIONS` with a short 503."""
    head = ["HTTP/1.1 503 Service Unavailable", f"Server: {SERVER_NAME}", "Retry-After: 5",
            "Content-Length: 0", "Connection: close"]  # fmt: skip
    head += [f"{k}: {v}" for k, v in SECURITY_HEADERS.items()]
    try:
        request.settimeout(1.0)
        request.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
    except OSError:
        pass


def make_bounded_server(host: str, port: int, app: WSGIApp):
    """werkzeug's threaded server serving at most :data:`MAX_CONNECTIONS` connections at once
    (one thread each), each closed after :data:`READ_TIMEOUT_S` of silence."""
    from werkzeug.serving import ThreadedWSGIServer

    class BoundedServer(ThreadedWSGIServer):
        def process_request(self, request, client_address):
            if not self.slots.acquire(timeout=BUSY_WAIT_S):
                _busy(request)
                self.shutdown_request(request)
                return
            try:
                super().process_request(request, client_address)
            except BaseException:
                self.slots.release()
                raise

        def process_request_thread(self, request, client_address):
            try:
                super().process_request_thread(request, client_address)
            finally:
                self.slots.release()

    server = BoundedServer(host, port, app, request_handler())
    server.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
    return server


class EarlyServer:
    """A threaded WSGI server listening from the start, answering as the module says."""

    def __init__(self, host: str, port: int, page: bytes | None = None):
        self.page = mark_early(page) if page is not None else None
        self.page_csp = page_policy(self.page) if self.page is not None else BASE_POLICY
        self.app: WSGIApp | None = None
        self.ready = threading.Event()
        self.server = make_bounded_server(host, port, self)
        self.port = self.server.server_port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> EarlyServer:
        self.thread.start()
        return self

    def __call__(self, environ: dict, start_response):
        app = self.app
        if app is None:
            if self.page is not None and self._is_first_page(environ):
                headers = [
                    ("Content-Type", "text/html; charset=utf-8"),
                    ("Content-Length", str(len(self.page))),
                    ("Cache-Control", "no-store"),
                    *SECURITY_HEADERS.items(),
                ]
                headers = _with_csp(headers, self.page_csp)
                start_response("200 OK", headers)
                return [self.page]
            self.ready.wait(HOLD_S)
            app = self.app
            if app is None:
                body = b"the dashboard is still starting; try again in a moment\n"
                start_response(
                    "503 Service Unavailable",
                    [("Content-Type", "text/plain"), ("Retry-After", "5"),
                     *SECURITY_HEADERS.items()],
                )  # fmt: skip
                return [body]
        return app(environ, start_response)

    @staticmethod
    def _is_first_page(environ: dict) -> bool:
        return (
            environ.get("REQUEST_METHOD") == "GET"
            and environ.get("PATH_INFO") == "/"
            and not environ.get("QUERY_STRING")
            and "HTTP_" + BOOT_HEADER.upper().replace("-", "_") not in environ
        )

    def adopt(self, app: WSGIApp) -> None:
        """From now on ``app`` answers every request, the held ones first."""
        self.app = app
        self.ready.set()

    def serve(self) -> None:
        """Block until interrupted (Ctrl-C), then stop listening."""
        try:
            while self.thread.is_alive():
                self.thread.join(0.5)
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop listening (a held request's connection is closed unanswered)."""
        if self.thread.is_alive():
            self.server.shutdown()
        self.server.server_close()
