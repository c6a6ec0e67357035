"""Sensitivity performance: all stability intervals, exact, at ML-PEG scale and at 1000 x 1000,
against brute force (scan each value on a fine grid with ``score_values``) on a smaller case.

    python benchmarks/bench_sensitivity.py [--repeat 5] [--grid 200]

Prints median times, the agreement of the exact intervals with the brute-force scan, and the
ratio of the two times measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ml_peg_like.raw import load_dataset
from ml_peg_like.scoring import score_values
from ml_peg_like.sensitivity import stability_intervals

sys.path.insert(0, str(Path(__file__).resolve().parent))
from datasets import ANCHORS, large, mixed_config, mlpeg_scale  # noqa: E402


def _median(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def brute_force(values, models, cfg, df, grid):
    """The leader-holds interval of every value by scanning ``grid`` points each side."""
    sc = score_values(values, models, cfg)
    leaders = np.nonzero(sc.ranks == 1)[0]
    agree = 0
    for _, row in df.iterrows():
        t0, lo, hi = row["current"], row["low"], row["high"]
        span = max(1.0, abs(t0))
        ts = np.linspace(t0 - 2 * span, t0 + 2 * span, grid)
        if row["field"] == "weight":
            ts = ts[ts >= 0]
        bad = False
        for t in ts:
            if not (lo + 1e-9 < t < hi - 1e-9):
                continue
            try:
                c2 = cfg.apply_changes({row["path"]: {row["field"]: float(t)}})
            except Exception:
                continue
            if not (score_values(values, models, c2).ranks[leaders] == 1).all():
                bad = True
                break
        agree += not bad
    return agree


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--grid", type=int, default=200)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if (ANCHORS / "ml-peg" / "configs").is_dir():
            cfg, raw = load_dataset(mlpeg_scale(tmp / "mlpeg"))
            values = raw.aligned(cfg)
            t, df = _median(lambda: stability_intervals(values, raw.models, cfg), args.repeat)
            print(
                f"ML-PEG scale ({len(raw.models)} models, {values.shape[1]} metrics, "
                f"{len(df)} values): all intervals {t * 1e3:.1f} ms (median of {args.repeat}; "
                f"target <= 50 ms)"
            )
        else:
            print("ML-PEG scale: skipped (needs ../shared/anchors)")
        cfg, raw = load_dataset(large(tmp / "large", 1000, 1000))
        values = raw.aligned(cfg)
        t, df = _median(
            lambda: stability_intervals(values, raw.models, cfg), max(1, args.repeat // 2)
        )
        print(f"1000 x 1000 ({len(df)} values): all intervals {t:.2f} s (median; target <= 2 s)")
        # exact vs brute force on a smaller mixed case (linear, traffic light, data-driven)
        rng = np.random.default_rng(0)
        cfg = mixed_config(60, 12, 3, rng=rng)
        models = [f"model{i}" for i in range(20)]
        values = rng.random((20, 60))
        values[rng.random(values.shape) < 0.03] = np.nan
        t_exact, df = _median(lambda: stability_intervals(values, models, cfg), args.repeat)
        t0 = time.perf_counter()
        agree = brute_force(values, models, cfg, df, args.grid)
        t_brute = time.perf_counter() - t0
        print(
            f"20 x 60 mixed ({len(df)} values): exact {t_exact * 1e3:.1f} ms, brute force "
            f"({args.grid} points per value) {t_brute:.2f} s, ratio {t_brute / t_exact:.0f}x; "
            f"brute force agrees on {agree}/{len(df)} values"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
