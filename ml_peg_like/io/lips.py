"""LIPS scoring configuration (INI) -> native config (+ optional results).

LIPS (IRT SystemX) colours each metric with two thresholds and a direction: 2 points green,
1 orange, 0 red; a group scores (2 Ng + No) / (2 N). Its scoring INI holds, per section,

    ValueByColor = {"green": 2, "orange": 1, "red": 0}
    Thresholds = {"a_or": {"comparison_type": "minimize", "thresholds": [0.02, 0.05]}, ...}

or, in older files, ``Thresholds = {"a_or": (0.02, 0.05, "min"), ...}`` (values are Python
literals, read by LIPS with ``ast.literal_eval``); ``Coefficients`` (group weights) and
``SpeedConfig`` (``max_speed_ratio_allowed``, ``reference_mean_simulation_time``) may sit beside.
The airfoil configs put those two speed parameters in ``Thresholds`` with ``comparison_type:
ratio``; they are read from there too (``SpeedConfig`` wins when both are given).

Each thresholded metric becomes a ``traffic_light`` metric: minimize -> good = the lower
threshold, bad = the upper one; maximize -> good = the upper, bad = the lower. Its scores 1 /
0.5 / 0 are LIPS's 2 / 1 / 0 points halved, so a benchmark of equal-weight traffic lights scores
(2 Ng + No) / (2 N). LIPS uses ``bisect_left``: for minimize the colours agree exactly; for
maximize a value exactly equal to a threshold gets the lower colour in LIPS and the higher one here.

The INI holds no results: without ``results`` the raw CSV has its header only. A results CSV may
be long (``model[,category][,benchmark],metric,value``) or wide (``model[,category]`` then one
column per ``metric``, ``benchmark/metric`` or ``category/benchmark/metric``).

Groups and weights. Without a category, results fall in one category ``LIPS`` and each
benchmark (e.g. ML, OOD, Physics) weighs its top-level coefficient. With a category (LIPS's
airfoil layout: categories ML, OOD, Physics; sub-scores Accuracy and Speed under ML and OOD), the
category weighs the coefficient's ``value`` and each sub-score its nested weight::

    Coefficients = {"ML": {"value": 0.4, "Accuracy": {"value": 0.75}, "Speed": {"value": 0.25}},
                    "OOD": {"value": 0.3, "Accuracy": {"value": 0.75}, "Speed": {"value": 0.25}},
                    "Physics": {"value": 0.3}}

Names: the same sub-score name may sit under several categories (Accuracy under ML and OOD), but
a benchmark name is unique in a native config (it is the key of the raw CSV's ``benchmark``
column, of key paths, URLs and exports). So a sub-score under a category is always named
``"<sub-score> (<category>)"`` (``Accuracy (ML)``, ``Accuracy (OOD)``; key path
``ML/Accuracy (ML)/pressure``), the same in the config, the raw CSV and every key path; always,
not only on a clash, so that a name never depends on which other rows a file happens to hold. A
category without sub-scores (empty benchmark, or benchmark = category, e.g. Physics) becomes one
benchmark named like the category.

Coefficients that match no group, that are not numbers >= 0, or that nest deeper than category /
sub-score are reported and not used; a group without a coefficient (where one is given for its
siblings) weighs 1 with a warning. LIPS combines linearly; the native score is a weighted mean,
the same when the coefficients of a group sum to 1 (warned otherwise).
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

from ..aggregation import INVALIDATE
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


def _check_time_limit(training_time_limit: float | None) -> None:
    if training_time_limit is not None and not (
        math.isfinite(training_time_limit) and training_time_limit > 0
    ):
        raise DataError(
            [Problem("--training-time-limit", f"expected seconds > 0, got {training_time_limit}")]
        )


def _read_ini(path: Path) -> configparser.ConfigParser:
    text = read_text(path, Reporter(strict=True)) if path.is_file() else None
    if text is None:
        raise DataError([Problem(str(path), "cannot read the LIPS scoring INI")])
    cp = configparser.ConfigParser(interpolation=None)
    try:
        cp.read_string(text, source=str(path))
    except configparser.Error as exc:
        msg = str(exc).strip().splitlines()[0]
        raise DataError([Problem(str(path), f"malformed INI: {msg}")]) from None
    return cp


class _Options:
    """The options of the chosen section, read as Python literals."""

    def __init__(self, cp: configparser.ConfigParser, sec: str, path: Path):
        self.opts = cp.defaults() if sec == "DEFAULT" else cp[sec]
        self.where = f"{path} [{sec}]"

    def __call__(self, name: str) -> Any:
        raw = self.opts.get(name.lower())
        if raw is None:
            return None
        try:
            return _literal(raw)
        except (ValueError, json.JSONDecodeError) as exc:
            raise DataError(
                [Problem(f"{self.where} {name}", f"cannot read the value: {exc}")]
            ) from None


def _check_colors(colors: Any, where: str, reporter: Reporter) -> None:
    """``ValueByColor``: three colours, else an error; points not evenly spaced are warned of
    (traffic lights score 1 / 0.5 / 0)."""
    if colors is None:
        return
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


def _threshold_metrics(
    ths: Any, where: str, reporter: Reporter
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(traffic-light metrics, speed parameters given as ``ratio`` entries) of ``Thresholds``."""
    if not isinstance(ths, Mapping) or not ths:
        raise DataError(
            [Problem(f"{where} Thresholds", "expected a non-empty mapping of metric to thresholds")]
        )
    metrics: dict[str, dict[str, Any]] = {}
    ratio: dict[str, Any] = {}
    for key, spec in ths.items():
        name = clean_name(key, f"{where} Thresholds.{key}", reporter)
        if name is None:
            continue
        if _is_ratio(spec):
            if name in _SPEED_KEYS:
                ratio[name] = spec["thresholds"][0]
            else:
                reporter.warn(
                    f"{where} Thresholds.{key}", "a 'ratio' entry LIPS has no use for: skipped"
                )
            continue
        parsed = parse_threshold(name, spec)
        if isinstance(parsed, str):
            reporter.warn(f"{where} Thresholds.{key}", f"{parsed}: metric skipped")
            continue
        metrics[name] = _metric_dict(name, *parsed)
    if not metrics:
        raise DataError([Problem(f"{where} Thresholds", "no usable threshold")])
    return metrics, ratio


