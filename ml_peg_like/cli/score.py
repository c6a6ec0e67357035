"""``ml-peg-like score CONFIG [RAW] --out DIR``: metric, benchmark, category and overall scores.

``--format csv|json`` writes one file per level (full precision); ``xlsx`` one workbook
(Overall in rank order, Categories, Benchmarks, Metrics with raw values and units, Settings);
``latex`` one booktabs table (``scores.tex``) with scores to ``--digits`` significant digits
(``--latex-fit``, ``--latex-zero-weight``, ``--latex-label``, ``--latex-split-columns``). Every
format carries the provenance (docs/EXPORTS.md)."""

from __future__ import annotations

import argparse
import sys

from ..io.export import FORMATS, write_scores
from ..io.latex import DEFAULT_LABEL, DEFAULT_SPLIT_COLUMNS, FITS, ZERO_WEIGHT, LatexOptions
from ..io.provenance import provenance_of_scores
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
    add_latex_args(p)
    p.set_defaults(func=run)
    return p


def add_latex_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--latex-fit",
        choices=list(FITS),
        default="none",
        help="a wide LaTeX table: none, resize (\\resizebox to the line width), transpose "
        "(one column per model) or split (tables of at most --latex-split-columns columns)",
    )
    p.add_argument(
        "--latex-split-columns",
        type=integer_in(1),
        default=DEFAULT_SPLIT_COLUMNS,
        metavar="N",
        help=f"score columns per table with --latex-fit split (default {DEFAULT_SPLIT_COLUMNS})",
    )
    p.add_argument(
        "--latex-zero-weight",
        choices=list(ZERO_WEIGHT),
        default="omit",
        help="weight-0 categories in LaTeX: omit (default) or mark (kept, with a dagger)",
    )
    p.add_argument("--latex-label", default=DEFAULT_LABEL, help="the table's \\label")


def latex_options(args) -> LatexOptions | None:
    """The LaTeX options of the command line; None (and one line per problem on stderr)
    when one is bad."""
    opts = LatexOptions(
        fit=args.latex_fit,
        zero_weight=args.latex_zero_weight,
        label=args.latex_label,
        max_columns=args.latex_split_columns,
    )
    bad = opts.problems()
    for line in bad:
        print(f"error: {line}", file=sys.stderr)
    return None if bad else opts


def run(args) -> int:
    latex = latex_options(args)
    if latex is None:
        return 2
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
            origin=raw.origin,
        )
    paths = write_scores(
        res,
        args.out,
        args.format,
        args.scale,
        report=report,
        attributes=raw.attributes,
        provenance=provenance_of_scores(res, origin=raw.origin, scale=args.scale),
        latex=latex,
    )
    n_scored = int((~res.overall["score"].isna()).sum())
    print(
        f"scored {len(res.models)} models ({n_scored} with an overall score) on "
        f"{len(res.plan.metric_columns)} metrics; wrote {', '.join(str(p) for p in paths)}"
    )
    return 0
