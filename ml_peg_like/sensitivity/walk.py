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


def nearest_first(fam, col, model):
    """The value nearest the current one at which ``model`` ranks first (tie counts), or NaN."""
    t0 = fam.t0[col]
    if _first_at(fam, col, model, t0):
        return t0
    cand = _union_candidates(fam, col, [model])
    sides = []
    for sign, bound in ((-1, fam.lo[col]), (1, fam.hi[col])):
        rep, near, valid = side_pieces(t0, cand, bound, sign)
        sides.append((rep, near, valid))
    pos = [0, 0]
    best = np.nan
    while True:
        progressed = False
        for side, (rep, near, valid) in enumerate(sides):
            s = pos[side]
            if s >= len(rep):
                continue
            progressed = True
            sl = slice(s, s + REP_CHUNK)
            if not np.isnan(best) and np.nanmin(np.abs(near[sl] - t0)) > abs(best - t0):
                pos[side] = len(rep)  # everything further on this side is further away
                continue
            hit = topk_ok(_scores_at(fam, col, rep[sl]), [model], 1) & valid[sl]
            if hit.any():
                h = np.argmax(hit)
                v = _attained(fam, col, model, near[sl][h], rep[sl][h])
                if np.isnan(best) or abs(v - t0) < abs(best - t0):
                    best = v
                pos[side] = len(rep)
            else:
                pos[side] = s + REP_CHUNK
        if not progressed:
            return best
