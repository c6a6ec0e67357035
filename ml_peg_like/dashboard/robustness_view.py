"""The dashboard's Robustness view (issue 6): how far does the ranking rest on the settings?

``attach_robustness(app, engine)`` adds to an app built by :func:`create_app`

* a line under the scores table: Kendall tau (and Spearman rho) of the current overall ranking
  against the default one, updated on every edit by an ordinary light callback on the
  ``changes`` store (the engine's ranks: a model without an overall score ties last);
* a "Rank robustness" section at the end of the main area: controls (samples, Dirichlet
  concentration, threshold jitter %, top k, seed), a Run and a Cancel button, a progress bar,
  and the results of :func:`ml_peg_like.robustness.rank_robustness` on the *current* settings
  (the ``changes`` store read when Run is pressed): rank intervals per model (median and 5-95%),
  P(rank 1) and P(top k) bars, the rank-acceptability heat map, the leave-one-out table and a
  table of every model. A note says when the settings have changed since the run (computed in
  the browser: an edit costs one request for the tau line and nothing else).

The Monte Carlo runs as a Dash **background callback**, never in the request: the page stays
responsive, the progress bar follows the engine's ``progress(done, total)`` reports, Run is
disabled while it runs and Cancel stops it.

Background manager (pluggable):

* default: ``DiskcacheManager`` on a ``diskcache.Cache`` in ``cache_dir`` (argument), else
  ``$ML_PEG_LIKE_CACHE_DIR``, else ``<tmp>/ml-peg-like-cache-<uid>``. Jobs run in a forked
  process; no extra service. Needs ``dash[diskcache]`` (diskcache, multiprocess, psutil). All
  workers of one machine (gunicorn) must share the directory (they do with the default).
* ``$ML_PEG_LIKE_CELERY_BROKER`` set (e.g. ``redis://host:6379/0``): a ``CeleryManager`` with
  that broker and ``$ML_PEG_LIKE_CELERY_BACKEND`` (default: the broker URL) as result backend,
  for apps served from several machines. Needs ``dash[celery]`` and ``redis``. The Celery app is
  ``app.robustness_manager.handle``; a worker imports the module that builds the dashboard (so
  that the job is registered and the engine is known there too), e.g. with app.py exposing
  ``celery_app = app.robustness_manager.handle``::

      ML_PEG_LIKE_CELERY_BROKER=redis://localhost:6379/0 celery -A app:celery_app worker

* or pass any Dash background callback manager as ``manager=``.

The job finds its engine through a token (a hash of the default config and the raw values)
held in the page: a worker that built the same dashboard holds the same engine, and two apps
in one process never mix their data (Dash keys background jobs by source code and output ids,
so the last app registered would otherwise run for all of them).

Figures: plain Plotly dicts; data names (models, categories, benchmarks) are shown as text (the
three characters Plotly decodes, ``& < >``, are escaped), never as HTML or markdown. The
tables are plain ``html.Table`` (Dash renders their cells as text).
"""

from __future__ import annotations

import hashlib
import html as _html
import json
import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from dash import Input, Output, State, dcc, html, no_update
from dash.exceptions import PreventUpdate

from ..config import dump_config
from ..errors import ConfigError, MlPegLikeError
from ..robustness import (
    DEFAULT_CONCENTRATION,
    DEFAULT_SAMPLES,
    DEFAULT_THRESHOLD_JITTER,
    DEFAULT_TOP_K,
    RobustnessResult,
    kendall_tau,
    rank_robustness,
    spearman_rho,
)
from .jobs import make_manager, use_secret
from .state import clean_changes, try_changes

__all__ = [
    "acceptability_figure",
    "attach_robustness",
    "fmt_pct",
    "loo_table",
    "make_manager",
    "rank_figure",
    "results_view",
    "summary_table",
    "tau_text",
]

