"""The scoring tree (categories > benchmarks > metrics) and its functional edits.

``with_threshold``, ``with_weight``, ``with_params`` and ``apply_changes`` return new, fully
validated configs; ``diff`` gives the changes between two configs of the same tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from ..aggregation import DEFAULT_POLICY, is_skip
from ..errors import ConfigError, Problem
from .fields import parse_metric, parse_missing, parse_weight
from .nodes import Benchmark, Category, Metric, metric_to_dict, to_yaml_value

#: the key path of the config itself in a changes mapping (``{"": {"missing": "skip"}}``)
ROOT = ""


@dataclass(frozen=True)
class Config:
    categories: tuple[Category, ...]
    title: str = "Benchmark"
    description: str | None = None
    missing: str = DEFAULT_POLICY
    scale: float = 1.0
    presets: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    #: :class:`~.vetoes.Veto` rules: a raw value beyond a limit gives an overall score of 0
    vetoes: tuple = ()

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
        return is_skip(self.missing) or any(is_skip(c.missing or "") for c in self.categories)

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

        Path :data:`ROOT` (``""``) is the config itself: its field ``missing`` (the policy). A
        category also takes ``missing`` (its override). Raises ConfigError listing every bad
        path or value (``path.field: message``).
        """
        problems: list[Problem] = []
        if not isinstance(changes, Mapping):
            raise ConfigError([Problem("changes", "expected a mapping of key path to fields")])
        merged, root = self._merge_changes(changes, problems)
        replaced: dict[int, Category | Benchmark | Metric] = {}
        for full, fields in merged.items():
            node = self._paths[full]
            new = _changed_node(node, full, fields, problems)
            if new is not None and new is not node:
                replaced[id(node)] = new
        if problems:
            raise ConfigError(problems)
        out = self._replace_nodes(replaced) if replaced else self
        if root.get("missing"):
            out = replace(out, missing=root["missing"])
        return out

    def _merge_changes(
        self, changes: Mapping, problems: list[Problem]
    ) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """(full path -> fields, short paths resolved; the config's own fields)."""
        merged: dict[str, dict[str, Any]] = {}
        root: dict[str, Any] = {}
        for path, fields in changes.items():
            if not isinstance(path, str):
                problems.append(Problem(str(path)[:80], "key path must be text"))
                continue
            if path == ROOT and isinstance(fields, Mapping):
                _root_changes(fields, root, problems)
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
        return merged, root

    def diff(self, other: Config) -> dict[str, dict[str, Any]]:
        """The changes that turn ``self`` into ``other`` (same tree, different values)."""
        out: dict[str, dict[str, Any]] = {}
        if other.missing != self.missing:
            out[ROOT] = {"missing": other.missing}
        for path, node in self._paths.items():
            try:
                o = other.node(path)
            except KeyError:
                continue
            d: dict[str, Any] = {}
            if o.weight != node.weight:
                d["weight"] = o.weight
            if isinstance(node, Category) and isinstance(o, Category) and o.missing != node.missing:
                d["missing"] = other.policy(o)
            if isinstance(node, Metric) and isinstance(o, Metric):
                for f in ("good", "bad"):
                    if getattr(o, f) != getattr(node, f):
                        d[f] = to_yaml_value(getattr(o, f))
                for k in set(node.params) | set(o.params):
                    if node.params.get(k) != o.params.get(k):
                        d[k] = to_yaml_value(o.params.get(k))
            if d:
                out[path] = d
        return out


def _root_changes(fields: Mapping, root: dict[str, Any], problems: list[Problem]) -> None:
    """The config's own fields: only ``missing`` (the policy) can be changed."""
    for k, v in fields.items():
        if k != "missing":
            problems.append(Problem(str(k)[:80], "only 'missing' can be changed here"))
            continue
        root["missing"] = parse_missing(v, "missing", problems)


def _changed_node(
    node: Category | Benchmark | Metric, full: str, fields: Mapping, problems: list[Problem]
) -> Category | Benchmark | Metric | None:
    """``node`` with ``fields`` changed (a metric is validated again as a whole), or None when
    a value is invalid (reported)."""
    if isinstance(node, Metric):
        raw = metric_to_dict(node)
        raw.update(fields)
        return parse_metric(node.name, raw, full, problems)
    updates: dict[str, Any] = {}
    for k, v in fields.items():
        if k == "missing" and isinstance(node, Category):
            updates["missing"] = parse_missing(v, f"{full}.missing", problems)
            continue
        if k != "weight":
            allowed = "'weight' or 'missing'" if isinstance(node, Category) else "'weight'"
            problems.append(Problem(f"{full}.{k}"[:300], f"only {allowed} can be changed here"))
            continue
        updates["weight"] = parse_weight(v, f"{full}.weight", problems)
    return replace(node, **updates) if updates else node
