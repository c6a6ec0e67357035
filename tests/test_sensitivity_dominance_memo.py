"""DominanceMemo (the dashboard's dominance across edits) gives dominance_of's answer."""

from __future__ import annotations

import numpy as np
import pytest

import ml_peg_like as mpl
from ml_peg_like.scoring import score_values
from ml_peg_like.sensitivity import DominanceMemo, dominance_of

MODELS = ("A", "B", "D")
VALUES = np.array([[1.0, 0.0], [0.4, 0.8], [0.3, 0.3]])


def example_cfg():
    one = {"metrics": {"m": {"good": 1, "bad": 0}}}
    return mpl.config_from_dict({"categories": {"C": {"benchmarks": {"B1": one, "B2": one}}}})


def test_worked_example_through_one_threshold_and_a_weight():
    cfg = example_cfg()
    memo = DominanceMemo()
    assert memo(score_values(VALUES, MODELS, cfg)) == {"A": [], "B": [], "D": ["B"]}
    # B2's bad at 0.35: B2 scores A 0, B 0.45 / 0.65, D 0; B1 scores A 1, B 0.4, D 0.3:
    # D is now below A on B1 and level on B2, so A dominates it too
    moved = cfg.apply_changes({"C/B2/m": {"bad": 0.35}})
    assert memo(score_values(VALUES, MODELS, moved)) == {"A": [], "B": [], "D": ["A", "B"]}
    assert 1 in memo._except  # answered from the pairs on every metric but B2's
    # B2's bad at -1/3: B2 scores A 0.25, B 0.85, D 0.475: back to D below B only
    back = cfg.apply_changes({"C/B2/m": {"bad": -1 / 3}})
    assert memo(score_values(VALUES, MODELS, back)) == {"A": [], "B": [], "D": ["B"]}
    # B1's weight 0 (a live metric fewer): on B2 alone (A 0, B 0.692, D 0) B is ahead of both
    zero = cfg.apply_changes({"C/B2/m": {"bad": 0.35}, "C/B1": {"weight": 0}})
    assert memo(score_values(VALUES, MODELS, zero)) == {"A": ["B"], "B": [], "D": ["B"]}
    # a weight edit that keeps every metric live changes nothing
    heavier = cfg.apply_changes(
        {"C/B2/m": {"bad": 0.35}, "C/B1": {"weight": 0}, "C": {"weight": 3}}
    )
    assert memo(score_values(VALUES, MODELS, heavier)) == {"A": ["B"], "B": [], "D": ["B"]}


def _board(seed):
    rng = np.random.default_rng(seed)
    cats = {}
    for c in range(3):
        benches = {}
        for b in range(3):
            benches[f"b{c}{b}"] = {
                "metrics": {f"m{m}": {"good": 1.0, "bad": 0.0} for m in range(3)},
            }
        cats[f"c{c}"] = {"benchmarks": benches, "missing": "skip"}
    cfg = mpl.config_from_dict({"missing": "skip", "categories": cats})
    n = 14
    skill = rng.uniform(0, 1, (n, 1))
    values = np.round(np.clip(skill + rng.normal(0, 0.08, (n, 27)), 0, 1), 1)
    values[rng.random(values.shape) < 0.03] = np.nan
    return cfg, [f"M{i}" for i in range(n)], values


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_edit_sequences_agree_with_dominance_of(seed):
    cfg, models, values = _board(seed)
    rng = np.random.default_rng(100 + seed)
    paths = cfg.metric_paths()
    memo = DominanceMemo()
    changes: dict = {}
    found = 0
    for step in range(40):
        p = paths[int(rng.integers(0, 3))] if step % 3 else paths[int(rng.integers(len(paths)))]
        kind = rng.choice(["good", "bad", "weight", "weight0"])
        if kind == "weight0":
            changes[p] = {**changes.get(p, {}), "weight": float(rng.choice([0.0, 1.0]))}
        elif kind == "weight":
            changes[p] = {**changes.get(p, {}), "weight": float(rng.uniform(0.5, 2))}
        else:
            other = changes.get(p, {}).get("bad" if kind == "good" else "good")
            other = (0.0 if kind == "good" else 1.0) if other is None else other
            t = float(rng.uniform(0.6, 1.2) if kind == "good" else rng.uniform(-0.2, 0.4))
            if (kind == "good" and t <= other) or (kind == "bad" and t >= other):
                continue
            changes[p] = {**changes.get(p, {}), kind: t}
        sc = score_values(values, models, cfg.apply_changes(changes))
        expected = dominance_of(sc)
        assert memo(sc) == expected, (step, changes)
        found += sum(len(v) for v in expected.values())
    assert found > 0  # the boards do have dominated models


