"""The curve's x axis: linear or log, the range shown, the points pinned at its edges, and the
models that share a point (no Dash, no Plotly: numbers in, numbers out).

* **log or linear** (``xscale="auto"``): linear, unless the normaliser asks for a log axis
  (``log_x``: the speed-ups, whose rule is itself logarithmic) and the positive values (models'
  and thresholds') span more than :data:`LOG_SPAN_HINT` (a ratio), with at most a quarter of the
  models' values <= 0. A linear rule (``linear``, ``traffic_light``) stays on a linear axis
  however many decades its values span: its straight line drawn on a log axis reads as a
  curve, and its thresholds' spacing is lost. ``xscale="log"`` or ``"linear"`` (the user's
  choice) overrides it; log is refused when no value is positive;
* **range**: the thresholds and every model value within :data:`FENCE` interquartile ranges of
  the quartiles (in the axis' own space: log10 on a log axis) plus a margin; a value beyond it
  (or <= 0 on a log axis) is *pinned* at the nearer edge and keeps its true value for the hover;
* **groups**: models drawn at the same place (same shown x and score) form one point whose hover
  lists them all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

LOG_SPAN_HINT = 50.0  # a normaliser with log_x (speed-ups) gets a log axis from this ratio
FENCE = 3.0  # interquartile ranges beyond the quartiles before a value is an outlier
XSCALES = ("auto", "linear", "log")


@dataclass(frozen=True)
class Axis:
    log: bool
    lo: float  # the range shown, in data units
    hi: float
    auto_log: bool  # what "auto" would choose (the toggle says so)
    decades: float  # decades spanned by the positive values (0 when fewer than two)

    def place(self, x: float) -> tuple[float, int]:
        """Where ``x`` is drawn and whether it is pinned: (x shown, -1 left / 0 / +1 right)."""
        if not math.isfinite(x):
            return x, 0
        if self.log and x <= 0:
            return self.lo, -1
        if x < self.lo:
            return self.lo, -1
        if x > self.hi:
            return self.hi, 1
        return x, 0

    def place_all(self, xs) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`place` of every value of ``xs`` at once: (x shown, side) as arrays."""
        x = np.asarray(xs, dtype=float)
        finite = np.isfinite(x)
        left = finite & ((x <= 0) if self.log else False) | finite & (x < self.lo)
        right = finite & ~left & (x > self.hi)
        side = np.where(left, -1, np.where(right, 1, 0))
        return np.where(left, self.lo, np.where(right, self.hi, x)), side

    @property
    def plot_range(self) -> list[float]:
        """The axis range as Plotly takes it (log10 of the ends on a log axis)."""
        if self.log:
            return [math.log10(self.lo), math.log10(self.hi)]
        return [self.lo, self.hi]


def _decades(values: np.ndarray) -> float:
    pos = values[values > 0]
    if pos.size < 2:
        return 0.0
    return float(math.log10(pos.max() / pos.min()))


def _core(t: np.ndarray) -> tuple[float, float]:
    """The span of the values of ``t`` that are not outliers (beyond FENCE IQRs)."""
    q1, q3 = np.percentile(t, [25, 75])
    iqr = q3 - q1
    if iqr == 0:  # most values equal: no spread to judge outliers by
        return float(t.min()), float(t.max())
    keep = t[(t >= q1 - FENCE * iqr) & (t <= q3 + FENCE * iqr)]
    return float(keep.min()), float(keep.max())


