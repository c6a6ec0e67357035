"""Row deltas in the browser: an edit answers with the changed cells only, and the
grid the browser holds after edits, a reload, a model filter and a sort equals, cell for cell,
the rows of a full recompute by the engine (``score_values`` of ``config.apply_changes``)."""

from __future__ import annotations

import html
import json
import math

import pytest
from browser_utils import chromium, live_server, open_dashboard, require_browser, small_dataset

from ml_peg_like import score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components.edit import first_metric
from ml_peg_like.dashboard.figures import curve_figure
from ml_peg_like.dashboard.state import make_query
from ml_peg_like.dashboard.tables import fmt_raw, fmt_score, row_data
from ml_peg_like.scoring import score_values

pytestmark = pytest.mark.browser

IRIS = "Classification/Iris"

ALL_ROWS = """() => {
  const api = window.dash_ag_grid.getApi(window.mplNames.grid);
  const out = [];
  api.forEachNodeAfterFilterAndSort(n => out.push(n.data));
  return out;
}"""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    app = create_app(
        cfg, raw, robustness=False, sensitivity=False, deltas=True
    )  # deltas even for 5 rows
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        bodies: list[str] = []

        def on_response(r):
            if "_dash-update-component" in r.url and r.status == 200:
                bodies.append(r.text())

        seen.page.on("response", on_response)
        yield dict(cfg=cfg, raw=raw, app=app, url=url, page=seen.page, bodies=bodies, seen=seen)
        seen.page.context.close()


def recomputed(env, changes: dict, view: str, models=None) -> list[dict]:
    """The rows of a full recompute (fresh scores, not the app's caches)."""
    cfg, cache = env["cfg"], env["app"].score_cache
    default = score_values(cache.values, cache.models, cfg)
    scores = score_values(cache.values, cache.models, cfg.apply_changes(changes))
    return row_data(
        scores, view, default_overall=default.overall_scores, models=models, names=cache.display
    )


PLOTTED = """() => {
  const g = document.querySelector('.js-plotly-plot');
  if (!g || !g.data || g.data.length < 2) return null;
  const p = g.data[1];
  return [g.data[0].x, g.data[0].y, p.x, p.y, p.text, p.hovertemplate,
          g.layout.shapes.map(s => s.x0), g.layout.annotations.map(a => a.text)];
}"""

#: the hover label of point k of the models' trace (Plotly draws it on demand)
HOVER = """(k) => {
  const g = document.querySelector('#curve .js-plotly-plot');
  Plotly.Fx.hover(g, [{curveNumber: 1, pointNumber: k}]);
  const t = document.querySelector('#curve .hoverlayer');
  return t ? t.textContent : null;
}"""


def assert_curve_is(page, env, changes: dict, view: str) -> None:
    """The plotted curve (patched by edits) equals the figure of a full recompute."""
    cfg, cache = env["cfg"], env["app"].score_cache
    fig = curve_figure(
        score_values(cache.values, cache.models, cfg.apply_changes(changes)),
        first_metric(cfg, view),
    )
    d, lay = fig["data"], fig["layout"]
    p = d[1]
    want = [d[0]["x"], d[0]["y"], p["x"], p["y"], p["text"], p["hovertemplate"]]
    want += [[s["x0"] for s in lay["shapes"]], [a["text"] for a in lay["annotations"]]]
    got = None
    for _ in range(160):
        got = page.evaluate(PLOTTED)
        if got == want:
            break
        page.wait_for_timeout(50)
    assert got == want
    # the hover shows the score the grid shows (d3 formats the point's y: the text has none)
    scores = score_values(cache.values, cache.models, cfg.apply_changes(changes))
    j = cfg.metric_paths().index(first_metric(cfg, view))
    names = [cache.display.get(m, m) for m in cache.models]
    for k, text in enumerate(p["text"]):
        if not text.startswith("<b>"):
            continue  # several models at one place
        i = names.index(html.unescape(text.split("</b>")[0].removeprefix("<b>")))
        label = ""
        for _ in range(40):  # Plotly draws one hover per 50 ms at most
            label = page.evaluate(HOVER, k) or ""
            if label.startswith(names[i] + ":"):
                break
            page.wait_for_timeout(60)
        assert label == f"{names[i]}: raw {fmt_raw(scores.raw_values[i, j])}" + (
            f"score {fmt_score(round(scores.metric_scores[i, j], 9))}"
        )


