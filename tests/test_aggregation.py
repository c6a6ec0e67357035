"""The aggregation kernel (ml_peg_like.aggregation), checked against hand-computed numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_engine import raw_matrix

import ml_peg_like as mpl
from ml_peg_like import aggregation as agg
from ml_peg_like.config import Benchmark, Category, Config, Metric, ModelRef
from ml_peg_like.scoring import resolve_threshold

nan = math.nan


def test_group_sum_gives_0_to_empty_groups_anywhere():
    a = np.array([[1.0, 2.0, 4.0]])
    # groups: [1, 2], [], [4], [] (an empty group in last position, start == n)
    assert agg.group_sum(a, np.array([0, 2, 2, 3])).tolist() == [[3.0, 0.0, 4.0, 0.0]]
    assert agg.group_sum(a, np.array([0, 0, 1])).tolist() == [[0.0, 1.0, 6.0]]
    assert agg.group_sum(np.zeros((2, 0)), np.array([0, 0])).tolist() == [[0, 0], [0, 0]]


def test_weighted_mean_invalidate_skip_and_coverage_by_hand():
    # one model; groups [0.5, NaN (w 1), 1.0 (w 0)] and [0.2 (w 1), 0.8 (w 3)]
    s = np.array([[0.5, nan, 1.0, 0.2, 0.8]])
    w = np.array([2.0, 1.0, 0.0, 1.0, 3.0])
    starts = np.array([0, 3])
    out, cov = agg.weighted_mean(s, w, starts, [False, False])
    assert math.isnan(out[0, 0]) and out[0, 1] == pytest.approx((0.2 + 2.4) / 4)
    assert cov.tolist() == [[0.0, 1.0]]  # an invalidated group uses none of its weight
    out, cov = agg.weighted_mean(s, w, starts, [True, False])
    assert out[0, 0] == pytest.approx(0.5)  # skip: mean over the present (2 of 3 weight)
    assert cov[0].tolist() == pytest.approx([2 / 3, 1.0])


def test_empty_groups_are_missing_never_a_neighbours_value():
    s = np.array([[0.3, 0.9]])
    w = np.array([1.0, 1.0])
    for skip in (False, True):
        out, cov = agg.weighted_mean(s, w, np.array([0, 1, 1, 2]), skip)
        assert out[0, 0] == 0.3 and out[0, 2] == 0.9
        assert math.isnan(out[0, 1]) and math.isnan(out[0, 3])  # no IndexError either
        assert math.isnan(cov[0, 1]) and math.isnan(cov[0, 3])


def test_batched_weights_equal_one_call_per_weight_vector():
    rng = np.random.default_rng(1)
    X = rng.random((4, 6))
    X[rng.random(X.shape) < 0.3] = nan
    W = rng.choice([0.0, 1.0, 2.0], size=(3, 6))
    starts = np.array([0, 2, 2, 5])
    skip = np.array([True, False, True, False])
    out, _ = agg.weighted_mean(X, W, starts, skip)
    out3, _ = agg.weighted_mean(np.broadcast_to(X, (3, 4, 6)), W, starts, skip)
    for r in range(3):
        ref, _ = agg.weighted_mean(X, W[r], starts, skip)
        assert np.array_equal(out[r], ref, equal_nan=True)
        assert np.array_equal(out3[r], ref, equal_nan=True)


def test_group_state_and_reason_codes_by_hand():
    child = np.array([[nan, 1.0, 0.5, nan], [0.2, nan, nan, nan]])
    w = np.array([1.0, 0.0, 1.0, 1.0])
    starts = np.array([0, 2])
    assert agg.group_state(child, w, starts).tolist() == [
        [agg.NONE_PRESENT, agg.PARTIAL],
        [agg.FULL, agg.NONE_PRESENT],
    ]
    parent = np.array([[nan, nan], [0.2, nan]])
    codes = agg.reasons(child, w, starts, parent)
    assert codes.dtype == np.uint8
    assert codes.tolist() == [[agg.NO_DATA, agg.INVALIDATED], [agg.PRESENT, agg.NO_DATA]]
    assert agg.reasons(child, np.zeros(4), starts, parent).tolist() == [
        [agg.EXCLUDED, agg.EXCLUDED],
        [agg.PRESENT, agg.EXCLUDED],
    ]
    # a parent whose only positive child was itself invalidated is 'invalidated', not 'no data'
    inval = np.array([[agg.INVALIDATED, agg.PRESENT, agg.PRESENT, agg.PRESENT]] * 2, np.uint8)
    got = agg.reasons(child, w, starts, parent, inval)
    assert got[0, 0] == agg.INVALIDATED
    assert set(agg.REASON_TEXT) == {agg.NO_DATA, agg.NO_THRESHOLD, agg.EXCLUDED, agg.INVALIDATED}


def test_metric_reasons_by_hand():
    # model 0: a value and a score; a value but no score (its threshold names a model with no
    # value); model 1: no value at all, a value and a score
    raw = np.array([[3.0, 7.0], [nan, 2.0]])
    scores = np.array([[0.5, nan], [nan, 1.0]])
    codes = agg.metric_reasons(raw, scores)
    assert codes.dtype == np.uint8
    assert codes.tolist() == [[agg.PRESENT, agg.NO_THRESHOLD], [agg.NO_DATA, agg.PRESENT]]


def test_coverage_under_mixed_policies_is_the_weight_actually_used():
    """Global skip; category A (invalidate) misses one of its two metrics,
    category B is complete: the overall score is B's alone, and the coverage is 0.5."""
    cfg = mpl.loads_config(
        """
missing: skip
categories:
  A:
    missing: invalidate
    benchmarks:
      BA:
        metrics:
          a1: {good: 1, bad: 0}
          a2: {good: 1, bad: 0}
  B:
    benchmarks:
      BB:
        metrics:
          b1: {good: 1, bad: 0}
"""
    )
    s = mpl.score(raw_matrix(cfg, ["m"], [[0.4, nan, 0.8]]), cfg)
    assert math.isnan(s.cat_scores[0, 0])
    assert s.overall_scores[0] == pytest.approx(0.8)
    assert s.overall_coverage[0] == pytest.approx(0.5)
    assert s.overall["coverage"]["m"] == pytest.approx(0.5)


