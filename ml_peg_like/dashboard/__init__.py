"""The dashboard: explore rankings, tune thresholds and weights live, export.

``create_app(config, raw)`` builds a Dash app on the engine; the engine does all scoring. The
browser holds the user's changes from the defaults (a ``dcc.Store`` and the URL); every request
carries them, so the server keeps no per-user state and any number of workers agree.
"""

from __future__ import annotations

import logging
from pathlib import Path

import dash
import flask
from werkzeug.exceptions import HTTPException

from ..config import Config
from ..raw import RawData
from .callbacks import Engine, _colsig, register, tree_store
from .layout import build_layout
from .robustness_view import attach_robustness
from .tables import column_defs, row_data

ASSETS = Path(__file__).resolve().parents[2] / "assets"
PACKAGE_ASSETS = Path(__file__).resolve().parent / "assets"

__all__ = ["create_app", "serve"]

#: the largest request body accepted (a 2 MB YAML upload is ~2.7 MB of base64 in a callback)
MAX_REQUEST_BYTES = 5 * 1024 * 1024


def _assets_folder() -> str:
    """The repo's ``assets/`` (a source checkout) or the copy shipped in the package."""
    for p in (ASSETS, PACKAGE_ASSETS):
        if (p / "dashAgGridFunctions.js").is_file():
            return str(p)
    return str(ASSETS)


def create_app(
    config: Config,
    raw: RawData,
    *,
    title: str | None = None,
    robustness: bool = True,
    cache_dir: str | Path | None = None,
) -> dash.Dash:
    """A Dash app showing ``raw`` scored with ``config``; edits recompute through the engine.

    ``robustness``: add the Robustness view (its background jobs use a diskcache in
    ``cache_dir``, default ``$ML_PEG_LIKE_CACHE_DIR`` or a per-user temporary directory).
    """
    engine = Engine(config, raw)
    title = title or config.title
    app = dash.Dash(
        __name__,
        title=title,
        assets_folder=_assets_folder(),
        suppress_callback_exceptions=True,
        update_title=None,
        serve_locally=True,
    )
    cols = column_defs(engine.default_scores, "")
    rows = row_data(engine.default_scores, "", default_ranks=engine.default_scores.ranks)
    app.layout = build_layout(
        config,
        engine.default_scores,
        title=title,
        columns=cols,
        rows=rows,
        colsig=_colsig(cols),
        tree=tree_store(config),
        filters=engine.attr_options,
    )
    register(app, engine)
    # the Robustness view; its tau line is filled in by the main callback's own response
    # (one round trip per edit), so it registers no tau callback of its own
    if robustness:
        attach_robustness(app, engine, tau_callback=False, cache_dir=cache_dir)
        engine.tau_line = True
    _harden(app.server)
    n_models, n_metrics = len(raw.models), len(config.metric_paths())

    @app.server.route("/health")
    def health():
        """Liveness for load balancers and process managers: a small JSON, no computation."""
        return flask.jsonify(status="ok", models=n_models, metrics=n_metrics)

    app.engine = engine  # for tests and benchmarks
    return app


def _harden(server: flask.Flask) -> None:
    """Flask-level guards against hostile clients: a request size limit (413), and any exception
    that escapes Dash's dispatch (a forged callback request that does not match the callback's
    shape) answered by a short 400 JSON and one log line, never a 500 with a traceback."""
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


def serve(
    config: Config,
    raw: RawData,
    host: str = "127.0.0.1",
    port: int = 8050,
    debug: bool = False,
    workers: int = 1,
    title: str | None = None,
) -> int:
    """Serve the dashboard: ``workers`` > 1 runs gunicorn (a production WSGI server, debug always
    off); 1 runs Dash's development server (debug only when asked). Loopback unless ``host``."""
    app = create_app(config, raw, title=title)
    if workers and workers > 1:
        try:
            from gunicorn.app.base import BaseApplication
        except ImportError:  # pragma: no cover
            workers = 1
        else:

            class _App(BaseApplication):
                def load_config(self):
                    self.cfg.set("bind", f"{host}:{port}")
                    self.cfg.set("workers", workers)
                    if "control_socket_disable" in self.cfg.settings:
                        # gunicorn >= 27: one shared ~/.gunicorn/gunicorn.ctl per user would
                        # collide between two servers; nothing here uses it
                        self.cfg.set("control_socket_disable", True)

                def load(self):
                    return app.server

            _App().run()
            return 0
    app.run(host=host, port=port, debug=debug)
    return 0
