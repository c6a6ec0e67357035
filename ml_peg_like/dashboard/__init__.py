"""The dashboard: explore rankings, tune thresholds and weights live, export.

``create_app(config, raw)`` builds a Dash app on the engine. The page carries the board (the
tree and the raw matrix, ``ml_peg_like.bundle``; the matrix's bytes fetched on their own,
``components/editing/liveedit.py``) and the browser scores it with the JavaScript
engine (``assets/engine.js``, held equal to the Python engine by a conformance test): an edit
redraws the grid with no request. The browser holds the user's changes from the defaults (a
``dcc.Store`` and the URL); every request carries them, so the server keeps no per-user state
and any number of workers agree.
"""

from __future__ import annotations

import gc
from pathlib import Path

import dash
from dash import dcc, html

from ..config import Config
from ..raw import RawData
from ..serving import servertiming, warm
from ..serving.earlypage import keep_page, request_handler
from ..serving.jobs import make_manager
from ..serving.server import MAX_REQUEST_BYTES, MAX_UPLOAD_BYTES, add_health, harden, hide_versions
from ..support.resources import assets_dir
from . import a11y, firstpage, firstview, ids
from . import contrib as contrib_colours
from .cache import ScoreCache
from .components import page
from .components.board import baseline, contrib, curve, grid, modelcard, modelsearch, navigation
from .components.board import sensitivity as sens_view
from .components.controls import policy, restore, settings, theme, toolbar
from .components.editing import edit, liveedit, viewstate
from .components.explore import view as explore_view
from .components.robustness import callbacks as robustness_callbacks
from .components.robustness import layout as robustness_layout
from .state import Q_SORT
from .tables import REASON_BY_CODE, column_defs, row_table

__all__ = [
    "GUNICORN_REQUEST_LINE",
    "MAX_REQUEST_BYTES",
    "MAX_UPLOAD_BYTES",
    "ScoreCache",
    "create_app",
    "run_app",
    "serve",
]


def _with_names(index_string: str, bundle: str) -> str:
    """The page template with ``window.mplNames`` (ids.py) and the board (``bundle``: the JSON
    script element of ``liveedit.bundle_script``) before the assets' scripts, and the page's
    language (a11y.py)."""
    names = ids.js_names_script(
        REASON_BY_CODE,
        upload_max=MAX_UPLOAD_BYTES,
        upload_too_big=toolbar.UPLOAD_TOO_BIG,
        score_stops=firstview.SCORE_STOPS,
        parts_palette=contrib_colours.PARTS_PALETTE,
    )
    script = "<script>" + names + "</script>" + bundle
    page = index_string.replace("{%scripts%}", script + "\n            {%scripts%}", 1)
    return a11y.with_lang(page)


def table_dominated(sv) -> dict[str, str]:
    """``{model: "A, B"}``: the models dominating each model (the grid's mark and tooltip)."""
    dom = (sv.dominated if sv is not None else None) or {}
    return {k: ", ".join(v) for k, v in dom.items() if v}


