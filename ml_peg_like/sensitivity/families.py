"""Every editable value as a family of one-parameter functions: overall score of each model vs t.

A *family* is a set of editable values of one kind (all weights; the ``bad`` thresholds of the
``linear`` metrics; ...) with, for each, the current value ``t0`` and the open domain ``(lo, hi)``
it may move in. It answers two questions, vectorised over models and values:

- ``ev(rows, cols, t)``: the overall score of model ``rows`` when value ``cols`` is set to ``t``
  (everything else as configured; NaN when the model then has no overall score);
- ``candidates(i, cols)``: for the pair (model ``i``, every model ``j``), the values of ``t`` at
  which ``i`` and ``j`` may change order (shape ``(n_models, len(cols), C)``, NaN padded). Between
  two consecutive candidates the order of the pair is constant.

Weights: along one weight every overall score is ``(p + q t) / (r + s t)`` for ``t > 0`` (a ratio
of linear functions, under both missing policies) and a separate value at ``t = 0`` (a weight-0
child is ignored even when missing), so a pair changes order only at the roots of a quadratic.
``linear`` thresholds: a metric score is affine in ``u = 1 / (good - t)`` (for ``bad``) or in
``u = 1 / (t - bad)`` (for ``good``) between the raw values, so each of the three pieces of a pair
holds at most one root. ``traffic_light``: the score is a step at the raw values. Any other
normaliser: sign changes on a log grid, refined by bisection to 1e-9.
"""

from __future__ import annotations

import threading

import numpy as np

from ..normalisers import apply_normaliser, get_normaliser
from ..scoring import Scores, not_below

GRID_STEPS = 48  # grid points per side for the bracketed root finding (x 10^(1/8) apart)
TOL = 1e-9


def ok_pair(fi: np.ndarray, fj: np.ndarray) -> np.ndarray:
    """True where model i (score ``fi``) ranks at least as high as j (ties count, by the ranking
    rule's tolerance; NaN is last). Exact for "i is ranked first": a model tied with the
    highest score is in the first tie group."""
    return not_below(fi, fj)


