"""Aggregation, missing policies, weights and ranks, checked against hand-computed numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_engine import raw_csv, raw_matrix

import ml_peg_like as mpl

TREE = """
title: Hand example
missing: {missing}
categories:
  A:
    weight: 2
    benchmarks:
      B1:
        weight: 1
        metrics:
          m1: {{good: 0, bad: 10}}
          m2: {{good: 1, bad: 0, weight: 3}}
      B2:
        weight: 3
        metrics:
          m3: {{good: 100, bad: 0}}
  C:
    benchmarks:
      B3:
        metrics:
          m4: {{good: 1, bad: 5, normaliser: traffic_light}}
"""


def cfg_with(missing="invalidate"):
    return mpl.loads_config(TREE.format(missing=missing))


ROWS = [
    ("p", "B1", "m1", 2),
    ("p", "B1", "m2", 0.5),
    ("p", "B2", "m3", 50),
    ("p", "B3", "m4", 3),
    ("q", "B1", "m2", 1),
    ("q", "B2", "m3", 100),
    ("q", "B3", "m4", 0.5),
]


def test_every_level_is_the_weighted_mean_computed_by_hand():
    cfg = cfg_with()
    s = mpl.score(raw_csv(cfg, ROWS), cfg)
    # p: m1 (2 -> 0.8), m2 (0.5 -> 0.5, weight 3): B1 = (0.8 + 1.5) / 4 = 0.575
    assert s.metrics.loc["p", "B1/m1"] == pytest.approx(0.8)
    assert s.benchmarks.loc["p", "B1"] == pytest.approx(0.575)
    assert s.benchmarks.loc["p", "B2"] == pytest.approx(0.5)
    # A = (0.575 * 1 + 0.5 * 3) / 4 = 0.51875; C = traffic light orange = 0.5
    assert s.categories.loc["p", "A"] == pytest.approx(0.51875)
    assert s.categories.loc["p", "C"] == pytest.approx(0.5)
    # overall = (2 * 0.51875 + 1 * 0.5) / 3 = 0.5125
    assert s.overall.loc["p", "score"] == pytest.approx(0.5125)


def test_invalidate_makes_every_ancestor_of_a_missing_metric_missing():
    cfg = cfg_with("invalidate")
    s = mpl.score(raw_csv(cfg, ROWS), cfg)
    assert math.isnan(s.benchmarks.loc["q", "B1"])
    assert math.isnan(s.categories.loc["q", "A"])
    assert math.isnan(s.overall.loc["q", "score"])
    assert s.benchmarks.loc["q", "B2"] == pytest.approx(1.0)
    assert s.categories.loc["q", "C"] == pytest.approx(1.0)
    # the model without an overall score has no rank (not a last place)
    assert s.overall["rank"].isna().tolist() == [False, True]
    assert s.overall.loc["p", "rank"] == 1
    assert "coverage" not in s.overall.columns


def test_skip_renormalises_and_reports_coverage():
    cfg = cfg_with("skip")
    s = mpl.score(raw_csv(cfg, ROWS), cfg)
    assert s.benchmarks.loc["q", "B1"] == pytest.approx(1.0)  # only m2 present
    assert s.bench_coverage[1, 0] == pytest.approx(0.75)  # weight 3 of 4 present
    # A coverage = (0.75 * 1 + 1 * 3) / 4 = 0.9375; overall = (2 * 0.9375 + 1) / 3
    assert s.cat_coverage[1, 0] == pytest.approx(0.9375)
    assert s.overall.loc["q", "score"] == pytest.approx(1.0)
    assert s.overall.loc["q", "coverage"] == pytest.approx((2 * 0.9375 + 1) / 3)
    assert s.overall.loc["p", "coverage"] == pytest.approx(1.0)


def test_a_category_may_override_the_missing_policy():
    text = TREE.format(missing="invalidate").replace(
        "    weight: 2\n", "    weight: 2\n    missing: skip\n", 1
    )
    cfg = mpl.loads_config(text)
    s = mpl.score(raw_csv(cfg, ROWS), cfg)
    assert s.categories.loc["q", "A"] == pytest.approx(1.0)
    assert s.overall.loc["q", "score"] == pytest.approx(1.0)
    assert "coverage" in s.overall.columns


def test_weight_zero_child_is_ignored_even_when_missing():
    cfg = cfg_with().with_weight("A/B1/m1", 0)
    s = mpl.score(raw_csv(cfg, ROWS), cfg)
    assert s.benchmarks.loc["q", "B1"] == pytest.approx(1.0)
    assert s.benchmarks.loc["p", "B1"] == pytest.approx(0.5)  # m2 only
    assert s.overall.loc["q", "score"] == pytest.approx(1.0)


def test_all_zero_weights_give_a_missing_group_not_zero():
    cfg = cfg_with().with_weight("A/B1/m1", 0).with_weight("A/B1/m2", 0)
    s = mpl.score(raw_csv(cfg, ROWS), cfg)
    assert np.isnan(s.benchmarks["B1"]).all()
    # invalidate: B1 (weight 1) missing makes A missing
    assert np.isnan(s.categories["A"]).all()
    cfg2 = cfg_with("skip").with_weight("A/B1/m1", 0).with_weight("A/B1/m2", 0)
    s2 = mpl.score(raw_csv(cfg2, ROWS), cfg2)
    assert s2.categories.loc["p", "A"] == pytest.approx(0.5)  # B2 alone
    cfg3 = cfg_with().with_weight("A", 0).with_weight("C", 0)
    s3 = mpl.score(raw_csv(cfg3, ROWS), cfg3)
    assert np.isnan(s3.overall["score"]).all()


def test_ties_share_the_best_rank_and_missing_has_no_rank():
    # 0.9 first; the two 0.5 share rank 2; 0.1 has three scored models above it: rank 4
    r = mpl.rank_desc(np.array([0.5, 0.9, 0.5, np.nan, 0.1]))
    assert r[[0, 1, 2, 4]].tolist() == [2, 1, 2, 4] and np.isnan(r[3])
    assert np.isnan(mpl.rank_desc(np.array([np.nan, np.nan]))).all()
    # scores equal up to floating-point noise are tied
    assert mpl.rank_desc(np.array([0.3, 0.1 + 0.2])).tolist() == [1, 1]


def test_uai_score_relative_to_a_trivial_solver():
    cfg = mpl.loads_config(
        """
