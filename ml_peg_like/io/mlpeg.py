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

from ..cli_convert import (
    NOT_A_NUMBER,
    Converted,
    Reporter,
    as_number,
    clean_name,
    read_json_file,
    read_yaml_file,
)
from ..errors import DataError, Problem

RESERVED_COLUMNS = {"MLIP", "id", "Score"}


# ------------------------------------------------------------------------------------------------
# Metric settings
# ------------------------------------------------------------------------------------------------


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str | int | float):
        text = str(value).strip()
        return text or None
    return None


def _tooltip(value: Any) -> str | None:
    """A tooltip_header entry: ``{"value": "...", "type": "markdown"}`` or plain text."""
    if isinstance(value, Mapping):
        value = value.get("value")
    return _text(value)


def _lot(entry: Mapping) -> str | None:
    """level_of_theory, also when spelled ``level of theory`` (as in one ML-PEG file)."""
    for key in ("level_of_theory", "level of theory", "level-of-theory"):
        if key in entry and _text(entry[key]) is not None:
            return _text(entry[key])
    return None


def _metric_dict(
    good: float,
    bad: float,
    weight: float,
    unit: str | None,
    description: str | None,
    lot: str | None,
) -> dict[str, Any]:
    d: dict[str, Any] = {"good": good, "bad": bad, "weight": weight}
    if unit is not None:
        d["unit"] = unit
    if description is not None:
        d["description"] = description
    if lot is not None:
        d["meta"] = {"level_of_theory": lot}
    return d


def _threshold(value: Any, where: str, reporter: Reporter) -> float | None:
    v = as_number(value)
    if v is NOT_A_NUMBER:
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                pass
        reporter.warn(where, f"threshold {value!r} is not a number")
        return None
    if v is not None and math.isinf(v):
        reporter.warn(where, "infinite threshold")
        return None
    return v


def _weight(value: Any, where: str, reporter: Reporter, default: float = 1.0) -> float:
    if value is None:
        return default
    v = as_number(value)
    if v is NOT_A_NUMBER and isinstance(value, str):
        try:
            v = float(value.strip())
        except ValueError:
            v = NOT_A_NUMBER
    if v is NOT_A_NUMBER or v is None or not math.isfinite(v) or v < 0:
        reporter.warn(where, f"weight {value!r} is not a number >= 0: {default:g} used")
        return default
    return v


# ------------------------------------------------------------------------------------------------
# ML-PEG app config (categories) and analysis config (metrics.yml)
# ------------------------------------------------------------------------------------------------


class AppConfig:
    """``configs/app``: category titles, descriptions, weights, benchmark weights; presets."""

    def __init__(self, app_dir: str | Path | None, reporter: Reporter):
        self.categories: dict[str, dict[str, Any]] = {}
        self.presets: dict[str, list[str]] = {}
        self.reporter = reporter
        self.dir = Path(app_dir) if app_dir is not None else None
        if self.dir is None:
            return
        if not self.dir.is_dir():
            raise DataError([Problem(str(self.dir), "--app-config: not a directory")])
        for sub in sorted(p for p in self.dir.iterdir() if p.is_dir()):
            f = sub / f"{sub.name}.yml"
            if not f.is_file():
                alt = sub / f"{sub.name}.yaml"
                if not alt.is_file():
                    continue
                f = alt
            data = read_yaml_file(f, reporter)
            if data is None:
                continue
            if not isinstance(data, Mapping):
                reporter.malformed(f, "expected a mapping with title, description, weight")
                continue
            self.categories[sub.name] = {"_file": f, **data}
        presets_file = self.dir / "utils" / "weight_presets.yml"
        if presets_file.is_file():
            data = read_yaml_file(presets_file, reporter)
            if data is not None and not isinstance(data, Mapping):
                reporter.malformed(
                    presets_file, "expected a mapping of preset name to category titles"
                )
            elif data:
                for name, titles in data.items():
                    if isinstance(titles, str):
                        titles = [titles]
                    if not isinstance(titles, list):
                        reporter.warn(
                            presets_file, f"preset {name!r}: expected a list of titles: skipped"
                        )
                        continue
                    self.presets[str(name)] = [str(t) for t in titles if t is not None]

    def title(self, folder: str) -> str | None:
        entry = self.categories.get(folder)
        return _text(entry.get("title")) if entry else None

    def entry(self, folder: str) -> Mapping[str, Any]:
        return self.categories.get(folder, {})

    def all_titles(self) -> set[str]:
        return {t for t in (self.title(f) for f in self.categories) if t}


