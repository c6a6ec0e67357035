"""Conformance cases for the JavaScript engine, written by the Python engine (the reference).

A case is (a bundle, a list of steps); a step is a ``changes`` mapping and what the Python engine
makes of it: every level's scores, coverage, reason codes, vetoes, resolved thresholds, warnings,
ranks and ties, or the problems (``where``, ``message``) when the changes are refused (by
:meth:`Config.apply_changes` or the dashboard's rule against a group whose weights are all 0).

The cases live under tests/ (not in the package): they are test data, built from the tests'
own configs (the seeds' worked examples), the demo data set, the converted real data sets and
seeded random trees; nothing else needs them and the wheel does not ship them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

import ml_peg_like as mpl
import ml_peg_like.scoring as scoring
from ml_peg_like import aggregation as agg
from ml_peg_like.bundle import make_bundle
from ml_peg_like.errors import ConfigError

RANK_RTOL = getattr(scoring, "RANK_RTOL", 1e-9)


# ------------------------------------------------------------------------------------------------
# The ranking rule
# ------------------------------------------------------------------------------------------------


def reference_ranks(overall) -> tuple[list[int | None], list[bool]]:
    """The ranking rule, written here from its statement (until the engine has it): no score ->
    no rank; highest first; a model joins the group above it only if it ties with the group's
    first member (|a - b| <= RANK_RTOL * max(|a|, |b|)); rank = 1 + models strictly above."""
    v = [float(x) for x in overall]
    scored = sorted((i for i in range(len(v)) if not math.isnan(v[i])), key=lambda i: -v[i])
    ranks: list[int | None] = [None] * len(v)
    tied = [False] * len(v)
    pos = 0
    while pos < len(scored):
        head = v[scored[pos]]
        end = pos + 1
        while end < len(scored):
            x = v[scored[end]]
            if abs(head - x) > RANK_RTOL * max(abs(head), abs(x)):
                break
            end += 1
        for k in scored[pos:end]:
            ranks[k] = pos + 1
            tied[k] = end - pos > 1
        pos = end
    return ranks, tied


def engine_ranks(overall) -> tuple[list[int | None], list[bool]]:
    """The engine's ranks when it has the rule (``scoring.rank_rows``), else the reference."""
    rank_rows = getattr(scoring, "rank_rows", None)
    if not hasattr(scoring, "RANK_RTOL") or rank_rows is None:
        return reference_ranks(overall)
    ranks, tied, _ = rank_rows(np.asarray(overall, dtype=float))
    return (
        [None if math.isnan(r) else int(r) for r in ranks[0]],
        [bool(t) for t in tied[0]],
    )


# ------------------------------------------------------------------------------------------------
# What the Python engine makes of one set of changes
# ------------------------------------------------------------------------------------------------


def _flat(a) -> list[float]:
    """A (models x k) array column-major as a list (NaN kept)."""
    return np.asarray(a, dtype=float).ravel(order="F").tolist()


def _resolved(s: mpl.Scores) -> dict[str, list[float]]:
    """Every group's resolved parameters as one array per parameter over the metric columns."""
    m = len(s.plan.metric_paths)
    out: dict[str, np.ndarray] = {}
    for name, cols, _static, _dyn in s.plan.groups:
        for pn, arr in s.resolved[name].items():
            out.setdefault(pn, np.full(m, np.nan))[cols] = arr
    return {k: v.tolist() for k, v in out.items()}


def apply(defaults: mpl.Config, changes) -> mpl.Config:
    """defaults + changes as the dashboard takes them (its rule on all-zero weights included)."""
    from ml_peg_like.dashboard.state import try_changes

    return try_changes(defaults, changes)


