"""LIPS scoring configuration (INI) -> native config (+ optional results).

LIPS (IRT SystemX) colours each metric with two thresholds and a direction: 2 points green,
1 orange, 0 red; a group scores (2 Ng + No) / (2 N). Its scoring INI holds, per section,

    ValueByColor = {"green": 2, "orange": 1, "red": 0}
    Thresholds = {"a_or": {"comparison_type": "minimize", "thresholds": [0.02, 0.05]}, ...}

or, in older files, ``Thresholds = {"a_or": (0.02, 0.05, "min"), ...}`` (values are Python
literals, read by LIPS with ``ast.literal_eval``); ``Coefficients`` (group weights) and
``SpeedConfig`` (``max_speed_ratio_allowed``, ``reference_mean_simulation_time``) may sit beside.

Each thresholded metric becomes a ``traffic_light`` metric: minimize -> good = the lower
threshold, bad = the upper one; maximize -> good = the upper, bad = the lower. Its scores 1 /
0.5 / 0 are LIPS's 2 / 1 / 0 points halved, so a benchmark of equal-weight traffic lights scores
(2 Ng + No) / (2 N). LIPS uses ``bisect_left``: for minimize the colours agree exactly; for
maximize a value exactly equal to a threshold gets the lower colour in LIPS and the higher one here.

The INI holds no results: without ``results`` the raw CSV has its header only. A results CSV may
be long (``model[,category][,benchmark],metric,value``) or wide (``model`` then one column per
``metric`` or ``benchmark/metric``); benchmarks then follow its groups (e.g. ML, OOD, Physics),
weighted by ``Coefficients`` when the names match.
"""

from __future__ import annotations

import ast
import configparser
import csv
import io
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DataError, Problem
from ..raw import MISSING_TOKENS
from .common import Converted, Reporter, clean_name, read_text

_LOWER = {"min", "minimize", "minimise", "lower", "less"}
_HIGHER = {"max", "maximize", "maximise", "higher", "greater"}
DEFAULT_BENCHMARK = "Thresholds"
DEFAULT_CATEGORY = "LIPS"


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        pass
    return json.loads(text)


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def parse_threshold(name: str, spec: Any) -> tuple[str, float, float] | str:
    """(direction 'lower'|'higher', good, bad) of one LIPS threshold entry, or a problem text."""
    if isinstance(spec, Mapping):
        ctype = spec.get("comparison_type", spec.get("comparison"))
        ths = spec.get("thresholds")
    elif isinstance(spec, list | tuple):
        ctype = next((x for x in spec if isinstance(x, str)), None)
        ths = [x for x in spec if not isinstance(x, str)]
    else:
        return f"expected {{comparison_type, thresholds}} or (t1, t2, 'min'|'max'), got {spec!r}"[
            :160
        ]
    if not isinstance(ths, list | tuple):
        return "no thresholds list"
    nums = [_num(x) for x in ths]
    if len(nums) != 2 or any(x is None for x in nums):
        return f"expected two numeric thresholds, got {list(ths)!r}"[:160]
    c = str(ctype).strip().lower() if ctype is not None else ""
    if c in _LOWER:
        direction = "lower"
    elif c in _HIGHER:
        direction = "higher"
    else:
        return f"comparison_type must be minimize or maximize, got {ctype!r}"
    lo, hi = sorted(nums)  # LIPS bisects a sorted list
    if lo == hi:
        return f"the two thresholds are equal ({lo:g}): no orange band"
    return (direction, lo, hi) if direction == "lower" else (direction, hi, lo)


def _metric_dict(name: str, direction: str, good: float, bad: float) -> dict[str, Any]:
    if direction == "lower":
        desc = (
            f"LIPS traffic light (minimize): green (1) when <= {good:g}, red (0) when > {bad:g}, "
            "orange (0.5) between."
        )
    else:
        desc = (
            f"LIPS traffic light (maximize): green (1) when >= {good:g}, red (0) when < {bad:g}, "
            "orange (0.5) between (LIPS gives the lower colour at exactly a threshold)."
        )
    return {
        "good": good,
        "bad": bad,
        "weight": 1.0,
        "normaliser": "traffic_light",
        "description": desc,
    }


def _choose_section(cp: configparser.ConfigParser, section: str | None, path: Path) -> str:
    if section is not None:
        if section == "DEFAULT" or cp.has_section(section):
            return section
        have = ", ".join(["DEFAULT", *cp.sections()])
        raise DataError([Problem(str(path), f"no section [{section}] (sections: {have})")])
    if "thresholds" in cp.defaults():
        return "DEFAULT"
    own = [s for s in cp.sections() if "thresholds" in cp[s]]
    if len(own) == 1:
        return own[0]
    if not own:
        raise DataError([Problem(str(path), "no 'Thresholds' option in any section")])
    raise DataError(
        [
            Problem(
                str(path),
                f"several sections hold thresholds ({', '.join(own)}): choose one with --section",
            )
        ]
    )


