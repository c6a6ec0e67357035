"""ML-PEG -> native dataset.

Reads ML-PEG's app tables (``<category>/<benchmark>/*_table.json``: ``data`` rows with ``MLIP``,
``id``, one key per metric and ML-PEG's own ``Score``; ``thresholds`` {metric: {good, bad, unit,
level_of_theory}}; ``weights``; ``tooltip_header``; ...), optionally ML-PEG's app config
(``configs/app/<category>/<category>.yml``: title, description, weight, benchmark_weights; and
``utils/weight_presets.yml``) and analysis config (``configs/analysis/<category>/<benchmark>/
metrics.yml``: good, bad, unit, weight, tooltip, level_of_theory).

ML-PEG's scoring (normalised = clip((value - bad) / (good - bad), 0, 1), weighted means, a
missing child with weight > 0 makes its parent missing) is the engine's ``linear`` normaliser
with ``missing: invalidate``, so the converted dataset reproduces every stored ``Score``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataError, MlPegLikeError, Problem
from ..scoring import score
from .common import (
    NOT_A_NUMBER,
    Converted,
    Reporter,
    as_number,
    clean_name,
    read_json_file,
    read_mapping,
)
from .mlpeg_configs import (
    AppConfig,
    CategoryNames,
    analysis_index,
    analysis_metric,
    level_of_theory,
    metric_dict,
    mlpeg_config_from_analysis,
    read_metrics_yml,
    text_value,
    threshold_value,
    tooltip_text,
    weight_value,
)

__all__ = ["compare_stored_scores", "mlpeg_config_from_analysis", "mlpeg_to_dataset"]

RESERVED_COLUMNS = {"MLIP", "id", "Score"}


# ------------------------------------------------------------------------------------------------
# Tables -> dataset
# ------------------------------------------------------------------------------------------------


def find_tables(src: Path) -> list[Path]:
    return sorted(p for p in src.rglob("*_table.json") if p.is_file())


def _mapping(value: Any) -> Mapping:
    return value if isinstance(value, Mapping) else {}


@dataclass
class _Models:
    """What the rows of every table say about the models, in the order they first appear."""

    order: list[str] = field(default_factory=list)
    display: dict[str, Counter] = field(default_factory=dict)
    level_of_theory: dict[str, str] = field(default_factory=dict)
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, model: str) -> None:
        if model not in self.display:
            self.display[model] = Counter()
            self.order.append(model)

    def seen_as(self, model: str, mlip: str, table: _Table) -> None:
        """The row of ``model`` names it ``mlip``: a display name, and what the table's
        ``model_levels_of_theory`` and ``model_configs`` say of ``mlip``."""
        self.display[model][mlip] += 1
        lot = text_value(table.model_lots.get(mlip))
        if lot is not None:
            self.level_of_theory.setdefault(model, lot)
        mc = table.model_configs.get(mlip)
        if isinstance(mc, Mapping) and model not in self.meta:
            self.meta[model] = model_config_attributes(mc)

    def attributes(self) -> list[dict[str, Any]]:
        models = []
        for m in self.order:
            attrs: dict[str, Any] = {"model": m}
            if self.display[m]:
                # the most frequent MLIP name (tables may add a suffix such as -D3)
                attrs["display_name"] = self.display[m].most_common(1)[0][0]
            attrs["level_of_theory"] = self.level_of_theory.get(m)
            attrs.update(self.meta.get(m, {}))
            models.append(attrs)
        return models


@dataclass
class _Table:
    """One ``*_table.json``: its parts that the converter reads, each of the expected type."""

    path: Path
    doc: Mapping
    thresholds: Mapping
    data: list
    weights: Mapping
    tooltips: Mapping
    metric_lots: Mapping
    model_lots: Mapping
    model_configs: Mapping


def _read_table(path: Path, reporter: Reporter) -> _Table | None:
    """The table at ``path``, or None (reported) when it is not an object with a
    ``thresholds`` object and a ``data`` list (either may be absent)."""
    doc = read_mapping(
        read_json_file, path, reporter, "expected a JSON object with 'data' and 'thresholds'"
    )
    if doc is None:
        return None
    thresholds = doc.get("thresholds")
    thresholds = {} if thresholds is None else thresholds
    if not isinstance(thresholds, Mapping):
        reporter.malformed(path, "'thresholds' is not an object")
        return None
    data = doc.get("data")
    data = [] if data is None else data
    if not isinstance(data, list):
        reporter.malformed(path, "'data' is not a list of rows")
        return None
    return _Table(
        path=path,
        doc=doc,
        thresholds=thresholds,
        data=data,
        weights=_mapping(doc.get("weights")),
        tooltips=_mapping(doc.get("tooltip_header")),
        metric_lots=_mapping(doc.get("metric_levels_of_theory")),
        model_lots=_mapping(doc.get("model_levels_of_theory")),
        model_configs=_mapping(doc.get("model_configs")),
    )


def _data_columns(table: _Table) -> set[str]:
    return {k for r in table.data if isinstance(r, Mapping) for k in r} - RESERVED_COLUMNS


def _metric_order(table: _Table, ana: Mapping | None) -> list[str]:
    """The table's column order, then the remaining thresholds, then the columns that have data
    but no threshold in the table when metrics.yml gives them one."""
    order: list[str] = []
    for col in table.doc.get("columns") or []:
        cid = col.get("id", col.get("name")) if isinstance(col, Mapping) else col
        if isinstance(cid, str) and cid in table.thresholds and cid not in order:
            order.append(cid)
    order += [str(k) for k in table.thresholds if str(k) not in order]
    if ana:
        data_cols = _data_columns(table)
        order += [k for k in ana if k in data_cols and k not in order]
    return order


def _optional_threshold(t: Mapping, which: str, where: str, reporter: Reporter) -> float | None:
    value = t.get(which)
    return threshold_value(value, f"{where}.{which}", reporter) if value is not None else None


def _table_settings(table: _Table, key: str, where: str, reporter: Reporter) -> dict[str, Any]:
    """What the table says of metric ``key``: thresholds, weight, unit, description and
    level of theory (``meta``)."""
    t = _mapping(table.thresholds.get(key))
    base: dict[str, Any] = {
        "good": _optional_threshold(t, "good", where, reporter),
        "bad": _optional_threshold(t, "bad", where, reporter),
        "weight": weight_value(
            table.weights.get(key, t.get("weight")), f"{where}.weight", reporter
        ),
        "unit": text_value(t.get("unit")),
        "description": tooltip_text(table.tooltips.get(key)),
    }
    lot = level_of_theory(t) or text_value(table.metric_lots.get(key))
    if lot is not None:
        base["meta"] = {"level_of_theory": lot}
    return base


def _metric_from_table(base: Mapping[str, Any], where: str, reporter: Reporter):
    """The metric settings of ``base`` alone, or None (reported) without usable thresholds."""
    if base["good"] is None or base["bad"] is None:
        reporter.warn(where, "no good/bad thresholds: metric skipped")
        return None
    if base["good"] == base["bad"]:
        reporter.warn(where, f"good and bad are equal ({base['good']:g}): metric skipped")
        return None
    lot = base.get("meta", {}).get("level_of_theory")
    return metric_dict(
        base["good"], base["bad"], base["weight"], base["unit"], base["description"], lot
    )


@dataclass
class _Analysis:
    """metrics.yml of one benchmark (``settings`` None when there is none)."""

    path: Path | None
    settings: Mapping[str, Mapping[str, Any]] | None


def _table_metrics(
    table: _Table, ana: _Analysis, reporter: Reporter
) -> tuple[dict[str, Any], dict[str, str]]:
    """(metric settings by config name, key in the rows by config name); metrics.yml, when
    it has the metric, overrides the table's settings."""
    metrics: dict[str, Any] = {}
    metric_keys: dict[str, str] = {}
    for key in _metric_order(table, ana.settings):
        where = f"{table.path}: {key}"
        name = clean_name(key, where, reporter)
        if name is None or name in metrics:
            continue
        base = _table_settings(table, key, where, reporter)
        if ana.settings is not None and key in ana.settings:
            md = analysis_metric(ana.settings[key], base, f"{ana.path}: {key}", reporter)
        else:
            md = _metric_from_table(base, where, reporter)
        if md is not None:
            metrics[name] = md
            metric_keys[name] = key
    return metrics, metric_keys


