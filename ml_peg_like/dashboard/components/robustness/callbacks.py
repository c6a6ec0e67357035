"""Robustness view: the job and the light callbacks' logic (testable without Dash context),
and :func:`register` (the background job, the Run nonce, the stale note, the tau line)."""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import ClientsideFunction, Input, Output, State, no_update
from dash.exceptions import PreventUpdate

from ....config import config_to_dict
from ....errors import ConfigError, MlPegLikeError
from ....robustness import kendall_tau, rank_robustness, spearman_rho
from ....serving.jobs import use_secret
from ... import ids
from ...state import clean_changes, try_changes
from .figures import queued_text, tau_text
from .tables import _error, results_view

MAX_SAMPLES = 20_000  # a request above this is refused (about 50 s at 1,000 models x 1,000 metrics)
MAX_CONCENTRATION = 1e9
MAX_JITTER_PCT = 100.0
MAX_SEED = 2**32 - 1
POLL_MS = 500  # how often the browser asks for progress / the result
PROGRESS_EVERY_S = 0.15  # at most this often a progress report is written to the cache

#: engines by token (see :func:`engine_token`); filled by :func:`register`
_ENGINES: dict[str, Any] = {}


# ------------------------------------------------------------------------------------------------
# Settings from the page (checked: anything from the client may be forged)
# ------------------------------------------------------------------------------------------------


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        v = float(value)
    elif isinstance(value, str) and len(value) <= 40:
        try:
            v = float(value)
        except ValueError:
            return None
    else:
        return None
    return v if not math.isnan(v) else None


def parse_controls(samples, concentration, jitter_pct, top_k, seed) -> tuple[dict, list[str]]:
    """The run's keyword arguments for rank_robustness, and the problems (as text)."""
    problems = []
    kw: dict[str, Any] = {}

    def integer(v, name, lo, hi):
        x = _num(v)
        if x is None or not x.is_integer() or not lo <= x <= hi:
            problems.append(f"{name}: a whole number from {lo:,} to {hi:,}")
            return None
        return int(x)

    kw["samples"] = integer(samples, "Samples", 1, MAX_SAMPLES)
    kw["top_k"] = integer(top_k, "Top k", 1, 100_000)
    kw["seed"] = integer(seed, "Seed", 0, MAX_SEED)
    c = _num(concentration)
    if c is None or not 0 < c <= MAX_CONCENTRATION:
        problems.append(f"Concentration: a number > 0 and at most {MAX_CONCENTRATION:g}")
    kw["concentration"] = c
    j = _num(jitter_pct)
    if j is None or not 0 <= j <= MAX_JITTER_PCT:
        problems.append(f"Threshold jitter: a percentage from 0 to {MAX_JITTER_PCT:g}")
    kw["threshold_jitter"] = None if j is None else j / 100.0
    return kw, problems


# ------------------------------------------------------------------------------------------------
# The job and the light callbacks' logic (no Dash context needed: testable directly)
# ------------------------------------------------------------------------------------------------


def engine_token(engine) -> str:
    """A stable name of an engine's data: the default config and the raw values (computed once
    per engine: JSON of the config, not YAML, whose pure-Python emitter took 0.1-0.3 s)."""
    token = getattr(engine, "_engine_token", None)
    if token is None:
        h = hashlib.blake2b(digest_size=12)
        text = json.dumps(config_to_dict(engine.defaults), default=repr, allow_nan=True)
        h.update(text.encode("utf-8"))
        h.update("\x00".join(engine.models).encode("utf-8"))
        h.update(np.ascontiguousarray(engine.values, dtype=float).tobytes())
        token = h.hexdigest()
        try:
            engine._engine_token = token
        except AttributeError:  # an engine with __slots__: computed each time
            pass
    return token


def run_analysis(engine, changes: Any, controls: Mapping[str, Any], progress=None):
    """(result, None) or (None, message): rank_robustness on defaults + changes."""
    kw, problems = parse_controls(
        controls.get("samples"),
        controls.get("concentration"),
        controls.get("jitter"),
        controls.get("top_k"),
        controls.get("seed"),
    )
    if problems:
        return None, "Check the settings: " + "; ".join(problems) + "."
    try:
        clean = clean_changes(engine.defaults, changes)
        cfg = try_changes(engine.defaults, clean)
    except (ValueError, ConfigError):
        return None, "The current settings are not valid: fix them and run again."
    kw["top_k"] = min(kw["top_k"], len(engine.models))
    try:
        result = rank_robustness(engine.raw, cfg, default=engine.defaults, progress=progress, **kw)
    except MlPegLikeError as exc:
        return None, f"The analysis could not run: {exc}"
    return result, None