def test_better_on_the_edited_metric_only():
    # X and Y level on B1 (0.5); on B2 raw X 0.6, Y 0.5 (good 1, bad 0): X dominates Y
    cfg = example_cfg()
    values = np.array([[0.5, 0.6], [0.5, 0.5]])
    memo = DominanceMemo()
    assert memo(score_values(values, ("X", "Y"), cfg)) == {"X": [], "Y": ["X"]}
    # B2's good at 0.55: X 1, Y 0.5 / 0.55: still strictly better on B2 alone
    moved = cfg.apply_changes({"C/B2/m": {"good": 0.55}})
    assert memo(score_values(values, ("X", "Y"), moved)) == {"X": [], "Y": ["X"]}
    # B2's good at 0.5: both 1, level everywhere: neither dominates
    level = cfg.apply_changes({"C/B2/m": {"good": 0.5}})
    assert memo(score_values(values, ("X", "Y"), level)) == {"X": [], "Y": []}
    assert 1 in memo._except


def _wide_board(seed):
    """Two categories of 13 benchmarks (sums of more than 8 children: numpy's pairwise
    summation) of 2 metrics each, 30 models, a few values missing."""
    rng = np.random.default_rng(seed)
    one = {"metrics": {f"m{m}": {"good": 1.0, "bad": 0.0} for m in range(2)}}
    cats = {f"c{c}": {"benchmarks": {f"b{c}{b}": one for b in range(13)}} for c in range(2)}
    cfg = mpl.config_from_dict({"missing": "skip", "categories": cats})
    values = rng.uniform(0, 1, (30, 52))
    values[rng.random(values.shape) < 0.03] = np.nan
    return cfg, [f"M{i}" for i in range(30)], values


@pytest.mark.parametrize("seed", [0, 1, "wide"])
def test_levels_memo_gives_the_levels_computed_afresh(seed):
    """LevelsMemo (the benchmark level of the last state, its changed categories summed again)
    gives the sums of the full computation bit for bit, and the same intervals, along a random
    sequence of threshold, weight and policy edits (missing values, weight 0, several
    categories changed at once)."""
    from ml_peg_like.sensitivity import LevelsMemo, leader_intervals_of
    from ml_peg_like.sensitivity.families import levels_of

    cfg, models, values = _wide_board(7) if seed == "wide" else _board(seed)
    rng = np.random.default_rng(200 + (seed if seed != "wide" else 7))
    paths = cfg.metric_paths()
    memo = LevelsMemo()
    changes: dict = {}
    for step in range(30):
        p = paths[int(rng.integers(len(paths)))]
        kind = rng.choice(["good", "weight", "two", "same"])
        if kind == "good":
            changes[p] = {**changes.get(p, {}), "good": float(rng.uniform(0.6, 1.2))}
        elif kind == "weight":
            bench = p.rsplit("/", 1)[0]
            changes[bench] = {"weight": float(rng.choice([0.0, 0.5, 2.0]))}
        elif kind == "two":
            for q in (p, paths[int(rng.integers(len(paths)))]):
                changes[q] = {**changes.get(q, {}), "bad": float(rng.uniform(-0.3, 0.3))}
        sc = score_values(values, models, cfg.apply_changes(changes))
        view = [p, *paths[:3]]
        got = levels_of(sc, view, memo)
        want = levels_of(sc, view)
        for g, w in zip(got, want, strict=True):
            for a in ("N", "D", "B"):
                assert np.array_equal(getattr(g, a), getattr(w, a)), (step, a)
                assert getattr(g, a).tobytes() == getattr(w, a).tobytes()
        fresh = leader_intervals_of(sc, view)
        kept = leader_intervals_of(sc, view, memo)
        assert fresh.keys() == kept.keys()
        for k, v in fresh.items():
            assert np.array_equal(v, kept[k], equal_nan=True), (step, k)
