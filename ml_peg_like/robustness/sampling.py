"""The random settings of the Monte Carlo: Dirichlet weights and jittered normaliser parameters.

Weights: per group ``w' = Dirichlet(c * w / sum(w)) * sum(w)`` (see :class:`DirichletLevel`).

Parameters: the parameters a normaliser declares jitterable (``Normaliser.jitter_params()``:
good/bad of threshold normalisers, Weibull ``b``/``c``, ``max_speedup``, a user's own) are moved
independently and uniformly by up to +-x times their scale. A good/bad pair uses the
``jitter_scale`` rule (``value``: its own magnitude, ``|good - bad|`` for a threshold equal to 0;
``span``: ``|good - bad|``) and is redrawn while it would make ``good == bad`` or swap the
direction. Any other parameter's scale is its own magnitude (``span`` too: it has no partner), and
it is redrawn while it breaks its declared bounds (``positive``, ``greater_than``). After
``MAX_REDRAWS`` rejected redraws a slot keeps its current value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..normalisers import BAD, GOOD, get_normaliser
from ..scoring import Plan

WEIGHT_FLOOR = 1e-12  # a sampled positive weight is at least this fraction of its group's total
MAX_REDRAWS = 64


def weight_spread(concentration: float, n: int) -> float:
    """One standard deviation of a sampled weight, as a fraction of the weight, in a group of
    ``n`` equal positive weights: ``sqrt((n - 1) / (c + 1))``, from the Dirichlet's variance
    ``a_i (a_0 - a_i) / (a_0^2 (a_0 + 1))`` with ``a_i = c / n``, ``a_0 = c`` (0 when the
    weights stay fixed: ``c`` infinite or a single weight)."""
    if n < 2 or not math.isfinite(concentration):
        return 0.0
    return math.sqrt((n - 1) / (concentration + 1))


class DirichletLevel:
    """Dirichlet resampling of one level's weights within contiguous groups."""

    def __init__(self, w: np.ndarray, starts: np.ndarray, concentration: float):
        self.w = w
        n = w.size
        sizes = np.diff(np.r_[starts, n])
        group_of = np.repeat(np.arange(starts.size), sizes)
        pos = w > 0
        npos = np.bincount(group_of[pos], minlength=starts.size)
        sel = pos & (npos[group_of] >= 2)
        self.idx = np.flatnonzero(sel)
        if not math.isfinite(concentration):
            self.idx = self.idx[:0]
        grp = group_of[self.idx]
        if self.idx.size:
            self.seg = np.flatnonzero(np.r_[True, grp[1:] != grp[:-1]])
            self.seg_id = np.repeat(np.arange(self.seg.size), np.diff(np.r_[self.seg, grp.size]))
            totals = np.bincount(group_of, weights=w, minlength=starts.size)
            self.tot = totals[grp]
            self.alpha = concentration * w[self.idx] / self.tot
            self.w_sel = w[self.idx]

    def draw(self, gen: np.random.Generator, R: int) -> np.ndarray:
        out = np.tile(self.w, (R, 1))
        if not self.idx.size:
            return out
        g = gen.standard_gamma(self.alpha, size=(R, self.idx.size))
        sums = np.add.reduceat(g, self.seg, axis=1)
        ok = (sums > 0) & np.isfinite(sums)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = g / sums[:, self.seg_id]
        w = share * self.tot
        np.maximum(w, WEIGHT_FLOOR * self.tot, out=w)
        w = np.where(ok[:, self.seg_id], w, self.w_sel)
        out[:, self.idx] = w
        return out


def draw_thresholds(gen, g0, b0, sg, sb, x) -> tuple[np.ndarray, np.ndarray]:
    """One threshold draw: good/bad moved by U(-x, x) * scale, invalid pairs redrawn."""
    k = g0.size
    u = gen.uniform(-1.0, 1.0, size=(2, k))
    g = g0 + x * sg * u[0]
    b = b0 + x * sb * u[1]
    want = np.sign(g0 - b0)
    bad = np.sign(g - b) != want
    for _ in range(MAX_REDRAWS):
        if not bad.any():
            break
        j = np.flatnonzero(bad)
        u = gen.uniform(-1.0, 1.0, size=(2, j.size))
        g[j] = g0[j] + x * sg[j] * u[0]
        b[j] = b0[j] + x * sb[j] * u[1]
        bad[j] = np.sign(g[j] - b[j]) != want[j]
    if bad.any():
        g[bad] = g0[bad]
        b[bad] = b0[bad]
    return g, b


def draw_bounded(gen, p0, scale, low, x) -> np.ndarray:
    """One draw of single parameters: p0 + U(-x, x) * scale, redrawn while not > ``low``."""
    p = p0 + x * scale * gen.uniform(-1.0, 1.0, size=p0.size)
    bad = ~(p > low)
    for _ in range(MAX_REDRAWS):
        if not bad.any():
            break
        j = np.flatnonzero(bad)
        p[j] = p0[j] + x * scale[j] * gen.uniform(-1.0, 1.0, size=j.size)
        bad[j] = ~(p[j] > low[j])
    p[bad] = p0[bad]
    return p


