"""``ml-peg-like convert ml-peg | matbench-discovery | lips``: other benchmarks' files -> a dataset.

A dataset directory is ``config.yml`` + ``raw_metrics.csv`` (+ ``models.csv``), see docs/FORMATS.md.
This module holds the command-line handlers and the plumbing the three converters share
(:class:`Converted`, :class:`Reporter`, :func:`write_dataset`, :func:`as_number`); the converters
themselves live in ``ml_peg_like.io.mlpeg``, ``ml_peg_like.io.matbench`` and ``ml_peg_like.io.lips``.

Handlers print one line per problem on stderr (``warning: ...`` or ``error: ...``) and return
exit code 2 on :class:`~ml_peg_like.errors.MlPegLikeError`, never a traceback. Without
``--strict`` a malformed input file is reported with its path and skipped; with ``--strict`` it
is an error.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import DataError, MlPegLikeError, Problem

MAX_NAME = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


# ------------------------------------------------------------------------------------------------
# Shared plumbing
# ------------------------------------------------------------------------------------------------


class _NotANumber:
    """Marker for a value that is present but not a number (a string, a list, a record...)."""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "NOT_A_NUMBER"


NOT_A_NUMBER = _NotANumber()


def as_number(value: Any, *, bools: bool = True) -> float | None | _NotANumber:
    """A raw value as a float; ``None`` when missing (None, NaN); ``NOT_A_NUMBER`` otherwise.

    Booleans count as 1/0 when ``bools`` (ML-PEG writes ``good: True, bad: False``).
    Infinite values are kept (the engine scores them as the worst or best).
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value) if bools else NOT_A_NUMBER
    if isinstance(value, int | float):
        v = float(value)
        return None if math.isnan(v) else v
    return NOT_A_NUMBER


def clean_name(name: Any, where: str, reporter: Reporter) -> str | None:
    """A usable node name (text, no control characters, at most 200 characters), else None."""
    if isinstance(name, bool) or not isinstance(name, str | int | float):
        reporter.warn(where, f"name {name!r} is not text: skipped")
        return None
    text = str(name)
    if _CONTROL.search(text):
        reporter.warn(where, f"name {text!r} holds control characters: replaced by spaces")
        text = _CONTROL.sub(" ", text)
    text = text.strip()
    if not text:
        reporter.warn(where, "empty name: skipped")
        return None
    if len(text) > MAX_NAME:
        reporter.warn(where, f"name longer than {MAX_NAME} characters: skipped")
        return None
    return text


class Reporter:
    """Collects warnings; with ``strict`` a malformed input file becomes an error."""

    def __init__(self, strict: bool = False):
        self.strict = strict
        self.warnings: list[str] = []
        self.errors: list[Problem] = []

    def warn(self, where: str | Path, message: str) -> None:
        self.warnings.append(f"{where}: {message}" if str(where) else message)

    def malformed(self, where: str | Path, message: str) -> None:
        """A file that cannot be read as its format: skipped, or an error with ``strict``."""
        if self.strict:
            self.errors.append(Problem(str(where), message))
        else:
            self.warn(where, f"{message} (file skipped)")

    def raise_errors(self) -> None:
        if self.errors:
            raise DataError(self.errors)


def read_text(path: Path, reporter: Reporter) -> str | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        reporter.malformed(path, f"cannot read: {exc.strerror or exc}")
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        reporter.malformed(f"{path}:{line}", "not UTF-8 text")
        return None


def read_json_file(path: Path, reporter: Reporter) -> Any:
    """Parsed JSON (NaN/Infinity accepted, as Python writes them), or None when malformed."""
    text = read_text(path, reporter)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        reporter.malformed(f"{path}:{exc.lineno}", f"invalid JSON: {exc.msg}")
        return None
    except RecursionError:
        reporter.malformed(path, "invalid JSON: nested too deeply")
        return None


def read_yaml_file(path: Path, reporter: Reporter) -> Any:
    """Parsed YAML (safe, no aliases), or None when malformed."""
    from .config import safe_load_yaml

    text = read_text(path, reporter)
    if text is None:
        return None
    try:
        return safe_load_yaml(text, str(path))
    except MlPegLikeError as exc:
        for p in exc.problems:
            reporter.malformed(p.where or path, p.message)
        return None


@dataclass
class Converted:
    """A converted dataset, before it is written.

    ``rows``: (model, benchmark, metric, value) with ``None`` for a missing value (written as an
    empty cell, so the model is still listed). ``models``: one mapping of attributes per model,
    written to models.csv (``model`` first). ``info``: converter-specific facts (e.g. stored
    scores to compare against).
    """

    config: dict[str, Any]
    rows: list[tuple[str, str, str, float | None]] = field(default_factory=list)
    models: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def build(self):
        """(Config, RawData) exactly as they will load from the written files."""
        from .config import loads_config
        from .raw import load_raw

        cfg = loads_config(self.config_text(), "config.yml")
        buf = io.BytesIO(self.raw_text().encode("utf-8"))
        buf.name = "raw_metrics.csv"
        return cfg, load_raw(buf, cfg)

    def config_text(self) -> str:
        from .config import config_from_dict, dump_config

        return dump_config(config_from_dict(self.config, "config"))

    def raw_text(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["model", "benchmark", "metric", "value"])
        for model, bench, metric, value in self.rows:
            w.writerow([model, bench, metric, format_value(value)])
        return buf.getvalue()

    def models_text(self) -> str | None:
        if not self.models:
            return None
        cols: list[str] = ["model"]
        for m in self.models:
            for k in m:
                if k not in cols:
                    cols.append(k)
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for m in self.models:
            w.writerow(["" if m.get(c) is None else str(m.get(c)) for c in cols])
        return buf.getvalue()