def midpoint(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A point strictly inside (a, b) (either end may be infinite)."""
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    with np.errstate(invalid="ignore", over="ignore"):
        out = (a + b) / 2
        out = np.where(np.isinf(b) & np.isfinite(a), a + np.sign(b) * np.maximum(1, np.abs(a)), out)
        out = np.where(np.isinf(a) & np.isfinite(b), b + np.sign(a) * np.maximum(1, np.abs(b)), out)
        out = np.where(np.isinf(a) & np.isinf(b), 0.0, out)
    return out


# ------------------------------------------------------------------------------------------------
# Level statistics shared by the weight and threshold families
# ------------------------------------------------------------------------------------------------


class _Level:
    """Children values (n, K) grouped into parents by contiguous ``starts``.

    ``parents``: only the sums of these parents are computed (the others are left 0); None: all.
    The dashboard asks for the values of one view only, whose metrics share one or a few
    benchmarks: their sums are all it needs of the (models x metrics) level."""

    def __init__(self, values, weights, starts, skip, parents=None):
        self.v = values
        self.w = weights
        self.skip = np.asarray(skip, dtype=bool)  # per parent
        n, k = values.shape
        starts = np.asarray(starts, dtype=np.intp)
        self.parent = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, k)))
        if parents is None:
            cols, sub_starts, fill = slice(None), starts, slice(None)
        else:
            fill = np.unique(np.asarray(parents, dtype=np.intp))
            ends = np.append(starts, k)
            fill = fill[ends[fill + 1] > starts[fill]]  # parents with children
            lens = ends[fill + 1] - starts[fill]
            cols = np.concatenate([np.arange(starts[p], ends[p + 1]) for p in fill] or [[]])
            cols = cols.astype(np.intp)
            sub_starts = (np.cumsum(lens) - lens).astype(np.intp)
        self.N = np.zeros((n, len(starts)))
        self.D = np.zeros((n, len(starts)))
        self.B = np.zeros((n, len(starts)))
        if len(sub_starts):
            v, w = values[:, cols], weights[cols]
            valid = ~np.isnan(v)
            self.N[:, fill] = np.add.reduceat(np.where(valid, v * w, 0.0), sub_starts, axis=1)
            self.D[:, fill] = np.add.reduceat(np.where(valid, w, 0.0), sub_starts, axis=1)
            bad = (~valid & (w > 0)).astype(float)
            self.B[:, fill] = np.add.reduceat(bad, sub_starts, axis=1)

    def valid_at(self, cols):
        """Which children ``cols`` have a value (models x cols)."""
        return ~np.isnan(self.v[:, cols])

    def exclude(self, cols):
        """Sums over the siblings of children ``cols`` (the child itself left out)."""
        p = self.parent[cols]
        v, w, ok = self.v[:, cols], self.w[cols], self.valid_at(cols)
        n = self.N[:, p] - np.where(ok, v * w, 0.0)
        d = self.D[:, p] - np.where(ok, w, 0.0)
        b = self.B[:, p] - (~ok & (w > 0))
        return n, np.maximum(d, 0.0), b, self.skip[p]


class LevelsMemo:
    """The benchmark level (:class:`_Level` of the benchmark scores) for a sequence of states of
    one board (the dashboard's edits), from the last one: the sums of the categories whose
    benchmark scores changed (bit for bit) are computed again, the others copied (an edit of a
    threshold changes one benchmark's scores: one category of the 10,000 x 77 sums). Each
    category's sums are those of the full computation (one ``reduceat`` of the same
    contiguous run of the same values). Thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._last = None  # (values copy, weights, starts, skip, level)

    def bench_level(self, sc: Scores) -> _Level:
        plan = sc.plan
        v = sc.bench_scores
        args = (plan.w_bench, plan.bench_starts, plan.cat_skip)
        with self._lock:
            last = self._last
        same = (
            last is not None
            and last[0].shape == v.shape
            and all(np.array_equal(a, b) for a, b in zip(last[1:4], args, strict=True))
        )
        if not same:
            level = _Level(v, *args)
        else:
            changed = np.nonzero((last[0].view(np.int64) != v.view(np.int64)).any(axis=0))[0]
            old = last[4]
            level = _Level(v, *args, parents=old.parent[changed])
            if len(changed) < v.shape[1]:
                keep = np.ones(old.N.shape[1], dtype=bool)
                keep[old.parent[changed]] = False
                for new_sums, old_sums in ((level.N, old.N), (level.D, old.D), (level.B, old.B)):
                    new_sums[:, keep] = old_sums[:, keep]
        with self._lock:
            self._last = (v.copy(), *(np.array(a, copy=True) for a in args), level)
        return level


def levels_of(sc: Scores, paths=None, memo: LevelsMemo | None = None):
    """The metric, benchmark and category levels of ``sc``, shared by every family of one
    question. ``paths``: only the metric sums the values of these key paths need (the
    benchmarks of their metrics); None: every value. ``memo``: the benchmark level from the
    last state's (:class:`LevelsMemo`)."""
    plan = sc.plan
    parents = None
    if paths is not None:
        want = set(paths)
        cols = [j for j, p in enumerate(plan.metric_paths) if p in want]
        k = sc.metric_scores.shape[1]
        parents = np.repeat(
            np.arange(len(plan.metric_starts)), np.diff(np.append(plan.metric_starts, k))
        )[np.asarray(cols, dtype=np.intp)]
    return (
        _Level(sc.metric_scores, plan.w_metric, plan.metric_starts, plan.bench_skip, parents),
        (
            memo.bench_level(sc)
            if memo is not None
            else _Level(sc.bench_scores, plan.w_bench, plan.bench_starts, plan.cat_skip)
        ),
        _Level(sc.cat_scores, plan.w_cat, np.zeros(1, dtype=np.intp), [plan.overall_skip]),
    )


# ------------------------------------------------------------------------------------------------
# Weights
# ------------------------------------------------------------------------------------------------


def _quadratic_roots(a, b, c):
    """Real roots of a t^2 + b t + c (NaN where none); a == 0 -> the linear root."""
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), np.abs(c))
    with np.errstate(all="ignore"):
        a, b, c = a / scale, b / scale, c / scale
        disc = b * b - 4 * a * c
        quad = np.abs(a) > 1e-14
        sq = np.sqrt(np.where(disc >= 0, disc, np.nan))
        qq = -0.5 * (b + np.copysign(sq, b))
        r1 = np.where(quad, qq / a, np.where(np.abs(b) > 1e-14, -c / b, np.nan))
        r2 = np.where(quad, c / qq, np.nan)
    return np.stack([r1, r2], axis=-1)


