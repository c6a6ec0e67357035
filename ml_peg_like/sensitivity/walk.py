"""Walks along one value from its current setting: where the ranking condition first fails.

Between two consecutive candidate points (see :mod:`.families`) the order of every pair involved
is constant, so a condition on the ranking is decided by evaluating it once at each candidate and
once inside each piece between them. ``side_pieces`` lays the pieces out from ``t0`` outwards;
the near end of the first piece that fails is the end of the stability interval.
"""

from __future__ import annotations

import numpy as np

from ..scoring import not_below, rank_desc
from .families import midpoint, ok_pair

CHUNK = 512  # values per vectorised block (bounds memory: models x CHUNK x pieces)
REP_CHUNK = 512  # pieces per block in the global walks


def side_pieces(t0, cand, bound, sign):
    """The pieces from ``t0`` towards ``bound`` (``sign`` +1: up, -1: down).

    ``t0``, ``bound``: shape S; ``cand``: S + (C,), NaN padded. Returns (rep, near, valid), each
    S + (2C + 1,): a point inside each piece (the open intervals and the candidate points in
    between, in walking order), the end of the piece nearest ``t0``, and whether it exists.
    """
    t0 = np.asarray(t0, float)[..., None]
    bound = np.asarray(bound, float)[..., None]
    with np.errstate(invalid="ignore"):
        keep = (sign * (cand - t0) > 0) & (sign * (bound - cand) >= 0)
    key = np.where(keep, sign * cand, np.inf)
    key = np.sort(key, axis=-1)
    pts = np.where(np.isinf(key), np.nan, sign * key)
    filled = np.where(np.isnan(pts), bound, pts)
    starts = np.concatenate([np.broadcast_to(t0, pts.shape[:-1] + (1,)), filled], axis=-1)
    stops = np.concatenate([filled, np.broadcast_to(bound, pts.shape[:-1] + (1,))], axis=-1)
    with np.errstate(invalid="ignore"):
        iv_valid = sign * (stops - starts) > 0
    iv_rep = midpoint(np.minimum(starts, stops), np.maximum(starts, stops))
    c = pts.shape[-1]
    shape = pts.shape[:-1] + (2 * c + 1,)
    rep = np.empty(shape)
    near = np.empty(shape)
    valid = np.empty(shape, dtype=bool)
    rep[..., 0::2], near[..., 0::2], valid[..., 0::2] = iv_rep, starts, iv_valid
    rep[..., 1::2], near[..., 1::2], valid[..., 1::2] = filled, pts, ~np.isnan(pts)
    rep = np.where(valid, rep, np.broadcast_to(t0, shape))
    return rep, near, valid


def _first_fail(ok, near, valid, bound):
    fail = ~ok & valid
    idx = np.argmax(fail, axis=-1)
    end = np.take_along_axis(near, idx[..., None], axis=-1)[..., 0]
    return np.where(fail.any(axis=-1), end, bound)


