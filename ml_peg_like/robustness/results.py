"""What a robustness run returns: :class:`RobustnessResult` and :class:`SettingsComparison`."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..config import Config
from ..io.export import safe_frame
from ..support.lazy import lazy_module

pd = lazy_module("pandas")  # imported on first use: the first page needs none


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
    checks: ``good``/``bad`` and ``parameters`` ({name: array}) hold the moved values (samples x
    metrics, NaN where not moved); :meth:`sample_changes` turns one into a
    ``Config.apply_changes`` mapping.
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
        moved = {"good": self.samples["good"], "bad": self.samples["bad"]}
        moved.update(self.samples.get("parameters", {}))
        for name, arr in moved.items():
            for j in np.flatnonzero(~np.isnan(arr[i])):
                changes[mpaths[j]][name] = float(arr[i, j])
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