def _warn_unused(
    table: _Table, ana: _Analysis, metric_keys: dict[str, str], reporter: Reporter
) -> None:
    """Metrics of metrics.yml not in the table, and columns of the table without thresholds."""
    used = set(metric_keys.values())
    if ana.settings is not None:
        for k in ana.settings:
            if k not in used:
                reporter.warn(
                    ana.path, f"metric {k!r} is not in the table {table.path.name}: ignored"
                )
    extra = sorted({str(k) for k in _data_columns(table)} - used)
    if extra and metric_keys:
        shown = ", ".join(repr(k) for k in extra[:5]) + (" ..." if len(extra) > 5 else "")
        reporter.warn(table.path, f"column(s) without thresholds ignored: {shown}")


@dataclass
class _Collected:
    """The rows of every table: values, ML-PEG's stored scores and the models."""

    rows: list[tuple[str, str, str, float | None]] = field(default_factory=list)
    stored: dict[tuple[str, str], float | None] = field(default_factory=dict)
    models: _Models = field(default_factory=_Models)


def _row_model(row: Any, i: int, path: Path, reporter: Reporter) -> str | None:
    """The model of ``data[i]`` (its ``id``, else its ``MLIP``), or None (reported)."""
    if not isinstance(row, Mapping):
        reporter.warn(path, f"data[{i}] is not an object: skipped")
        return None
    ident = row.get("id") if text_value(row.get("id")) is not None else row.get("MLIP")
    model = clean_name(ident, f"{path}: data[{i}].id", reporter) if ident is not None else None
    if model is None:
        reporter.warn(path, f"data[{i}] has no 'id' or 'MLIP': skipped")
    return model


