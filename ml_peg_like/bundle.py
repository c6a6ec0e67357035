"""A board as plain JSON for the JavaScript engine (``assets/engine.js``): the scoring tree, the
normalisers' declarations, the vetoes and the raw matrix.

The browser scores the default config and every set of ``changes`` (``{key path: {field:
value}}``, as :meth:`Config.apply_changes` takes them) from this bundle alone, with the same
numbers as the Python engine (the reference). The format is described in docs/ENGINE-JS.md.
Engine level: no Dash. ``json.dumps`` of a bundle needs no NaN or infinity literal: every
threshold and parameter of a config is finite, and the raw values (NaN = missing, +-inf
allowed) travel as base64 of little-endian float64.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from . import normalisers as nz
from .aggregation import POLICIES
from .config import Config, ModelRef
from .config.fields import METRIC_KEYS
from .config.nodes import Metric, metric_to_dict
from .raw import RawData

BUNDLE_VERSION = 1

#: the normalisers the JavaScript engine implements: registry name -> the Python function
#: (a normaliser registered again under one of these names with another function is not it)
JS_NORMALISERS = {
    "linear": nz.linear,
    "traffic_light": nz.traffic_light,
    "weibull_speedup": nz.weibull_speedup,
    "log_speedup": nz.log_speedup,
}

#: the metric fields that say nothing about a score (text and free data): left out
_TEXT_FIELDS = ("unit", "description", "meta")


def js_supports(name: str) -> bool:
    """True when the JavaScript engine computes the registered normaliser ``name``."""
    try:
        norm = nz.get_normaliser(name)
    except KeyError:
        return False
    return JS_NORMALISERS.get(name) is norm.fn


def _json_value(v: Any) -> Any:
    """A threshold or parameter as JSON: a number, ``{"model": NAME}``, ``"best"``/``"worst"``."""
    if isinstance(v, ModelRef):
        return {"model": v.model}
    if isinstance(v, dict):  # {model: NAME} as metric_to_dict writes it
        return {"model": str(v["model"])}
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    return float(v)


def _param_decl(p: nz.ParamSpec) -> dict[str, Any]:
    return {
        "name": p.name,
        "default": p.default,
        "positive": p.positive,
        "greater_than": p.greater_than,
        "model_ref": p.model_ref,
        "optional": p.optional,
    }


def normaliser_decls() -> dict[str, dict[str, Any]]:
    """Every registered normaliser's declaration (also those the JavaScript engine cannot run:
    a change naming one is then refused in the browser with a clear message)."""
    out = {}
    for name in nz.normaliser_names():
        norm = nz.get_normaliser(name)
        out[name] = {
            "uses_thresholds": norm.uses_thresholds,
            # the thresholds (good, bad: a number, {model: NAME}, best or worst), then the others
            "thresholds": [_param_decl(p) for p in norm.fields if p.name in ("good", "bad")],
            "params": [_param_decl(p) for p in norm.params],
            "editable": list(norm.editable),
            "log_x": bool(norm.log_x),
            "js": js_supports(name),
        }
    return out


def _metric(path: str, column: str, m: Metric) -> dict[str, Any]:
    fields = {k: _json_value(v) for k, v in metric_to_dict(m).items() if k not in _TEXT_FIELDS}
    return {"name": m.name, "path": path, "column": column, "unit": m.unit or "", "fields": fields}


def tree(cfg: Config) -> list[dict[str, Any]]:
    """Categories > benchmarks > metrics with their full key paths and settings. A metric's
    ``fields`` are its config entry (``good``, ``bad``, ``weight``, ``normaliser`` when not
    linear, its parameters, ``better``): what a change is merged into and validated again."""
    cats = []
    for c in cfg.categories:
        benches = []
        for b in c.benchmarks:
            bp = f"{c.name}/{b.name}"
            metrics = [_metric(f"{bp}/{m.name}", f"{b.name}/{m.name}", m) for m in b.metrics]
            benches.append({"name": b.name, "path": bp, "weight": b.weight, "metrics": metrics})
        cats.append(
            {
                "name": c.name,
                "path": c.name,
                "weight": c.weight,
                "missing": c.missing,
                "benchmarks": benches,
            }
        )
    return cats


def encode_matrix(values: np.ndarray) -> dict[str, Any]:
    """A (models x metrics) float matrix as base64 of little-endian float64, column-major."""
    a = np.asarray(values, dtype="<f8")
    data = np.asfortranarray(a).tobytes(order="F")
    return {
        "dtype": "<f8",
        "shape": [int(a.shape[0]), int(a.shape[1])],
        "order": "F",
        "b64": base64.b64encode(data).decode("ascii"),
    }


def matrix_bytes(values: np.ndarray) -> bytes:
    """The raw bytes of :func:`encode_matrix` (little-endian float64, column-major): what a
    board whose ``raw`` names a URL (:func:`matrix_ref`) is served as."""
    return np.asarray(values, dtype="<f8").tobytes(order="F")


def matrix_ref(shape: tuple[int, int], href: str) -> dict[str, Any]:
    """The ``raw`` of a bundle whose (models x metrics) matrix of ``shape`` is fetched from
    ``href`` (its bytes: :func:`matrix_bytes`) instead of written into it as base64."""
    return {"dtype": "<f8", "shape": [int(shape[0]), int(shape[1])], "order": "F", "href": href}


def decode_matrix(enc: dict[str, Any]) -> np.ndarray:
    """The inverse of :func:`encode_matrix` (for the tests and for Python readers)."""
    n, m = enc["shape"]
    flat = np.frombuffer(base64.b64decode(enc["b64"]), dtype=enc["dtype"])
    return flat.reshape((n, m), order=enc["order"]).astype(float)


def unsupported(cfg: Config, raw: RawData | None) -> list[dict[str, str]]:
    """What the JavaScript engine cannot score: per-instance metrics and normalisers it does not
    implement. A board with any is scored on the server only."""
    out = []
    per_instance = set(raw.instances) if raw is not None else set()
    for c, b, m in cfg.iter_metrics():
        path = f"{c.name}/{b.name}/{m.name}"
        if (b.name, m.name) in per_instance:
            out.append(
                {
                    "path": path,
                    "why": "per-instance metric: each instance is normalised on its own "
                    "(scored on the server only)",
                }
            )
        elif not js_supports(m.normaliser):
            out.append(
                {
                    "path": path,
                    "why": f"normaliser '{m.normaliser}' is registered in Python only "
                    "(scored on the server only)",
                }
            )
    return out


def make_bundle(
    config: Config, raw: RawData | np.ndarray, models=None, raw_href: str | None = None
) -> dict[str, Any]:
    """Everything ``assets/engine.js`` needs to score ``config`` + changes on ``raw``.

    ``raw``: a :class:`RawData` (aligned to the config here) or an already aligned matrix
    (columns in ``config.metric_ids()`` order) with ``models`` given. ``raw_href``: the matrix
    is not written into the bundle but served at that URL (:func:`matrix_ref`); a
    :class:`RawData` is then not aligned here (the server serves its own aligned copy)."""
    if isinstance(raw, RawData):
        values = raw.aligned(config) if raw_href is None else None
        models = raw.models
        data = raw
    else:
        values = np.asarray(raw, dtype=float)
        data = None
        if models is None:
            raise ValueError("make_bundle: give the model names with a bare matrix")
    want = (len(models), len(config.metric_ids()))
    shape = want if values is None else values.shape
    if shape != want:
        raise ValueError(
            f"make_bundle: raw matrix of shape {shape} for {want[0]} models and {want[1]} metrics"
        )
    return {
        "version": BUNDLE_VERSION,
        "title": config.title,
        "scale": config.scale,
        "models": [str(m) for m in models],
        "metric_columns": config.metric_columns(),
        "metric_paths": config.metric_paths(),
        "missing": config.missing,
        "policies": list(POLICIES),
        "metric_keys": sorted(METRIC_KEYS),
        "categories": tree(config),
        "vetoes": [
            {"metric": v.metric, "side": v.side, "limit": float(v.limit)} for v in config.vetoes
        ],
        "normalisers": normaliser_decls(),
        "raw": encode_matrix(values) if raw_href is None else matrix_ref(shape, raw_href),
        "unsupported": unsupported(config, data),
    }


def _column_major(a: np.ndarray) -> list[float | None]:
    """A scores matrix (models x columns) column by column, NaN as None (JSON)."""
    flat = np.asarray(a, dtype=float).ravel(order="F")
    return [None if np.isnan(v) else float(v) for v in flat]


def result_of(scores) -> dict[str, Any]:
    """The Python engine's scores in the layout of ``assets/engine.js``'s result (column-major,
    None for NaN): what the page shows for a board the JavaScript engine cannot score (its
    ``unsupported`` list is not empty), computed by the server for each change set."""
    from .aggregation import reasons

    plan = scores.plan
    one = np.zeros(1, dtype=np.intp)
    bcodes = reasons(scores.metric_scores, plan.w_metric, plan.metric_starts, scores.bench_scores)
    ccodes = reasons(scores.bench_scores, plan.w_bench, plan.bench_starts, scores.cat_scores, bcodes)
    ocodes = reasons(scores.cat_scores, plan.w_cat, one, scores.overall_scores[:, None], ccodes)
    coverage = None
    if scores.config.uses_skip:
        coverage = {
            "overall": _column_major(scores.overall_coverage[:, None]),
            "cat": _column_major(scores.cat_coverage),
        }
    return {
        "layout": "column-major",
        "metric": _column_major(scores.metric_scores),
        "bench": _column_major(scores.bench_scores),
        "cat": _column_major(scores.cat_scores),
        "overall": _column_major(scores.overall_scores[:, None]),
        "coverage": coverage,
        "reasons": {
            "bench": np.asarray(bcodes).ravel(order="F").tolist(),
            "cat": np.asarray(ccodes).ravel(order="F").tolist(),
            "overall": np.asarray(ocodes).ravel(order="F").tolist(),
        },
        "resolved": {
            name: [None if np.isnan(v) else float(v) for v in _resolved_column(scores, name)]
            for name in _resolved_names(scores)
        },
        "vetoReasons": list(scores.veto_reasons or []),
        "warnings": list(scores.warnings),
    }


def _resolved_names(scores) -> list[str]:
    names: set[str] = set()
    for params in scores.resolved.values():
        names.update(params)
    return sorted(names)


def _resolved_column(scores, name: str) -> np.ndarray:
    """``name``'s resolved value of every metric column (NaN where its normaliser has none)."""
    out = np.full(len(scores.plan.metric_columns), np.nan)
    for norm, cols, _static, _dynamic in scores.plan.groups:
        params = scores.resolved.get(norm, {})
        if name in params:
            out[cols] = np.asarray(params[name], dtype=float)
    return out
