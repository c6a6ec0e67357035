"""The batched scorer: overall scores of many sampled settings at once.

The metric scores' missing pattern does not depend on the sample (parameters stay in their
valid range, positive weights stay positive), so the state of every group (full, partial, none
present: :func:`ml_peg_like.aggregation.group_state`) is the current one and the kernel's rules
become matrix products: the numerators of a category for a batch of weight samples are
``S0[:, cols] @ C[:, cols].T`` with ``C = w_metric * w_bench / sum_benchmark(w_metric)`` (S0:
metric scores with missing = 0), and only the rows where a ``skip`` group is partial get their
present-weight denominators. Jittered columns are scored by their own normaliser
(:func:`~ml_peg_like.normalisers.apply_normaliser`) on all the draws of a sub-batch at once (the
draws side by side as columns), a missing value scoring 0 in the numerators as in the kernel.
No Python loop runs over samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..aggregation import PARTIAL, group_state, group_sum
from ..config import Config
from ..normalisers import Normaliser, apply_normaliser, get_normaliser
from ..scoring import Scores, apply_vetoes, score_values
from .sampling import DirichletLevel, parameter_jitter

SUBBATCH_ELEMENTS = 1 << 17  # draws normalised together: about 1 MB, stays in cache


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

    norm: Normaliser
    pnames: tuple[str, ...]  # the resolved parameters passed to the normaliser
    n: int
    benches: np.ndarray  # global benchmark index of each block of n columns
    cols: np.ndarray  # (len(benches) * n,) global columns
    jidx: np.ndarray  # indices into the jitter arrays
    x: np.ndarray  # (M, len(cols)) raw values
    nan_possible: bool  # a score may be NaN (missing value, untrusted normaliser): set to 0
    # irregular (row, benchmark) pairs, benchmark-major: their row, and their n columns within
    # the group; and per benchmark (block k, first pair, end, index into the category's
    # irregular benchmarks)
    pair_rows: np.ndarray
    pair_cols: np.ndarray
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


@dataclass
class _Inputs:
    """What building the categories' pieces reads: raw values, metric scores (missing = 0)
    and their missing mask, the columns that count (``eff``) and are jittered (``jit``, their
    index ``jpos`` in the jitter arrays), each column's normaliser group, and the kernel's
    benchmark and category states."""

    values: np.ndarray
    S0: np.ndarray
    miss: np.ndarray
    eff: np.ndarray
    jit: np.ndarray
    jpos: np.ndarray
    norm_of: np.ndarray
    bstate: np.ndarray
    cstate: np.ndarray


@dataclass
class _Batch:
    """One batch of samples: weights per metric and benchmark, parameter draws ``D`` (T of
    them, each shared by R weight draws), each metric's benchmark share (w_bench / the
    benchmark's metric weight), its inverse weight total, and the draws normalised together."""

    Wm: np.ndarray
    Wb: np.ndarray
    D: dict[str, np.ndarray] | None
    T: int
    R: int
    ratio: np.ndarray
    inv_wtot_b: np.ndarray
    tb: int