def expected(defaults: mpl.Config, values: np.ndarray, models, changes) -> dict[str, Any]:
    """The Python engine's result for ``changes`` (or its problems)."""
    try:
        cfg = apply(defaults, changes)
    except ConfigError as exc:
        return {"errors": [{"where": p.where, "message": p.message} for p in exc.problems]}
    s = mpl.score_values(values, models, cfg)
    plan = s.plan
    bcodes = agg.reasons(s.metric_scores, plan.w_metric, plan.metric_starts, s.bench_scores)
    ccodes = agg.reasons(s.bench_scores, plan.w_bench, plan.bench_starts, s.cat_scores, bcodes)
    ocodes = agg.reasons(
        s.cat_scores, plan.w_cat, np.zeros(1, dtype=np.intp), s.overall_scores[:, None], ccodes
    )
    ranks, tied = engine_ranks(s.overall_scores)
    cov = None
    if cfg.uses_skip:
        cov = {
            "bench": _flat(s.bench_coverage),
            "cat": _flat(s.cat_coverage),
            "overall": np.asarray(s.overall_coverage, dtype=float).tolist(),
        }
    return {
        "metric": _flat(s.metric_scores),
        "bench": _flat(s.bench_scores),
        "cat": _flat(s.cat_scores),
        "overall": np.asarray(s.overall_scores, dtype=float).tolist(),
        "coverage": cov,
        "ranks": ranks,
        "tied": tied,
        "vetoed": [bool(v) for v in s.vetoed],
        "vetoReasons": list(s.veto_reasons),
        "reasons": {
            "metric": _flat(agg.metric_reasons(values, s.metric_scores)),
            "bench": _flat(bcodes),
            "cat": _flat(ccodes),
            "overall": _flat(ocodes),
        },
        "resolved": _resolved(s),
        # the columns whose scores need only + - / and comparisons: equal bit for bit in JS
        "exact_columns": [
            j
            for j, (_c, _b, m) in enumerate(cfg.iter_metrics())
            if m.normaliser in ("linear", "traffic_light")
        ],
        "warnings": list(s.warnings),
        "contributions": contributions_of(s),
    }


def contributions_of(s: mpl.Scores) -> dict[str, dict[str, Any]]:
    """``ml_peg_like.scoring.contributions`` of every node with children ("" the overall
    score, every category, every benchmark): children (paths, weights), parts (column-major),
    the node's score they sum to and the vetoed models."""
    paths = [
        "",
        *s.config.category_names(),
        *(f"{c.name}/{b.name}" for c in s.config.categories for b in c.benchmarks),
    ]
    out = {}
    for p in paths:
        c = scoring.contributions(s, p or None)
        out[p] = {
            "children": list(c.children),
            "weights": c.weights.tolist(),
            "policy": c.policy,
            "parts": _flat(c.parts),
            "score": _flat(c.score[:, None]),
            "vetoed": [bool(v) for v in c.vetoed],
        }
    return out


def case(name: str, cfg: mpl.Config, raw, steps, models=None) -> dict[str, Any]:
    """A case: the bundle and, for each set of changes, the Python engine's result."""
    if isinstance(raw, mpl.RawData):
        values, models = raw.aligned(cfg), raw.models
    else:
        values = np.asarray(raw, dtype=float)
    bundle = make_bundle(cfg, values, models=models)
    return {
        "name": name,
        "bundle": bundle,
        "steps": [{"changes": ch, "expected": expected(cfg, values, models, ch)} for ch in steps],
    }


# ------------------------------------------------------------------------------------------------
# Random trees and data
# ------------------------------------------------------------------------------------------------

_SPECIAL = (np.nan, np.inf, -np.inf, 0.0)


def _linear_metric(rng, better_lower: bool, models: list[str]) -> dict[str, Any]:
    lo, hi = sorted(rng.uniform(-5, 5, 2).round(2))
    if lo == hi:
        hi = lo + 1
    good, bad = (lo, hi) if better_lower else (hi, lo)
    m: dict[str, Any] = {"good": float(good), "bad": float(bad)}
    pick = rng.integers(0, 6)
    if pick == 0:
        m["bad"] = {"model": str(rng.choice(models + ["ghost"]))}
        m["better"] = "lower" if better_lower else "higher"
    elif pick == 1:
        m["good"], m["bad"] = ("best", "worst")
        m["better"] = "lower" if better_lower else "higher"
    elif pick == 2:
        m["good"] = "best"
        m["better"] = "lower" if better_lower else "higher"
    return m


