"""``ml-peg-like score CONFIG [RAW] --out DIR``: metric, benchmark, category and overall scores.

``--format csv|json`` writes one file per level (full precision); ``xlsx`` one workbook
(Overall in rank order, Categories, Benchmarks, Metrics with raw values and units, Settings);
``latex`` one booktabs table (``scores.tex``) with scores to ``--digits`` significant digits."""

from __future__ import annotations

import argparse

from ..io.export import FORMATS, write_scores
from ..io.report import build_report
from ..numfmt import MAX_DIGITS, MIN_DIGITS, SCORE_DIGITS
from ..raw import load_dataset
from ..scoring import score
from .common import add_data_args, integer_in, warn


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "score", help="write metric, benchmark, category and overall score tables"
    )
    add_data_args(p)
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument(
        "--format",
        choices=list(FORMATS),
        default="csv",
        help="csv/json: a file per level, full precision; xlsx: one workbook with a Settings "
        "sheet; latex: a booktabs table of rank, model, overall and category scores",
    )
    p.add_argument(
        "--digits",
        type=integer_in(MIN_DIGITS, MAX_DIGITS),
        default=SCORE_DIGITS,
        help=f"significant digits of the scores in LaTeX and of the Excel number format "
        f"(default {SCORE_DIGITS}; CSV/JSON keep full precision)",
    )
    p.add_argument("--scale", type=float, choices=[1.0, 100.0], default=None, help="1 or 100")
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    cfg, raw = load_dataset(args.config, args.raw, ignore_unknown=args.ignore_unknown)
    warn(raw.warnings)
    res = score(raw, cfg)
    warn(res.warnings)
    report = None
    if args.format in ("xlsx", "latex"):
        report = build_report(
            res,
            attributes=raw.attributes,
            source=" ".join(str(p) for p in (args.config, args.raw) if p),
            digits=args.digits,
            scale=args.scale,
        )
    paths = write_scores(
        res, args.out, args.format, args.scale, report=report, attributes=raw.attributes
    )
    n_scored = int((~res.overall["score"].isna()).sum())
    print(
        f"scored {len(res.models)} models ({n_scored} with an overall score) on "
        f"{len(res.plan.metric_columns)} metrics; wrote {', '.join(str(p) for p in paths)}"
    )
    return 0
