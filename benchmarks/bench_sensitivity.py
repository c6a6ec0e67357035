"""Sensitivity performance: all stability intervals, exact, at ML-PEG scale and at 1000 x 1000,
against brute force (scan each value on a fine grid with ``score_values``) on a smaller case.

    python -m benchmarks.bench_sensitivity [--repeat 5] [--grid 200]

Prints median times, the agreement of the exact intervals with the brute-force scan, and the
ratio of the two times measured in the same run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from ml_peg_like.raw import load_dataset
from ml_peg_like.scoring import score_values
from ml_peg_like.sensitivity import stability_intervals

from .datasets import MLPEG_CONFIGS, large, mixed_config, mlpeg_scale
from .harness import Row, print_table, timed


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


def _intervals(values, models, cfg, repeat: int) -> tuple[list[float], object]:
    """(ms of each of ``repeat`` runs of ``stability_intervals``, its table)."""
    ts, df = timed(lambda: stability_intervals(values, models, cfg), repeat)
    return [t * 1e3 for t in ts], df


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--grid", type=int, default=200)
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if MLPEG_CONFIGS.is_dir():
            cfg, raw = load_dataset(mlpeg_scale(tmp / "mlpeg"))
            ms, df = _intervals(raw.aligned(cfg), raw.models, cfg, args.repeat)
            rows.append(Row(f"every interval, ML-PEG scale {len(raw.models)} models, "
                            f"{len(df)} values (target 50 ms)", ms))  # fmt: skip
        else:
            print(f"ML-PEG scale: skipped (needs {MLPEG_CONFIGS})")
        cfg, raw = load_dataset(large(tmp / "large", 1000, 1000))
        ms, df = _intervals(raw.aligned(cfg), raw.models, cfg, max(1, args.repeat // 2))
        rows.append(Row(f"every interval, 1000 x 1000, {len(df)} values (target 2 s)", ms))
    # exact vs brute force on a smaller mixed case (linear, traffic light, data-driven)
    rng = np.random.default_rng(0)
    cfg = mixed_config(60, 12, 3, rng=rng)
    models = [f"model{i}" for i in range(20)]
    values = rng.random((20, 60))
    values[rng.random(values.shape) < 0.03] = np.nan
    ms, df = _intervals(values, models, cfg, args.repeat)
    exact = f"exact, 20 x 60 mixed ({len(df)} values)"
    rows.append(Row(exact, ms))
    t0 = time.perf_counter()
    agree = brute_force(values, models, cfg, df, args.grid)
    brute = [(time.perf_counter() - t0) * 1e3]
    rows.append(Row(f"brute force, {args.grid} points per value", brute, vs=exact))
    print_table(rows)
    print(f"brute force agrees with the exact intervals on {agree}/{len(df)} values")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