def _read_rows(
    table: _Table, bname: str, metric_keys: dict[str, str], out: _Collected, reporter: Reporter
) -> None:
    """The values and stored ``Score`` of each row of ``table`` (benchmark ``bname``)."""
    seen: set[str] = set()
    not_numbers: list[str] = []
    for i, row in enumerate(table.data):
        model = _row_model(row, i, table.path, reporter)
        if model is None:
            continue
        if model in seen:
            reporter.warn(table.path, f"model {model!r} appears twice: the second row is skipped")
            continue
        seen.add(model)
        out.models.add(model)
        mlip = text_value(row.get("MLIP"))
        if mlip is not None:
            out.models.seen_as(model, mlip, table)
        for name, key in metric_keys.items():
            v = as_number(row.get(key))
            if v is NOT_A_NUMBER:
                not_numbers.append(f"{model}/{key}={row.get(key)!r}"[:80])
                v = None
            out.rows.append((model, bname, name, v))
        s = as_number(row.get("Score"))
        out.stored[(model, bname)] = None if s is NOT_A_NUMBER else s
    if not_numbers:
        reporter.warn(
            table.path,
            f"{len(not_numbers)} non-numeric value(s) read as missing (e.g. {not_numbers[0]})",
        )


class _AnalysisFiles:
    """metrics.yml by (category folder, benchmark folder), else by benchmark folder alone."""

    def __init__(self, thresholds_dir: str | Path | None, reporter: Reporter):
        self.by_pair = analysis_index(thresholds_dir)
        self.by_bench: dict[str, Path] = {}
        for (_c, b), p in self.by_pair.items():
            self.by_bench.setdefault(b, p)
        self.reporter = reporter

    def of(self, cfolder: str, bfolder: str) -> _Analysis:
        path = self.by_pair.get((cfolder, bfolder)) or self.by_bench.get(bfolder)
        settings = read_metrics_yml(path, self.reporter) if path is not None else None
        return _Analysis(path, settings)


def _check_source(src: Path) -> None:
    if not src.is_dir():
        raise DataError(
            [Problem(str(src), "not a directory of <category>/<benchmark>/*_table.json")]
        )


def _source_tables(src: Path) -> list[Path]:
    tables = find_tables(src)
    if not tables:
        raise DataError(
            [
                Problem(
                    str(src), "no *_table.json found (expected <category>/<benchmark>/*_table.json)"
                )
            ]
        )
    return tables


def _convert_table(
    table: _Table, ana: _Analysis, cats: CategoryNames, out: _Collected, reporter: Reporter
) -> None:
    """One benchmark from ``table``: its metrics into ``cats``, its rows into ``out``."""
    metrics, metric_keys = _table_metrics(table, ana, reporter)
    _warn_unused(table, ana, metric_keys, reporter)
    if not metrics:
        reporter.warn(table.path, "no metric with thresholds: benchmark skipped")
        return
    desc = text_value(table.doc.get("description"))
    fields: dict[str, Any] = {"description": desc} if desc else {}
    bfolder, cfolder = table.path.parent.name, table.path.parent.parent.name
    bname = cats.add_benchmark(cfolder, bfolder, table.path, {**fields, "metrics": metrics})
    _read_rows(table, bname, metric_keys, out, reporter)


