"""``ml-peg-like worker DIR --broker redis://HOST:PORT/DB``: a Celery worker for the dashboard's
background jobs (the robustness analysis), on this or another machine.

It builds the same dashboard as ``ml-peg-like serve DIR --broker URL`` (so that the job and the
data it needs are known here: the job names its data by a hash of the config and raw values) and
runs the jobs queued in that Redis, ``--concurrency`` at a time (default: the CPU count). Serve
and worker must read the same dataset; several servers and workers may share one Redis.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import INPUT_ERRORS, MlPegLikeError, report

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "worker",
        help="run background jobs (robustness analyses) for servers started with --broker",
    )
    p.add_argument("config", nargs="?", default=None, help="config YAML or dataset directory")
    p.add_argument("raw", nargs="?", default=None, help="raw metrics CSV")
    p.add_argument(
        "--broker", required=True, help="Redis URL, broker and result store: redis://HOST:PORT/DB"
    )
    p.add_argument(
        "--concurrency", type=int, default=None, help="jobs at once (default: the CPU count)"
    )
    p.add_argument("--loglevel", default="INFO", help="Celery log level (default INFO)")
    p.add_argument("--ignore-unknown", action="store_true")
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    from ..raw import load_dataset
    from ..resources import demo_dir

    if not str(args.broker).startswith(("redis://", "rediss://")):
        return report(MlPegLikeError(f"--broker: a redis:// URL, not {args.broker!r}"))
    if args.concurrency is not None and not 1 <= args.concurrency <= 1024:
        return report(MlPegLikeError("--concurrency: a whole number from 1 to 1024"))
    try:
        cfg, raw = load_dataset(
            args.config or demo_dir(), args.raw, ignore_unknown=args.ignore_unknown
        )
        from ..dashboard import create_app
        from ..dashboard.jobs import BROKER_ENV

        os.environ[BROKER_ENV] = args.broker  # create_app -> jobs.make_manager: Celery
        app = create_app(cfg, raw)
    except INPUT_ERRORS as exc:
        return report(exc)
    celery_app = app.robustness_manager.handle
    argv = ["worker", f"--loglevel={args.loglevel}", "--without-gossip", "--without-mingle"]
    argv.append(f"--concurrency={args.concurrency or os.cpu_count() or 1}")
    celery_app.worker_main(argv)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ml-peg-like")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["worker", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":  # python -m ml_peg_like.cli.worker DIR --broker URL
    sys.exit(main())