def _metric(rng, models: list[str]) -> dict[str, Any]:
    kind = rng.choice(["linear", "linear", "traffic_light", "weibull_speedup", "log_speedup"])
    lower = bool(rng.integers(0, 2))
    if kind in ("linear", "traffic_light"):
        m = _linear_metric(rng, lower, models)
        if kind == "traffic_light":
            m["normaliser"] = kind
    elif kind == "weibull_speedup":
        m = {"normaliser": kind, "b": round(float(rng.uniform(0.5, 3)), 2)}
        m["c"] = round(float(rng.uniform(1, 10)), 2)
    else:
        m = {"normaliser": kind, "max_speedup": round(float(rng.uniform(2, 1000)), 1)}
    if kind in ("weibull_speedup", "log_speedup") and rng.integers(0, 3) == 0:
        m["reference"] = (
            {"model": str(rng.choice(models))} if rng.integers(0, 2) else float(rng.uniform(1, 9))
        )
    m["weight"] = float(rng.choice([0.0, 0.5, 1.0, 1.0, 2.0, 3.0]))
    return m


def random_config(rng, models: list[str]) -> dict[str, Any]:
    cats: dict[str, Any] = {}
    for c in range(int(rng.integers(1, 4))):
        benches = {}
        for b in range(int(rng.integers(1, 4))):
            metrics = {f"m{k}": _metric(rng, models) for k in range(int(rng.integers(1, 5)))}
            benches[f"B{c}.{b}"] = {
                "weight": float(rng.choice([0.0, 1.0, 1.0, 2.0])),
                "metrics": metrics,
            }
        cat: dict[str, Any] = {
            "weight": float(rng.choice([0.0, 1.0, 1.0, 3.0])),
            "benchmarks": benches,
        }
        if rng.integers(0, 2):
            cat["missing"] = str(rng.choice(["skip", "invalidate"]))
        cats[f"C{c}"] = cat
    out: dict[str, Any] = {"missing": str(rng.choice(["invalidate", "skip"])), "categories": cats}
    return out


def random_values(rng, n_models: int, n_metrics: int) -> np.ndarray:
    x = rng.normal(0, 3, (n_models, n_metrics)).round(int(rng.integers(0, 4)))
    x[rng.random(x.shape) < 0.15] = np.nan
    special = rng.random(x.shape) < 0.05
    x[special] = rng.choice(_SPECIAL, int(special.sum()))
    if n_models > 2:  # exact ties: a copied row
        x[-1] = x[0]
    return x


def _random_change(rng, cfg: mpl.Config, models: list[str]) -> dict[str, Any]:
    paths = cfg.metric_paths()
    p = str(rng.choice(paths))
    m = cfg.node(p)
    pick = int(rng.integers(0, 8))
    if pick == 0:
        return {p: {"weight": float(rng.choice([0.0, 0.5, 2.0]))}}
    if pick == 1:
        c = str(rng.choice(cfg.category_names()))
        return {c: {"weight": float(rng.choice([0.0, 1.0, 4.0])), "missing": "skip"}}
    if pick == 2:
        return {"": {"missing": str(rng.choice(["skip", "invalidate"]))}}
    if pick == 3 and m.norm.uses_thresholds:
        return {p: {"good": str(rng.choice(["best", "worst"])), "better": "higher"}}
    if pick == 4 and m.norm.uses_thresholds:
        return {p: {"bad": {"model": str(rng.choice(models))}}}
    if pick == 5 and m.normaliser == "weibull_speedup":
        return {p: {"c": round(float(rng.uniform(1, 20)), 3), "b": "2.5"}}
    if pick == 6:
        b = str(rng.choice(cfg.benchmark_names()))
        return {b: {"weight": 0}}
    if pick == 7 and rng.integers(0, 2):  # refused: each problem named
        bad = [{"weight": -2.5}, {"good": "x"}, {"weight": None}, {"b": 0}, {"better": "up"}]
        return {p: bad[int(rng.integers(0, len(bad)))], "ghost/path": {"weight": 1}}
    if m.norm.uses_thresholds:
        return {p: {"good": round(float(rng.uniform(-3, 3)), 1), "bad": 7.5}}
    return {p: {"weight": 1.5}}