def lips_to_dataset(
    ini: str | Path,
    *,
    section: str | None = None,
    results: str | Path | None = None,
    strict: bool = False,
) -> Converted:
    """Convert a LIPS scoring INI (and an optional results CSV) to a native dataset."""
    reporter = Reporter(strict)
    path = Path(ini)
    text = read_text(path, Reporter(strict=True)) if path.is_file() else None
    if text is None:
        raise DataError([Problem(str(path), "cannot read the LIPS scoring INI")])
    cp = configparser.ConfigParser(interpolation=None)
    try:
        cp.read_string(text, source=str(path))
    except configparser.Error as exc:
        msg = str(exc).strip().splitlines()[0]
        raise DataError([Problem(str(path), f"malformed INI: {msg}")]) from None
    sec = _choose_section(cp, section, path)
    opts = cp.defaults() if sec == "DEFAULT" else cp[sec]
    where = f"{path} [{sec}]"

    def option(name: str) -> Any:
        raw = opts.get(name.lower())
        if raw is None:
            return None
        try:
            return _literal(raw)
        except (ValueError, json.JSONDecodeError) as exc:
            raise DataError([Problem(f"{where} {name}", f"cannot read the value: {exc}")]) from None

    colors = option("ValueByColor")
    if colors is not None:
        if not isinstance(colors, Mapping) or len(colors) != 3:
            raise DataError(
                [
                    Problem(
                        f"{where} ValueByColor",
                        "only three colours (two thresholds) map to traffic lights",
                    )
                ]
            )
        pts = [_num(v) for v in colors.values()]
        if (
            None in pts
            or sorted(pts, reverse=True) != pts
            or pts[0] == pts[2]
            or (pts[0] - pts[1]) != (pts[1] - pts[2])
        ):
            reporter.warn(
                f"{where} ValueByColor",
                f"points {list(colors.values())} are not evenly spaced: traffic lights score 1 / 0.5 / 0",
            )
    ths = option("Thresholds")
    if not isinstance(ths, Mapping) or not ths:
        raise DataError(
            [Problem(f"{where} Thresholds", "expected a non-empty mapping of metric to thresholds")]
        )
    metrics: dict[str, dict[str, Any]] = {}
    for key, spec in ths.items():
        name = clean_name(key, f"{where} Thresholds.{key}", reporter)
        if name is None:
            continue
        parsed = parse_threshold(name, spec)
        if isinstance(parsed, str):
            reporter.warn(f"{where} Thresholds.{key}", f"{parsed}: metric skipped")
            continue
        metrics[name] = _metric_dict(name, *parsed)
    if not metrics:
        raise DataError([Problem(f"{where} Thresholds", "no usable threshold")])

    coeffs = option("Coefficients")
    coeffs = (
        {str(k).lower(): _num(v) for k, v in coeffs.items()} if isinstance(coeffs, Mapping) else {}
    )
    speed = option("SpeedConfig")
    speed = speed if isinstance(speed, Mapping) else {}

    title = f"LIPS scoring ({path.stem}" + (f", {sec}" if sec != "DEFAULT" else "") + ")"
    rows: list[tuple[str, str, str, float | None]] = []
    spd = _speed_metric(speed, where, reporter)
    if results is None:
        benches: dict[str, Any] = {DEFAULT_BENCHMARK: {"weight": 1.0, "metrics": metrics}}
        if spd is not None:
            benches["Speed"] = {"weight": _coeff(coeffs, "speed"), "metrics": {spd[0]: spd[1]}}
        categories = {DEFAULT_CATEGORY: {"weight": 1.0, "benchmarks": benches}}
    else:
        known = dict(metrics)
        if spd is not None and spd[0] not in known:
            known[spd[0]] = spd[1]
        categories, rows = _with_results(Path(results), known, coeffs, reporter)
    config = {
        "title": title,
        "description": "Traffic-light thresholds from a LIPS scoring configuration: 1 green, 0.5 orange, 0 red; "
        "a benchmark of N equal-weight metrics scores (2 Ng + No) / (2 N).",
        "missing": "invalidate",
        "categories": categories,
    }
    reporter.raise_errors()
    return Converted(config=config, rows=rows, warnings=reporter.warnings, info={"section": sec})


