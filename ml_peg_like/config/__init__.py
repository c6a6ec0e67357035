"""The scoring tree (categories > benchmarks > metrics) as frozen dataclasses.

Loading validates everything and reports every problem at once, each with its key path
(``Physicality/Extensivity/ΔE.bad: expected a number, got 'abc'``). Edits are functional:
``with_threshold``, ``with_weight``, ``with_params`` and ``apply_changes`` return new configs.

- :mod:`.nodes`: ModelRef, Metric, Benchmark, Category (frozen dataclasses)
- :mod:`.model`: Config, its navigation and functional edits
- :mod:`.fields`: parsing one field (number, weight, threshold, name, metric)
- :mod:`.parse`: plain data -> Config, every problem at once
- :mod:`.yamlio`: bounded, safe YAML in (libyaml) and YAML out
- :mod:`.vetoes`: ``vetoes`` (a raw value beyond a limit: overall score 0)
"""

from ..aggregation import POLICIES as MISSING_POLICIES
from .model import ROOT, Config
from .nodes import DATA_THRESHOLDS, Benchmark, Category, Metric, ModelRef, Threshold
from .parse import config_from_dict
from .vetoes import Veto
from .yamlio import (
    LIBYAML,
    MAX_CONFIG_BYTES,
    MAX_YAML_DEPTH,
    MAX_YAML_NODES,
    config_to_dict,
    dump_config,
    load_config,
    loads_config,
    safe_load_yaml,
)

__all__ = [
    "ROOT",
    "DATA_THRESHOLDS",
    "LIBYAML",
    "MAX_CONFIG_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "MISSING_POLICIES",
    "Benchmark",
    "Category",
    "Config",
    "Metric",
    "ModelRef",
    "Threshold",
    "Veto",
    "config_from_dict",
    "config_to_dict",
    "dump_config",
    "load_config",
    "loads_config",
    "safe_load_yaml",
]
