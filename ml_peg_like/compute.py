"""Raw metrics from predictions: ``predictions table + SPEC -> raw_metrics.csv``.

:func:`compute_raw_metrics` turns a long table of predictions into the long raw-metrics table of
``docs/FORMATS.md`` (``model, benchmark, metric, value``), vectorised over the whole table: every
(model, benchmark) pair is a segment, and each metric is one pass of ``np.bincount`` (or a sort
and ``np.add/maximum.reduceat``) over all segments at once. Metrics with the same function and
options in several benchmarks are computed in the same pass.

Predictions table
-----------------
One row per (model, benchmark, sample). Column names are matched case-insensitively.

==========================  ===================================================================
``model``, ``benchmark``    names (the benchmark names of the scoring config)
``sample``                  sample id (text or integer), unique per (model, benchmark) except in
                            ``distribution`` benchmarks, where the rows of a sample are the states
                            of one variable's distribution
``reference``, ``prediction``  scalar values (``scalar`` and ``distribution`` benchmarks)
``reference_x/_y/_z``,      vector components (``vector`` benchmarks, e.g. forces)
``prediction_x/_y/_z``
``n_atoms`` (optional)      atom count, needed by ``per_atom: n|sqrt``
``weight`` (optional)       per-sample weight w_i, needed by ``weighted: true``
==========================  ===================================================================

Other columns are ignored. A *missing* prediction is an empty/NaN/infinite ``prediction`` (any
component for vectors; in a distribution, any state of the variable, or a negative probability).
A sample that a model has no row for, while other models do, is missing too. References must be
finite wherever a metric needs them (a bad reference is a data error, not a missing prediction).

SPEC (YAML or dict)
-------------------
::

    max_missing: 0            # optional (default 0): a metric is reported as missing (empty value)
                              # when more than this fraction of a benchmark's samples is missing
                              # for the model; 1 computes every metric over what is there
    benchmarks:
      Energies:
        kind: scalar          # scalar (default) | vector | distribution (`vector: true` = vector)
        max_missing: 0.05     # optional override for this benchmark
        metrics:
          - {name: "MAE", fn: mae, per_atom: sqrt, scale: 1000}   # per_atom: none | n | sqrt
          - {name: "RMSE", fn: rmse, weighted: true}              # weights from the `weight` column
      Forces:
        vector: true
        metrics:
          - {name: "Force MAE", fn: vector_mae, mode: magnitude}  # mode: magnitude | component
      Currents:
        metrics:
          - {name: "MAPE90", fn: mape_top_quantile, quantile: 0.9}  # or fn: mape90 / mape10
          - {name: "P1", fn: share_negative}
          - {name: "P4", fn: share_nonzero, tol: 0, where: reference_zero}
      Marginals:
        kind: distribution
        metrics:
          - {name: "Hellinger", fn: mean_hellinger}

Every metric takes ``name`` (default: the ``fn``; unique within the benchmark, and not
``missing fraction``, which is reserved) and ``scale`` (multiplies the value, e.g. 1000 for
eV -> meV; default 1). Functions (see :mod:`ml_peg_like.metrics` for the formulas):

- scalar benchmarks: ``mae``, ``rmse`` (both take ``per_atom`` and ``weighted``), ``max_abs_error``,
  ``mape`` (percent), ``r2`` (these three take ``per_atom``), ``mape_top_quantile`` (``quantile``
  in (0, 1), required; ``mape90``/``mape10`` are shorthands for 0.9/0.1), ``share_negative``,
  ``share_nonzero`` (``tol`` >= 0, default 0; ``where: reference_zero`` (default) counts only the
  samples whose reference is exactly 0, i.e. where zero is required, ``where: all`` every sample),
  ``log_partition_error`` (reference = log Z*, prediction = log Z_hat: mean over samples of
  ``|log Z* - log Z_hat|``), ``mpe_error`` (reference = log L_best, prediction = log L: mean of
  ``log L_best - log L``);
- vector benchmarks: ``vector_mae``, ``vector_rmse`` (``mode``: magnitude (default) | component);
- distribution benchmarks: ``mean_hellinger`` (reference = P*, prediction = P_hat per state).

``per_atom: n`` divides reference and prediction by ``n_atoms`` and ``per_atom: sqrt`` by
``sqrt(n_atoms)`` (seed 004) before the metric.

Output
------
For every model in the table and every benchmark of the SPEC: one row per metric, plus a
``missing fraction`` row (share of the benchmark's samples that are missing for the model; the
samples of a benchmark are the distinct ``sample`` ids any model has for it). Rows are ordered
by model (first appearance), benchmark (SPEC order), metric (SPEC order). NaN = missing.
The scoring engine rejects rows whose metric its config lacks: list ``missing fraction`` in the
config (e.g. with ``weight: 0``) or score with ``--ignore-unknown``.

Every benchmark of the table must be in the SPEC and every SPEC benchmark must have rows; a
repeated (model, benchmark, sample) outside distribution benchmarks is an error. Read a large CSV
with :func:`load_predictions`: it makes ``model``/``benchmark`` categoricals, which group for free
(text columns are factorised first, about 0.5 s per 10 million rows and column).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from . import metrics as _m
from .errors import ConfigError, DataError, Problem

__all__ = [
    "MISSING_METRIC",
    "MetricSpec",
    "BenchmarkSpec",
    "Spec",
    "spec_from_dict",
    "load_spec",
    "load_predictions",
    "compute_raw_metrics",
    "write_raw_metrics",
]

#: name of the metric that reports the share of missing samples per (model, benchmark)
MISSING_METRIC = "missing fraction"
MAX_REPORTED = 25
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
KINDS = ("scalar", "vector", "distribution")
VECTOR_COLS = ("x", "y", "z")


# ------------------------------------------------------------------------------------------------
# SPEC
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Fn:
    kind: str
    options: frozenset[str]
    needs_reference: bool = True


_FNS: dict[str, _Fn] = {
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
_COMMON_KEYS = {"name", "fn", "scale"}
_PER_ATOM = ("none", "n", "sqrt")
_WHERE = ("reference_zero", "all")


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

    def options(self) -> tuple:
        opts = _FNS[self.fn].options
        return (self.fn,) + tuple(
            (k, getattr(self, k))
            for k in ("per_atom", "weighted", "mode", "quantile", "tol", "where")
            if k in opts
        )

    @property
    def needs_reference(self) -> bool:
        if self.fn == "share_nonzero":
            return self.where == "reference_zero"
        return _FNS[self.fn].needs_reference


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


def _fmt(value: Any) -> str:
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
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append(loc.problem(path, f"expected a fraction in [0, 1], got {_fmt(value)}"))
        return None
    if not 0.0 <= float(value) <= 1.0:
        problems.append(loc.problem(path, f"expected a fraction in [0, 1], got {_fmt(value)}"))
        return None
    return float(value)


def _check_keys(raw: Mapping, allowed: set[str], path: tuple, loc, problems, what: str) -> None:
    for k in raw:
        if str(k) not in allowed:
            problems.append(
                loc.problem(
                    path + (str(k),),
                    f"unknown key for {what} (allowed: {', '.join(sorted(allowed))})",
                )
            )


def _parse_metric(raw: Any, path: tuple, kind: str, loc: _Locator, problems) -> MetricSpec | None:
    if not isinstance(raw, Mapping):
        problems.append(
            loc.problem(path, f"expected a mapping like {{name: MAE, fn: mae}}, got {_fmt(raw)}")
        )
        return None
    n0 = len(problems)
    fn_raw = raw.get("fn")
    if fn_raw is None:
        problems.append(loc.problem(path, f"missing 'fn' (one of: {', '.join(sorted(_FNS))})"))
        return None
    fn = str(fn_raw).strip()
    quantile_default = None
    if fn in _SHORTHANDS:
        fn, quantile_default = _SHORTHANDS[fn]
    if fn not in _FNS:
        known = ", ".join(sorted(_FNS) + sorted(_SHORTHANDS))
        problems.append(loc.problem(path + ("fn",), f"unknown fn {_fmt(fn_raw)} (known: {known})"))
        return None
    info = _FNS[fn]
    _check_keys(raw, _COMMON_KEYS | set(info.options), path, loc, problems, f"fn '{fn}'")
    if info.kind != kind:
        problems.append(
            loc.problem(
                path + ("fn",), f"fn '{fn}' needs a {info.kind} benchmark; this one is {kind}"
            )
        )
    name_raw = raw.get("name", str(fn_raw))
    if isinstance(name_raw, bool) or not isinstance(name_raw, str | int | float):
        problems.append(loc.problem(path + ("name",), f"a name must be text, got {_fmt(name_raw)}"))
        name = ""
    else:
        name = str(name_raw).strip()
        if not name or _CONTROL.search(name) or len(name) > 200:
            problems.append(
                loc.problem(
                    path + ("name",), "a name must be 1-200 characters without control characters"
                )
            )
        elif name == MISSING_METRIC:
            problems.append(
                loc.problem(
                    path + ("name",), f"'{MISSING_METRIC}' is reserved (it is always reported)"
                )
            )
    kw: dict[str, Any] = {}
    scale = raw.get("scale", 1.0)
    if (
        isinstance(scale, bool)
        or not isinstance(scale, int | float)
        or not math.isfinite(scale)
        or scale == 0
    ):
        problems.append(
            loc.problem(path + ("scale",), f"expected a finite non-zero number, got {_fmt(scale)}")
        )
    else:
        kw["scale"] = float(scale)
    if "per_atom" in raw and "per_atom" in info.options:
        v = raw["per_atom"]
        v = "none" if v is None or v is False else str(v).strip().lower()
        if v not in _PER_ATOM:
            problems.append(
                loc.problem(
                    path + ("per_atom",),
                    f"expected one of {', '.join(_PER_ATOM)}, got {_fmt(raw['per_atom'])}",
                )
            )
        kw["per_atom"] = v
    if "weighted" in raw and "weighted" in info.options:
        if not isinstance(raw["weighted"], bool):
            problems.append(
                loc.problem(
                    path + ("weighted",), f"expected true or false, got {_fmt(raw['weighted'])}"
                )
            )
        kw["weighted"] = bool(raw["weighted"])
    if "mode" in raw and "mode" in info.options:
        v = str(raw["mode"]).strip().lower()
        if v not in ("magnitude", "component"):
            problems.append(
                loc.problem(
                    path + ("mode",), f"expected magnitude or component, got {_fmt(raw['mode'])}"
                )
            )
        kw["mode"] = v
    if fn == "mape_top_quantile":
        q = raw.get("quantile", quantile_default)
        if q is None:
            problems.append(
                loc.problem(
                    path, "mape_top_quantile needs 'quantile' (0.9 for MAPE90, 0.1 for MAPE10)"
                )
            )
        elif isinstance(q, bool) or not isinstance(q, int | float) or not 0.0 < float(q) < 1.0:
            problems.append(
                loc.problem(path + ("quantile",), f"expected a number in (0, 1), got {_fmt(q)}")
            )
        else:
            kw["quantile"] = float(q)
    if "tol" in raw and "tol" in info.options:
        t = raw["tol"]
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            problems.append(
                loc.problem(path + ("tol",), f"expected a finite number >= 0, got {_fmt(t)}")
            )
        else:
            kw["tol"] = float(t)
    if "where" in raw and "where" in info.options:
        v = str(raw["where"]).strip().lower()
        if v not in _WHERE:
            problems.append(
                loc.problem(
                    path + ("where",),
                    f"expected one of {', '.join(_WHERE)}, got {_fmt(raw['where'])}",
                )
            )
        kw["where"] = v
    if len(problems) > n0:
        return None
    return MetricSpec(name=name, fn=fn, **kw)


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
        path = ("benchmarks", str(bkey))
        name = (
            str(bkey).strip()
            if isinstance(bkey, str | int | float) and not isinstance(bkey, bool)
            else ""
        )
        if not name or _CONTROL.search(name) or len(name) > 200:
            problems.append(
                loc.problem(
                    path, "a benchmark name must be 1-200 characters without control characters"
                )
            )
            continue
        if not isinstance(braw, Mapping):
            problems.append(loc.problem(path, "expected a mapping with 'metrics'"))
            continue
        _check_keys(
            braw, {"kind", "vector", "max_missing", "metrics"}, path, loc, problems, "a benchmark"
        )
        kind = str(braw.get("kind", "scalar")).strip().lower()
        if kind not in KINDS:
            problems.append(
                loc.problem(
                    path + ("kind",),
                    f"expected one of {', '.join(KINDS)}, got {_fmt(braw.get('kind'))}",
                )
            )
            kind = "scalar"
        if "vector" in braw:
            if not isinstance(braw["vector"], bool):
                problems.append(
                    loc.problem(
                        path + ("vector",), f"expected true or false, got {_fmt(braw['vector'])}"
                    )
                )
            elif braw["vector"]:
                if "kind" in braw and kind != "vector":
                    problems.append(
                        loc.problem(
                            path + ("vector",), f"'vector: true' contradicts 'kind: {kind}'"
                        )
                    )
                kind = "vector"
            elif kind == "vector":
                problems.append(
                    loc.problem(path + ("vector",), "'vector: false' contradicts 'kind: vector'")
                )
        bmax = max_missing
        if "max_missing" in braw:
            bmax = _fraction(braw["max_missing"], path + ("max_missing",), loc, problems)
            bmax = max_missing if bmax is None else bmax
        mraw = braw.get("metrics")
        if not isinstance(mraw, list) or not mraw:
            problems.append(
                loc.problem(path + ("metrics",), "expected a non-empty list of metrics")
            )
            continue
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
        benchmarks.append(BenchmarkSpec(name, kind, bmax, tuple(metrics)))
    if problems:
        raise ConfigError(problems)
    return Spec(tuple(benchmarks), max_missing, source)


def load_spec(path: str | Path) -> Spec:
    """Read and validate a YAML SPEC file; ConfigError names each problem with ``file:line``."""
    from .config import safe_load_yaml  # YAML without aliases; errors become ConfigError

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


def _as_spec(spec: Spec | Mapping) -> Spec:
    if isinstance(spec, Spec):
        return spec
    return spec_from_dict(spec, "spec")


# ------------------------------------------------------------------------------------------------
# predictions
# ------------------------------------------------------------------------------------------------

_NUMERIC = (
    "reference",
    "prediction",
    "n_atoms",
    "weight",
    *(f"reference_{c}" for c in VECTOR_COLS),
    *(f"prediction_{c}" for c in VECTOR_COLS),
)


def load_predictions(path: str | Path) -> pd.DataFrame:
    """Read a predictions table from CSV, or Parquet (``.parquet``/``.pq``, needs pyarrow).

    ``model`` and ``benchmark`` are read as categoricals (fast grouping), ``sample`` as text
    (``001`` stays ``001``), the value columns as floats (empty cells and NaN are missing). The
    file name and first data line are kept in ``df.attrs`` so that errors name ``file:line``.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError([Problem(str(p), "no such file")])
    if p.suffix.lower() in (".parquet", ".pq"):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise DataError(
                [
                    Problem(
                        str(p),
                        "reading Parquet needs pyarrow: pip install 'ml-peg-like[parquet]' (or use CSV)",
                    )
                ]
            ) from None
        try:
            df = pd.read_parquet(p)
        except Exception as exc:  # pyarrow raises many types for a bad file
            raise DataError([Problem(str(p), f"cannot read Parquet: {exc}")]) from None
        df.attrs["source"] = str(p)
        df.attrs["first_line"] = 0
        return df
    try:
        with p.open("r", encoding="utf-8-sig", newline="") as fh:
            header = fh.readline()
    except UnicodeDecodeError:
        raise DataError([Problem(f"{p}:1", "not UTF-8 text: save the file as UTF-8")]) from None
    except OSError as exc:
        raise DataError([Problem(str(p), f"cannot read: {exc.strerror or exc}")]) from None
    if not header.strip():
        raise DataError([Problem(str(p), "the file is empty (expected a header line)")])
    try:
        cols = [str(c).strip() for c in pd.read_csv(p, nrows=0, encoding="utf-8-sig").columns]
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError([Problem(f"{p}:1", f"malformed CSV header: {exc}")]) from None
    dtypes: dict[str, Any] = {}
    for c in cols:
        lc = c.lower()
        if lc in ("model", "benchmark"):
            dtypes[c] = "category"
        elif lc == "sample":
            dtypes[c] = str
    try:
        df = pd.read_csv(p, dtype=dtypes, encoding="utf-8-sig", skipinitialspace=True)
    except UnicodeDecodeError:
        raise DataError([Problem(str(p), "not UTF-8 text: save the file as UTF-8")]) from None
    except (pd.errors.ParserError, ValueError) as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        m = re.search(r"line (\d+)", msg)
        raise DataError(
            [Problem(f"{p}:{m.group(1)}" if m else str(p), f"malformed CSV: {msg}")]
        ) from None
    df.columns = [str(c).strip() for c in df.columns]
    df.attrs["source"] = str(p)
    df.attrs["first_line"] = 2
    return df


