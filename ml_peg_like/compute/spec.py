"""The metric SPEC of ``compute``: its dataclasses, its functions table and its validation.

:func:`spec_from_dict` checks a SPEC given as plain data and reports every problem at once
(``file:line key.path: message`` through :class:`~ml_peg_like.errors.ConfigError`);
:func:`load_spec` reads it from YAML. The SPEC format is described in :mod:`ml_peg_like.compute`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import ConfigError, Problem

MISSING_METRIC = "missing fraction"
MAX_REPORTED = 25
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")
KINDS = ("scalar", "vector", "distribution")
VECTOR_COLS = ("x", "y", "z")


@dataclass(frozen=True)
class _Fn:
    kind: str
    options: frozenset[str]
    needs_reference: bool = True


FNS: dict[str, _Fn] = {
    "mae": _Fn("scalar", frozenset({"per_atom", "weighted"})),
    "rmse": _Fn("scalar", frozenset({"per_atom", "weighted"})),
    "max_abs_error": _Fn("scalar", frozenset({"per_atom"})),
    "mape": _Fn("scalar", frozenset({"per_atom"})),
    "r2": _Fn("scalar", frozenset({"per_atom"})),
    "mape_top_quantile": _Fn("scalar", frozenset({"quantile"})),
    "share_negative": _Fn("scalar", frozenset(), needs_reference=False),
    "share_nonzero": _Fn("scalar", frozenset({"tol", "where"})),
    "log_partition_error": _Fn("scalar", frozenset()),
    "mpe_error": _Fn("scalar", frozenset()),
    "vector_mae": _Fn("vector", frozenset({"mode"})),
    "vector_rmse": _Fn("vector", frozenset({"mode"})),
    "mean_hellinger": _Fn("distribution", frozenset()),
}
_SHORTHANDS = {"mape90": ("mape_top_quantile", 0.9), "mape10": ("mape_top_quantile", 0.1)}
_COMMON_KEYS = {"name", "fn", "scale", "per_instance"}
_PER_ATOM = ("none", "n", "sqrt")
_WHERE = ("reference_zero", "all")
_MODES = ("magnitude", "component")


@dataclass(frozen=True)
class MetricSpec:
    """One metric of a benchmark; ``options()`` is what the computation depends on."""

    name: str
    fn: str
    scale: float = 1.0
    per_atom: str = "none"
    weighted: bool = False
    mode: str = "magnitude"
    quantile: float | None = None
    tol: float = 0.0
    where: str = "reference_zero"
    per_instance: bool = False  # one value per instance instead of one per (model, benchmark)

    def options(self) -> tuple:
        opts = FNS[self.fn].options
        return (self.fn, self.per_instance) + tuple(
            (k, getattr(self, k))
            for k in ("per_atom", "weighted", "mode", "quantile", "tol", "where")
            if k in opts
        )

    @property
    def needs_reference(self) -> bool:
        if self.fn == "share_nonzero":
            return self.where == "reference_zero"
        return FNS[self.fn].needs_reference


@dataclass(frozen=True)
class BenchmarkSpec:
    name: str
    kind: str = "scalar"
    max_missing: float = 0.0
    metrics: tuple[MetricSpec, ...] = ()


@dataclass(frozen=True)
class Spec:
    benchmarks: tuple[BenchmarkSpec, ...]
    max_missing: float = 0.0
    source: str = ""

    def benchmark(self, name: str) -> BenchmarkSpec:
        for b in self.benchmarks:
            if b.name == name:
                return b
        raise KeyError(name)


def short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Locator:
    """Maps a key path (tuple of keys / list indices) to ``source:line`` using the YAML nodes."""

    def __init__(self, source: str, text: str | None):
        self.source = source or "spec"
        self.lines: dict[tuple, int] = {}
        if text is not None:
            try:
                node = yaml.compose(text, Loader=yaml.SafeLoader)
            except yaml.YAMLError:
                node = None
            if node is not None:
                self._walk(node, ())

    def _walk(self, node, path: tuple) -> None:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                key = k.value
                self.lines[path + (key,)] = k.start_mark.line + 1
                self._walk(v, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                self._walk(v, path + (i,))

    def problem(self, path: tuple, message: str) -> Problem:
        shown = ""
        for p in path:
            shown += f"[{p}]" if isinstance(p, int) else (f".{p}" if shown else str(p))
        line = None
        for n in range(len(path), -1, -1):
            key = tuple(str(p) if not isinstance(p, int) else p for p in path[:n])
            if key in self.lines:
                line = self.lines[key]
                break
        where = f"{self.source}:{line}" if line is not None else self.source
        if shown:
            where = f"{where} {shown}"
        return Problem(where, message)


def _fraction(value: Any, path: tuple, loc: _Locator, problems: list[Problem]) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        problems.append(
            loc.problem(path, f"expected a fraction in [0, 1], got {short_repr(value)}")
        )
        return None
    return float(value)


def _flag(value: Any, path: tuple, loc: _Locator, problems: list[Problem]) -> bool:
    """``value`` as a bool; anything but true/false is a problem."""
    if not isinstance(value, bool):
        problems.append(loc.problem(path, f"expected true or false, got {short_repr(value)}"))
    return bool(value)


def _choice(
    value: Any, choices: tuple[str, ...], path: tuple, loc: _Locator, problems, expected: str = ""
) -> str:
    """``value`` as lower-case text, which must be one of ``choices``."""
    v = str(value).strip().lower()
    if v not in choices:
        expected = expected or f"one of {', '.join(choices)}"
        problems.append(loc.problem(path, f"expected {expected}, got {short_repr(value)}"))
    return v


def _check_keys(raw: Mapping, allowed: set[str], path: tuple, loc, problems, what: str) -> None:
    for k in raw:
        if str(k) not in allowed:
            problems.append(
                loc.problem(
                    path + (str(k),),
                    f"unknown key for {what} (allowed: {', '.join(sorted(allowed))})",
                )
            )


def _metric_fn(raw: Mapping, path: tuple, loc: _Locator, problems) -> tuple[str, Any] | None:
    """(function name, its default quantile) of a metric, shorthands resolved; None (reported)
    when it is missing or unknown."""
    fn_raw = raw.get("fn")
    if fn_raw is None:
        problems.append(loc.problem(path, f"missing 'fn' (one of: {', '.join(sorted(FNS))})"))
        return None
    fn = str(fn_raw).strip()
    quantile_default = None
    if fn in _SHORTHANDS:
        fn, quantile_default = _SHORTHANDS[fn]
    if fn not in FNS:
        known = ", ".join(sorted(FNS) + sorted(_SHORTHANDS))
        problems.append(
            loc.problem(path + ("fn",), f"unknown fn {short_repr(fn_raw)} (known: {known})")
        )
        return None
    return fn, quantile_default


def _metric_name(raw: Mapping, path: tuple, loc: _Locator, problems) -> str:
    """The metric's name (default: its ``fn`` as written): text of 1-200 characters, no control
    characters, not the reserved :data:`MISSING_METRIC`."""
    name_raw = raw.get("name", str(raw.get("fn")))
    if isinstance(name_raw, bool) or not isinstance(name_raw, str | int | float):
        problems.append(
            loc.problem(path + ("name",), f"a name must be text, got {short_repr(name_raw)}")
        )
        return ""
    name = str(name_raw).strip()
    if not name or CONTROL_CHARS.search(name) or len(name) > 200:
        problems.append(
            loc.problem(
                path + ("name",), "a name must be 1-200 characters without control characters"
            )
        )
    elif name == MISSING_METRIC:
        problems.append(
            loc.problem(path + ("name",), f"'{MISSING_METRIC}' is reserved (it is always reported)")
        )
    return name


def _finite_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def _scale_option(raw: Mapping, path: tuple, loc: _Locator, problems, kw: dict) -> None:
    scale = raw.get("scale", 1.0)
    if not _finite_number(scale) or scale == 0:
        problems.append(
            loc.problem(
                path + ("scale",), f"expected a finite non-zero number, got {short_repr(scale)}"
            )
        )
    else:
        kw["scale"] = float(scale)


def _choice_options(raw: Mapping, options, path: tuple, loc: _Locator, problems, kw: dict) -> None:
    """``per_instance``, and the options of the function among ``per_atom``, ``weighted``,
    ``mode`` and ``where``."""
    if "per_instance" in raw:
        kw["per_instance"] = _flag(raw["per_instance"], path + ("per_instance",), loc, problems)
    if "per_atom" in raw and "per_atom" in options:
        v = raw["per_atom"]
        v = "none" if v is None or v is False else v
        kw["per_atom"] = _choice(v, _PER_ATOM, path + ("per_atom",), loc, problems)
    if "weighted" in raw and "weighted" in options:
        kw["weighted"] = _flag(raw["weighted"], path + ("weighted",), loc, problems)
    if "mode" in raw and "mode" in options:
        kw["mode"] = _choice(
            raw["mode"], _MODES, path + ("mode",), loc, problems, "magnitude or component"
        )


def _quantile_option(raw: Mapping, default, path: tuple, loc: _Locator, problems, kw: dict):
    q = raw.get("quantile", default)
    if q is None:
        problems.append(
            loc.problem(path, "mape_top_quantile needs 'quantile' (0.9 for MAPE90, 0.1 for MAPE10)")
        )
    elif isinstance(q, bool) or not isinstance(q, int | float) or not 0.0 < float(q) < 1.0:
        problems.append(
            loc.problem(path + ("quantile",), f"expected a number in (0, 1), got {short_repr(q)}")
        )
    else:
        kw["quantile"] = float(q)


def _tol_option(raw: Mapping, path: tuple, loc: _Locator, problems, kw: dict) -> None:
    t = raw["tol"]
    if not _finite_number(t) or t < 0:
        problems.append(
            loc.problem(path + ("tol",), f"expected a finite number >= 0, got {short_repr(t)}")
        )
    else:
        kw["tol"] = float(t)


def _parse_metric(raw: Any, path: tuple, kind: str, loc: _Locator, problems) -> MetricSpec | None:
    if not isinstance(raw, Mapping):
        problems.append(
            loc.problem(
                path, f"expected a mapping like {{name: MAE, fn: mae}}, got {short_repr(raw)}"
            )
        )
        return None
    n0 = len(problems)
    found = _metric_fn(raw, path, loc, problems)
    if found is None:
        return None
    fn, quantile_default = found
    info = FNS[fn]
    _check_keys(raw, _COMMON_KEYS | set(info.options), path, loc, problems, f"fn '{fn}'")
    if info.kind != kind:
        problems.append(
            loc.problem(
                path + ("fn",), f"fn '{fn}' needs a {info.kind} benchmark; this one is {kind}"
            )
        )
    name = _metric_name(raw, path, loc, problems)
    kw: dict[str, Any] = {}
    _scale_option(raw, path, loc, problems, kw)
    _choice_options(raw, info.options, path, loc, problems, kw)
    if fn == "mape_top_quantile":
        _quantile_option(raw, quantile_default, path, loc, problems, kw)
    if "tol" in raw and "tol" in info.options:
        _tol_option(raw, path, loc, problems, kw)
    if "where" in raw and "where" in info.options:
        kw["where"] = _choice(raw["where"], _WHERE, path + ("where",), loc, problems)
    if len(problems) > n0:
        return None
    return MetricSpec(name=name, fn=fn, **kw)


def _benchmark_kind(braw: Mapping, path: tuple, loc: _Locator, problems) -> str:
    """``kind`` (default scalar), or ``vector: true``, which must not contradict it."""
    kind = _choice(braw.get("kind", "scalar"), KINDS, path + ("kind",), loc, problems)
    if kind not in KINDS:
        kind = "scalar"
    if "vector" not in braw:
        return kind
    if not isinstance(braw["vector"], bool):
        _flag(braw["vector"], path + ("vector",), loc, problems)
    elif braw["vector"]:
        if "kind" in braw and kind != "vector":
            problems.append(
                loc.problem(path + ("vector",), f"'vector: true' contradicts 'kind: {kind}'")
            )
        kind = "vector"
    elif kind == "vector":
        problems.append(
            loc.problem(path + ("vector",), "'vector: false' contradicts 'kind: vector'")
        )
    return kind


def _benchmark_metrics(mraw: list, path: tuple, kind: str, loc: _Locator, problems):
    """The metrics of a benchmark; a name used twice is reported (also when the metric with
    that name is otherwise invalid)."""
    metrics: list[MetricSpec] = []
    seen: set[str] = set()
    for i, raw in enumerate(mraw):
        ms = _parse_metric(raw, path + ("metrics", i), kind, loc, problems)
        mname = ms.name if ms is not None else None
        if mname is None and isinstance(raw, Mapping):  # still catch a repeated name
            mname = str(raw.get("name", raw.get("fn", ""))).strip() or None
        if mname is not None and mname in seen:
            problems.append(
                loc.problem(
                    path + ("metrics", i, "name"),
                    f"metric name {mname!r} is used twice in this benchmark",
                )
            )
            continue
        if mname is not None:
            seen.add(mname)
        if ms is not None:
            metrics.append(ms)
    return metrics


def _benchmark_name(bkey: Any) -> str:
    if isinstance(bkey, str | int | float) and not isinstance(bkey, bool):
        return str(bkey).strip()
    return ""


def _parse_benchmark(
    bkey: Any, braw: Any, max_missing: float, loc: _Locator, problems
) -> BenchmarkSpec | None:
    path = ("benchmarks", str(bkey))
    name = _benchmark_name(bkey)
    if not name or CONTROL_CHARS.search(name) or len(name) > 200:
        problems.append(
            loc.problem(
                path, "a benchmark name must be 1-200 characters without control characters"
            )
        )
        return None
    if not isinstance(braw, Mapping):
        problems.append(loc.problem(path, "expected a mapping with 'metrics'"))
        return None
    _check_keys(
        braw, {"kind", "vector", "max_missing", "metrics"}, path, loc, problems, "a benchmark"
    )
    kind = _benchmark_kind(braw, path, loc, problems)
    bmax = max_missing
    if "max_missing" in braw:
        bmax = _fraction(braw["max_missing"], path + ("max_missing",), loc, problems)
        bmax = max_missing if bmax is None else bmax
    mraw = braw.get("metrics")
    if not isinstance(mraw, list) or not mraw:
        problems.append(loc.problem(path + ("metrics",), "expected a non-empty list of metrics"))
        return None
    metrics = _benchmark_metrics(mraw, path, kind, loc, problems)
    return BenchmarkSpec(name, kind, bmax, tuple(metrics))


def spec_from_dict(data: Any, source: str = "", *, text: str | None = None) -> Spec:
    """Validate a SPEC given as plain data; every problem is reported (ConfigError)."""
    loc = _Locator(source, text)
    problems: list[Problem] = []
    if not isinstance(data, Mapping):
        raise ConfigError([loc.problem((), "expected a mapping with a 'benchmarks' key")])
    _check_keys(data, {"benchmarks", "max_missing"}, (), loc, problems, "a spec")
    max_missing = 0.0
    if "max_missing" in data:
        max_missing = _fraction(data["max_missing"], ("max_missing",), loc, problems) or 0.0
    benches_raw = data.get("benchmarks")
    benchmarks: list[BenchmarkSpec] = []
    if not isinstance(benches_raw, Mapping) or not benches_raw:
        problems.append(loc.problem(("benchmarks",), "expected a non-empty mapping of benchmarks"))
        benches_raw = {}
    for bkey, braw in benches_raw.items():
        b = _parse_benchmark(bkey, braw, max_missing, loc, problems)
        if b is not None:
            benchmarks.append(b)
    if problems:
        raise ConfigError(problems)
    return Spec(tuple(benchmarks), max_missing, source)


def load_spec(path: str | Path) -> Spec:
    """Read and validate a YAML SPEC file; ConfigError names each problem with ``file:line``."""
    from ..config import safe_load_yaml  # YAML without aliases; errors become ConfigError

    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigError(
            [Problem(str(p), f"cannot read the spec: {exc.strerror or exc}")]
        ) from None
    raw = safe_load_yaml(data, str(p))
    text = data.decode("utf-8-sig", errors="replace")
    return spec_from_dict(raw, str(p), text=text)


def as_spec(spec: Spec | Mapping) -> Spec:
    if isinstance(spec, Spec):
        return spec
    return spec_from_dict(spec, "spec")