def grid_rows(page) -> list[dict]:
    return page.evaluate(ALL_ROWS)


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def assert_grid_is(page, expected: list[dict], timeout_ms: int = 8000) -> None:
    """Every row and cell of the grid equals ``expected`` (order ignored: the grid sorts)."""
    want = {r["model"]: r for r in expected}
    got: dict = {}
    for _ in range(timeout_ms // 50):
        got = {r["model"]: r for r in grid_rows(page)}
        if got.keys() == want.keys() and all(
            got[m].keys() == want[m].keys() and all(same(got[m][f], v) for f, v in want[m].items())
            for m in want
        ):
            return
        page.wait_for_timeout(50)
    assert got == want


def commit(page, path: str, field: str, text: str) -> None:
    b = page.locator(f"input[name='{path}.{field}']")
    b.fill(text)
    b.press("Enter")


def test_edits_send_deltas_and_the_grid_equals_a_full_recompute(env):
    page, cfg, raw, url = env["page"], env["cfg"], env["raw"], env["url"]
    page.goto(url + "/" + make_query({}, IRIS))
    page.wait_for_selector(f"input[name='{IRIS}/Accuracy.good']")
    assert_grid_is(page, recomputed(env, {}, IRIS))
    env["bodies"].clear()
    # count the deltas Dash's request_post hook merged before the response was applied (the
    # clientside callback, one render later, is only the fallback): every delta goes early
    page.evaluate(
        """() => {
          const rows = window.dash_clientside.mplRows, early = rows.early;
          window.__early = 0;
          rows.early = (p, r) => {
            const had = r && window.mplNames.rowDelta in r;
            early(p, r);
            if (had && !(window.mplNames.rowDelta in r)) { window.__early += 1; }
          };
        }"""
    )
    changes: dict = {}
    scaled = stepped = 0  # delta columns sent as integers times 10**9 / as steps from the
    # grid's values (rowdelta.js divides them, adds them): the grid still equals a recompute
    for path, field, text, value in [
        (f"{IRIS}/Accuracy", "good", "0.95", 0.95),
        (f"{IRIS}/F1", "weight", "0", 0.0),
        (f"{IRIS}/Accuracy", "bad", "0.85", 0.85),  # Dummy's 0.33 and more fall below 'bad'
        (f"{IRIS}/F1", "weight", "2", 2.0),  # back to the default: F1's column returns
    ]:
        n = len(env["bodies"])
        commit(page, path, field, text)
        changes.setdefault(path, {})[field] = value
        if value == cfg.node(path).value(field):
            del changes[path][field]
        changes = {p: f for p, f in changes.items() if f}
        assert_grid_is(page, recomputed(env, changes, IRIS))
        # and the overall column shows the engine's scores
        overall = score(raw, cfg.apply_changes(changes)).overall["score"]
        assert {r["model"]: fmt_score(r["o"]) for r in grid_rows(page)} == {
            m: fmt_score(v) for m, v in overall.items()
        }
        assert_curve_is(page, env, changes, IRIS)
        edit_bodies = [json.loads(b) for b in env["bodies"][n:]]
        figs = [b["response"][ids.FIG][ids.HELD] for b in edit_bodies if ids.FIG in b["response"]]
        if path.endswith("F1"):  # another metric's weight: the curve shown does not change
            assert not figs
        elif field != "good" or value != 0.95:  # after the first edit: what changed of it
            assert figs and all("__dash_patch_update" in f for f in figs)
            whole = curve_figure(
                score_values(env["app"].score_cache.values, raw.models, cfg.apply_changes(changes)),
                first_metric(cfg, IRIS),
            )
            assert all(len(json.dumps(f)) < len(json.dumps(whole)) / 2 for f in figs)
            # the whole answer of a threshold edit: 3,955 bytes when this was written (8,485
            # with the whole curve); a few bytes vary (the delta's stamp, the curve's hashes)
            assert sum(len(b) for b in env["bodies"][n:]) <= 4400
        grid_out = [b["response"] for b in edit_bodies if "rowdelta" in b.get("response", {})]
        assert grid_out, "the edit sent no row delta"
        for resp in grid_out:
            assert "rowData" not in resp.get("grid", {})  # never the whole table
            delta = resp["rowdelta"]["data"]
            assert delta["n"] == len(raw.models)
            # unchanged cells are not sent: names, and the raw values (a threshold or a
            # weight never changes them)
            assert not {"model", "r0", "r1"} & delta["c"].keys()
            scaled += sum("e" in spec for spec in delta["c"].values())
            stepped += sum("r" in spec for spec in delta["c"].values())
    assert scaled > 0 and stepped > 0
    assert page.evaluate("() => window.__early") == 4  # one delta per edit, all merged early


def test_reload_filter_and_sort_keep_the_grid_consistent(env):
    page = env["page"]
    changes = {f"{IRIS}/Accuracy": {"good": 0.95}}
    commit(page, f"{IRIS}/Accuracy", "bad", "0.5")  # back to its default
    assert_grid_is(page, recomputed(env, changes, IRIS))
    page.reload()
    page.wait_for_selector(f"input[name='{IRIS}/Accuracy.good']")
    assert_grid_is(page, recomputed(env, changes, IRIS))
    # a model filter from a link (the whole filtered table), then an edit under it (a delta
    # of those rows), then the link without the filter (every model again)
    keep = ["Ridge", "kNN"]
    page.goto(env["url"] + "/" + make_query(changes, IRIS, filters={"p": keep}))
    page.wait_for_selector(f"input[name='{IRIS}/Accuracy.good']")
    assert_grid_is(page, recomputed(env, changes, IRIS, models=keep))
    commit(page, f"{IRIS}/Accuracy", "good", "0.9")
    changes = {f"{IRIS}/Accuracy": {"good": 0.9}}
    assert_grid_is(page, recomputed(env, changes, IRIS, models=keep))
    page.goto(env["url"] + "/" + make_query(changes, IRIS))
    page.wait_for_selector(f"input[name='{IRIS}/Accuracy.good']")
    assert_grid_is(page, recomputed(env, changes, IRIS))
    # sort by the overall score, descending, then edit: rows stay sorted and equal
    page.evaluate(
        """() => window.dash_ag_grid.getApi(window.mplNames.grid).applyColumnState(
             {state: [{colId: 'o', sort: 'desc'}], defaultState: {sort: null}})"""
    )
    commit(page, f"{IRIS}/Accuracy", "good", "0.99")
    changes = {f"{IRIS}/Accuracy": {"good": 0.99}}
    assert_grid_is(page, recomputed(env, changes, IRIS))
    shown = [r["o"] for r in grid_rows(page) if r["o"] is not None]
    assert shown == sorted(shown, reverse=True)
    assert not env["seen"].problems