def random_cases(seed: int = 20241126, n: int = 60) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        n_models = int(rng.integers(1, 12))
        models = [f"model {i}" for i in range(n_models)]
        raw_cfg = random_config(rng, models)
        cfg = mpl.config_from_dict(raw_cfg)
        if rng.integers(0, 2):
            path = str(rng.choice(cfg.metric_paths()))
            side = str(rng.choice(["above", "below"]))
            raw_cfg["vetoes"] = [{"metric": path, side: round(float(rng.normal(0, 2)), 1)}]
            cfg = mpl.config_from_dict(raw_cfg)
        values = random_values(rng, n_models, len(cfg.metric_paths()))
        steps = [{}] + [_random_change(rng, cfg, models) for _ in range(6)]
        out.append(case(f"random {k}", cfg, values, steps, models=models))
    return out


#: values and fields for changes that are mostly refused: the messages must be Python's
JUNK_VALUES = [
    None, True, False, 0, -1, 1e308, 1.5, 2, 0.25, "", " ", "x", "1e3", "inf", "-nan", "0.5",
    "1_000", "-3", "best", "worst", " Best ", [], [1], {}, {"model": "model 0"}, {"model": ""},
    {"model": 3}, {"model": None}, {"a": 1}, "skip", "invalidate", "linear", "traffic_light",
    "weibull_speedup", "log_speedup", "constructor", "__proto__", "toString",
]  # fmt: skip
JUNK_FIELDS = [
    "good", "bad", "weight", "normaliser", "better", "b", "c", "reference", "max_speedup",
    "missing", "unit", "description", "meta", "__proto__", "x",
]  # fmt: skip


def _junk_change(rng, paths: list[str]) -> dict[str, Any]:
    pick = lambda seq: seq[int(rng.integers(0, len(seq)))]  # noqa: E731
    out: dict[str, Any] = {}
    for _ in range(int(rng.integers(1, 4))):
        fields = {pick(JUNK_FIELDS): pick(JUNK_VALUES) for _ in range(int(rng.integers(1, 4)))}
        out[pick(paths)] = pick(JUNK_VALUES) if rng.random() < 0.1 else fields
    return out


def junk_cases(seed: int = 7, n: int = 3, steps: int = 40) -> list[dict[str, Any]]:
    """Random boards with random changes of any field to any value (refused, mostly)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        models = [f"model {i}" for i in range(int(rng.integers(1, 8)))]
        cfg = mpl.config_from_dict(random_config(rng, models))
        values = random_values(rng, len(models), len(cfg.metric_paths()))
        paths = ["", "nowhere", *cfg.metric_paths(), *cfg.category_names()]
        paths += [*cfg.metric_columns(), *cfg.benchmark_names()]
        changes = [_junk_change(rng, paths) for _ in range(steps)]
        out.append(case(f"junk {k}", cfg, values, changes, models=models))
    return out


# ------------------------------------------------------------------------------------------------
# Hand-made and real cases
# ------------------------------------------------------------------------------------------------

EDGE = """
missing: invalidate
categories:
  Linear:
    benchmarks:
      Inf:
        metrics:
          both: {good: best, bad: worst, better: lower}
          ref: {good: 0, bad: {model: trivial}}
          neg: {good: 10, bad: -10, weight: 2}
      Zero:
        weight: 0
        metrics:
          z1: {good: 1, bad: 0, weight: 0}
          z2: {good: 0, bad: 1, weight: 0}
  Lights:
    missing: skip
    benchmarks:
      TL:
        metrics:
          up: {good: 0.9, bad: 0.5, normaliser: traffic_light}
          down: {good: 0.1, bad: 0.5, normaliser: traffic_light, weight: 0.5}
      Speed:
        metrics:
          w: {normaliser: weibull_speedup, b: 1.7, c: 5}
          wr: {normaliser: weibull_speedup, reference: {model: trivial}}
          l: {normaliser: log_speedup, max_speedup: 100, reference: 2}
vetoes:
  - metric: Linear/Inf/neg
    below: -9
