"""Contributions: each child's share of a node's score (ml_peg_like.scoring.contributions).

The numbers are worked by hand from the small board below (linear scores: 1 - x / bad with
good 0)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from test_properties import config_and_raw

import ml_peg_like as mpl
from ml_peg_like.errors import ConfigError

BOARD = """
missing: {policy}
categories:
  Surfaces:
    weight: 2
    benchmarks:
      S1:
        weight: 1
        metrics:
          a: {{good: 0, bad: 10}}
      S2:
        weight: 3
        metrics:
          b: {{good: 0, bad: 4}}
          c: {{good: 0, bad: 2, weight: 0}}
  Bulk:
    weight: 1
    benchmarks:
      B1:
        metrics:
          d: {{good: 0, bad: 10}}
  Spare:
    weight: 0
    benchmarks:
      O1:
        metrics:
          e: {{good: 0, bad: 1}}
vetoes:
  - metric: B1/d
    above: 8
"""
MODELS = ("m1", "m2", "m3")
NAN = math.nan
#          a     b    c    d    e
VALUES = [
    [2.0, 1.0, 1.0, 5.0, 0.0],  # m1: a 0.8, b 0.75, d 0.5
    [NAN, 2.0, NAN, 0.0, 0.0],  # m2: a missing, b 0.5, d 1
    [10.0, 0.0, 0.0, 9.0, 0.0],  # m3: a 0, b 1, d 0.1 (vetoed: d above 8)
]


def scored(policy: str) -> mpl.Scores:
    cfg = mpl.loads_config(BOARD.format(policy=policy))
    raw = mpl.RawData(MODELS, tuple(cfg.metric_ids()), np.array(VALUES))
    return mpl.score(raw, cfg)


def test_overall_parts_by_hand_under_invalidate():
    c = mpl.contributions(scored("invalidate"))
    assert c.level == "overall" and c.path == "" and c.policy == "invalidate"
    # Spare has weight 0: not listed
    assert c.names == ("Surfaces", "Bulk")
    assert c.weights.tolist() == [2.0, 1.0]
    # m1: Surfaces (0.8 + 3 x 0.75) / 4 = 0.7625; its part 2 x 0.7625 / 3; Bulk 0.5 / 3
    assert c.parts[0] == pytest.approx([2 * 0.7625 / 3, 0.5 / 3], abs=1e-15)
    assert c.score[0] == pytest.approx(0.675, abs=1e-15)
    # m2 misses a: Surfaces invalidated, so no overall score and no parts
    assert np.isnan(c.parts[1]).all() and np.isnan(c.score[1]) and np.isnan(c.used_weight[1])
    # m3: Surfaces (0 + 3) / 4 = 0.75, Bulk 0.1; overall before the veto (1.5 + 0.1) / 3
    assert c.parts[2] == pytest.approx([0.5, 0.1 / 3], abs=1e-15)
    assert c.score[2] == pytest.approx(1.6 / 3, abs=1e-15)
    assert c.vetoed.tolist() == [False, False, True]


def test_overall_parts_by_hand_under_skip():
    s = scored("skip")
    c = mpl.contributions(s)
    # m2: Surfaces from S2 alone (0.5), Bulk 1: (2 x 0.5 + 1) / 3; each part 1/3
    assert c.parts[1] == pytest.approx([1 / 3, 1 / 3], abs=1e-15)
    assert c.used_weight[1] == 3.0
    assert c.score[1] == pytest.approx(s.overall_scores[1], abs=1e-15)


def test_category_parts_skip_a_missing_benchmark_under_skip():
    c = mpl.contributions(scored("skip"), "Surfaces")
    assert c.level == "category" and c.path == "Surfaces"
    assert c.children == ("Surfaces/S1", "Surfaces/S2")
    assert c.parts[0] == pytest.approx([0.8 / 4, 3 * 0.75 / 4], abs=1e-15)
    # m2: S1 has no score, not used; S2 alone: 3 x 0.5 / 3
    assert np.isnan(c.parts[1, 0]) and c.parts[1, 1] == pytest.approx(0.5, abs=1e-15)
    assert c.used_weight[1] == 3.0
    # below the overall nothing is vetoed
    assert not c.vetoed.any()


def test_benchmark_parts_leave_out_a_weight_zero_metric():
    c = mpl.contributions(scored("invalidate"), "S2")  # a short form
    assert c.path == "Surfaces/S2" and c.level == "benchmark"
    assert c.names == ("b",) and c.parts[:, 0].tolist() == [0.75, 0.5, 1.0]


def test_an_excluded_category_is_explained_with_equal_weights():
    c = mpl.contributions(scored("invalidate"), "Spare")
    # Spare (weight 0) has one benchmark of weight 1: its score is O1's, e = 0 scores 1
    assert c.parts[:, 0].tolist() == [1.0, 1.0, 1.0]


def test_one_models_breakdown():
    rows = mpl.contributions(scored("skip"), "Surfaces").of("m2")
    assert rows == [
        {"name": "S1", "path": "Surfaces/S1", "weight": 1.0, "score": None, "part": None},
        {"name": "S2", "path": "Surfaces/S2", "weight": 3.0, "score": 0.5, "part": 0.5},
    ]
    frame = mpl.contributions(scored("skip")).frame
    assert list(frame.columns) == ["Surfaces", "Bulk"] and frame.loc["m2", "Bulk"] == 1 / 3


def test_bad_paths_and_models_are_named():
    s = scored("skip")
    with pytest.raises(ConfigError, match="Nope: no category or benchmark"):
        mpl.contributions(s, "Nope")
    with pytest.raises(ConfigError, match="S1/a: a metric has no parts"):
        mpl.contributions(s, "S1/a")
    with pytest.raises(ConfigError, match="m9: no such model"):
        mpl.contributions(s).of("m9")


def _node_scores(s: mpl.Scores):
    """(path, the node's scores before any veto) of every node with children."""
    plan = s.plan
    from ml_peg_like.aggregation import weighted_mean

    overall, _ = weighted_mean(
        s.cat_scores, plan.w_cat, np.zeros(1, dtype=np.intp), plan.overall_skip, None, False
    )
    yield None, overall[:, 0]
    for i, c in enumerate(s.config.categories):
        yield c.name, s.cat_scores[:, i]
    for k, b in enumerate(plan.benchmarks):
        yield b, s.bench_scores[:, k]


@settings(max_examples=120, deadline=None)
@given(config_and_raw())
def test_the_parts_sum_to_the_node_score(data):
    cfg, raw = data
    s = mpl.score(raw, cfg)
    for path, node in _node_scores(s):
        c = mpl.contributions(s, path)
        got = np.where(np.isnan(c.score), np.nan, np.nansum(c.parts, axis=1))
        # a node score without parts is possible only where the node has no positive weight
        assert np.array_equal(np.isnan(got), np.isnan(node)) or not c.weights.size, path
        ok = np.isnan(node) | (np.abs(got - node) <= 1e-12)
        assert ok.all(), (path, got, node)
        assert np.array_equal(c.score, got, equal_nan=True)
        if c.weights.size:
            assert (c.weights > 0).all()
