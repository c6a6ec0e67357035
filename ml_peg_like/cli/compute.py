"""``ml-peg-like compute PREDICTIONS --spec SPEC --out raw_metrics.csv``.

Reads a predictions table (CSV, or Parquet with pyarrow) and a SPEC (YAML, see
:mod:`ml_peg_like.compute`) and writes the long raw-metrics CSV of ``docs/FORMATS.md``.
Bad input: exit code 2 and one line per problem on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import INPUT_ERRORS, report


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``compute`` sub-command to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "compute",
        help="compute raw metrics (MAE, RMSE, MAPE90, Hellinger, ...) from a predictions table",
        description=(
            "Compute raw metrics from predictions: columns model, benchmark, sample, reference, "
            "prediction (or reference_x/_y/_z, prediction_x/_y/_z), optional n_atoms and weight. "
            "Writes model,benchmark,metric,value with a 'missing fraction' row per "
            "(model, benchmark)."
        ),
    )
    p.add_argument("predictions", help="predictions table (.csv, or .parquet with pyarrow)")
    p.add_argument("--spec", required=True, help="SPEC YAML: benchmarks and their metrics")
    p.add_argument(
        "--out",
        default="raw_metrics.csv",
        help="output CSV (default: raw_metrics.csv; '-' writes to standard output)",
    )
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    """Run ``compute``; 0 on success, 2 (one line per problem on stderr) on bad input."""
    # imported here, not at the top: every command imports every subcommand's module, and
    # ``serve`` starts faster without the compute kernels
    from ..compute import compute_raw_metrics, load_predictions, load_spec, write_raw_metrics

    try:
        spec = load_spec(args.spec)
        predictions = load_predictions(args.predictions)
        table = compute_raw_metrics(predictions, spec)
        if args.out == "-":
            table.to_csv(sys.stdout, index=False, na_rep="")
        else:
            write_raw_metrics(table, args.out)
    except INPUT_ERRORS as exc:
        return report(exc)
    n_models = table["model"].nunique()
    n_missing = int(table["value"].isna().sum())
    if args.out != "-":
        print(
            f"computed {len(table)} raw values ({n_models} models, {len(spec.benchmarks)} "
            f"benchmarks, {n_missing} missing); wrote {args.out}"
        )
    return 0
