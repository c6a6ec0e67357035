"""ML-PEG's own configs -> native config settings.

ML-PEG's app config (``configs/app/<category>/<category>.yml``: title, description, weight,
benchmark_weights; and ``utils/weight_presets.yml``) and analysis config
(``configs/analysis/<category>/<benchmark>/metrics.yml``: good, bad, unit, weight, tooltip,
level_of_theory); :func:`mlpeg_config_from_analysis` builds the full scoring tree from them. The
tables converter (:mod:`.mlpeg`) uses the same readers for its metric settings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..aggregation import INVALIDATE
from ..errors import DataError, Problem
from .common import NOT_A_NUMBER, Reporter, as_number, clean_name, read_mapping, read_yaml_file

# ------------------------------------------------------------------------------------------------
# Metric settings
# ------------------------------------------------------------------------------------------------


def text_value(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str | int | float):
        text = str(value).strip()
        return text or None
    return None


def tooltip_text(value: Any) -> str | None:
    """A tooltip_header entry: ``{"value": "...", "type": "markdown"}`` or plain text."""
    if isinstance(value, Mapping):
        value = value.get("value")
    return text_value(value)


def level_of_theory(entry: Mapping) -> str | None:
    """level_of_theory, also when spelled ``level of theory`` (as in one ML-PEG file)."""
    for key in ("level_of_theory", "level of theory", "level-of-theory"):
        if key in entry and text_value(entry[key]) is not None:
            return text_value(entry[key])
    return None


def metric_dict(
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


def threshold_value(value: Any, where: str, reporter: Reporter) -> float | None:
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


def weight_value(value: Any, where: str, reporter: Reporter, default: float = 1.0) -> float:
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
            data = read_mapping(
                read_yaml_file, f, reporter, "expected a mapping with title, description, weight"
            )
            if data is None:
                continue
            self.categories[sub.name] = {"_file": f, **data}
        presets_file = self.dir / "utils" / "weight_presets.yml"
        if presets_file.is_file():
            data = read_mapping(
                read_yaml_file,
                presets_file,
                reporter,
                "expected a mapping of preset name to category titles",
            )
            if data:
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
        return text_value(entry.get("title")) if entry else None

    def entry(self, folder: str) -> Mapping[str, Any]:
        return self.categories.get(folder, {})

    def all_titles(self) -> set[str]:
        return {t for t in (self.title(f) for f in self.categories) if t}


def analysis_index(analysis_dir: str | Path | None) -> dict[tuple[str, str], Path]:
    if analysis_dir is None:
        return {}
    root = Path(analysis_dir)
    if not root.is_dir():
        raise DataError([Problem(str(root), "--thresholds: not a directory")])
    index: dict[tuple[str, str], Path] = {}
    for f in sorted(root.rglob("metrics.yml")) + sorted(root.rglob("metrics.yaml")):
        index.setdefault((f.parent.parent.name, f.parent.name), f)
    return index


def read_metrics_yml(path: Path, reporter: Reporter) -> dict[str, Mapping[str, Any]] | None:
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


class CategoryNames:
    """Category folder -> config name (the app title when given), weight, description, and the
    benchmark weights; keeps names unique. Collects the converted config's categories
    (:meth:`add_benchmark`) and gives the config (:meth:`config`)."""

    def __init__(self, app: AppConfig, reporter: Reporter):
        self.app = app
        self.reporter = reporter
        self.names: dict[str, str] = {}
        self.categories: dict[str, Any] = {}
        self.present: dict[str, str] = {}  # folder -> config name, of the categories added
        self.seen_bench: set[str] = set()

    def add_benchmark(self, cfolder: str, bfolder: str, where, fields: dict[str, Any]) -> str:
        """Put benchmark ``bfolder`` (``fields``: description, metrics) into its category, with
        its weight; returns its name in the config (unique)."""
        bname = unique_bench(bfolder, cfolder, self.seen_bench, where, self.reporter)
        cname = self.name(cfolder)
        self.present[cfolder] = cname
        cat = self.categories.setdefault(cname, {**self.settings(cfolder), "benchmarks": {}})
        cat["benchmarks"][bname] = {"weight": self.bench_weight(cfolder, bfolder), **fields}
        return bname

    def config(self, description: str) -> dict[str, Any]:
        """The ML-PEG config of the benchmarks added, with the presets of their categories."""
        config: dict[str, Any] = {
            "title": "ML-PEG",
            "description": description,
            "missing": INVALIDATE,
            "categories": self.categories,
        }
        presets = self.presets(self.present)
        if presets:
            config["presets"] = presets
        return config

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
            "weight": weight_value(entry.get("weight"), f"{where}: weight", self.reporter)
        }
        desc = text_value(entry.get("description"))
        if desc is not None:
            out["description"] = desc
        return out

    def bench_weight(self, folder: str, bench: str) -> float:
        entry = self.app.entry(folder)
        bw = entry.get("benchmark_weights")
        if isinstance(bw, Mapping) and bench in bw:
            return weight_value(
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
                    # a preset that keeps none of the converted categories would score
                    # nothing: left out (with a warning), not kept
                    self.reporter.warn(
                        where,
                        f"preset {pname!r} keeps none of the categories converted: left out",
                    )
                    continue
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
    cats = CategoryNames(app, reporter)
    for (cfolder, bfolder), path in sorted(analysis_index(root).items()):
        metrics = read_metrics_yml(path, reporter)
        if metrics is None:
            continue
        mdicts: dict[str, Any] = {}
        for mkey, entry in metrics.items():
            mname = clean_name(mkey, f"{path}: {mkey}", reporter)
            if mname is None:
                continue
            md = analysis_metric(entry, None, f"{path}: {mname}", reporter)
            if md is not None:
                mdicts[mname] = md
        if not mdicts:
            reporter.warn(path, "no usable metric: benchmark skipped")
            continue
        cats.add_benchmark(cfolder, bfolder, path, {"metrics": mdicts})
    reporter.raise_errors()
    if not cats.categories:
        raise DataError([Problem(str(root), "no <category>/<benchmark>/metrics.yml found")])
    config = cats.config("ML-PEG's benchmarks, thresholds and weights (from its analysis configs)")
    if warnings is not None:
        warnings.extend(reporter.warnings)
    return config


def analysis_metric(
    entry: Mapping[str, Any], base: dict[str, Any] | None, where: str, reporter: Reporter
) -> dict[str, Any] | None:
    """A metric dict from a metrics.yml entry, over ``base`` (the table's settings) if given."""
    base = dict(base or {})
    good = (
        threshold_value(entry["good"], f"{where}.good", reporter)
        if "good" in entry
        else base.get("good")
    )
    bad = (
        threshold_value(entry["bad"], f"{where}.bad", reporter)
        if "bad" in entry
        else base.get("bad")
    )
    if "weight" in entry:
        weight = weight_value(
            entry.get("weight"), f"{where}.weight", reporter, base.get("weight", 1.0)
        )
    else:
        weight = base.get("weight", 1.0)
    unit = base.get("unit") or text_value(entry.get("unit"))
    desc = base.get("description") or text_value(entry.get("tooltip") or entry.get("description"))
    lot = (base.get("meta") or {}).get("level_of_theory") or level_of_theory(entry)
    if good is None or bad is None:
        reporter.warn(where, "no good/bad thresholds: metric skipped")
        return None
    if good == bad:
        reporter.warn(where, f"good and bad are equal ({good:g}): metric skipped")
        return None
    return metric_dict(good, bad, weight, unit, desc, lot)


def unique_bench(bench: str, cat: str, seen: set[str], where, reporter: Reporter) -> str:
    name = bench
    if name in seen:
        name = f"{bench} ({cat})"
        reporter.warn(
            where, f"benchmark name {bench!r} is used in another category: named {name!r}"
        )
    seen.add(name)
    return name