def _analysis_index(analysis_dir: str | Path | None) -> dict[tuple[str, str], Path]:
    if analysis_dir is None:
        return {}
    root = Path(analysis_dir)
    if not root.is_dir():
        raise DataError([Problem(str(root), "--thresholds: not a directory")])
    index: dict[tuple[str, str], Path] = {}
    for f in sorted(root.rglob("metrics.yml")) + sorted(root.rglob("metrics.yaml")):
        index.setdefault((f.parent.parent.name, f.parent.name), f)
    return index


def _read_metrics_yml(path: Path, reporter: Reporter) -> dict[str, Mapping[str, Any]] | None:
    data = read_yaml_file(path, reporter)
    if data is None:
        return None
    metrics = data.get("metrics") if isinstance(data, Mapping) else None
    if not isinstance(metrics, Mapping):
        reporter.malformed(path, "expected a 'metrics:' mapping")
        return None
    out = {}
    for k, v in metrics.items():
        if isinstance(v, Mapping):
            out[str(k)] = v
        else:
            reporter.warn(path, f"metric {k!r}: expected a mapping of settings: skipped")
    return out


class _Categories:
    """Category folder -> config name (the app title when given), weight, description, and the
    benchmark weights; keeps names unique."""

    def __init__(self, app: AppConfig, reporter: Reporter):
        self.app = app
        self.reporter = reporter
        self.names: dict[str, str] = {}

    def name(self, folder: str) -> str:
        if folder in self.names:
            return self.names[folder]
        name = folder
        if self.app.dir is not None:
            title = self.app.title(folder)
            if title is None:
                self.reporter.warn(
                    self.app.dir / folder,
                    f"no app config (or title) for category {folder!r}: the folder name is used",
                )
            elif title in self.names.values():
                self.reporter.warn(
                    self.app.dir / folder, f"title {title!r} is taken: the folder name is used"
                )
            else:
                name = title
        if name in self.names.values():
            name = f"{name} ({folder})"
        self.names[folder] = name
        return name

    def settings(self, folder: str) -> dict[str, Any]:
        entry = self.app.entry(folder)
        where = entry.get("_file", folder)
        out: dict[str, Any] = {
            "weight": _weight(entry.get("weight"), f"{where}: weight", self.reporter)
        }
        desc = _text(entry.get("description"))
        if desc is not None:
            out["description"] = desc
        return out

    def bench_weight(self, folder: str, bench: str) -> float:
        entry = self.app.entry(folder)
        bw = entry.get("benchmark_weights")
        if isinstance(bw, Mapping) and bench in bw:
            return _weight(
                bw[bench], f"{entry.get('_file', folder)}: benchmark_weights.{bench}", self.reporter
            )
        return 1.0

    def presets(self, present: dict[str, str]) -> dict[str, dict[str, dict[str, float]]]:
        """ML-PEG presets (titles that stay weight 1, every other category 0) for the categories
        present in the config (``present``: folder -> config name)."""
        out: dict[str, dict[str, dict[str, float]]] = {}
        known = self.app.all_titles()
        where = (self.app.dir / "utils" / "weight_presets.yml") if self.app.dir else "presets"
        for pname, titles in self.app.presets.items():
            for t in titles:
                if t not in known:
                    self.reporter.warn(
                        where, f"preset {pname!r}: title {t!r} matches no category: ignored"
                    )
            keep = set(titles)
            changes = {}
            for folder, cname in present.items():
                title = self.app.title(folder) or folder
                changes[cname] = {"weight": 1.0 if (title in keep or cname in keep) else 0.0}
            if changes:
                if not any(c["weight"] for c in changes.values()):
                    self.reporter.warn(
                        where,
                        f"preset {pname!r} keeps none of the categories converted: "
                        "it leaves every overall score missing",
                    )
                out[pname] = changes
        return out


