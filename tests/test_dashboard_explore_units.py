"""Server side of the Explore view's speed: the quantities' options are not in the
first page's layout (they come when the view opens), and an edit's update of the scatter carries
its traces, title and axis types but not the rest of the layout."""

from __future__ import annotations

import json

import pytest
from browser_utils import small_dataset

from ml_peg_like import score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components import explore as ev


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    return create_app(cfg, raw, robustness=False)


def test_the_quantities_are_not_in_the_layout_but_sent_when_explore_opens(app):
    cache = app.score_cache
    opts = ev.options(cache)
    values = {o["value"] for o in opts}
    assert {"overall", "rank", "raw:Classification/Iris/Accuracy"} <= values
    layout = app.server.test_client().get("/_dash-layout").get_data(as_text=True)
    assert "raw:Classification/Iris/Accuracy" not in layout
    sel = ev.defaults(cache)
    _cfg, s = cache.scores_for({})
    kw = dict(cache=cache, scores=s, view="", is_bench=False, sel=sel, models=None)
    out: dict = {}
    ev.fill(out, page=ids.PAGE_EXPLORE, view_changed=True, **kw)
    assert out["opts_x"] == out["opts_y"] == opts
    assert (out["set_x"], out["set_y"]) == (sel["x"], sel["y"])
    out = {}
    ev.fill(out, page=ids.PAGE_COMPARE, view_changed=True, **kw)
    assert "opts_x" not in out


def test_an_edit_sends_the_scatters_traces_title_and_axis_types_only(app):
    cache = app.score_cache
    cfg = cache.defaults
    _c, s = cache.scores_for({"Classification": {"weight": 3}})
    xq = ev.ex.parse_quantity(cfg, "Classification", None)
    yq = ev.ex.parse_quantity(cfg, "overall", None)
    fig = ev.scatter_figure(s, xq, yq, list(s.models), cache.display)
    upd = json.loads(ev.scatter_update(fig))
    assert set(upd) == {"rev", "data", "title", "showlegend", "types"}
    assert upd["rev"] == "Classification|overall||auto"  # the selection it belongs to
    assert upd["types"] == ["linear", "linear"]
    assert upd["showlegend"] is False
    assert upd["title"] == fig["layout"]["title"]["text"]
    # score axes are fixed to the whole score range: an edit moves the points, not the axes
    for a in ("xaxis", "yaxis"):
        assert fig["layout"][a]["range"] == [-0.04, 1.04]
        assert fig["layout"][a]["autorange"] is False
    points = upd["data"][0]
    # the new overall scores, from the engine
    want = score(cache.raw, cfg.apply_changes({"Classification": {"weight": 3}}))
    ov = want.overall["score"]
    got = dict(zip(points["customdata"], points["y"], strict=True))
    assert got == pytest.approx({m: float(ov[m]) for m in got})
    assert len(got) == sum(ov.notna())


def test_the_scatter_update_goes_to_the_attribute_only_while_the_graph_stays(app):
    cache = app.score_cache
    _cfg, s = cache.scores_for({})
    kw = dict(cache=cache, scores=s, view="", is_bench=False, sel=ev.defaults(cache), models=None)
    out: dict = {}
    ev.fill(out, page=ids.PAGE_EXPLORE, view_changed=True, graphs={ev.plots.EXPLORE}, **kw)
    assert out["ex_next"] == ""  # a new graph shows this state: the attribute is cleared
    assert out["ex_fig"] is not None
