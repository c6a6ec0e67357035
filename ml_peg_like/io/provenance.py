"""Provenance: where an export's numbers come from, in one record built by one function
(:func:`build_provenance`) and written into every export (CSV zip: ``provenance.json``;
XLSX: a ``Provenance`` sheet; LaTeX: a ``%`` comment block and the caption; YAML: a ``#``
comment block; JSON: a ``provenance`` key).

The record: the tool and its version; the UTC date (ISO 8601); the SHA-256 of the config file
and of the raw data file, of their bytes as read (``hash_of: "file bytes as read"``), or, for
data held in memory only (an upload, a config built in code), of a canonical serialisation
(``hash_of`` names it: the config as :func:`~ml_peg_like.config.dump_config` writes it, UTF-8;
the raw values as a long CSV ``model,benchmark,metric,value``, one row per model and metric in
the board's order, values as the shortest text that reads back as the same float, missing
empty, ``\\n`` line ends, UTF-8); the converter record of a converted dataset
(``source.json``: converter, its version, input, date); the missing-data policy; every change
from the defaults (none: "published defaults"); the scale and the ranking rule's tolerance.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import io
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config import Config, dump_config
from ..config.nodes import to_yaml_value
from ..scoring.ranks import RANK_RTOL

#: the converter record a converted dataset directory holds
SOURCE_FILE = "source.json"
FILE_BYTES = "file bytes as read"
CANONICAL_CONFIG = "canonical: the config as ml-peg-like's dump_config writes it (UTF-8)"
CANONICAL_RAW = (
    "canonical: long CSV model,benchmark,metric,value (board order, shortest round-trip "
    "floats, missing empty, LF, UTF-8)"
)
PUBLISHED_DEFAULTS = "published defaults"


def tool_version() -> str:
    """The installed ml-peg-like version ("unknown" when run from sources not installed)."""
    from importlib import metadata

    try:
        return metadata.version("ml-peg-like")
    except metadata.PackageNotFoundError:
        return "unknown"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_record(path: str | Path, data: bytes) -> dict[str, str]:
    """The record of a file read as ``data``: its path and the SHA-256 of those bytes."""
    return {"path": str(path), "sha256": sha256_hex(data), "hash_of": FILE_BYTES}


def canonical_config_bytes(cfg: Config) -> bytes:
    return dump_config(cfg).encode("utf-8")


def _value_text(v: float) -> str:
    if math.isnan(v):
        return ""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(float(v))


def canonical_raw_bytes(models, metric_ids, values) -> bytes:
    """The raw values as the canonical long CSV (see the module docstring)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["model", "benchmark", "metric", "value"])
    for i, m in enumerate(models):
        for j, (bench, metric) in enumerate(metric_ids):
            w.writerow([m, bench, metric, _value_text(float(values[i][j]))])
    return buf.getvalue().encode("utf-8")


def read_source_record(directory: str | Path) -> dict[str, Any] | None:
    """The converter record (``source.json``) of a dataset directory, None when it has none
    or it cannot be read as a JSON object (provenance never fails an export)."""
    p = Path(directory) / SOURCE_FILE
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def source_record(converter: str, inputs: Mapping[str, Any], now=None) -> dict[str, Any]:
    """What a converter writes into ``source.json``: converter, version, inputs, UTC date."""
    now = now or _dt.datetime.now(_dt.UTC)
    return {
        "converter": converter,
        "converter_version": f"ml-peg-like {tool_version()}",
        "inputs": {k: str(v) for k, v in inputs.items() if v is not None},
        "converted_utc": iso_utc(now),
    }


