"""Vetoes applied: a model whose raw value is beyond a veto's limit gets an overall score of 0
(LIPS: "a null global score") and is ranked on it; metric, benchmark and category scores are
unchanged. A missing raw value vetoes nothing (with a warning). The rules come from the config's
``vetoes`` (:mod:`ml_peg_like.config.vetoes`); every user of overall scores (scoring, the
robustness Monte Carlo, leave-one-out) calls :func:`apply_vetoes`.
"""

from __future__ import annotations

import numpy as np

from ..config import Config

MAX_NAMED = 5


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def veto_reason(path: str, side: str, limit: float, value: float) -> str:
    """The text that explains a veto (the CLI warning and the dashboard tooltip use it)."""
    return f"vetoed: {path} = {_fmt(value)} is {side} the limit {_fmt(limit)} (overall score 0)"


def find_vetoes(values: np.ndarray, cfg: Config, models) -> tuple[np.ndarray, list[str], list[str]]:
    """(vetoed (models,) bool, reason per model ("" when not vetoed), warnings) of the aligned
    raw matrix ``values`` (columns in ``cfg.metric_paths()`` order)."""
    M = values.shape[0]
    vetoed = np.zeros(M, dtype=bool)
    reasons = [""] * M
    warnings: list[str] = []
    if not cfg.vetoes:
        return vetoed, reasons, warnings
    col = {p: j for j, p in enumerate(cfg.metric_paths())}
    for v in cfg.vetoes:
        x = values[:, col[v.metric]]
        hit = x > v.limit if v.side == "above" else x < v.limit
        for i in np.flatnonzero(hit & ~vetoed):
            reasons[i] = veto_reason(v.metric, v.side, v.limit, float(x[i]))
            warnings.append(f"model {models[i]!r} {reasons[i]}")
        vetoed |= hit
        miss = np.flatnonzero(np.isnan(x))
        if miss.size:
            names = ", ".join(repr(models[i]) for i in miss[:MAX_NAMED])
            if miss.size > MAX_NAMED:
                names += f" and {miss.size - MAX_NAMED} more"
            warnings.append(
                f"vetoes: {v.metric} has no value for {names}: not vetoed "
                f"({v.side} {_fmt(v.limit)} cannot be checked)"
            )
    return vetoed, reasons, warnings


def apply_vetoes(overall: np.ndarray, vetoed: np.ndarray) -> np.ndarray:
    """Overall scores (..., models) with the vetoed models at 0."""
    if not vetoed.any():
        return overall
    return np.where(vetoed, 0.0, overall)
