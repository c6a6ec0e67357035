"""``ml-peg-like convert ml-peg | matbench-discovery | lips``: other benchmarks' files -> a dataset.

A dataset directory is ``config.yml`` + ``raw_metrics.csv`` (+ ``models.csv``), see docs/FORMATS.md.
The converters live in :mod:`ml_peg_like.io` (``mlpeg``, ``matbench``, ``lips``; their shared
plumbing in ``io.common``). Problems are one line each on stderr (``warning: ...`` or
``error: ...``) with exit code 2, never a traceback. Without ``--strict`` a malformed input file is
reported with its path and skipped; with ``--strict`` it is an error.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import INPUT_ERRORS, report
from .common import Parser, warn

if TYPE_CHECKING:
    from ..io.common import Converted


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``convert`` (with ``ml-peg``, ``matbench-discovery``, ``lips``) to ``subparsers``."""
    p = subparsers.add_parser(
        "convert",
        help="convert another benchmark's files (ML-PEG, Matbench Discovery, LIPS) to a dataset",
        description="Write DIR/config.yml, DIR/raw_metrics.csv and DIR/models.csv from another "
        "benchmark's files; `ml-peg-like score DIR` and `serve DIR` then read them.",
    )
    sub = p.add_subparsers(dest="convert_format", metavar="FORMAT", required=True)

    m = sub.add_parser(
        "ml-peg",
        help="ML-PEG app tables: SRC/<category>/<benchmark>/*_table.json",
        description="Thresholds, weights, units, tooltips and level of theory come from each table; "
        "models by `id` (the `MLIP` name kept as display_name in models.csv).",
    )
    m.add_argument("src", help="directory of <category>/<benchmark>/*_table.json")
    m.add_argument(
        "--app-config",
        dest="app_config",
        default=None,
        metavar="APPDIR",
        help="ML-PEG configs/app: category titles, descriptions, weights, "
        "benchmark_weights and utils/weight_presets.yml",
    )
    m.add_argument(
        "--thresholds",
        default=None,
        metavar="ANALYSISDIR",
        help="ML-PEG configs/analysis: <category>/<benchmark>/metrics.yml overriding "
        "the tables' thresholds and weights",
    )
    _common(m)

    mb = sub.add_parser(
        "matbench-discovery",
        help="Matbench Discovery model YAMLs: SRC/<family>/<model>.yml",
        description="Tasks become categories, their subsets benchmarks; default weights make the "
        "overall score Matbench Discovery's CPS.",
    )
    mb.add_argument("src", help="directory of <family>/<model>.yml")
    _common(mb)

    lp = sub.add_parser(
        "lips",
        help="a LIPS scoring config (INI) -> traffic-light metrics",
        description="Each thresholded metric of the LIPS scoring INI becomes a traffic-light metric "
        "(minimize: good = lower threshold). Without --results the raw CSV holds only its header.",
    )
    lp.add_argument("src", metavar="SCORECONFIG.ini", help="LIPS scoring configuration (INI)")
    lp.add_argument(
        "--section",
        default=None,
        help="INI section to read (default: the one holding the thresholds, else DEFAULT)",
    )
    lp.add_argument(
        "--results",
        default=None,
        metavar="CSV",
        help="optional results: long (model[,benchmark],metric,value) or wide CSV",
    )
    lp.add_argument(
        "--training-time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="reject (overall score 0) a model whose training_time result is above SECONDS "
        "(LIPS: a null global score); adds a weight-0 Training/Training/training_time metric "
        "and a config veto",
    )
    _common(lp)

    for sp, fn in ((m, _run_mlpeg), (mb, _run_matbench), (lp, _run_lips)):
        sp.set_defaults(func=run, _convert=fn)
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="output dataset directory")
    p.add_argument(
        "--strict",
        action="store_true",
        help="a malformed input file is an error (default: a warning, file skipped)",
    )


def run(args) -> int:
    """Run the converter chosen on the command line; 0 on success, 2 on bad input."""
    # the converters are imported when one runs (see cli/compute.py)
    from ..io.common import summary, write_dataset

    try:
        conv = args._convert(args)
        conv.source = _source(args)
        paths = write_dataset(conv, args.out)
    except INPUT_ERRORS as exc:
        return report(exc)
    warn(conv.warnings)
    print(f"converted: {summary(conv)}; wrote {', '.join(str(p) for p in paths)}")
    for line in conv.info.get("report", []):
        print(line)
    return 0


def _source(args) -> dict:
    """The converter record written beside the dataset (``source.json``, see
    :mod:`ml_peg_like.io.provenance`): the converter, its version, the inputs, the date."""
    from ..io.provenance import source_record

    names = ("src", "app_config", "thresholds", "section", "results", "training_time_limit")
    return source_record(args.convert_format, {k: getattr(args, k, None) for k in names})


def _run_mlpeg(args) -> Converted:
    from ..io.mlpeg import mlpeg_to_dataset, stored_scores_report

    conv = mlpeg_to_dataset(
        args.src, app_dir=args.app_config, thresholds_dir=args.thresholds, strict=args.strict
    )
    conv.info.setdefault("report", []).extend(stored_scores_report(conv))
    return conv


def _run_matbench(args) -> Converted:
    from ..io.matbench import cps_report, matbench_to_dataset

    conv = matbench_to_dataset(args.src, strict=args.strict)
    conv.info.setdefault("report", []).extend(cps_report(conv))
    return conv


def _run_lips(args) -> Converted:
    from ..io.lips import lips_to_dataset

    return lips_to_dataset(
        args.src,
        section=args.section,
        results=args.results,
        strict=args.strict,
        training_time_limit=args.training_time_limit,
    )


def main(argv: list[str] | None = None) -> int:
    """``ml-peg-like convert FORMAT ...`` with the arguments after ``convert`` (for scripts)."""
    parser = Parser(prog="ml-peg-like")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["convert", *(argv if argv is not None else sys.argv[1:])])
    return run(args)