def leader_intervals(fam, leaders) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) per value of ``fam``: every model in ``leaders`` stays ranked first."""
    npar = len(fam.t0)
    low, high = fam.lo.copy(), fam.hi.copy()
    if len(leaders) == 0:
        return np.full(npar, np.nan), np.full(npar, np.nan)
    smin, smax = fam.bounds()
    for start in range(0, npar, CHUNK):
        cols = np.arange(start, min(start + CHUNK, npar))
        cc = cols[None, :, None]
        for i in leaders:
            # only a model whose best score can reach the leader's worst can overtake it
            reach = not_below(smax[:, cols], smin[i, cols][None, :])
            reach |= np.isnan(smin[i, cols])[None, :]  # a leader that may lose its score
            reach[i] = False
            rows = np.nonzero(reach.any(axis=1))[0]
            if len(rows) == 0:
                continue
            cand = fam.candidates(i, cols, rows)
            nm = len(rows)
            t0 = np.broadcast_to(fam.t0[cols], (nm, len(cols)))
            for sign, bound, out, red in (
                (1, fam.hi[cols], high, np.min),
                (-1, fam.lo[cols], low, np.max),
            ):
                b = np.broadcast_to(bound, (nm, len(cols)))
                rep, near, valid = side_pieces(t0, cand, b, sign)
                ok = ok_pair(fam.ev(i, cc, rep), fam.ev(rows[:, None, None], cc, rep))
                ok |= ~reach[rows][..., None]
                end = red(_first_fail(ok, near, valid, b), axis=0)
                out[cols] = (np.minimum if sign > 0 else np.maximum)(out[cols], end)
    return low, high


def _union_candidates(fam, col, models):
    c = np.concatenate([fam.candidates(i, np.array([col]))[:, 0, :].ravel() for i in models])
    c = c[~np.isnan(c)]
    return np.unique(c)


def _scores_at(fam, col, t):
    return fam.ev(np.arange(fam.n_models)[:, None], col, t[None, :])


def topk_ok(f, members, k):
    """True per column of ``f`` (models x points) where every model of ``members`` ranks <= k."""
    ranks = rank_desc(np.asarray(f, dtype=float).T)[:, members]  # (R, m): the ranking rule
    with np.errstate(invalid="ignore"):
        return (ranks <= k).all(axis=1)  # NaN (no score, no rank) fails


def global_interval(fam, col, members, k):
    """(low, high) for one value: every model in ``members`` keeps rank <= k."""
    cand = _union_candidates(fam, col, members)
    out = []
    for sign, bound in ((-1, fam.lo[col]), (1, fam.hi[col])):
        rep, near, valid = side_pieces(fam.t0[col], cand, bound, sign)
        end = bound
        for s in range(0, len(rep), REP_CHUNK):
            sl = slice(s, s + REP_CHUNK)
            ok = topk_ok(_scores_at(fam, col, rep[sl]), members, k)
            fail = ~ok & valid[sl]
            if fail.any():
                end = near[sl][np.argmax(fail)]
                break
        out.append(end)
    return out[0], out[1]


def _first_at(fam, col, model, t) -> bool:
    return bool(topk_ok(_scores_at(fam, col, np.array([t], dtype=float)), [model], 1)[0])


def _attained(fam, col, model, near, rep):
    """``near`` when the model is first there; else (an end open at a step or at weight 0) the
    value 1e-9 (relative) inside the piece towards ``rep``, or ``rep`` itself."""
    if near == rep or _first_at(fam, col, model, near):
        return near
    step = 1e-9 * max(1.0, abs(near))
    nudged = near + np.sign(rep - near) * min(step, abs(rep - near) / 2)
    return nudged if _first_at(fam, col, model, nudged) else rep


def _bad_ranges(pts, rep, near, valid, ok, sign):
    """Per pair, the global pieces (indices into :func:`side_pieces` of the union ``pts``) its
    failing pieces cover: ``(starts, stops)``, stops exclusive. A pair's open interval covers
    the union's pieces strictly inside it; its point, the union's piece at that point."""
    n_pts = int(np.count_nonzero(~np.isnan(pts)))
    keys = sign * pts[:n_pts]  # increasing
    bad = ~ok & valid
    idx = np.searchsorted(keys, sign * near)  # a candidate's own position among the union's
    k = np.broadcast_to(np.arange(near.shape[-1]), near.shape)
    is_point = k % 2 == 1
    opens_at_t0 = k == 0
    start = np.where(is_point, 2 * idx + 1, np.where(opens_at_t0, 0, 2 * idx + 2))
    # an open interval ends before the next point of the pair, or at the bound
    nxt = np.concatenate([near[..., 1:], np.full(near.shape[:-1] + (1,), np.nan)], axis=-1)
    nxt_idx = np.searchsorted(keys, sign * np.where(np.isnan(nxt), 0.0, nxt))
    ends_at_point = ~np.isnan(nxt) & np.concatenate(
        [valid[..., 1:], np.zeros(valid.shape[:-1] + (1,), bool)], axis=-1
    )
    stop = np.where(is_point, start + 1, np.where(ends_at_point, 2 * nxt_idx + 1, 2 * n_pts + 1))
    return start[bad], stop[bad], 2 * n_pts + 1


def _first_clear(fam, col, model, cand, bound, sign):
    """On one side of the current value: ``(near, rep)`` of the first piece of the union of
    the pairs' candidates in which no model is above ``model``, or None. Each pair (model, j)
    keeps its order between its own candidates, so it is evaluated once per piece of its own
    (linear in the number of models), and the failing pieces are counted per union piece."""
    t0 = fam.t0[col]
    n = cand.shape[0]
    union = np.unique(cand[~np.isnan(cand)])
    pts_rep, pts_near, pts_valid = side_pieces(t0, union, bound, sign)
    pts = pts_near[1::2]  # the union's points in walking order (NaN padded)
    rep, near, valid = side_pieces(np.full(n, t0), cand, np.full(n, bound), sign)
    rows = np.arange(n)[:, None]
    ok = ok_pair(fam.ev(model, col, rep), fam.ev(rows, col, rep))
    starts, stops, size = _bad_ranges(pts, rep, near, valid, ok, sign)
    cover = np.zeros(size + 1, dtype=np.int64)
    np.add.at(cover, starts, 1)
    np.add.at(cover, stops, -1)
    clear = (np.cumsum(cover)[:size] == 0) & pts_valid[:size]
    if not clear.any():
        return None
    h = int(np.argmax(clear))
    return pts_near[h], pts_rep[h]


def nearest_first(fam, col, model):
    """The value nearest the current one at which ``model`` ranks first (tie counts), or NaN.
    Linear in the number of models (each pair evaluated on its own pieces only)."""
    t0 = fam.t0[col]
    if _first_at(fam, col, model, t0):
        return t0
    cand = fam.candidates(model, np.array([col]))[:, 0, :]
    best = np.nan
    for sign, bound in ((-1, fam.lo[col]), (1, fam.hi[col])):
        hit = _first_clear(fam, col, model, cand, bound, sign)
        if hit is not None:
            v = _attained(fam, col, model, *hit)
            if np.isnan(best) or abs(v - t0) < abs(best - t0):
                best = v
    return best
