"""The missing-data bar above the table: the policy switch (``invalidate`` / ``skip``), the
categories that override it, and, whenever some models have no overall score, a line saying how
many and why, with a button that applies ``skip``.

The policy is an ordinary change (``{"": {"missing": policy}}``, :data:`~ml_peg_like.config.ROOT`);
the edit callback applies it (:func:`policy_changes`) and fills the bar (:func:`overrides_text`,
:func:`no_score_line`). Policy names and their meaning are :mod:`ml_peg_like.aggregation`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from dash import dcc, html, no_update

from .... import aggregation as agg
from ....config import ROOT, Config
from ....scoring import Scores
from ... import a11y, ids
from ...state import Changes
from ..page import summary_line

LABELS = {
    agg.INVALIDATE: "invalidate (a missing part makes the parent missing)",
    agg.SKIP: "skip (average what is present, with coverage)",
}


def policy_changes(changes: Changes, policy: Any, cfg: Config | None = None) -> Changes:
    """``changes`` with the config's policy set to ``policy`` (a name of aggregation.POLICIES;
    the engine validates it). With ``cfg``, every category override that differs is set too
    (the "use skip" button: no part stays invalidated)."""
    new = {p: dict(f) for p, f in changes.items()}
    new.setdefault(ROOT, {})["missing"] = policy
    if cfg is not None:
        for c in cfg.categories:
            if c.missing and c.missing != policy:
                new.setdefault(c.name, {})["missing"] = policy
    return new


def overrides_text(cfg: Config) -> str:
    """The categories whose policy differs from the config's ("" when none)."""
    parts = [
        f"{c.name}: {c.missing}" for c in cfg.categories if c.missing and c.missing != cfg.missing
    ]
    where = " (per category: the overview's category table)"
    return ("Overrides: " + ", ".join(parts) + where) if parts else ""


def missing_summary(scores: Scores) -> dict[str, Any]:
    """How many models have no overall score and why: ``{"n", "total", "policy", "codes":
    {reason code: count}, "parts": [(category, models missing it)]}`` (counts of the
    positive-weight categories missing for the models without an overall score)."""
    plan = scores.plan
    no = np.isnan(scores.overall_scores)
    codes = agg.reasons(
        scores.cat_scores, plan.w_cat, np.zeros(1, dtype=np.intp), scores.overall_scores[:, None]
    )[:, 0]
    used = plan.w_cat > 0
    miss = np.isnan(scores.cat_scores[no]) & used
    parts = [(plan.categories[j], int(miss[:, j].sum())) for j in np.flatnonzero(miss.any(0))]
    parts.sort(key=lambda t: -t[1])
    vals, counts = np.unique(codes[no], return_counts=True)
    return {
        "n": int(no.sum()),
        "total": len(scores.models),
        "policy": scores.config.missing,
        "codes": {int(v): int(c) for v, c in zip(vals, counts, strict=True)},
        "parts": parts,
    }


def no_score_text(summary: Mapping[str, Any]) -> str:
    """The sentence of :func:`missing_summary` ("" when every model has an overall score)."""
    n = summary["n"]
    if not n:
        return ""
    who = f"{n} of {summary['total']} models have no overall score"
    why = []
    inval = summary["codes"].get(agg.INVALIDATED, 0)
    if inval:
        parts = ", ".join(f"{name} for {k}" for name, k in summary["parts"][:4])
        more = f" and {len(summary['parts']) - 4} more" if len(summary["parts"]) > 4 else ""
        why.append(
            f"{inval} because a category is missing under policy '{summary['policy']}' "
            f"({agg.REASON_TEXT[agg.INVALIDATED].split(':')[0]}; missing: {parts}{more})"
        )
    none = summary["codes"].get(agg.NO_DATA, 0)
    if none:
        why.append(f"{none}: {agg.REASON_TEXT[agg.NO_DATA]} in any category")
    excl = summary["codes"].get(agg.EXCLUDED, 0)
    if excl:
        why.append(f"{excl}: {agg.REASON_TEXT[agg.EXCLUDED]}")
    return who + ": " + "; ".join(why) + "."


def offers_skip(scores: Scores, summary: Mapping[str, Any] | None = None) -> bool:
    """Whether the "use skip" button is offered: some models lost their overall score to a
    missing part, and a policy of the config or a category is not ``skip`` (``summary``:
    :func:`missing_summary` of ``scores`` when the caller has it)."""
    cfg = scores.config
    if not agg.is_skip(cfg.missing) or any(not agg.is_skip(cfg.policy(c)) for c in cfg.categories):
        summary = missing_summary(scores) if summary is None else summary
        return bool(summary["codes"].get(agg.INVALIDATED, 0))
    return False


def bar_state(scores: Scores) -> dict[str, Any]:
    """The parts of the bar that follow the scores: the line's text, the button's style, the
    switch's value and the overrides' text (the edit callback's outputs)."""
    summary = missing_summary(scores)  # once for the text and the button
    return {
        "text": no_score_text(summary),
        "button": SHOWN if offers_skip(scores, summary) else HIDDEN,
        "value": scores.config.missing,
        "overrides": overrides_text(scores.config),
    }


def fill(
    out: dict[str, Any], switch_value: Any, scores: Scores, shown: Scores | None = None
) -> None:
    """The edit callback's outputs of the bar and of the header's summary (which names the
    policy) for ``scores``; the switch is sent only when it differs from ``switch_value``, the
    rest only when it differs from the bar of ``shown`` (the scores the page shows, if known)."""
    bar = bar_state(scores)
    if bar["value"] != switch_value:
        out["policy"] = bar["value"]
    out["overrides"] = bar["overrides"]
    out["no_score"] = bar["text"]
    out["skip_style"] = bar["button"]
    out["summary"] = summary_line(scores.config, scores)
    if shown is not None:
        before: dict[str, Any] = {}
        fill(before, switch_value, shown)
        for k in ("overrides", "no_score", "skip_style", "summary"):
            if before[k] == out[k]:
                out[k] = no_update


HIDDEN = {"display": "none"}
SHOWN: dict[str, str] = {}


def layout(scores: Scores) -> html.Div:
    """The bar: the switch, the overrides, the no-score line and its button."""
    st = bar_state(scores)
    return html.Div(
        [
            html.Div(
                [
                    html.Span("Missing data", className="tlabel", title="The missing-data policy"),
                    dcc.RadioItems(
                        id=ids.MISSING_POLICY,
                        options=[{"label": LABELS[p], "value": p} for p in agg.POLICIES],
                        value=st["value"],
                        inline=True,
                        className="policy-toggle",
                    ),
                    html.Span(st["overrides"], id=ids.POLICY_OVERRIDES, className="overrides"),
                ],
                className="policy-row",
                **{a11y.ATTR_GROUP: "Missing-data policy"},
            ),
            html.Div(
                [
                    html.Span(st["text"], id=ids.NO_SCORE, className="no-score-text"),
                    html.Button(
                        "Use 'skip': average what is present",
                        id=ids.MISSING_SKIP,
                        className="btn",
                        n_clicks=0,
                        style=st["button"],
                        title="Set the missing-data policy to 'skip' (a coverage column shows "
                        "how much of the weight each score rests on)",
                    ),
                ],
                className="no-score",
                role="status",
            ),
        ],
        className="policy-bar",
    )