def tau_for(engine, changes: Any, baseline: Any = None) -> tuple[float, float]:
    """Kendall tau and Spearman rho of the current overall ranking against the baseline's
    (``baseline``: pinned changes; None: the defaults). The engine's ranks: a model without an
    overall score has no rank and is left out."""
    clean = clean_changes(engine.defaults, changes)
    _cfg, scores = engine.scores_for(clean)
    if baseline:
        base = engine.scores_for(clean_changes(engine.defaults, baseline))[1].ranks
    else:
        base = engine.default_scores.ranks
    return kendall_tau(scores.ranks, base), spearman_rho(scores.ranks, base)


def tau_line_text(engine, changes: Any, baseline: Any = None) -> str | None:
    """The tau line's text for a changes store and the pinned baseline (None when either is
    not valid)."""
    against = "pinned view" if baseline else "defaults"
    try:
        return tau_text(*tau_for(engine, changes, baseline), against=against)
    except (ValueError, ConfigError):
        return None


def register(app, engine, manager) -> None:
    """The view's callbacks on ``app`` for the dashboard's score cache ``engine``: the Run nonce
    and the stale note (browser side, ``assets/robustness.js``) and the Monte Carlo as a
    background callback on ``manager`` (see :mod:`ml_peg_like.serving.jobs`; a bounded manager
    is told how to show "queued" and "busy"; the app signs its job handles with the manager's
    secret). The tau line has no callback: the edit callback fills it in its own response
    (:func:`tau_line_text`, handed in by ``create_app``)."""
    if getattr(manager, "secret", None) and not app.server.secret_key:
        use_secret(app, manager)
    _ENGINES[engine_token(engine)] = engine
    if hasattr(manager, "on_busy"):  # the bounded queue: how "queued" and "busy" are shown
        manager.on_queued = lambda ahead: (0, 1, queued_text(ahead))
        manager.on_busy = lambda text: (no_update, no_update, _error(text))

    # the Run click writes a request with a nonce: two sessions running the same settings at the
    # same time get distinct job keys (Dash keys a job by its arguments)
    app.clientside_callback(
        ClientsideFunction("robustness", "request"),
        Output(ids.ROB_REQUEST, "data"),
        Input(ids.ROB_RUN, "n_clicks"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output(ids.ROB_RESULTS, "children"),
        Output(ids.ROB_META, "data"),
        Output(ids.ROB_MESSAGE, "children"),
        Input(ids.ROB_REQUEST, "data"),
        State(ids.CHANGES, "data"),
        State(ids.ROB_SAMPLES, "value"),
        State(ids.ROB_CONCENTRATION, "value"),
        State(ids.ROB_JITTER, "value"),
        State(ids.ROB_TOP_K, "value"),
        State(ids.ROB_SEED, "value"),
        State(ids.ROB_TOKEN, "data"),
        background=True,
        manager=manager,
        running=[
            (Output(ids.ROB_RUN, "disabled"), True, False),
            (Output(ids.ROB_CANCEL, "disabled"), False, True),
            (Output(ids.ROB_PROGRESS_WRAP, "className"), "rob-progress on", "rob-progress"),
        ],
        progress=[
            Output(ids.ROB_PROGRESS, "value"),
            Output(ids.ROB_PROGRESS, "max"),
            Output(ids.ROB_PROGRESS_TEXT, "children"),
        ],
        progress_default=[0, 1, ""],
        cancel=[Input(ids.ROB_CANCEL, "n_clicks")],
        interval=POLL_MS,
        prevent_initial_call=True,
    )
    def robustness_job(set_progress, request, changes, samples, conc, jitter, top_k, seed, tok):
        if not isinstance(request, dict) or not request.get("n"):
            raise PreventUpdate
        eng = _ENGINES.get(tok) if isinstance(tok, str) else None
        if eng is None:
            return (
                no_update,
                no_update,
                _error("This server does not hold the data of this page: reload the page."),
            )
        last = [0.0]

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if done >= total or now - last[0] >= PROGRESS_EVERY_S:
                last[0] = now
                set_progress((done, max(total, 1), f"{done:,} / {total:,} samples"))

        set_progress((0, 1, "Starting…"))
        controls = dict(samples=samples, concentration=conc, jitter=jitter, top_k=top_k, seed=seed)
        try:
            result, message = run_analysis(eng, changes, controls, progress=report)
        except Exception as exc:  # never a traceback in the page; one line for the user
            return no_update, no_update, _error(f"The analysis failed: {type(exc).__name__}.")
        if result is None:
            return no_update, no_update, _error(message)
        # the changes store as it was (compared in the browser to say when it differs)
        meta = {"changes": changes, "samples": int(result.settings["samples"])}
        return results_view(result, getattr(eng, "display", None)), meta, None

    # in the browser: an edit costs no extra request (the changes store is compared with the
    # one the shown analysis ran on)
    app.clientside_callback(
        ClientsideFunction("robustness", "stale"),
        Output(ids.ROB_STALE, "children"),
        Output(ids.ROB_STALE, "className"),
        Input(ids.CHANGES, "data"),
        Input(ids.ROB_META, "data"),
        State(ids.ROB_TEXTS, "data"),
        prevent_initial_call=True,
    )
