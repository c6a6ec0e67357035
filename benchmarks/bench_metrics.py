"""Benchmark: 10 million scalar predictions -> MAE and RMSE per (model, benchmark).

20 models x 50 benchmarks x 10,000 samples (seeded). Times, as the median of several runs
(data generation excluded):

- ``compute_raw_metrics`` on the table as ``load_predictions`` reads it (categorical ``model``
  and ``benchmark``): validation, missing-value accounting and the segment reductions;
- the same with plain text (object) ``model``/``benchmark`` columns (adds factorising 10M strings);
- a straightforward pandas ``groupby(...).apply`` calling ``metrics.mae``/``metrics.rmse`` per
  group (the baseline), and pandas' own cythonised ``groupby().agg`` for reference.

Run: ``python -m benchmarks.bench_metrics [--repeats 5] [--samples 10000]``. Target: <= 2 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ml_peg_like import metrics
from ml_peg_like.compute import compute_raw_metrics

from .harness import Row, print_table, timed

N_MODELS, N_BENCH = 20, 50
SPEC = {
    "max_missing": 1,
    "benchmarks": {
        f"bench_{j:02d}": {
            "metrics": [{"name": "MAE", "fn": "mae"}, {"name": "RMSE", "fn": "rmse"}]
        }
        for j in range(N_BENCH)
    },
}


def make_table(n_samples: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = N_MODELS * N_BENCH * n_samples
    model = np.repeat(np.arange(N_MODELS), N_BENCH * n_samples)
    bench = np.tile(np.repeat(np.arange(N_BENCH), n_samples), N_MODELS)
    ref = rng.normal(size=n)
    pred = ref + rng.normal(scale=0.1 + 0.01 * model, size=n)
    pred[rng.random(n) < 1e-4] = np.nan  # a few missing predictions
    return pd.DataFrame(
        {
            "model": pd.Categorical.from_codes(model, [f"model_{i:02d}" for i in range(N_MODELS)]),
            "benchmark": pd.Categorical.from_codes(
                bench, [f"bench_{j:02d}" for j in range(N_BENCH)]
            ),
            "sample": np.tile(np.arange(n_samples), N_MODELS * N_BENCH),
            "reference": ref,
            "prediction": pred,
        }
    )


def baseline_apply(df: pd.DataFrame) -> pd.DataFrame:
    """Straightforward per-group Python: groupby-apply calling the metric functions."""

    def one(d: pd.DataFrame) -> pd.Series:
        r, p = d["reference"].to_numpy(), d["prediction"].to_numpy()
        return pd.Series(
            {
                "MAE": metrics.mae(r, p, nan_policy="omit"),
                "RMSE": metrics.rmse(r, p, nan_policy="omit"),
            }
        )

    return df.groupby(["model", "benchmark"], observed=True)[["reference", "prediction"]].apply(one)


def pandas_agg(df: pd.DataFrame) -> pd.DataFrame:
    """pandas' own cythonised group reductions (no per-group Python)."""
    d = (df["reference"] - df["prediction"]).rename("d")
    keys = [df["model"], df["benchmark"]]
    a = d.abs().groupby(keys, observed=True).mean()
    r = (d * d).groupby(keys, observed=True).mean() ** 0.5
    return pd.DataFrame({"MAE": a, "RMSE": r})


def check_same(out: pd.DataFrame, base: pd.DataFrame) -> None:
    """The fast path and the baseline agree (rtol 1e-9) on every (model, benchmark)."""
    wide = out[out.metric.isin(["MAE", "RMSE"])].pivot_table(
        index=["model", "benchmark"], columns="metric", values="value"
    )
    base = base.reset_index().astype({"model": str, "benchmark": str})
    joined = wide.reset_index().merge(base, on=["model", "benchmark"], suffixes=("", "_base"))
    assert len(joined) == N_MODELS * N_BENCH
    np.testing.assert_allclose(joined["MAE"], joined["MAE_base"], rtol=1e-9)
    np.testing.assert_allclose(joined["RMSE"], joined["RMSE_base"], rtol=1e-9)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=10_000, help="samples per (model, benchmark)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--baseline-repeats", type=int, default=3)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    df = make_table(args.samples)
    df_str = df.astype({"model": object, "benchmark": object})
    print(
        f"rows: {len(df):,} ({N_MODELS} models x {N_BENCH} benchmarks x {args.samples:,} "
        f"samples); data generation (not timed): {time.perf_counter() - t0:.2f} s"
    )
    t_cat, out = timed(lambda: compute_raw_metrics(df, SPEC), args.repeats)
    t_str, _ = timed(lambda: compute_raw_metrics(df_str, SPEC), args.repeats)
    t_base, base = timed(lambda: baseline_apply(df), args.baseline_repeats)
    t_agg, _ = timed(lambda: pandas_agg(df), args.repeats)
    check_same(out, base)
    ours = "compute_raw_metrics, categorical columns (target 2 s)"
    print_table(
        [
            Row(ours, t_cat, unit="s"),
            Row("compute_raw_metrics, text columns", t_str, unit="s", vs=ours),
            Row("baseline groupby-apply (per group Python)", t_base, unit="s", vs=ours),
            Row("pandas groupby().agg (cythonised)", t_agg, unit="s", vs=ours),
        ]
    )
    print("results match the baseline (rtol 1e-9)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