def _where(source: str, first_line: int | None, pos: int) -> str:
    if source and first_line:
        return f"{source}:{pos + first_line}"
    if source:
        return f"{source} row {pos}"
    return f"row {pos}"


def _codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) of a column in first-appearance order; code -1 for a missing cell.

    A categorical column is cheap: its codes are reused (renumbered only when the categories
    are not already in first-appearance order or some are unused).
    """
    if isinstance(col.dtype, pd.CategoricalDtype):
        raw = col.cat.codes.to_numpy()
        cats = np.asarray(col.cat.categories.astype(str), dtype=object)
        has_na = bool((raw < 0).any())
        first = pd.unique(raw[raw >= 0] if has_na else raw).astype(np.int64)
        if first.size == len(cats) and (first == np.arange(first.size)).all():
            return raw.astype(np.int64), cats
        remap = np.full(len(cats) + 1, -1, dtype=np.int64)  # remap[-1] = -1 for missing cells
        remap[first] = np.arange(first.size)
        return remap[raw], cats[first]
    codes, uniques = pd.factorize(col, sort=False, use_na_sentinel=True)
    return codes.astype(np.int64), np.asarray([str(u) for u in uniques], dtype=object)


#: a table indexed by key (bincount) is used when it has at most max(DENSE_FACTOR * rows,
#: DENSE_MIN) entries; larger key spaces are sorted instead (np.unique)
DENSE_FACTOR = 4
DENSE_MIN = 1 << 20


def _dense_ok(size: int, n_rows: int) -> bool:
    return size <= max(DENSE_FACTOR * n_rows, DENSE_MIN)


def _compress(key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids of integer keys in [0, size): ``(ids, uniques)`` with ``uniques`` sorted.

    Uses a bincount table when ``size`` is small enough, a hash table otherwise.
    """
    if _dense_ok(size, key.size):
        present = np.bincount(key, minlength=size) > 0
        remap = np.cumsum(present) - 1
        return remap[key], np.flatnonzero(present)
    uniques, ids = np.unique(key, return_inverse=True)
    return ids.reshape(-1), uniques


