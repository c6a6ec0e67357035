"""Rank robustness: how far does a ranking rest on the chosen weights and thresholds?

Pure numpy, no Dash. Three tools:

* :func:`rank_robustness` — Monte Carlo over the settings. Every sample draws

  - **weights** at every level (metric weights within each benchmark, benchmark weights within
    each category, category weights): per group ``w' = Dirichlet(c * w / sum(w)) * sum(w)`` with
    ``c`` = ``concentration`` (large = close to the current weights; ``inf`` = no weight
    perturbation). Children with weight 0 stay 0, a group with a single positive child is
    unchanged, and a sampled positive weight is floored at ``1e-12`` of its group's total so that a
    positive child never becomes 0 (a missing child then keeps invalidating its parent exactly as
    with the current settings). A group whose gamma draws all underflow to 0 (possible only for a
    tiny concentration) keeps its current weights in that sample.
  - **thresholds** (``threshold_jitter`` = x, e.g. 0.1): every good and bad threshold of a
    ``linear`` or ``traffic_light`` metric that counts (positive weight along its path) is moved
    independently and uniformly by up to +-x times its scale. ``jitter_scale="value"`` (default):
    the scale is the threshold's own magnitude ``|good|`` / ``|bad|`` (a threshold equal to 0 uses
    ``|good - bad|`` instead); ``"span"``: both use ``|good - bad|``. Data-driven thresholds
    (``{model: NAME}``, ``best``, ``worst``) are resolved from the data first and the resolved
    number is moved. A draw that would make ``good == bad`` or swap the direction is **redrawn**
    (rejection sampling, so each pair is uniform over the valid part of its box); after 64
    rejected redraws (a box almost entirely invalid) the pair keeps its current values. Other
    normalisers' parameters are not perturbed; a degenerate resolved pair (``good == bad``) is not
    perturbed either.

  Scores are recomputed vectorised across samples. The metric scores' missing pattern does not
  depend on the sample (thresholds are finite, positive weights stay positive), so the missing
  pattern of every level is the current one; the engine's rules (``invalidate``: a missing child
  with weight > 0 makes the parent missing; ``skip``: mean over present children) then become:
  numerators of a category for a batch of weight samples are one matrix product
  ``S0[:, cols] @ C[:, cols].T`` with ``C = w_metric * w_bench / sum_benchmark(w_metric)`` (S0:
  metric scores with missing = 0), and only the rows where a ``skip`` group has a missing child get
  their present-weight denominators (``present[rows, block] @ W[:, block].T``). No Python loop runs
  over samples.

  Thresholds change the metric scores per sample, which is the expensive part. It is a **blocked
  Monte Carlo**: K distinct threshold draws, each shared by R = ceil(N / K) consecutive weight
  draws. Every sample's marginal distribution is still the intended one (only samples of one
  block are correlated); K is chosen so that ``K * models * jittered metrics <=
  max_threshold_cells`` (default 2.5e8: K = 250 at 1,000 x 1,000, about 6 ms per draw there),
  capped at N, or set with ``threshold_draws``. The result reports the effective K and R. Each
  draw's scores are built per category and per group of benchmarks with the same number of
  jittered columns (models x columns, cache-sized), multiplied by the folded weights of its R
  samples, and the numerators of the ``skip`` benchmarks' irregular (row, benchmark) pairs are
  gathered at the same time, so that no array of samples x models x metrics is ever built.
  Batches of blocks run on ``workers`` threads (default 2; the result does not depend on it), with
  BLAS limited to 1 thread when threadpoolctl is installed (the products are small).

  Determinism: block k (one threshold draw and its R weight draws; without threshold jitter,
  blocks of 64 weight draws) uses its own generator ``default_rng(SeedSequence(seed).spawn(...)[k])``,
  so a seed gives the same result whatever the batch sizes.

  Per model: ranks (1 = best, ties share the best rank, missing last, as ``scoring.rank_desc``,
  scores rounded to 12 decimals), the rank distribution (median, 5% and 95% quantiles: the
  smallest rank r with P(rank <= r) >= q), P(rank 1), P(top k) and the rank-acceptability matrix.

* :func:`kendall_tau` (tau-b, ties handled) and :func:`spearman_rho` (Pearson correlation of
  average ranks), vectorised over rows; :func:`compare_settings` between two saved settings.
* :func:`leave_one_out` — the ranking with each category, and each benchmark, removed in turn
  (weight 0), all removals at once. Removing the last positive benchmark of a category removes the
  category too (otherwise, under ``invalidate``, every overall score would be missing).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import normalisers as _norms
from .config import Config
from .errors import MlPegLikeError, Problem
from .raw import RawData
from .scoring import Scores, score_values

DEFAULT_SAMPLES = 1000
DEFAULT_CONCENTRATION = 50.0
DEFAULT_THRESHOLD_JITTER = 0.1
DEFAULT_TOP_K = 5
DEFAULT_MAX_THRESHOLD_CELLS = 2.5e8
JITTER_SCALES = ("value", "span")

WEIGHT_FLOOR = 1e-12  # a sampled positive weight is at least this fraction of its group's total
MAX_REDRAWS = 64
WEIGHT_BLOCK = 64  # samples per random block when thresholds are not perturbed
CHUNK_ELEMENTS = 1 << 22  # about 32 MB of float64 per batch array
SUBBATCH_ELEMENTS = 1 << 17  # threshold draws normalised together: about 1 MB, stays in cache
ROUND_DECIMALS = 12  # as scoring.rank_desc

DEFAULT_WORKERS = min(2, os.cpu_count() or 1)

ProgressFn = Callable[[int, int], Any]


def _blas_limit(n: int | None):
    """threadpoolctl's BLAS thread limit when installed, else nothing."""
    if n is None:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        return contextlib.nullcontext()
    return threadpool_limits(limits=int(n), user_api="blas")


# ------------------------------------------------------------------------------------------------
# Rank correlations and ranks, vectorised over rows
# ------------------------------------------------------------------------------------------------


def _rows(a, b) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = np.broadcast_arrays(a, b)
    if a.ndim == 0:
        raise ValueError("expected vectors, got scalars")
    lead = a.shape[:-1]
    n = a.shape[-1]
    return a.reshape(-1, n), b.reshape(-1, n), lead


def _pair_signs(X: np.ndarray):
    g = X[:, :, None] > X[:, None, :]
    sign = g.view(np.int8) - (X[:, :, None] < X[:, None, :]).view(np.int8)
    untied = np.count_nonzero(g.reshape(X.shape[0], -1), axis=1).astype(float)
    return sign, untied  # untied pairs = ordered pairs with x_i > x_j