MAX_SAMPLES = 20_000  # a request above this is refused (about 50 s at 1,000 models x 1,000 metrics)
MAX_CONCENTRATION = 1e9
MAX_JITTER_PCT = 100.0
MAX_SEED = 2**32 - 1
MAX_PLOT_MODELS = 40  # the figures show the best this many models by current rank
MAX_HEAT_RANKS = 60  # ranks (columns) of the heat map
HEAT_TEXT_MAX = 25  # percentages written in the heat map's cells up to this many models x ranks
ROW_PX = 22  # figure height per model
NAME_CHARS = 30  # tick labels longer than this are shortened (hover shows the whole name)
POLL_MS = 500  # how often the browser asks for progress / the result
PROGRESS_EVERY_S = 0.15  # at most this often a progress report is written to the cache

ACCENT = "#0969da"
ACCENT_SOFT = "rgba(9,105,218,0.28)"
GREEN = "#1a7f37"
FG = "#1f2328"
MUTED = "#57606a"
GRID = "#eaeef2"
LINE = "#d0d7de"
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
HEAT_SCALE = [
    [0.0, "#ffffff"],
    [0.02, "#eef6ff"],
    [0.15, "#b6e3ff"],
    [0.4, "#54aeff"],
    [0.7, "#0969da"],
    [1.0, "#0a3069"],
]

#: engines by token (see the module docstring); filled by attach_robustness
_ENGINES: dict[str, Any] = {}


# ------------------------------------------------------------------------------------------------
# Formatting (pure)
# ------------------------------------------------------------------------------------------------


def _plain(s: Any) -> str:
    """Data as text in Plotly's pseudo-HTML labels: Plotly decodes ``&amp; &lt; &gt;`` only, so
    escaping those three shows any name literally (tags, entities and all)."""
    return _html.escape(str(s), quote=False)


def _short(s: str, n: int = NAME_CHARS) -> str:
    return s if len(s) <= n else s[: n - 1].rstrip() + "…"


def fmt_pct(p: Any) -> str:
    """A probability as a percentage: ``100%``, ``0%``, ``56.9%``; ``<0.1%`` / ``>99.9%`` for
    values that one decimal would round to 0 or 100; ``–`` when missing."""
    try:
        p = float(p)
    except (TypeError, ValueError):
        return "–"
    if not math.isfinite(p):
        return "–"
    p = round(p, 9)  # a sum of sample shares: 0.9999999999999 is 1
    if p >= 1.0:
        return "100%"
    if p <= 0.0:
        return "0%"
    if p < 0.0005:
        return "<0.1%"
    if p > 0.9995:
        return ">99.9%"
    return f"{p * 100:.1f}%"


def _fmt_num(v: Any, digits: int = 3) -> str:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return "n/a"
    return f"{v:.{digits}f}" if math.isfinite(v) else "n/a"


def queued_text(ahead: int) -> str:
    """The progress line of a job waiting for a free slot."""
    if ahead <= 0:
        return "Queued: next to start (the server runs a few analyses at a time)…"
    return f"Queued: {ahead:,} analyses ahead (the server runs a few at a time)…"


def tau_text(tau: Any, rho: Any = None) -> str:
    """The line under the scores table."""
    text = f"Kendall τ vs defaults: {_fmt_num(tau)}"
    if rho is not None:
        text += f" · Spearman ρ {_fmt_num(rho)}"
    return text


# ------------------------------------------------------------------------------------------------
# Figures (pure: summary / acceptability tables -> Plotly dicts)
# ------------------------------------------------------------------------------------------------

AXIS = dict(
    gridcolor=GRID,
    linecolor=LINE,
    zeroline=False,
    ticks="outside",
    tickcolor=LINE,
    automargin=False,
    fixedrange=True,
)


def _layout(height: int, **kw) -> dict:
    out = dict(
        height=height,
        font=dict(family=FONT, size=12, color=FG),
        paper_bgcolor="#ffffff",
        plot_bgcolor="#ffffff",
        hovermode="closest",
        hoverlabel=dict(bgcolor="#ffffff", font=dict(family=FONT, size=12)),
        dragmode=False,
    )
    out.update(kw)
    return out


