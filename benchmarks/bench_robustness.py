"""Rank-robustness performance: Monte Carlo samples at 1,000 models x 1,000 metrics.

    python -m benchmarks.bench_robustness [--models 1000] [--metrics 1000] [--samples 2000]
                                          [--repeat 5] [--jitter 0.1] [--concentration 50]

Generates models x metrics raw values (100 benchmarks in 10 categories, 3% missing, a mix of
linear, traffic-light and data-driven thresholds, ``missing: skip`` so that the present-weight
denominators are exercised), then prints the median wall time of ``rank_robustness`` for
``--samples`` samples with weights + thresholds jittered (default 10%), the effective number of
distinct threshold draws K, the time with weights only, and the time of the leave-one-out pass.
Target: 2,000 samples (weights + thresholds) in 5 s or less.
"""

from __future__ import annotations

import argparse

import numpy as np

import ml_peg_like as mpl
from ml_peg_like.robustness import leave_one_out, rank_robustness

from .datasets import mixed_config as make_config
from .harness import Row, print_table, timed


def make_data(n_models: int, n_metrics: int, seed: int = 0, missing: str = "skip"):
    rng = np.random.default_rng(seed)
    cfg = make_config(n_metrics, 100, 10, rng, missing)
    values = rng.random((n_models, n_metrics)) * 1.2 - 0.1
    values[1:][rng.random((n_models - 1, n_metrics)) < 0.03] = np.nan  # model0 is complete
    models = tuple(f"model{i}" for i in range(n_models))
    return cfg, mpl.RawData(models, tuple(cfg.metric_ids()), values)


def _fmt(v) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--metrics", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--jitter", type=float, default=0.1)
    ap.add_argument("--concentration", type=float, default=50.0)
    ap.add_argument("--missing", choices=["skip", "invalidate"], default="skip")
    args = ap.parse_args(argv)

    cfg, raw = make_data(args.models, args.metrics, missing=args.missing)
    print(
        f"{args.models} models x {args.metrics} metrics (100 benchmarks, 10 categories, "
        f"3% missing, missing: {args.missing}); {args.samples} samples, "
        f"concentration {args.concentration:g}"
    )
    common = dict(samples=args.samples, seed=1, concentration=args.concentration, loo=False)
    t_full, res = timed(
        lambda: rank_robustness(raw, cfg, threshold_jitter=args.jitter, **common), args.repeat
    )
    t_w, res_w = timed(
        lambda: rank_robustness(raw, cfg, threshold_jitter=0.0, **common), args.repeat
    )
    t_loo, loo = timed(lambda: leave_one_out(raw, cfg), max(1, args.repeat // 2))
    full = f"weights + thresholds, jitter {args.jitter:g} (target 5 s)"
    print_table(
        [
            Row(full, t_full, unit="s"),
            Row("weights only", t_w, unit="s", vs=full),
            Row(f"leave one out ({len(loo)} removals)", t_loo, unit="s", vs=full),
        ]
    )
    sc = res.scalars
    print(
        f"effective K = {sc['threshold_draws']} threshold draws x "
        f"{sc['samples_per_threshold_draw']} weight draws each; "
        f"{sc['jittered_thresholds']} jittered metrics"
    )
    print(
        f"P(top model stays first): weights+thresholds {_fmt(sc['p_top_model_stays_first'])}, "
        f"weights only {_fmt(res_w.scalars['p_top_model_stays_first'])}; median Spearman vs "
        f"current {_fmt(sc['spearman_vs_current_median'])}; "
        f"{sc['models_ranked']} of {sc['models']} models have an overall score"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
