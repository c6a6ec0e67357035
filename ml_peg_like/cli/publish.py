"""``ml-peg-like publish [CONFIG [RAW]] --out SITE``: the leaderboard as a static site (the
embedded demo data by default), served by any static file server (docs/PUBLISH.md)."""

from __future__ import annotations

import argparse

from ..raw import load_dataset
from ..support.resources import demo_dir
from .common import add_data_args, warn


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "publish",
        help="write the leaderboard as a static site (default: the embedded demo data)",
    )
    add_data_args(p, config_optional=True)
    p.add_argument("--out", required=True, help="the site's directory (empty, or a previous site)")
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty directory that is not a previous site",
    )
    p.add_argument("--title", default=None, help="the page's title (default: the config's)")
    p.add_argument(
        "--embed",
        action="store_true",
        help="write the board into index.html (default: board.json beside it, fetched by the "
        "page: the first rows come as soon or sooner)",
    )
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    from ..publish import publish

    cfg, raw = load_dataset(args.config or demo_dir(), args.raw, ignore_unknown=args.ignore_unknown)
    warn(raw.warnings)
    paths = publish(cfg, raw, args.out, force=args.force, title=args.title, embed=args.embed)
    print(
        f"published {len(raw.models)} models on {len(cfg.metric_ids())} metrics: "
        f"{len(paths)} files in {args.out} (open index.html through any static file server)"
    )
    return 0