"""

EDGE_MODELS = ["trivial", "a", "b", 'c\'s "q"', "d", "e", "f"]
EDGE_VALUES = [
    # both  ref   neg    z1   z2   up    down  w     wr    l
    [np.inf, 4.0, 0.0, 1.0, 0.0, 0.9, 0.1, 5.0, 3.0, 2.0],
    [1.0, 1.0, 10.0, np.nan, 1.0, 0.5, 0.5, np.inf, 0.0, 0.0],
    [-np.inf, 5.0, -10.0, 0.5, np.nan, 0.7, np.nan, 0.0, np.inf, np.inf],
    [0.0, 0.0, np.nan, 0.2, 0.3, np.nan, 0.3, np.nan, 3.0, 1.0],
    [np.nan, np.inf, -np.inf, 0.0, 0.0, 1.0, 0.0, 18.787, 1.5, 0.02],
    [1.0, 1.0, 10.0, np.nan, 1.0, 0.5, 0.5, np.inf, 0.0, 0.0],  # = a: a tie
    [2.0, -np.inf, 5.0, 1.0, 1.0, 0.6, 0.6, 2.0, -1.0, -2.0],
]

EDGE_STEPS = [
    {},
    {"": {"missing": "skip"}},
    {"Linear/Inf/both": {"good": -1, "bad": 3}, "Lights": {"missing": "invalidate"}},
    {"Inf/ref": {"bad": {"model": "ghost"}}},
    {"Linear/Zero": {"weight": 1}, "Zero/z1": {"weight": 2}},
    {"Lights/Speed/w": {"c": "1e3", "b": 0.25}, "Speed/l": {"max_speedup": 1e6, "reference": None}},
    {"Lights/TL/up": {"normaliser": "linear"}},
    {"Inf/ref": {"bad": {"model": "d"}}},  # bad = inf: 1 - Err / inf = 1 (seed 002)
    {"Inf/neg": {"good": 1e308, "bad": -1e308}},  # good - bad overflows
    # refused
    {"Linear/Inf/neg": {"good": "abc", "weight": -1}},
    {"Linear": {"weight": 0}, "Lights": {"weight": 0}},
    {"Inf/neg": {"weight": 0}, "Inf/both": {"weight": 0}, "Inf/ref": {"weight": 0}},
    {"nowhere": {"weight": 1}, "Lights": {"colour": "red"}, "": {"scale": 3}},
    {"Speed/l": {"max_speedup": 1}, "Speed/w": {"c": 0, "good": 1}},
    {"Inf/neg": {"good": 5, "bad": 5}, "TL/up": {"better": "lower"}},
    {"Inf/neg": {"good": "best"}, "Lights": {"missing": "sometimes"}},
    {"Inf/neg": {"normaliser": "cubic"}, "Inf/ref": {"normaliser": "constructor"}},
    {"Inf/neg": {"bad": {"model": "  "}}, "Inf/ref": {"good": None}},
    {"Inf/neg": {"weight": "inf"}, "Speed/wr": {"reference": "worst"}},
    {"Speed/w": {"c": [1, 2]}, "Inf/both": {"bad": {"model": "a", "x": 1}}},
    {"Inf/neg": {"__proto__": {"weight": 0}, "good": " 1_5 "}, "Inf": "heavy"},
    ["not", "a", "mapping"],
]


def edge_case() -> dict[str, Any]:
    cfg = mpl.loads_config(EDGE)
    return case("edge", cfg, np.array(EDGE_VALUES), EDGE_STEPS, models=EDGE_MODELS)


def seed_cases() -> list[dict[str, Any]]:
    """The seeds' worked examples as the tests build them (LIPS power grid, UAI, the small
    board of the dashboard tests with every normaliser, the vetoes' example)."""
    import io

    from browser_utils import COLUMNS, MODELS, SMALL_CONFIG, VALUES
    from helpers_engine import raw_csv
    from test_scoring import ROWS, cfg_with
    from test_seed_examples import lips_config, lips_raw
    from test_vetoes import CONFIG as VETO_CONFIG
    from test_vetoes import RAW as VETO_RAW

    out = []
    cfg = lips_config()
    out.append(
        case(
            "seed 000 LIPS power grid",
            cfg,
            lips_raw(cfg),
            [{}, {"Speed-up/speed-up": {"c": 10}}, {"Test": {"weight": 0}}],
        )
    )
    uai = mpl.loads_config(
        "categories: {PR: {benchmarks: {I1: {metrics: {Err: {good: 0, bad: {model: trivial}}}}}}}"
    )
    out.append(
        case(
            "seed 002 UAI",
            uai,
            np.array([[4.0], [1.0], [5.0], [0.0]]),
            [{}, {"I1/Err": {"bad": {"model": "a"}}}],
            models=["trivial", "a", "b", "c"],
        )
    )
    hand = cfg_with()
    out.append(
        case(
            "hand tree",
            hand,
            raw_csv(hand, ROWS),
            [{}, {"": {"missing": "skip"}}, {"A": {"weight": 0}}],
        )
    )
    small = mpl.loads_config(SMALL_CONFIG)
    vals = np.array([[np.nan if v is None else v for v in VALUES[m]] for m in MODELS], dtype=float)
    assert [tuple(x) for x in small.metric_ids()] == COLUMNS
    out.append(
        case(
            "small board",
            small,
            vals,
            [{}, *[dict(v) for v in small.presets.values()], {"Iris/F1": {"weight": 0}}],
            models=MODELS,
        )
    )
    veto = mpl.loads_config(VETO_CONFIG)
    out.append(
        case(
            "vetoes",
            veto,
            mpl.load_raw(io.BytesIO(VETO_RAW.encode()), veto),
            [{}, {"Cost": {"weight": 1}, "Training/training_time": {"weight": 1}}],
        )
    )
    return out


