"""Each action of the server's callback as a pure function, without Dash: (settings, view,
action) -> (new settings, new view, message), with the expected step worked out by hand from
the small board below; and the callback's answer parts, each owning its own outputs."""

from __future__ import annotations

import base64
import dataclasses

import numpy as np
import pytest
from dash import no_update

from ml_peg_like.config import loads_config
from ml_peg_like.dashboard import ids
from ml_peg_like.dashboard.cache import ScoreCache
from ml_peg_like.dashboard.components.board.sensitivity import EDIT_OUTPUTS, Sensitivity
from ml_peg_like.dashboard.components.editing import actions, edit
from ml_peg_like.dashboard.components.editing.actions import Action, Env, Step
from ml_peg_like.dashboard.components.explore import view as explore_view
from ml_peg_like.dashboard.state import encode_changes, encode_filters
from ml_peg_like.raw import RawData

CFG = """
missing: invalidate
categories:
  A:
    benchmarks:
      B1:
        metrics:
          m: {good: 1, bad: 0}
          n: {good: 0, bad: 10}
  C:
    benchmarks:
      B2:
        metrics:
          x: {good: 1, bad: 0}
presets:
  Only A: {C: {weight: 0}}
"""
MODELS = ("a", "b")
# a lacks x: under "invalidate" its category C and its overall score are missing
VALUES = np.array([[0.5, 2.0, np.nan], [1.0, 5.0, 0.4]])


@pytest.fixture(scope="module")
def cache() -> ScoreCache:
    cfg = loads_config(CFG, "t.yml")
    metric_ids = tuple(cfg.metric_ids())
    return ScoreCache(cfg, RawData(MODELS, metric_ids, VALUES))


@pytest.fixture(scope="module")
def env(cache) -> Env:
    return Env(cache)


def _step(cache, **fields) -> Step:
    """The overview with no changes, unless ``fields`` says otherwise."""
    base = dict(
        changes={},
        view="",
        metric="",
        page="",
        sel=explore_view.defaults(cache),
        filters={},
        show="raw",
        sort="",
        digits=3,
    )
    return Step(**{**base, **fields})


def _text(message) -> tuple[str, str]:
    """(text, kind) of a status message."""
    return message.children, message.className.split()[-1]


EDITS = {"A/B1/m": {"good": 0.9}, "A/B1/n": {"bad": 5}, "C": {"weight": 3}}


# ------------------------------------------------------------------------------------------------
# resets
# ------------------------------------------------------------------------------------------------


def test_reset_one_drops_that_row_and_rewrites_the_boxes(env, cache):
    before = _step(cache, changes=EDITS, view="A/B1")
    trig = {ids.KEY_TYPE: ids.T_RESET, ids.KEY_PATH: "A/B1/m"}
    after = actions.dispatch(env, before, Action(trig))
    assert after.changes == {"A/B1/n": {"bad": 5}, "C": {"weight": 3}}
    assert after.rewrite and after.status is no_update and not after.final
    assert (after.view, after.metric, after.set) == ("A/B1", "", {})
    assert before.changes == EDITS  # the step the page shows is not touched


def test_reset_table_drops_the_rows_of_the_boxes_shown(env, cache):
    before = _step(cache, changes=EDITS, view="A/B1")
    boxes = (("A/B1/m", "good", 0.9), ("A/B1/m", "bad", 0), ("A/B1/n", "bad", 5))
    after = actions.dispatch(env, before, Action(ids.RESET_TABLE, boxes=boxes))
    assert after.changes == {"C": {"weight": 3}}  # C has no box on this view
    assert after.rewrite and after.status is no_update


def test_reset_all_leaves_no_change_and_says_so(env, cache):
    after = actions.dispatch(env, _step(cache, changes=EDITS), Action(ids.RESET_ALL))
    assert after.changes == {} and after.rewrite
    assert _text(after.status) == ("Back to the default settings.", "ok")


# ------------------------------------------------------------------------------------------------
# presets, the policy, the sort
# ------------------------------------------------------------------------------------------------


def test_a_preset_merges_its_values_and_keeps_the_other_changes(env, cache):
    before = _step(cache, changes={"A/B1/m": {"good": 0.9}})
    after = actions.dispatch(env, before, Action(ids.PRESET, kw={"preset": "Only A"}))
    assert after.changes == {"A/B1/m": {"good": 0.9}, "C": {"weight": 0}}
    assert after.cfg.node("C").weight == 0  # the config of the new changes, built once
    assert _text(after.status) == (
        "Preset “Only A” applied: it sets 1 value; your 1 other change kept.",
        "ok",
    )
    assert after.rewrite and after.set == {}  # the picker keeps the preset shown


