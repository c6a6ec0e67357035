"""Raw metrics from predictions: ``predictions table + SPEC -> raw_metrics.csv``.

:func:`compute_raw_metrics` turns a long table of predictions into the long raw-metrics table of
``docs/FORMATS.md`` (``model, benchmark, metric, value``), vectorised over the whole table: every
(model, benchmark) pair is a segment, and each metric is one pass of ``np.bincount`` (or a sort
and ``np.add/maximum.reduceat``) over all segments at once. Metrics with the same function and
options in several benchmarks are computed in the same pass.

Predictions table
-----------------
One row per (model, benchmark, sample). Column names are matched case-insensitively.

==========================  ===================================================================
``model``, ``benchmark``    names (the benchmark names of the scoring config)
``sample``                  sample id (text or integer), unique per (model, benchmark) except in
                            ``distribution`` benchmarks, where the rows of a sample are the states
                            of one variable's distribution
``reference``, ``prediction``  scalar values (``scalar`` and ``distribution`` benchmarks)
``reference_x/_y/_z``,      vector components (``vector`` benchmarks, e.g. forces)
``prediction_x/_y/_z``
``n_atoms`` (optional)      atom count, needed by ``per_atom: n|sqrt``
``weight`` (optional)       per-sample weight w_i, needed by ``weighted: true``
``instance`` (optional)     problem instance of the sample, for ``per_instance`` metrics (e.g. a
                            UAI MAR problem whose variables are the samples); without it, each
                            sample is an instance
==========================  ===================================================================

Other columns are ignored. A *missing* prediction is an empty/NaN/infinite ``prediction`` (any
component for vectors; in a distribution, any state of the variable, or a negative probability).
A sample that a model has no row for, while other models do, is missing too. References must be
finite wherever a metric needs them (a bad reference is a data error, not a missing prediction).

SPEC (YAML or dict)
-------------------
::

    max_missing: 0            # optional (default 0): a metric is reported as missing (empty value)
                              # when more than this fraction of a benchmark's samples is missing
                              # for the model; 1 computes every metric over what is there
    benchmarks:
      Energies:
        kind: scalar          # scalar (default) | vector | distribution (`vector: true` = vector)
        max_missing: 0.05     # optional override for this benchmark
        metrics:
          - {name: "MAE", fn: mae, per_atom: sqrt, scale: 1000}   # per_atom: none | n | sqrt
          - {name: "RMSE", fn: rmse, weighted: true}              # weights from the `weight` column
      Forces:
        vector: true
        metrics:
          - {name: "Force MAE", fn: vector_mae, mode: magnitude}  # mode: magnitude | component
      Currents:
        metrics:
          - {name: "MAPE90", fn: mape_top_quantile, quantile: 0.9}  # or fn: mape90 / mape10
          - {name: "P1", fn: share_negative}
          - {name: "P4", fn: share_nonzero, tol: 0, where: reference_zero}
      Marginals:
        kind: distribution
        metrics:
          - {name: "Hellinger", fn: mean_hellinger}

Every metric takes ``name`` (default: the ``fn``; unique within the benchmark, and not
``missing fraction``, which is reserved), ``scale`` (multiplies the value, e.g. 1000 for
eV -> meV; default 1) and ``per_instance`` (default false: true gives one value per instance,
the metric over that instance's samples, as UAI scores each problem instance, seed 002). Functions (see :mod:`ml_peg_like.metrics` for the formulas):

- scalar benchmarks: ``mae``, ``rmse`` (both take ``per_atom`` and ``weighted``), ``max_abs_error``,
  ``mape`` (percent), ``r2`` (these three take ``per_atom``), ``mape_top_quantile`` (``quantile``
  in (0, 1), required; ``mape90``/``mape10`` are shorthands for 0.9/0.1), ``share_negative``,
  ``share_nonzero`` (``tol`` >= 0, default 0; ``where: reference_zero`` (default) counts only the
  samples whose reference is exactly 0, i.e. where zero is required, ``where: all`` every sample),
  ``log_partition_error`` (reference = log Z*, prediction = log Z_hat: mean over samples of
  ``|log Z* - log Z_hat|``), ``mpe_error`` (reference = log L_best, prediction = log L: mean of
  ``log L_best - log L``);
- vector benchmarks: ``vector_mae``, ``vector_rmse`` (``mode``: magnitude (default) | component);
- distribution benchmarks: ``mean_hellinger`` (reference = P*, prediction = P_hat per state).

``per_atom: n`` divides reference and prediction by ``n_atoms`` and ``per_atom: sqrt`` by
``sqrt(n_atoms)`` (seed 004) before the metric.

Output
------
For every model in the table and every benchmark of the SPEC: one row per metric, plus a
``missing fraction`` row (share of the benchmark's samples that are missing for the model; the
samples of a benchmark are the distinct ``sample`` ids any model has for it). Rows are ordered
by model (first appearance), benchmark (SPEC order), metric (SPEC order). NaN = missing.
With a ``per_instance`` metric the table gains an ``instance`` column (before ``value``): that
metric has one row per instance of its benchmark and no aggregate row; the other rows have an
empty instance (details in :func:`compute_raw_metrics` and ``docs/FORMATS.md``).
The scoring engine rejects rows whose metric its config lacks: list ``missing fraction`` in the
config (e.g. with ``weight: 0``) or score with ``--ignore-unknown``.

Every benchmark of the table must be in the SPEC and every SPEC benchmark must have rows; a
repeated (model, benchmark, sample) outside distribution benchmarks is an error. Read a large CSV
with :func:`load_predictions`: it makes ``model``/``benchmark`` categoricals, which group for free
(text columns are factorised first, about 0.5 s per 10 million rows and column).
"""

from .assemble import compute_raw_metrics, write_raw_metrics
from .read import load_predictions
from .spec import MISSING_METRIC, BenchmarkSpec, MetricSpec, Spec, load_spec, spec_from_dict

__all__ = [
    "MISSING_METRIC",
    "MetricSpec",
    "BenchmarkSpec",
    "Spec",
    "spec_from_dict",
    "load_spec",
    "load_predictions",
    "compute_raw_metrics",
    "write_raw_metrics",
]