def _shown(summary: pd.DataFrame, max_models: int) -> pd.DataFrame:
    """The first ``max_models`` rows (summary is sorted by current rank)."""
    return summary.iloc[: max(1, int(max_models))].reset_index(drop=True)


def _y_axis(names: list[str], **kw) -> dict:
    n = len(names)
    return dict(
        AXIS,
        range=[n - 0.5, -0.5],  # rank 1 on top
        tickmode="array",
        tickvals=list(range(n)),
        ticktext=[_plain(_short(m)) for m in names],
        showgrid=False,
        ticks="",
        **kw,
    )


def _title(text: str, x: float) -> dict:
    return dict(
        text=text,
        x=x,
        xref="paper",
        xanchor="left",
        y=1,
        yref="paper",
        yanchor="bottom",
        yshift=26,
        showarrow=False,
        font=dict(size=13, color=FG),
    )


def rank_figure(summary: pd.DataFrame, top_k: int, *, max_models: int = MAX_PLOT_MODELS) -> dict:
    """One row per model (current rank order, best on top): the median rank with its 5-95%
    interval and the current rank (left), P(rank 1) (middle) and P(top k) (right) as bars with
    their percentages written on them."""
    s = _shown(summary, max_models)
    n = len(s)
    n_all = len(summary)
    names = [str(m) for m in s["model"]]
    y = list(range(n))
    med = s["median_rank"].to_numpy(float)
    lo = s["rank_5"].to_numpy(float)
    hi = s["rank_95"].to_numpy(float)
    now = s["rank_now"].to_numpy(float)
    p1 = s["p_rank1"].to_numpy(float)
    pk = s["p_topk"].to_numpy(float)
    k = int(top_k)
    hover = [
        [
            _plain(m),
            int(r),
            int(md),
            int(a),
            int(b),
            f"{mean:.2f}",
            fmt_pct(x1),
            fmt_pct(xk),
        ]
        for m, r, md, a, b, mean, x1, xk in zip(
            names, now, med, lo, hi, s["mean_rank"], p1, pk, strict=True
        )
    ]
    tip = (
        "<b>%{customdata[0]}</b><br>current rank %{customdata[1]}<br>"
        "median rank %{customdata[2]} (5–95%: %{customdata[3]}–%{customdata[4]})<br>"
        "mean rank %{customdata[5]}<br>P(rank 1) %{customdata[6]} · "
        f"P(top {k}) " + "%{customdata[7]}<extra></extra>"
    )
    d1, d2, d3 = [0.0, 0.52], [0.57, 0.765], [0.805, 1.0]
    traces = [
        dict(
            type="scatter",
            x=med.tolist(),
            y=y,
            mode="markers",
            name="median rank, 5–95% interval",
            marker=dict(color=ACCENT, size=9, symbol="circle"),
            error_x=dict(
                type="data",
                symmetric=False,
                array=(hi - med).tolist(),
                arrayminus=(med - lo).tolist(),
                color=ACCENT_SOFT,
                thickness=7,
                width=0,
            ),
            customdata=hover,
            hovertemplate=tip,
            xaxis="x",
            yaxis="y",
        ),
        dict(
            type="scatter",
            x=now.tolist(),
            y=y,
            mode="markers",
            name="current rank",
            marker=dict(color=FG, size=11, symbol="line-ns-open", line=dict(width=2, color=FG)),
            customdata=hover,
            hovertemplate=tip,
            xaxis="x",
            yaxis="y",
        ),
    ]
    for p, color, ax, label in ((p1, ACCENT, "x2", "P(rank 1)"), (pk, GREEN, "x3", f"P(top {k})")):
        traces.append(
            dict(
                type="bar",
                orientation="h",
                x=(p * 100).tolist(),
                y=y,
                name=label,
                marker=dict(color=color),
                text=[fmt_pct(v) for v in p],
                textposition="outside",
                cliponaxis=False,
                textfont=dict(size=11, color=FG),
                customdata=hover,
                hovertemplate=tip,
                showlegend=False,
                xaxis=ax,
                yaxis="y",
            )
        )
    max_rank = max(int(np.nanmax(np.r_[hi, now, 1])), 1) if n else 1
    x_range = [0.4, max(max_rank, 2) + 0.6]
    rank_axis = dict(
        AXIS,
        domain=d1,
        range=x_range,
        title=dict(text="rank (1 = best)", standoff=6),
        **({"dtick": 1} if max_rank <= 25 else {}),
    )
    pct_axis = dict(
        AXIS,
        range=[0, 128],
        tickvals=[0, 50, 100],
        ticktext=["0", "50", "100%"],
        showgrid=True,
    )
    height = max(220, n * ROW_PX + 110)
    note = (
        f" (best {n} of {n_all} models by current rank)" if n < n_all else ""
    )  # the table lists all
    return dict(
        data=traces,
        layout=_layout(
            height,
            margin=dict(l=210, r=20, t=62, b=48),
            showlegend=True,
            legend=dict(
                orientation="h",
                x=0,
                y=1,
                yanchor="bottom",
                yref="paper",
                font=dict(size=11),
                bgcolor="rgba(0,0,0,0)",
            ),
            bargap=0.28,
            xaxis=rank_axis,
            xaxis2=dict(pct_axis, domain=d2, anchor="y"),
            xaxis3=dict(pct_axis, domain=d3, anchor="y"),
            yaxis=_y_axis(names),
            annotations=[
                _title("Rank distribution" + note, d1[0]),
                _title("P(rank 1)", d2[0]),
                _title(f"P(top {k})", d3[0]),
            ],
        ),
    )