class WeightFamily:
    """Every weight: categories, then benchmarks, then metrics."""

    kind = "weight"

    def __init__(self, sc: Scores, paths=None, levels=None):
        """``paths``: only the weights of these key paths (None: every weight); ``levels``:
        ``levels_of(sc, paths)`` when the caller has it."""
        cfg = sc.config
        lm, lb, lc = levels if levels is not None else levels_of(sc, paths)
        cats = [(c.name, c.weight) for c in cfg.categories]
        benches = [(f"{c.name}/{b.name}", b.weight) for c in cfg.categories for b in c.benchmarks]
        metrics = list(
            zip(sc.plan.metric_paths, [m.weight for _c, _b, m in cfg.iter_metrics()], strict=True)
        )
        want = None if paths is None else set(paths)
        ci, bi, mi = (
            np.asarray([k for k, (p, _w) in enumerate(lv) if want is None or p in want], np.intp)
            for lv in (cats, benches, metrics)
        )
        self.paths, self.t0 = [], []
        for lv, keep in ((cats, ci), (benches, bi), (metrics, mi)):
            self.paths += [lv[k][0] for k in keep]
            self.t0 += [lv[k][1] for k in keep]
        self.t0 = np.asarray(self.t0, dtype=float)
        self.fields = ["weight"] * len(self.paths)
        self.lo = np.zeros(len(self.t0))
        self.hi = np.full(len(self.t0), np.inf)
        parts = [
            self._direct(lc, ci),
            self._up(self._direct(lb, bi), lc, lb.parent[bi]),
            self._up(
                self._up(self._direct(lm, mi), lb, lm.parent[mi]),
                lc,
                lb.parent[lm.parent[mi]],
            ),
        ]
        self.p, self.q, self.r, self.s, self.valid, self.f0 = (
            np.concatenate([x[k] for x in parts], axis=1) for k in range(6)
        )
        v = _vetoed(sc)  # a vetoed model scores 0 under every weight: the constant 0 / 1
        self.p[v], self.q[v], self.r[v], self.s[v], self.valid[v], self.f0[v] = 0, 0, 1, 0, 1, 0
        sc_ = np.maximum(np.abs(self.r) + np.abs(self.s), 1e-300)  # scale for the quadratics
        self.p, self.q, self.r, self.s = (x / sc_ for x in (self.p, self.q, self.r, self.s))
        self.n_models = self.p.shape[0]

    @staticmethod
    def _direct(level: _Level, cols):
        """The parent of each child as a function of the child's weight t."""
        n, d, b, skip = level.exclude(cols)
        ok = level.valid_at(cols)
        v = np.where(ok, level.v[:, cols], 0.0)
        q = v
        s = ok.astype(float)
        valid = np.where(ok, skip | (b == 0), skip & (d > 0))
        with np.errstate(all="ignore"):
            f0 = np.where((d > 0) & (skip | (b == 0)), n / d, np.nan)
        return n, q, d, s, valid, f0

    @staticmethod
    def _up(part, level: _Level, nodes):
        """One level up: ``nodes[k]`` is the child of ``level`` that column k moves."""
        p, q, r, s, valid, f0 = part
        n2, d2, b2, skip = level.exclude(nodes)
        w = level.w[nodes]
        ok_inv = (d2 > 0) & (skip | ((b2 == 0) & (w == 0)))
        ok_val = (d2 + w > 0) & (skip | (b2 == 0))
        np_ = np.where(valid, n2 * r + w * p, n2)
        nq = np.where(valid, n2 * s + w * q, 0.0)
        nr = np.where(valid, (d2 + w) * r, d2)
        ns = np.where(valid, (d2 + w) * s, 0.0)
        nvalid = np.where(valid, ok_val, ok_inv)
        with np.errstate(all="ignore"):
            g_val = (n2 + w * f0) / (d2 + w)
            g_inv = n2 / d2
        f0_ok = ~np.isnan(f0)
        nf0 = np.where(f0_ok, np.where(ok_val, g_val, np.nan), np.where(ok_inv, g_inv, np.nan))
        return np_, nq, nr, ns, nvalid, nf0

    def ev(self, rows, cols, t):
        rows, cols, t = np.broadcast_arrays(rows, cols, np.asarray(t, dtype=float))
        p, q, r, s = (x[rows, cols] for x in (self.p, self.q, self.r, self.s))
        with np.errstate(all="ignore"):
            pos = np.where(self.valid[rows, cols], (p + q * t) / (r + s * t), np.nan)
        return np.where(t == 0, self.f0[rows, cols], pos)

    def bounds(self):
        """(min, max) of each model's overall score over the whole domain (NaN: never scored)."""
        with np.errstate(all="ignore"):
            at0 = np.where(self.r > 0, self.p / self.r, self.q / self.s)
            atinf = np.where(self.s > 0, self.q / self.s, self.p / self.r)
        at0 = np.where(self.valid, at0, np.nan)
        atinf = np.where(self.valid, atinf, np.nan)
        stack = np.stack([at0, atinf, self.f0])
        high = np.max(np.where(np.isnan(stack), -np.inf, stack), axis=0)
        return np.min(stack, axis=0), np.where(np.isinf(high), np.nan, high)

    def candidates(self, i, cols, rows=None):
        rows = slice(None) if rows is None else np.asarray(rows)[:, None]
        pi, qi, ri, si = (x[i, cols] for x in (self.p, self.q, self.r, self.s))
        pj, qj, rj, sj = (x[rows, cols] for x in (self.p, self.q, self.r, self.s))
        roots = _quadratic_roots(
            qi * sj - qj * si, pi * sj + qi * rj - pj * si - qj * ri, pi * rj - pj * ri
        )
        with np.errstate(invalid="ignore"):
            roots = np.where(roots > 0, roots, np.nan)
        zero = np.zeros(roots.shape[:-1] + (1,))
        return np.concatenate([roots, zero], axis=-1)