def create_app(
    config: Config,
    raw: RawData,
    *,
    title: str | None = None,
    robustness: bool = True,
    cache_dir: str | Path | None = None,
    broker: str | None = None,
    jobs_manager=None,
    sensitivity: bool = True,
) -> dash.Dash:
    """A Dash app showing ``raw`` scored with ``config``; edits recompute through the engine.

    ``robustness``: add the Robustness view. Its background jobs run on ``jobs_manager`` (any
    Dash background callback manager), default ``jobs.make_manager(cache_dir, broker)``: Celery
    on the Redis at ``broker`` (``redis://HOST:PORT/DB``, jobs run by ``ml-peg-like worker``),
    else a private diskcache in ``cache_dir`` (default ``$ML_PEG_LIKE_CACHE_DIR`` or a fresh
    per-user directory). The app exposes ``app.score_cache`` (the ScoreCache) and
    ``app.robustness_manager`` (the manager, None without the view).
    ``sensitivity``: show the boxes' stability intervals, the dominance marks, the curve's bands
    and the "what would put this model first?" picker (components/board/sensitivity.py).
    """
    cache = ScoreCache(config, raw)
    scores = cache.default_scores
    large = modelsearch.is_large(len(raw.models))  # its model pickers search on the server
    title = title or config.title
    app = dash.Dash(
        __name__,
        title=title,
        assets_folder=str(assets_dir()),
        suppress_callback_exceptions=True,
        update_title=None,
        serve_locally=True,
        assets_ignore=firstpage.ASSETS_IGNORE,  # in the head instead (firstpage.head_assets)
        # the published site's own page (ml_peg_like.publish): served on request, never loaded
        assets_path_ignore=[firstpage.SITE_ASSETS],
    )
    raw_href = liveedit.add_route(app, cache.values)
    bundle, server_scored = liveedit.page_bundle(config, raw, scores, raw_href)
    app.index_string = _with_names(app.index_string, bundle)
    app.renderer = liveedit.RENDERER  # once the raw matrix is in
    cols = column_defs(scores, "")
    sens = sens_view.Sensitivity(cache) if sensitivity else None
    sv = sens.view_state("", scores, "") if sens else None
    rob = robustness_layout.layout(cache) if robustness else {}
    table = row_table(
        scores,
        "",
        default_overall=scores.overall_scores,
        dominated=sv.dominated if sv else None,
        names=cache.display,
    )
    app.layout = page.layout(
        title=title,
        summary=page.summary_line(config, scores),
        stores=[*page.stores(grid.colsig(cols), navigation.tree_store(config)), viewstate.store()],
        toolbar=toolbar.layout(
            scores.models,
            cache.attr_options,
            config.presets,
            cache.display,
            model_options=modelsearch.first_options(cache) if large else None,
        ),
        sidebar=navigation.sidebar(config),
        crumbs=html.Div(
            [
                restore.layout(),  # "restore your last settings" (the browser remembers them)
                baseline.layout(),  # what rank and score changes compare with, the changes
                navigation.crumbs_layout(config),
                *explore_view.layout(cache),
            ]
        ),
        grid=[
            dcc.Store(id=ids.DOMINATED, data=table_dominated(sv)),  # invisible: grid stays last
            *liveedit.stores(),
            policy.layout(scores),
            contrib.layout(config),  # the legend of the breakdown bars
            *grid.layout(cols, grid.index_rows(cache.models, cache.display), len(raw.models)),
        ],
        head_tools=theme.controls(),
        after_grid=[*([rob["tau_line"]] if rob else []), modelcard.layout()],
        settings=settings.layout(config, sv.texts if sv else None),
        curve=curve.layout(),
        main_end=[
            *([sens_view.layout(cache)] if sens else []),
            *([rob["panel"]] if rob else []),
        ],
    )
    first_view = firstview.page_html(  # the page's HTML shows it until the grid is drawn
        app.layout,
        grid_id=ids.GRID,
        sidebar_id=ids.SIDEBAR,
        nav=navigation.sidebar_items(config),
        categories=[c.name for c in config.categories],
        cols=cols,
        rows=firstview.first_rows(table),
        scale=config.scale,
        n_models=len(table),
    )
    # a link's sort: see firstpage.py
    firstpage.install(
        app,
        lazy_when=(Q_SORT,),
        first_view=first_view,
        head=firstpage.head_assets(assets_dir()),
        loader=(assets_dir() / firstpage.LOADER_SCRIPT).read_text(encoding="utf-8"),
    )
    navigation.register(app)
    viewstate.register(app, Q_SORT)
    curve.register(app)
    modelcard.register(app, cache)
    contrib.register(app)
    toolbar.register(app, cache)
    explore_view.register(app, cache)
    on_changes = None
    app.robustness_manager = None
    if robustness:
        manager = jobs_manager if jobs_manager is not None else make_manager(cache_dir, broker)
        robustness_callbacks.register(app, cache, manager)
        app.robustness_manager = manager

        def on_changes(changes, baseline=None):  # the tau line, in the edit callback's answer
            return robustness_callbacks.tau_line_text(cache, changes, baseline)

    edit.register(app, cache, on_changes=on_changes, sensitivity=sens, server_scored=server_scored)
    liveedit.register(app)
    baseline.register(app)
    if large:
        modelsearch.register(app, cache)
    restore.register(app)  # the last settings, remembered by the browser (components/controls/restore.py)
    if sens:
        sens_view.register(app, cache)
    harden(app.server)
    hide_versions(app)
    servertiming.install(app.server)  # the edit's server time, for benchmarks
    app.warmer = warm.install(app)  # pandas: imported while the first page loads (warm.py)
    add_health(app.server, len(raw.models), len(config.metric_paths()))
    app.score_cache = cache  # for tests and benchmarks
    return app


