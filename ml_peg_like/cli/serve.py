"""``ml-peg-like serve [CONFIG [RAW]]``: the dashboard (the embedded demo data by default)."""

from __future__ import annotations

import argparse

from ..raw import load_dataset
from ..resources import demo_dir
from .common import BROKER_HELP, add_data_args, integer_in, redis_url


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("serve", help="serve the dashboard (default: the embedded demo data)")
    add_data_args(p, config_optional=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=integer_in(0, 65535), default=8050)
    p.add_argument(
        "--workers",
        type=integer_in(1),
        default=1,
        help="worker processes (gunicorn when > 1)",
    )
    p.add_argument(
        "--broker",
        type=redis_url,
        default=None,
        help=BROKER_HELP + " (jobs then run in `ml-peg-like worker` processes; default: "
        "in this server, on a private diskcache)",
    )
    p.add_argument("--debug", action="store_true", help="Dash debug mode (never in production)")
    p.add_argument(
        "--full-table",
        action="store_true",
        help="send the whole table on every edit, not only the changed cells (benchmarks)",
    )
    p.add_argument(
        "--always-deltas",
        action="store_true",
        help="send only the changed cells even when the whole table is small (benchmarks)",
    )
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    cfg, raw = load_dataset(args.config or demo_dir(), args.raw, ignore_unknown=args.ignore_unknown)
    from ..dashboard import serve  # the engine imports no Dash: only `serve` needs it

    return (
        serve(
            cfg,
            raw,
            host=args.host,
            port=args.port,
            debug=args.debug,
            workers=args.workers,
            deltas=False if args.full_table else (True if args.always_deltas else "auto"),
            broker=args.broker,
        )
        or 0
    )
