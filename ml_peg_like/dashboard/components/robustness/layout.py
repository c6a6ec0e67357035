"""Robustness view: its layout pieces — the tau line (under the scores grid) and the panel (end
of the main area) — placed by the caller: :func:`layout` returns both."""

from __future__ import annotations

from dash import dcc, html

from ....robustness import (
    DEFAULT_CONCENTRATION,
    DEFAULT_SAMPLES,
    DEFAULT_THRESHOLD_JITTER,
    DEFAULT_TOP_K,
    concentration_help,
)
from ... import ids
from .callbacks import (
    MAX_CONCENTRATION,
    MAX_JITTER_PCT,
    MAX_SAMPLES,
    MAX_SEED,
    engine_token,
)
from .figures import tau_text

STALE_TEXT = "The settings have changed since this analysis: press “Run analysis” to follow them."


# ------------------------------------------------------------------------------------------------
# Layout
# ------------------------------------------------------------------------------------------------


def _field(label: str, id_: str, value, *, step, lo, hi, title: str, width: str = "86px"):
    return html.Label(
        [
            html.Span(label, className="rob-label"),
            dcc.Input(
                id=id_,
                type="number",
                value=value,
                min=lo,
                max=hi,
                step=step,
                debounce=False,
                className="rob-input",
                style={"width": width},
            ),
        ],
        className="rob-field",
        title=title,
    )


def robustness_panel(engine) -> html.Section:
    n_models = len(engine.models)
    controls = html.Div(
        [
            _field(
                "Samples",
                ids.ROB_SAMPLES,
                DEFAULT_SAMPLES,
                step=1,
                lo=1,
                hi=MAX_SAMPLES,
                title="Monte Carlo samples of the settings (more: steadier percentages, slower)",
                width="96px",
            ),
            _field(
                "Concentration",
                ids.ROB_CONCENTRATION,
                DEFAULT_CONCENTRATION,
                step="any",
                lo=0,
                hi=MAX_CONCENTRATION,
                title="Dirichlet concentration of the sampled weights. " + concentration_help(),
            ),
            _field(
                "Threshold jitter %",
                ids.ROB_JITTER,
                round(DEFAULT_THRESHOLD_JITTER * 100, 6),
                step="any",
                lo=0,
                hi=MAX_JITTER_PCT,
                title="Every good and bad threshold is moved by up to ± this percentage of its "
                "value, uniformly (0: thresholds fixed)",
            ),
            _field(
                "Top k",
                ids.ROB_TOP_K,
                min(DEFAULT_TOP_K, n_models),
                step=1,
                lo=1,
                hi=max(1, n_models),
                title="P(top k): the probability that a model ranks k-th or better",
                width="64px",
            ),
            _field(
                "Seed",
                ids.ROB_SEED,
                0,
                step=1,
                lo=0,
                hi=MAX_SEED,
                title="The same seed and settings give the same result",
                width="80px",
            ),
            html.Div(
                [
                    html.Button(
                        "Run analysis",
                        id=ids.ROB_RUN,
                        className="btn rob-run",
                        n_clicks=0,
                        title="Run the Monte Carlo on the current settings",
                    ),
                    html.Button(
                        "Cancel",
                        id=ids.ROB_CANCEL,
                        className="btn",
                        n_clicks=0,
                        disabled=True,
                        title="Stop the running analysis",
                    ),
                ],
                className="rob-buttons",
            ),
        ],
        className="rob-controls",
    )
    progress = html.Div(
        [
            html.Progress(id=ids.ROB_PROGRESS, value=0, max=1),
            html.Span(id=ids.ROB_PROGRESS_TEXT, className="rob-progress-text"),
        ],
        id=ids.ROB_PROGRESS_WRAP,
        className="rob-progress",
    )
    return html.Section(
        [
            html.Div(
                [
                    html.H2("Rank robustness", className="rob-h2"),
                    html.Span(
                        "How much does the ranking depend on the chosen weights and thresholds?",
                        className="rob-sub",
                    ),
                ],
                className="rob-head",
            ),
            html.P(
                "Each sample redraws every weight around its current value (Dirichlet, at every "
                "level) and moves every good / bad threshold by up to the jitter, then ranks the "
                "models again. The analysis uses the settings in force when you press Run.",
                className="rob-help",
            ),
            controls,
            progress,
            html.Div(id=ids.ROB_STALE, className="rob-stale"),
            html.Div(id=ids.ROB_MESSAGE),
            html.Div(
                html.P(
                    "Press “Run analysis” to see rank intervals, P(rank 1), P(top k), the "
                    "acceptability heat map and leave one out for the current settings.",
                    className="rob-empty",
                ),
                id=ids.ROB_RESULTS,
            ),
            # initial data not None: a memory Store re-sets a None ``data`` on mount, which
            # would fire the callbacks that take it as an input at every page load
            dcc.Store(id=ids.ROB_REQUEST, data={"n": 0}),
            dcc.Store(id=ids.ROB_META, data={}),
            dcc.Store(id=ids.ROB_TOKEN, data=engine_token(engine)),
            dcc.Store(id=ids.ROB_TEXTS, data={"stale": STALE_TEXT}),
        ],
        id=ids.ROB_SECTION,
        className="rob",
    )


def tau_line() -> html.Div:
    return html.Div(
        [
            html.Span(tau_text(1.0, 1.0), id=ids.ROB_TAU, className="rob-tau-text"),
            html.A("Rank robustness ↓", href="#robustness", className="rob-jump"),
        ],
        className="rob-tau",
        title="Rank correlation of the current overall ranking with the default settings' "
        "or, when a view is pinned, with the pinned view's (1 = same order, -1 = reversed; "
        "models without an overall score in either are left out)",
    )


def layout(engine) -> dict:
    """The view's two pieces for the caller to place (nothing searches the page tree):
    ``{"tau_line": ..., "panel": ...}`` — the tau line goes right after the scores grid, the
    panel at the end of the main area (its id, ``robustness``, is the tau line's link target)."""
    return {"tau_line": tau_line(), "panel": robustness_panel(engine)}