def _metric(name):
    return Metric(name=name, good=1.0, bad=0.0)


@pytest.mark.parametrize("position", ["first", "middle", "last"])
def test_an_empty_benchmark_built_from_dataclasses_scores_nan(position):
    """The empty benchmark is missing (never its neighbour's score), also in
    last position (no IndexError)."""
    full1 = Benchmark("F1", (_metric("x"),))
    full2 = Benchmark("F2", (_metric("y"),))
    empty = Benchmark("E", ())
    order = {
        "first": (empty, full1, full2),
        "middle": (full1, empty, full2),
        "last": (full1, full2, empty),
    }[position]
    for missing in ("invalidate", "skip"):
        cfg = Config(categories=(Category("C", order),), missing=missing)
        s = mpl.score(raw_matrix(cfg, ["m"], [[0.25, 0.75]]), cfg)
        by = dict(zip(s.plan.benchmarks, s.bench_scores[0], strict=True))
        assert by["F1"] == 0.25 and by["F2"] == 0.75 and math.isnan(by["E"])
        if missing == "skip":  # the empty benchmark has no data: skipped
            assert s.overall_scores[0] == pytest.approx(0.5)
            assert s.overall_coverage[0] == pytest.approx(2 / 3)
        else:  # a missing child with weight 1 invalidates
            assert math.isnan(s.overall_scores[0])


def test_an_empty_category_in_last_position_is_missing():
    cfg = Config(
        categories=(Category("C", (Benchmark("F", (_metric("x"),)),)), Category("E", ())),
        missing="skip",
    )
    s = mpl.score(raw_matrix(cfg, ["m"], [[0.6]]), cfg)
    assert s.cat_scores[0, 0] == 0.6 and math.isnan(s.cat_scores[0, 1])
    assert s.overall_scores[0] == pytest.approx(0.6)


def test_a_model_threshold_without_a_value_leaves_the_metric_missing_for_everyone():
    """A {model: NAME} threshold naming an unknown model, or a known model without a value."""
    for ref, why in (("Nope", "is not a model of the data"), ("b", "has no value")):
        cfg = mpl.loads_config(
            "categories: {C: {benchmarks: {B: {metrics: {"
            f"e: {{good: 0, bad: {{model: {ref}}}}}, f: {{good: 0, bad: 1}}"
            "}}}}}"
        )
        s = mpl.score(raw_matrix(cfg, ["a", "b"], [[1.0, 0.5], [nan, 0.25]]), cfg)
        assert np.isnan(s.metric_scores[:, 0]).all()
        assert s.metric_scores[:, 1].tolist() == [0.5, 0.75]
        assert s.warnings == [
            f"C/B/e.bad: model '{ref}' {why}; metric left unscored for every model"
        ]


def test_resolve_threshold_never_raises():
    m = _metric("x")
    col = np.array([1.0, nan])
    models = {"a": 0, "b": 1}
    assert resolve_threshold(ModelRef("a"), col, models, m) == 1.0
    for spec in (ModelRef("b"), ModelRef("zz"), ModelRef(["list"]), ModelRef(None), "median", 3):
        assert math.isnan(resolve_threshold(spec, col, models, m))
    assert math.isnan(resolve_threshold("best", np.array([nan]), models, m))


def test_group_count_is_the_sum_of_the_groups_trues():
    """``group_count`` (counted from the fewer of the True and False entries) equals the sums of
    the 0/1 entries: hand-made groups (empty ones first, inside and last) and random masks."""
    mask = np.array([[True, False, True, True, False], [False, False, False, False, True]])
    starts = np.array([0, 0, 2, 5])  # empty, [0, 1], [2, 3, 4], empty at the end
    assert agg.group_count(mask, starts).tolist() == [[0, 1, 2, 0], [0, 0, 1, 0]]
    assert agg.group_count(~mask, starts).tolist() == [[0, 1, 1, 0], [0, 2, 2, 0]]
    rng = np.random.default_rng(2)
    for _ in range(300):
        n, m = int(rng.integers(0, 12)), int(rng.integers(0, 6))
        starts = np.sort(rng.integers(0, n + 1, int(rng.integers(0, 5))))
        if starts.size and rng.random() < 0.7:
            starts[0] = 0
        mask = rng.random((m, n)) < rng.random()
        got = agg.group_count(mask, starts, n)
        want = agg.group_sum(mask.astype(np.int64), starts, n)
        assert got.dtype == np.int64 and got.shape == want.shape
        assert np.array_equal(got, want)