def _categories_without_results(metrics, spd, coeffs: _Coefficients) -> dict[str, Any]:
    """One category, one benchmark of the thresholded metrics (and one of the speed-up)."""
    benches: dict[str, Any] = {DEFAULT_BENCHMARK: {"weight": 1.0, "metrics": metrics}}
    if spd is not None:
        benches["Speed"] = {"weight": coeffs.weight("Speed"), "metrics": {spd[0]: spd[1]}}
    return {DEFAULT_CATEGORY: {"weight": 1.0, "benchmarks": benches}}


def lips_to_dataset(
    ini: str | Path,
    *,
    section: str | None = None,
    results: str | Path | None = None,
    strict: bool = False,
    training_time_limit: float | None = None,
) -> Converted:
    """Convert a LIPS scoring INI (and an optional results CSV) to a native dataset.

    ``training_time_limit`` (seconds): add the training-time veto (:data:`TRAINING_TIME`)."""
    _check_time_limit(training_time_limit)
    reporter = Reporter(strict)
    path = Path(ini)
    cp = _read_ini(path)
    sec = _choose_section(cp, section, path)
    option = _Options(cp, sec, path)
    where = option.where
    _check_colors(option("ValueByColor"), where, reporter)
    metrics, ratio = _threshold_metrics(option("Thresholds"), where, reporter)
    coeffs = _Coefficients(option("Coefficients"), f"{where} Coefficients", reporter)
    speed = option("SpeedConfig")
    speed = {**ratio, **(speed if isinstance(speed, Mapping) else {})}

    title = f"LIPS scoring ({path.stem}" + (f", {sec}" if sec != "DEFAULT" else "") + ")"
    rows: list[tuple[str, str, str, float | None]] = []
    spd = _speed_metric(speed, where, reporter)
    if results is None:
        categories = _categories_without_results(metrics, spd, coeffs)
    else:
        known = dict(metrics)
        if spd is not None and spd[0] not in known:
            known[spd[0]] = spd[1]
        categories, rows = _with_results(
            Path(results), known, coeffs, reporter, training_time_limit is not None
        )
    coeffs.report_unused()
    vetoes = []
    if training_time_limit is not None:
        categories[TRAINING], vetoes = _training(training_time_limit)
    config = {
        "title": title,
        "description": "Traffic-light thresholds from a LIPS scoring configuration: 1 green, 0.5 orange, 0 red; "
        "a benchmark of N equal-weight metrics scores (2 Ng + No) / (2 N).",
        "missing": INVALIDATE,
        "categories": categories,
    }
    if vetoes:
        config["vetoes"] = vetoes
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


