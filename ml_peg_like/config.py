"""The scoring tree (categories > benchmarks > metrics) as frozen dataclasses.

Loading validates everything and reports every problem at once, each with its key path
(``Physicality/Extensivity/ΔE.bad: expected a number, got 'abc'``). Edits are functional:
``with_threshold``, ``with_weight``, ``with_params`` and ``apply_changes`` return new configs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError, Problem
from .normalisers import Normaliser, get_normaliser, normaliser_names

MISSING_POLICIES = ("invalidate", "skip")
DATA_THRESHOLDS = ("best", "worst")
MAX_CONFIG_BYTES = 20 * 1024 * 1024
MAX_YAML_DEPTH = 64


@dataclass(frozen=True)
class ModelRef:
    """A threshold taken from one model's raw value for the same metric (seed 002)."""

    model: str

    def to_yaml(self) -> dict[str, str]:
        return {"model": self.model}


Threshold = float | ModelRef | str | None  # str: "best" or "worst"


@dataclass(frozen=True)
class Metric:
    name: str
    good: Threshold = None
    bad: Threshold = None
    weight: float = 1.0
    normaliser: str = "linear"
    params: Mapping[str, float | ModelRef] = field(default_factory=dict)
    better: str | None = None  # "lower" | "higher"; needed with best/worst
    unit: str | None = None
    description: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def norm(self) -> Normaliser:
        return get_normaliser(self.normaliser)

    @property
    def direction(self) -> str | None:
        """'lower' or 'higher' is better, when the config alone tells."""
        if self.better:
            return self.better
        if isinstance(self.good, float) and isinstance(self.bad, float):
            return "lower" if self.good < self.bad else "higher"
        if not self.norm.uses_thresholds:
            return "lower" if "reference" in self.params else "higher"
        return None

    def value(self, field_name: str) -> Any:
        """The current value of an editable field (good, bad, weight or a parameter)."""
        if field_name in ("good", "bad", "weight"):
            return getattr(self, field_name)
        if field_name in self.params:
            return self.params[field_name]
        spec = self.norm.param(field_name)
        return spec.default if spec else None