def acceptability_figure(
    acceptability: pd.DataFrame,
    summary: pd.DataFrame,
    *,
    max_models: int = MAX_PLOT_MODELS,
    max_ranks: int = MAX_HEAT_RANKS,
) -> dict:
    """The rank-acceptability heat map: model (current rank order) x rank -> P(model at that
    rank), with the current rank outlined."""
    s = _shown(summary, max_models)
    names = [str(m) for m in s["model"]]
    n = len(names)
    acc = acceptability.loc[list(s["model"])].to_numpy(float) if n else np.zeros((0, 1))
    n_ranks_all = acc.shape[1]
    n_ranks = max(1, min(n_ranks_all, int(max_ranks)))
    acc = acc[:, :n_ranks]
    ranks = list(range(1, n_ranks + 1))
    pct = acc * 100
    # the colour scale ends at the largest shown probability (rounded up to 10%): a wide
    # distribution (many models, many ranks) stays readable; the colour bar says where it ends
    top = float(np.nanmax(pct)) if pct.size else 100.0
    zmax = float(min(100.0, max(10.0, math.ceil(top / 10.0 - 1e-9) * 10.0)))
    hover = [
        [f"{_plain(m)}: rank {r}: {fmt_pct(p)}" for r, p in zip(ranks, row, strict=True)]
        for m, row in zip(names, acc, strict=True)
    ]
    heat = dict(
        type="heatmap",
        z=np.round(pct, 4).tolist(),
        x=ranks,
        y=list(range(n)),
        zmin=0,
        zmax=zmax,
        colorscale=HEAT_SCALE,
        xgap=1,
        ygap=1,
        customdata=hover,
        hovertemplate="%{customdata}<extra></extra>",
        colorbar=dict(
            title=dict(text="%", side="top"),
            thickness=12,
            len=min(1.0, 260 / max(260, n * ROW_PX)),
            y=1,
            yanchor="top",
            outlinewidth=0,
        ),
    )
    if n * n_ranks <= HEAT_TEXT_MAX * HEAT_TEXT_MAX:
        heat["text"] = [[("" if p < 0.005 else fmt_pct(p).rstrip("%")) for p in row] for row in acc]
        heat["texttemplate"] = "%{text}"
        heat["textfont"] = dict(size=10)
    now = s["rank_now"].to_numpy(float)
    # the current rank: each model's cell outlined (shapes keep the number inside readable)
    shapes = [
        dict(
            type="rect",
            xref="x",
            yref="y",
            x0=r - 0.5,
            x1=r + 0.5,
            y0=i - 0.5,
            y1=i + 0.5,
            line=dict(color=FG, width=1.5),
            fillcolor="rgba(0,0,0,0)",
        )
        for i, r in enumerate(now)
        if r <= n_ranks
    ]
    legend_item = dict(  # a legend entry for the outlines (no data drawn)
        type="scatter",
        x=[None],
        y=[None],
        mode="markers",
        marker=dict(symbol="square-open", size=12, color=FG, line=dict(width=1.5)),
        name="current rank",
        hoverinfo="skip",
    )
    cut = []
    if n < len(summary):
        cut.append(f"best {n} of {len(summary)} models")
    if n_ranks < n_ranks_all:
        cut.append(f"ranks 1–{n_ranks} of {n_ranks_all}")
    title = "Rank acceptability: P(model at rank)" + (f" ({', '.join(cut)})" if cut else "")
    height = max(220, n * ROW_PX + 110)
    return dict(
        data=[heat, legend_item],
        layout=_layout(
            height,
            margin=dict(l=210, r=20, t=62, b=48),
            showlegend=True,
            legend=dict(
                orientation="h", x=0, y=1, yanchor="bottom", yref="paper", font=dict(size=11)
            ),
            xaxis=dict(
                AXIS,
                range=[0.5, n_ranks + 0.5],
                title=dict(text="rank (1 = best)", standoff=6),
                showgrid=False,
                **({"dtick": 1} if n_ranks <= 30 else {}),
            ),
            yaxis=_y_axis(names),
            annotations=[_title(title, 0.0)],
            shapes=shapes,
        ),
    )


