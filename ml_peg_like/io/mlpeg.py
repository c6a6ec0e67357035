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
    if not src.is_dir():
        raise DataError(
            [Problem(str(src), "not a directory of <category>/<benchmark>/*_table.json")]
        )
    app = AppConfig(app_dir, reporter)
    cats = CategoryNames(app, reporter)
    analysis = analysis_index(thresholds_dir)
    analysis_by_bench: dict[str, Path] = {}
    for (_c, b), p in analysis.items():
        analysis_by_bench.setdefault(b, p)

    tables = find_tables(src)
    if not tables:
        raise DataError(
            [
                Problem(
                    str(src), "no *_table.json found (expected <category>/<benchmark>/*_table.json)"
                )
            ]
        )

    rows: list[tuple[str, str, str, float | None]] = []
    stored: dict[tuple[str, str], float | None] = {}
    display: dict[str, Counter] = {}
    lot_of_model: dict[str, str] = {}
    meta_of_model: dict[str, dict[str, Any]] = {}
    model_order: list[str] = []
    used_folders: dict[Path, Path] = {}

    for path in tables:
        bfolder = path.parent.name
        cfolder = path.parent.parent.name
        if path.parent in used_folders:
            reporter.warn(
                path,
                f"a second table for benchmark {bfolder!r} (first: {used_folders[path.parent].name}): skipped",
            )
            continue
        table = read_mapping(
            read_json_file, path, reporter, "expected a JSON object with 'data' and 'thresholds'"
        )
        if table is None:
            continue
        used_folders[path.parent] = path

        # -- metrics
        thresholds = table.get("thresholds")
        if thresholds is None:
            thresholds = {}
        if not isinstance(thresholds, Mapping):
            reporter.malformed(path, "'thresholds' is not an object")
            continue
        weights = table.get("weights") if isinstance(table.get("weights"), Mapping) else {}
        tooltips = (
            table.get("tooltip_header") if isinstance(table.get("tooltip_header"), Mapping) else {}
        )
        mlots = table.get("metric_levels_of_theory")
        mlots = mlots if isinstance(mlots, Mapping) else {}
        data = table.get("data")
        if data is None:
            data = []
        if not isinstance(data, list):
            reporter.malformed(path, "'data' is not a list of rows")
            continue

        ana_path = analysis.get((cfolder, bfolder)) or analysis_by_bench.get(bfolder)
        ana = read_metrics_yml(ana_path, reporter) if ana_path is not None else None

        # metric order: the table's column order, then the remaining thresholds
        order: list[str] = []
        for col in table.get("columns") or []:
            cid = col.get("id", col.get("name")) if isinstance(col, Mapping) else col
            if isinstance(cid, str) and cid in thresholds and cid not in order:
                order.append(cid)
        order += [str(k) for k in thresholds if str(k) not in order]
        if ana:
            # a column that has data but no threshold in the table may get one from metrics.yml
            data_cols = {k for r in data if isinstance(r, Mapping) for k in r} - RESERVED_COLUMNS
            order += [k for k in ana if k in data_cols and k not in order]

        metrics: dict[str, Any] = {}
        metric_keys: dict[str, str] = {}  # config name -> key in the rows
        for key in order:
            where = f"{path}: {key}"
            name = clean_name(key, where, reporter)
            if name is None or name in metrics:
                continue
            t = thresholds.get(key)
            t = t if isinstance(t, Mapping) else {}
            base: dict[str, Any] = {
                "good": threshold_value(t.get("good"), f"{where}.good", reporter)
                if t.get("good") is not None
                else None,
                "bad": threshold_value(t.get("bad"), f"{where}.bad", reporter)
                if t.get("bad") is not None
                else None,
                "weight": weight_value(
                    weights.get(key, t.get("weight")), f"{where}.weight", reporter
                ),
                "unit": text_value(t.get("unit")),
                "description": tooltip_text(tooltips.get(key)),
            }
            lot = level_of_theory(t) or text_value(mlots.get(key))
            if lot is not None:
                base["meta"] = {"level_of_theory": lot}
            if ana is not None and key in ana:
                md = analysis_metric(ana[key], base, f"{ana_path}: {key}", reporter)
            else:
                if base["good"] is None or base["bad"] is None:
                    reporter.warn(where, "no good/bad thresholds: metric skipped")
                    continue
                if base["good"] == base["bad"]:
                    reporter.warn(
                        where, f"good and bad are equal ({base['good']:g}): metric skipped"
                    )
                    continue
                md = metric_dict(
                    base["good"],
                    base["bad"],
                    base["weight"],
                    base["unit"],
                    base["description"],
                    lot,
                )
            if md is not None:
                metrics[name] = md
                metric_keys[name] = key
        if ana is not None:
            for k in ana:
                if k not in metric_keys.values():
                    reporter.warn(
                        ana_path, f"metric {k!r} is not in the table {path.name}: ignored"
                    )
        extra = sorted(
            {str(k) for r in data if isinstance(r, Mapping) for k in r}
            - RESERVED_COLUMNS
            - set(metric_keys.values())
        )
        if extra and metrics:
            shown = ", ".join(repr(k) for k in extra[:5]) + (" ..." if len(extra) > 5 else "")
            reporter.warn(path, f"column(s) without thresholds ignored: {shown}")
        if not metrics:
            reporter.warn(path, "no metric with thresholds: benchmark skipped")
            continue

        desc = text_value(table.get("description"))
        fields: dict[str, Any] = {"description": desc} if desc else {}
        bname = cats.add_benchmark(cfolder, bfolder, path, {**fields, "metrics": metrics})

        # -- rows
        mlots_model = table.get("model_levels_of_theory")
        mlots_model = mlots_model if isinstance(mlots_model, Mapping) else {}
        model_configs = table.get("model_configs")
        model_configs = model_configs if isinstance(model_configs, Mapping) else {}
        seen_models: set[str] = set()
        not_numbers: list[str] = []
        for i, row in enumerate(data):
            if not isinstance(row, Mapping):
                reporter.warn(path, f"data[{i}] is not an object: skipped")
                continue
            ident = row.get("id") if text_value(row.get("id")) is not None else row.get("MLIP")
            model = (
                clean_name(ident, f"{path}: data[{i}].id", reporter) if ident is not None else None
            )
            if model is None:
                reporter.warn(path, f"data[{i}] has no 'id' or 'MLIP': skipped")
                continue
            if model in seen_models:
                reporter.warn(path, f"model {model!r} appears twice: the second row is skipped")
                continue
            seen_models.add(model)
            if model not in display:
                display[model] = Counter()
                model_order.append(model)
            mlip = text_value(row.get("MLIP"))
            if mlip is not None:
                display[model][mlip] += 1
                lot = text_value(mlots_model.get(mlip))
                if lot is not None:
                    lot_of_model.setdefault(model, lot)
                mc = model_configs.get(mlip)
                if isinstance(mc, Mapping) and model not in meta_of_model:
                    meta_of_model[model] = model_config_attributes(mc)
            for name, key in metric_keys.items():
                v = as_number(row.get(key))
                if v is NOT_A_NUMBER:
                    not_numbers.append(f"{model}/{key}={row.get(key)!r}"[:80])
                    v = None
                rows.append((model, bname, name, v))
            s = as_number(row.get("Score"))
            stored[(model, bname)] = None if s is NOT_A_NUMBER else s
        if not_numbers:
            reporter.warn(
                path,
                f"{len(not_numbers)} non-numeric value(s) read as missing (e.g. {not_numbers[0]})",
            )

    reporter.raise_errors()
    if not cats.categories:
        raise DataError([Problem(str(src), "no table with usable metrics")])
    config = cats.config(f"Converted from ML-PEG app tables ({src.name})")
    models = []
    for m in model_order:
        attrs: dict[str, Any] = {"model": m}
        if display[m]:
            # the most frequent MLIP name (tables may add a suffix such as -D3)
            attrs["display_name"] = display[m].most_common(1)[0][0]
        attrs["level_of_theory"] = lot_of_model.get(m)
        attrs.update(meta_of_model.get(m, {}))
        models.append(attrs)
    return Converted(
        config=config,
        rows=rows,
        models=models,
        warnings=reporter.warnings,
        info={"stored_scores": stored},
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
