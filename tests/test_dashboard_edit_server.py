"""The server's share of an edit: the rows' reason codes (metric codes made for the
view's columns only), the unresolved {model: NAME} thresholds (only metrics that have one are
checked) and the rows of a re-scored state equal to those of a full scoring."""

from __future__ import annotations

import numpy as np
from test_scoring_incremental import _data

from ml_peg_like.dashboard.cache import ScoreCache
from ml_peg_like.dashboard.tables import row_data, threshold_problems
from ml_peg_like.scoring import score_values


def _cache() -> ScoreCache:
    cfg, raw = _data("invalidate", 0)
    raw.values[0, :] = np.nan  # m0 has no value at all (B/B1/u's good is m0's value)
    raw.values[1, 0] = np.nan  # m1 lacks A/A1/x
    return ScoreCache(cfg, raw)


def test_reason_codes_of_the_benchmark_views():
    sc = _cache().default_scores
    assert threshold_problems(sc) == {
        ("B/B1/u", "good"): "good is the value of model m0, which has none for this metric"
    }
    assert threshold_problems(sc, paths={"A/A1/x"}) == {}
    b1 = {r["model"]: r for r in row_data(sc, "B/B1")}
    # m1: u (column 5) has a value but no threshold ('t'); B1 (policy invalidate) loses it ('i')
    assert b1["m1"]["_w"] == {"bs": "i", "n5": "t", "r5": "t"}
    assert b1["m1"]["n5"] is None and b1["m1"]["r5"] is not None
    # m0: no data anywhere
    assert set(b1["m0"]["_w"].values()) == {"n"}
    a1 = {r["model"]: r for r in row_data(sc, "A/A1")}
    # A is 'skip': m1's A1 is the mean of y (weight 2; z has weight 0) without x
    assert a1["m1"]["_w"] == {"n0": "n", "r0": "n"}
    assert a1["m1"]["bs"] == round(float(sc.metric_scores[1, 1]), 9)


def test_rows_of_a_rescored_edit_equal_the_full_scoring():
    cache = _cache()
    for changes in ({"A/A1/y": {"good": 4}}, {"A/A1/y": {"good": 4}, "B/B1/s": {"c": 3}}):
        cfg, got = cache.scores_for(changes)
        full = score_values(cache.values, cache.models, cfg, cache.instances)
        for view in ("", "A", "A/A1", "B/B1"):
            assert row_data(got, view) == row_data(full, view)
        assert threshold_problems(got) == threshold_problems(full)
