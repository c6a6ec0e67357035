"""Server side of the Explore and Compare views: the quantities' options are not in the first
page's layout (they come when the view opens); the server draws the scatter and the radar only
when their graph is made or their selection changes, with the selection the browser redraws
the scatter from (``scatter_spec``)."""

from __future__ import annotations

import pytest
from browser_utils import small_dataset

from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components.explore import view as ev


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


def test_the_spec_describes_the_selection_the_browser_draws(app):
    cache = app.score_cache
    cfg = cache.defaults
    sel = dict(
        ev.defaults(cache), x="Classification/Iris/Accuracy", y="raw:Regression/Diabetes/MAE"
    )
    spec = ev.scatter_spec(cfg, None, cache.models, sel)
    assert spec["rev"] == "Classification/Iris/Accuracy|raw:Regression/Diabetes/MAE||auto"
    assert spec["x"] == dict(
        text="Classification/Iris/Accuracy",
        kind="score",
        path="Classification/Iris/Accuracy",
        label="Classification/Iris/Accuracy score",
        better="higher",
        unit=None,
        vkind="number",
    )
    # MAE: lower is better (good 40 < bad 70), its unit from the config
    assert spec["y"]["kind"] == "raw" and spec["y"]["better"] == "lower"
    assert spec["y"]["unit"] == "mg/dL" and "values" not in spec["y"]
    assert spec["colour"] is None and spec["axes"] == "auto"
    xq = ev.ex.parse_quantity(cfg, "Classification", None)
    yq = ev.ex.parse_quantity(cfg, "overall", None)
    _c, s = cache.scores_for({"Classification": {"weight": 3}})
    fig = ev.scatter_figure(s, xq, yq, list(s.models), cache.display)
    # score axes are fixed to the whole score range: an edit moves the points, not the axes
    for a in ("xaxis", "yaxis"):
        assert fig["layout"][a]["range"] == [-0.04, 1.04]
        assert fig["layout"][a]["autorange"] is False


def test_the_server_draws_the_plots_only_when_their_graph_is_made_or_the_selection_changes(app):
    cache = app.score_cache
    _cfg, s = cache.scores_for({})
    kw = dict(cache=cache, scores=s, view="", is_bench=False, sel=ev.defaults(cache), models=None)
    graphs = {ev.plots.EXPLORE, ev.plots.COMPARE}
    out: dict = {}
    ev.fill(out, page=ids.PAGE_EXPLORE, view_changed=True, graphs=graphs, **kw)
    # the defaults: x the first category (no attributes), y the overall score
    assert out["ex_fig"] is not None and out["ex_spec"]["rev"] == "Classification|overall||auto"
    assert out["ex_spec"]["y"]["kind"] == "overall"
    out = {}
    ev.fill(out, page=ids.PAGE_EXPLORE, view_changed=False, graphs=graphs, **kw)
    assert out == {}  # an edit, a reset, a filter: the browser redraws it
    ev.fill(out, page=ids.PAGE_EXPLORE, view_changed=False, graphs=graphs, selection_changed=True,
            **kw)  # fmt: skip
    assert set(out) == {"plot_figs", "plot_sig", "ex_spec"}
    assert out["plot_figs"][ev.plots.EXPLORE]["layout"]["uirevision"] == out["ex_spec"]["rev"]
    out = {}
    ev.fill(out, page=ids.PAGE_COMPARE, view_changed=False, graphs=graphs, **kw)
    assert set(out) == {"cmp_table"}  # the radar follows in the browser, the table from here
    out = {}
    ev.fill(out, page=ids.PAGE_COMPARE, view_changed=True, graphs=graphs, **kw)
    assert out["cmp_fig"] is not None and "cmp_table" in out