categories:
  PR:
    benchmarks:
      Instance1:
        metrics:
          Err: {good: 0, bad: {model: trivial}}
"""
    )
    raw = raw_matrix(cfg, ["trivial", "a", "b", "c"], [[4.0], [1.0], [5.0], [0.0]])
    s = mpl.score(raw, cfg)
    # max(0, 1 - Err / MaxErr): 1 - 1/4 = 0.75; worse than trivial -> 0; exact -> 1
    assert s.metrics["Instance1/Err"].tolist() == pytest.approx([0.0, 0.75, 0.0, 1.0])


def test_best_and_worst_thresholds_follow_the_data():
    cfg = mpl.loads_config(
        """
categories:
  C:
    benchmarks:
      B:
        metrics:
          err: {good: best, bad: worst, better: lower}
          acc: {good: best, bad: worst, better: higher}
"""
    )
    raw = raw_matrix(cfg, ["x", "y", "z"], [[1, 0.2], [3, 0.6], [5, 1.0]])
    s = mpl.score(raw, cfg)
    assert s.metrics["B/err"].tolist() == pytest.approx([1.0, 0.5, 0.0])
    assert s.metrics["B/acc"].tolist() == pytest.approx([0.0, 0.5, 1.0])


def test_a_model_reference_without_data_leaves_the_metric_unscored_with_a_warning():
    cfg = mpl.loads_config(
        "categories: {C: {benchmarks: {B: {metrics: {e: {good: 0, bad: {model: ghost}}}}}}}"
    )
    s = mpl.score(raw_matrix(cfg, ["a"], [[1.0]]), cfg)
    assert math.isnan(s.metrics.iloc[0, 0])
    assert any("ghost" in w for w in s.warnings)


def test_scale_100_multiplies_every_exported_score_but_not_ranks():
    cfg = cfg_with()
    s = mpl.score(raw_csv(cfg, ROWS), cfg)
    t = s.tables(100)
    ov = t["overall_scores"].set_index("model")
    assert ov.loc["p", "score"] == pytest.approx(51.25)
    assert ov.loc["p", "rank"] == 1
    assert list(t["overall_scores"].columns[:3]) == ["model", "score", "rank"]
    assert t["metric_scores"].columns[0] == "model"


def test_raw_columns_are_realigned_when_the_config_order_differs():
    cfg = cfg_with()
    raw = raw_csv(cfg, ROWS)
    reordered = mpl.RawData(raw.models, tuple(reversed(raw.metric_ids)), raw.values[:, ::-1])
    a = mpl.score(raw, cfg).overall["score"]
    b = mpl.score(reordered, cfg).overall["score"]
    assert np.allclose(a.fillna(-1), b.fillna(-1))


def test_edits_return_new_configs_and_leave_the_original_unchanged():
    cfg = cfg_with()
    new = cfg.with_threshold("A/B1/m1", good=1, bad=3)
    assert cfg.node("A/B1/m1").good == 0.0
    assert new.node("A/B1/m1").good == 1.0 and new.node("A/B1/m1").bad == 3.0
    assert new.node("B1/m1") is new.node("A/B1/m1")  # short path
    s = mpl.score(raw_csv(new, ROWS), new)
    assert s.metrics.loc["p", "B1/m1"] == pytest.approx(0.5)  # (2 - 3) / (1 - 3)
    assert cfg.diff(new) == {"A/B1/m1": {"good": 1.0, "bad": 3.0}}