_SPEED_KEYS = ("max_speed_ratio_allowed", "reference_mean_simulation_time")


def _is_ratio(spec: Any) -> bool:
    """A Thresholds entry ``{"comparison_type": "ratio", "thresholds": [x]}`` (airfoil configs)."""
    return (
        isinstance(spec, Mapping)
        and str(spec.get("comparison_type", "")).strip().lower() == "ratio"
        and isinstance(spec.get("thresholds"), list | tuple)
        and len(spec["thresholds"]) == 1
    )


class _Coefficients:
    """LIPS ``Coefficients``: flat ``{group: w}`` or nested ``{category: {"value": w, sub: {"value":
    w}}}``, looked up case-insensitively; records which entries were used."""

    def __init__(self, raw: Any, where: str, reporter: Reporter):
        self.where, self.reporter = where, reporter
        self.given = isinstance(raw, Mapping)
        # lower name -> (key, weight or None, {lower sub name -> (key, weight or None)})
        self.top: dict[str, tuple[str, float | None, dict[str, tuple[str, float | None]]]] = {}
        self.used: set[tuple[str, ...]] = set()
        if raw is not None and not self.given:
            reporter.warn(where, f"expected a mapping, got {raw!r}"[:160] + ": not used")
        for key, v in (raw or {}).items() if self.given else ():
            key = str(key)
            subs: dict[str, tuple[str, float | None]] = {}
            if isinstance(v, Mapping):
                w = self._w(v.get("value"), key) if "value" in v else None
                for sk, sv in v.items():
                    if sk == "value":
                        continue
                    sk = str(sk)
                    if isinstance(sv, Mapping):
                        extra = [str(x) for x in sv if x != "value"]
                        if extra:
                            reporter.warn(
                                f"{where}.{key}.{sk}",
                                f"nested deeper than category / sub-score ({', '.join(extra)}): "
                                "not used",
                            )
                        sv = sv.get("value")
                    subs[sk.lower()] = (sk, self._w(sv, f"{key}.{sk}"))
            else:
                w = self._w(v, key)
            self.top[key.lower()] = (key, w, subs)

    def _w(self, v: Any, label: str) -> float | None:
        w = _num(v)
        if w is None or w < 0:
            self.reporter.warn(f"{self.where}.{label}", f"{v!r} is not a weight >= 0: not used")
            return None
        return w

    def weight(self, name: str, sub: str | None = None, siblings: int = 2) -> float:
        """The weight of a top-level group, or of ``sub`` under category ``name``; 1 (with a
        warning when coefficients are given and the group has siblings) when there is none."""
        entry = self.top.get(name.lower())
        w = None
        if entry is not None and sub is None:
            self.used.add((entry[0],))
            w = entry[1]
            if w is None and siblings > 1 and entry[2]:
                self.reporter.warn(f"{self.where}.{entry[0]}", "no 'value': weight 1")
                return 1.0
        elif entry is not None:
            hit = entry[2].get(sub.lower())
            if hit is not None:
                self.used.add((entry[0], hit[0]))
                w = hit[1]
        if w is None and self.given and siblings > 1:
            label = name if sub is None else f"{name}.{sub}"
            self.reporter.warn(self.where, f"no usable coefficient for {label}: weight 1")
        return 1.0 if w is None else w

    def check_sum(self, label: str, weights: list[float]) -> None:
        """LIPS combines linearly: equal to the weighted mean only when the weights sum to 1."""
        total = sum(weights)
        if self.given and len(weights) > 1 and abs(total - 1.0) > 1e-9:
            self.reporter.warn(
                self.where,
                f"the weights of {label} sum to {total:g}, not 1: LIPS's linear combination is "
                f"{total:g} x the weighted mean scored here",
            )

    def report_unused(self) -> None:
        for key, w, subs in self.top.values():
            if (key,) not in self.used and w is not None:
                self.reporter.warn(
                    f"{self.where}.{key}", "matches no category or benchmark: not used"
                )
            for sk, sw in subs.values():
                if (key, sk) not in self.used and sw is not None:
                    self.reporter.warn(
                        f"{self.where}.{key}.{sk}",
                        f"matches no sub-score of category {key!r}: not used",
                    )


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