@dataclass(frozen=True)
class Benchmark:
    name: str
    metrics: tuple[Metric, ...]
    weight: float = 1.0
    description: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Category:
    name: str
    benchmarks: tuple[Benchmark, ...]
    weight: float = 1.0
    description: str | None = None
    missing: str | None = None  # overrides the config's policy for this category
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Config:
    categories: tuple[Category, ...]
    title: str = "Benchmark"
    description: str | None = None
    missing: str = "invalidate"
    scale: float = 1.0
    presets: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)

    # ---- navigation -------------------------------------------------------------------------
    @cached_property
    def _paths(self) -> dict[str, Category | Benchmark | Metric]:
        """Full key path -> node, in config order."""
        out: dict[str, Category | Benchmark | Metric] = {}
        for c in self.categories:
            out[c.name] = c
            for b in c.benchmarks:
                out[f"{c.name}/{b.name}"] = b
                for m in b.metrics:
                    out[f"{c.name}/{b.name}/{m.name}"] = m
        return out

    @cached_property
    def _index(self) -> dict[str, Category | Benchmark | Metric]:
        """Full paths plus the short forms ``Benchmark`` and ``Benchmark/Metric`` (benchmark
        names are unique); a full path wins over a short form that reads the same."""
        idx = dict(self._paths)
        for c in self.categories:
            for b in c.benchmarks:
                idx.setdefault(b.name, b)
                for m in b.metrics:
                    idx.setdefault(f"{b.name}/{m.name}", m)
        return idx

    @cached_property
    def _path_of(self) -> dict[int, str]:
        return {id(n): p for p, n in self._paths.items()}

    def node(self, path: str) -> Category | Benchmark | Metric:
        """The category, benchmark or metric at ``path`` (KeyError if none)."""
        try:
            return self._index[path]
        except (KeyError, TypeError):
            raise KeyError(path) from None

    def full_path(self, path: str) -> str:
        """The canonical ``Category/Benchmark/Metric`` form of a (possibly short) path."""
        return self._path_of[id(self.node(path))]

    def metric_paths(self) -> list[str]:
        """Full key paths of every metric, in config order."""
        return [
            f"{c.name}/{b.name}/{m.name}"
            for c in self.categories
            for b in c.benchmarks
            for m in b.metrics
        ]

    def metric_columns(self) -> list[str]:
        """``Benchmark/Metric`` column keys of every metric, in config order."""
        return [
            f"{b.name}/{m.name}" for c in self.categories for b in c.benchmarks for m in b.metrics
        ]

    def metric_ids(self) -> list[tuple[str, str]]:
        """(benchmark, metric) pairs in config order: the identity of a raw-data column."""
        return [(b.name, m.name) for c in self.categories for b in c.benchmarks for m in b.metrics]

    def benchmark_names(self) -> list[str]:
        return [b.name for c in self.categories for b in c.benchmarks]

    def category_names(self) -> list[str]:
        return [c.name for c in self.categories]

    def iter_metrics(self):
        """Yield (category, benchmark, metric) in config order."""
        for c in self.categories:
            for b in c.benchmarks:
                for m in b.metrics:
                    yield c, b, m

    def policy(self, category: Category) -> str:
        return category.missing or self.missing

    @property
    def uses_skip(self) -> bool:
        return self.missing == "skip" or any(c.missing == "skip" for c in self.categories)

    # ---- functional updates -------------------------------------------------------------------
    def _replace_nodes(self, new: dict[int, Category | Benchmark | Metric]) -> Config:
        """A config with the nodes whose id() is a key of ``new`` replaced (one tree rebuild)."""
        cats = []
        for c in self.categories:
            benches = []
            for b in c.benchmarks:
                metrics = tuple(new.get(id(m), m) for m in b.metrics)
                nb = new.get(id(b), b)
                if any(x is not y for x, y in zip(metrics, b.metrics, strict=True)):
                    nb = replace(nb, metrics=metrics)
                benches.append(nb)
            nc = new.get(id(c), c)
            if any(x is not y for x, y in zip(benches, c.benchmarks, strict=True)):
                nc = replace(nc, benchmarks=tuple(benches))
            cats.append(nc)
        return replace(self, categories=tuple(cats))

    def with_threshold(self, path: str, *, good: Any = None, bad: Any = None) -> Config:
        """A new config with the metric's good and/or bad threshold changed (validated)."""
        fields = {}
        if good is not None:
            fields["good"] = good
        if bad is not None:
            fields["bad"] = bad
        return self.apply_changes({path: fields})

    def with_weight(self, path: str, weight: Any) -> Config:
        """A new config with the weight of the category, benchmark or metric at ``path``."""
        return self.apply_changes({path: {"weight": weight}})

    def with_params(self, path: str, **params: Any) -> Config:
        """A new config with normaliser parameters of the metric at ``path`` changed."""
        return self.apply_changes({path: params})

    def apply_changes(self, changes: Mapping[str, Mapping[str, Any]]) -> Config:
        """Apply ``{path: {field: value}}`` and return the new, fully validated config.

        Raises ConfigError listing every bad path or value (``path.field: message``).
        """
        problems: list[Problem] = []
        if not isinstance(changes, Mapping):
            raise ConfigError([Problem("changes", "expected a mapping of key path to fields")])
        merged: dict[str, dict[str, Any]] = {}  # full path -> fields (short paths resolved)
        for path, fields in changes.items():
            if not isinstance(path, str):
                problems.append(Problem(str(path)[:80], "key path must be text"))
                continue
            try:
                full = self.full_path(path)
            except KeyError:
                problems.append(Problem(path[:200], "no such category, benchmark or metric"))
                continue
            if not isinstance(fields, Mapping):
                problems.append(Problem(path[:200], "expected a mapping of field to value"))
                continue
            merged.setdefault(full, {}).update({str(k): v for k, v in fields.items()})
        replaced: dict[int, Category | Benchmark | Metric] = {}
        for full, fields in merged.items():
            node = self._paths[full]
            if isinstance(node, Metric):
                raw = _metric_to_dict(node)
                raw.update(fields)
                new = _parse_metric(node.name, raw, full, problems)
            else:
                updates: dict[str, Any] = {}
                for k, v in fields.items():
                    if k != "weight":
                        problems.append(
                            Problem(f"{full}.{k}"[:300], "only 'weight' can be changed here")
                        )
                        continue
                    updates["weight"] = _parse_weight(v, f"{full}.weight", problems)
                new = replace(node, **updates) if updates else node
            if new is not None and new is not node:
                replaced[id(node)] = new
        if problems:
            raise ConfigError(problems)
        return self._replace_nodes(replaced) if replaced else self

    def diff(self, other: Config) -> dict[str, dict[str, Any]]:
        """The changes that turn ``self`` into ``other`` (same tree, different values)."""
        out: dict[str, dict[str, Any]] = {}
        for path, node in self._paths.items():
            try:
                o = other.node(path)
            except KeyError:
                continue
            d: dict[str, Any] = {}
            if o.weight != node.weight:
                d["weight"] = o.weight
            if isinstance(node, Metric) and isinstance(o, Metric):
                for f in ("good", "bad"):
                    if getattr(o, f) != getattr(node, f):
                        d[f] = _to_yaml_value(getattr(o, f))
                for k in set(node.params) | set(o.params):
                    if node.params.get(k) != o.params.get(k):
                        d[k] = _to_yaml_value(o.params.get(k))
            if d:
                out[path] = d
        return out


