"""Sensitivity: a worked example computed by hand, and brute force (a fine scan of each value with
``score_values``) agreeing with the exact intervals and what-if values under both policies."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ml_peg_like as mpl
from ml_peg_like.scoring import score_values
from ml_peg_like.sensitivity import dominance, stability_intervals, what_if

MODELS = ("A", "B", "D")
VALUES = np.array([[1.0, 0.0], [0.4, 0.8], [0.3, 0.3]])


def example_cfg(missing="invalidate"):
    one = {"metrics": {"m": {"good": 1, "bad": 0}}}
    return mpl.config_from_dict(
        {"missing": missing, "categories": {"C": {"benchmarks": {"B1": one, "B2": one}}}}
    )


def _row(df, path, field):
    r = df[(df["path"] == path) & (df["field"] == field)]
    assert len(r) == 1
    return r.iloc[0]


def test_worked_example_scores():
    sc = score_values(VALUES, MODELS, example_cfg())
    np.testing.assert_allclose(sc.overall_scores, [0.5, 0.6, 0.3])
    assert list(sc.ranks) == [2, 1, 3]


@pytest.mark.parametrize("missing", ["invalidate", "skip"])
def test_worked_example_intervals(missing):
    df = stability_intervals(VALUES, MODELS, example_cfg(missing))
    expect = {
        ("C/B1", "weight"): (0, 4 / 3),
        ("C/B2", "weight"): (3 / 4, math.inf),
        ("C/B1/m", "bad"): (-math.inf, 1 / 4),
        ("C/B2/m", "bad"): (-1 / 3, 1 / 2),
        ("C/B2/m", "good"): (0, 4 / 3),
    }
    for (path, field), (lo, hi) in expect.items():
        r = _row(df, path, field)
        assert r["low"] == pytest.approx(lo, abs=1e-12), (path, field)
        assert r["high"] == pytest.approx(hi, abs=1e-12), (path, field)


def test_worked_example_what_if():
    df = what_if(VALUES, MODELS, example_cfg(), "A")
    expect = {
        ("C/B1", "weight"): 4 / 3,
        ("C/B2", "weight"): 3 / 4,
        ("C/B1/m", "bad"): 1 / 4,
        ("C/B2/m", "bad"): -1 / 3,
        ("C/B2/m", "good"): 4 / 3,
    }
    for (path, field), v in expect.items():
        assert _row(df, path, field)["value"] == pytest.approx(v, abs=1e-12), (path, field)
    # B1's good only helps A's rival B less than A when it grows: no single value puts A first
    assert math.isnan(_row(df, "C/B1/m", "good")["value"])
    # the leader itself: every value already puts it first
    df_b = what_if(VALUES, MODELS, example_cfg(), "B")
    np.testing.assert_array_equal(df_b["value"], df_b["current"])


def test_worked_example_dominance():
    assert dominance(VALUES, MODELS, example_cfg()) == {"A": [], "B": [], "D": ["B"]}


def test_unknown_model_is_an_error_naming_the_known_ones():
    with pytest.raises(mpl.ConfigError, match="known: A, B, D"):
        what_if(VALUES, MODELS, example_cfg(), "Z")


# ------------------------------------------------------------------------------------------------
# Brute force on random small configs
# ------------------------------------------------------------------------------------------------


def random_case(seed):
    rng = np.random.default_rng(seed)
    cats = {}
    for c in range(2):
        benches = {}
        for b in range(int(rng.integers(1, 3))):
            metrics = {}
            for m in range(int(rng.integers(1, 3))):
                kind = rng.choice(["linear", "linear", "traffic_light", "weibull_speedup"])
                w = float(rng.choice([0.0, 1.0, 2.0, 3.0], p=[0.15, 0.45, 0.2, 0.2]))
                if kind == "weibull_speedup":
                    spec = {"normaliser": kind, "b": 1.7, "c": 5.0, "weight": w}
                else:
                    lower = rng.random() < 0.5
                    good, bad = (0.2, 0.9) if lower else (0.9, 0.2)
                    spec = {"normaliser": kind, "good": good, "bad": bad, "weight": w}
                metrics[f"m{m}"] = spec
            benches[f"b{c}{b}"] = {
                "weight": float(rng.choice([0.0, 1.0, 2.0], p=[0.15, 0.5, 0.35])),
                "metrics": metrics,
            }
        cats[f"c{c}"] = {
            "weight": float(rng.choice([1.0, 2.0])),
            "benchmarks": benches,
            "missing": str(rng.choice(["skip", "invalidate"])),
        }
    cfg = mpl.config_from_dict(
        {"missing": str(rng.choice(["skip", "invalidate"])), "categories": cats}
    )
    n = 5
    cols = []
    for _c, _b, m in cfg.iter_metrics():
        if m.normaliser == "weibull_speedup":
            cols.append(10 ** rng.uniform(-0.3, 1.7, n))
        else:
            cols.append(np.round(rng.uniform(0, 1, n), 2))
    values = np.column_stack(cols)
    values[rng.random(values.shape) < 0.1] = np.nan
    return cfg, [f"M{i}" for i in range(n)], values


def _grid(row, t0):
    lo, hi = row.get("low"), row.get("high")
    dom_lo = 0.0 if row["field"] == "weight" else t0 - 3
    span = np.linspace(-3, 3, 241) + t0
    if row["field"] == "weight":
        span = np.linspace(0, 6, 241)
    return span[span >= dom_lo], lo, hi


def _leads(cfg, values, models, path, field, t, members, k):
    try:
        c2 = cfg.apply_changes({path: {field: float(t)}})
    except mpl.ConfigError:
        return None
    sc = score_values(values, models, c2)
    r = sc.ranks[members]
    return bool((r <= k).all() and not np.isnan(sc.overall_scores[members]).any())


def _threshold_ok(cfg, path, field, t):
    m = cfg.node(path)
    if field == "weight":
        return t >= 0
    if field not in ("good", "bad") or not m.norm.uses_thresholds:
        return t > 0
    other = m.bad if field == "good" else m.good
    cur = m.good if field == "good" else m.bad
    return (t < other) if cur < other else (t > other)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [1, 2])
def test_intervals_agree_with_brute_force(seed, k):
    cfg, models, values = random_case(seed)
    sc = score_values(values, models, cfg)
    members = np.nonzero((sc.ranks <= k) & ~np.isnan(sc.overall_scores))[0]
    df = stability_intervals(values, models, cfg, top_k=k)
    assert len(df) > 0
    for _, row in df.iterrows():
        t0 = row["current"]
        grid, lo, hi = _grid(row, t0)
        if len(members) == 0:
            assert math.isnan(lo) and math.isnan(hi)
            continue
        assert lo <= t0 <= hi
        for t in grid:
            if not _threshold_ok(cfg, row["path"], row["field"], t):
                continue
            ok = _leads(cfg, values, models, row["path"], row["field"], t, members, k)
            if ok is None:
                continue
            if lo + 1e-6 < t < hi - 1e-6:
                assert ok, (row.to_dict(), t)
        # just past each finite end (within the domain) the condition fails somewhere close
        for end, sign in ((hi, 1), (lo, -1)):
            if not math.isfinite(end):
                continue
            probe = [end + sign * d for d in (1e-7, 1e-5, 1e-3)]
            probe = [t for t in probe if _threshold_ok(cfg, row["path"], row["field"], t)]
            if row["field"] == "weight":
                probe = [t for t in probe if t >= 0]
            if not probe:
                continue
            res = [
                _leads(cfg, values, models, row["path"], row["field"], t, members, k) for t in probe
            ]
            assert False in res, (row.to_dict(), end, res)


@pytest.mark.parametrize("seed", range(6))
def test_what_if_agrees_with_brute_force(seed):
    cfg, models, values = random_case(seed)
    sc = score_values(values, models, cfg)
    model = models[int(np.argsort(sc.ranks)[1])]  # the runner-up
    mi = models.index(model)
    df = what_if(values, models, cfg, model)
    for _, row in df.iterrows():
        t0 = row["current"]
        grid, _lo, _hi = _grid(row, t0)
        hits = []
        for t in grid:
            if not _threshold_ok(cfg, row["path"], row["field"], t):
                continue
            if _leads(cfg, values, models, row["path"], row["field"], t, [mi], 1):
                hits.append(t)
        v = row["value"]
        if hits:
            nearest = min(hits, key=lambda t: abs(t - t0))
            assert not math.isnan(v), row.to_dict()
            assert abs(v - t0) <= abs(nearest - t0) + 1e-9, (row.to_dict(), nearest)
        if not math.isnan(v):
            # at the value (or a hair beyond it, away from the current one) the model is first
            away = np.sign(v - t0) if v != t0 else 0.0
            probe = [v, v + away * 1e-9, v + away * 1e-7]
            res = [
                _leads(cfg, values, models, row["path"], row["field"], t, [mi], 1)
                for t in probe
                if _threshold_ok(cfg, row["path"], row["field"], t)
            ]
            assert True in res, (row.to_dict(), res)


def test_dominated_models_never_lead_under_random_weights():
    cfg, models, values = random_case(3)
    dom = dominance(values, models, cfg)
    rng = np.random.default_rng(1)
    paths = (
        [c.name for c in cfg.categories]
        + [f"{c.name}/{b.name}" for c in cfg.categories for b in c.benchmarks]
        + cfg.metric_paths()
    )
    for _ in range(50):
        changes = {p: {"weight": float(rng.uniform(0.01, 3))} for p in paths}
        sc = score_values(values, models, cfg.apply_changes(changes))
        for m, by in dom.items():
            for d in by:
                a, b = sc.overall_scores[models.index(d)], sc.overall_scores[models.index(m)]
                if not (np.isnan(a) or np.isnan(b)):
                    assert a >= b - 1e-12
