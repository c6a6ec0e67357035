"""Rank correlations and ranks, vectorised over rows (pure numpy).

:func:`kendall_tau` (tau-b, ties handled) and :func:`spearman_rho` (Pearson correlation of
average ranks) compare rankings row by row; :func:`rank_samples` is ``scoring.rank_desc`` on
every row (the ranking rule of :mod:`ml_peg_like.scoring.ranks`: no rank without a score).
"""

from __future__ import annotations

import numpy as np

from ..scoring import rank_rows

CHUNK_ELEMENTS = 1 << 22  # about 32 MB of float64 per batch array


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


#: from this many entries a row's tau is counted in O(n log n) (:func:`_kendall_sorted`) instead
#: of comparing all n^2 pairs (10,000 models: ~0.5 s per row -> a few ms); both give the same float
SORTED_FROM = 300


def _tied_pairs(sorted_keys: np.ndarray) -> int:
    """Pairs of equal entries of a sorted 1-D array (or of equal rows of a lexsorted 2-D one)."""
    if len(sorted_keys) < 2:
        return 0
    diff = sorted_keys[1:] != sorted_keys[:-1]
    new = np.concatenate([[True], diff if diff.ndim == 1 else diff.any(axis=1), [True]])
    t = np.diff(np.flatnonzero(new)).astype(np.int64)
    return int((t * (t - 1) // 2).sum())


def _inversions(v: np.ndarray) -> int:
    """Pairs i < j with v[i] > v[j] (integers 0..n-1): a bottom-up merge sort, one vectorised
    pass per run width (log2 n passes)."""
    n = len(v)
    x = v.astype(np.int64)
    m = int(x.max()) + 1 if n else 1
    idx = np.arange(n)
    total = 0
    w = 1
    while w < n:
        pair = idx // (2 * w)
        right = (idx // w) % 2 == 1
        keys = pair * m + x  # each run is sorted: the left runs' keys are sorted as a whole
        left_keys, right_keys = keys[~right], keys[right]
        after = np.searchsorted(left_keys, right_keys, side="right")
        end = np.searchsorted(left_keys, (pair[right] + 1) * m, side="left")
        total += int((end - after).sum())  # left-run entries above each right-run entry
        x = x[np.argsort(keys, kind="stable")]  # runs of 2w, sorted
        w *= 2
    return total


def _kendall_sorted(a: np.ndarray, b: np.ndarray) -> float:
    """tau-b of two vectors without NaN in O(n log n) (Knight's method): sorted by (a, b), the
    discordant pairs are b's inversions. The same float as :func:`_kendall_block` (the counts
    are exact integers; then the same divisions)."""
    n = len(a)
    order = np.lexsort((b, a))
    a_s, b_s = a[order], b[order]
    n0 = n * (n - 1) // 2
    tied_a = _tied_pairs(a_s)
    tied_ab = _tied_pairs(np.stack([a_s, b_s], axis=1))
    tied_b = _tied_pairs(np.sort(b))
    dense = np.unique(b_s, return_inverse=True)[1].reshape(-1)
    disc = _inversions(dense)
    s = float(n0 - tied_a - tied_b + tied_ab - 2 * disc)  # concordant - discordant
    den = np.sqrt(np.asarray([float(n0 - tied_a)]) * np.asarray([float(n0 - tied_b)]))
    if den[0] == 0:
        return float("nan")
    return float(s / den[0])


def kendall_tau(a, b):
    """Kendall's tau-b between ``a`` and ``b`` (rankings or scores), over the last axis.

    Ties are handled (tau-b). Entries that are NaN in either vector are left out. Returns a float
    for two vectors, an array for stacks of vectors (broadcast), NaN when undefined (fewer than 2
    entries or a constant vector). All pairs are compared at once, in row batches of bounded size;
    rows of :data:`SORTED_FROM` entries or more are counted in O(n log n) instead.
    """
    shared = np.ndim(b) == 1 and np.ndim(a) > 1 and not np.isnan(np.asarray(b, float)).any()

    def block(X, Y):
        if X.shape[1] >= SORTED_FROM:
            return np.asarray([_kendall_sorted(x, y) for x, y in zip(X, Y, strict=True)])
        return _kendall_block(X, Y)

    def clean_rows(X, Y):  # in row batches of bounded size, b's pair signs computed once
        if X.shape[1] >= SORTED_FROM:
            return block(X, Y)
        sb = _pair_signs(np.asarray(b, float)[None]) if shared else None
        step = max(1, CHUNK_ELEMENTS // (X.shape[1] ** 2))
        return np.concatenate(
            [_kendall_block(X[s : s + step], Y[s : s + step], sb) for s in range(0, len(X), step)]
        )

    return _by_row(a, b, block, clean_rows)


def _by_row(a, b, block, clean_rows=None):
    """``block(X, Y)`` (rows of X against rows of Y, one value per row) over the last axis of
    ``a`` and ``b``: the rows without NaN at once (by ``clean_rows`` if given), every
    other row over the entries present in both (NaN when fewer than 2). A float for two
    vectors, an array for stacks of vectors."""
    A, B, lead = _rows(a, b)
    rows, n = A.shape
    out = np.full(rows, np.nan)
    if n >= 2:
        bad = np.isnan(A).any(axis=1) | np.isnan(B).any(axis=1)
        clean = np.flatnonzero(~bad)
        if clean.size:
            out[clean] = (clean_rows or block)(A[clean], B[clean])
        for i in np.flatnonzero(bad):
            ok = ~(np.isnan(A[i]) | np.isnan(B[i]))
            if ok.sum() >= 2:
                out[i] = block(A[i, ok][None], B[i, ok][None])[0]
    return float(out[0]) if not lead else out.reshape(lead)


def row_ranks(V: np.ndarray, average: bool = False):
    """Row-wise ranks of V by the ranking rule (1 = highest; tied scores share the best rank;
    NaN = no score, no rank) and, with ``average``, average ranks (a tie group gets the mean of
    its positions)."""
    ranks, _, avg = rank_rows(V, average=average)
    return ranks, avg


def average_ranks(V: np.ndarray) -> np.ndarray:
    """Row-wise average ranks (1 = highest; a tie group gets the mean of its positions)."""
    return row_ranks(V, average=True)[1]


def pearson_rows(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
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
    return _by_row(a, b, lambda X, Y: pearson_rows(average_ranks(X), average_ranks(Y)))


def rank_samples(values) -> np.ndarray:
    """``scoring.rank_desc`` applied to every row: 1 = highest, tied scores share the best
    rank, NaN (no score) has no rank (NaN)."""
    return row_ranks(np.atleast_2d(np.asarray(values, dtype=float)))[0]
