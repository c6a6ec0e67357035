"""The curve figure's layout parts: the threshold lines and their labels, the default thresholds
drawn faintly, the shaded stability bands, the subtitle and the x axis (plain dicts, no Dash).
``assets/curve.js`` builds the same parts in the browser; this module is the reference."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping

from ..normalisers import Mark
from ..numfmt import fmt_raw
from .curve_axis import Axis

GOOD = "#1a7f37"
BAD = "#cf222e"
#: the colour of a curve mark's line, by :class:`~ml_peg_like.normalisers.Mark` kind (others
#: set the axis range only)
MARK_COLOURS = {"good": GOOD, "bad": BAD}
#: the shaded band of a threshold's stability interval, by field
BAND_COLOURS = {"good": "rgba(26,127,55,0.10)", "bad": "rgba(207,34,46,0.10)"}
NOTE_BG = "rgba(255,255,255,0.85)"
#: a default threshold's line and label: faint (the current thresholds are what the curve is)
DEFAULT_OPACITY = 0.45
DEFAULT_LABEL_OPACITY = 0.75
ROW = 0.085  # the height of a label's row (paper units)
#: a label is anchored on its right when its line lies beyond the middle of the plot by more
#: than this (a line at the middle, as when one threshold alone sets a symmetric range, is
#: anchored left whatever the last bit of its logarithm)
MIDDLE = 0.5 + 1e-9
#: the tick labels of a log x axis: numbers written in full (0.02 and 0.2, not Plotly's "2"
#: for every digit between decades), d3's significant-digit format with trailing zeros trimmed
LOG_TICKFORMAT = "~r"


def _esc(s: str) -> str:
    return html.escape(s, quote=False)


def _fraction(axis: Axis, x: float) -> float:
    """Where ``x`` lies across the plot (0 left, 1 right)."""
    lo, hi = axis.lo, axis.hi
    if hi == lo:
        return 0.5
    if axis.log:
        return (math.log10(x) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
    return (x - lo) / (hi - lo)


def _vline(x: float, colour: str, dash: str, width: float) -> dict:
    return dict(
        type="line",
        x0=x,
        x1=x,
        y0=0,
        y1=1,
        yref="paper",
        line=dict(color=colour, width=width, dash=dash),
    )


def _label(axis: Axis, x: float, y: float, text: str, colour: str, top: bool) -> dict:
    """A label at ``x`` (shown place), anchored on the side that keeps it inside the plot."""
    anchor = "right" if _fraction(axis, x) > MIDDLE else "left"
    return dict(
        x=math.log10(x) if axis.log else x,  # annotations on a log axis take log10
        y=y,
        yref="paper",
        text=text,
        showarrow=False,
        font=dict(color=colour, size=12),
        bgcolor=NOTE_BG,
        yanchor="top" if top else "bottom",
        xanchor=anchor,
        xshift=4 if anchor == "left" else -4,
    )


def mark_lines(marks: list[Mark], axis: Axis) -> tuple[list[dict], list[dict]]:
    """(shapes, annotations) of the good/bad marks: a dashed line each (dotted when off the
    axis, at its edge) and its label stacked from the top (one row each: they never overlap)."""
    shapes, notes = [], []
    lines = sorted((m for m in marks if m.kind in MARK_COLOURS), key=lambda m: m.x)
    for row, mark in enumerate(lines):
        colour = MARK_COLOURS[mark.kind]
        mx, side = axis.place(mark.x)
        shapes.append(_vline(mx, colour, "dot" if side else "dash", 2))
        text = f"{_esc(mark.label)} {fmt_raw(mark.x)}" + (" (off axis)" if side else "")
        notes.append(_label(axis, mx, 0.99 - ROW * row, text, colour, top=True))
    return shapes, notes


def default_lines(
    defaults: Mapping[str, float] | None, params: Mapping[str, float], axis: Axis
) -> tuple[list[dict], list[dict]]:
    """(shapes, annotations) of the default thresholds (``{"good": x, "bad": x}``, the config's)
    that differ from the current ones (``params``): a thin dotted line at low opacity each,
    labelled "default good X" / "default bad X" from the bottom of the plot (the current
    thresholds' labels stack from the top)."""
    if not defaults:
        return [], []
    fields = [
        f
        for f in ("good", "bad")
        if isinstance(defaults.get(f), int | float)
        and math.isfinite(defaults[f])
        and defaults[f] != params.get(f)
    ]
    shapes, notes = [], []
    for row, f in enumerate(sorted(fields, key=lambda f: defaults[f])):
        x = float(defaults[f])
        mx, side = axis.place(x)
        line = _vline(mx, MARK_COLOURS[f], "dot", 1.5)
        line.update(opacity=DEFAULT_OPACITY, name=f"default {f}")
        shapes.append(line)
        text = f"default {f} {fmt_raw(x)}" + (" (off axis)" if side else "")
        note = _label(axis, mx, 0.01 + ROW * row, text, MARK_COLOURS[f], top=False)
        note["opacity"] = DEFAULT_LABEL_OPACITY
        notes.append(note)
    return shapes, notes


def bands(band: Mapping[str, tuple[float, float]], lo: float, hi: float) -> list[dict]:
    """Shaded rectangles over ``[low, high]`` of each threshold (clipped to the axis range)."""
    out = []
    for field, (low, high) in band.items():
        if field not in BAND_COLOURS or not (low <= high):
            continue
        x0, x1 = max(low, lo), min(high, hi)
        if x0 > x1:
            continue
        out.append(
            dict(
                type="rect",
                x0=x0,
                x1=x1,
                y0=0,
                y1=1,
                yref="paper",
                fillcolor=BAND_COLOURS[field],
                line=dict(width=0),
                layer="below",
                name=f"{field}: leader holds",
            )
        )
    return out


def subtitle(
    normaliser: str,
    params: Mapping[str, float],
    *,
    missing: int,
    log: bool,
    pinned: int,
    unresolved: Mapping[str, str],
) -> str:
    """The line under the title: the normaliser and its other parameters, then what the reader
    should know (models without a value, a log axis, points pinned, thresholds unresolved)."""
    ptxt = ", ".join(f"{k} = {fmt_raw(v)}" for k, v in params.items() if k not in ("good", "bad"))
    sub = f"{normaliser}" + (f" ({ptxt})" if ptxt else "")
    if missing:
        sub += f" · {missing} model{'s' if missing > 1 else ''} without a value"
    if log:
        sub += " · log x"
    if pinned:
        sub += f" · {pinned} beyond the axis (▸ at its edge)"
    for why in unresolved.values():
        sub += f" · not scored: {why}"
    return sub


def x_axis_parts(axis: Axis, unit: str) -> dict:
    """The x axis' own settings: its title, type, range, and tick labels written in full (no SI
    prefix or exponent that hides the decade; on a log axis :data:`LOG_TICKFORMAT`)."""
    out = dict(
        title=dict(text=f"raw value{unit}"),
        type="log" if axis.log else "linear",
        range=axis.plot_range,
        exponentformat="none",
    )
    if axis.log:
        out["tickformat"] = LOG_TICKFORMAT
    return out
