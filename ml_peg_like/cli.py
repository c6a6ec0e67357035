"""The headless entry points: ``ml-peg-like score | validate | serve | compute | convert``.

Bad input ends with exit code 2 and one line per problem on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import INPUT_ERRORS, report

DEMO_DIR = Path(__file__).resolve().parent.parent / "data" / "demo"


def _dataset(args):
    from .raw import load_dataset

    return load_dataset(args.config, getattr(args, "raw", None), ignore_unknown=args.ignore_unknown)


def cmd_score(args) -> int:
    from .io.export import write_scores
    from .scoring import score

    cfg, raw = _dataset(args)
    for w in raw.warnings:
        print(f"warning: {w}", file=sys.stderr)
    res = score(raw, cfg)
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    paths = write_scores(res, args.out, args.format, args.scale)
    n_scored = int((~res.overall["score"].isna()).sum())
    print(
        f"scored {len(res.models)} models ({n_scored} with an overall score) on "
        f"{len(res.plan.metric_columns)} metrics; wrote {', '.join(str(p) for p in paths)}"
    )
    return 0


def cmd_validate(args) -> int:
    from .config import load_config

    if args.raw is None and not Path(args.config).is_dir():
        cfg = load_config(args.config)
        print(
            f"config OK: {len(cfg.categories)} categories, {len(cfg.benchmark_names())} benchmarks, "
            f"{len(cfg.metric_ids())} metrics"
        )
        return 0
    cfg, raw = _dataset(args)
    for w in raw.warnings:
        print(f"warning: {w}", file=sys.stderr)
    values = raw.aligned(cfg)
    n_missing = int((values != values).sum())
    print(
        f"OK: {len(cfg.categories)} categories, {len(cfg.benchmark_names())} benchmarks, "
        f"{len(cfg.metric_ids())} metrics; {len(raw.models)} models, "
        f"{values.size - n_missing} values, {n_missing} missing"
    )
    return 0


def cmd_serve(args) -> int:
    from .raw import load_dataset

    target = args.config or DEMO_DIR
    cfg, raw = load_dataset(target, args.raw, ignore_unknown=args.ignore_unknown)
    from .dashboard import serve

    return (
        serve(cfg, raw, host=args.host, port=args.port, debug=args.debug, workers=args.workers) or 0
    )


def _add_data_args(p: argparse.ArgumentParser, raw_required: bool = False) -> None:
    p.add_argument(
        "config", help="config YAML, or a dataset directory (config.yml + raw_metrics.csv)"
    )
    p.add_argument("raw", nargs="?", default=None, help="raw metrics CSV (long or wide)")
    p.add_argument(
        "--ignore-unknown",
        action="store_true",
        help="skip rows naming an unknown benchmark or metric (with a warning) instead of failing",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ml-peg-like",
        description="Score, rank and tune model benchmarks (thresholds, weights, live dashboard).",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score", help="write metric, benchmark, category and overall score tables")
    _add_data_args(p)
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--format", choices=["csv", "json", "xlsx"], default="csv")
    p.add_argument("--scale", type=float, choices=[1.0, 100.0], default=None, help="1 or 100")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("validate", help="check a config (and raw metrics); list every problem")
    _add_data_args(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("serve", help="serve the dashboard (default: the embedded demo data)")
    p.add_argument("config", nargs="?", default=None, help="config YAML or dataset directory")
    p.add_argument("raw", nargs="?", default=None, help="raw metrics CSV")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8050)
    p.add_argument("--workers", type=int, default=1, help="worker processes (gunicorn when > 1)")
    p.add_argument("--debug", action="store_true", help="Dash debug mode (never in production)")
    p.add_argument("--ignore-unknown", action="store_true")
    p.set_defaults(func=cmd_serve)

    for mod, adder in (
        ("ml_peg_like.cli_compute", "add_compute_parser"),
        ("ml_peg_like.cli_convert", "add_convert_parser"),
        ("ml_peg_like.cli_robustness", "add_robustness_parser"),
    ):
        try:
            module = __import__(mod, fromlist=[adder])
        except ImportError:
            continue
        getattr(module, adder)(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except INPUT_ERRORS as exc:
        return report(exc)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
