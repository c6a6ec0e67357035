"""Running a SPEC over a predictions table: the long raw-metrics table and its CSV."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataError, Problem
from .kernels import Rows, segment_values
from .spec import MISSING_METRIC, BenchmarkSpec, Spec, as_spec
from .table import Table, prepare_table


def compute_raw_metrics(predictions: pd.DataFrame, spec: Spec | Mapping) -> pd.DataFrame:
    """Compute every metric of ``spec`` for every (model, benchmark) in ``predictions``.

    Returns the long table ``model, benchmark, metric, value`` (see :mod:`ml_peg_like.compute`),
    including a ``missing fraction`` row per (model, benchmark). Raises ConfigError for a bad
    spec and DataError (every problem, with its row) for a bad table.

    Per-instance metrics (``per_instance: true`` in the SPEC) add a column ``instance``
    (between ``metric`` and ``value``): such a metric has one row per instance of its benchmark
    (the instance id as text; the instances of a benchmark are those any model has rows for,
    in order of first appearance, or in increasing order for integer sample ids), and no row
    without an instance; every other row has an empty ``instance``. The value of an instance
    is the metric over that instance's usable samples (empty when the model has none, and for
    every instance when the benchmark's missing fraction exceeds ``max_missing``). Without
    per-instance metrics the table has no ``instance`` column.
    """
    spec = as_spec(spec)
    t = prepare_table(predictions, spec)
    values, inst_values = _metric_values(spec, t)
    frames = [
        _benchmark_frame(t, j, b, values[j], inst_values) for j, b in enumerate(spec.benchmarks)
    ]
    out = pd.concat(frames, ignore_index=True)
    out = out.sort_values(["_m", "_b"], kind="stable").drop(columns=["_m", "_b"])
    return out.reset_index(drop=True)


def _passes(spec: Spec) -> dict[tuple, list[tuple[int, int]]]:
    """(benchmark, metric) indices by distinct (fn, options): one pass computes them all."""
    passes: dict[tuple, list[tuple[int, int]]] = {}
    for j, b in enumerate(spec.benchmarks):
        for k, ms in enumerate(b.metrics):
            passes.setdefault(ms.options(), []).append((j, k))
    return passes


def _pass_rows(t: Table, benches: tuple[int, ...], per_instance: bool) -> Rows:
    """The rows of a pass over ``benches``: the usable predictions of those benchmarks."""
    if len(benches) == t.n_bench:
        sel_rows = None if bool(t.valid.all()) else t.valid
    else:
        sel_b = np.zeros(t.n_bench, dtype=bool)
        sel_b[list(benches)] = True
        sel_rows = sel_b[t.bench] & t.valid
    return Rows(t, sel_rows, per_instance)


def _metric_values(
    spec: Spec, t: Table
) -> tuple[list[np.ndarray], dict[tuple[int, int], np.ndarray]]:
    """(per benchmark, a (metrics, models) array of values; per-instance values by (benchmark,
    metric), one per instance segment), scaled. Passes over the same benchmarks share their
    rows (and cached residuals)."""
    values = [np.full((len(b.metrics), t.n_models), np.nan) for b in spec.benchmarks]
    inst_values: dict[tuple[int, int], np.ndarray] = {}
    row_sets: dict[tuple, Rows] = {}
    for uses in _passes(spec).values():
        ms = spec.benchmarks[uses[0][0]].metrics[uses[0][1]]
        key = (tuple(sorted({j for j, _ in uses})), ms.per_instance)
        if key not in row_sets:
            row_sets[key] = _pass_rows(t, *key)
        seg = segment_values(ms, row_sets[key])[:-1]  # no dummy segment
        for j, k in uses:
            scale = spec.benchmarks[j].metrics[k].scale
            if ms.per_instance:
                inst_values[j, k] = seg * scale
            else:
                values[j][k] = seg.reshape(t.n_models, t.n_bench)[:, j] * scale
    return values, inst_values


def _benchmark_frame(
    t: Table,
    j: int,
    b: BenchmarkSpec,
    values: np.ndarray,
    inst_values: dict[tuple[int, int], np.ndarray],
) -> pd.DataFrame:
    """The rows of benchmark ``j`` for every model (``_m``, ``_b``: sort keys): each metric
    (one row per instance for a per-instance metric), then the missing fraction; every value
    of a model whose missing fraction exceeds ``max_missing`` is missing."""
    order = t.model_order
    missing = t.missing.reshape(t.n_models, t.n_bench)[order]
    models = t.models[order]
    too_many = missing[:, j] > b.max_missing + 1e-12
    names: list[str] = []
    labels: list = []  # instance id per row (None: not a per-instance row)
    blocks: list[np.ndarray] = []  # (rows, models)
    for k, ms in enumerate(b.metrics):
        if ms.per_instance:
            ids, block = _per_instance(t, j, inst_values[j, k])
            names += [ms.name] * ids.size
            labels += list(ids)
            blocks.append(block[:, order])
        else:
            names.append(ms.name)
            labels.append(None)
            blocks.append(values[k][None, order])
    vals = np.vstack(blocks)
    vals[:, too_many] = np.nan
    names.append(MISSING_METRIC)
    labels.append(None)
    block = np.vstack([vals, missing[:, j][None, :]])  # (rows + 1, models)
    frame = {
        "model": np.repeat(models, len(names)),
        "benchmark": b.name,
        "metric": np.tile(np.asarray(names, dtype=object), models.size),
    }
    if inst_values:
        frame["instance"] = np.tile(np.asarray(labels, dtype=object), models.size)
    frame["value"] = block.T.reshape(-1)
    frame["_m"] = np.repeat(np.arange(models.size), len(names))
    frame["_b"] = j
    return pd.DataFrame(frame)


def _per_instance(t: Table, j: int, seg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(instance ids of benchmark ``j``, their values as an (instances, models) array) from the
    values of the (model, benchmark, instance) segments (NaN where a model has no rows)."""
    n_inst = t.n_instances
    key_g = t.inst_keys // n_inst  # model * n_bench + benchmark
    sel = key_g % t.n_bench == j
    inst = t.inst_keys[sel] % n_inst
    codes = np.unique(inst)
    block = np.full((codes.size, t.n_models), np.nan)
    block[np.searchsorted(codes, inst), key_g[sel] // t.n_bench] = seg[sel]
    return t.instance_names[codes], block


def write_raw_metrics(table: pd.DataFrame, path: str | Path) -> None:
    """Write the long raw-metrics table as CSV (missing values as empty cells)."""
    try:
        table.to_csv(path, index=False, na_rep="")
    except OSError as exc:
        raise DataError([Problem(str(path), f"cannot write: {exc.strerror or exc}")]) from None
