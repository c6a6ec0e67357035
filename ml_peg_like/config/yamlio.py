"""Configs as YAML: a bounded, safe loader and the writer.

Parsing runs in libyaml (``yaml.CSafeLoader``; the pure-Python ``SafeLoader`` only when libyaml
is absent). The tree is composed here, in Python, one node at a time, so that every limit is
checked before the expensive work (building Python objects) is done: a file larger than
:data:`MAX_CONFIG_BYTES` is refused from its size, a document with more than
:data:`MAX_YAML_NODES` nodes or deeper than :data:`MAX_YAML_DEPTH` is refused at the node that
crosses the limit, and aliases (``*name``) and duplicate keys are refused. For scale: the full
ML-PEG config (every benchmark of its analysis configs) is ~94 KB and ~6,300 nodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer

from ..errors import ConfigError, Problem
from ..support.files import megabytes, read_limited
from .model import Config
from .nodes import Benchmark, Category, metric_to_dict
from .parse import config_from_dict

#: the largest config file (or upload) read, in bytes
MAX_CONFIG_BYTES = 4 * 2**20
#: the most YAML nodes (scalars, lists, mappings) in one document
MAX_YAML_NODES = 50_000
#: the deepest nesting of lists and mappings
MAX_YAML_DEPTH = 64

#: True when libyaml does the parsing
LIBYAML = bool(getattr(yaml, "__with_libyaml__", False))
_Base = yaml.CSafeLoader if LIBYAML else yaml.SafeLoader


class _TooComplex(yaml.YAMLError):
    pass


class _BoundedLoader(_Base):  # type: ignore[misc,valid-type]
    """A safe loader that refuses aliases, duplicate keys, deep nesting and too many nodes.

    libyaml's own composer (C) would build the whole tree before anything could be checked;
    Python's composer, reading libyaml's events, lets each node be counted first.
    """

    def __init__(self, stream):
        super().__init__(stream)
        self.anchors: dict = {}
        self._nodes = 0
        self._depth = 0

    get_single_node = Composer.get_single_node
    compose_document = Composer.compose_document
    compose_scalar_node = Composer.compose_scalar_node
    compose_sequence_node = Composer.compose_sequence_node
    compose_mapping_node = Composer.compose_mapping_node

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise yaml.constructor.ConstructorError(
                None,
                None,
                "YAML aliases (*name) are not allowed in configs",
                self.peek_event().start_mark,
            )
        self._nodes += 1
        if self._nodes > MAX_YAML_NODES:
            raise _TooComplex(
                f"too complex: more than {MAX_YAML_NODES:,} YAML values (a full ML-PEG config "
                "has about 6,300): refused"
            )
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"nesting deeper than {MAX_YAML_DEPTH} levels",
                    self.peek_event().start_mark,
                )
            return Composer.compose_node(self, parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
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


def _too_large(source: str, size: int) -> ConfigError:
    return ConfigError(
        [Problem(source, f"larger than {megabytes(MAX_CONFIG_BYTES)} ({megabytes(size)}): refused")]
    )


def safe_load_yaml(text: str | bytes, source: str = "<text>") -> Any:
    """YAML without aliases, duplicate keys, deep nesting or too many nodes (the limits above);
    every refusal is a ConfigError naming ``source`` (and the line when there is one)."""
    if isinstance(text, bytes):
        if len(text) > MAX_CONFIG_BYTES:
            raise _too_large(source, len(text))
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ConfigError([Problem(source, f"not UTF-8 text (byte {exc.start})")]) from None
    if len(text) > MAX_CONFIG_BYTES:
        raise _too_large(source, len(text))
    try:
        return yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 (safe subclass)
    except _TooComplex as exc:
        raise ConfigError([Problem(source, str(exc))]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        msg = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError([Problem(where, f"invalid YAML: {msg}")]) from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer of more than 4300 digits
        raise ConfigError([Problem(source, f"invalid value: {str(exc).splitlines()[0]}")]) from None
    except RecursionError:
        raise ConfigError([Problem(source, "YAML nested too deeply")]) from None


def load_config(path: str | Path) -> Config:
    """Read and validate a YAML config file (or a dataset directory holding config.yml)."""
    return read_config(path)[0]


def read_config(path: str | Path) -> tuple[Config, Path, bytes]:
    """:func:`load_config`, with the file read and its bytes as read (for provenance)."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.yml"
    data = read_limited(p, MAX_CONFIG_BYTES, error=ConfigError)
    return config_from_dict(safe_load_yaml(data, str(p)), str(p)), p, data


def loads_config(text: str | bytes, source: str = "<text>") -> Config:
    """Parse and validate a YAML config given as text."""
    return config_from_dict(safe_load_yaml(text, source), source)


def _group_to_dict(
    node: Category | Benchmark, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A category's or benchmark's own settings: weight, description, ``extra``, meta."""
    out: dict[str, Any] = {"weight": node.weight}
    if node.description is not None:
        out["description"] = node.description
    out.update(extra or {})
    if node.meta:
        out["meta"] = dict(node.meta)
    return out


def config_to_dict(cfg: Config) -> dict[str, Any]:
    out: dict[str, Any] = {"title": cfg.title}
    if cfg.description is not None:
        out["description"] = cfg.description
    out["missing"] = cfg.missing
    out["scale"] = int(cfg.scale)
    out["categories"] = {
        c.name: {
            **_group_to_dict(c, {"missing": c.missing} if c.missing else {}),
            "benchmarks": {
                b.name: {
                    **_group_to_dict(b),
                    "metrics": {m.name: metric_to_dict(m) for m in b.metrics},
                }
                for b in c.benchmarks
            },
        }
        for c in cfg.categories
    }
    if cfg.presets:
        out["presets"] = {k: {p: dict(f) for p, f in v.items()} for k, v in cfg.presets.items()}
    if cfg.vetoes:
        out["vetoes"] = [v.to_dict() for v in cfg.vetoes]
    return out


def dump_config(cfg: Config) -> str:
    """YAML text that loads back (``loads_config``) to a config equal to ``cfg``."""
    return yaml.safe_dump(config_to_dict(cfg), sort_keys=False, allow_unicode=True, width=100)