# ------------------------------------------------------------------------------------------------
# Full config from configs/analysis + configs/app (no tables)
# ------------------------------------------------------------------------------------------------


def mlpeg_config_from_analysis(
    analysis_dir: str | Path,
    app_dir: str | Path | None = None,
    *,
    warnings: list[str] | None = None,
    strict: bool = False,
) -> dict[str, Any]:
    """The full ML-PEG scoring tree (every category, benchmark and metric of
    ``configs/analysis``) as a native config dict; categories titled, weighted and given presets
    from ``configs/app`` when ``app_dir`` is given. Warnings are appended to ``warnings``."""
    reporter = Reporter(strict)
    root = Path(analysis_dir)
    if not root.is_dir():
        raise DataError([Problem(str(root), "not a directory")])
    app = AppConfig(app_dir, reporter)
    cats = _Categories(app, reporter)
    categories: dict[str, Any] = {}
    present: dict[str, str] = {}
    seen_bench: set[str] = set()
    for (cfolder, bfolder), path in sorted(_analysis_index(root).items()):
        metrics = _read_metrics_yml(path, reporter)
        if metrics is None:
            continue
        mdicts: dict[str, Any] = {}
        for mkey, entry in metrics.items():
            mname = clean_name(mkey, f"{path}: {mkey}", reporter)
            if mname is None:
                continue
            md = _analysis_metric(entry, None, f"{path}: {mname}", reporter)
            if md is not None:
                mdicts[mname] = md
        if not mdicts:
            reporter.warn(path, "no usable metric: benchmark skipped")
            continue
        bname = _unique_bench(bfolder, cfolder, seen_bench, path, reporter)
        cname = cats.name(cfolder)
        present[cfolder] = cname
        cat = categories.setdefault(cname, {**cats.settings(cfolder), "benchmarks": {}})
        cat["benchmarks"][bname] = {
            "weight": cats.bench_weight(cfolder, bfolder),
            "metrics": mdicts,
        }
    reporter.raise_errors()
    if not categories:
        raise DataError([Problem(str(root), "no <category>/<benchmark>/metrics.yml found")])
    config: dict[str, Any] = {
        "title": "ML-PEG",
        "description": "ML-PEG's benchmarks, thresholds and weights (from its analysis configs)",
        "missing": "invalidate",
        "categories": categories,
    }
    presets = cats.presets(present)
    if presets:
        config["presets"] = presets
    if warnings is not None:
        warnings.extend(reporter.warnings)
    return config


def _analysis_metric(
    entry: Mapping[str, Any], base: dict[str, Any] | None, where: str, reporter: Reporter
) -> dict[str, Any] | None:
    """A metric dict from a metrics.yml entry, over ``base`` (the table's settings) if given."""
    base = dict(base or {})
    good = (
        _threshold(entry["good"], f"{where}.good", reporter)
        if "good" in entry
        else base.get("good")
    )
    bad = _threshold(entry["bad"], f"{where}.bad", reporter) if "bad" in entry else base.get("bad")
    if "weight" in entry:
        weight = _weight(entry.get("weight"), f"{where}.weight", reporter, base.get("weight", 1.0))
    else:
        weight = base.get("weight", 1.0)
    unit = base.get("unit") or _text(entry.get("unit"))
    desc = base.get("description") or _text(entry.get("tooltip") or entry.get("description"))
    lot = (base.get("meta") or {}).get("level_of_theory") or _lot(entry)
    if good is None or bad is None:
        reporter.warn(where, "no good/bad thresholds: metric skipped")
        return None
    if good == bad:
        reporter.warn(where, f"good and bad are equal ({good:g}): metric skipped")
        return None
    return _metric_dict(good, bad, weight, unit, desc, lot)


