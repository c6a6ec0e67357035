"""The modules the first page does not need, imported while it loads ("fast start").

pandas (~0.2 s) is imported on first use (``lazy.py``): with a binary raw cache nothing before
the first page needs it. ``ml-peg-like serve`` imports it in a background thread once it
listens (:meth:`Warmer.start`), while the browser loads the page's ~3 MB of scripts.

While pandas imports, ``sys.modules["pandas"]`` holds a half-made module, and Plotly's JSON
encoder, which Dash uses for the layout and every callback's answer, looks there
(``get_module("pandas", should_load=False)``) and fails on it (an AttributeError: a 400). So
every dynamic route (``_dash-layout``, ``_dash-update-component``, the row blocks: the paths
starting with ``_`` but the scripts and the icon) first makes sure the import has ended, doing
it itself when nothing has started it (any WSGI server, e.g. ``gunicorn app:server``); the page,
its scripts and ``/health`` never wait. The page preloads its layout (``firstpage.py``): that
request waits here, hidden behind the scripts' loading.
"""

from __future__ import annotations

import threading

import flask

from ..support.lazy import warm

#: imported on first use (``lazy.py``), before any dynamic route runs
WARM_MODULES = ("pandas",)
#: the routes (after the app's prefix) that never encode with Plotly's JSON encoder
OPEN_PREFIXES = ("_dash-component-suites/", "_favicon.ico")


class Warmer:
    """Imports ``names`` once, in whichever thread comes first; the others wait for it."""

    def __init__(self, names: tuple[str, ...] = WARM_MODULES) -> None:
        self.names = names
        self.done = threading.Event()
        self._lock = threading.Lock()

    def __call__(self) -> None:
        if self.done.is_set():
            return
        with self._lock:
            if not self.done.is_set():
                try:
                    warm(*self.names)
                finally:  # a failed import must not block every request forever
                    self.done.set()

    def start(self) -> threading.Thread:
        """Import in a background thread (daemon: it never holds the process up)."""
        t = threading.Thread(target=self, name="warm-imports", daemon=True)
        t.start()
        return t


def needs_warm(path: str, prefix: str = "/") -> bool:
    """Whether a request of ``path`` must wait for the import: the dynamic routes (a path
    starting with ``_`` after ``prefix``) but the scripts and the icon."""
    rest = path[len(prefix) :] if path.startswith(prefix) else path.lstrip("/")
    return rest.startswith("_") and not rest.startswith(OPEN_PREFIXES)


def install(app, names: tuple[str, ...] = WARM_MODULES) -> Warmer:
    """Make ``app``'s dynamic routes wait for ``names`` (see the module's text)."""
    warmer = Warmer(names)
    prefix = app.config.routes_pathname_prefix or "/"

    @app.server.before_request
    def _imports_done():
        if not warmer.done.is_set() and needs_warm(flask.request.path, prefix):
            warmer()

    return warmer
