"""Running a SPEC over a predictions table: the long raw-metrics table and its CSV."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataError, Problem
from .kernels import Rows, segment_values
from .spec import MISSING_METRIC, Spec, as_spec
from .table import prepare_table


def compute_raw_metrics(predictions: pd.DataFrame, spec: Spec | Mapping) -> pd.DataFrame:
    """Compute every metric of ``spec`` for every (model, benchmark) in ``predictions``.

    Returns the long table ``model, benchmark, metric, value`` (see the module docstring),
    including a ``missing fraction`` row per (model, benchmark). Raises ConfigError for a bad
    spec and DataError (every problem, with its row) for a bad table.
    """
    spec = as_spec(spec)
    t = prepare_table(predictions, spec)
    G = t.n_groups
    values = [np.full((len(b.metrics), t.n_models), np.nan) for b in spec.benchmarks]

    # one pass per distinct (fn, options) over every benchmark that uses it; passes over the
    # same benchmarks share their rows (and cached residuals)
    passes: dict[tuple, list[tuple[int, int]]] = {}
    for j, b in enumerate(spec.benchmarks):
        for k, ms in enumerate(b.metrics):
            passes.setdefault(ms.options(), []).append((j, k))
    all_valid = bool(t.valid.all())
    row_sets: dict[tuple, Rows] = {}
    for uses in passes.values():
        ms = spec.benchmarks[uses[0][0]].metrics[uses[0][1]]
        benches = tuple(sorted({j for j, _ in uses}))
        if benches not in row_sets:
            if len(benches) == t.n_bench:
                sel_rows = None if all_valid else t.valid
            else:
                sel_b = np.zeros(t.n_bench, dtype=bool)
                sel_b[list(benches)] = True
                sel_rows = sel_b[t.bench] & t.valid
            row_sets[benches] = Rows(t, sel_rows)
        seg = segment_values(ms, row_sets[benches])[:G].reshape(t.n_models, t.n_bench)
        for j, k in uses:
            values[j][k] = seg[:, j] * spec.benchmarks[j].metrics[k].scale

    order = t.model_order
    missing = t.missing.reshape(t.n_models, t.n_bench)[order]
    values = [v[:, order] for v in values]
    models = t.models[order]
    frames = []
    for j, b in enumerate(spec.benchmarks):
        too_many = missing[:, j] > b.max_missing + 1e-12
        vals = values[j].copy()
        vals[:, too_many] = np.nan
        names = [m.name for m in b.metrics] + [MISSING_METRIC]
        block = np.vstack([vals, missing[:, j][None, :]])  # (metrics + 1, models)
        frames.append(
            pd.DataFrame(
                {
                    "model": np.repeat(models, len(names)),
                    "benchmark": b.name,
                    "metric": np.tile(np.asarray(names, dtype=object), models.size),
                    "value": block.T.reshape(-1),
                    "_m": np.repeat(np.arange(models.size), len(names)),
                    "_b": j,
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out = out.sort_values(["_m", "_b"], kind="stable").drop(columns=["_m", "_b"])
    return out.reset_index(drop=True)


def write_raw_metrics(table: pd.DataFrame, path: str | Path) -> None:
    """Write the long raw-metrics table as CSV (missing values as empty cells)."""
    try:
        table.to_csv(path, index=False, na_rep="")
    except OSError as exc:
        raise DataError([Problem(str(path), f"cannot write: {exc.strerror or exc}")]) from None
