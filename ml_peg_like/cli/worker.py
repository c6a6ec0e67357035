"""``ml-peg-like worker DIR --broker redis://HOST:PORT/DB``: a Celery worker for the dashboard's
background jobs (the robustness analysis), on this or another machine.

It builds the same dashboard as ``ml-peg-like serve DIR --broker URL`` (so that the job and the
data it needs are known here: the job names its data by a hash of the config and raw values) and
runs the jobs queued in that Redis, ``--concurrency`` at a time (default: the CPU count). Serve
and worker must read the same dataset and share ``$ML_PEG_LIKE_SECRET`` (the job results are
signed with it; both refuse to start without it); several servers and workers may share one
Redis.
"""

from __future__ import annotations

import argparse
import os

from ..errors import INPUT_ERRORS, report
from .common import BROKER_HELP, add_data_args, broker_secret_missing, integer_in, redis_url

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "worker",
        help="run background jobs (robustness analyses) for servers started with --broker",
    )
    add_data_args(p, config_optional=True)
    p.add_argument("--broker", type=redis_url, required=True, help=BROKER_HELP)
    p.add_argument(
        "--concurrency",
        type=integer_in(1, 1024),
        default=None,
        help="jobs at once (default: the CPU count)",
    )
    p.add_argument("--loglevel", default="INFO", help="Celery log level (default INFO)")
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    from ..raw import load_dataset
    from ..support.resources import demo_dir

    missing = broker_secret_missing(args.broker)
    if missing is not None:
        return missing
    try:
        cfg, raw = load_dataset(
            args.config or demo_dir(), args.raw, ignore_unknown=args.ignore_unknown
        )
        from ..dashboard import create_app

        app = create_app(cfg, raw, broker=args.broker)  # -> jobs.make_manager: Celery
    except INPUT_ERRORS as exc:
        return report(exc)
    celery_app = app.robustness_manager.handle
    argv = ["worker", f"--loglevel={args.loglevel}", "--without-gossip", "--without-mingle"]
    argv.append(f"--concurrency={args.concurrency or os.cpu_count() or 1}")
    celery_app.worker_main(argv)
    return 0