def _node_names(category: str | None, benchmark: str | None) -> tuple[str, str]:
    """(native category, native benchmark) of a results row; see the module docstring."""
    if category is None:
        return DEFAULT_CATEGORY, benchmark or DEFAULT_BENCHMARK
    if not benchmark or benchmark == category:
        return category, category
    return category, f"{benchmark} ({category})"


#: the veto of ``--training-time-limit`` (seeds 000/001: a training time over the limit "would be
#: equivalent to a null global score"; the seeds name no INI key, so the limit is an option):
#: a weight-0 metric ``Training/Training/training_time`` (seconds; results rows with metric
#: ``training_time`` fill it) and a config ``vetoes`` entry ``above: LIMIT``
TRAINING = "Training"
TRAINING_TIME = "training_time"


def _training(limit: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The weight-0 category holding the training time, and the veto on it."""
    metric = {
        "good": 0.0,
        "bad": float(limit),
        "weight": 0.0,
        "unit": "s",
        "description": f"Training time; above {limit:g} s the model is rejected (overall score 0)",
    }
    cat = {
        "weight": 0.0,
        "benchmarks": {TRAINING: {"weight": 1.0, "metrics": {TRAINING_TIME: metric}}},
    }
    return cat, [{"metric": f"{TRAINING}/{TRAINING}/{TRAINING_TIME}", "above": float(limit)}]


def _result_cells(records, path: Path, reporter: Reporter):
    """(category or None, benchmark or None, model, metric, value text) of each value of a long
    (``metric``, ``value`` columns) or wide (one column per metric) results table."""
    long = records and "metric" in records[0] and "value" in records[0]
    cells: list[tuple[str | None, str | None, str, str, str]] = []
    for i, r in enumerate(records, start=2):
        model = r.get("model", "")
        if not model:
            reporter.warn(f"{path}:{i}", "empty model name: row skipped")
            continue
        cat = r.get("category") or None
        if long:
            cells.append((cat, r.get("benchmark") or None, model, r["metric"], r["value"]))
            continue
        for col, v in r.items():
            if col not in ("model", "category"):
                c, b, m = _wide_column(col, cat)
                cells.append((c or None, b or None, model, m, v))
    return cells


def _wide_column(col: str, cat: str | None) -> tuple[str | None, str | None, str]:
    """(category, benchmark, metric) of a wide column: ``metric``, ``benchmark/metric`` or
    ``category/benchmark/metric``."""
    parts = col.split("/")
    if len(parts) == 1:
        return cat, None, parts[0]
    if len(parts) == 2:
        return cat, parts[0], parts[1]
    c, b, m = parts[-3:]
    return c, b, m


class _ResultTree:
    """The categories and benchmarks the results fill, and their rows."""

    def __init__(self, path: Path, metrics, training: bool, reporter: Reporter):
        self.path, self.metrics, self.training, self.reporter = path, metrics, training, reporter
        self.categories: dict[str, Any] = {}
        self.origin: dict[str, tuple[str | None, str | None]] = {}  # benchmark -> (category, sub)
        self.cat_of: dict[str, str] = {}
        self.seen: set[tuple[str, str, str]] = set()
        self.rows: list[tuple[str, str, str, float | None]] = []
        self.unknown: set[str] = set()

    def add(self, c_in: str | None, b_in: str | None, model: str, m: str, v: str) -> None:
        if self.training and m == TRAINING_TIME:  # the veto's metric (its own category)
            if (model, TRAINING, m) not in self.seen:
                self.seen.add((model, TRAINING, m))
                value = _value(v, f"{self.path} ({model}, {m})", self.reporter)
                self.rows.append((model, TRAINING, m, value))
            return
        if m not in self.metrics:
            self.unknown.add(m)
            return
        c, b = _node_names(c_in, b_in)
        if self._clashes(model, c, b, m):
            return
        self.seen.add((model, b, m))
        self.cat_of[b] = c
        self.origin.setdefault(b, (c_in, b_in))
        bench = self.categories.setdefault(c, {"weight": 1.0, "benchmarks": {}})[
            "benchmarks"
        ].setdefault(b, {"weight": 1.0, "metrics": {}})
        bench["metrics"].setdefault(m, dict(self.metrics[m]))
        self.rows.append((model, b, m, _value(v, f"{self.path} ({model}, {b}/{m})", self.reporter)))

    def _clashes(self, model: str, c: str, b: str, m: str) -> bool:
        """A benchmark already under another category, or a value already given (reported)."""
        if b in self.cat_of and self.cat_of[b] != c:
            self.reporter.warn(
                self.path,
                f"benchmark {b!r} listed under categories {self.cat_of[b]!r} and {c!r}: {c!r} ignored",
            )
            return True
        if (model, b, m) in self.seen:
            self.reporter.warn(
                self.path, f"duplicate value for {model!r}, {b}/{m}: the first is kept"
            )
            return True
        return False


def _with_results(
    path: Path, metrics, coeffs: _Coefficients, reporter: Reporter, training: bool = False
):
    tree = _ResultTree(path, metrics, training, reporter)
    for cell in _result_cells(_read_results(path), path, reporter):
        tree.add(*cell)
    for m in sorted(tree.unknown):
        reporter.warn(path, f"metric {m!r} has no LIPS threshold: skipped")
    if not tree.categories:
        raise DataError([Problem(str(path), "no result names a metric that has thresholds")])
    _weigh(tree.categories, tree.origin, coeffs, reporter, path)
    return tree.categories, tree.rows


def _weigh(categories, origin, coeffs: _Coefficients, reporter: Reporter, path: Path) -> None:
    """Set category and benchmark weights from the coefficients (see the module docstring)."""
    n_groups = max(len(categories), *(len(c["benchmarks"]) for c in categories.values()))
    if not coeffs.given and n_groups > 1:
        reporter.warn(path, "no Coefficients in the INI: every category and benchmark weighs 1")
    explicit = [c for c in categories if any(o[0] == c for o in origin.values())]
    for c, node in categories.items():
        benches = node["benchmarks"]
        if c in explicit:
            node["weight"] = coeffs.weight(c, siblings=len(categories))
            for b, bnode in benches.items():
                sub = origin[b][1]
                if sub is None or sub == c:
                    bnode["weight"] = 1.0  # the category's only group
                else:
                    bnode["weight"] = coeffs.weight(c, sub, siblings=len(benches))
        else:
            for b, bnode in benches.items():
                bnode["weight"] = coeffs.weight(b, siblings=len(benches))
        coeffs.check_sum(f"the benchmarks of {c!r}", [b["weight"] for b in benches.values()])
    if explicit:
        coeffs.check_sum("the categories", [categories[c]["weight"] for c in explicit])