# ------------------------------------------------------------------------------------------------
# Tables and the results block (pure)
# ------------------------------------------------------------------------------------------------


def _table(head: list[str], rows: list[list[Any]], klass: str, row_classes=None) -> html.Table:
    trs = []
    for i, r in enumerate(rows):
        cls = row_classes[i] if row_classes else None
        trs.append(html.Tr([html.Td(c) for c in r], className=cls))
    return html.Table(
        [html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(trs)],
        className=f"rob-table {klass}",
    )


def summary_rows(summary: pd.DataFrame) -> list[list[str]]:
    """Every model (current rank order): rank now, model, median, 5-95%, mean rank, P(rank 1),
    P(top k), as displayed."""
    out = []
    for r in summary.itertuples(index=False):
        out.append(
            [
                str(int(r.rank_now)),
                str(r.model),
                str(int(r.median_rank)),
                f"{int(r.rank_5)}–{int(r.rank_95)}",
                f"{float(r.mean_rank):.2f}",
                fmt_pct(r.p_rank1),
                fmt_pct(r.p_topk),
            ]
        )
    return out


def summary_table(summary: pd.DataFrame, top_k: int) -> html.Table:
    head = [
        "Rank now",
        "Model",
        "Median rank",
        "5–95%",
        "Mean rank",
        "P(rank 1)",
        f"P(top {top_k})",
    ]
    return _table(head, summary_rows(summary), "rob-summary")


LOO_HEAD = [
    "Removed",
    "What",
    "New top model",
    "Top changed?",
    "Kendall τ",
    "Largest rank change",
]


def loo_rows(loo: pd.DataFrame) -> list[list[str]]:
    """One row per removal, as displayed."""
    out = []
    for r in loo.itertuples(index=False):
        what = str(r.level)
        if r.also_removed:
            what += f" (and its category {r.also_removed}: no other benchmark)"
        change = int(r.max_rank_change)
        moved = f"{change} ({r.max_change_model})" if change and r.max_change_model else "0"
        out.append(
            [
                str(r.removed),
                what,
                str(r.new_top) if r.new_top else "none",
                "yes" if bool(r.top_changed) else "no",
                _fmt_num(r.kendall_tau),
                moved,
            ]
        )
    return out


def loo_table(loo: pd.DataFrame) -> html.Table | html.P:
    if loo is None or len(loo) == 0:
        return html.P(
            "Nothing to remove: a single category with a single benchmark.", className="rob-note"
        )
    classes = ["changed" if bool(t) else None for t in loo["top_changed"]]
    return _table(LOO_HEAD, loo_rows(loo), "rob-loo", classes)


