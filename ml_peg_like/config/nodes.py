"""The nodes of the scoring tree (metric, benchmark, category) and a threshold taken from a model.

Frozen dataclasses; :mod:`.model` holds the tree (``Config``) and its functional edits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..normalisers import Normaliser, get_normaliser

#: data-driven thresholds: the best or worst value of the metric over the models
DATA_THRESHOLDS = ("best", "worst")


@dataclass(frozen=True)
class ModelRef:
    """A threshold taken from one model's raw value for the same metric (seed 002)."""

    model: str

    def to_yaml(self) -> dict[str, str]:
        return {"model": self.model}


Threshold = float | ModelRef | str | None  # str: "best" or "worst"


@dataclass(frozen=True)
class Metric:
    """A metric: its thresholds (``good``, ``bad``: numbers, ``{model: NAME}``, ``best`` or
    ``worst``), its ``weight`` in its benchmark, its ``normaliser`` and that normaliser's other
    ``params``, ``better`` (``lower`` / ``higher``, needed with ``best`` / ``worst``), ``unit``,
    ``description`` and free-form ``meta``."""

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
    """A benchmark: its ``metrics`` (in config order), its ``weight`` in its category, a
    ``description`` and free-form ``meta``."""

    name: str
    metrics: tuple[Metric, ...]
    weight: float = 1.0
    description: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Category:
    """A category: its ``benchmarks``, its ``weight`` in the overall score, a ``description``,
    its own missing-data policy ``missing`` (None: the config's) and free-form ``meta``."""

    name: str
    benchmarks: tuple[Benchmark, ...]
    weight: float = 1.0
    description: str | None = None
    missing: str | None = None  # overrides the config's policy for this category
    meta: Mapping[str, Any] = field(default_factory=dict)


def to_yaml_value(v: Any) -> Any:
    """A threshold or parameter as plain data (``{model: NAME}`` for a ModelRef)."""
    return v.to_yaml() if isinstance(v, ModelRef) else v


def metric_to_dict(m: Metric) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if m.good is not None:
        d["good"] = to_yaml_value(m.good)
    if m.bad is not None:
        d["bad"] = to_yaml_value(m.bad)
    d["weight"] = m.weight
    if m.normaliser != "linear":
        d["normaliser"] = m.normaliser
    for k, v in m.params.items():
        d[k] = to_yaml_value(v)
    if m.better:
        d["better"] = m.better
    if m.unit is not None:
        d["unit"] = m.unit
    if m.description is not None:
        d["description"] = m.description
    if m.meta:
        d["meta"] = dict(m.meta)
    return d
