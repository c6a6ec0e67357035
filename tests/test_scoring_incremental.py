"""Incremental re-scoring: the scores of an edited config derived from those of a close
one (``scoring.incremental.rescore``, used by the dashboard's ScoreCache) equal the full scoring,
for random sequences of edits over weights, policies, missing data, vetoes and normalisers; a
change that is not a few metrics' numeric parameters falls back to the full scoring."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ml_peg_like.config import loads_config
from ml_peg_like.dashboard.cache import ScoreCache
from ml_peg_like.raw import RawData
from ml_peg_like.scoring import score_values
from ml_peg_like.scoring.incremental import changed_metrics, rescore

CONFIG = """
missing: {missing}
categories:
  A:
    missing: skip
    benchmarks:
      A1:
        metrics:
          x: {{good: 0, bad: 10}}
          y: {{good: 5, bad: 1, weight: 2}}
          z: {{good: 0, bad: 1, weight: 0}}
      A2:
        weight: 3
        metrics:
          t: {{normaliser: traffic_light, good: 1, bad: 4}}
  B:
    weight: 2
    benchmarks:
      B1:
        metrics:
          s: {{normaliser: weibull_speedup, b: 1.7, c: 5}}
          u: {{good: {{model: m0}}, bad: 100}}
          v: {{good: best, bad: worst, better: lower}}
      B2:
        weight: 0
        metrics:
          w: {{good: 2, bad: 0}}
  C:
    weight: 0.5
    missing: invalidate
    benchmarks:
      C1: {{metrics: {{k: {{good: 1, bad: 0}}, l: {{good: 0, bad: 1}}}}}}
vetoes:
  - metric: C/C1/l
    above: 0.9