def _kendall_block(A: np.ndarray, B: np.ndarray, sb=None) -> np.ndarray:
    """tau-b of the rows of A and B (no NaN), all pairs at once; ``sb``: B's pair signs when B
    is one row shared by all rows of A."""
    r = A.shape[0]
    sa, untied_a = _pair_signs(A)
    sb, untied_b = _pair_signs(B) if sb is None else sb
    sa *= sb
    s = sa.reshape(r, -1).sum(axis=1, dtype=np.int64) / 2.0  # concordant - discordant
    den = np.sqrt(untied_a * untied_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = s / den
    out[den == 0] = np.nan
    return out


def kendall_tau(a, b):
    """Kendall's tau-b between ``a`` and ``b`` (rankings or scores), over the last axis.

    Ties are handled (tau-b). Entries that are NaN in either vector are left out. Returns a float
    for two vectors, an array for stacks of vectors (broadcast), NaN when undefined (fewer than 2
    entries or a constant vector). All pairs are compared at once, in row batches of bounded size.
    """
    shared = np.ndim(b) == 1 and np.ndim(a) > 1 and not np.isnan(np.asarray(b, float)).any()
    A, B, lead = _rows(a, b)
    rows, n = A.shape
    out = np.full(rows, np.nan)
    if n >= 2:
        bad = np.isnan(A).any(axis=1) | np.isnan(B).any(axis=1)
        clean = np.flatnonzero(~bad)
        sb = _pair_signs(np.asarray(b, float)[None]) if shared and clean.size else None
        step = max(1, CHUNK_ELEMENTS // (n * n))
        for s in range(0, clean.size, step):
            idx = clean[s : s + step]
            out[idx] = _kendall_block(A[idx], B[idx], sb)
        for i in np.flatnonzero(bad):
            ok = ~(np.isnan(A[i]) | np.isnan(B[i]))
            if ok.sum() >= 2:
                out[i] = _kendall_block(A[i, ok][None], B[i, ok][None])[0]
    return float(out[0]) if not lead else out.reshape(lead)


def _sorted_groups(V: np.ndarray):
    """Row-wise descending order of V (no NaN) and, per sorted position, whether it starts a tie
    group and the first position of its group."""
    S, n = V.shape
    order = np.argsort(-V, axis=1)  # the order within ties does not matter
    sv = np.take_along_axis(V, order, axis=1)
    idx = np.arange(n)
    new = np.ones((S, n), dtype=bool)
    new[:, 1:] = sv[:, 1:] != sv[:, :-1]
    first = np.where(new, idx, 0)
    np.maximum.accumulate(first, axis=1, out=first)
    return order, new, first


def _ranks(V: np.ndarray, average: bool = False):
    """Row-wise ranks of V (no NaN; 1 = highest): min ranks (ties share the best rank) and, with
    ``average``, average ranks (ties get the mean of their positions). One sort."""
    S, n = V.shape
    order, new, first = _sorted_groups(V)
    ranks = np.empty((S, n), dtype=np.int64)
    np.put_along_axis(ranks, order, first + 1, axis=1)
    if not average:
        return ranks, None
    end = np.ones((S, n), dtype=bool)
    end[:, :-1] = new[:, 1:]
    last = np.where(end, np.arange(n), n - 1)[:, ::-1]
    last = np.minimum.accumulate(last, axis=1)[:, ::-1]
    avg = np.empty((S, n))
    np.put_along_axis(avg, order, (first + last) / 2.0 + 1.0, axis=1)
    return ranks, avg


def _average_ranks(V: np.ndarray) -> np.ndarray:
    """Row-wise average ranks (1 = highest; ties get the mean of their positions)."""
    return _ranks(V, average=True)[1]


def _pearson_rows(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    X = X - X.mean(axis=1, keepdims=True)
    Y = Y - Y.mean(axis=1, keepdims=True)
    num = np.einsum("ij,ij->i", X, Y)
    den = np.sqrt(np.einsum("ij,ij->i", X, X) * np.einsum("ij,ij->i", Y, Y))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out[~(den > 0)] = np.nan
    return np.clip(out, -1.0, 1.0)


def spearman_rho(a, b):
    """Spearman's rho between ``a`` and ``b`` over the last axis: Pearson's r of average ranks.

    Ties get average ranks; entries NaN in either vector are left out; NaN when undefined.
    Returns a float for two vectors, an array for stacks of vectors.
    """
    A, B, lead = _rows(a, b)
    rows, n = A.shape
    out = np.full(rows, np.nan)
    if n >= 2:
        bad = np.isnan(A).any(axis=1) | np.isnan(B).any(axis=1)
        clean = np.flatnonzero(~bad)
        if clean.size:
            out[clean] = _pearson_rows(_average_ranks(A[clean]), _average_ranks(B[clean]))
        for i in np.flatnonzero(bad):
            ok = ~(np.isnan(A[i]) | np.isnan(B[i]))
            if ok.sum() >= 2:
                out[i] = _pearson_rows(
                    _average_ranks(A[i, ok][None]), _average_ranks(B[i, ok][None])
                )[0]
    return float(out[0]) if not lead else out.reshape(lead)


def rank_samples(values) -> np.ndarray:
    """``scoring.rank_desc`` applied to every row: 1 = highest, ties share the best rank, NaN last
    (rank = number of non-missing + 1), values rounded to 12 decimals first."""
    v = np.round(np.atleast_2d(np.asarray(values, dtype=float)), ROUND_DECIMALS)
    S, n = v.shape
    nan = np.isnan(v)
    key = np.where(nan, -np.inf, v)
    ranks, _ = _ranks(key)
    if nan.any():
        n_valid = n - nan.sum(axis=1)
        ranks = np.where(nan, (n_valid + 1)[:, None], ranks)
    return ranks


# ------------------------------------------------------------------------------------------------
# Generic weighted means for a batch of weight vectors (leave one out, checks)
# ------------------------------------------------------------------------------------------------


def aggregate_batch(X: np.ndarray, W: np.ndarray, starts, skip) -> np.ndarray:
    """``scoring.aggregate`` (scores only) for R weight vectors at once.

    X: children scores, (models, n) shared by every weight vector or (R, models, n); NaN missing.
    W: (R, n) weights. Returns (R, models, groups). Same rules as the engine: invalidate = missing
    when a child with weight > 0 is missing; skip = mean over present children; a group whose
    (present) weights sum to 0 is missing; a weight-0 child never matters.
    """
    W = np.atleast_2d(np.asarray(W, dtype=float))
    starts = np.asarray(starts, dtype=np.intp)
    skip = np.broadcast_to(np.asarray(skip, dtype=bool), starts.shape)
    n = W.shape[1]
    ends = np.r_[starts[1:], n]
    shared = X.ndim == 2
    R = W.shape[0]
    M = X.shape[-2]
    out = np.empty((R, M, starts.size))
    miss = np.isnan(X)
    X0 = np.where(miss, 0.0, X)
    with np.errstate(divide="ignore", invalid="ignore"):
        for g, (s, e) in enumerate(zip(starts, ends, strict=True)):
            Wg = W[:, s:e]
            pos = (Wg > 0).astype(float)
            if shared:
                num = (X0[:, s:e] @ Wg.T).T
                mg = miss[:, s:e].astype(float)
                n_bad = (mg @ pos.T).T
                w_pres = ((1.0 - mg) @ Wg.T).T
            else:
                num = np.einsum("rmn,rn->rm", X0[:, :, s:e], Wg)
                mg = miss[:, :, s:e].astype(float)
                n_bad = np.einsum("rmn,rn->rm", mg, pos)
                w_pres = np.einsum("rmn,rn->rm", 1.0 - mg, Wg)
            if skip[g]:
                res = num / w_pres
                res[w_pres == 0] = np.nan
            else:
                w_tot = Wg.sum(axis=1)[:, None]
                res = num / w_tot
                res[(n_bad > 0) | (w_tot == 0)] = np.nan
            out[:, :, g] = res
    return out


# ------------------------------------------------------------------------------------------------
# Weight and threshold samplers
# ------------------------------------------------------------------------------------------------


class _DirichletLevel:
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
            totals = np.add.reduceat(w, starts) if n else np.zeros(0)
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


def _draw_thresholds(gen, g0, b0, sg, sb, x) -> tuple[np.ndarray, np.ndarray]:
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


# ------------------------------------------------------------------------------------------------
# The compiled problem
# ------------------------------------------------------------------------------------------------


@dataclass
class _Bench:
    """A skip-policy benchmark whose rows ``rows`` miss some but not all positive metrics."""

    b: int
    rows: np.ndarray
    lo: int  # its slice of the category's irregular (row, benchmark) pairs
    hi: int
    cols: np.ndarray  # its positive-weight columns
    stacked: np.ndarray  # (2 rows, len(cols)): [fixed-column scores (0 elsewhere); presence]


@dataclass
class _Group:
    """Jittered columns of one normaliser for benchmarks with n such columns each (bench-major),
    so that per-benchmark numerators are one batched product."""

    kind: int  # 1 linear, 2 traffic light
    n: int
    benches: np.ndarray  # global benchmark index of each block of n columns
    cols: np.ndarray  # (len(benches) * n,) global columns
    jidx: np.ndarray  # indices into the jitter arrays
    x: np.ndarray  # (M, len(cols)) raw values; linear: missing = the worst infinity;
    # traffic light: times the direction sign (lower is better), missing = +inf
    sign: np.ndarray  # direction sign per column (traffic light)
    # irregular (row, benchmark) pairs, benchmark-major: flat indices into a (M, len(cols))
    # score matrix, (pairs, n); and per benchmark (block k, first pair, end, index into the
    # category's irregular benchmarks)
    pair_idx: np.ndarray
    segs: list[tuple[int, int, int, int]]


@dataclass
class _Cat:
    c: int
    b0: int
    b1: int
    groups: list[_Group]
    cols_f: np.ndarray  # fixed (not jittered) columns
    S_f: np.ndarray  # (M, n_fixed) metric scores, missing = 0
    benches: list[_Bench]
    rows_irr: np.ndarray  # skip category: rows with a missing positive benchmark
    pres_b: np.ndarray  # (rows_irr, b1 - b0)
    rows_miss: np.ndarray  # rows where the category is missing
    pair_bench: np.ndarray  # benchmark of each irregular (row, benchmark) pair


class _Engine:
    def __init__(
        self,
        values: np.ndarray,
        models: tuple[str, ...],
        cfg: Config,
        concentration: float,
        jitter: float,
        jitter_scale: str,
    ):
        self.cfg = cfg
        self.models = models
        self.scores: Scores = score_values(values, models, cfg)
        sc = self.scores
        plan = self.plan = sc.plan
        M, P = values.shape
        nb, nc = len(plan.benchmarks), len(plan.categories)
        self.M, self.P, self.nb, self.nc = M, P, nb, nc
        w_m, w_b, w_c = plan.w_metric, plan.w_bench, plan.w_cat
        self.bench_of_col = np.repeat(np.arange(nb), np.diff(np.r_[plan.metric_starts, P]))
        self.cat_of_bench = np.repeat(np.arange(nc), np.diff(np.r_[plan.bench_starts, nb]))
        eff = (w_m > 0) & (w_b > 0)[self.bench_of_col]
        eff &= (w_c > 0)[self.cat_of_bench[self.bench_of_col]]
        self.eff = eff

        self.levels = (
            _DirichletLevel(w_m, plan.metric_starts, concentration),
            _DirichletLevel(w_b, plan.bench_starts, concentration),
            _DirichletLevel(w_c, np.zeros(1, dtype=np.intp), concentration),
        )

        ms = sc.metric_scores
        miss = np.isnan(ms)
        S0 = np.where(miss, 0.0, ms)
        bmiss = np.isnan(sc.bench_scores)
        cmiss = np.isnan(sc.cat_scores)
        self.omiss = np.isnan(sc.overall_scores)

        # thresholds that can be jittered: built-in linear / traffic light, resolved, finite
        kind = np.zeros(P, dtype=np.int8)
        g_all = np.full(P, np.nan)
        b_all = np.full(P, np.nan)
        for name, cols, _static, _dyn in plan.groups:
            fn = _norms.get_normaliser(name).fn
            k = 1 if fn is _norms.linear else 2 if fn is _norms.traffic_light else 0
            if not k:
                continue
            kind[cols] = k
            res = sc.resolved.get(name, {})
            if "good" in res and "bad" in res:
                g_all[cols] = res["good"]
                b_all[cols] = res["bad"]
        jit = eff & (kind > 0) & np.isfinite(g_all) & np.isfinite(b_all) & (g_all != b_all)
        if not jitter > 0:
            jit[:] = False
        self.jit_cols = np.flatnonzero(jit)
        jpos = np.full(P, -1)
        jpos[self.jit_cols] = np.arange(self.jit_cols.size)
        g0, b0 = g_all[self.jit_cols], b_all[self.jit_cols]
        self.g0, self.b0 = g0, b0
        if jitter_scale == "span":
            self.sg = self.sb = np.abs(g0 - b0)
        else:
            self.sg = np.where(g0 != 0, np.abs(g0), np.abs(g0 - b0))
            self.sb = np.where(b0 != 0, np.abs(b0), np.abs(g0 - b0))
        self.jitter = float(jitter)
        lower = g_all < b_all
        sign = np.where(lower, 1.0, -1.0)

        self.cats: list[_Cat] = []
        for c in range(nc):
            if not w_c[c] > 0:
                continue
            b0_ = int(plan.bench_starts[c])
            b1_ = int(plan.bench_starts[c + 1]) if c + 1 < nc else nb
            c_lo = int(plan.metric_starts[b0_])
            c_hi = int(plan.metric_starts[b1_]) if b1_ < nb else P
            cols = np.arange(c_lo, c_hi)
            cols = cols[eff[cols]]
            fixed = cols[~jit[cols]]
            S_f = np.ascontiguousarray(S0[:, fixed])
            benches: list[_Bench] = []
            irr_of: dict[int, int] = {}
            for b in range(b0_, b1_):
                if not (w_b[b] > 0 and plan.bench_skip[b]):
                    continue
                bj = cols[jit[cols] & (self.bench_of_col[cols] == b)]
                bj = np.r_[bj[kind[bj] == 1], bj[kind[bj] == 2]]
                bf = fixed[self.bench_of_col[fixed] == b]
                gcols = np.r_[bj, bf].astype(np.intp)
                if not gcols.size:
                    continue
                rows = np.flatnonzero(miss[:, gcols].any(axis=1) & ~bmiss[:, b])
                if not rows.size:
                    continue
                stacked = np.zeros((2 * rows.size, gcols.size))
                stacked[: rows.size, bj.size :] = S0[np.ix_(rows, bf)]
                stacked[rows.size :] = ~miss[np.ix_(rows, gcols)]
                irr_of[b] = len(benches)
                lo = benches[-1].hi if benches else 0
                benches.append(
                    _Bench(b=b, rows=rows, lo=lo, hi=lo + rows.size, cols=gcols, stacked=stacked)
                )
            groups: list[_Group] = []
            for k in (1, 2):
                kc = cols[jit[cols] & (kind[cols] == k)]
                if not kc.size:
                    continue
                bk = self.bench_of_col[kc]
                by_n: dict[int, list[int]] = {}
                for b in np.unique(bk):
                    by_n.setdefault(int((bk == b).sum()), []).append(int(b))
                for n, blist in by_n.items():
                    gc = np.concatenate([kc[bk == b] for b in blist]).astype(np.intp)
                    x = values[:, gc]
                    if k == 1:
                        x = np.where(np.isnan(x), np.where(lower[gc], np.inf, -np.inf), x)
                    else:
                        x = np.where(np.isnan(x), np.inf, x * sign[gc])
                    segs, idx, at = [], [], 0
                    for pos, b in enumerate(blist):
                        if b in irr_of:
                            r = benches[irr_of[b]].rows
                            idx.append(r[:, None] * gc.size + pos * n + np.arange(n))
                            segs.append((pos, at, at + r.size, irr_of[b]))
                            at += r.size
                    groups.append(
                        _Group(
                            kind=k,
                            n=n,
                            benches=np.asarray(blist),
                            cols=gc,
                            jidx=jpos[gc],
                            x=np.ascontiguousarray(x),
                            sign=sign[gc],
                            pair_idx=np.concatenate(idx) if idx else np.zeros((0, n), np.intp),
                            segs=segs,
                        )
                    )
            rows_irr = np.zeros(0, dtype=np.intp)
            pres_b = np.zeros((0, b1_ - b0_))
            if plan.cat_skip[c]:
                posb = np.flatnonzero(w_b[b0_:b1_] > 0) + b0_
                partial = bmiss[:, posb].any(axis=1) & ~cmiss[:, c]
                rows_irr = np.flatnonzero(partial)
                pres_b = (~bmiss[rows_irr, b0_:b1_]).astype(float)
            self.cats.append(
                _Cat(
                    c=c,
                    b0=b0_,
                    b1=b1_,
                    groups=groups,
                    cols_f=fixed,
                    S_f=S_f,
                    benches=benches,
                    rows_irr=rows_irr,
                    pres_b=pres_b,
                    rows_miss=np.flatnonzero(cmiss[:, c]),
                    pair_bench=np.repeat(
                        np.array([bn.b for bn in benches], dtype=np.intp),
                        [bn.rows.size for bn in benches],
                    ),
                )
            )
        self.rows_o_irr = np.zeros(0, dtype=np.intp)
        self.pres_c = np.zeros((0, nc))
        if plan.overall_skip:
            posc = np.flatnonzero(w_c > 0)
            partial = cmiss[:, posc].any(axis=1) & ~self.omiss
            self.rows_o_irr = np.flatnonzero(partial)
            self.pres_c = (~cmiss[self.rows_o_irr]).astype(float)
        self.rows_o_miss = np.flatnonzero(self.omiss)
        self.max_group_cols = max([g.cols.size for c in self.cats for g in c.groups] + [1])

    # ---- sampling --------------------------------------------------------------------------
    def draw_block(self, gen: np.random.Generator, R: int, thresholds: bool):
        if thresholds:
            g, b = _draw_thresholds(gen, self.g0, self.b0, self.sg, self.sb, self.jitter)
        else:
            g = b = None
        Wm = self.levels[0].draw(gen, R)
        Wb = self.levels[1].draw(gen, R)
        Wc = self.levels[2].draw(gen, R)
        return g, b, Wm, Wb, Wc

    # ---- scores for a batch ------------------------------------------------------------------
    @staticmethod
    def _scores(grp: _Group, G: np.ndarray, B: np.ndarray) -> np.ndarray:
        """(T, M, len(grp.cols)) scores of a jittered group for T threshold draws."""
        if grp.kind == 1:  # linear: clip((x - bad) / (good - bad), 0, 1)
            bl = B[:, grp.jidx]
            inv = 1.0 / (G[:, grp.jidx] - bl)
            S = np.subtract(grp.x, bl[:, None, :])
            S *= inv[:, None, :]
            np.clip(S, 0.0, 1.0, out=S)
            return S
        # traffic light, direction-normalised (lower is better): 0.5 * (great + not red)
        great = grp.x <= (G[:, grp.jidx] * grp.sign)[:, None, :]
        not_red = grp.x <= (B[:, grp.jidx] * grp.sign)[:, None, :]
        S = np.add(great, not_red, dtype=float)
        S *= 0.5
        return S

    def overall_batch(
        self,
        Wm: np.ndarray,
        Wb: np.ndarray,
        Wc: np.ndarray,
        G: np.ndarray | None = None,
        B: np.ndarray | None = None,
    ) -> np.ndarray:
        """Overall scores (Ns, M) of Ns samples. With threshold draws G, B (T, n_jit), sample s
        uses draw s // R (R = Ns / T)."""
        Ns = Wm.shape[0]
        M = self.M
        T = 1 if G is None else G.shape[0]
        R = Ns // T
        plan = self.plan
        wtot_b = np.add.reduceat(Wm, plan.metric_starts, axis=1)
        ratio = np.divide(Wb, wtot_b, out=np.zeros_like(Wb), where=wtot_b > 0)
        inv_wtot_b = np.divide(1.0, wtot_b, out=np.zeros_like(wtot_b), where=wtot_b > 0)
        ov = np.zeros((M, Ns))  # layout: model x sample (sample = draw * R + weight draw)
        tb = max(1, SUBBATCH_ELEMENTS // (M * self.max_group_cols))  # draws normalised together
        with np.errstate(divide="ignore", invalid="ignore"):
            for cat in self.cats:
                num = np.zeros((M, Ns))
                if cat.cols_f.size:
                    coef = Wm[:, cat.cols_f] * ratio[:, self.bench_of_col[cat.cols_f]]
                    np.matmul(cat.S_f, coef.T, out=num)
                # irregular (row, benchmark) pairs: jittered part of their numerators
                jpart: list[list[np.ndarray]] = [[] for _ in cat.benches]
                if cat.groups:
                    numj = np.zeros((T, M, R))
                for grp in cat.groups:
                    wg = Wm[:, grp.cols]
                    coef = wg * ratio[:, self.bench_of_col[grp.cols]]
                    coef = np.ascontiguousarray(coef.reshape(T, R, -1).transpose(0, 2, 1))
                    if grp.segs:
                        nbk, n = grp.benches.size, grp.n
                        wg = wg.reshape(T, R, nbk, n).transpose(0, 2, 3, 1)
                        wg = np.ascontiguousarray(wg)  # (T, nbk, n, R)
                        sp = np.empty((T, grp.pair_idx.shape[0], n))
                    for t0 in range(0, T, tb):
                        t1 = min(T, t0 + tb)
                        S = self._scores(grp, G[t0:t1], B[t0:t1])  # (tb, M, L)
                        numj[t0:t1] += np.matmul(S, coef[t0:t1])
                        if grp.segs:  # scores of the irregular pairs, while S is in cache
                            flat = S.reshape(t1 - t0, -1)
                            np.take(flat, grp.pair_idx, axis=1, out=sp[t0:t1], mode="clip")
                    for k, lo, hi, i in grp.segs:
                        jpart[i].append(np.matmul(sp[:, lo:hi], wg[:, k]))  # (T, rows, R)
                if cat.groups:
                    num3 = num.reshape(M, T, R)
                    num3 += numj.transpose(1, 0, 2)
                for bn, parts in zip(cat.benches, jpart, strict=True):
                    n = bn.rows.size
                    both = bn.stacked @ Wm[:, bn.cols].T  # [numerator (fixed part); w present]
                    nb = both[:n]
                    for part in parts:
                        nb.reshape(n, T, R)[...] += part.transpose(1, 0, 2)
                    # true benchmark share (w_bench / present weight) minus the one assumed
                    f = np.divide(1.0, both[n:], out=both[n:])
                    f -= inv_wtot_b[:, bn.b]
                    f *= Wb[:, bn.b]
                    f *= nb
                    num[bn.rows] += f
                wtot_c = Wb[:, cat.b0 : cat.b1].sum(axis=1)
                if cat.rows_irr.size:
                    w_pc = cat.pres_b @ Wb[:, cat.b0 : cat.b1].T
                    num_irr = num[cat.rows_irr] / w_pc
                num /= wtot_c
                if cat.rows_irr.size:
                    num[cat.rows_irr] = num_irr
                if cat.rows_miss.size:
                    num[cat.rows_miss] = 0.0
                num *= Wc[:, cat.c]
                ov += num
            wtot_o = Wc.sum(axis=1)
            if self.rows_o_irr.size:
                w_po = self.pres_c @ Wc.T
                ov_irr = ov[self.rows_o_irr] / w_po
            ov /= wtot_o
            if self.rows_o_irr.size:
                ov[self.rows_o_irr] = ov_irr
        if self.rows_o_miss.size:
            ov[self.rows_o_miss] = np.nan
        return ov.T


# ------------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------------


def _clean(v):
    """JSON-safe plain Python values (NaN -> None)."""
    if isinstance(v, Mapping):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_clean(x) for x in v]
    if isinstance(v, np.ndarray):
        return [_clean(x) for x in v.tolist()]
    if isinstance(v, np.bool_ | bool):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating | float):
        f = float(v)
        return f if math.isfinite(f) else None
    return v


@dataclass
class RobustnessResult:
    """Monte Carlo rank robustness of one setting (see the module docstring for the method).

    ``summary``: one row per model (sorted by current rank): model, score_now, rank_now,
    median_rank, rank_5, rank_95, mean_rank, p_rank1, p_topk. ``acceptability``: model x rank
    (1..n) -> probability. ``leave_one_out``: one row per removed category / benchmark.
    ``settings``: the run's inputs; ``scalars``: headline numbers (effective K, P(top model stays
    first), Spearman rho of sampled vs current rankings, Kendall tau vs default, ...).
    ``samples``: the first ``keep_samples`` samples (weights, thresholds, overall scores), for
    checks; :meth:`sample_changes` turns one into a ``Config.apply_changes`` mapping.
    """

    models: tuple[str, ...]
    settings: dict
    scalars: dict
    summary: pd.DataFrame
    acceptability: pd.DataFrame
    leave_one_out: pd.DataFrame
    samples: dict = field(default_factory=dict)
    config: Config | None = field(default=None, repr=False)

    def sample_changes(self, i: int) -> dict[str, dict[str, Any]]:
        """The changes that turn the scored config into kept sample ``i`` (weights, thresholds)."""
        cfg = self.config
        if cfg is None or not self.samples or i >= len(self.samples["metric_weights"]):
            raise IndexError(f"sample {i} was not kept (use keep_samples)")
        changes: dict[str, dict[str, Any]] = {}
        for c, w in zip(cfg.categories, self.samples["category_weights"][i], strict=True):
            changes[c.name] = {"weight": float(w)}
        paths = [f"{c.name}/{b.name}" for c in cfg.categories for b in c.benchmarks]
        for p, w in zip(paths, self.samples["benchmark_weights"][i], strict=True):
            changes[p] = {"weight": float(w)}
        mpaths = cfg.metric_paths()
        for p, w in zip(mpaths, self.samples["metric_weights"][i], strict=True):
            changes[p] = {"weight": float(w)}
        good, bad = self.samples["good"][i], self.samples["bad"][i]
        for j in self.samples["threshold_columns"]:
            changes[mpaths[j]]["good"] = float(good[j])
            changes[mpaths[j]]["bad"] = float(bad[j])
        return changes

    def to_dict(self, tables: bool = True) -> dict:
        out = {"settings": _clean(self.settings), "scalars": _clean(self.scalars)}
        if tables:
            out["summary"] = _clean(self.summary.to_dict(orient="records"))
            out["leave_one_out"] = _clean(self.leave_one_out.to_dict(orient="records"))
            out["acceptability"] = {
                "models": list(self.acceptability.index),
                "ranks": [int(r) for r in self.acceptability.columns],
                "p": _clean(self.acceptability.to_numpy()),
            }
        return out

    def write(self, out_dir) -> list[Path]:
        """robustness_summary.csv, rank_acceptability.csv, leave_one_out.csv, robustness.json."""
        from .io.export import safe_frame

        d = Path(out_dir)
        d.mkdir(parents=True, exist_ok=True)
        paths = [
            d / "robustness_summary.csv",
            d / "rank_acceptability.csv",
            d / "leave_one_out.csv",
            d / "robustness.json",
        ]
        safe_frame(self.summary).to_csv(paths[0], index=False)
        acc = self.acceptability.reset_index()
        acc.columns = ["model"] + [str(c) for c in self.acceptability.columns]
        safe_frame(acc).to_csv(paths[1], index=False)
        safe_frame(self.leave_one_out).to_csv(paths[2], index=False)
        text = json.dumps(self.to_dict(tables=False), indent=2, ensure_ascii=False)
        paths[3].write_text(text + "\n", encoding="utf-8")
        return paths


@dataclass
class SettingsComparison:
    """Two settings' rankings side by side."""

    kendall_tau: float
    spearman_rho: float
    top_a: list[str]
    top_b: list[str]
    top_changed: bool
    max_rank_change: int
    table: pd.DataFrame  # model, score_a, rank_a, score_b, rank_b, change (= rank_b - rank_a)

    def to_dict(self) -> dict:
        return _clean(
            {
                "kendall_tau": self.kendall_tau,
                "spearman_rho": self.spearman_rho,
                "top_a": self.top_a,
                "top_b": self.top_b,
                "top_changed": self.top_changed,
                "max_rank_change": self.max_rank_change,
            }
        )


# ------------------------------------------------------------------------------------------------
# Entry points
# ------------------------------------------------------------------------------------------------


def _values(raw: RawData, cfg: Config) -> tuple[np.ndarray, tuple[str, ...]]:
    return raw.aligned(cfg), tuple(raw.models)


def _top(ranks: np.ndarray, models, valid: np.ndarray | None = None) -> list[str]:
    if valid is not None and not valid.any():
        return []
    return [m for m, r in zip(models, ranks, strict=True) if r == 1]


def compare_settings(
    raw: RawData, config_a: Config, config_b: Config | Mapping[str, Mapping[str, Any]]
) -> SettingsComparison:
    """Kendall tau-b and Spearman rho between the rankings of two settings of the same data.

    ``config_b`` may be a Config or a changes mapping applied to ``config_a``. Rankings are the
    engine's ranks (missing overall scores tie last).
    """
    if isinstance(config_b, Mapping):
        config_b = config_a.apply_changes(config_b)
    va, models = _values(raw, config_a)
    vb, _ = _values(raw, config_b)
    sa = score_values(va, models, config_a)
    sb = score_values(vb, models, config_b)
    ra, rb = sa.ranks, sb.ranks
    ta = _top(ra, models, ~np.isnan(sa.overall_scores))
    tb = _top(rb, models, ~np.isnan(sb.overall_scores))
    table = pd.DataFrame(
        {
            "model": list(models),
            "score_a": sa.overall_scores,
            "rank_a": ra,
            "score_b": sb.overall_scores,
            "rank_b": rb,
            "change": rb - ra,
        }
    ).sort_values(["rank_b", "model"], kind="stable", ignore_index=True)
    return SettingsComparison(
        kendall_tau=kendall_tau(ra, rb),
        spearman_rho=spearman_rho(ra, rb),
        top_a=ta,
        top_b=tb,
        top_changed=set(ta) != set(tb),
        max_rank_change=int(np.abs(rb - ra).max()) if len(models) else 0,
        table=table,
    )


LOO_COLUMNS = [
    "level",
    "removed",
    "also_removed",
    "new_top",
    "top_changed",
    "kendall_tau",
    "spearman_rho",
    "max_rank_change",
    "max_change_model",
]


def _leave_one_out(scores: Scores, cfg: Config) -> pd.DataFrame:
    plan = scores.plan
    models = scores.models
    w_b, w_c = plan.w_bench, plan.w_cat
    nb, nc = w_b.size, w_c.size
    cat_of_bench = np.repeat(np.arange(nc), np.diff(np.r_[plan.bench_starts, nb]))
    zero = np.zeros(1, dtype=np.intp)
    over = np.array([plan.overall_skip])
    rows: list[dict] = []
    overall_parts = []

    cat_removed = [c for c in range(nc) if w_c[c] > 0]
    if cat_removed:
        Wc = np.tile(w_c, (len(cat_removed), 1))
        Wc[np.arange(len(cat_removed)), cat_removed] = 0.0
        overall_parts.append(aggregate_batch(scores.cat_scores, Wc, zero, over)[:, :, 0])
        for c in cat_removed:
            rows.append({"level": "category", "removed": plan.categories[c], "also_removed": ""})

    bench_removed = [b for b in range(nb) if w_b[b] > 0 and w_c[cat_of_bench[b]] > 0]
    if bench_removed:
        R = len(bench_removed)
        Wb = np.tile(w_b, (R, 1))
        Wb[np.arange(R), bench_removed] = 0.0
        Wc = np.tile(w_c, (R, 1))
        for r, b in enumerate(bench_removed):
            c = cat_of_bench[b]
            s = plan.bench_starts[c]
            e = plan.bench_starts[c + 1] if c + 1 < nc else nb
            also = ""
            if not (Wb[r, s:e] > 0).any():
                Wc[r, c] = 0.0
                also = plan.categories[c]
            rows.append(
                {
                    "level": "benchmark",
                    "removed": f"{plan.categories[c]}/{plan.benchmarks[b]}",
                    "also_removed": also,
                }
            )
        cats = aggregate_batch(scores.bench_scores, Wb, plan.bench_starts, plan.cat_skip)
        overall_parts.append(aggregate_batch(cats, Wc, zero, over)[:, :, 0])
    if not rows:
        return pd.DataFrame(columns=LOO_COLUMNS)
    overall = np.concatenate(overall_parts, axis=0)
    ranks = rank_samples(overall)
    base = scores.ranks
    taus = kendall_tau(ranks, base)
    rhos = spearman_rho(ranks, base[None, :])
    base_top = set(_top(base, models, ~np.isnan(scores.overall_scores)))
    delta = np.abs(ranks - base[None, :])
    for r, row in enumerate(rows):
        top = _top(ranks[r], models, ~np.isnan(overall[r]))
        k = int(np.argmax(delta[r])) if len(models) else 0
        row.update(
            new_top=" = ".join(top),
            top_changed=set(top) != base_top,
            kendall_tau=float(taus[r]),
            spearman_rho=float(rhos[r]),
            max_rank_change=int(delta[r, k]) if len(models) else 0,
            max_change_model=models[k] if len(models) and delta[r, k] > 0 else "",
        )
    return pd.DataFrame(rows, columns=LOO_COLUMNS)


def leave_one_out(raw: RawData, cfg: Config) -> pd.DataFrame:
    """The ranking with each positive-weight category, and each benchmark, removed in turn.

    Columns: level, removed (key path), also_removed (the category, when its last positive
    benchmark was removed), new_top (rank-1 models joined by ' = '), top_changed, kendall_tau and
    spearman_rho vs the full ranking, max_rank_change and the model with that change.
    """
    values, models = _values(raw, cfg)
    return _leave_one_out(score_values(values, models, cfg), cfg)


def _check_settings(
    samples, seed, concentration, threshold_jitter, jitter_scale, top_k, draws, cells, workers, blas
):
    problems = []

    def bad_int(v, name, low):
        return isinstance(v, bool) or not isinstance(v, int | np.integer) or v < low

    if bad_int(samples, "samples", 1):
        problems.append(Problem("samples", f"expected an integer >= 1, got {samples!r}"))
    if seed is not None and bad_int(seed, "seed", 0):
        problems.append(Problem("seed", f"expected an integer >= 0, got {seed!r}"))
    try:
        conc = float(concentration)
        if math.isnan(conc) or conc <= 0:
            raise ValueError
    except (TypeError, ValueError):
        problems.append(
            Problem("concentration", f"expected a number > 0 (or inf), got {concentration!r}")
        )
    try:
        jit = float(threshold_jitter)
        if not math.isfinite(jit) or jit < 0:
            raise ValueError
    except (TypeError, ValueError):
        problems.append(
            Problem("threshold_jitter", f"expected a number >= 0, got {threshold_jitter!r}")
        )
    if jitter_scale not in JITTER_SCALES:
        problems.append(
            Problem("jitter_scale", f"expected 'value' or 'span', got {jitter_scale!r}")
        )
    if bad_int(top_k, "top_k", 1):
        problems.append(Problem("top_k", f"expected an integer >= 1, got {top_k!r}"))
    if draws is not None and bad_int(draws, "threshold_draws", 1):
        problems.append(Problem("threshold_draws", f"expected an integer >= 1, got {draws!r}"))
    try:
        if not float(cells) > 0:
            raise ValueError
    except (TypeError, ValueError):
        problems.append(Problem("max_threshold_cells", f"expected a number > 0, got {cells!r}"))
    if bad_int(workers, "workers", 1):
        problems.append(Problem("workers", f"expected an integer >= 1, got {workers!r}"))
    if blas is not None and bad_int(blas, "blas_threads", 1):
        problems.append(Problem("blas_threads", f"expected an integer >= 1, got {blas!r}"))
    if problems:
        raise MlPegLikeError(problems)


def rank_robustness(
    raw: RawData,
    cfg: Config,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = 0,
    top_k: int = DEFAULT_TOP_K,
    concentration: float = DEFAULT_CONCENTRATION,
    threshold_jitter: float = DEFAULT_THRESHOLD_JITTER,
    jitter_scale: str = "value",
    threshold_draws: int | None = None,
    max_threshold_cells: float = DEFAULT_MAX_THRESHOLD_CELLS,
    default: Config | None = None,
    loo: bool = True,
    keep_samples: int = 0,
    progress: ProgressFn | None = None,
    workers: int = DEFAULT_WORKERS,
    blas_threads: int | None = 1,
) -> RobustnessResult:
    """Monte Carlo rank robustness of ``cfg`` on ``raw`` (method: see the module docstring).

    ``default``: a config (same tree) whose ranking is compared with ``cfg``'s (Kendall tau,
    Spearman rho in ``scalars``). ``progress(done, total)`` is called after every batch with the
    number of samples done. ``keep_samples``: keep the first n samples (weights, thresholds,
    overall scores) in ``result.samples``. ``workers``: batches computed concurrently by threads
    (numpy releases the GIL; the result does not depend on it). ``blas_threads``: BLAS threads
    during the run when threadpoolctl is installed (the products are small, so 1 is fastest,
    above all on a busy machine; None leaves BLAS alone). Raises MlPegLikeError on bad settings.
    """
    _check_settings(
        samples,
        seed,
        concentration,
        threshold_jitter,
        jitter_scale,
        top_k,
        threshold_draws,
        max_threshold_cells,
        workers,
        blas_threads,
    )
    t_start = time.perf_counter()
    values, models = _values(raw, cfg)
    M = len(models)
    if M == 0:
        raise MlPegLikeError([Problem("raw", "no models to rank")])
    N = int(samples)
    concentration = float(concentration)
    jitter = float(threshold_jitter)
    eng = _Engine(values, models, cfg, concentration, jitter, jitter_scale)
    n_jit = eng.jit_cols.size
    use_thr = n_jit > 0

    if use_thr:
        if threshold_draws is not None:
            K = min(int(threshold_draws), N)
        else:
            K = int(min(N, max(1, float(max_threshold_cells) // (M * n_jit))))
        R = -(-N // K)
        K = -(-N // R)
        n_blocks = K
        per_chunk = max(1, CHUNK_ELEMENTS // (M * eng.max_group_cols))
        per_chunk = max(1, min(per_chunk, CHUNK_ELEMENTS // (M * R * 4) or 1, n_blocks))
    else:
        K = 0
        R = WEIGHT_BLOCK
        n_blocks = -(-N // R)
        per_chunk = max(1, min(8, CHUNK_ELEMENTS // (M * R * 4) or 1, n_blocks))
    children = np.random.SeedSequence(seed).spawn(n_blocks)

    valid = ~eng.omiss
    vidx = np.flatnonzero(valid)
    n_valid = vidx.size
    counts = np.zeros((M, M + 1), dtype=np.int64)  # ranks 1..M (M + 1 never used)
    base_avg = None
    if n_valid >= 2:
        base_avg = _average_ranks(np.round(eng.scores.overall_scores[vidx], ROUND_DECIMALS)[None])
    keep = max(0, min(int(keep_samples), N))
    model_of = np.arange(M)

    def run_chunk(start: int):
        blocks = range(start, min(n_blocks, start + per_chunk))
        draws = [eng.draw_block(np.random.default_rng(children[k]), R, use_thr) for k in blocks]
        Wm = np.concatenate([d[2] for d in draws])
        Wb = np.concatenate([d[3] for d in draws])
        Wc = np.concatenate([d[4] for d in draws])
        G = np.stack([d[0] for d in draws]) if use_thr else None
        B = np.stack([d[1] for d in draws]) if use_thr else None
        ov = eng.overall_batch(Wm, Wb, Wc, G, B)  # (len(blocks) * R, M)
        s0 = start * R
        n_take = min(ov.shape[0], N - s0)
        ov = ov[:n_take]
        ranks = np.full((n_take, M), n_valid + 1, dtype=np.int64)
        rho = None
        if n_valid:
            V = np.round(ov[:, vidx], ROUND_DECIMALS)
            rv, avg = _ranks(V, average=base_avg is not None)
            ranks[:, vidx] = rv
            if base_avg is not None:
                rho = _pearson_rows(avg, np.broadcast_to(base_avg, V.shape))
        kept = None
        if s0 < keep:
            k = min(keep - s0, n_take)
            kept = {"mw": Wm[:k], "bw": Wb[:k], "cw": Wc[:k], "ov": ov[:k]}
            if use_thr:
                kept["g"] = G[np.arange(k) // R]
                kept["b"] = B[np.arange(k) // R]
        return n_take, ranks, rho, kept

    starts = list(range(0, n_blocks, per_chunk))
    n_workers = max(1, min(int(workers), len(starts)))
    rhos, kept_parts = [], []
    done = 0
    with _blas_limit(blas_threads), ThreadPoolExecutor(n_workers) as pool:
        # chunks run n_workers at a time; results are consumed in order (deterministic)
        results = pool.map(run_chunk, starts) if n_workers > 1 else map(run_chunk, starts)
        for n_take, ranks, rho, kept in results:
            flat = (model_of[None, :] * (M + 1) + ranks).ravel()
            counts += np.bincount(flat, minlength=M * (M + 1)).reshape(M, M + 1)
            if rho is not None:
                rhos.append(rho)
            if kept is not None:
                kept_parts.append(kept)
            done += n_take
            if progress is not None:
                progress(done, N)
    t_mc = time.perf_counter() - t_start

    # ---- summaries ----------------------------------------------------------------------------
    acc = counts[:, 1:] / N  # model x rank 1..M
    cum = np.cumsum(counts[:, 1:], axis=1)

    def quantile(q: float) -> np.ndarray:
        return np.argmax(cum >= q * N - 1e-9, axis=1) + 1

    k_top = min(int(top_k), M)
    rank_now = eng.scores.ranks
    ranks_axis = np.arange(1, M + 1)
    summary = pd.DataFrame(
        {
            "model": list(models),
            "score_now": eng.scores.overall_scores,
            "rank_now": rank_now,
            "median_rank": quantile(0.5),
            "rank_5": quantile(0.05),
            "rank_95": quantile(0.95),
            "mean_rank": acc @ ranks_axis,
            "p_rank1": acc[:, 0],
            "p_topk": acc[:, :k_top].sum(axis=1),
        }
    )
    order = np.lexsort((np.arange(M), rank_now))
    summary = summary.iloc[order].reset_index(drop=True)
    acceptability = pd.DataFrame(
        acc[order],
        index=pd.Index([models[i] for i in order], name="model"),
        columns=pd.Index(ranks_axis, name="rank"),
    )

    t0 = time.perf_counter()
    loo_df = _leave_one_out(eng.scores, cfg) if loo else pd.DataFrame(columns=LOO_COLUMNS)
    t_loo = time.perf_counter() - t0

    top_now = _top(rank_now, models, valid)
    top_idx = [models.index(m) for m in top_now]
    rho_all = np.concatenate(rhos) if rhos else np.zeros(0)
    scalars: dict[str, Any] = {
        "models": M,
        "models_ranked": int(n_valid),
        "samples": N,
        "threshold_draws": K,
        "samples_per_threshold_draw": R if use_thr else None,
        "jittered_thresholds": int(n_jit),
        "top_model": " = ".join(top_now),
        "p_top_model_stays_first": float(acc[top_idx, 0].min()) if top_idx else None,
        "spearman_vs_current_median": float(np.median(rho_all)) if rho_all.size else None,
        "spearman_vs_current_5": float(np.quantile(rho_all, 0.05)) if rho_all.size else None,
        "spearman_vs_current_mean": float(rho_all.mean()) if rho_all.size else None,
        "leave_one_out_top_changes": int(loo_df["top_changed"].sum()) if len(loo_df) else 0,
        "kendall_tau_vs_default": None,
        "spearman_rho_vs_default": None,
        "seconds_monte_carlo": round(t_mc, 4),
        "seconds_leave_one_out": round(t_loo, 4),
    }
    if default is not None:
        dv, _ = _values(raw, default)
        d_ranks = score_values(dv, models, default).ranks
        scalars["kendall_tau_vs_default"] = kendall_tau(rank_now, d_ranks)
        scalars["spearman_rho_vs_default"] = spearman_rho(rank_now, d_ranks)
    settings = {
        "samples": N,
        "seed": seed,
        "top_k": k_top,
        "concentration": concentration,
        "threshold_jitter": jitter,
        "jitter_scale": jitter_scale,
        "threshold_draws_requested": threshold_draws,
        "max_threshold_cells": float(max_threshold_cells),
        "weight_floor": WEIGHT_FLOOR,
        "method": (
            "Dirichlet(concentration * w / sum(w)) * sum(w) per group at every level; good/bad "
            "moved by U(-x, x) * scale, invalid pairs redrawn; blocked Monte Carlo: "
            "threshold_draws distinct threshold draws, each shared by "
            "samples_per_threshold_draw weight draws; quantiles: smallest rank r with "
            "P(rank <= r) >= q"
        ),
    }
    samples_out: dict[str, Any] = {}
    if keep:
        P = values.shape[1]
        good = np.full((keep, P), np.nan)
        bad = np.full((keep, P), np.nan)
        if use_thr:
            good[:, eng.jit_cols] = np.concatenate([k["g"] for k in kept_parts])
            bad[:, eng.jit_cols] = np.concatenate([k["b"] for k in kept_parts])
        samples_out = {
            "metric_weights": np.concatenate([k["mw"] for k in kept_parts]),
            "benchmark_weights": np.concatenate([k["bw"] for k in kept_parts]),
            "category_weights": np.concatenate([k["cw"] for k in kept_parts]),
            "good": good,
            "bad": bad,
            "threshold_columns": eng.jit_cols.copy(),
            "overall": np.concatenate([k["ov"] for k in kept_parts]),
        }
    return RobustnessResult(
        models=models,
        settings=settings,
        scalars=scalars,
        summary=summary,
        acceptability=acceptability,
        leave_one_out=loo_df,
        samples=samples_out,
        config=cfg,
    )


__all__ = [
    "RobustnessResult",
    "SettingsComparison",
    "aggregate_batch",
    "compare_settings",
    "kendall_tau",
    "leave_one_out",
    "rank_robustness",
    "rank_samples",
    "spearman_rho",
]