# ------------------------------------------------------------------------------------------------
# Thresholds and normaliser parameters
# ------------------------------------------------------------------------------------------------


def _vetoed(sc: Scores) -> np.ndarray:
    """The models the config's vetoes hold at an overall score of 0, whatever the settings."""
    return sc.vetoed if sc.vetoed is not None else np.zeros(len(sc.models), dtype=bool)


def _affine_parts(sc: Scores, cols=None, levels=None):
    """overall = alpha + beta * metric score, per model and metric (beta 0 where it is missing):
    ``(alpha, beta, pos)``, column ``pos[j]`` of alpha and beta for metric column ``j``.
    ``cols``: only these metric columns (None: all); ``levels``: ``levels_of`` (shared)."""
    lm, lb, lc = levels if levels is not None else levels_of(sc)
    n, k = sc.metric_scores.shape
    sel = np.arange(k) if cols is None else np.asarray(cols, dtype=np.intp)
    pm = lm.parent[sel]  # benchmark of each column
    pb = lb.parent[pm]  # its category
    pc = lc.parent[pb]  # the overall group (0)
    with np.errstate(all="ignore"):
        fm = np.where(lm.D[:, pm] > 0, lm.w[sel] / lm.D[:, pm], 0.0)
        fb = np.where(lb.D[:, pb] > 0, lb.w[pm] / lb.D[:, pb], 0.0)
        fc = np.where(lc.D[:, pc] > 0, lc.w[pb] / lc.D[:, pc], 0.0)
    beta = fm * fb * fc
    ms = sc.metric_scores[:, sel]
    # a metric counts only through a present benchmark in a present category
    live = ~np.isnan(ms) & lb.valid_at(pm) & lc.valid_at(pb)
    beta = np.where(live & ~_vetoed(sc)[:, None], beta, 0.0)  # vetoed: overall 0 throughout
    alpha = sc.overall_scores[:, None] - beta * np.nan_to_num(ms)
    pos = np.full(k, -1, dtype=np.intp)
    pos[sel] = np.arange(len(sel))
    return alpha, beta, pos