def _first_appearance(codes: np.ndarray, used: np.ndarray) -> np.ndarray:
    """The codes marked ``used``, in order of first appearance in ``codes``.

    Looks only at the starts of runs of equal codes when the table is grouped (the usual
    layout), else at growing prefixes (a shuffled table shows every code early).
    """
    want = int(used.sum())
    starts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    if starts.size < codes.size // 8:
        first = pd.unique(np.concatenate((codes[:1], codes[starts])))
        return first[used[first]].astype(np.int64)
    k = 1 << 16
    while True:
        first = pd.unique(codes[:k])
        first = first[used[first]]
        if first.size == want or k >= codes.size:
            return first.astype(np.int64)
        k *= 4


def _segment_ids(mcodes: np.ndarray, n_bench: int, bench: np.ndarray) -> np.ndarray:
    g = mcodes * n_bench
    g += bench
    return g


@dataclass
class _Table:
    """The predictions as flat arrays; ``g`` numbers the (model, benchmark) segments."""

    models: np.ndarray  # model names (first appearance)
    n_models: int
    n_bench: int  # benchmarks of the spec
    g: np.ndarray  # segment id per row: model * n_bench + benchmark
    bench: np.ndarray  # benchmark index (spec order) per row
    sample: np.ndarray  # sample code per row, in [0, n_samples)
    n_samples: int
    cols: dict[str, np.ndarray] = field(default_factory=dict)
    valid: np.ndarray | None = None  # row has a usable prediction
    missing: np.ndarray | None = None  # (n_groups,) missing fraction
    rows_g: np.ndarray | None = None  # (n_groups,) rows per segment
    model_order: np.ndarray | None = None  # models with rows, in order of first appearance

    @property
    def n_groups(self) -> int:
        return self.n_models * self.n_bench