"""
#: the metrics with numeric thresholds (the simple edits) and their fields
SIMPLE = {
    "A/A1/x": ("good", "bad"),
    "A/A1/y": ("good", "bad"),
    "A/A1/z": ("good", "bad"),
    "A/A2/t": ("good", "bad"),
    "B/B1/s": ("c", "b"),
    "B/B2/w": ("good", "bad"),
    "C/C1/k": ("good", "bad"),
    "C/C1/l": ("good", "bad"),
}


def _data(missing: str, seed: int):
    cfg = loads_config(CONFIG.format(missing=missing), "t.yml")
    rng = np.random.default_rng(seed)
    n = 12
    values = rng.uniform(0, 10, size=(n, len(cfg.metric_ids())))
    values[rng.random(values.shape) < 0.15] = np.nan  # missing data everywhere
    raw = RawData(tuple(f"m{i}" for i in range(n)), tuple(cfg.metric_ids()), values)
    return cfg, raw


def _full(cache: ScoreCache, cfg):
    return score_values(cache.values, cache.models, cfg, cache.instances)


def _same(a, b) -> None:
    for name in (
        "metric_scores",
        "bench_scores",
        "cat_scores",
        "overall_scores",
        "bench_coverage",
        "cat_coverage",
        "overall_coverage",
    ):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape, name
        np.testing.assert_array_equal(np.isnan(x), np.isnan(y), err_msg=name)
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12, err_msg=name)
    np.testing.assert_array_equal(a.ranks, b.ranks)
    np.testing.assert_array_equal(a.vetoed, b.vetoed)
    assert a.veto_reasons == b.veto_reasons
    assert a.warnings == b.warnings
    assert a.resolved.keys() == b.resolved.keys()
    for name, params in b.resolved.items():
        assert a.resolved[name].keys() == params.keys(), name
        for k, v in params.items():
            np.testing.assert_array_equal(a.resolved[name][k], v, err_msg=f"{name}.{k}")
    assert a.plan.groups.__len__() == b.plan.groups.__len__()
    for ga, gb in zip(a.plan.groups, b.plan.groups, strict=True):
        assert ga[0] == gb[0] and ga[3] == gb[3]
        np.testing.assert_array_equal(ga[1], gb[1])
        assert ga[2].keys() == gb[2].keys()
        for k in gb[2]:
            np.testing.assert_array_equal(ga[2][k], gb[2][k])


EDIT = st.tuples(
    st.sampled_from(sorted(SIMPLE)),
    st.integers(0, 1),
    st.floats(0.1, 9.9, allow_nan=False).map(lambda v: round(v, 3)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    missing=st.sampled_from(["invalidate", "skip"]),
    seed=st.integers(0, 3),
    edits=st.lists(
        st.one_of(
            EDIT,
            st.tuples(st.just("weight"), st.sampled_from(sorted(SIMPLE)), st.floats(0, 3)),
            st.tuples(st.just("policy"), st.sampled_from(["A", "C"]), st.booleans()),
            st.tuples(st.just("reset"), st.just(""), st.just(0)),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_cache_scores_equal_full_scoring(missing, seed, edits):
    """Every state of a random edit sequence, as the ScoreCache answers it (derived from a
    recent state's scores where it can), equals the full scoring of that state."""
    cfg, raw = _data(missing, seed)
    cache = ScoreCache(cfg, raw)
    changes: dict = {}
    for a, b, c in edits:
        new = {p: dict(f) for p, f in changes.items()}
        if a == "weight":
            new.setdefault(b, {})["weight"] = round(c, 3)
        elif a == "policy":
            new.setdefault(b, {})["missing"] = "skip" if c else "invalidate"
        elif a == "reset":
            new = {}
        else:
            field = SIMPLE[a][b]
            if field in ("b", "c"):
                c = max(c, 0.5)
            new.setdefault(a, {})[field] = c
        try:
            got_cfg, got = cache.scores_for(new)
        except Exception:  # an invalid state (e.g. a zero-weight group): the page refuses it
            continue
        changes = new
        _same(got, _full(cache, got_cfg))


def test_one_threshold_rescores_one_column_with_hand_numbers():
    """x: good 0, bad 10 -> good 0, bad 5: a raw 2.5 scores 0.5 (was 0.75); A1's mean (weights
    1, 2, 0 -> x and y) and the rest follow; the other metric columns are the previous ones."""
    cfg, raw = _data("invalidate", 0)
    base = _full(ScoreCache(cfg, raw), cfg)
    raw.values[0, 0] = 2.5
    cache = ScoreCache(cfg, raw)
    new_cfg = cfg.apply_changes({"A/A1/x": {"bad": 5}})
    got = rescore(cache.default_scores, new_cfg)
    assert got is not None
    assert cache.default_scores.metric_scores[0, 0] == pytest.approx(0.75)
    assert got.metric_scores[0, 0] == pytest.approx(0.5)
    assert changed_metrics(cfg, new_cfg) == [0]
    _same(got, _full(cache, new_cfg))
    # the unchanged columns are copied, not normalised again
    np.testing.assert_array_equal(
        got.metric_scores[:, 1:], cache.default_scores.metric_scores[:, 1:]
    )
    assert base.metric_scores.shape == got.metric_scores.shape


@pytest.mark.parametrize(
    "changes",
    [
        {"A/A1/x": {"weight": 2}},  # a weight
        {"A": {"missing": "invalidate"}},  # a policy
        {"": {"missing": "skip"}},  # the config's policy
        {"A/A1/x": {"good": {"model": "m1"}}},  # a threshold taken from the data
        {"B/B1/u": {"bad": 50}},  # a metric whose other threshold is taken from the data
        {"B/B1/v": {"good": 1, "bad": 9}},  # best/worst before
    ],
)
def test_other_changes_fall_back_to_full_scoring(changes):
    cfg, raw = _data("invalidate", 1)
    cache = ScoreCache(cfg, raw)
    new_cfg = cfg.apply_changes(changes)
    assert rescore(cache.default_scores, new_cfg) is None
    got_cfg, got = cache.scores_for(changes)
    _same(got, _full(cache, got_cfg))
