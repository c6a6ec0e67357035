"""The normalisation-curve figure: raw value -> score for one metric, with every model on it."""

from __future__ import annotations

import html
import math

import numpy as np

from ..config import Metric
from ..normalisers import apply_normaliser
from ..scoring import Scores
from .tables import fmt_raw, resolved_params, score_digits, unresolved_thresholds

GOOD = "#1a7f37"
BAD = "#cf222e"
CURVE = "#0969da"
#: the colour of a curve mark's line, by :class:`~ml_peg_like.normalisers.Mark` kind (others
#: set the axis range only)
MARK_COLOURS = {"good": GOOD, "bad": BAD}
CURVE_POINTS = 121
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'


def _text(s: str) -> str:
    """Data as text in Plotly's pseudo-HTML labels: ``& < >`` escaped (Plotly decodes those three
    entities; it shows ``&quot;`` literally, and a quote outside a tag needs no escaping)."""
    return html.escape(s, quote=False)


AXIS = dict(
    gridcolor="#eaeef2",
    linecolor="#d0d7de",
    zeroline=False,
    ticks="outside",
    tickcolor="#d0d7de",
    automargin=False,  # fixed margins: automargin costs a second layout pass on every update
)


def _base_layout(**kw) -> dict:
    layout = dict(
        height=320,
        margin=dict(l=60, r=24, t=58, b=50),
        font=dict(family=FONT, size=12, color="#1f2328"),
        paper_bgcolor="#ffffff",
        plot_bgcolor="#ffffff",
        showlegend=False,
        hovermode="closest",
        hoverlabel=dict(bgcolor="#ffffff", font=dict(family=FONT, size=12)),
    )
    layout.update(kw)
    return layout


