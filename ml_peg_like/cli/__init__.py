"""The headless entry points: ``ml-peg-like score | validate | serve | compute | convert | ...``.

Every subcommand is one module of this package with ``add_parser(subparsers)`` (adds its argparse
parser, with ``func=run``) and ``run(args) -> int`` (the exit code). :data:`SUBCOMMANDS` lists
them in ``--help`` order; they are imported plainly, so a broken one fails loudly (what only one
command runs, e.g. the converters, that module imports in its ``run``). Adding one:
write ``cli/NAME.py`` and put ``NAME`` in the import line and the tuple below.

Bad input ends with exit code 2 and one line per problem on stderr, never a traceback.
"""

from __future__ import annotations

import argparse

from ..errors import INPUT_ERRORS, report
from . import compute, convert, publish, robustness, score, sensitivity, serve, validate, worker
from .common import Parser

SUBCOMMANDS = (
    score,
    validate,
    serve,
    publish,
    compute,
    convert,
    robustness,
    sensitivity,
    worker,
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ml-peg-like",
        description="Score, rank and tune model benchmarks (thresholds, weights, live dashboard).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for module in SUBCOMMANDS:
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except INPUT_ERRORS as exc:
        return report(exc)
    except KeyboardInterrupt:
        return 130