def headline(result: RobustnessResult) -> list:
    """The run's key numbers, as text."""
    sc, st = result.scalars, result.settings
    n = int(sc["samples"])
    lines = []
    top = sc.get("top_model") or ""
    if top:
        p = sc.get("p_top_model_stays_first")
        tied = " = " in top
        lines.append(
            html.Div(
                [
                    html.Span("Top model now: ", className="rob-k"),
                    html.Strong(top, className="rob-top"),
                    f" — {'each ' if tied else ''}first in ",
                    html.Strong(fmt_pct(p), id="rob-p-top"),
                    f" of {n:,} samples.",
                ]
            )
        )
    else:
        lines.append(html.Div("No model has an overall score with these settings."))
    rho_med = sc.get("spearman_vs_current_median")
    rho_5 = sc.get("spearman_vs_current_5")
    if rho_med is not None:
        lines.append(
            html.Div(
                f"Sampled rankings vs the current one: Spearman ρ median {_fmt_num(rho_med)} "
                f"(5% quantile {_fmt_num(rho_5)})."
            )
        )
    n_loo = len(result.leave_one_out)
    if n_loo:
        ch = int(sc.get("leave_one_out_top_changes") or 0)
        lines.append(
            html.Div(
                f"Leave one out: {ch} of {n_loo} removals "
                f"change{'s' if ch == 1 else ''} the top model."
            )
        )
    tau = sc.get("kendall_tau_vs_default")
    if tau is not None:
        lines.append(html.Div(f"These settings vs the defaults: Kendall τ {_fmt_num(tau)}."))
    conc = float(st["concentration"])
    conc_text = "fixed" if math.isinf(conc) else f"Dirichlet, concentration {conc:g}"
    jit = float(st["threshold_jitter"]) * 100
    n_thr = int(sc.get("jittered_thresholds") or 0)
    thr_text = (
        f"{n_thr} good/bad pairs moved by up to ±{jit:g}%"
        + (
            f" ({int(sc['threshold_draws']):,} threshold draws)"
            if sc.get("threshold_draws")
            else ""
        )
        if jit > 0 and n_thr
        else "thresholds fixed"
    )
    secs = float(sc.get("seconds_monte_carlo") or 0) + float(sc.get("seconds_leave_one_out") or 0)
    lines.append(
        html.Div(
            f"{n:,} samples, seed {st['seed']}: weights {conc_text} at every level; {thr_text}. "
            f"{secs:.2f} s.",
            className="rob-method",
        )
    )
    return lines


def results_view(result: RobustnessResult) -> html.Div:
    """Everything a run shows: headline, rank figure, heat map, leave one out, all models."""
    k = int(result.settings["top_k"])
    graph_cfg = {"displaylogo": False, "responsive": True, "displayModeBar": False}
    rank_fig = rank_figure(result.summary, k)
    heat_fig = acceptability_figure(result.acceptability, result.summary)
    return html.Div(
        [
            html.Div(headline(result), className="rob-headline"),
            dcc.Graph(
                id="rob-rank-fig",
                figure=rank_fig,
                config=graph_cfg,
                style={"height": f"{rank_fig['layout']['height']}px"},
            ),
            dcc.Graph(
                id="rob-heat-fig",
                figure=heat_fig,
                config=graph_cfg,
                style={"height": f"{heat_fig['layout']['height']}px"},
            ),
            html.H3("Leave one out", className="rob-h3"),
            html.P(
                "The ranking with each category, and each benchmark, removed in turn (weight 0); "
                "Kendall τ against the current ranking.",
                className="rob-note",
            ),
            loo_table(result.leave_one_out),
            html.Details(
                [
                    html.Summary(f"Every model ({len(result.summary)}) as a table"),
                    summary_table(result.summary, k),
                ],
                className="rob-details",
            ),
        ],
        className="rob-results-inner",
    )