def choose_axis(points, marks, *, xscale: str = "auto", log_hint: bool = False) -> Axis:
    """The axis for model values ``points`` and threshold positions ``marks`` (see module doc).
    ``xscale``: "auto", "linear" or "log" (log is refused when no value is positive)."""
    p = np.asarray(points, float).ravel()
    p = p[np.isfinite(p)]
    m = np.asarray(marks, float).ravel()
    m = m[np.isfinite(m)]
    allv = np.concatenate([p, m])
    decades = _decades(allv)
    nonpos = int((p <= 0).sum())
    auto_log = bool(
        log_hint
        and decades > math.log10(LOG_SPAN_HINT)
        and nonpos * 4 <= max(p.size, 1)
        and (allv > 0).any()
    )
    log = auto_log if xscale not in ("linear", "log") else xscale == "log"
    if log and not (allv > 0).any():
        log = False
    if allv.size == 0:
        return Axis(False, 0.0, 1.0, False, 0.0)
    if log:
        tp = np.log10(p[p > 0])
        tm = np.log10(m[m > 0])
    else:
        tp, tm = p, m
    if tp.size >= 4:
        lo, hi = _core(tp)
    elif tp.size:
        lo, hi = float(tp.min()), float(tp.max())
    else:
        lo, hi = math.inf, -math.inf
    if tm.size:
        lo, hi = min(lo, float(tm.min())), max(hi, float(tm.max()))
    if log:
        span = hi - lo
        pad = max(0.08 * span, 0.15)
        return Axis(True, 10 ** (lo - pad), 10 ** (hi + pad), auto_log, decades)
    span = hi - lo or max(abs(hi), 1.0)
    return Axis(False, lo - 0.12 * span, hi + 0.12 * span, auto_log, decades)


def group_points(xs, ys, digits: int = 9) -> list[list[int]]:
    """Indices of the points drawn at the same place (x and y equal to ``digits`` significant
    figures, a missing value equal to another), in order of first appearance
    (:func:`point_groups` as lists)."""
    firsts, shared = point_groups(xs, ys, digits)
    return [shared.get(g) or [i] for g, i in enumerate(firsts.tolist())]


def _near(v: np.ndarray, digits: int) -> np.ndarray:
    """Which values lie within ``10 ** (2 - digits)`` (relative) of another value (a missing
    value: always, they share the key None)."""
    n = v.size
    near = ~np.isfinite(v)
    order = np.argsort(v, kind="stable")
    sv = v[order]
    with np.errstate(invalid="ignore"):
        close = np.abs(np.diff(sv)) <= 10.0 ** (2 - digits) * np.maximum(
            np.abs(sv[1:]), np.abs(sv[:-1])
        )
    hit = np.zeros(n, dtype=bool)
    hit[:-1] |= close
    hit[1:] |= close
    near[order[hit]] = True
    return near


def point_groups(xs, ys, digits: int = 9) -> tuple[np.ndarray, dict[int, list[int]]]:
    """The points drawn at the same place (see :func:`group_points`) as (the first index of
    each group in order of first appearance, ``{group position: its indices}`` of the groups
    of more than one point).

    Only the points whose x lies within ``10 ** (2 - digits)`` (relative) of another point's x,
    and whose y of another's y, can share a place (two values equal to ``digits`` figures
    differ by at most a tenth of that; a value between them in sorted order is as near): the
    others are alone and their figures are never written out (10,000 points: a few ms where
    writing each out took ~70 ms)."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    n = x.size
    if y.size != n:
        raise ValueError("xs and ys differ in length")
    near = _near(x, digits)
    if near.any():
        cand = np.flatnonzero(near)
        near_y = np.zeros(n, dtype=bool)
        near_y[cand] = _near(y[cand], digits)
        near &= near_y
    if not near.any():
        return np.arange(n), {}
    groups: dict[tuple, list[int]] = {}
    first: dict[int, list[int]] = {}
    for i in np.flatnonzero(near).tolist():
        key = (_sig(float(x[i]), digits), _sig(float(y[i]), digits))
        g = groups.get(key)
        if g is None:
            g = groups[key] = first[i] = []
        g.append(i)
    # a group's position: its first index's place among the points that start a group
    starts = np.ones(n, dtype=bool)
    starts[near] = False
    starts[list(first)] = True
    firsts = np.flatnonzero(starts)
    pos = np.searchsorted(firsts, list(first)).tolist()
    shared = {p: g for p, g in zip(pos, first.values(), strict=True) if len(g) > 1}
    return firsts, shared


def _sig(v: float, digits: int):
    if v is None or not math.isfinite(v):
        return None
    return float(f"{v:.{digits}g}")