def iso_utc(when: _dt.datetime) -> str:
    return when.astimezone(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def missing_policy(cfg: Config) -> dict[str, Any]:
    """The missing-data policy: the default and each category's own (when it has one)."""
    out: dict[str, Any] = {"default": cfg.missing}
    own = {c.name: c.missing for c in cfg.categories if c.missing}
    if own:
        out["categories"] = own
    return out


def _changes(defaults: Config | None, cfg: Config) -> dict[str, dict[str, Any]]:
    if defaults is None:
        return {}
    return {
        path: {k: to_yaml_value(v) for k, v in change.items()}
        for path, change in defaults.diff(cfg).items()
    }


def build_provenance(
    cfg: Config,
    *,
    models=(),
    metric_ids=(),
    values=None,
    origin: Mapping[str, Any] | None = None,
    defaults: Config | None = None,
    scale: float | None = None,
    now: _dt.datetime | None = None,
) -> dict[str, Any]:
    """The provenance record of an export of ``cfg``'s scores.

    ``origin``: what was recorded when the files were read (``RawData.origin``: ``config``,
    ``raw`` file records, ``source``: the converter record); without one, the config (the
    defaults when given) and the raw values (``models`` x ``metric_ids`` -> ``values``) are
    hashed in their canonical form. ``defaults``: the config as read; the record lists every
    change from it to ``cfg``."""
    origin = origin or {}
    base = defaults if defaults is not None else cfg
    config = origin.get("config") or {
        "sha256": sha256_hex(canonical_config_bytes(base)),
        "hash_of": CANONICAL_CONFIG,
    }
    raw = origin.get("raw")
    if raw is None and values is not None:
        raw = {
            "sha256": sha256_hex(canonical_raw_bytes(models, metric_ids, values)),
            "hash_of": CANONICAL_RAW,
        }
    changes = _changes(defaults, cfg)
    return {
        "tool": "ml-peg-like",
        "tool_version": tool_version(),
        "created_utc": iso_utc(now or _dt.datetime.now(_dt.UTC)),
        "config": dict(config),
        "raw_data": dict(raw) if raw else None,
        "source": dict(origin["source"]) if origin.get("source") else None,
        "missing_data_policy": missing_policy(cfg),
        "settings": PUBLISHED_DEFAULTS if not changes else f"{len(changes)} changed from defaults",
        "changes_from_defaults": changes,
        "scale": float(scale if scale is not None else cfg.scale),
        "rank_rtol": RANK_RTOL,
    }


def baseline_record(defaults: Config | None, baseline: Config) -> dict[str, Any]:
    """The provenance's ``baseline`` entry of an export compared with a pinned view: its
    changes from the defaults (rank and score changes are against it)."""
    changes = _changes(defaults, baseline)
    return {
        "settings": PUBLISHED_DEFAULTS if not changes else f"{len(changes)} changed from defaults",
        "changes_from_defaults": changes,
    }


def provenance_of_scores(scores, *, origin=None, defaults=None, scale=None, now=None) -> dict:
    """:func:`build_provenance` of a :class:`~ml_peg_like.scoring.Scores` (its raw values
    are the canonical fallback when ``origin`` records no raw file)."""
    return build_provenance(
        scores.config,
        models=scores.models,
        metric_ids=scores.config.metric_ids(),
        values=scores.raw_values,
        origin=origin,
        defaults=defaults,
        scale=scale,
        now=now,
    )


def provenance_rows(prov: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The record as ``(key, value)`` rows (the XLSX sheet, comment blocks), nested keys
    joined with dots, in the record's order."""
    out: list[tuple[str, str]] = []

    def walk(prefix: str, v: Any) -> None:
        if isinstance(v, Mapping) and v:
            for k, x in v.items():
                walk(f"{prefix}.{k}" if prefix else str(k), x)
        else:
            out.append((prefix, _text(v)))

    walk("", prov)
    return out


def provenance_lines(prov: Mapping[str, Any]) -> list[str]:
    return [f"{k}: {v}" for k, v in provenance_rows(prov)]


def _text(v: Any) -> str:
    if v is None:
        return "(none)"
    if isinstance(v, Mapping):
        return "(none)" if not v else json.dumps(v, ensure_ascii=False)
    if isinstance(v, float):
        return repr(v)
    return " ".join(str(v).split())


def provenance_json(prov: Mapping[str, Any]) -> bytes:
    return (json.dumps(prov, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def comment_block(prov: Mapping[str, Any], mark: str) -> str:
    """The record as comment lines starting with ``mark`` (``%`` LaTeX, ``#`` YAML)."""
    lines = [f"{mark} Provenance (ml-peg-like)"]
    lines += [f"{mark}   {line}" for line in provenance_lines(prov)]
    return "\n".join(lines) + "\n"