def _error(text: str) -> html.Div:
    return html.Div(text, className="rob-error", role="alert")


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
    """A stable name of an engine's data: the default config and the raw values."""
    h = hashlib.blake2b(digest_size=12)
    h.update(dump_config(engine.defaults).encode("utf-8"))
    h.update("\x00".join(engine.models).encode("utf-8"))
    h.update(np.ascontiguousarray(engine.values, dtype=float).tobytes())
    return h.hexdigest()


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


def tau_for(engine, changes: Any) -> tuple[float, float]:
    """Kendall tau and Spearman rho of the current overall ranking against the default one
    (the engine's ranks: missing overall scores tie last)."""
    clean = clean_changes(engine.defaults, changes)
    _cfg, scores = engine.scores_for(clean)
    base = engine.default_scores.ranks
    return kendall_tau(scores.ranks, base), spearman_rho(scores.ranks, base)


def tau_line_text(engine, changes: Any) -> str | None:
    """The tau line's text for a changes store (None when the changes are not valid)."""
    try:
        return tau_text(*tau_for(engine, changes))
    except (ValueError, ConfigError):
        return None


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
                "rob-samples",
                DEFAULT_SAMPLES,
                step=1,
                lo=1,
                hi=MAX_SAMPLES,
                title="Monte Carlo samples of the settings (more: steadier percentages, slower)",
                width="96px",
            ),
            _field(
                "Concentration",
                "rob-concentration",
                DEFAULT_CONCENTRATION,
                step="any",
                lo=0,
                hi=MAX_CONCENTRATION,
                title="Dirichlet concentration of the sampled weights around the current ones "
                "(larger: closer to the current weights)",
            ),
            _field(
                "Threshold jitter %",
                "rob-jitter",
                round(DEFAULT_THRESHOLD_JITTER * 100, 6),
                step="any",
                lo=0,
                hi=MAX_JITTER_PCT,
                title="Every good and bad threshold is moved by up to ± this percentage of its "
                "value, uniformly (0: thresholds fixed)",
            ),
            _field(
                "Top k",
                "rob-topk",
                min(DEFAULT_TOP_K, n_models),
                step=1,
                lo=1,
                hi=max(1, n_models),
                title="P(top k): the probability that a model ranks k-th or better",
                width="64px",
            ),
            _field(
                "Seed",
                "rob-seed",
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
                        id="rob-run",
                        className="btn rob-run",
                        n_clicks=0,
                        title="Run the Monte Carlo on the current settings",
                    ),
                    html.Button(
                        "Cancel",
                        id="rob-cancel",
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
            html.Progress(id="rob-progress", value=0, max=1),
            html.Span(id="rob-progress-text", className="rob-progress-text"),
        ],
        id="rob-progress-wrap",
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
            html.Div(id="rob-stale", className="rob-stale"),
            html.Div(id="rob-message"),
            html.Div(
                html.P(
                    "Press “Run analysis” to see rank intervals, P(rank 1), P(top k), the "
                    "acceptability heat map and leave one out for the current settings.",
                    className="rob-empty",
                ),
                id="rob-results",
            ),
            # initial data not None: a memory Store re-sets a None ``data`` on mount, which
            # would fire the callbacks that take it as an input at every page load
            dcc.Store(id="rob-request", data={"n": 0}),
            dcc.Store(id="rob-meta", data={}),
            dcc.Store(id="rob-token", data=engine_token(engine)),
        ],
        id="robustness",
        className="rob",
    )


STALE_TEXT = "The settings have changed since this analysis: press “Run analysis” to follow them."
STALE_JS = (
    """function (changes, meta) {
    const canon = (v) => {
        if (Array.isArray(v)) { return '[' + v.map(canon).join(',') + ']'; }
        if (v && typeof v === 'object') {
            return '{' + Object.keys(v).sort().map(
                (k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
        }
        return JSON.stringify(v === undefined ? null : v);
    };
    if (!meta || !('changes' in meta) || canon(meta.changes || {}) === canon(changes || {})) {
        return ['', 'rob-stale'];
    }
    return ["""
    + json.dumps(STALE_TEXT)
    + """, 'rob-stale on'];
}"""
)