#: gunicorn's largest request line (its maximum): the longest state link that a server started
#: with ``--workers`` answers (docs/DEPLOY.md: what a reverse proxy must allow)
GUNICORN_REQUEST_LINE = 8190
#: threads per gunicorn worker (``serve --workers N``): requests served at once per process
GUNICORN_THREADS = 16


def serve(
    config: Config,
    raw: RawData,
    host: str = "127.0.0.1",
    port: int = 8050,
    debug: bool = False,
    workers: int = 1,
    title: str | None = None,
    broker: str | None = None,
) -> int:
    """Serve the dashboard: ``workers`` > 1 runs gunicorn (a production WSGI server, debug always
    off); 1 runs Dash's development server (debug only when asked). Loopback unless ``host``.
    ``broker``: background jobs on Celery with that Redis (see :func:`create_app`)."""
    app = create_app(config, raw, title=title, broker=broker)
    return run_app(app, host=host, port=port, debug=debug, workers=workers)


def run_app(
    app: dash.Dash,
    host: str = "127.0.0.1",
    port: int = 8050,
    debug: bool = False,
    workers: int = 1,
    early=None,
    page_key: str | None = None,
) -> int:
    """Serve an app made by :func:`create_app` (see :func:`serve`). Everything made so far (the
    imports, the data, the layout: ~10^5 objects that live as long as the process) moves to
    the collector's permanent generation first (``gc.freeze``): collections during requests do
    not walk it again, and gunicorn's forked workers do not copy its pages by touching them.
    ``early``: the server listening since the start (``earlypage.EarlyServer``), which then
    serves the app; its page for ``/`` is kept under ``page_key`` for the next start."""
    warmer = getattr(app, "warmer", None)
    forks = bool(workers and workers > 1)
    if forks and warmer is not None:
        warmer()  # before the fork (and the freeze): the workers share its pages
    gc.freeze()
    gc.enable()  # ``ml-peg-like serve`` starts with the collector off (cli/serve.py)
    if forks:
        try:
            from gunicorn.app.base import BaseApplication
        except ImportError:  # pragma: no cover
            workers = 1
        else:

            class _App(BaseApplication):
                def load_config(self):
                    self.cfg.set("bind", f"{host}:{port}")
                    self.cfg.set("workers", workers)
                    # a state link with every threshold of a large board changed is 4-5 KB;
                    # gunicorn's default refuses a request line over 4,094 bytes
                    self.cfg.set("limit_request_line", GUNICORN_REQUEST_LINE)
                    # threads, not one request at a time per process: a few clients that send
                    # their request slowly hold a thread each, not a whole worker (8 such
                    # sockets stalled two sync workers for 30 s); a buffering reverse proxy
                    # in front is still the answer to many of them (docs/DEPLOY.md)
                    self.cfg.set("worker_class", "gthread")
                    self.cfg.set("threads", GUNICORN_THREADS)
                    if "control_socket_disable" in self.cfg.settings:
                        # gunicorn >= 27: one shared ~/.gunicorn/gunicorn.ctl per user would
                        # collide between two servers; nothing here uses it
                        self.cfg.set("control_socket_disable", True)

                def load(self):
                    return app.server

            _App().run()
            return 0
    if warmer is not None:
        # while the browser loads the page's scripts (~0.4 s), this process has little to do:
        # what the first page does not need is imported then, not on the first edit (warm.py)
        warmer.start()
    if early is not None:
        # the server listening since the start (earlypage.py) hands its requests to the app,
        # and the app's page is kept for the next start. The page is made first: Dash sets
        # itself up on its first request (it registers the assets' scripts then) and the held
        # requests go in at once; one of them could render the page before the assets are
        # registered (seen: a page without its asset scripts)
        page = first_page(app)
        early.adopt(app.server)
        if page_key and page is not None:
            keep_page(page_key, page)
        early.serve()
        return 0
    app.run(host=host, port=port, debug=debug, request_handler=request_handler())
    return 0


def first_page(app: dash.Dash) -> bytes | None:
    """The app's page for ``/`` (the first view's), as a browser gets it; None if not 200."""
    answer = app.server.test_client().get(app.config.requests_pathname_prefix)
    return answer.get_data() if answer.status_code == 200 else None
