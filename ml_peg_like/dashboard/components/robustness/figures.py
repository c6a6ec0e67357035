"""Robustness view: text formatting and the Plotly figures (plain dicts; data names shown as
text, the three characters Plotly decodes, ``& < >``, escaped)."""

from __future__ import annotations

import html as _html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ....support.lazy import lazy_module

pd = lazy_module("pandas")  # imported on first use: the first page needs none

MAX_PLOT_MODELS = 40  # the figures show the best this many models by current rank
MAX_HEAT_RANKS = 60  # ranks (columns) of the heat map
HEAT_TEXT_MAX = 25  # percentages written in the heat map's cells up to this many models x ranks
ROW_PX = 22  # figure height per model
NAME_CHARS = 30  # tick labels longer than this are shortened (hover shows the whole name)

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


def tau_text(tau: Any, rho: Any = None, against: str = "defaults") -> str:
    """The line under the scores table (``against``: what the ranking is compared with)."""
    text = f"Kendall τ vs {against}: {_fmt_num(tau)}"
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
    """The first ``max_models`` ranked rows (summary is sorted by current rank; a model without
    an overall score has no rank and no rank statistics: not drawn)."""
    ranked = summary[summary["rank_now"].notna()]
    return ranked.iloc[: max(1, int(max_models))].reset_index(drop=True)


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


def rank_figure(
    summary: pd.DataFrame,
    top_k: int,
    *,
    max_models: int = MAX_PLOT_MODELS,
    names: Mapping[str, str] | None = None,
) -> dict:
    """One row per model (current rank order, best on top): the median rank with its 5-95%
    interval and the current rank (left), P(rank 1) (middle) and P(top k) (right) as bars with
    their percentages written on them."""
    s = _shown(summary, max_models)
    n = len(s)
    n_all = len(summary)
    names = [(names or {}).get(str(m), str(m)) for m in s["model"]]  # display names
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
    names: Mapping[str, str] | None = None,
) -> dict:
    """The rank-acceptability heat map: model (current rank order) x rank -> P(model at that
    rank), with the current rank outlined."""
    s = _shown(summary, max_models)
    names = [(names or {}).get(str(m), str(m)) for m in s["model"]]  # display names
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
