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


def config_from_dict(data: Any, source: str = "") -> Config:
    """Build and validate a Config from plain data (as loaded from YAML)."""
    problems: list[Problem] = []
    root = source or "config"
    if not isinstance(data, Mapping):
        raise ConfigError([Problem(root, "expected a mapping with a 'categories' key")])
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
    cats_raw = data.get("categories")
    categories: list[Category] = []
    bench_seen: dict[str, str] = {}
    if not isinstance(cats_raw, Mapping) or not cats_raw:
        problems.append(Problem("categories", "expected a non-empty mapping of categories"))
        cats_raw = {}
    for ckey, craw in cats_raw.items():
        cname = parse_name(ckey, f"categories.{ckey}", problems)
        if cname is None:
            continue
        cw = cname
        if not isinstance(craw, Mapping):
            problems.append(Problem(cw, "expected a mapping with 'benchmarks'"))
            continue
        check_keys(
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
            bname = parse_name(bkey, f"{cw}.benchmarks.{bkey}", problems)
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
            check_keys(
                braw, {"weight", "description", "metrics", "meta"}, bw, problems, "benchmark"
            )
            metrics_raw = braw.get("metrics")
            metrics: list[Metric] = []
            if not isinstance(metrics_raw, Mapping) or not metrics_raw:
                problems.append(Problem(f"{bw}.metrics", "expected a non-empty mapping of metrics"))
                metrics_raw = {}
            for mkey, mraw in metrics_raw.items():
                mname = parse_name(mkey, f"{bw}.metrics.{mkey}", problems)
                if mname is None:
                    continue
                m = parse_metric(mname, mraw, f"{bw}/{mname}", problems)
                if m is not None:
                    metrics.append(m)
            bweight = parse_weight(braw.get("weight", 1.0), f"{bw}.weight", problems)
            if metrics and bweight is not None:
                benchmarks.append(
                    Benchmark(
                        name=bname,
                        metrics=tuple(metrics),
                        weight=bweight,
                        description=parse_text(
                            braw.get("description"), f"{bw}.description", problems
                        ),
                        meta=parse_meta(braw.get("meta"), f"{bw}.meta", problems),
                    )
                )
        cweight = parse_weight(craw.get("weight", 1.0), f"{cw}.weight", problems)
        cmissing = parse_missing(craw.get("missing"), f"{cw}.missing", problems)
        if benchmarks and cweight is not None:
            categories.append(
                Category(
                    name=cname,
                    benchmarks=tuple(benchmarks),
                    weight=cweight,
                    description=parse_text(craw.get("description"), f"{cw}.description", problems),
                    missing=cmissing,
                    meta=parse_meta(craw.get("meta"), f"{cw}.meta", problems),
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
    vetoes = parse_vetoes(data.get("vetoes"), cfg, problems)
    if problems:
        raise ConfigError(problems)
    return replace(cfg, presets=presets, vetoes=vetoes)