class BatchScorer:
    """Overall scores of batches of sampled settings (weights at every level, jittered
    normaliser parameters) for one config and one raw matrix; ``scores``: the current ones."""

    def __init__(
        self,
        values: np.ndarray,
        models: tuple[str, ...],
        cfg: Config,
        concentration: float,
        jitter: float,
        jitter_scale: str,
        instances: dict | None = None,
    ):
        self.cfg = cfg
        self.models = models
        self.scores: Scores = score_values(values, models, cfg, instances)
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
            DirichletLevel(w_m, plan.metric_starts, concentration),
            DirichletLevel(w_b, plan.bench_starts, concentration),
            DirichletLevel(w_c, np.zeros(1, dtype=np.intp), concentration),
        )

        ms = sc.metric_scores
        miss = np.isnan(ms)
        S0 = np.where(miss, 0.0, ms)
        cmiss = np.isnan(sc.cat_scores)
        self.omiss = np.isnan(sc.overall_scores)
        # the state of every group (full / partial / none present), from the kernel
        bstate = group_state(ms, w_m, plan.metric_starts)
        cstate = group_state(sc.bench_scores, w_b, plan.bench_starts)
        ostate = group_state(sc.cat_scores, w_c, np.zeros(1, dtype=np.intp))

        # per-instance metrics keep their parameters (their weights are sampled): a jittered
        # column is re-normalised from one raw value per model, which they do not have
        fixed_params = np.zeros(P, dtype=bool)
        fixed_params[list(sc.instances)] = True
        self.jitter = parameter_jitter(plan, sc.resolved, eff & ~fixed_params, jitter, jitter_scale)
        self.jit_cols = self.jitter.cols
        jit = np.zeros(P, dtype=bool)
        jit[self.jit_cols] = True
        jpos = np.full(P, -1)
        jpos[self.jit_cols] = np.arange(self.jit_cols.size)
        norm_of = np.zeros(P, dtype=np.intp)  # index into plan.groups
        for k, (_name, cols, _static, _dyn) in enumerate(plan.groups):
            norm_of[cols] = k

        inputs = _Inputs(values, S0, miss, eff, jit, jpos, norm_of, bstate, cstate)
        self.cats: list[_Cat] = [self._category(c, inputs) for c in range(nc) if w_c[c] > 0]
        self.rows_o_irr = np.zeros(0, dtype=np.intp)
        self.pres_c = np.zeros((0, nc))
        if plan.overall_skip:
            self.rows_o_irr = np.flatnonzero(ostate[:, 0] == PARTIAL)
            self.pres_c = (~cmiss[self.rows_o_irr]).astype(float)
        self.rows_o_miss = np.flatnonzero(self.omiss)
        self.max_group_cols = max([g.cols.size for c in self.cats for g in c.groups] + [1])

    # ---- the pieces of a category ----------------------------------------------------------
    def _category(self, c: int, inp: _Inputs) -> _Cat:
        """Category ``c`` (positive weight): its fixed columns, the partial benchmarks of its
        skip benchmarks, its jittered groups and its partial / missing rows."""
        plan, sc, P, nb = self.plan, self.scores, self.P, self.nb
        b0_ = int(plan.bench_starts[c])
        b1_ = int(plan.bench_starts[c + 1]) if c + 1 < self.nc else nb
        c_lo = int(plan.metric_starts[b0_]) if b0_ < nb else P
        c_hi = int(plan.metric_starts[b1_]) if b1_ < nb else P
        cols = np.arange(c_lo, c_hi)
        cols = cols[inp.eff[cols]]
        fixed = cols[~inp.jit[cols]]
        S_f = np.ascontiguousarray(inp.S0[:, fixed])
        benches, irr_of = self._partial_benches(b0_, b1_, cols, fixed, inp)
        groups = self._jittered_groups(cols, benches, irr_of, inp)
        rows_irr = np.zeros(0, dtype=np.intp)
        pres_b = np.zeros((0, b1_ - b0_))
        if plan.cat_skip[c]:
            rows_irr = np.flatnonzero(inp.cstate[:, c] == PARTIAL)
            pres_b = (~np.isnan(sc.bench_scores[rows_irr, b0_:b1_])).astype(float)
        return _Cat(
            c=c,
            b0=b0_,
            b1=b1_,
            groups=groups,
            cols_f=fixed,
            S_f=S_f,
            benches=benches,
            rows_irr=rows_irr,
            pres_b=pres_b,
            rows_miss=np.flatnonzero(np.isnan(sc.cat_scores[:, c])),
        )

    def _partial_benches(
        self, b0_: int, b1_: int, cols: np.ndarray, fixed: np.ndarray, inp: _Inputs
    ) -> tuple[list[_Bench], dict[int, int]]:
        """The skip benchmarks of the category with partial rows, and each one's index in
        that list by benchmark."""
        plan, w_b = self.plan, self.plan.w_bench
        jit, S0, miss = inp.jit, inp.S0, inp.miss
        benches: list[_Bench] = []
        irr_of: dict[int, int] = {}
        for b in range(b0_, b1_):
            if not (w_b[b] > 0 and plan.bench_skip[b]):
                continue
            bj = cols[jit[cols] & (self.bench_of_col[cols] == b)]
            bj = bj[np.argsort(inp.norm_of[bj], kind="stable")]
            bf = fixed[self.bench_of_col[fixed] == b]
            gcols = np.r_[bj, bf].astype(np.intp)
            if not gcols.size:
                continue
            rows = np.flatnonzero(inp.bstate[:, b] == PARTIAL)
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
        return benches, irr_of

    def _jittered_groups(
        self, cols: np.ndarray, benches: list[_Bench], irr_of: dict[int, int], inp: _Inputs
    ) -> list[_Group]:
        """The category's jittered columns, grouped by normaliser and by how many such
        columns a benchmark has."""
        groups: list[_Group] = []
        for k, (name, _cols, _static, _dyn) in enumerate(self.plan.groups):
            kc = cols[inp.jit[cols] & (inp.norm_of[cols] == k)]
            if not kc.size:
                continue
            bk = self.bench_of_col[kc]
            by_n: dict[int, list[int]] = {}
            for b in np.unique(bk):
                by_n.setdefault(int((bk == b).sum()), []).append(int(b))
            for n, blist in by_n.items():
                groups.append(self._group(name, kc, bk, n, blist, benches, irr_of, inp))
        return groups

    def _group(self, name, kc, bk, n, blist, benches, irr_of, inp: _Inputs) -> _Group:
        """The jittered columns ``kc`` of normaliser ``name`` in benchmarks ``blist`` (n each),
        with the irregular (row, benchmark) pairs of those benchmarks."""
        norm = get_normaliser(name)
        gc = np.concatenate([kc[bk == b] for b in blist]).astype(np.intp)
        segs, prow, pcol, at = [], [], [], 0
        for pos, b in enumerate(blist):
            if b in irr_of:
                r = benches[irr_of[b]].rows
                prow.append(r)
                pcol.append(np.broadcast_to(pos * n + np.arange(n), (r.size, n)))
                segs.append((pos, at, at + r.size, irr_of[b]))
                at += r.size
        return _Group(
            norm=norm,
            pnames=tuple(self.scores.resolved.get(name, {})),
            n=n,
            benches=np.asarray(blist),
            cols=gc,
            jidx=inp.jpos[gc],
            x=np.ascontiguousarray(inp.values[:, gc]),
            nan_possible=bool(inp.miss[:, gc].any()) or not norm.trusted,
            pair_rows=np.concatenate(prow) if prow else np.zeros(0, np.intp),
            pair_cols=np.concatenate(pcol) if pcol else np.zeros((0, n), np.intp),
            segs=segs,
        )

    # ---- sampling --------------------------------------------------------------------------
    def draw_block(self, gen: np.random.Generator, R: int, parameters: bool):
        """One block: a parameter draw ({name: (n_jit,)}, or None) and R weight draws."""
        d = self.jitter.draw(gen) if parameters else None
        Wm = self.levels[0].draw(gen, R)
        Wb = self.levels[1].draw(gen, R)
        Wc = self.levels[2].draw(gen, R)
        return d, Wm, Wb, Wc

    # ---- scores for a batch ------------------------------------------------------------------
    def _scores(self, grp: _Group, D: dict[str, np.ndarray], t0: int, t1: int) -> np.ndarray:
        """(M, t1 - t0, len(grp.cols)) scores of a jittered group for draws t0..t1: the draws'
        columns side by side in one call of the normaliser; a NaN score counts 0."""
        T, L = t1 - t0, grp.cols.size
        params = {pn: D[pn][t0:t1, grp.jidx].reshape(-1) for pn in grp.pnames}
        S = apply_normaliser(grp.norm, np.tile(grp.x, (1, T)), params)
        if grp.nan_possible:
            np.copyto(S, 0.0, where=np.isnan(S))
        return S.reshape(self.M, T, L)

    def overall_batch(
        self,
        Wm: np.ndarray,
        Wb: np.ndarray,
        Wc: np.ndarray,
        D: dict[str, np.ndarray] | None = None,
    ) -> np.ndarray:
        """Overall scores (Ns, M) of Ns samples. With parameter draws D ({name: (T, n_jit)}),
        sample s uses draw s // R (R = Ns / T)."""
        Ns = Wm.shape[0]
        M = self.M
        T = 1 if D is None else next(iter(D.values())).shape[0]
        wtot_b = group_sum(Wm, self.plan.metric_starts)
        batch = _Batch(
            Wm=Wm,
            Wb=Wb,
            D=D,
            T=T,
            R=Ns // T,
            ratio=np.divide(Wb, wtot_b, out=np.zeros_like(Wb), where=wtot_b > 0),
            inv_wtot_b=np.divide(1.0, wtot_b, out=np.zeros_like(wtot_b), where=wtot_b > 0),
            tb=max(1, SUBBATCH_ELEMENTS // (M * self.max_group_cols)),  # draws normalised together
        )
        ov = np.zeros((M, Ns))  # layout: model x sample (sample = draw * R + weight draw)
        with np.errstate(divide="ignore", invalid="ignore"):
            for cat in self.cats:
                num = self._category_scores(cat, batch)
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
        return apply_vetoes(ov.T, self.scores.vetoed)  # vetoed models stay at 0

    def _category_scores(self, cat: _Cat, bt: _Batch) -> np.ndarray:
        """(M, Ns) scores of a category: numerators over the category's weight (or, for its
        partial rows, over the present weight), 0 where it is missing."""
        M, Ns = self.M, bt.Wm.shape[0]
        Wm, Wb, T, R = bt.Wm, bt.Wb, bt.T, bt.R
        num = np.zeros((M, Ns))
        if cat.cols_f.size:
            coef = Wm[:, cat.cols_f] * bt.ratio[:, self.bench_of_col[cat.cols_f]]
            np.matmul(cat.S_f, coef.T, out=num)
        # irregular (row, benchmark) pairs: jittered part of their numerators
        jpart: list[list[np.ndarray]] = [[] for _ in cat.benches]
        if cat.groups:
            numj = np.zeros((T, M, R))
            for grp in cat.groups:
                self._jittered_numerators(grp, bt, numj, jpart)
            num3 = num.reshape(M, T, R)
            num3 += numj.transpose(1, 0, 2)
        for bn, parts in zip(cat.benches, jpart, strict=True):
            self._partial_bench(bn, parts, bt, num)
        wtot_c = Wb[:, cat.b0 : cat.b1].sum(axis=1)
        if cat.rows_irr.size:
            w_pc = cat.pres_b @ Wb[:, cat.b0 : cat.b1].T
            num_irr = num[cat.rows_irr] / w_pc
        num /= wtot_c
        if cat.rows_irr.size:
            num[cat.rows_irr] = num_irr
        if cat.rows_miss.size:
            num[cat.rows_miss] = 0.0
        return num

    def _jittered_numerators(self, grp: _Group, bt: _Batch, numj, jpart) -> None:
        """Add a jittered group's part of the numerators to ``numj`` (T, M, R), and its part
        of each irregular benchmark's numerators to ``jpart``."""
        T, R, tb = bt.T, bt.R, bt.tb
        wg = bt.Wm[:, grp.cols]
        coef = wg * bt.ratio[:, self.bench_of_col[grp.cols]]
        coef = np.ascontiguousarray(coef.reshape(T, R, -1).transpose(0, 2, 1))
        if grp.segs:
            nbk, n = grp.benches.size, grp.n
            wg = wg.reshape(T, R, nbk, n).transpose(0, 2, 3, 1)
            wg = np.ascontiguousarray(wg)  # (T, nbk, n, R)
            sp = np.empty((T, grp.pair_rows.size, n))
        for t0 in range(0, T, tb):
            t1 = min(T, t0 + tb)
            S = self._scores(grp, bt.D, t0, t1)  # (M, tb, L)
            numj[t0:t1] += np.matmul(S.transpose(1, 0, 2), coef[t0:t1])
            if grp.segs:  # scores of the irregular pairs, while S is in cache
                pairs = S[grp.pair_rows[:, None], :, grp.pair_cols]  # (pairs, n, tb)
                sp[t0:t1] = pairs.transpose(2, 0, 1)
        for k, lo, hi, i in grp.segs:
            jpart[i].append(np.matmul(sp[:, lo:hi], wg[:, k]))  # (T, rows, R)

    def _partial_bench(self, bn: _Bench, parts, bt: _Batch, num: np.ndarray) -> None:
        """Correct the numerators of a benchmark's partial rows: its true share (w_bench /
        present weight) instead of the one assumed (w_bench / all its weight)."""
        T, R = bt.T, bt.R
        n = bn.rows.size
        both = bn.stacked @ bt.Wm[:, bn.cols].T  # [numerator (fixed part); w present]
        nb = both[:n]
        for part in parts:
            nb.reshape(n, T, R)[...] += part.transpose(1, 0, 2)
        # true benchmark share (w_bench / present weight) minus the one assumed
        f = np.divide(1.0, both[n:], out=both[n:])
        f -= bt.inv_wtot_b[:, bn.b]
        f *= bt.Wb[:, bn.b]
        f *= nb
        num[bn.rows] += f
