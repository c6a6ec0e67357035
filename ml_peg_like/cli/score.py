"""``ml-peg-like score CONFIG [RAW] --out DIR``: metric, benchmark, category and overall scores."""

from __future__ import annotations

import argparse

from ..io.export import write_scores
from ..raw import load_dataset
from ..scoring import score
from .common import add_data_args, warn


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "score", help="write metric, benchmark, category and overall score tables"
    )
    add_data_args(p)
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--format", choices=["csv", "json", "xlsx"], default="csv")
    p.add_argument("--scale", type=float, choices=[1.0, 100.0], default=None, help="1 or 100")
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    cfg, raw = load_dataset(args.config, args.raw, ignore_unknown=args.ignore_unknown)
    warn(raw.warnings)
    res = score(raw, cfg)
    warn(res.warnings)
    paths = write_scores(res, args.out, args.format, args.scale)
    n_scored = int((~res.overall["score"].isna()).sum())
    print(
        f"scored {len(res.models)} models ({n_scored} with an overall score) on "
        f"{len(res.plan.metric_columns)} metrics; wrote {', '.join(str(p) for p in paths)}"
    )
    return 0
