"""The scoring semantics of the page without a browser: the policy as a change, the no-score line,
excluded groups' own scores, presets that keep other edits, the sort's URL text."""

from __future__ import annotations

import numpy as np
import pytest
from dash import no_update

import ml_peg_like as mpl
from ml_peg_like.aggregation import shown_weights
from ml_peg_like.dashboard.components.controls import policy
from ml_peg_like.dashboard.components.controls.presets import merge_preset
from ml_peg_like.dashboard.components.editing import viewstate
from ml_peg_like.dashboard.state import clean_changes, effective_changes, make_query, parse_query

CFG = """
missing: invalidate
categories:
  A: {weight: 1, benchmarks: {B1: {metrics: {m: {good: 1, bad: 0}}}}}
  C: {weight: 1, benchmarks: {B2: {metrics: {x: {good: 1, bad: 0}, y: {good: 1, bad: 0}}}}}
  Z: {weight: 0, benchmarks: {B3: {weight: 0, metrics: {p: {good: 1, bad: 0, weight: 0},
                                                          q: {good: 1, bad: 0, weight: 0}}}}}
presets:
  Only A: {C: {weight: 0}}
"""
# models a, b: m, x, y, p, q
VALUES = np.array([[0.5, 0.2, np.nan, 0.4, 0.8], [1.0, 0.6, 0.4, np.nan, 0.2]])


@pytest.fixture
def cfg():
    return mpl.loads_config(CFG)


def test_excluded_group_gets_its_equal_weight_score_and_the_parent_ignores_it(cfg):
    s = mpl.score_values(VALUES, ["a", "b"], cfg)
    # Z/B3 (weight 0, metrics weight 0): mean of p and q, by hand; invalidate: b misses p
    assert s.bench_scores[0, 2] == pytest.approx((0.4 + 0.8) / 2)
    assert np.isnan(s.bench_scores[1, 2])
    assert s.cat_scores[0, 2] == pytest.approx(0.6)
    # the overall is (A + C) / 2; b: (1.0 + 0.5) / 2, a: C is invalidated (y missing)
    assert np.isnan(s.overall_scores[0]) and s.overall_scores[1] == pytest.approx(0.75)
    w = shown_weights(np.array([1.0, 0.0, 0.0]), np.array([0, 1]), np.array([1.0, 0.0]))
    assert w.tolist() == [1.0, 1.0, 1.0]
    w = shown_weights(np.array([0.0, 0.0]), np.array([0]), np.array([2.0]))
    assert w.tolist() == [0.0, 0.0]  # a positive-weight group keeps its weights


def test_no_score_line_names_the_count_the_category_and_the_policy(cfg):
    s = mpl.score_values(VALUES, ["a", "b"], cfg)
    st = policy.bar_state(s)
    assert st["text"].startswith("1 of 2 models have no overall score: 1 because a category")
    assert "policy 'invalidate'" in st["text"] and "missing: C for 1" in st["text"]
    assert st["button"] == {} and st["value"] == "invalidate"
    ch = effective_changes(cfg, policy.policy_changes({}, "skip", cfg))
    assert ch == {"": {"missing": "skip"}}
    s2 = mpl.score_values(VALUES, ["a", "b"], cfg.apply_changes(ch))
    assert s2.overall_scores[0] == pytest.approx((0.5 + 0.2) / 2)
    assert policy.bar_state(s2)["text"] == "" and policy.bar_state(s2)["button"] == policy.HIDDEN


def test_policy_is_a_client_changeable_field_and_a_url_parameter(cfg):
    assert clean_changes(cfg, {"": {"missing": "skip"}, "A": {"missing": "skip"}}) == {
        "": {"missing": "skip"},
        "A": {"missing": "skip"},
    }
    with pytest.raises(ValueError):
        clean_changes(cfg, {"": {"title": "x"}})
    with pytest.raises(ValueError):
        clean_changes(cfg, {"A/B1": {"missing": "skip"}})  # a benchmark has no policy box
    q = make_query({"": {"missing": "skip"}, "A": {"weight": 2}}, view_extra={"sort": "o.desc"})
    parsed = parse_query(q)
    assert parsed["missing"] == "skip" and parsed["sort"] == "o.desc" and "s" in parsed
    assert effective_changes(cfg, {"": {"missing": "invalidate"}}) == {}


def test_preset_merges_into_the_changes(cfg):
    edits = {"A/B1/m": {"good": 0.9}, "C": {"weight": 3}}
    assert merge_preset(edits, cfg.presets["Only A"]) == {
        "A/B1/m": {"good": 0.9},
        "C": {"weight": 0},
    }


def test_sort_text_of_the_url():
    assert viewstate.sort_text("o.desc") == "o.desc"
    assert viewstate.sort_text("rank.asc") == ""  # the default
    assert viewstate.sort_text("o.sideways") == "" and viewstate.sort_text("<x>.asc") == ""
    state = [{"colId": "rank", "sort": None}, {"colId": "c1", "sort": "asc", "sortIndex": 0}]
    assert viewstate.sort_of(state) == "c1.asc"
    assert viewstate.effective_sort("n3.desc", "raw", "raw") == "r3.desc"
    cols = viewstate.apply_sort([{"colId": "rank", "sort": "asc"}, {"colId": "o"}], "o.desc")
    assert cols == [{"colId": "rank", "sort": None}, {"colId": "o", "sort": "desc"}]


def test_the_policy_bar_is_sent_only_where_it_differs_from_the_shown_one(cfg):
    """policy.fill(shown=...): the bar's texts, the button's style and the summary equal to those
    of the scores the page shows are not sent again (no_update)."""
    s = mpl.score_values(VALUES, ["a", "b"], cfg)
    keys = ("overrides", "no_score", "skip_style", "summary")
    out: dict = {}
    policy.fill(out, "invalidate", s, shown=s)
    assert all(out[k] is no_update for k in keys)
    # a weight edit of x: the same missing models, the same texts: nothing of the bar is sent
    edited = mpl.score_values(VALUES, ["a", "b"], cfg.apply_changes({"C/B2/x": {"weight": 2}}))
    out = {}
    policy.fill(out, "invalidate", edited, shown=s)
    assert all(out[k] is no_update for k in keys)
    # skip: a's overall comes back (the no-score line empties, the button hides, the summary
    # names the policy): those are sent, as without ``shown``
    ch = effective_changes(cfg, policy.policy_changes({}, "skip", cfg))
    s2 = mpl.score_values(VALUES, ["a", "b"], cfg.apply_changes(ch))
    out, full = {}, {}
    policy.fill(out, "invalidate", s2, shown=s)
    policy.fill(full, "invalidate", s2)
    assert out["no_score"] == full["no_score"] == ""
    assert out["skip_style"] == full["skip_style"] == policy.HIDDEN
    assert out["summary"] == full["summary"] and "skip" in out["summary"]
    assert out["policy"] == "skip"
