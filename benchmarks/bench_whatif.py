"""CPU time of the "what would put this model first?" analysis (``what_if_of``) at N models.

    python -m benchmarks.bench_whatif 500 [--anchors ../shared/anchors] [--rank K] [--profile]

ML-PEG's tree (77 benchmarks, 339 metrics, from the anchors' configs) with seeded synthetic
values (``datasets.mlpeg_scale``), written once under ``out/bench-whatif-N``; the model is the
one ranked ``--rank`` (default: the middle one). ``--profile``: cProfile, by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

import numpy as np

import ml_peg_like as mpl
from ml_peg_like.scoring import score_values
from ml_peg_like.sensitivity import what_if_of

from . import datasets
from .harness import ROOT, Row, print_table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="models")
    ap.add_argument("--anchors", type=Path, default=datasets.ANCHORS)
    ap.add_argument("--rank", type=int, default=None)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    d = ROOT / "out" / f"bench-whatif-{args.n}"
    if not (d / "config.yml").exists():
        datasets.mlpeg_scale(d, n_models=args.n, seed=0, anchors=args.anchors)
    cfg, raw = mpl.load_dataset(d)
    sc = score_values(raw.aligned(cfg), raw.models, cfg)
    rank = args.rank if args.rank is not None else args.n // 2 + 1
    m = int(np.argsort(sc.ranks, kind="stable")[rank - 1])
    cpu, wall = time.process_time(), time.perf_counter()
    if args.profile:
        prof = cProfile.Profile()
        df = prof.runcall(what_if_of, sc, m)
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)
    else:
        df = what_if_of(sc, m)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    found = int(df["value"].notna().sum())
    print(f"{args.n} models x {len(cfg.metric_ids())} metrics, model ranked {rank}: "
          f"{found} of {len(df)} values found")  # fmt: skip
    print_table(
        [Row("what_if_of, CPU", [cpu], unit="s"), Row("what_if_of, wall", [wall], unit="s")]
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