def _unique_bench(bench: str, cat: str, seen: set[str], where, reporter: Reporter) -> str:
    name = bench
    if name in seen:
        name = f"{bench} ({cat})"
        reporter.warn(
            where, f"benchmark name {bench!r} is used in another category: named {name!r}"
        )
    seen.add(name)
    return name


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
    cats = _Categories(app, reporter)
    analysis = _analysis_index(thresholds_dir)
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

    categories: dict[str, Any] = {}
    present: dict[str, str] = {}
    rows: list[tuple[str, str, str, float | None]] = []
    stored: dict[tuple[str, str], float | None] = {}
    display: dict[str, Counter] = {}
    lot_of_model: dict[str, str] = {}
    model_order: list[str] = []
    seen_bench: set[str] = set()
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
        table = read_json_file(path, reporter)
        if table is None:
            continue
        if not isinstance(table, Mapping):
            reporter.malformed(path, "expected a JSON object with 'data' and 'thresholds'")
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
        ana = _read_metrics_yml(ana_path, reporter) if ana_path is not None else None

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
                "good": _threshold(t.get("good"), f"{where}.good", reporter)
                if t.get("good") is not None
                else None,
                "bad": _threshold(t.get("bad"), f"{where}.bad", reporter)
                if t.get("bad") is not None
                else None,
                "weight": _weight(weights.get(key, t.get("weight")), f"{where}.weight", reporter),
                "unit": _text(t.get("unit")),
                "description": _tooltip(tooltips.get(key)),
            }
            lot = _lot(t) or _text(mlots.get(key))
            if lot is not None:
                base["meta"] = {"level_of_theory": lot}
            if ana is not None and key in ana:
                md = _analysis_metric(ana[key], base, f"{ana_path}: {key}", reporter)
            else:
                if base["good"] is None or base["bad"] is None:
                    reporter.warn(where, "no good/bad thresholds: metric skipped")
                    continue
                if base["good"] == base["bad"]:
                    reporter.warn(
                        where, f"good and bad are equal ({base['good']:g}): metric skipped"
                    )
                    continue
                md = _metric_dict(
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

        bname = _unique_bench(bfolder, cfolder, seen_bench, path, reporter)
        cname = cats.name(cfolder)
        present[cfolder] = cname
        cat = categories.setdefault(cname, {**cats.settings(cfolder), "benchmarks": {}})
        desc = _text(table.get("description"))
        bdict: dict[str, Any] = {"weight": cats.bench_weight(cfolder, bfolder)}
        if desc:
            bdict["description"] = desc
        bdict["metrics"] = metrics
        cat["benchmarks"][bname] = bdict

        # -- rows
        mlots_model = table.get("model_levels_of_theory")
        mlots_model = mlots_model if isinstance(mlots_model, Mapping) else {}
        seen_models: set[str] = set()
        not_numbers: list[str] = []
        for i, row in enumerate(data):
            if not isinstance(row, Mapping):
                reporter.warn(path, f"data[{i}] is not an object: skipped")
                continue
            ident = row.get("id") if _text(row.get("id")) is not None else row.get("MLIP")
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
            mlip = _text(row.get("MLIP"))
            if mlip is not None:
                display[model][mlip] += 1
                lot = _text(mlots_model.get(mlip))
                if lot is not None:
                    lot_of_model.setdefault(model, lot)
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
    if not categories:
        raise DataError([Problem(str(src), "no table with usable metrics")])
    config: dict[str, Any] = {
        "title": "ML-PEG",
        "description": f"Converted from ML-PEG app tables ({src.name})",
        "missing": "invalidate",
        "categories": categories,
    }
    presets = cats.presets(present)
    if presets:
        config["presets"] = presets
    models = []
    for m in model_order:
        attrs: dict[str, Any] = {"model": m}
        if display[m]:
            # the most frequent MLIP name (tables may add a suffix such as -D3)
            attrs["display_name"] = display[m].most_common(1)[0][0]
        attrs["level_of_theory"] = lot_of_model.get(m)
        models.append(attrs)
    return Converted(
        config=config,
        rows=rows,
        models=models,
        warnings=reporter.warnings,
        info={"stored_scores": stored},
    )


def compare_stored_scores(conv: Converted, tol: float = 1e-9):
    """Score ``conv`` with the engine and compare with ML-PEG's stored ``Score`` of each table.

    Returns (n compared, n missing on both sides, [mismatch descriptions], max abs difference).
    """
    from ..scoring import score

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