def format_value(value: float | None) -> str:
    """A raw value as CSV text that reads back to the same float (repr round-trips)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(float(value))


def write_dataset(conv: Converted, out: str | Path) -> list[Path]:
    """Validate ``conv`` fully, then write DIR/config.yml, raw_metrics.csv (and models.csv).

    Nothing is written when the config or the raw data would not load.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise DataError([Problem(str(out), "--out must be a directory (it is a file)")])
    conv.build()  # raises ConfigError / DataError naming every problem
    texts = {"config.yml": conv.config_text(), "raw_metrics.csv": conv.raw_text()}
    models = conv.models_text()
    if models is not None:
        texts["models.csv"] = models
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, text in texts.items():
            p = out / name
            p.write_text(text, encoding="utf-8", newline="")
            written.append(p)
        stale = out / "models.csv"
        if models is None and stale.exists():
            stale.unlink()
    except OSError as exc:
        raise DataError([Problem(str(out), f"cannot write: {exc.strerror or exc}")]) from None
    return written


def summary(conv: Converted) -> str:
    cfg = conv.config.get("categories", {})
    n_b = sum(len(c.get("benchmarks", {})) for c in cfg.values())
    n_m = sum(
        len(b.get("metrics", {})) for c in cfg.values() for b in c.get("benchmarks", {}).values()
    )
    models = {r[0] for r in conv.rows}
    n_val = sum(1 for r in conv.rows if r[3] is not None)
    return f"{len(cfg)} categories, {n_b} benchmarks, {n_m} metrics; {len(models)} models, {n_val} values"


# ------------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------------


def add_convert_parser(subparsers) -> argparse.ArgumentParser:
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
    _common(lp)

    for sp, fn in ((m, _run_mlpeg), (mb, _run_matbench), (lp, _run_lips)):
        sp.set_defaults(func=run_convert, _convert=fn)
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="output dataset directory")
    p.add_argument(
        "--strict",
        action="store_true",
        help="a malformed input file is an error (default: a warning, file skipped)",
    )


def run_convert(args) -> int:
    """Run the converter chosen on the command line; 0 on success, 2 on bad input."""
    fn: Callable | None = getattr(args, "_convert", None)
    if fn is None:
        fn = {"ml-peg": _run_mlpeg, "matbench-discovery": _run_matbench, "lips": _run_lips}.get(
            getattr(args, "convert_format", None)
        )
    if fn is None:
        print("error: choose a format: ml-peg, matbench-discovery or lips", file=sys.stderr)
        return 2
    try:
        conv = fn(args)
        paths = write_dataset(conv, args.out)
    except MlPegLikeError as exc:
        for line in exc.lines():
            print(f"error: {line}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for w in conv.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"converted: {summary(conv)}; wrote {', '.join(str(p) for p in paths)}")
    for line in conv.info.get("report", []):
        print(line)
    return 0


def _run_mlpeg(args) -> Converted:
    from .io.mlpeg import mlpeg_to_dataset

    conv = mlpeg_to_dataset(
        args.src, app_dir=args.app_config, thresholds_dir=args.thresholds, strict=args.strict
    )
    conv.info.setdefault("report", []).extend(_mlpeg_check(conv))
    return conv


def _mlpeg_check(conv: Converted) -> list[str]:
    """Score the converted data and compare with the Score ML-PEG stored in each table."""
    from .io.mlpeg import compare_stored_scores

    try:
        n, n_missing_ok, mismatches, max_diff = compare_stored_scores(conv)
    except MlPegLikeError:  # pragma: no cover - write_dataset reports it
        return []
    if not n:
        return []
    line = f"ML-PEG stored Score: {n - len(mismatches)}/{n} model-benchmark scores reproduced"
    line += f" (max |difference| {max_diff:.3g}; {n_missing_ok} missing on both sides)"
    out = [line]
    for m in mismatches[:10]:
        out.append(f"  differs: {m}")
    if mismatches:
        out.append("  (expected when --thresholds changes the tables' thresholds or weights)")
    return out


def _run_matbench(args) -> Converted:
    from .io.matbench import cps_report, matbench_to_dataset

    conv = matbench_to_dataset(args.src, strict=args.strict)
    conv.info.setdefault("report", []).extend(cps_report(conv))
    return conv


def _run_lips(args) -> Converted:
    from .io.lips import lips_to_dataset

    return lips_to_dataset(args.src, section=args.section, results=args.results, strict=args.strict)


def main(argv: list[str] | None = None) -> int:
    """``python -m ml_peg_like.cli_convert FORMAT ...`` (the same as ``ml-peg-like convert``)."""
    parser = argparse.ArgumentParser(prog="ml-peg-like")
    sub = parser.add_subparsers(dest="command", required=True)
    add_convert_parser(sub)
    args = parser.parse_args(["convert", *(argv if argv is not None else sys.argv[1:])])
    return run_convert(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