def mlpeg_to_dataset(
    src: str | Path,
    *,
    app_dir: str | Path | None = None,
    thresholds_dir: str | Path | None = None,
    strict: bool = False,
) -> Converted:
    """Convert ML-PEG app tables under ``src`` (``<category>/<benchmark>/*_table.json``)."""
    reporter = Reporter(strict)
    src = Path(src)
    _check_source(src)
    cats = CategoryNames(AppConfig(app_dir, reporter), reporter)
    analysis = _AnalysisFiles(thresholds_dir, reporter)
    tables = _source_tables(src)
    out = _Collected()
    used_folders: dict[Path, Path] = {}
    for path in tables:
        if path.parent in used_folders:
            first = used_folders[path.parent].name
            reporter.warn(
                path,
                f"a second table for benchmark {path.parent.name!r} (first: {first}): skipped",
            )
            continue
        table = _read_table(path, reporter)
        if table is None:
            continue
        used_folders[path.parent] = path
        ana = analysis.of(path.parent.parent.name, path.parent.name)
        _convert_table(table, ana, cats, out, reporter)

    reporter.raise_errors()
    if not cats.categories:
        raise DataError([Problem(str(src), "no table with usable metrics")])
    return Converted(
        config=cats.config(f"Converted from ML-PEG app tables ({src.name})"),
        rows=out.rows,
        models=out.models.attributes(),
        warnings=reporter.warnings,
        info={"stored_scores": out.stored},
    )


def model_config_attributes(mc: Mapping) -> dict[str, Any]:
    """models.csv attributes from a table's ``model_configs`` entry: the calculator
    (``module.class_name``), the checkpoint it loads, whether it was trained on dispersion and
    the dispersion correction's label (``dispersion_kwargs.label``). Only what the file
    states: nothing is guessed from the name."""
    out: dict[str, Any] = {}
    module, cls = text_value(mc.get("module")), text_value(mc.get("class_name"))
    if module or cls:
        out["calculator"] = ".".join(p for p in (module, cls) if p)
    kwargs = mc.get("kwargs") if isinstance(mc.get("kwargs"), Mapping) else {}
    ckpt = text_value(mc.get("load_path")) or next(
        (text_value(kwargs.get(k)) for k in ("model", "name", "model_name") if kwargs.get(k)),
        None,
    )
    if ckpt:
        out["checkpoint"] = ckpt
    if isinstance(mc.get("trained_on_dispersion"), bool):
        out["trained_on_dispersion"] = str(mc["trained_on_dispersion"]).lower()
    disp = mc.get("dispersion_kwargs")
    if isinstance(disp, Mapping) and text_value(disp.get("label")):
        out["dispersion"] = text_value(disp.get("label"))
    return out


def compare_stored_scores(conv: Converted, tol: float = 1e-9):
    """Score ``conv`` with the engine and compare with ML-PEG's stored ``Score`` of each table.

    Returns (n compared, n missing on both sides, [mismatch descriptions], max abs difference).
    """
    cfg, raw = conv.build()
    res = score(raw, cfg)
    bench = res.benchmarks
    n = both_missing = 0
    max_diff = 0.0
    mismatches: list[str] = []
    for (model, b), stored in conv.info.get("stored_scores", {}).items():
        if model not in bench.index or b not in bench.columns:
            continue
        ours = float(bench.loc[model, b])
        n += 1
        if stored is None or (isinstance(stored, float) and math.isnan(stored)):
            if math.isnan(ours):
                both_missing += 1
            else:
                mismatches.append(f"{b}/{model}: ML-PEG has no Score, ours is {ours:.6g}")
            continue
        if math.isnan(ours):
            mismatches.append(f"{b}/{model}: ML-PEG Score {stored:.6g}, ours is missing")
            continue
        d = abs(ours - stored)
        max_diff = max(max_diff, d)
        if d > tol:
            mismatches.append(f"{b}/{model}: ML-PEG Score {stored:.10g}, ours {ours:.10g}")
    return n, both_missing, mismatches, max_diff


def stored_scores_report(conv: Converted) -> list[str]:
    """Lines comparing the converted data's scores with the Score ML-PEG stored in each table."""
    try:
        n, n_missing_ok, mismatches, max_diff = compare_stored_scores(conv)
    except MlPegLikeError:  # the dataset does not load: write_dataset reports why
        return []
    if not n:
        return []
    line = f"ML-PEG stored Score: {n - len(mismatches)}/{n} model-benchmark scores reproduced"
    line += f" (max |difference| {max_diff:.3g}; {n_missing_ok} missing on both sides)"
    out = [line]
    for m in mismatches[:10]:
        out.append(f"  differs: {m}")
    if mismatches:
        out.append("  (expected when --thresholds changes the tables' thresholds or weights)")
    return out
