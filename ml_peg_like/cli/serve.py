"""``ml-peg-like serve [CONFIG [RAW]]``: the dashboard (the embedded demo data by default)."""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import signal
import threading

from ..raw import dataset_files, load_dataset
from ..support.resources import demo_dir
from .common import BROKER_HELP, add_data_args, broker_secret_missing, integer_in, redis_url


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
    p.set_defaults(func=run)
    return p


#: glibc's ``mallopt`` parameters
M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8
MMAP_MIN, MMAP_MAX = 256 * 1024, 32 * 1024 * 1024


def tune_malloc(matrix_bytes: int) -> dict[int, int]:
    """Keep a long-running server's memory flat (glibc; a no-op elsewhere or when the
    ``MALLOC_*_`` variables already say). glibc raises its mmap threshold to the largest block
    freed so far: once a 3.5 MB Plotly bundle or a layout was served, every later block up to that
    size comes from the heap, which seldom shrinks (ML-PEG scale: +7 MiB after 30 edits). Here
    blocks above max(256 KiB, 2 x the raw matrix) always come from mmap and go back when freed,
    while the matrix-sized arrays of scoring keep reusing the heap (no page faults per edit at
    1,000 x 1,000); and the request threads share 2 arenas, not 8 per core. Returns what was set."""
    done: dict[int, int] = {}
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return done
    wanted = {
        M_MMAP_THRESHOLD: (
            "MALLOC_MMAP_THRESHOLD_",
            min(MMAP_MAX, max(MMAP_MIN, 2 * matrix_bytes)),
        ),
        M_ARENA_MAX: ("MALLOC_ARENA_MAX", 2),
    }
    for param, (env, value) in wanted.items():
        if env not in os.environ and mallopt(param, value) == 1:
            done[param] = value
    return done


def early_server(args) -> tuple[object | None, str | None]:
    """The server that listens while the app is made (``earlypage.py``) and the key of the page
    it tries; (None, None) with several workers or in debug mode. A port that cannot be used
    ends the start at once, with werkzeug's one-line message (as ``app.run`` would, later)."""
    if args.workers > 1 or args.debug:
        return None, None
    from ..serving.earlypage import EarlyServer, kept_page, page_key

    options = {
        "raw": args.raw,
        "ignore_unknown": args.ignore_unknown,
        "broker": bool(args.broker),
    }
    key = page_key(dataset_files(args.config or demo_dir(), args.raw), options)
    server = EarlyServer(args.host, args.port, kept_page(key)).start()
    print(f"ml-peg-like: listening on http://{args.host}:{server.port}/", flush=True)
    return server, key


def exit_on_term() -> None:
    """SIGTERM ends the server as Ctrl-C does: by an exception in the main thread, so the exit
    handlers run (they remove the start's private job cache). Gunicorn (``--workers`` > 1)
    installs its own handlers, and exits the same way."""

    def _exit(signum, _frame):
        raise SystemExit(128 + signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit)


def run(args) -> int:
    missing = broker_secret_missing(args.broker)
    if missing is not None:
        return missing
    exit_on_term()
    early, key = early_server(args)
    # the start makes ~10^5 objects that live as long as the server, in ~1 s of imports: with
    # the collector on, Python walks them again and again (~10 % of the start). It is off until
    # the app is made; ``run_app`` freezes what exists and turns it back on (the pattern the
    # ``gc`` docs give for servers that fork workers)
    gc.disable()
    try:
        cfg, raw = load_dataset(
            args.config or demo_dir(), args.raw, ignore_unknown=args.ignore_unknown
        )
        tune_malloc(raw.values.nbytes)
        from ..dashboard import create_app, run_app  # the engine imports no Dash: only here

        app = create_app(cfg, raw, broker=args.broker)
    except BaseException:
        gc.enable()
        if early is not None:
            early.stop()
        raise
    return (
        run_app(
            app,
            host=args.host,
            port=args.port,
            debug=args.debug,
            workers=args.workers,
            early=early,
            page_key=key,
        )
        or 0
    )