# ------------------------------------------------------------------------------------------------
# Parsing and validation
# ------------------------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _fmt(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_number(
    value: Any, where: str, problems: list[Problem], *, allow_none: bool = False
) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        problems.append(Problem(where, f"expected a number, got {_fmt(value)}"))
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            problems.append(Problem(where, f"expected a number, got {_fmt(value)}"))
            return None
    value = float(value)
    if not math.isfinite(value):
        problems.append(Problem(where, f"expected a finite number, got {_fmt(value)}"))
        return None
    return value


def _parse_weight(value: Any, where: str, problems: list[Problem]) -> float | None:
    n = len(problems)
    w = _parse_number(value, where, problems)
    if len(problems) > n or w is None:
        return None
    if w < 0:
        problems.append(Problem(where, f"weight must be >= 0, got {w:g}"))
        return None
    return w


def _parse_threshold(value: Any, where: str, problems: list[Problem], *, data_ok: bool) -> Any:
    """A number, ``{model: NAME}``, or (when ``data_ok``) ``best``/``worst``."""
    if isinstance(value, Mapping):
        if set(value) != {"model"} or not isinstance(value.get("model"), str | int | float):
            problems.append(
                Problem(where, f"expected a number or {{model: NAME}}, got {_fmt(value)}")
            )
            return None
        name = str(value["model"])
        if not name.strip():
            problems.append(Problem(where, "model name is empty"))
            return None
        return ModelRef(name)
    if isinstance(value, str) and value.strip().lower() in DATA_THRESHOLDS:
        if not data_ok:
            problems.append(Problem(where, f"'{value}' is allowed only for good and bad"))
            return None
        return value.strip().lower()
    return _parse_number(value, where, problems)


def _parse_name(key: Any, where: str, problems: list[Problem]) -> str | None:
    if isinstance(key, bool) or not isinstance(key, str | int | float):
        problems.append(Problem(where, f"a name must be text, got {_fmt(key)}"))
        return None
    name = str(key)
    if not name.strip():
        problems.append(Problem(where, "a name must not be empty"))
        return None
    if _CONTROL.search(name):
        problems.append(Problem(where, f"name {_fmt(name)} contains control characters"))
        return None
    if len(name) > 200:
        problems.append(Problem(where, "a name must be at most 200 characters"))
        return None
    return name


