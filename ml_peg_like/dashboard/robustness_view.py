"""The dashboard's Robustness view (issue 6) — compatibility front of the component
``dashboard/components/robustness_*`` (ids, figures, tables, layout, callbacks) and of the
background jobs (:mod:`ml_peg_like.dashboard.jobs`).

* a line under the scores table: Kendall tau (and Spearman rho) of the current overall ranking
  against the default one, updated on every edit;
* a "Rank robustness" section at the end of the main area: controls (samples, Dirichlet
  concentration, threshold jitter %, top k, seed), Run and Cancel, a progress bar (with a
  "queued" line while the job waits for a free slot), and the results of
  :func:`ml_peg_like.robustness.rank_robustness` on the current settings: rank intervals,
  P(rank 1), P(top k), the rank-acceptability heat map, leave one out, every model; a note when
  the settings changed since the run (computed in the browser, ``assets/robustness.js``).

The Monte Carlo runs as a Dash background callback on the manager of
:func:`ml_peg_like.dashboard.jobs.make_manager` (private signed diskcache with a bounded queue,
or Celery on Redis). The job finds its engine through a token (a hash of the default config and
the raw values) held in the page: a worker that built the same dashboard holds the same engine,
and two apps in one process never mix their data.

New code composes the component directly: ``robustness_layout.layout(engine)`` gives the tau
line and the panel to place, ``robustness_callbacks.register(app, engine, manager)`` wires them.
:func:`attach_robustness` does both on a finished layout (it looks for the scores grid).
"""

from __future__ import annotations

from dash import html

from .components import robustness_ids as ids
from .components.robustness_callbacks import (
    _ENGINES,
    MAX_CONCENTRATION,
    MAX_JITTER_PCT,
    MAX_SAMPLES,
    MAX_SEED,
    POLL_MS,
    engine_token,
    parse_controls,
    register,
    run_analysis,
    tau_for,
    tau_line_text,
)
from .components.robustness_figures import (
    MAX_HEAT_RANKS,
    MAX_PLOT_MODELS,
    acceptability_figure,
    fmt_pct,
    queued_text,
    rank_figure,
    tau_text,
)
from .components.robustness_layout import STALE_TEXT, robustness_panel, tau_line
from .components.robustness_layout import layout as layout_pieces
from .components.robustness_tables import (
    headline,
    loo_rows,
    loo_table,
    results_view,
    summary_rows,
    summary_table,
)
from .jobs import make_manager, use_secret

__all__ = [
    "MAX_CONCENTRATION",
    "MAX_HEAT_RANKS",
    "MAX_JITTER_PCT",
    "MAX_PLOT_MODELS",
    "MAX_SAMPLES",
    "MAX_SEED",
    "POLL_MS",
    "STALE_TEXT",
    "_ENGINES",
    "acceptability_figure",
    "attach_robustness",
    "engine_token",
    "fmt_pct",
    "headline",
    "layout_pieces",
    "loo_rows",
    "loo_table",
    "make_manager",
    "parse_controls",
    "queued_text",
    "rank_figure",
    "register",
    "results_view",
    "robustness_panel",
    "run_analysis",
    "summary_rows",
    "summary_table",
    "tau_for",
    "tau_line",
    "tau_line_text",
    "tau_text",
]


def _find_parent(node, target: str, depth: int = 0):
    """(parent children list, index) of the component with id ``target``, else None."""
    if depth > 60:
        return None
    ch = getattr(node, "children", None)
    items = ch if isinstance(ch, list) else [ch] if ch is not None else []
    for i, c in enumerate(items):
        if getattr(c, "id", None) == target:
            if isinstance(ch, list):
                return ch, i
            node.children = [c]
            return node.children, 0
        found = _find_parent(c, target, depth + 1) if hasattr(c, "children") else None
        if found:
            return found
    return None


def _insert(layout, engine):
    """The existing layout with the tau line after the scores grid and the panel at the end
    of the main area (when they are found), else both appended after it."""
    pieces = layout_pieces(engine)
    panel, line = pieces["panel"], pieces["tau_line"]
    placed_line = placed_panel = False
    hit = _find_parent(layout, ids.GRID_WRAP)
    if hit:
        siblings, i = hit
        siblings.insert(i + 1, line)
        placed_line = True
        siblings.append(panel)  # the main area's last child
        placed_panel = True
    extra = [x for x, ok in ((line, placed_line), (panel, placed_panel)) if not ok]
    if extra:
        return html.Div([layout, html.Div(extra, className="rob-outside")])
    return layout


def attach_robustness(
    app, engine, *, manager=None, cache_dir=None, tau_callback: bool = True
) -> None:
    """Add the Robustness view to an app from ``create_app``: the tau line and the panel in its
    layout (after the scores grid; appended when not found), and their callbacks. ``manager``:
    any Dash background callback manager (default: ``jobs.make_manager(cache_dir)``; the app then
    signs its job handles with the manager's in-memory secret). ``tau_callback=False``: no tau
    callback of its own (the main callback fills ``rob-tau`` with :func:`tau_line_text`)."""
    if getattr(app, "_robustness_attached", False):
        return
    if manager is None:
        manager = make_manager(cache_dir)
    if getattr(manager, "secret", None) and not app.server.secret_key:
        use_secret(app, manager)
    layout = app.layout
    if callable(layout):

        def wrapped(*a, **kw):
            return _insert(layout(*a, **kw), engine)

        app.layout = wrapped
    else:
        app.layout = _insert(layout, engine)
    register(app, engine, manager, tau_callback=tau_callback)
    app.robustness_manager = manager
    app._robustness_attached = True