def empty_figure(message: str = "") -> dict:
    """A blank figure (plain dict: Dash sends it without plotly.py's validation)."""
    notes = (
        [dict(text=_text(message), showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")]
        if message
        else []
    )
    return dict(
        data=[],
        layout=_base_layout(
            xaxis=dict(visible=False), yaxis=dict(visible=False), annotations=notes
        ),
    )


def _floats(a) -> list:
    return [None if not math.isfinite(v) else round(float(v), 12) for v in np.asarray(a, float)]


def _grid(lo: float, hi: float, log: bool, marks: list[float]) -> np.ndarray:
    if log:
        g = np.geomspace(lo, hi, CURVE_POINTS)
    else:
        g = np.linspace(lo, hi, CURVE_POINTS)
    extra = []
    for m in marks:
        if math.isfinite(m) and lo <= m <= hi:
            extra += [np.nextafter(m, -np.inf), m, np.nextafter(m, np.inf)]
    return np.unique(np.concatenate([g, np.asarray(extra, dtype=float)]))


def curve_figure(scores: Scores, path: str) -> dict:
    """The curve of the metric at ``path`` with its resolved parameters, the good/bad thresholds
    as vertical lines (speed-up normalisers: the parameters in the title) and a point per model."""
    cfg = scores.config
    try:
        metric = cfg.node(path)
    except KeyError:
        return empty_figure("Pick a metric")
    if not isinstance(metric, Metric):
        return empty_figure("Pick a metric")
    full = cfg.full_path(path)
    j = cfg.metric_paths().index(full)
    norm = metric.norm
    params = resolved_params(scores, j)
    x = scores.raw_values[:, j]
    s = scores.metric_scores[:, j]
    ok = ~np.isnan(x)
    xs = x[ok]
    marks = norm.curve_marks(params)
    unresolved = unresolved_thresholds(scores, j)
    pts = np.concatenate([xs, np.asarray([m.x for m in marks], dtype=float)])
    if pts.size == 0:
        return empty_figure("No data for this metric")
    lo, hi = float(pts.min()), float(pts.max())
    log = bool(norm.log_x and lo > 0 and hi / lo > 50)
    if log:
        lo, hi = lo / 1.5, hi * 1.5
    else:
        span = hi - lo or max(abs(hi), 1.0)
        lo, hi = lo - 0.12 * span, hi + 0.12 * span
    grid = _grid(lo, hi, log, [m.x for m in marks])
    if unresolved:
        curve = np.full(grid.shape, np.nan)  # no threshold, no curve (said in the title)
    else:
        arr = {k: np.asarray([v]) for k, v in params.items()}
        with np.errstate(all="ignore"):
            curve = apply_normaliser(norm, grid[:, None], arr)[:, 0]
    scale = cfg.scale
    names = [_text(m) for m, keep in zip(scores.models, ok, strict=True) if keep]
    # the hover text does not change with the settings (name, raw value); the score comes from
    # the point's y, so an edit sends only the new y values (``curve_patch``)
    text = [f"<b>{n}</b><br>raw: {fmt_raw(float(v))}" for n, v in zip(names, xs, strict=True)]
    ys = np.round(np.where(np.isnan(s[ok]), np.nan, s[ok] * scale), 6)  # plotted, shown to 3
    data = [
        dict(
            type="scatter",
            x=_floats(grid),
            y=_floats(curve * scale),
            mode="lines",
            line=dict(color=CURVE, width=2),
            name="score curve",
            hoverinfo="skip",
        ),
        dict(
            type="scatter",
            x=_floats(xs),
            y=_floats(ys),
            mode="markers",
            marker=dict(size=9, color="#ffffff", line=dict(color="#1f2328", width=1.5)),
            name="models",
            text=text,
            hovertemplate=f"%{{text}}<br>score: %{{y:.{score_digits(scale)}f}}<extra></extra>",
        ),
    ]
    shapes: list[dict] = []
    notes: list[dict] = []
    lines = [m for m in marks if m.kind in MARK_COLOURS]
    for mark in lines:
        color = MARK_COLOURS[mark.kind]
        others = [o.x for o in lines if o is not mark]
        # the label sits on the outer side of its line, so close marks do not collide
        anchor = "left" if not others or mark.x >= max(others) else "right"
        shapes.append(
            dict(
                type="line",
                x0=mark.x,
                x1=mark.x,
                y0=0,
                y1=1,
                yref="paper",
                line=dict(color=color, width=2, dash="dash"),
            )
        )
        notes.append(
            dict(
                x=mark.x,
                y=1.0,
                yref="paper",
                text=f"{_text(mark.label)} {fmt_raw(mark.x)}",
                showarrow=False,
                font=dict(color=color, size=12),
                yanchor="bottom",
                xanchor=anchor,
                xshift=3 if anchor == "left" else -3,
            )
        )
    unit = f" [{_text(metric.unit)}]" if metric.unit else ""
    ptxt = ", ".join(f"{k} = {fmt_raw(v)}" for k, v in params.items() if k not in ("good", "bad"))
    missing = int((~ok).sum())
    sub = f"{metric.normaliser}" + (f" ({ptxt})" if ptxt else "")
    if missing:
        sub += f" · {missing} model{'s' if missing > 1 else ''} without a value"
    for why in unresolved.values():
        sub += f" · not scored: {why}"
    layout = _base_layout(
        title=dict(
            text=f"{_text(metric.name)}{unit}<br><span style='font-size:12px;color:#57606a'>"
            f"{_text(sub)}</span>",
            x=0.01,
            xanchor="left",
            y=0.97,
            font=dict(size=14),
        ),
        shapes=shapes,
        annotations=notes,
        xaxis=dict(
            AXIS,
            title=dict(text=f"raw value{unit}"),
            type="log" if log else "linear",
            range=[math.log10(lo), math.log10(hi)] if log else [lo, hi],
        ),
        yaxis=dict(AXIS, title=dict(text="score"), range=[-0.06 * scale, 1.1 * scale]),
    )
    return dict(data=data, layout=layout)


def curve_patch(figure: dict):
    """A Dash ``Patch`` turning the curve of the same metric (same models, same raw values:
    the same points' x and hover text) into ``figure``: the curve, the points' y and the layout."""
    from dash import Patch

    p = Patch()
    p["data"][0] = figure["data"][0]
    p["data"][1]["y"] = figure["data"][1]["y"]
    p["layout"] = figure["layout"]
    return p