def _float_column(df, col, source, first_line, problems) -> np.ndarray:
    s = df[col]
    if s.dtype.kind in "fiu":
        return (
            s.to_numpy(dtype=float, na_value=np.nan)
            if s.dtype.kind == "f"
            else s.to_numpy(dtype=float)
        )
    if s.dtype.kind == "b":
        problems.append(
            Problem(source or "predictions", f"column {col!r}: expected numbers, got booleans")
        )
        return np.full(len(s), np.nan)
    num = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = np.isnan(num) & s.notna().to_numpy()
    if bad.any():
        text = s.astype(str).str.strip()
        bad &= ~text.str.lower().isin({"", "nan", "na", "n/a", "null", "none"}).to_numpy()
    for k in np.flatnonzero(bad)[:MAX_REPORTED]:
        problems.append(
            Problem(
                _where(source, first_line, int(k)),
                f"column {col!r}: {_fmt(s.iloc[k])} is not a number",
            )
        )
    if bad.sum() > MAX_REPORTED:
        problems.append(
            Problem(
                source or "predictions",
                f"... and {bad.sum() - MAX_REPORTED} more non-numbers in {col!r}",
            )
        )
    return num


def _report_rows(mask, message, source, first_line, problems, rows=None) -> None:
    idx = np.flatnonzero(mask) if rows is None else rows[mask]
    for k in idx[:MAX_REPORTED]:
        problems.append(Problem(_where(source, first_line, int(k)), message))
    if idx.size > MAX_REPORTED:
        problems.append(
            Problem(
                source or "predictions", f"... and {idx.size - MAX_REPORTED} more rows: {message}"
            )
        )