def _parse_text(value: Any, where: str, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        problems.append(Problem(where, f"expected text, got {_fmt(value)}"))
        return None
    return str(value)


def _parse_meta(value: Any, where: str, problems: list[Problem]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append(Problem(where, "expected a mapping of names to values"))
        return {}
    out = {}
    for k, v in value.items():
        if v is not None and not isinstance(v, str | int | float | bool):
            problems.append(Problem(f"{where}.{k}", f"expected a plain value, got {_fmt(v)}"))
            continue
        out[str(k)] = v
    return out


def _check_keys(
    raw: Mapping, allowed: set[str], where: str, problems: list[Problem], what: str
) -> None:
    for k in raw:
        if str(k) not in allowed:
            problems.append(
                Problem(
                    f"{where}.{k}",
                    f"unknown key for a {what} (allowed: {', '.join(sorted(allowed))})",
                )
            )


_METRIC_KEYS = {"good", "bad", "weight", "normaliser", "better", "unit", "description", "meta"}


def _parse_metric(name: str, raw: Any, where: str, problems: list[Problem]) -> Metric | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(where, f"expected a mapping of metric settings, got {_fmt(raw)}"))
        return None
    n0 = len(problems)
    norm_name = raw.get("normaliser", "linear")
    if norm_name is None:
        norm_name = "linear"
    try:
        norm = get_normaliser(str(norm_name))
    except KeyError:
        problems.append(
            Problem(
                f"{where}.normaliser",
                f"unknown normaliser {_fmt(norm_name)} (known: {', '.join(normaliser_names())})",
            )
        )
        return None
    allowed = set(_METRIC_KEYS) | {p.name for p in norm.params}
    _check_keys(raw, allowed, where, problems, f"'{norm.name}' metric")

    better = raw.get("better")
    if better is not None:
        better = str(better).strip().lower()
        if better not in ("lower", "higher"):
            problems.append(
                Problem(
                    f"{where}.better",
                    f"expected 'lower' or 'higher', got {_fmt(raw.get('better'))}",
                )
            )
            better = None

    good = bad = None
    if norm.uses_thresholds:
        for key in ("good", "bad"):
            if key not in raw or raw[key] is None:
                problems.append(
                    Problem(f"{where}.{key}", f"missing: '{norm.name}' needs good and bad")
                )
        if "good" in raw and raw["good"] is not None:
            good = _parse_threshold(raw["good"], f"{where}.good", problems, data_ok=True)
        if "bad" in raw and raw["bad"] is not None:
            bad = _parse_threshold(raw["bad"], f"{where}.bad", problems, data_ok=True)
        if isinstance(good, float) and isinstance(bad, float):
            if good == bad:
                problems.append(
                    Problem(f"{where}.good", f"good and bad must differ (both {good:g})")
                )
            elif better and better != ("lower" if good < bad else "higher"):
                problems.append(
                    Problem(
                        f"{where}.better", f"says {better} is better but good={good:g}, bad={bad:g}"
                    )
                )
        if (good in DATA_THRESHOLDS or bad in DATA_THRESHOLDS) and better is None:
            problems.append(
                Problem(f"{where}.better", "'best'/'worst' thresholds need better: lower|higher")
            )
        if good is not None and good == bad and not isinstance(good, float):
            problems.append(Problem(f"{where}.good", "good and bad must differ"))
    else:
        for key in ("good", "bad"):
            if raw.get(key) is not None:
                names = ", ".join(p.name for p in norm.params)
                problems.append(
                    Problem(
                        f"{where}.{key}",
                        f"'{norm.name}' takes no {key} threshold (its parameters: {names})",
                    )
                )

    params: dict[str, float | ModelRef] = {}
    for spec in norm.params:
        pw = f"{where}.{spec.name}"
        if spec.name not in raw or raw[spec.name] is None:
            if spec.default is None and not spec.optional:
                problems.append(Problem(pw, f"missing: '{norm.name}' needs {spec.name}"))
            continue
        if spec.model_ref:
            v = _parse_threshold(raw[spec.name], pw, problems, data_ok=False)
        else:
            v = _parse_number(raw[spec.name], pw, problems)
        if isinstance(v, float):
            if spec.positive and v <= 0:
                problems.append(Problem(pw, f"must be > 0, got {v:g}"))
                continue
            if spec.greater_than is not None and v <= spec.greater_than:
                problems.append(Problem(pw, f"must be > {spec.greater_than:g}, got {v:g}"))
                continue
        if v is not None:
            params[spec.name] = v

    weight = _parse_weight(raw.get("weight", 1.0), f"{where}.weight", problems)
    unit = _parse_text(raw.get("unit"), f"{where}.unit", problems)
    description = _parse_text(raw.get("description"), f"{where}.description", problems)
    meta = _parse_meta(raw.get("meta"), f"{where}.meta", problems)
    if len(problems) > n0:
        return None
    return Metric(
        name=name,
        good=good,
        bad=bad,
        weight=weight,
        normaliser=norm.name,
        params=params,
        better=better,
        unit=unit,
        description=description,
        meta=meta,
    )


def _parse_missing(value: Any, where: str, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    v = str(value).strip().lower()
    if v not in MISSING_POLICIES:
        problems.append(Problem(where, f"expected 'invalidate' or 'skip', got {_fmt(value)}"))
        return None
    return v


def config_from_dict(data: Any, source: str = "") -> Config:
    """Build and validate a Config from plain data (as loaded from YAML)."""
    problems: list[Problem] = []
    root = source or "config"
    if not isinstance(data, Mapping):
        raise ConfigError([Problem(root, "expected a mapping with a 'categories' key")])
    _check_keys(
        data,
        {"title", "description", "missing", "scale", "categories", "presets"},
        "",
        problems,
        "config",
    )
    problems[:] = [Problem(p.where.lstrip("."), p.message) for p in problems]
    title = _parse_text(data.get("title"), "title", problems) or "Benchmark"
    description = _parse_text(data.get("description"), "description", problems)
    missing = _parse_missing(data.get("missing", "invalidate"), "missing", problems) or "invalidate"
    scale = _parse_number(data.get("scale", 1), "scale", problems)
    if scale is not None and scale not in (1.0, 100.0):
        problems.append(Problem("scale", f"expected 1 or 100, got {scale:g}"))
    cats_raw = data.get("categories")
    categories: list[Category] = []
    bench_seen: dict[str, str] = {}
    if not isinstance(cats_raw, Mapping) or not cats_raw:
        problems.append(Problem("categories", "expected a non-empty mapping of categories"))
        cats_raw = {}
    for ckey, craw in cats_raw.items():
        cname = _parse_name(ckey, f"categories.{ckey}", problems)
        if cname is None:
            continue
        cw = cname
        if not isinstance(craw, Mapping):
            problems.append(Problem(cw, "expected a mapping with 'benchmarks'"))
            continue
        _check_keys(
            craw,
            {"weight", "description", "missing", "benchmarks", "meta"},
            cw,
            problems,
            "category",
        )
        benches_raw = craw.get("benchmarks")
        benchmarks: list[Benchmark] = []
        if not isinstance(benches_raw, Mapping) or not benches_raw:
            problems.append(
                Problem(f"{cw}.benchmarks", "expected a non-empty mapping of benchmarks")
            )
            benches_raw = {}
        for bkey, braw in benches_raw.items():
            bname = _parse_name(bkey, f"{cw}.benchmarks.{bkey}", problems)
            if bname is None:
                continue
            bw = f"{cname}/{bname}"
            if bname in bench_seen:
                problems.append(
                    Problem(
                        bw,
                        f"benchmark names must be unique: also in category '{bench_seen[bname]}'",
                    )
                )
                continue
            bench_seen[bname] = cname
            if not isinstance(braw, Mapping):
                problems.append(Problem(bw, "expected a mapping with 'metrics'"))
                continue
            _check_keys(
                braw, {"weight", "description", "metrics", "meta"}, bw, problems, "benchmark"
            )
            metrics_raw = braw.get("metrics")
            metrics: list[Metric] = []
            if not isinstance(metrics_raw, Mapping) or not metrics_raw:
                problems.append(Problem(f"{bw}.metrics", "expected a non-empty mapping of metrics"))
                metrics_raw = {}
            for mkey, mraw in metrics_raw.items():
                mname = _parse_name(mkey, f"{bw}.metrics.{mkey}", problems)
                if mname is None:
                    continue
                m = _parse_metric(mname, mraw, f"{bw}/{mname}", problems)
                if m is not None:
                    metrics.append(m)
            bweight = _parse_weight(braw.get("weight", 1.0), f"{bw}.weight", problems)
            if metrics and bweight is not None:
                benchmarks.append(
                    Benchmark(
                        name=bname,
                        metrics=tuple(metrics),
                        weight=bweight,
                        description=_parse_text(
                            braw.get("description"), f"{bw}.description", problems
                        ),
                        meta=_parse_meta(braw.get("meta"), f"{bw}.meta", problems),
                    )
                )
        cweight = _parse_weight(craw.get("weight", 1.0), f"{cw}.weight", problems)
        cmissing = _parse_missing(craw.get("missing"), f"{cw}.missing", problems)
        if benchmarks and cweight is not None:
            categories.append(
                Category(
                    name=cname,
                    benchmarks=tuple(benchmarks),
                    weight=cweight,
                    description=_parse_text(craw.get("description"), f"{cw}.description", problems),
                    missing=cmissing,
                    meta=_parse_meta(craw.get("meta"), f"{cw}.meta", problems),
                )
            )
    if problems:
        raise ConfigError(problems)
    cfg = Config(
        categories=tuple(categories),
        title=title,
        description=description,
        missing=missing,
        scale=scale or 1.0,
    )
    # every full key path must name one node
    seen: dict[str, int] = {}
    for c in cfg.categories:
        for p in (
            [c.name]
            + [f"{c.name}/{b.name}" for b in c.benchmarks]
            + [f"{c.name}/{b.name}/{m.name}" for b in c.benchmarks for m in b.metrics]
        ):
            seen[p] = seen.get(p, 0) + 1
    for p, n in seen.items():
        if n > 1:
            problems.append(
                Problem(p, "this key path names more than one node (rename one: '/' in names)")
            )
    presets_raw = data.get("presets") or {}
    presets: dict[str, dict[str, dict[str, Any]]] = {}
    if not isinstance(presets_raw, Mapping):
        problems.append(Problem("presets", "expected a mapping of preset name to changes"))
        presets_raw = {}
    for pname, changes in presets_raw.items():
        try:
            cfg.apply_changes(changes)
            presets[str(pname)] = {str(k): dict(v) for k, v in changes.items()}
        except ConfigError as exc:
            problems.extend(Problem(f"presets.{pname}.{p.where}", p.message) for p in exc.problems)
        except (AttributeError, TypeError):
            problems.append(Problem(f"presets.{pname}", "expected a mapping of key path to fields"))
    if problems:
        raise ConfigError(problems)
    return replace(cfg, presets=presets)


# ------------------------------------------------------------------------------------------------
# YAML in and out
# ------------------------------------------------------------------------------------------------


class _SafeNoAliasLoader(yaml.SafeLoader):
    """safe_load that refuses aliases (no alias bombs) and very deep nesting."""

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None, None, "YAML aliases (*name) are not allowed in configs", event.start_mark
            )
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"nesting deeper than {MAX_YAML_DEPTH} levels",
                    self.peek_event().start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):  # type: ignore[override]
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                try:
                    key = self.construct_object(key_node, deep=True)
                    hash(key)
                except (TypeError, yaml.YAMLError):
                    continue
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"duplicate key {key!r} (first on line {seen[key]})",
                        key_node.start_mark,
                    )
                seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def safe_load_yaml(text: str | bytes, source: str = "<text>") -> Any:
    """yaml.safe_load without aliases or deep nesting; errors become ConfigError with a line."""
    if isinstance(text, bytes):
        if len(text) > MAX_CONFIG_BYTES:
            raise ConfigError([Problem(source, f"larger than {MAX_CONFIG_BYTES // 2**20} MB")])
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ConfigError([Problem(source, f"not UTF-8 text (byte {exc.start})")]) from None
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError([Problem(source, f"larger than {MAX_CONFIG_BYTES // 2**20} MB")])
    try:
        return yaml.load(text, Loader=_SafeNoAliasLoader)  # noqa: S506 (safe subclass)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        msg = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError([Problem(where, f"invalid YAML: {msg}")]) from None
    except RecursionError:
        raise ConfigError([Problem(source, "YAML nested too deeply")]) from None