def test_an_unknown_preset_changes_nothing_and_clears_the_picker(env, cache):
    before = _step(cache, changes={"C": {"weight": 3}})
    after = actions.dispatch(env, before, Action(ids.PRESET, kw={"preset": "Nope"}))
    assert after.changes == {"C": {"weight": 3}} and after.cfg is None
    assert _text(after.status) == ("Preset 'Nope' does not exist; nothing changed.", "err")
    assert after.set == {"preset": None} and not after.final
    for name in ("", None, 3):  # a cleared picker, or a value the page never sends
        assert actions.dispatch(env, before, Action(ids.PRESET, kw={"preset": name})) is None


def test_the_policy_switch_sets_the_config_policy(env, cache):
    after = actions.dispatch(env, _step(cache), Action(ids.MISSING_POLICY, kw={"policy": "skip"}))
    assert after.changes == {"": {"missing": "skip"}} and after.cfg.missing == "skip"
    assert _text(after.status) == ("Missing-data policy: skip.", "ok") and after.rewrite
    # back to the default policy: no change left
    back = actions.dispatch(
        env,
        _step(cache, changes={"": {"missing": "skip"}}),
        Action(ids.MISSING_POLICY, kw={"policy": "invalidate"}),
    )
    assert back.changes == {}


def test_a_refused_policy_answers_its_message_and_sets_the_switch_back(env, cache):
    after = actions.dispatch(env, _step(cache), Action(ids.MISSING_POLICY, kw={"policy": "zap"}))
    assert after.final and after.changes == {}
    assert after.set == {"policy": "invalidate"}
    text, kind = _text(after.status)
    assert kind == "err" and text.startswith("Policy not applied: ") and "zap" in text


def test_use_skip_sets_skip_for_the_config_and_the_categories_that_override_it(env, cache):
    before = _step(cache, changes={"C": {"missing": "invalidate"}})
    after = actions.dispatch(env, before, Action(ids.MISSING_SKIP, kw={"use_skip": 1}))
    assert after.changes == {"": {"missing": "skip"}, "C": {"missing": "skip"}}
    assert _text(after.status) == ("Missing-data policy: skip.", "ok")
    # the button drawn, not clicked
    assert actions.dispatch(env, before, Action(ids.MISSING_SKIP, kw={"use_skip": 0})) is None


def test_the_sort_is_kept_when_valid_and_dropped_when_not(env, cache):
    before = _step(cache, sort="o.desc")
    assert actions.dispatch(env, before, Action(ids.SORT, kw={"sort": "c0.asc"})).sort == "c0.asc"
    for bad in ("c0.up", "x" * 30 + ".asc", 5, None):
        assert actions.dispatch(env, before, Action(ids.SORT, kw={"sort": bad})).sort == ""


# ------------------------------------------------------------------------------------------------
# uploads and links
# ------------------------------------------------------------------------------------------------


def _data_url(text: str) -> str:
    return "data:application/x-yaml;base64," + base64.b64encode(text.encode()).decode()


def test_an_upload_becomes_its_changes_from_the_defaults(env, cache):
    uploaded = CFG.replace("  C:\n", "  C:\n    weight: 2\n").replace(
        "good: 0, bad: 10", "good: 0, bad: 20"
    )
    kw = {"upload": _data_url(uploaded), "filename": "mine.yml"}
    after = actions.dispatch(env, _step(cache, changes=EDITS), Action(ids.UPLOAD, kw=kw))
    assert after.changes == {"C": {"weight": 2}, "A/B1/n": {"bad": 20}}
    assert _text(after.status) == (
        "Loaded settings from mine.yml: 2 changes from the defaults.",
        "ok",
    )
    assert after.set == {"upload": None} and after.rewrite  # the same file loads again


def test_an_upload_of_another_tree_is_refused_with_its_file_name(env, cache):
    other = "categories: {Z: {benchmarks: {B: {metrics: {q: {good: 1, bad: 0}}}}}}\n"
    kw = {"upload": _data_url(other), "filename": "other.yml"}
    before = _step(cache, changes=EDITS)
    after = actions.dispatch(env, before, Action(ids.UPLOAD, kw=kw))
    assert after.final and after.changes == EDITS and after.set == {"upload": None}
    text, kind = _text(after.status)
    assert kind == "err" and text.startswith("other.yml was not applied: ")
    assert actions.dispatch(env, before, Action(ids.UPLOAD, kw={"upload": None})) is None


