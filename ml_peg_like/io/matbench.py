"""Matbench Discovery -> native dataset.

Reads the model YAMLs of Matbench Discovery (``<family>/<model>.yml``: ``model_name``,
``model_key``, ``openness``, ``training_set(s)``, ``dates``, ``model_params``, ... and
``metrics: {task: {subset: {metric: value}}}``). Tasks become categories (discovery, geo_opt,
phonons, md, diatomics), their subsets benchmarks, the numeric entries metrics. Counts (TP, FP,
TN, FN, missing_preds, n_structures, ...), strings and file records (``pred_file``,
``analysis_file``) are skipped.

The default weights make the overall score Matbench Discovery's Combined Performance Score:

    CPS = (0.5 F1 + 0.4 (1 - κ_SRME / 2) + 0.1 clip(1 - RMSD / 0.15, 0, 1)) / (0.5 + 0.4 + 0.1)

with F1 from discovery/unique_prototypes, κ_SRME from phonons/kappa_103 and RMSD from
geo_opt/symprec=1e-2: categories discovery 0.5, phonons 0.4, geo_opt 0.1 (md, diatomics 0), one
benchmark and one metric of weight 1 in each, every other benchmark and metric weight 0, and
``missing: invalidate`` so that a model missing an input has no CPS. Every other metric keeps
sensible thresholds so a user can raise its weight in the dashboard.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..aggregation import INVALIDATE
from ..errors import DataError, Problem
from .common import (
    NOT_A_NUMBER,
    Converted,
    Reporter,
    as_number,
    clean_name,
    read_mapping,
    read_yaml_file,
)

# CPS: (category, subset, metric, category weight, good, bad)
CPS_TERMS = (
    ("discovery", "unique_prototypes", "F1", 0.5, 1.0, 0.0),
    ("phonons", "kappa_103", "κ_SRME", 0.4, 0.0, 2.0),
    ("geo_opt", "symprec=1e-2", "rmsd", 0.1, 0.0, 0.15),
)
TASK_ORDER = ("discovery", "geo_opt", "phonons", "md", "diatomics")
SUBSET_ORDER = {
    "discovery": ("unique_prototypes", "full_test_set", "most_stable_10k"),
    "geo_opt": ("symprec=1e-2", "symprec=1e-5"),
}
RECORD_KEYS = {"pred_file", "analysis_file"}
COUNT_NAMES = {"TP", "FP", "TN", "FN", "missing_preds", "missing_percent"}
_COUNT_RE = re.compile(r"^(n|num)_[a-z_]*s$")  # n_structures, n_systems (not n_sym_ops_mae)
TASK_DESCRIPTIONS = {
    "discovery": "Stability prediction of hypothetical crystals (WBM test set): classification "
    "and regression of the energy above the convex hull.",
    "geo_opt": "Geometry optimisation: relaxed structures compared with DFT (RMSD, symmetry).",
    "phonons": "Lattice thermal conductivity κ of 103 crystals from the model's phonons.",
    "md": "Molecular dynamics: errors of trajectories, structure and pressure against reference.",
    "diatomics": "Diatomic potential energy curves: smoothness and errors against PBE.",
}

# metric -> (kind, unit, description). kinds: "higher" (fraction, good 1 bad 0), "lower"
# (fraction, good 0 bad 1), "daf", "r2", "error" (good 0, bad from the data), "kappa" (good 0,
# bad 2), "ideal1" (good 1, bad from the data), "nodir" (weight 0 always, placeholder linear).
_FRACTION_HIGHER = ("F1", "Precision", "Recall", "Accuracy", "TPR", "TNR", "symmetry_match")
_FRACTION_LOWER = ("FPR", "FNR", "symmetry_decrease", "κ_failure_rate", "imaginary_mode_rate")
KNOWN: dict[str, tuple[str, str | None, str]] = {
    "F1": ("higher", "fraction", "F1 score of stable/unstable classification (higher is better)."),
    "Precision": ("higher", "fraction", "Precision of stable predictions (higher is better)."),
    "Recall": ("higher", "fraction", "Recall of stable materials (higher is better)."),
    "Accuracy": ("higher", "fraction", "Classification accuracy (higher is better)."),
    "TPR": ("higher", "fraction", "True positive rate (higher is better)."),
    "TNR": ("higher", "fraction", "True negative rate (higher is better)."),
    "FPR": ("lower", "fraction", "False positive rate (lower is better)."),
    "FNR": ("lower", "fraction", "False negative rate (lower is better)."),
    "DAF": (
        "daf",
        "dimensionless",
        "Discovery acceleration factor: precision over the prevalence of stable materials "
        "(higher is better; good = the best value in the data, bad = 1, no better than chance).",
    ),
    "R2": (
        "r2",
        "dimensionless",
        "Coefficient of determination of the hull distance (higher is better).",
    ),
    "MAE": ("error", "eV/atom", "Mean absolute error of the hull distance (lower is better)."),
    "RMSE": ("error", "eV/atom", "Root mean square error of the hull distance (lower is better)."),
    "rmsd": ("error", None, "RMSD of relaxed against DFT-relaxed structures (lower is better)."),
    "n_sym_ops_mae": ("error", None, "MAE of the number of symmetry operations (lower is better)."),
    "symmetry_decrease": (
        "lower",
        "fraction",
        "Fraction of structures whose symmetry decreased (lower is better).",
    ),
    "symmetry_match": (
        "higher",
        "fraction",
        "Fraction of structures whose symmetry matches DFT (higher is better).",
    ),
    "symmetry_increase": (
        "nodir",
        "fraction",
        "Fraction of structures whose symmetry increased on relaxation. Matbench Discovery gives it "
        "no direction (an increase can be right or wrong), so it has weight 0; the linear "
        "thresholds good 0, bad 1 are only a placeholder.",
    ),
    "κ_SRME": (
        "kappa",
        "dimensionless",
        "Symmetric relative mean error of κ (range 0..2, lower is better).",
    ),
    "κ_SRE": (
        "kappa",
        "dimensionless",
        "Symmetric relative error of κ (range 0..2, lower is better).",
    ),
    "κ_SRD": (
        "nodir",
        "dimensionless",
        "Symmetric relative deviation of κ: signed (under- or over-estimation), best at 0, so no "
        "linear direction; weight 0 and the thresholds good 0, bad 1 are only a placeholder.",
    ),
    "κ_failure_rate": (
        "lower",
        "fraction",
        "Fraction of materials whose κ failed (lower is better).",
    ),
    "imaginary_mode_rate": (
        "lower",
        "fraction",
        "Fraction of materials with imaginary modes (lower is better).",
    ),
    "spectrum_w1": (
        "error",
        None,
        "Wasserstein-1 distance of the phonon spectra (lower is better).",
    ),
    "tortuosity": (
        "ideal1",
        None,
        "Tortuosity of the energy curve: 1 for a monotonic curve (lower is better).",
    ),
    "energy_diff_flips": (
        "ideal1",
        None,
        "Sign changes of the energy derivative: 1 ideally (lower is better).",
    ),
    "force_flips": ("ideal1", None, "Sign changes of the force: 1 ideally (lower is better)."),
    "run_time_sec": (
        "error",
        "s",
        "Run time of the task (lower is better; hardware differs between models).",
    ),
}
_LOWER_HINTS = (
    "error",
    "mae",
    "rmse",
    "rmsd",
    "loss",
    "jump",
    "variation",
    "time",
    "flips",
    "wasserstein",
    "rate",
)


def metric_spec(metric: str) -> tuple[str, str | None, str | None]:
    """(kind, unit, description) of a metric; unknown names are guessed from the name."""
    if metric in KNOWN:
        return KNOWN[metric]
    low = metric.lower()
    if any(h in low for h in _LOWER_HINTS):
        return (
            "error",
            None,
            "Lower is better (guessed from the name); bad = the worst value in the data.",
        )
    return (
        "unknown",
        None,
        "No known direction: assumed higher is better (good = best, bad = worst value in the data); "
        "weight 0. Check before raising its weight.",
    )


def nice_ceil(x: float) -> float:
    """The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (x 10^k) that is >= x (x > 0)."""
    if not (x > 0) or not math.isfinite(x):
        return 1.0
    k = math.floor(math.log10(x))
    for _ in range(3):
        for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
            v = float(f"{m}e{k}")
            if v >= x * (1 - 1e-12):
                return v
        k += 1
    return x  # pragma: no cover


def _thresholds(kind: str, values: list[float]) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    if kind == "higher" or kind == "r2":
        return 1.0, 0.0
    if kind == "lower" or kind == "nodir":
        return 0.0, 1.0
    if kind == "kappa":
        return 0.0, 2.0
    if kind == "daf":
        best = max(finite, default=6.0)
        good = math.ceil(best * 100) / 100 if best > 1 else 6.0
        return good, 1.0
    if kind == "ideal1":
        worst = max(finite, default=2.0)
        return 1.0, nice_ceil(worst) if worst > 1 else 2.0
    if kind == "error":
        worst = max(finite, default=1.0)
        return 0.0, nice_ceil(worst) if worst > 0 else 1.0
    # unknown: higher assumed, from the data
    hi, lo = max(finite, default=1.0), min(finite, default=0.0)
    if not hi > lo:
        hi = lo + max(1.0, abs(lo))
    return hi, lo


def _is_record(value: Mapping) -> bool:
    """A file record (``{name, url, size, md5}``) rather than a group of metrics."""
    keys = {str(k) for k in value}
    return bool(keys & {"url", "md5", "sha256"}) or keys <= {"name", "url", "size", "md5", "path"}


def _is_count(name: str) -> bool:
    return name in COUNT_NAMES or bool(_COUNT_RE.match(name))


def _attr(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list | tuple):
        parts = [_attr(v) for v in value]
        return "; ".join(p for p in parts if p) or None
    if isinstance(value, Mapping):
        for k in ("name", "key", "title"):
            if k in value:
                return _attr(value[k])
        return None
    if isinstance(value, _dt.date | _dt.datetime):
        return value.isoformat()
    if isinstance(value, bool):
        return str(value).lower()
    text = str(value).strip()
    return text or None


def _model_attributes(doc: Mapping, model: str, family: str) -> dict[str, Any]:
    dates = doc.get("dates") if isinstance(doc.get("dates"), Mapping) else {}
    training = doc.get("training_sets", doc.get("training_set"))
    return {
        "model": model,
        "display_name": _attr(doc.get("model_name")) or model,
        "family": family or None,
        "openness": _attr(doc.get("openness")),
        "training_set": _attr(training),
        "date_added": _attr(dates.get("benchmark_added") or doc.get("date_added")),
        "model_params": _attr(doc.get("model_params")),
        "targets": _attr(doc.get("targets")),
        "architecture": _attr(doc.get("architecture_types") or doc.get("model_type")),
        "model_version": _attr(doc.get("model_version")),
        "lifecycle": _attr(doc.get("lifecycle")),
        "paper": _link(doc.get("paper") or doc.get("doi")),
        "repo": _link(doc.get("repo")),
        "checkpoint": _link(doc.get("checkpoint_url")),
    }


def _link(value: Any) -> str | None:
    """A URL attribute (http or https only; anything else is left out)."""
    text = _attr(value)
    if text and text.lower().startswith(("http://", "https://")) and " " not in text:
        return text
    return None


def find_model_files(src: Path) -> list[Path]:
    """Model YAMLs under ``src`` (not the config.yml of a dataset directory written there)."""
    found = list(src.rglob("*.yml")) + list(src.rglob("*.yaml"))
    return sorted(
        p
        for p in found
        if p.is_file() and not (p.name == "config.yml" and (p.parent / "raw_metrics.csv").is_file())
    )


def _model_files(src: Path) -> list[Path]:
    if not src.is_dir():
        raise DataError([Problem(str(src), "not a directory of <family>/<model>.yml")])
    files = find_model_files(src)
    if not files:
        raise DataError([Problem(str(src), "no model YAML found (expected <family>/<model>.yml)")])
    return files


@dataclass
class _Read:
    """What the model files hold: each model's attributes and its metric values.

    ``groups``: (task, subset or None) -> {metric: None}, in first-seen order; ``values``:
    (model, group, metric) -> value."""

    groups: dict[tuple[str, str | None], dict[str, None]] = field(default_factory=dict)
    values: dict[tuple[str, tuple[str, str | None], str], float | None] = field(
        default_factory=dict
    )
    models: list[dict[str, Any]] = field(default_factory=list)
    model_ids: list[str] = field(default_factory=list)

    def take(self, model: str, gkey, mkey, mv, path: Path, reporter: Reporter) -> None:
        _take(model, gkey, mkey, mv, self.groups, self.values, path, reporter)


def _model_of(doc: Mapping, path: Path, known: list[str], reporter: Reporter) -> str | None:
    """The model a file describes (``model_key``, else the file's name), or None (reported)
    when it is not a usable name or was already read."""
    key = doc.get("model_key") if _attr(doc.get("model_key")) else path.stem
    model = clean_name(_attr(key), f"{path}: model_key", reporter)
    if model is not None and model in known:
        reporter.warn(path, f"model {model!r} is defined twice: this file is skipped")
        return None
    return model


def _read_task(model: str, task_key, task, path: Path, out: _Read, reporter: Reporter) -> None:
    """The values of one task: its own metrics, and those of each subset (a nested mapping that
    is not a record such as a hardware description)."""
    tname = clean_name(task_key, f"{path}: metrics.{task_key}", reporter)
    if tname is None:
        return
    tname = tname.replace("/", "_")
    if not isinstance(task, Mapping):
        reporter.warn(path, f"metrics.{task_key}: expected a mapping: skipped")
        return
    for k, v in task.items():
        if not isinstance(v, Mapping):
            out.take(model, (tname, None), k, v, path, reporter)
            continue
        if str(k) in RECORD_KEYS or _is_record(v):
            continue
        sname = clean_name(k, f"{path}: metrics.{task_key}.{k}", reporter)
        if sname is None:
            continue
        for mk, mv in v.items():
            out.take(model, (tname, sname.replace("/", "_")), mk, mv, path, reporter)


def _read_model_file(path: Path, src: Path, out: _Read, reporter: Reporter) -> None:
    doc = read_mapping(
        read_yaml_file,
        path,
        reporter,
        "expected a mapping (model_name, model_key, metrics, ...)",
    )
    if doc is None:
        return
    model = _model_of(doc, path, out.model_ids, reporter)
    if model is None:
        return
    family = path.parent.name if path.parent != src else ""
    out.model_ids.append(model)
    out.models.append(_model_attributes(doc, model, family))
    metrics = doc.get("metrics")
    if metrics is None:
        return
    if not isinstance(metrics, Mapping):
        reporter.warn(path, "'metrics' is not a mapping: no metrics read")
        return
    for task_key, task in metrics.items():
        _read_task(model, task_key, task, path, out, reporter)


def _rows(read: _Read, names: dict) -> list[tuple[str, str, str, float | None]]:
    rows: list[tuple[str, str, str, float | None]] = []
    listed: set[str] = set()
    for (model, gkey, metric), v in read.values.items():
        rows.append((model, names[gkey], metric, v))
        listed.add(model)
    first = (CPS_TERMS[0][0], CPS_TERMS[0][1])
    for model in read.model_ids:
        if model not in listed:  # keep the model listed (no values at all: no CPS)
            rows.append((model, names[first], CPS_TERMS[0][2], None))
    return rows


def matbench_to_dataset(src: str | Path, *, strict: bool = False) -> Converted:
    """Convert Matbench Discovery model YAMLs under ``src`` (``<family>/<model>.yml``)."""
    reporter = Reporter(strict)
    src = Path(src)
    read = _Read()
    for path in _model_files(src):
        _read_model_file(path, src, read, reporter)
    reporter.raise_errors()
    if not read.models:
        raise DataError([Problem(str(src), "no readable model YAML")])
    config, names = _build_config(read.groups, read.values)
    return Converted(
        config=config,
        rows=_rows(read, names),
        models=read.models,
        warnings=reporter.warnings,
        info={"cps_inputs": _cps_inputs(read.values, read.model_ids)},
    )


def _take(model, gkey, mkey, mv, groups, values, path, reporter) -> None:
    """Record one numeric metric value (skipping counts, strings, nested records)."""
    name = str(mkey)
    if _is_count(name) or isinstance(mv, Mapping | list | tuple):
        return
    v = as_number(mv, bools=False)
    if v is NOT_A_NUMBER:
        if isinstance(mv, str) and name in KNOWN:
            reporter.warn(path, f"{gkey[0]}.{name}: {mv!r} is not a number: read as missing")
        else:
            return  # strings such as hardware names
        v = None
    mname = clean_name(name, f"{path}: {gkey[0]}.{name}", reporter)
    if mname is None:
        return
    groups.setdefault(gkey, {})[mname] = None
    values[(model, gkey, mname)] = v


def _ordered_groups(groups) -> list[tuple[str, str | None]]:
    tasks: list[str] = [t for t in TASK_ORDER if any(g[0] == t for g in groups)]
    for g in groups:
        if g[0] not in tasks:
            tasks.append(g[0])

    def rank(g):
        order = SUBSET_ORDER.get(g[0], ())
        return (order.index(g[1]) if g[1] in order else len(order), list(groups).index(g))

    out = []
    for t in tasks:
        out += sorted((g for g in groups if g[0] == t), key=rank)
    return out


def _add_cps_skeleton(groups) -> None:
    """The CPS metrics are always there, so that a data set lacking a task gives no CPS at all."""
    for task, subset, metric, *_ in CPS_TERMS:
        groups.setdefault((task, subset), {})
        if metric not in groups[(task, subset)]:
            groups[(task, subset)] = {metric: None, **groups[(task, subset)]}


def _benchmark_names(ordered) -> dict[tuple[str, str | None], str]:
    """Benchmark names, unique in the file and without "/"."""
    subset_count: dict[str, int] = {}
    for _t, s in ordered:
        if s is not None:
            subset_count[s] = subset_count.get(s, 0) + 1
    tasks = {t for t, _ in ordered}
    names: dict[tuple[str, str | None], str] = {}
    for t, s in ordered:
        if s is None:
            name = f"{t} metrics"  # not the category's own name: short key paths stay unambiguous
        elif "=" in s or subset_count[s] > 1 or s in tasks:
            name = f"{t} {s}"
        else:
            name = s
        while name in names.values():
            name += "_"
        names[(t, s)] = name
    return names


def _values_by_metric(values) -> dict[tuple, list[float]]:
    by_metric: dict[tuple, list[float]] = {}
    for (_model, gkey, metric), v in values.items():
        if v is not None:
            by_metric.setdefault((gkey, metric), []).append(v)
    return by_metric


_CPS_WEIGHT = {t: w for t, _s, _m, w, _g, _b in CPS_TERMS}
_CPS_BENCH = {(t, s) for t, s, *_ in CPS_TERMS}
_CPS_METRIC = {(t, s, m): (g, b) for t, s, m, _w, g, b in CPS_TERMS}


def _metric_settings(t: str, s: str | None, m: str, observed: list[float]) -> dict[str, Any]:
    """Thresholds, weight, unit and description of metric ``m``: a CPS input has the CPS's
    thresholds and weight 1; any other metric thresholds from the ``observed`` values and
    weight 0."""
    kind, unit, desc = metric_spec(m)
    if (t, s, m) in _CPS_METRIC:
        good, bad = _CPS_METRIC[(t, s, m)]
        desc = (desc or "") + f" CPS input (weight {_CPS_WEIGHT[t]:g}; good {good:g}, bad {bad:g})."
    else:
        good, bad = _thresholds(kind, observed)
    md: dict[str, Any] = {
        "good": float(good),
        "bad": float(bad),
        "weight": 1.0 if (t, s, m) in _CPS_METRIC else 0.0,
    }
    if unit:
        md["unit"] = unit
    if desc:
        md["description"] = desc.strip()
    return md


def _build_config(groups, values) -> tuple[dict[str, Any], dict]:
    _add_cps_skeleton(groups)
    ordered = _ordered_groups(groups)
    names = _benchmark_names(ordered)
    by_metric = _values_by_metric(values)
    categories: dict[str, Any] = {}
    for t, s in ordered:
        cat = categories.setdefault(
            t,
            {
                "weight": _CPS_WEIGHT.get(t, 0.0),
                "description": TASK_DESCRIPTIONS.get(t, f"Matbench Discovery task {t!r}."),
                "benchmarks": {},
            },
        )
        metrics = {
            m: _metric_settings(t, s, m, by_metric.get(((t, s), m), [])) for m in groups[(t, s)]
        }
        bdesc = f"Matbench Discovery {t}" + (f" / {s}" if s else "")
        cat["benchmarks"][names[(t, s)]] = {
            "weight": 1.0 if (t, s) in _CPS_BENCH else 0.0,
            "description": bdesc,
            "metrics": metrics,
        }

    presets = _presets(categories, names)
    config = {
        "title": "Matbench Discovery",
        "description": "Matbench Discovery model metrics. The default weights make the overall score "
        "the Combined Performance Score: CPS = 0.5 F1 + 0.4 (1 - κ_SRME/2) + 0.1 clip(1 - RMSD/0.15).",
        "missing": INVALIDATE,
        "categories": categories,
        "presets": presets,
    }
    return config, names


def _presets(categories: dict[str, Any], names) -> dict[str, Any]:
    cps: dict[str, dict[str, float]] = {}
    equal: dict[str, dict[str, float]] = {}
    for cname, cat in categories.items():
        cps[cname] = {"weight": cat["weight"]}
        equal[cname] = {"weight": 1.0}
        for bname, bench in cat["benchmarks"].items():
            cps[f"{cname}/{bname}"] = {"weight": bench["weight"]}
            equal[f"{cname}/{bname}"] = {"weight": 1.0}
            for mname, m in bench["metrics"].items():
                kind = metric_spec(mname)[0]
                cps[f"{cname}/{bname}/{mname}"] = {"weight": m["weight"]}
                useful = kind not in ("nodir", "unknown") and mname != "run_time_sec"
                equal[f"{cname}/{bname}/{mname}"] = {"weight": 1.0 if useful else 0.0}
    only = {}
    for task, _s, metric, *_ in CPS_TERMS:
        if task in categories:
            only[f"{task} only ({metric})"] = {
                c: {"weight": 1.0 if c == task else 0.0} for c in categories
            }
    return {"CPS (Matbench Discovery default)": cps, "All tasks, equal weights": equal, **only}


def _cps_inputs(values, model_ids) -> dict[str, tuple[float | None, float | None, float | None]]:
    out = {}
    for model in model_ids:
        out[model] = tuple(values.get((model, (t, s), m)) for t, s, m, *_ in CPS_TERMS)
    return out


def cps_formula(f1: float | None, kappa: float | None, rmsd: float | None) -> float:
    """Matbench Discovery's CPS from its three inputs (NaN when one is missing)."""
    if f1 is None or kappa is None or rmsd is None:
        return math.nan
    return (0.5 * f1 + 0.4 * (1 - kappa / 2) + 0.1 * min(max(1 - rmsd / 0.15, 0.0), 1.0)) / (
        0.5 + 0.4 + 0.1
    )


def cps_report(conv: Converted) -> list[str]:
    """Score ``conv`` and compare the overall score with the CPS formula, for the CLI."""
    from ..scoring import score

    cfg, raw = conv.build()
    res = score(raw, cfg)
    overall = res.overall["score"]
    n = len(overall)
    have = int((~overall.isna()).sum())
    max_diff = 0.0
    bad = 0
    for model, inputs in conv.info.get("cps_inputs", {}).items():
        ref = cps_formula(*inputs)
        ours = float(overall.get(model, math.nan))
        if math.isnan(ref) != math.isnan(ours):
            bad += 1
        elif not math.isnan(ref):
            max_diff = max(max_diff, abs(ref - ours))
    line = f"CPS: {have} of {n} models have one (the others miss F1, κ_SRME or RMSD)"
    line += f"; overall score = CPS formula to {max_diff:.2g}"
    if bad:
        line += f"; {bad} model(s) disagree on missing"
    return [line]