@dataclass
class ParameterJitter:
    """Which normaliser parameters move, and how (over the jittered metric columns).

    ``cols``: the jittered metric columns; ``values[name]``: every resolved parameter of their
    normalisers, (n_jit,) with NaN where a column's normaliser has no such parameter;
    ``moved[name]``: the slots that move. :meth:`draw` returns ``values`` with the moved slots
    replaced by one draw.
    """

    cols: np.ndarray
    values: dict[str, np.ndarray]
    moved: dict[str, np.ndarray]
    pair: np.ndarray  # slots whose good/bad move as a pair
    scale: dict[str, np.ndarray]
    low: dict[str, np.ndarray]
    x: float

    @property
    def n_moved(self) -> int:
        """How many parameter values move."""
        return int(sum(int(m.sum()) for m in self.moved.values()))

    def draw(self, gen: np.random.Generator) -> dict[str, np.ndarray]:
        out = {k: v.copy() for k, v in self.values.items()}
        p = self.pair
        if p.any():
            g, b = draw_thresholds(
                gen,
                self.values["good"][p],
                self.values["bad"][p],
                self.scale["good"][p],
                self.scale["bad"][p],
                self.x,
            )
            out["good"][p] = g
            out["bad"][p] = b
        for name in sorted(self.moved):
            m = self.moved[name] & ~p if name in ("good", "bad") else self.moved[name]
            if m.any():
                out[name][m] = draw_bounded(
                    gen, self.values[name][m], self.scale[name][m], self.low[name][m], self.x
                )
        return out


def _lower_bound(spec) -> float:
    low = -math.inf
    if spec.positive:
        low = 0.0
    if spec.greater_than is not None:
        low = max(low, float(spec.greater_than))
    return low


def parameter_jitter(
    plan: Plan, resolved: dict, counts: np.ndarray, x: float, jitter_scale: str
) -> ParameterJitter:
    """The parameters to move: every jitterable parameter of a metric that counts (``counts``:
    positive weight along its path) with a finite resolved value (good/bad: finite and
    different). ``x`` = 0 moves nothing."""
    P = counts.size
    full: dict[str, np.ndarray] = {}  # name -> (P,) resolved values
    movable: dict[str, np.ndarray] = {}  # name -> (P,) bool
    specs: dict[str, object] = {"good": GOOD, "bad": BAD}
    declared_pair = np.zeros(P, dtype=bool)  # good and bad both jitterable: they move together
    for name, cols, _static, _dyn in plan.groups:
        norm = get_normaliser(name)
        res = resolved.get(name, {})
        jit = set(norm.jitter_params())
        declared_pair[cols] = {"good", "bad"} <= jit
        for pn, arr in res.items():
            full.setdefault(pn, np.full(P, np.nan))[cols] = arr
            movable.setdefault(pn, np.zeros(P, dtype=bool))
            spec = norm.param(pn)
            if pn in jit and spec is not None:
                specs.setdefault(pn, spec)
                movable[pn][cols] = np.isfinite(arr)
    pair = np.zeros(P, dtype=bool)
    if "good" in full and "bad" in full:
        g, b = full["good"], full["bad"]
        pair = declared_pair & movable["good"] & movable["bad"] & (g != b)
        movable["good"] = np.where(declared_pair, pair, movable["good"])
        movable["bad"] = np.where(declared_pair, pair, movable["bad"])
    scale_full: dict[str, np.ndarray] = {}
    for pn, v in full.items():
        with np.errstate(invalid="ignore"):
            scale_full[pn] = np.abs(v)
    if pair.any():
        g, b = full["good"], full["bad"]
        span = np.abs(g - b)
        if jitter_scale == "span":
            sg = sb = span
        else:
            sg = np.where(g != 0, np.abs(g), span)
            sb = np.where(b != 0, np.abs(b), span)
        scale_full["good"] = np.where(pair, sg, scale_full["good"])
        scale_full["bad"] = np.where(pair, sb, scale_full["bad"])
    for pn in movable:  # a single parameter with scale 0 cannot move
        single = movable[pn] & ~pair if pn in ("good", "bad") else movable[pn]
        movable[pn] &= ~(single & ~(scale_full[pn] > 0))
    any_moved = np.zeros(P, dtype=bool)
    for m in movable.values():
        any_moved |= m
    any_moved &= counts
    if not x > 0:
        any_moved[:] = False
    cols = np.flatnonzero(any_moved)
    moved = {pn: m[cols] for pn, m in movable.items() if m[cols].any()}
    return ParameterJitter(
        cols=cols,
        values={pn: v[cols] for pn, v in full.items()},
        moved=moved,
        pair=pair[cols],
        scale={pn: scale_full[pn][cols] for pn in full},
        low={pn: np.full(cols.size, _lower_bound(specs[pn])) for pn in moved},
        x=float(x),
    )
