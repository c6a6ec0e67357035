"""``ml-peg-like validate CONFIG [RAW]``: list every problem of a config (and its raw data)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..config import load_config
from ..raw import load_dataset, model_ref_warnings
from .common import add_data_args, warn


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "validate", help="check a config (and raw metrics); list every problem"
    )
    add_data_args(p)
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    if args.raw is None and not Path(args.config).is_dir():
        cfg = load_config(args.config)
        print(
            f"config OK: {len(cfg.categories)} categories, {len(cfg.benchmark_names())} benchmarks, "
            f"{len(cfg.metric_ids())} metrics"
        )
        return 0
    cfg, raw = load_dataset(args.config, args.raw, ignore_unknown=args.ignore_unknown)
    warn(raw.warnings)
    warn(model_ref_warnings(cfg, raw))
    values = raw.aligned(cfg)
    n_missing = int((values != values).sum())
    print(
        f"OK: {len(cfg.categories)} categories, {len(cfg.benchmark_names())} benchmarks, "
        f"{len(cfg.metric_ids())} metrics; {len(raw.models)} models, "
        f"{values.size - n_missing} values, {n_missing} missing"
    )
    return 0
