"""Robustness view: the result tables and the results panel (plain ``html.Table``: Dash renders
cells as text)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from dash import dcc, html

from ....models import shown_names
from ....robustness import RobustnessResult
from ....support.lazy import lazy_module
from ... import ids
from .figures import (
    _fmt_num,
    acceptability_figure,
    fmt_pct,
    rank_figure,
)

pd = lazy_module("pandas")  # imported on first use: the first page needs none

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


Names = Mapping[str, str] | None


def shown(models: Any, names: Names = None) -> str:
    """A model key (or tied keys joined by " = ") by its display name (``models.shown_names``)."""
    return shown_names(models, names)


def summary_rows(summary: pd.DataFrame, names: Names = None) -> list[list[str]]:
    """Every model (current rank order): rank now, model (its display name from ``names``),
    median, 5-95%, mean rank, P(rank 1), P(top k), as displayed."""
    out = []
    for r in summary.itertuples(index=False):
        if pd.isna(r.rank_now):  # no overall score: no rank, no rank statistics
            dash = "\u2014"
            out.append([dash, shown(r.model, names), dash, dash, dash, dash, dash])
            continue
        out.append(
            [
                str(int(r.rank_now)),
                shown(r.model, names),
                str(int(r.median_rank)),
                f"{int(r.rank_5)}–{int(r.rank_95)}",
                f"{float(r.mean_rank):.2f}",
                fmt_pct(r.p_rank1),
                fmt_pct(r.p_topk),
            ]
        )
    return out


def summary_table(summary: pd.DataFrame, top_k: int, names: Names = None) -> html.Table:
    head = [
        "Rank now",
        "Model",
        "Median rank",
        "5–95%",
        "Mean rank",
        "P(rank 1)",
        f"P(top {top_k})",
    ]
    return _table(head, summary_rows(summary, names), "rob-summary")


LOO_HEAD = [
    "Removed",
    "What",
    "New top model",
    "Top changed?",
    "Kendall τ",
    "Largest rank change",
]


def loo_rows(loo: pd.DataFrame, names: Names = None) -> list[list[str]]:
    """One row per removal, as displayed (models by their display names from ``names``)."""
    out = []
    for r in loo.itertuples(index=False):
        what = str(r.level)
        if r.also_removed:
            what += f" (and its category {r.also_removed}: no other benchmark)"
        change = int(r.max_rank_change)
        who = shown(r.max_change_model, names)
        moved = f"{change} ({who})" if change and who else "0"
        out.append(
            [
                str(r.removed),
                what,
                shown(r.new_top, names) if r.new_top else "none",
                "yes" if bool(r.top_changed) else "no",
                _fmt_num(r.kendall_tau),
                moved,
            ]
        )
    return out


def loo_table(loo: pd.DataFrame, names: Names = None) -> html.Table | html.P:
    if loo is None or len(loo) == 0:
        return html.P(
            "Nothing to remove: a single category with a single benchmark.", className="rob-note"
        )
    classes = ["changed" if bool(t) else None for t in loo["top_changed"]]
    return _table(LOO_HEAD, loo_rows(loo, names), "rob-loo", classes)


def headline(result: RobustnessResult, names: Names = None) -> list:
    """The run's key numbers, as text (models by their display names from ``names``)."""
    sc, st = result.scalars, result.settings
    n = int(sc["samples"])
    lines = []
    top = sc.get("top_model") or ""
    if top:
        p = sc.get("p_top_model_stays_first")
        tied = " = " in top and top not in (names or {})
        lines.append(
            html.Div(
                [
                    html.Span("Top model now: ", className="rob-k"),
                    html.Strong(shown(top, names), className="rob-top"),
                    f" — {'each ' if tied else ''}first in ",
                    html.Strong(fmt_pct(p), id=ids.ROB_P_TOP),
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


def results_view(result: RobustnessResult, names: Mapping[str, str] | None = None) -> html.Div:
    """Everything a run shows: headline, rank figure, heat map, leave one out, all models.
    ``names``: ``{key: display name}`` of the models in the texts and the figures."""
    k = int(result.settings["top_k"])
    graph_cfg = {"displaylogo": False, "responsive": True, "displayModeBar": False}
    rank_fig = rank_figure(result.summary, k, names=names)
    heat_fig = acceptability_figure(result.acceptability, result.summary, names=names)
    return html.Div(
        [
            html.Div(headline(result, names), className="rob-headline"),
            dcc.Graph(
                id=ids.ROB_RANK_FIG,
                figure=rank_fig,
                config=graph_cfg,
                style={"height": f"{rank_fig['layout']['height']}px"},
            ),
            dcc.Graph(
                id=ids.ROB_HEAT_FIG,
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
            loo_table(result.leave_one_out, names),
            html.Details(
                [
                    html.Summary(f"Every model ({len(result.summary)}) as a table"),
                    summary_table(result.summary, k, names),
                ],
                className="rob-details",
            ),
        ],
        className="rob-results-inner",
    )


def _error(text: str) -> html.Div:
    return html.Div(text, className="rob-error", role="alert")