def demo_case() -> dict[str, Any]:
    from ml_peg_like.support.resources import demo_dir

    cfg, raw = mpl.load_dataset(demo_dir())
    first = cfg.metric_paths()[0]
    steps = [{}, {"": {"missing": "skip"}}, {first: {"weight": 0}}, *cfg.presets.values()]
    return case("demo", cfg, raw, [dict(s) for s in steps])


def converted_cases(anchors: Path, tmp: Path) -> list[dict[str, Any]]:
    """ML-PEG (its tables, with its app configs and analysis thresholds) and Matbench Discovery,
    converted by the project's converters into ``tmp``."""
    from ml_peg_like.cli.convert import main as convert_main

    out = []
    mlpeg = tmp / "mlpeg"
    args = ["ml-peg", str(anchors / "ml-peg" / "tables"), "--out", str(mlpeg)]
    app, analysis = (
        anchors / "ml-peg" / "configs" / "app",
        anchors / "ml-peg" / "configs" / "analysis",
    )
    if app.is_dir() and analysis.is_dir():
        args += ["--app-config", str(app), "--thresholds", str(analysis)]
    if convert_main(args) == 0:
        cfg, raw = mpl.load_dataset(mlpeg)
        out.append(case("ML-PEG", cfg, raw, [{}, {"": {"missing": "skip"}}, *cfg.presets.values()]))
    out.append(mlpeg_full_tree(anchors))
    mbd = tmp / "mbd"
    if (
        convert_main(
            [
                "matbench-discovery",
                str(anchors / "matbench-discovery" / "models"),
                "--out",
                str(mbd),
            ]
        )
        == 0
    ):
        cfg, raw = mpl.load_dataset(mbd)
        out.append(case("Matbench Discovery", cfg, raw, [{}, {"": {"missing": "skip"}}]))
    return out


def mlpeg_full_tree(anchors: Path, n_models: int = 30) -> dict[str, Any]:
    """ML-PEG's whole tree (every benchmark of its analysis configs, its app configs' weights
    and presets) with seeded values around each metric's thresholds, 5% missing, a few +-inf."""
    from ml_peg_like.io.mlpeg import mlpeg_config_from_analysis

    cfgs = anchors / "ml-peg" / "configs"
    cfg = mpl.config_from_dict(mlpeg_config_from_analysis(cfgs / "analysis", cfgs / "app"))
    rng = np.random.default_rng(339)
    cols = [
        m.bad + (m.good - m.bad) * rng.uniform(-0.3, 1.3, n_models)
        for _c, _b, m in cfg.iter_metrics()
    ]
    x = np.column_stack(cols)
    x[rng.random(x.shape) < 0.05] = np.nan
    x[rng.random(x.shape) < 0.01] = np.inf
    x[-1] = x[0]  # a tie
    models = [f"mlip-{i:02d}" for i in range(n_models)]
    path = cfg.metric_paths()[100]
    m = cfg.node(path)
    steps = [
        {},
        {"": {"missing": "skip"}},
        {path: {"good": m.bad, "bad": m.good}},
        *[dict(p) for p in cfg.presets.values()],
    ]
    return case("ML-PEG full tree", cfg, x, steps, models=models)