def test_a_link_sets_the_settings_the_view_and_the_controls_that_differ(env, cache):
    state = encode_changes({"C": {"weight": 2}})
    search = f"?v=A/B1&m=A/B1/n&s={state}&show=score&sort=n1.desc&digits=4"
    kw = {"search": search, "qs": "", "show": "raw", "digits": 4}
    after = actions.dispatch(env, _step(cache, changes=EDITS), Action(ids.URL, kw=kw))
    assert after.changes == {"C": {"weight": 2}} and after.cfg.node("C").weight == 2
    assert (after.view, after.metric, after.page) == ("A/B1", "A/B1/n", "")
    assert (after.show, after.sort, after.digits) == ("score", "n1.desc", 4)
    assert after.link and after.rewrite and after.status is no_update
    # the toggle differs from the page's (raw): set; the digits (4) do not: not sent
    assert after.set["show_value"] == "score" and "digits" not in after.set
    # Explore's controls follow the link's selection (none: the defaults)
    assert after.set["set_y"] == explore_view.defaults(cache)["y"]


def test_a_link_with_unreadable_settings_drops_them_and_says_why(env, cache):
    kw = {"search": "?v=C&s=notbase64!", "qs": "", "show": "raw", "digits": 3}
    after = actions.dispatch(env, _step(cache, changes=EDITS), Action(ids.URL, kw=kw))
    assert after.changes == {} and after.cfg is None and after.view == "C"
    text, kind = _text(after.status)
    assert kind == "err" and text.startswith("The settings in the link were ignored: ")
    # the query the page holds already: nothing to answer
    same = {"search": "?v=C", "qs": "?v=C", "show": "raw", "digits": 3}
    assert actions.dispatch(env, _step(cache), Action(ids.URL, kw=same)) is None


def test_a_link_with_another_model_filter_sets_the_filter_controls(env, cache):
    kw = {"search": "?f=" + encode_filters({ids.FILTER_PICKS: ["b"]})}
    kw.update(qs="", show="raw", digits=3)
    after = actions.dispatch(env, _step(cache), Action(ids.URL, kw=kw, attr_names=()))
    assert after.filters == {ids.FILTER_PICKS: ["b"]}
    assert after.set["picks"] == ["b"] and after.set["attr_value"] == []


# ------------------------------------------------------------------------------------------------
# navigation, what-if, the browser's changes, the controls
# ------------------------------------------------------------------------------------------------


def test_a_navigation_request_opens_the_view_it_names(env, cache):
    want = {ids.WANT_TIME: 17, ids.VIEW_PATH: "C/B2", ids.VIEW_METRIC: "C/B2/x"}
    before = _step(cache, changes=EDITS)
    after = actions.dispatch(env, before, Action(ids.WANT, kw={"want": want}))
    assert (after.view, after.metric, after.page) == ("C/B2", "C/B2/x", "")
    assert after.changes == EDITS and not after.rewrite
    page = actions.dispatch(
        env, before, Action(ids.WANT, kw={"want": {ids.WANT_TIME: 1, ids.VIEW_PATH: "explore"}})
    )
    assert (page.view, page.page) == ("", ids.PAGE_EXPLORE)
    # no time stamp: not a request the page writes
    assert (
        actions.dispatch(env, before, Action(ids.WANT, kw={"want": {ids.VIEW_PATH: "C"}})) is None
    )


def _whatif(path: str, value: str, prev: str) -> dict:
    return {
        ids.KEY_TYPE: ids.T_WHATIF,
        ids.KEY_PATH: path,
        ids.KEY_FIELD: "good",
        ids.KEY_VALUE: value,
        ids.KEY_PREV: prev,
    }