def _speed_metric(
    speed: Mapping, where: str, reporter: Reporter
) -> tuple[str, dict[str, Any]] | None:
    """SpeedConfig with max_speed_ratio_allowed -> a log_speedup metric (raw value: the inference
    time when reference_mean_simulation_time is given, else the speed-up itself)."""
    mx = _num(speed.get("max_speed_ratio_allowed"))
    if mx is None:
        return None
    if mx <= 1:
        reporter.warn(
            f"{where} SpeedConfig", "max_speed_ratio_allowed must be > 1: no speed-up metric"
        )
        return None
    ref = _num(speed.get("reference_mean_simulation_time"))
    m: dict[str, Any] = {"normaliser": "log_speedup", "max_speedup": mx, "weight": 1.0}
    formula = speed.get("speed_score_formula")
    note = f" (LIPS SpeedConfig {formula!r})" if formula else " (LIPS SpeedConfig)"
    if ref is not None and ref > 0:
        m["reference"] = ref
        m["unit"] = "s"
        m["description"] = (
            f"Inference time; speed-up = {ref:g} / time, scored log10(speed-up) / log10({mx:g}), "
            f"clipped to [0, 1]{note}."
        )
        return "inference_time", m
    m["description"] = f"Speed-up, scored log10(speed-up) / log10({mx:g}), clipped to [0, 1]{note}."
    return "speed-up", m


def _coeff(coeffs: Mapping[str, float | None], name: str) -> float:
    """The LIPS coefficient of a group (case-insensitive), 1 when absent or invalid."""
    w = coeffs.get(name.lower())
    return w if w is not None and w >= 0 else 1.0


def _read_results(path: Path) -> list[dict[str, str]]:
    text = read_text(path, Reporter(strict=True)) if path.is_file() else None
    if text is None:
        raise DataError([Problem(str(path), "cannot read the results CSV")])
    try:
        reader = csv.DictReader(io.StringIO(text))
        rows = [
            {(k or "").strip(): (v or "").strip() for k, v in r.items() if k is not None}
            for r in reader
        ]
        header = [h.strip() for h in reader.fieldnames or []]
    except csv.Error as exc:
        raise DataError([Problem(str(path), f"malformed CSV: {exc}")]) from None
    if "model" not in {h.lower() for h in header}:
        raise DataError([Problem(f"{path}:1", "expected a 'model' column")])
    return [
        {
            k.lower()
            if k.lower() in ("model", "category", "benchmark", "metric", "value")
            else k: v
            for k, v in r.items()
        }
        for r in rows
    ]


def _value(text: str, where: str, reporter: Reporter) -> float | None:
    if text.strip().lower() in MISSING_TOKENS:
        return None
    try:
        return float(text)
    except ValueError:
        reporter.warn(where, f"value {text!r} is not a number: read as missing")
        return None


def _with_results(path: Path, metrics, coeffs, reporter: Reporter):
    records = _read_results(path)
    long = records and "metric" in records[0] and "value" in records[0]
    triples: list[tuple[str, str, str, str, str]] = []  # category, benchmark, model, metric, value
    for i, r in enumerate(records, start=2):
        model = r.get("model", "")
        if not model:
            reporter.warn(f"{path}:{i}", "empty model name: row skipped")
            continue
        if long:
            triples.append(
                (
                    r.get("category") or DEFAULT_CATEGORY,
                    r.get("benchmark") or DEFAULT_BENCHMARK,
                    model,
                    r["metric"],
                    r["value"],
                )
            )
        else:
            for col, v in r.items():
                if col in ("model", "category"):
                    continue
                b, _, m = col.partition("/") if "/" in col else (DEFAULT_BENCHMARK, "", col)
                triples.append((r.get("category") or DEFAULT_CATEGORY, b, model, m, v))
    categories: dict[str, Any] = {}
    cat_of: dict[str, str] = {}
    seen: set[tuple[str, str, str]] = set()
    rows = []
    unknown: set[str] = set()
    for c, b, model, m, v in triples:
        if m not in metrics:
            unknown.add(m)
            continue
        if b in cat_of and cat_of[b] != c:
            reporter.warn(
                path,
                f"benchmark {b!r} listed under categories {cat_of[b]!r} and {c!r}: {c!r} ignored",
            )
            continue
        if (model, b, m) in seen:
            reporter.warn(path, f"duplicate value for {model!r}, {b}/{m}: the first is kept")
            continue
        seen.add((model, b, m))
        cat_of[b] = c
        bench = categories.setdefault(c, {"weight": 1.0, "benchmarks": {}})[
            "benchmarks"
        ].setdefault(b, {"weight": _coeff(coeffs, b), "metrics": {}})
        bench["metrics"].setdefault(m, dict(metrics[m]))
        rows.append((model, b, m, _value(v, f"{path} ({model}, {b}/{m})", reporter)))
    for m in sorted(unknown):
        reporter.warn(path, f"metric {m!r} has no LIPS threshold: skipped")
    if not categories:
        raise DataError([Problem(str(path), "no result names a metric that has thresholds")])
    return categories, rows