def load_config(path: str | Path) -> Config:
    """Read and validate a YAML config file (or a dataset directory holding config.yml)."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.yml"
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigError([Problem(str(p), f"cannot read: {exc.strerror or exc}")]) from None
    return config_from_dict(safe_load_yaml(data, str(p)), str(p))


def loads_config(text: str | bytes, source: str = "<text>") -> Config:
    """Parse and validate a YAML config given as text."""
    return config_from_dict(safe_load_yaml(text, source), source)


def _to_yaml_value(v: Any) -> Any:
    if isinstance(v, ModelRef):
        return v.to_yaml()
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return v  # keep float type: yaml writes 1.0
    return v


def _metric_to_dict(m: Metric) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if m.good is not None:
        d["good"] = _to_yaml_value(m.good)
    if m.bad is not None:
        d["bad"] = _to_yaml_value(m.bad)
    d["weight"] = m.weight
    if m.normaliser != "linear":
        d["normaliser"] = m.normaliser
    for k, v in m.params.items():
        d[k] = _to_yaml_value(v)
    if m.better:
        d["better"] = m.better
    if m.unit is not None:
        d["unit"] = m.unit
    if m.description is not None:
        d["description"] = m.description
    if m.meta:
        d["meta"] = dict(m.meta)
    return d


def config_to_dict(cfg: Config) -> dict[str, Any]:
    out: dict[str, Any] = {"title": cfg.title}
    if cfg.description is not None:
        out["description"] = cfg.description
    out["missing"] = cfg.missing
    out["scale"] = int(cfg.scale)
    cats: dict[str, Any] = {}
    for c in cfg.categories:
        cd: dict[str, Any] = {"weight": c.weight}
        if c.description is not None:
            cd["description"] = c.description
        if c.missing:
            cd["missing"] = c.missing
        if c.meta:
            cd["meta"] = dict(c.meta)
        benches: dict[str, Any] = {}
        for b in c.benchmarks:
            bd: dict[str, Any] = {"weight": b.weight}
            if b.description is not None:
                bd["description"] = b.description
            if b.meta:
                bd["meta"] = dict(b.meta)
            bd["metrics"] = {m.name: _metric_to_dict(m) for m in b.metrics}
            benches[b.name] = bd
        cd["benchmarks"] = benches
        cats[c.name] = cd
    out["categories"] = cats
    if cfg.presets:
        out["presets"] = {k: {p: dict(f) for p, f in v.items()} for k, v in cfg.presets.items()}
    return out


def dump_config(cfg: Config) -> str:
    """YAML text that loads back (``loads_config``) to a config equal to ``cfg``."""
    return yaml.safe_dump(config_to_dict(cfg), sort_keys=False, allow_unicode=True, width=100)