def tau_line() -> html.Div:
    return html.Div(
        [
            html.Span(tau_text(1.0, 1.0), id="rob-tau", className="rob-tau-text"),
            html.A("Rank robustness ↓", href="#robustness", className="rob-jump"),
        ],
        className="rob-tau",
        title="Rank correlation of the current overall ranking with the default settings' "
        "(1 = same order, -1 = reversed)",
    )


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
    panel, line = robustness_panel(engine), tau_line()
    placed_line = placed_panel = False
    hit = _find_parent(layout, "grid-wrap")
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


# ------------------------------------------------------------------------------------------------
# Manager and wiring
# ------------------------------------------------------------------------------------------------


def attach_robustness(
    app, engine, *, manager=None, cache_dir=None, tau_callback: bool = True
) -> None:
    """Add the Robustness view to an app from ``create_app`` (see the module docstring):
    the tau line and the panel in the layout, and their callbacks. ``manager``: any Dash
    background callback manager (default: :func:`make_manager`). ``tau_callback=False``: no
    callback of its own for the tau line (one request per edit less), for an app whose main
    callback updates it in its own response, e.g. with
    ``dash.set_props("rob-tau", {"children": tau_line_text(engine, changes)})``."""
    if getattr(app, "_robustness_attached", False):
        return
    token = engine_token(engine)
    _ENGINES[token] = engine
    if manager is None:
        manager = make_manager(cache_dir)
    if getattr(manager, "secret", None) and not app.server.secret_key:
        use_secret(app, manager)
    if hasattr(manager, "on_busy"):  # the bounded queue: how "queued" and "busy" are shown
        manager.on_queued = lambda ahead: (0, 1, queued_text(ahead))
        manager.on_busy = lambda text: (no_update, no_update, _error(text))
    layout = app.layout
    if callable(layout):

        def wrapped(*a, **kw):
            return _insert(layout(*a, **kw), engine)

        app.layout = wrapped
    else:
        app.layout = _insert(layout, engine)

    # the Run click writes a request with a nonce: two sessions running the same settings at the
    # same time get distinct job keys (Dash keys a job by its arguments)
    app.clientside_callback(
        """function (n) {
            if (!n) { return window.dash_clientside.no_update; }
            return {n: n, t: Date.now(), r: Math.random().toString(36).slice(2)};
        }""",
        Output("rob-request", "data"),
        Input("rob-run", "n_clicks"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output("rob-results", "children"),
        Output("rob-meta", "data"),
        Output("rob-message", "children"),
        Input("rob-request", "data"),
        State("changes", "data"),
        State("rob-samples", "value"),
        State("rob-concentration", "value"),
        State("rob-jitter", "value"),
        State("rob-topk", "value"),
        State("rob-seed", "value"),
        State("rob-token", "data"),
        background=True,
        manager=manager,
        running=[
            (Output("rob-run", "disabled"), True, False),
            (Output("rob-cancel", "disabled"), False, True),
            (Output("rob-progress-wrap", "className"), "rob-progress on", "rob-progress"),
        ],
        progress=[
            Output("rob-progress", "value"),
            Output("rob-progress", "max"),
            Output("rob-progress-text", "children"),
        ],
        progress_default=[0, 1, ""],
        cancel=[Input("rob-cancel", "n_clicks")],
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
        return results_view(result), meta, None

    if tau_callback:

        @app.callback(
            Output("rob-tau", "children"),
            Input("changes", "data"),
            prevent_initial_call=True,
        )
        def update_tau(changes):
            text = tau_line_text(engine, changes)
            if text is None:
                raise PreventUpdate
            return text

    # in the browser: an edit costs no extra request (the changes store is compared with the
    # one the shown analysis ran on)
    app.clientside_callback(
        STALE_JS,
        Output("rob-stale", "children"),
        Output("rob-stale", "className"),
        Input("changes", "data"),
        Input("rob-meta", "data"),
        prevent_initial_call=True,
    )

    app.robustness_manager = manager
    app._robustness_attached = True
