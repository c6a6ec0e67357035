"""Plain data (as loaded from YAML) -> a validated :class:`Config`, every problem at once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..aggregation import DEFAULT_POLICY
from ..errors import ConfigError, Problem
from .fields import (
    check_keys,
    parse_meta,
    parse_metric,
    parse_missing,
    parse_name,
    parse_number,
    parse_text,
    parse_weight,
)
from .model import Config
from .nodes import Benchmark, Category, Metric
from .vetoes import parse_vetoes


def _top_level(data: Mapping, problems: list[Problem]) -> dict[str, Any]:
    """The config's own fields: title, description, missing-data policy and scale."""
    check_keys(
        data,
        {"title", "description", "missing", "scale", "categories", "presets", "vetoes"},
        "",
        problems,
        "config",
    )
    problems[:] = [Problem(p.where.lstrip("."), p.message) for p in problems]
    title = parse_text(data.get("title"), "title", problems) or "Benchmark"
    description = parse_text(data.get("description"), "description", problems)
    missing = (
        parse_missing(data.get("missing", DEFAULT_POLICY), "missing", problems) or DEFAULT_POLICY
    )
    scale = parse_number(data.get("scale", 1), "scale", problems)
    if scale is not None and scale not in (1.0, 100.0):
        problems.append(Problem("scale", f"expected 1 or 100, got {scale:g}"))
    return {"title": title, "description": description, "missing": missing, "scale": scale or 1.0}


def _children(raw: Any, where: str, what: str, problems: list[Problem]) -> Mapping:
    """``raw`` when it is a non-empty mapping; else an empty one (reported)."""
    if not isinstance(raw, Mapping) or not raw:
        problems.append(Problem(where, f"expected a non-empty mapping of {what}"))
        return {}
    return raw


def _parse_metrics(bw: str, metrics_raw: Any, problems: list[Problem]) -> list[Metric]:
    metrics: list[Metric] = []
    for mkey, mraw in _children(metrics_raw, f"{bw}.metrics", "metrics", problems).items():
        mname = parse_name(mkey, f"{bw}.metrics.{mkey}", problems)
        if mname is None:
            continue
        m = parse_metric(mname, mraw, f"{bw}/{mname}", problems)
        if m is not None:
            metrics.append(m)
    return metrics


def _parse_benchmark(
    cname: str, bkey: Any, braw: Any, bench_seen: dict[str, str], problems: list[Problem]
) -> Benchmark | None:
    """One benchmark of category ``cname``; ``bench_seen``: benchmark name -> its category
    (benchmark names are unique in a config)."""
    bname = parse_name(bkey, f"{cname}.benchmarks.{bkey}", problems)
    if bname is None:
        return None
    bw = f"{cname}/{bname}"
    if bname in bench_seen:
        problems.append(
            Problem(bw, f"benchmark names must be unique: also in category '{bench_seen[bname]}'")
        )
        return None
    bench_seen[bname] = cname
    if not isinstance(braw, Mapping):
        problems.append(Problem(bw, "expected a mapping with 'metrics'"))
        return None
    check_keys(braw, {"weight", "description", "metrics", "meta"}, bw, problems, "benchmark")
    metrics = _parse_metrics(bw, braw.get("metrics"), problems)
    bweight = parse_weight(braw.get("weight", 1.0), f"{bw}.weight", problems)
    if not metrics or bweight is None:
        return None
    return Benchmark(
        name=bname,
        metrics=tuple(metrics),
        weight=bweight,
        description=parse_text(braw.get("description"), f"{bw}.description", problems),
        meta=parse_meta(braw.get("meta"), f"{bw}.meta", problems),
    )


def _parse_category(
    ckey: Any, craw: Any, bench_seen: dict[str, str], problems: list[Problem]
) -> Category | None:
    cname = parse_name(ckey, f"categories.{ckey}", problems)
    if cname is None:
        return None
    cw = cname
    if not isinstance(craw, Mapping):
        problems.append(Problem(cw, "expected a mapping with 'benchmarks'"))
        return None
    check_keys(
        craw, {"weight", "description", "missing", "benchmarks", "meta"}, cw, problems, "category"
    )
    benchmarks: list[Benchmark] = []
    benches_raw = _children(craw.get("benchmarks"), f"{cw}.benchmarks", "benchmarks", problems)
    for bkey, braw in benches_raw.items():
        b = _parse_benchmark(cname, bkey, braw, bench_seen, problems)
        if b is not None:
            benchmarks.append(b)
    cweight = parse_weight(craw.get("weight", 1.0), f"{cw}.weight", problems)
    cmissing = parse_missing(craw.get("missing"), f"{cw}.missing", problems)
    if not benchmarks or cweight is None:
        return None
    return Category(
        name=cname,
        benchmarks=tuple(benchmarks),
        weight=cweight,
        description=parse_text(craw.get("description"), f"{cw}.description", problems),
        missing=cmissing,
        meta=parse_meta(craw.get("meta"), f"{cw}.meta", problems),
    )


def _parse_categories(cats_raw: Any, problems: list[Problem]) -> list[Category]:
    categories: list[Category] = []
    bench_seen: dict[str, str] = {}
    for ckey, craw in _children(cats_raw, "categories", "categories", problems).items():
        c = _parse_category(ckey, craw, bench_seen, problems)
        if c is not None:
            categories.append(c)
    return categories


def _check_key_paths(cfg: Config, problems: list[Problem]) -> None:
    """Every full key path must name one node."""
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


def _parse_presets(
    presets_raw: Any, cfg: Config, problems: list[Problem]
) -> dict[str, dict[str, dict[str, Any]]]:
    """Presets: name -> changes, each change set valid for ``cfg``."""
    presets_raw = presets_raw or {}
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
    return presets


def config_from_dict(data: Any, source: str = "") -> Config:
    """Build and validate a Config from plain data (as loaded from YAML)."""
    problems: list[Problem] = []
    root = source or "config"
    if not isinstance(data, Mapping):
        raise ConfigError([Problem(root, "expected a mapping with a 'categories' key")])
    fields = _top_level(data, problems)
    categories = _parse_categories(data.get("categories"), problems)
    if problems:
        raise ConfigError(problems)
    cfg = Config(categories=tuple(categories), **fields)
    _check_key_paths(cfg, problems)
    presets = _parse_presets(data.get("presets"), cfg, problems)
    vetoes = parse_vetoes(data.get("vetoes"), cfg, problems)
    if problems:
        raise ConfigError(problems)
    return replace(cfg, presets=presets, vetoes=vetoes)
