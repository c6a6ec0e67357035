"""What the converters (ML-PEG, Matbench Discovery, LIPS) share: reading their input files,
collecting warnings, cleaning names and numbers, and writing the dataset directory.

A dataset directory is ``config.yml`` + ``raw_metrics.csv`` (+ ``models.csv``), see
docs/FORMATS.md. Without ``strict`` a malformed input file is reported with its path and skipped
(:class:`Reporter`); with ``strict`` it is an error.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import config_from_dict, dump_config, loads_config, safe_load_yaml
from ..errors import DataError, MlPegLikeError, Problem
from ..raw import load_raw, max_raw_bytes
from ..support.files import read_limited

MAX_NAME = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


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
    """The UTF-8 text of a regular file of at most :func:`~ml_peg_like.raw.max_raw_bytes`,
    or None (reported) when it cannot be read."""
    try:
        data = read_limited(path, max_raw_bytes())
    except MlPegLikeError as exc:
        for p in exc.problems:
            reporter.malformed(p.where or path, p.message)
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


def read_mapping(
    read: Callable[[Path, Reporter], Any], path: Path, reporter: Reporter, expected: str
) -> Mapping | None:
    """``read(path, reporter)`` (:func:`read_json_file` or :func:`read_yaml_file`) when it gives
    a mapping; else None, and anything but a mapping is reported as malformed (``expected``)."""
    data = read(path, reporter)
    if data is not None and not isinstance(data, Mapping):
        reporter.malformed(path, expected)
        return None
    return data


def read_yaml_file(path: Path, reporter: Reporter) -> Any:
    """Parsed YAML (safe, no aliases), or None when malformed."""
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
    #: the converter record written as ``source.json`` (``io.provenance.source_record``)
    source: dict[str, Any] = field(default_factory=dict)

    def build(self):
        """(Config, RawData) exactly as they will load from the written files."""
        cfg = loads_config(self.config_text(), "config.yml")
        buf = io.BytesIO(self.raw_text().encode("utf-8"))
        buf.name = "raw_metrics.csv"
        return cfg, load_raw(buf, cfg)

    def config_text(self) -> str:
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
    """Validate ``conv`` fully, then write DIR/config.yml, raw_metrics.csv (and models.csv, and
    source.json: the converter record, when ``conv.source`` holds one).

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
    if conv.source:
        texts["source.json"] = json.dumps(conv.source, indent=2, ensure_ascii=False) + "\n"
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, text in texts.items():
            p = out / name
            p.write_text(text, encoding="utf-8", newline="")
            written.append(p)
        for stale in ("models.csv", "source.json"):  # a file an earlier conversion left
            if stale not in texts and (out / stale).exists():
                (out / stale).unlink()
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
