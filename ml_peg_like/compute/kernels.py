"""The metric kernels: one value of a SPEC metric for every segment, in one vectorised pass.

:class:`Rows` is the set of rows a pass reads (with cached residuals shared by the passes over
the same rows); :func:`segment_values` evaluates one metric function over all its segments.
The formulas are those of :mod:`ml_peg_like.metrics`, written as segment reductions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import metrics as _m
from ..norms import scaled_norms
from .segments import compress, fix_rms, seg_mean, seg_order, seg_rms
from .spec import FNS, VECTOR_COLS, MetricSpec
from .table import Table


class Rows:
    """The rows one pass works on: full columns with the rows outside the pass moved to a
    trailing dummy segment (no copy), or a gathered subset when the pass uses few rows.
    Derived arrays (residuals, counts) are cached for the passes that share them."""

    def __init__(self, t: Table, sel_rows: np.ndarray | None, per_instance: bool = False):
        # segments: (model, benchmark) pairs, or (model, benchmark, instance) triples
        g, n_groups, rows_g = (
            (t.inst_g, t.inst_keys.size, t.inst_rows)
            if per_instance
            else (t.g, t.n_groups, t.rows_g)
        )
        self.n = n_groups + 1  # + the dummy segment
        self.n_samples = t.n_samples
        self._cols = {"sample": t.sample, **t.cols}
        self.idx = None
        if sel_rows is None:
            self.g = g
            self.cnt = np.append(rows_g, 0)
        elif np.count_nonzero(sel_rows) < 0.3 * sel_rows.size:
            self.idx = np.flatnonzero(sel_rows)
            self.g = g[self.idx]
            self.cnt = None
        else:
            self.g = np.where(sel_rows, g, n_groups)
            out = g[~sel_rows]
            self.cnt = np.append(rows_g - np.bincount(out, minlength=n_groups), out.size)
        self._cache: dict[Any, np.ndarray] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        key = ("col", name)
        if key not in self._cache:
            col = self._cols[name]
            self._cache[key] = col if self.idx is None else col[self.idx]
        return self._cache[key]

    def counts(self) -> np.ndarray:
        if self.cnt is None:
            self.cnt = np.bincount(self.g, minlength=self.n)
        return self.cnt

    def cached(self, key, make) -> np.ndarray:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def scaled(self, ms: MetricSpec) -> tuple[np.ndarray, np.ndarray]:
        """(reference, prediction), divided by n_atoms or sqrt(n_atoms) for ``per_atom``."""
        per_atom = ms.per_atom if "per_atom" in FNS[ms.fn].options else "none"
        r, p = self["reference"], self["prediction"]
        if per_atom == "none":
            return r, p
        div = self.cached(
            ("div", per_atom),
            lambda: self["n_atoms"] if per_atom == "n" else np.sqrt(self["n_atoms"]),
        )
        return (
            self.cached(("r", per_atom), lambda: r / div),
            self.cached(("p", per_atom), lambda: p / div),
        )

    def residual(self, ms: MetricSpec) -> np.ndarray:
        """``r_i = ref_i - pred_i`` (after per_atom), times ``w_i`` when weighted."""
        per_atom = ms.per_atom if "per_atom" in FNS[ms.fn].options else "none"
        weighted = ms.weighted and "weighted" in FNS[ms.fn].options

        def make():
            r, p = self.scaled(ms)
            d = r - p
            return d * self["weight"] if weighted else d

        return self.cached(("d", per_atom, weighted), make)


def _vector_residuals(rows: Rows) -> list[np.ndarray]:
    return [rows[f"reference_{c}"] - rows[f"prediction_{c}"] for c in VECTOR_COLS]


def _squared_lengths(comps: list[np.ndarray], size: int) -> np.ndarray:
    d2 = np.zeros(size)
    with np.errstate(over="ignore", under="ignore"):
        for d in comps:
            d2 += d * d
    return d2


def _vector_mae(ms: MetricSpec, rows: Rows) -> np.ndarray:
    """Mean length of the residual vectors, or (``component``) mean |residual| per component."""
    g, n = rows.g, rows.n
    comps = _vector_residuals(rows)
    if ms.mode == "component":
        return seg_mean(g, sum(np.abs(d) for d in comps), n, rows.counts()) / 3.0
    norms = np.sqrt(_squared_lengths(comps, g.size))
    redo = np.flatnonzero(~np.isfinite(norms) | (norms == 0))
    if redo.size:  # a square overflowed or underflowed: scaled lengths (exact 0 stays 0)
        norms[redo] = _norms(comps, redo)
    return seg_mean(g, norms, n, rows.counts())


def _vector_rmse(ms: MetricSpec, rows: Rows) -> np.ndarray:
    """Root mean squared length of the residual vectors (``component``: per component)."""
    g, n = rows.g, rows.n
    comps = _vector_residuals(rows)
    ms2 = seg_mean(g, _squared_lengths(comps, g.size), n, rows.counts())
    out = np.sqrt(ms2 / 3.0) if ms.mode == "component" else np.sqrt(ms2)
    factor = 1 / 3 if ms.mode == "component" else 1.0
    return fix_rms(out, g, n, lambda sel: _norms(comps, sel), rows.counts(), factor)


def _mean_hellinger(ms: MetricSpec, rows: Rows) -> np.ndarray:
    """Mean over a segment's variables of the Hellinger distance of their distributions."""
    g, n = rows.g, rows.n
    with np.errstate(invalid="ignore"):  # negative probabilities sit in the dummy segment
        d = np.sqrt(rows["reference"]) - np.sqrt(rows["prediction"])
    S = rows.n_samples
    ids, keys = compress(g * S + rows["sample"], n * S)
    h = np.sqrt(0.5 * np.bincount(ids, weights=d * d, minlength=keys.size))
    return seg_mean(keys // S, h, n)


def _share_negative(ms: MetricSpec, rows: Rows) -> np.ndarray:
    return seg_mean(rows.g, (rows["prediction"] < 0).astype(float), rows.n, rows.counts())


def _share_nonzero(ms: MetricSpec, rows: Rows) -> np.ndarray:
    """Share of |prediction| > tol, over the samples whose reference is 0 (or over all)."""
    g, n = rows.g, rows.n
    p, r = rows["prediction"], rows["reference"]
    x = (np.abs(p) > ms.tol).astype(float)
    if ms.where == "reference_zero":
        sel = r == 0
        return seg_mean(g[sel], x[sel], n)
    return seg_mean(g, x, n, rows.counts())


def _mean_abs_residual(ms: MetricSpec, rows: Rows) -> np.ndarray:
    return seg_mean(rows.g, np.abs(rows.residual(ms)), rows.n, rows.counts())


def _rmse(ms: MetricSpec, rows: Rows) -> np.ndarray:
    return seg_rms(rows.g, rows.residual(ms), rows.n, rows.counts())


def _mean_residual(ms: MetricSpec, rows: Rows) -> np.ndarray:
    return seg_mean(rows.g, rows.residual(ms), rows.n, rows.counts())


def _mape(ms: MetricSpec, rows: Rows) -> np.ndarray:
    r, p = rows.scaled(ms)
    return seg_mean(rows.g, _m._ape(r, p), rows.n, rows.counts())


def _r2(ms: MetricSpec, rows: Rows) -> np.ndarray:
    """1 - SS_res / SS_tot per segment (missing where the references do not vary)."""
    g, n = rows.g, rows.n
    r, _p = rows.scaled(ms)
    mean = seg_mean(g, r, n, rows.counts())
    dev = r - mean[g]
    ss_tot = np.bincount(g, weights=dev * dev, minlength=n)
    d = rows.residual(ms)
    ss_res = np.bincount(g, weights=d * d, minlength=n)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - ss_res / ss_tot
    out[ss_tot == 0] = np.nan
    return out


def _max_abs_error(ms: MetricSpec, rows: Rows) -> np.ndarray:
    g, n = rows.g, rows.n
    out = np.full(n, np.nan)
    if g.size:
        order, starts, ids = seg_order(g, n)
        out[ids] = np.maximum.reduceat(np.abs(rows.residual(ms))[order], starts)
    return out


def _mape_top_quantile(ms: MetricSpec, rows: Rows) -> np.ndarray:
    """MAPE over the share ``quantile`` of each segment's samples with the largest |reference|."""
    g, n = rows.g, rows.n
    r, p = rows.scaled(ms)
    a = np.abs(r)
    out = np.full(n, np.nan)
    if g.size == 0:
        return out
    order = np.lexsort((-a, g))  # by segment, then |ref| descending
    cnt = rows.counts()
    ids = np.flatnonzero(cnt)
    starts = (np.cumsum(cnt) - cnt)[ids]
    k = _m.top_quantile_count(cnt[ids], ms.quantile)
    thr = np.full(n, np.inf)
    thr[ids] = a[order[starts + k - 1]]
    keep = a >= thr[g]
    return seg_mean(g[keep], _m._ape(r[keep], p[keep]), n)


#: the kernel of each SPEC function
_KERNELS = {
    "vector_mae": _vector_mae,
    "vector_rmse": _vector_rmse,
    "mean_hellinger": _mean_hellinger,
    "share_negative": _share_negative,
    "share_nonzero": _share_nonzero,
    "mae": _mean_abs_residual,
    "log_partition_error": _mean_abs_residual,
    "rmse": _rmse,
    "mpe_error": _mean_residual,
    "mape": _mape,
    "r2": _r2,
    "max_abs_error": _max_abs_error,
    "mape_top_quantile": _mape_top_quantile,
}


def segment_values(ms: MetricSpec, rows: Rows) -> np.ndarray:
    """Values of one metric for every segment (the last one is the dummy segment)."""
    kernel = _KERNELS.get(ms.fn)
    if kernel is None:  # pragma: no cover (spec validation)
        raise AssertionError(f"no kernel for {ms.fn}")
    return kernel(ms, rows)


def _norms(comps: list[np.ndarray], sel) -> np.ndarray:
    """Lengths of the residual vectors of the rows ``sel``, without overflow (:mod:`ml_peg_like.norms`)."""
    return scaled_norms(np.column_stack([d[sel] for d in comps]))