def _prepare(df: pd.DataFrame, spec: Spec) -> _Table:
    if not isinstance(df, pd.DataFrame):
        raise DataError(
            [Problem("predictions", f"expected a pandas DataFrame, got {type(df).__name__}")]
        )
    source = str(df.attrs.get("source", ""))
    first_line = df.attrs.get("first_line", None)
    problems: list[Problem] = []
    lower: dict[str, str] = {}
    for c in df.columns:
        lc = str(c).strip().lower()
        if lc in lower:
            problems.append(Problem(source or "predictions", f"column {lc!r} appears twice"))
        lower[lc] = c
    where0 = f"{source}:1" if source and first_line else (source or "predictions")
    for need in ("model", "benchmark", "sample"):
        if need not in lower:
            problems.append(
                Problem(
                    where0, f"missing column {need!r} (columns: {', '.join(map(str, df.columns))})"
                )
            )
    if problems:
        raise DataError(problems)
    if len(df) == 0:
        raise DataError([Problem(source or "predictions", "no rows")])

    # --- benchmarks: codes in spec order ------------------------------------------------------
    bcol = df[lower["benchmark"]]
    spec_index = {b.name: i for i, b in enumerate(spec.benchmarks)}
    if isinstance(bcol.dtype, pd.CategoricalDtype):  # no need to renumber: mapped through lut
        bcodes = bcol.cat.codes.to_numpy()
        bnames = np.asarray(bcol.cat.categories.astype(str), dtype=object)
    else:
        bcodes, bnames = _codes(bcol)
    # lut[code] = spec index; lut[-1] (a missing cell) = -2
    lut = np.array([spec_index.get(str(n).strip(), -1) for n in bnames] + [-2], dtype=np.int64)
    bench = lut[bcodes]
    if (bench < 0).any():
        if (bench == -2).any():
            _report_rows(bench == -2, "empty benchmark name", source, first_line, problems)
        used = np.unique(bcodes[bench == -1])
        unknown = sorted({str(bnames[k]) for k in used})
        if unknown:
            shown = ", ".join(repr(u) for u in unknown[:10])
            shown += " ..." if len(unknown) > 10 else ""
            problems.append(
                Problem(
                    source or "predictions",
                    f"benchmark(s) not in the spec: {shown} "
                    "(add them to the spec or drop their rows)",
                )
            )
        known = np.unique(bench[bench >= 0])
        for i in sorted(set(range(len(spec.benchmarks))) - set(known.tolist())):
            problems.append(
                Problem(
                    spec.source or "spec",
                    f"benchmark {spec.benchmarks[i].name!r} has no rows in the predictions",
                )
            )
        raise DataError(problems)

    # --- models ---------------------------------------------------------------------------------
    mcol = df[lower["model"]]
    if isinstance(mcol.dtype, pd.CategoricalDtype):  # keep the category numbering (no gather)
        mcodes = mcol.cat.codes.to_numpy().astype(np.int64)
        mnames = np.asarray(mcol.cat.categories.astype(str), dtype=object)
    else:
        mcodes, mnames = _codes(mcol)
    if (mcodes < 0).any():
        _report_rows(mcodes < 0, "empty model name", source, first_line, problems)

    # --- samples --------------------------------------------------------------------------------
    scol = df[lower["sample"]]
    if (
        scol.dtype.kind in "iu"
        and len(scol)
        and int(scol.min()) >= 0
        and int(scol.max()) < 4 * len(scol) + 1024
    ):
        scodes = scol.to_numpy(dtype=np.int64)
        n_samples = int(scodes.max()) + 1
    else:
        scodes, suniq = _codes(scol)
        n_samples = len(suniq)
        if (scodes < 0).any():
            _report_rows(scodes < 0, "empty sample id", source, first_line, problems)
    if problems:
        raise DataError(problems)

    kinds = np.array([KINDS.index(b.kind) for b in spec.benchmarks], dtype=np.int8)
    row_kind = kinds[bench]
    t = _Table(
        models=mnames,
        n_models=len(mnames),
        n_bench=len(spec.benchmarks),
        g=_segment_ids(mcodes, len(spec.benchmarks), bench),
        bench=bench,
        sample=scodes,
        n_samples=max(n_samples, 1),
    )
    rows_g = t.rows_g = np.bincount(t.g, minlength=t.n_groups)
    t.model_order = _first_appearance(mcodes, rows_g.reshape(t.n_models, t.n_bench).sum(axis=1) > 0)
    names = [str(n).strip() for n in mnames[t.model_order]]
    t.models = np.asarray([str(n).strip() for n in mnames], dtype=object)
    for n in names:
        if not n or _CONTROL.search(n) or len(n) > 200:
            problems.append(
                Problem(
                    source or "predictions",
                    f"bad model name {_fmt(n)}: 1-200 characters, no control characters",
                )
            )
    if len(set(names)) != len(names):
        problems.append(
            Problem(source or "predictions", "model names differ only by surrounding spaces")
        )
    for i in np.flatnonzero(rows_g.reshape(t.n_models, t.n_bench).sum(axis=0) == 0):
        problems.append(
            Problem(
                spec.source or "spec",
                f"benchmark {spec.benchmarks[i].name!r} has no rows in the predictions",
            )
        )
    if problems:
        raise DataError(problems)

    # --- value columns --------------------------------------------------------------------------
    used_kinds = {b.kind for b in spec.benchmarks}
    need_cols: dict[str, list[str]] = {}
    for b in spec.benchmarks:
        if b.kind == "vector":
            cols = [f"prediction_{c}" for c in VECTOR_COLS]
            if any(m.needs_reference for m in b.metrics):
                cols += [f"reference_{c}" for c in VECTOR_COLS]
        else:
            cols = ["prediction"] + (
                ["reference"] if any(m.needs_reference for m in b.metrics) else []
            )
        if any(m.per_atom != "none" for m in b.metrics if "per_atom" in _FNS[m.fn].options):
            cols.append("n_atoms")
        if any(m.weighted for m in b.metrics):
            cols.append("weight")
        for c in cols:
            need_cols.setdefault(c, []).append(b.name)
    for c, benches in need_cols.items():
        if c not in lower:
            shown = ", ".join(repr(b) for b in benches[:5]) + (" ..." if len(benches) > 5 else "")
            problems.append(
                Problem(where0, f"missing column {c!r} (needed by benchmark(s) {shown})")
            )
    if problems:
        raise DataError(problems)
    for c in _NUMERIC:
        if c in lower:
            t.cols[c] = _float_column(df, lower[c], source, first_line, problems)
    if problems:
        raise DataError(problems)

    # rows of each benchmark that need a column (boolean lookup by benchmark index)
    def rows_needing(col: str) -> np.ndarray | bool:
        sel = np.zeros(len(spec.benchmarks), dtype=bool)
        for i, b in enumerate(spec.benchmarks):
            if b.name in need_cols.get(col, ()):
                sel[i] = True
        return True if sel.all() else sel[bench]

    for c in ("reference", *(f"reference_{x}" for x in VECTOR_COLS)):
        if c in need_cols:
            bad = rows_needing(c) & ~np.isfinite(t.cols[c])
            if bad.any():
                _report_rows(
                    bad,
                    f"{c} is missing or not finite (references must be given)",
                    source,
                    first_line,
                    problems,
                )
    if "n_atoms" in need_cols:
        n = t.cols["n_atoms"]
        bad = rows_needing("n_atoms") & ~(np.isfinite(n) & (n > 0))
        if bad.any():
            _report_rows(
                bad,
                "n_atoms must be a number > 0 (per_atom normalisation)",
                source,
                first_line,
                problems,
            )
    if "weight" in need_cols:
        w = t.cols["weight"]
        bad = rows_needing("weight") & ~(np.isfinite(w) & (w >= 0))
        if bad.any():
            _report_rows(bad, "weight must be a finite number >= 0", source, first_line, problems)
    if "distribution" in used_kinds:
        bad = (row_kind == KINDS.index("distribution")) & np.isfinite(t.cols["reference"])
        bad &= t.cols["reference"] < 0
        if bad.any():
            _report_rows(bad, "reference probability < 0", source, first_line, problems)
    if problems:
        raise DataError(problems)

    # --- validity of predictions ------------------------------------------------------------
    if used_kinds == {"scalar"}:
        valid = np.isfinite(t.cols["prediction"])
    else:
        valid = np.ones(len(df), dtype=bool)
        if "scalar" in used_kinds or "distribution" in used_kinds:
            p = t.cols["prediction"]
            ok = np.isfinite(p)
            if "distribution" in used_kinds:
                ok &= ~((row_kind == KINDS.index("distribution")) & (p < 0))
            sel = row_kind != KINDS.index("vector")
            valid &= ok | ~sel
        if "vector" in used_kinds:
            ok = np.ones(len(df), dtype=bool)
            for c in VECTOR_COLS:
                ok &= np.isfinite(t.cols[f"prediction_{c}"])
            valid &= ok | (row_kind != KINDS.index("vector"))

    # --- duplicates, samples per benchmark, missing fraction ------------------------------------
    is_dist_b = kinds == KINDS.index("distribution")
    t.missing, t.valid = _missing(t, valid, is_dist_b, row_kind, source, first_line)
    return t