class ParamFamily:
    """One field (good, bad or a parameter) of the metrics of one normaliser where it is a number."""

    def __init__(self, sc: Scores, name, gcols, positions, field, params, affine, cfg_paths):
        self.norm = get_normaliser(name)
        self.kind = name
        self.field = field
        self.mcols = gcols[positions]  # metric columns
        self.params = {k: v[positions] for k, v in params.items()}
        self.t0 = self.params[field].copy()
        self.paths = [cfg_paths[j] for j in self.mcols]
        self.fields = [field] * len(self.mcols)
        self.x = sc.raw_values[:, self.mcols]
        self.n_models = self.x.shape[0]
        alpha, beta, pos = affine
        self.alpha = alpha[:, pos[self.mcols]]
        self.beta = beta[:, pos[self.mcols]]
        self.lo = np.full(len(self.t0), -np.inf)
        self.hi = np.full(len(self.t0), np.inf)
        if field in ("good", "bad") and self.norm.uses_thresholds:
            other = self.params["bad" if field == "good" else "good"]
            below = self.t0 < other  # thresholds keep their order (their direction)
            self.hi = np.where(below, other, np.inf)
            self.lo = np.where(below, -np.inf, other)
            unscored = np.isnan(other)
            self.lo[unscored], self.hi[unscored] = -np.inf, np.inf
        else:
            spec = self.norm.param(field)
            if spec is not None and spec.greater_than is not None:
                self.lo[:] = spec.greater_than
            elif spec is not None and spec.positive:
                self.lo[:] = 0.0

    def ev(self, rows, cols, t):
        rows, cols, t = np.broadcast_arrays(rows, cols, np.asarray(t, dtype=float))
        shape = t.shape
        x = self.x[rows, cols].reshape(1, -1)
        params = {k: v[cols].reshape(-1) for k, v in self.params.items() if k != self.field}
        params[self.field] = t.reshape(-1)
        s = apply_normaliser(self.norm, x, params).reshape(shape)
        a, b = self.alpha[rows, cols], self.beta[rows, cols]
        return np.where(b == 0, a, a + b * np.nan_to_num(s))

    def _in_domain(self, v, cols):
        with np.errstate(invalid="ignore"):
            return np.where((v > self.lo[cols]) & (v < self.hi[cols]), v, np.nan)

    def bounds(self):
        """(min, max) of each model's overall score over the whole domain (NaN: never scored)."""
        return self.alpha, self.alpha + self.beta

    def candidates(self, i, cols, rows=None):
        cols = np.asarray(cols)
        rows = np.arange(self.n_models) if rows is None else np.asarray(rows)
        xj = self.x[rows[:, None], cols]
        xi = np.broadcast_to(self.x[i, cols], xj.shape)
        bps = self._in_domain(np.stack([xi, xj], axis=-1), cols[None, :, None])
        if self.kind == "traffic_light":
            return bps
        if self.kind == "linear":
            return np.concatenate([bps, self._linear_roots(i, cols, bps, rows)], axis=-1)
        return self._bracketed(i, cols)[rows]

    def _linear_roots(self, i, cols, bps, rows):
        lo, hi = self.lo[cols][None, :, None], self.hi[cols][None, :, None]
        b = np.sort(bps, axis=-1)
        b = np.where(np.isnan(b), hi, b)
        ends = np.concatenate(
            [np.broadcast_to(lo, b.shape[:-1] + (1,)), b, np.broadcast_to(hi, b.shape[:-1] + (1,))],
            axis=-1,
        )
        a_, b_ = ends[..., :-1], ends[..., 1:]
        rep = midpoint(a_, b_)
        is_bad = self.field == "bad"
        other = self.params["good" if is_bad else "bad"][cols][None, :, None]

        def parts(x):
            x = x[..., None]
            with np.errstate(all="ignore"):
                raw = (x - rep) / (other - rep) if is_bad else (x - other) / (rep - other)
                mid = (raw > 0) & (raw < 1)
                icpt = np.where(mid, 1.0 if is_bad else 0.0, np.clip(raw, 0, 1))
                slope = np.where(mid, -(other - x) if is_bad else (x - other), 0.0)
            nan = np.isnan(x) | np.isnan(raw)
            return np.where(nan, 0.0, icpt), np.where(nan, 0.0, slope)

        rc = (rows[:, None], cols[None, :])
        ai, ki = parts(np.broadcast_to(self.x[i, cols], bps.shape[:-1]))
        aj, kj = parts(self.x[rc])
        al_i, be_i = self.alpha[i, cols][None, :, None], self.beta[i, cols][None, :, None]
        al_j, be_j = self.alpha[rc][..., None], self.beta[rc][..., None]
        c0 = al_i - al_j + be_i * ai - be_j * aj
        c1 = be_i * ki - be_j * kj
        with np.errstate(all="ignore"):
            u = -c0 / c1
            t = other - 1.0 / u if is_bad else other + 1.0 / u
            inside = (c1 != 0) & (t > a_) & (t < b_)
        return np.where(inside, t, np.nan)

    def _grid(self, cols):
        t0, lo, hi = self.t0[cols, None], self.lo[cols, None], self.hi[cols, None]
        f = 10.0 ** (np.arange(1, GRID_STEPS + 1) / 8.0)
        with np.errstate(all="ignore"):
            up = np.where(np.isinf(hi), t0 + (np.abs(t0) + 1) * (f - 1), hi - (hi - t0) / f)
            dn = np.where(np.isinf(lo), t0 - (np.abs(t0) + 1) * (f - 1), lo + (t0 - lo) / f)
        return np.concatenate([dn[:, ::-1], t0, up], axis=1)  # (P, G) increasing

    def _bracketed(self, i, cols):
        n = self.x.shape[0]
        grid = self._grid(cols)[None]  # (1, P, G)
        allrows = np.arange(n)[:, None, None]
        cc = cols[None, :, None]
        ok = ok_pair(self.ev(i, cc, grid), self.ev(allrows, cc, grid))  # (n, P, G)
        change = ok[..., 1:] != ok[..., :-1]
        jj, pp, gg = np.nonzero(change)
        a = grid[0, pp, gg]
        b = grid[0, pp, gg + 1]
        ok_a = ok[jj, pp, gg]
        cp = cols[pp]
        for _ in range(200):
            width = np.abs(b - a)
            if not (width > TOL * np.maximum(1.0, np.abs(a))).any():
                break
            m = (a + b) / 2
            okm = ok_pair(self.ev(i, cp, m), self.ev(jj, cp, m))
            same = okm == ok_a
            a = np.where(same, m, a)
            b = np.where(same, b, m)
        roots = (a + b) / 2
        count = np.zeros((n, len(cols)), dtype=int)
        np.add.at(count, (jj, pp), 1)
        c = max(int(count.max()) if count.size else 0, 1)
        out = np.full((n, len(cols), c), np.nan)
        order = np.lexsort((roots, pp, jj))
        jj, pp, roots = jj[order], pp[order], roots[order]
        if len(jj):
            key = jj * len(cols) + pp
            pos = np.arange(len(jj))
            is_start = np.r_[True, key[1:] != key[:-1]]
            rank = pos - np.maximum.accumulate(np.where(is_start, pos, 0))
            out[jj, pp, rank] = roots
        return out