def test_a_whatif_click_applies_its_edit_and_a_second_undoes_it(cache):
    env = Env(cache, Sensitivity(cache))
    act = Action(_whatif("A/B1/m", "0.8", "1"), clicked=True)
    after = actions.dispatch(env, _step(cache), act)
    assert after.changes == {"A/B1/m": {"good": 0.8}} and after.rewrite
    assert after.cfg.node("A/B1/m").good == 0.8
    undone = actions.dispatch(env, after, act)  # the box holds 0.8 now: back to 1 (the default)
    assert undone.changes == {}
    assert actions.dispatch(env, _step(cache), dataclasses.replace(act, clicked=False)) is None
    assert actions.dispatch(Env(cache), _step(cache), act) is None  # no sensitivity analysis


def test_a_whatif_click_on_an_unknown_path_changes_nothing_and_says_so(cache):
    env = Env(cache, Sensitivity(cache))
    after = actions.dispatch(
        env, _step(cache, changes=EDITS), Action(_whatif("A/B9/q", "1", "2"), clicked=True)
    )
    assert after.changes == EDITS and after.cfg is None
    assert _text(after.status) == ("That change cannot be applied: unknown path", "err")


def test_the_browsers_changes_and_the_controls_leave_the_step_as_the_page_shows_it(env, cache):
    before = _step(cache, changes=EDITS, view="A/B1", show="score", sort="n0.desc")
    for trig in (ids.CHANGES, ids.SHOW, ids.MODEL_FILTER, ids.DIGITS, ids.CURVE_XSCALE):
        assert actions.dispatch(env, before, Action(trig)) == before
    attr = {ids.KEY_TYPE: ids.T_ATTR, ids.KEY_NAME: "family"}
    assert actions.dispatch(env, before, Action(attr)) == before
    # a trigger the page does not have, and a closed view's control: nothing to answer
    assert actions.dispatch(env, before, Action("not-an-id")) is None
    assert actions.dispatch(env, before, Action(ids.EXPLORE_X)) is None
    assert actions.dispatch(env, before, Action(ids.COMPARE_MODELS)) is None
    explore = dataclasses.replace(before, page=ids.PAGE_EXPLORE)
    assert actions.dispatch(env, explore, Action(ids.EXPLORE_X)) == explore


# ------------------------------------------------------------------------------------------------
# the view after an action
# ------------------------------------------------------------------------------------------------


def test_settle_picks_the_benchmarks_first_metric_and_drops_the_sort_of_another_view(env, cache):
    before = _step(cache, view="A", sort="b0.desc")
    moved = dataclasses.replace(before, view="A/B1", metric="C/B2/x")  # not a metric of A/B1
    settled = actions.settle(env, before, moved, from_link=False)
    assert (settled.metric, settled.sort) == ("A/B1/m", "")
    # a link sets both the view and its sort
    assert actions.settle(env, before, moved, from_link=True).sort == "b0.desc"
    # the same view: a metric's sort follows the toggle (raw r1 <-> score n1)
    here = _step(cache, view="A/B1", metric="A/B1/n", sort="r1.asc", show="score")
    assert actions.settle(env, here, here, from_link=False).sort == "n1.asc"
    assert actions.settle(env, here, here, from_link=False).metric == "A/B1/n"
    # off a benchmark there is no metric
    over = _step(cache, metric="A/B1/m")
    assert actions.settle(env, over, over, from_link=False).metric == ""


# ------------------------------------------------------------------------------------------------
# the answer's parts
# ------------------------------------------------------------------------------------------------


def test_each_output_has_one_part_and_the_parts_write_only_outputs_of_the_callback():
    owned = [keys for keys, _part in edit.PARTS]
    every = {
        **edit.OUTPUTS,
        **EDIT_OUTPUTS,
        **edit.TAU_OUTPUT,
        **edit.LIVE_OUTPUT,
        **edit.PICKS_OUTPUT,
    }
    seen: set[str] = set()
    for keys in owned:
        assert not keys & seen, keys & seen  # one owner per output
        seen |= keys
    assert seen <= set(every)
    # what no part writes: the controls only an action sets (a link, a refusal)
    assert set(every) - seen == {
        "upload",
        "picks",
        "pick_options",
        "attr_value",
        "digits",
        "show_value",
        "preset",
    }


def test_a_part_that_writes_an_output_it_does_not_own_is_an_error():
    out: dict = {}
    edit._merge(out, frozenset({"qs"}), edit._query_part, {"qs": "?v=A"})
    assert out == {"qs": "?v=A"}
    with pytest.raises(RuntimeError, match="does not own: \\['search'\\]"):
        edit._merge(out, frozenset({"qs"}), edit._query_part, {"search": "?v=A"})
    assert out == {"qs": "?v=A"}