def _missing(t: _Table, valid, is_dist_b, row_kind, source, first_line):
    """Missing fraction per (model, benchmark) segment, and the row validity after it.

    A benchmark's samples are the distinct sample ids any model has for it; a model misses a
    sample it has no row for or whose prediction is not usable (in a distribution, any state).
    Also rejects duplicate (model, benchmark, sample) rows outside distribution benchmarks.
    """
    M, B, S = t.n_models, t.n_bench, t.n_samples
    G, K = t.n_groups, t.n_groups * t.n_samples
    key3 = t.g * S + t.sample
    all_valid = bool(valid.all())
    is_dist_row = None
    if is_dist_b.any():
        is_dist_row = row_kind == KINDS.index("distribution")
    if _dense_ok(K, key3.size):  # dense tables indexed by (model, benchmark, sample)
        counts = np.bincount(key3, minlength=K)
        c3 = counts.reshape(M, B, S)
        if is_dist_row is None:
            dup_max = counts.max()
        else:
            dup_max = c3[:, ~is_dist_b].max() if (~is_dist_b).any() else 0
        if dup_max > 1:
            dup = counts[key3] > 1
            _raise_dups(dup if is_dist_row is None else dup & ~is_dist_row, source, first_line)
        expected = c3.any(axis=0).sum(axis=1)
        if is_dist_row is None:
            got = t.rows_g.copy()  # one row per sample
        else:
            got = (c3 > 0).sum(axis=2).reshape(-1)
        if not all_valid:
            bad_keys = np.unique(key3[~valid])  # few: one per missing sample
            got -= np.bincount(bad_keys // S, minlength=G)
            if is_dist_row is not None and (is_dist_row & ~valid).any():
                bad = np.zeros(K, dtype=bool)
                bad[bad_keys] = True
                valid = valid & ~(bad[key3] & is_dist_row)  # a variable is valid as a whole
    else:  # sparse: sort the keys
        uniq, ids, counts = np.unique(key3, return_inverse=True, return_counts=True)
        ids = ids.reshape(-1)
        dup = counts[ids] > 1
        if is_dist_row is not None:
            dup &= ~is_dist_row
        if dup.any():
            _raise_dups(dup, source, first_line)
        ug = uniq // S
        bs = np.unique((ug % B) * S + uniq % S)
        expected = np.bincount(bs // S, minlength=B)
        bad = np.zeros(uniq.size, dtype=bool)
        if not all_valid:
            bad = np.bincount(ids[~valid], minlength=uniq.size) > 0
            if is_dist_row is not None and (is_dist_row & ~valid).any():
                valid = valid & ~(bad[ids] & is_dist_row)
        got = np.bincount(ug[~bad], minlength=G)
    exp = np.tile(expected, M).astype(float)
    missing = (exp - got) / exp  # exact for e.g. 1/50, unlike 1 - 49/50
    return missing, valid


def _raise_dups(dup: np.ndarray, source, first_line) -> None:
    problems: list[Problem] = []
    _report_rows(dup, "duplicate (model, benchmark, sample)", source, first_line, problems)
    if problems:
        raise DataError(problems)


# ------------------------------------------------------------------------------------------------
# segment kernels: one value per (model, benchmark) segment, all segments at once
# ------------------------------------------------------------------------------------------------


def _seg_mean(g: np.ndarray, x: np.ndarray | None, n: int, cnt=None) -> np.ndarray:
    """Mean of ``x`` per segment (NaN for an empty segment); ``cnt`` = rows per segment."""
    if cnt is None:
        cnt = np.bincount(g, minlength=n)
    s = np.bincount(g, weights=x, minlength=n) if x is not None else cnt
    with np.errstate(divide="ignore", invalid="ignore"):
        return s / cnt


def _seg_order(g: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stable order by segment; (order, starts of non-empty segments, their ids)."""
    small = g.astype(np.int16) if n < 2**15 else (g.astype(np.int32) if n < 2**31 else g)
    order = np.argsort(small, kind="stable")
    cnt = np.bincount(g, minlength=n)
    ids = np.flatnonzero(cnt)
    starts = np.concatenate(([0], np.cumsum(cnt)[:-1]))[ids]
    return order, starts, ids


class _Rows:
    """The rows one pass works on: full columns with the rows outside the pass moved to a
    trailing dummy segment (no copy), or a gathered subset when the pass uses few rows.
    Derived arrays (residuals, counts) are cached for the passes that share them."""

    def __init__(self, t: _Table, sel_rows: np.ndarray | None):
        self.n = t.n_groups + 1  # + the dummy segment
        self.n_samples = t.n_samples
        self._cols = {"sample": t.sample, **t.cols}
        self.idx = None
        if sel_rows is None:
            self.g = t.g
            self.cnt = np.append(t.rows_g, 0)
        elif np.count_nonzero(sel_rows) < 0.3 * sel_rows.size:
            self.idx = np.flatnonzero(sel_rows)
            self.g = t.g[self.idx]
            self.cnt = None
        else:
            self.g = np.where(sel_rows, t.g, t.n_groups)
            out = t.g[~sel_rows]
            self.cnt = np.append(t.rows_g - np.bincount(out, minlength=t.n_groups), out.size)
        self._cache: dict[Any, np.ndarray] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        key = ("col", name)
        if key not in self._cache:
            col = self._cols[name]
            self._cache[key] = col if self.idx is None else col[self.idx]
        return self._cache[key]

    def counts(self) -> np.ndarray:
        if self.cnt is None:
            self.cnt = np.bincount(self.g, minlength=self.n)
        return self.cnt

    def cached(self, key, make) -> np.ndarray:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def scaled(self, ms: MetricSpec) -> tuple[np.ndarray, np.ndarray]:
        """(reference, prediction), divided by n_atoms or sqrt(n_atoms) for ``per_atom``."""
        per_atom = ms.per_atom if "per_atom" in _FNS[ms.fn].options else "none"
        r, p = self["reference"], self["prediction"]
        if per_atom == "none":
            return r, p
        div = self.cached(
            ("div", per_atom),
            lambda: self["n_atoms"] if per_atom == "n" else np.sqrt(self["n_atoms"]),
        )
        return (
            self.cached(("r", per_atom), lambda: r / div),
            self.cached(("p", per_atom), lambda: p / div),
        )

    def residual(self, ms: MetricSpec) -> np.ndarray:
        """``r_i = ref_i - pred_i`` (after per_atom), times ``w_i`` when weighted."""
        per_atom = ms.per_atom if "per_atom" in _FNS[ms.fn].options else "none"
        weighted = ms.weighted and "weighted" in _FNS[ms.fn].options

        def make():
            r, p = self.scaled(ms)
            d = r - p
            return d * self["weight"] if weighted else d

        return self.cached(("d", per_atom, weighted), make)


def _kernel(ms: MetricSpec, rows: _Rows) -> np.ndarray:
    """Values of one metric for every segment (the last one is the dummy segment)."""
    g, n, fn = rows.g, rows.n, ms.fn
    if fn in ("vector_mae", "vector_rmse"):
        d2 = np.zeros(g.size)
        d1 = np.zeros(g.size)
        for c in VECTOR_COLS:
            d = rows[f"reference_{c}"] - rows[f"prediction_{c}"]
            d2 += d * d
            if fn == "vector_mae" and ms.mode == "component":
                d1 += np.abs(d)
        if fn == "vector_rmse":
            ms2 = _seg_mean(g, d2, n, rows.counts())
            return np.sqrt(ms2 / 3.0) if ms.mode == "component" else np.sqrt(ms2)
        if ms.mode == "component":
            return _seg_mean(g, d1, n, rows.counts()) / 3.0
        return _seg_mean(g, np.sqrt(d2), n, rows.counts())
    if fn == "mean_hellinger":
        with np.errstate(invalid="ignore"):  # negative probabilities sit in the dummy segment
            d = np.sqrt(rows["reference"]) - np.sqrt(rows["prediction"])
        S = rows.n_samples
        ids, keys = _compress(g * S + rows["sample"], n * S)
        h = np.sqrt(0.5 * np.bincount(ids, weights=d * d, minlength=keys.size))
        return _seg_mean(keys // S, h, n)
    if fn == "share_negative":
        return _seg_mean(g, (rows["prediction"] < 0).astype(float), n, rows.counts())
    if fn == "share_nonzero":
        p, r = rows["prediction"], rows["reference"]
        x = (np.abs(p) > ms.tol).astype(float)
        if ms.where == "reference_zero":
            sel = r == 0
            return _seg_mean(g[sel], x[sel], n)
        return _seg_mean(g, x, n, rows.counts())
    if fn in ("mae", "log_partition_error"):
        d = rows.residual(ms)
        return _seg_mean(g, np.abs(d), n, rows.counts())
    if fn == "rmse":
        d = rows.residual(ms)
        return np.sqrt(_seg_mean(g, d * d, n, rows.counts()))
    if fn == "mpe_error":
        return _seg_mean(g, rows.residual(ms), n, rows.counts())
    r, p = rows.scaled(ms)
    if fn == "mape":
        return _seg_mean(g, _m._ape(r, p), n, rows.counts())
    if fn == "r2":
        mean = _seg_mean(g, r, n, rows.counts())
        dev = r - mean[g]
        ss_tot = np.bincount(g, weights=dev * dev, minlength=n)
        d = rows.residual(ms)
        ss_res = np.bincount(g, weights=d * d, minlength=n)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = 1.0 - ss_res / ss_tot
        out[ss_tot == 0] = np.nan
        return out
    if fn == "max_abs_error":
        out = np.full(n, np.nan)
        if g.size:
            order, starts, ids = _seg_order(g, n)
            out[ids] = np.maximum.reduceat(np.abs(rows.residual(ms))[order], starts)
        return out
    if fn == "mape_top_quantile":
        a = np.abs(r)
        out = np.full(n, np.nan)
        if g.size == 0:
            return out
        order = np.lexsort((-a, g))  # by segment, then |ref| descending
        cnt = rows.counts()
        ids = np.flatnonzero(cnt)
        starts = (np.cumsum(cnt) - cnt)[ids]
        k = _m.top_quantile_count(cnt[ids], ms.quantile)
        thr = np.full(n, np.inf)
        thr[ids] = a[order[starts + k - 1]]
        keep = a >= thr[g]
        return _seg_mean(g[keep], _m._ape(r[keep], p[keep]), n)
    raise AssertionError(f"no kernel for {fn}")  # pragma: no cover (spec validation)


# ------------------------------------------------------------------------------------------------
# compute
# ------------------------------------------------------------------------------------------------


def compute_raw_metrics(predictions: pd.DataFrame, spec: Spec | Mapping) -> pd.DataFrame:
    """Compute every metric of ``spec`` for every (model, benchmark) in ``predictions``.

    Returns the long table ``model, benchmark, metric, value`` (see the module docstring),
    including a ``missing fraction`` row per (model, benchmark). Raises ConfigError for a bad
    spec and DataError (every problem, with its row) for a bad table.
    """
    spec = _as_spec(spec)
    t = _prepare(predictions, spec)
    G = t.n_groups
    values = [np.full((len(b.metrics), t.n_models), np.nan) for b in spec.benchmarks]

    # one pass per distinct (fn, options) over every benchmark that uses it; passes over the
    # same benchmarks share their rows (and cached residuals)
    passes: dict[tuple, list[tuple[int, int]]] = {}
    for j, b in enumerate(spec.benchmarks):
        for k, ms in enumerate(b.metrics):
            passes.setdefault(ms.options(), []).append((j, k))
    all_valid = bool(t.valid.all())
    row_sets: dict[tuple, _Rows] = {}
    for uses in passes.values():
        ms = spec.benchmarks[uses[0][0]].metrics[uses[0][1]]
        benches = tuple(sorted({j for j, _ in uses}))
        if benches not in row_sets:
            if len(benches) == t.n_bench:
                sel_rows = None if all_valid else t.valid
            else:
                sel_b = np.zeros(t.n_bench, dtype=bool)
                sel_b[list(benches)] = True
                sel_rows = sel_b[t.bench] & t.valid
            row_sets[benches] = _Rows(t, sel_rows)
        seg = _kernel(ms, row_sets[benches])[:G].reshape(t.n_models, t.n_bench)
        for j, k in uses:
            values[j][k] = seg[:, j] * spec.benchmarks[j].metrics[k].scale

    order = t.model_order
    missing = t.missing.reshape(t.n_models, t.n_bench)[order]
    values = [v[:, order] for v in values]
    models = t.models[order]
    frames = []
    for j, b in enumerate(spec.benchmarks):
        too_many = missing[:, j] > b.max_missing + 1e-12
        vals = values[j].copy()
        vals[:, too_many] = np.nan
        names = [m.name for m in b.metrics] + [MISSING_METRIC]
        block = np.vstack([vals, missing[:, j][None, :]])  # (metrics + 1, models)
        frames.append(
            pd.DataFrame(
                {
                    "model": np.repeat(models, len(names)),
                    "benchmark": b.name,
                    "metric": np.tile(np.asarray(names, dtype=object), models.size),
                    "value": block.T.reshape(-1),
                    "_m": np.repeat(np.arange(models.size), len(names)),
                    "_b": j,
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out = out.sort_values(["_m", "_b"], kind="stable").drop(columns=["_m", "_b"])
    return out.reset_index(drop=True)


def write_raw_metrics(table: pd.DataFrame, path: str | Path) -> None:
    """Write the long raw-metrics table as CSV (missing values as empty cells)."""
    try:
        table.to_csv(path, index=False, na_rep="")
    except OSError as exc:
        raise DataError([Problem(str(path), f"cannot write: {exc.strerror or exc}")]) from None