def param_families(sc: Scores, only=None, levels=None) -> list[ParamFamily]:
    """A family per (normaliser, editable field) over the metrics where that field is a number
    (``only``: the metrics of these paths; None: all; ``levels``: ``levels_of(sc, only)`` when
    the caller has it).

    Per-instance metrics (``sc.instances``) are left out: their score is a mean of instance
    scores, not the normaliser of one raw value per model that the families model."""
    plan = sc.plan
    affine = None  # (alpha, beta), computed when a family needs it
    paths = plan.metric_paths
    want = None if only is None else set(only)
    cols = None if want is None else [j for j, p in enumerate(paths) if p in want]
    usable = np.ones(len(paths), dtype=bool) if cols is None else np.zeros(len(paths), bool)
    if cols is not None:
        usable[cols] = True
    usable[[int(j) for j in sc.instances]] = False
    fams = []
    for name, gcols, _static, _dynamic in plan.groups:
        base = usable[np.asarray(gcols, dtype=np.intp)]
        if not base.any():
            continue
        norm = get_normaliser(name)
        params = sc.resolved[name]
        for field in norm.editable:
            if field not in params:
                continue
            ok = base & ~np.isnan(np.asarray(params[field], dtype=float))
            for pos, pn, _spec, _m in _dynamic:
                if pn == field:
                    ok[pos] = False
            keep = np.nonzero(ok)[0]
            if len(keep):
                if affine is None:
                    lv = levels if levels is not None else levels_of(sc, only)
                    affine = _affine_parts(sc, cols, lv)
                fams.append(ParamFamily(sc, name, gcols, keep, field, params, affine, paths))
    return fams
