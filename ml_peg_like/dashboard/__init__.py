"""The dashboard: explore rankings, tune thresholds and weights live, export.

``create_app(config, raw)`` builds a Dash app on the engine; the engine does all scoring. The
browser holds the user's changes from the defaults (a ``dcc.Store`` and the URL); every request
carries them, so the server keeps no per-user state and any number of workers agree.
"""

from __future__ import annotations

from pathlib import Path

import dash

from ..config import Config
from ..raw import RawData
from . import ids
from .cache import ScoreCache
from .components import curve, edit, grid, navigation, page, rowsync, settings, toolbar
from .robustness_view import attach_robustness, tau_line_text
from .server import MAX_REQUEST_BYTES, add_health, harden
from .tables import REASON_TIPS, column_defs, row_data

ASSETS = Path(__file__).resolve().parents[2] / "assets"
PACKAGE_ASSETS = Path(__file__).resolve().parent / "assets"

__all__ = ["MAX_REQUEST_BYTES", "ScoreCache", "create_app", "serve"]


def _assets_folder() -> str:
    """The repo's ``assets/`` (a source checkout) or the copy shipped in the package."""
    for p in (ASSETS, PACKAGE_ASSETS):
        if (p / "dashAgGridFunctions.js").is_file():
            return str(p)
    return str(ASSETS)


def _with_names(index_string: str) -> str:
    """The page template with ``window.mplNames`` (ids.py) set before the assets' scripts."""
    script = "<script>" + ids.js_names_script(REASON_TIPS) + "</script>"
    return index_string.replace("{%scripts%}", script + "\n            {%scripts%}", 1)


def create_app(
    config: Config,
    raw: RawData,
    *,
    title: str | None = None,
    robustness: bool = True,
    cache_dir: str | Path | None = None,
    deltas: bool | str = "auto",
) -> dash.Dash:
    """A Dash app showing ``raw`` scored with ``config``; edits recompute through the engine.

    ``robustness``: add the Robustness view (its background jobs use a diskcache in
    ``cache_dir``, default ``$ML_PEG_LIKE_CACHE_DIR`` or a per-user temporary directory).
    ``deltas``: "auto": an edit sends the grid only the cells that changed when the whole
    table would be large (``rowsync.FULL_TABLE_MAX_BYTES``); True: always; False: the whole
    table, as before issue 15 (the benchmark compares them).
    """
    cache = ScoreCache(config, raw)
    scores = cache.default_scores
    title = title or config.title
    app = dash.Dash(
        __name__,
        title=title,
        assets_folder=_assets_folder(),
        suppress_callback_exceptions=True,
        update_title=None,
        serve_locally=True,
    )
    app.index_string = _with_names(app.index_string)
    cols = column_defs(scores, "")
    app.layout = page.layout(
        title=title,
        summary=page.summary_line(config, scores),
        stores=page.stores(grid.colsig(cols), navigation.tree_store(config)),
        toolbar=toolbar.layout(scores.models, cache.attr_options, config.presets),
        sidebar=navigation.sidebar(config),
        crumbs=navigation.crumbs_layout(config),
        grid=grid.layout(cols, row_data(scores, "", default_ranks=scores.ranks), len(raw.models))
        + rowsync.stores(rowsync.default_key()),
        settings=settings.layout(config),
        curve=curve.layout(),
    )
    navigation.register(app)
    curve.register(app)
    toolbar.register(app, cache)

    # ---- the robustness view: the ONE composition point ------------------------------------
    # its tau line is filled in by the edit callback's own response (one round trip per edit):
    # ``on_changes`` is the function handed in; the view adds its layout and callbacks itself
    # (to become ``robustness.layout(cache)`` in ``page.layout(after_grid=..., main_end=...)``
    # and ``robustness.register(app, cache)`` when it moves under components/)
    on_changes = None
    if robustness:
        attach_robustness(app, cache, tau_callback=False, cache_dir=cache_dir)

        def on_changes(changes):
            tau = tau_line_text(cache, changes)
            if tau is not None:
                dash.set_props(ids.ROB_TAU, {"children": tau})

    app.engine = cache  # the robustness view's tests still read this name (goes with its move)
    # -------------------------------------------------------------------------------------------
    edit.register(app, cache, on_changes=on_changes, deltas=deltas)
    rowsync.register(app)
    harden(app.server)
    add_health(app.server, len(raw.models), len(config.metric_paths()))
    app.score_cache = cache  # for tests and benchmarks
    return app


def serve(
    config: Config,
    raw: RawData,
    host: str = "127.0.0.1",
    port: int = 8050,
    debug: bool = False,
    workers: int = 1,
    title: str | None = None,
    deltas: bool | str = "auto",
) -> int:
    """Serve the dashboard: ``workers`` > 1 runs gunicorn (a production WSGI server, debug always
    off); 1 runs Dash's development server (debug only when asked). Loopback unless ``host``."""
    app = create_app(config, raw, title=title, deltas=deltas)
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
