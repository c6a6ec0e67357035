"""Browser tests of the Explore and Compare views and the benchmark figure: the
points, the axes, the Pareto front on a hand-made case, the compare table's differences, the URL
round trip and following an edit. Expected numbers are worked out by hand from browser_utils'
VALUES or come from the engine."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from browser_utils import require_browser, served_dashboard, small_dataset
from test_dashboard_browser import goto_view

from ml_peg_like import score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components.explore.view import compare
from ml_peg_like.dashboard.tables import fmt_score

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
MODELS_CSV = """model,display_name,params,released,family
Ridge,Ridge regression,10,2019-01-01,linear
RandomForest,Random forest,200000,2020-06-01,trees
<script>alert(1)</script>,Script <b>name</b>,5,2021-01-01,other
Model/β,Model beta,30,2022-03-15,linear
kNN,k nearest,1000,2023-01-01,neighbours
Dummy,,1,2018-01-01,baseline
"""
ACC = "raw:Classification/Iris/Accuracy"  # higher is better (good 1.0 > bad 0.5)
MAE = "raw:Regression/Diabetes/MAE"  # lower is better (good 40 < bad 70)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    d = tmp_path_factory.mktemp("small")
    (d / "models.csv").write_text(MODELS_CSV, encoding="utf-8")
    cfg, raw = small_dataset(d)
    app = create_app(cfg, raw, robustness=False)
    with served_dashboard(app) as (url, seen, errors):
        yield dict(cfg=cfg, raw=raw, url=url, page=seen.page, seen=seen, errors=errors)


FIG = """(id) => { const g = document.querySelector('#' + id + ' .js-plotly-plot');
  if (!g || !g.data) return null;
  return {data: g.data.map(t => ({type: t.type, name: t.name, x: t.x, y: t.y, mode: t.mode,
                                  customdata: t.customdata, r: t.r})),
          xtype: (g._fullLayout.xaxis || {}).type, ytype: (g._fullLayout.yaxis || {}).type}; }"""


def figure(page, id_: str, want=lambda f: True, timeout: float = 10.0):
    deadline = time.time() + timeout
    f = None
    while time.time() < deadline:
        f = page.evaluate(FIG, id_)
        if f is not None and want(f):
            return f
        page.wait_for_timeout(100)
    raise AssertionError(f"figure {id_}: {f}")


def points(f) -> dict[str, tuple]:
    out = {}
    for t in f["data"]:
        if t["mode"] == "markers" and t.get("customdata"):
            out.update(
                {k: (x, y) for k, x, y in zip(t["customdata"], t["x"], t["y"], strict=False)}
            )
    return out


def front(f):
    t = [t for t in f["data"] if t["name"] == "Pareto front"]
    return list(zip(t[0]["x"], t[0]["y"], strict=False)) if t else None


def test_scatter_points_axes_and_pareto_front(env):
    page = env["page"]
    page.goto(f"{env['url']}/?v=explore&x={ACC}&y={MAE}".replace("<", "%3C"))
    f = figure(page, "explore-graph", lambda f: "RandomForest" in points(f))
    pts = points(f)
    # kNN has no MAE: 5 of the 6 models have both values
    assert pts == {
        "Ridge": (0.9, 45.0),
        "RandomForest": (0.96, 48.0),
        "<script>alert(1)</script>": (0.7, 60.0),
        "Model/β": (0.8, 52.0),
        "Dummy": (0.33, 66.0),
    }
    assert (f["xtype"], f["ytype"]) == ("linear", "linear")
    # maximise accuracy, minimise MAE: Ridge (lowest MAE) and RandomForest (highest accuracy)
    # beat every other model on both; drawn by x ascending
    assert front(f) == [(0.9, 45.0), (0.96, 48.0)]
    assert page.locator("#sidebar .nav-item.active").inner_text() == "Explore"


def test_attribute_axes_log_and_colour(env):
    page = env["page"]
    page.goto(f"{env['url']}/?v=explore&x=attr:params&y=attr:released&c=family")
    f = figure(page, "explore-graph", lambda f: f["xtype"] == "log")
    # params span 1 .. 200000 (> 3 decades): log; ISO dates: a date axis; attributes have no
    # direction: no front; a trace per family
    assert f["ytype"] == "date" and front(f) is None
    assert sorted(t["name"] for t in f["data"]) == [
        "baseline",
        "linear",
        "neighbours",
        "other",
        "trees",
    ]
    page.goto(f"{env['url']}/?v=explore&x=attr:params&y=overall&axes=linear")
    f = figure(page, "explore-graph", lambda f: f["ytype"] == "linear" and f["xtype"] == "linear")
    assert page.evaluate("location.search").count("axes=linear") == 1


def test_scatter_follows_an_edit_and_the_url_keeps_the_view(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.goto(f"{env['url']}/?v=explore&x=Classification&y=overall")
    figure(page, "explore-graph", lambda f: "Ridge" in points(f))
    page.evaluate("() => { document.querySelector('#explore-graph .js-plotly-plot').__kept = 1; }")
    box = page.locator("input[name='Classification.weight']")
    box.fill("0.5")
    box.press("Enter")
    new = score(raw, cfg.apply_changes({"Classification": {"weight": 0.5}}))
    want = round(float(new.overall["score"]["Ridge"]), 9)
    figure(page, "explore-graph", lambda f: abs(points(f)["Ridge"][1] - want) < 1e-9)
    # an edit sends the figure alone: the graph (its DOM node) stays, Plotly redraws it in place
    assert page.evaluate("() => document.querySelector('#explore-graph .js-plotly-plot').__kept")
    search = page.evaluate("location.search")
    assert "v=explore" in search and "x=Classification" in search and "s=" in search
    page.reload()
    figure(page, "explore-graph", lambda f: abs(points(f)["Ridge"][1] - want) < 1e-9)


def _ridge(raw, cfg, weight: float) -> float:
    new = score(raw, cfg.apply_changes({"Classification": {"weight": weight}}))
    return round(float(new.overall["score"]["Ridge"]), 9)


def test_the_scatter_follows_edits_after_leaving_and_reopening_the_view(env):
    """Each edit's update of the scatter is drawn, also one equal to an update sent before the
    view was left (the graph drawn on return shows a newer state than that update)."""
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.goto(f"{env['url']}/?v=explore&x=Classification&y=overall")
    figure(page, "explore-graph", lambda f: "Ridge" in points(f))
    near = lambda w: lambda f: abs(points(f)["Ridge"][1] - _ridge(raw, cfg, w)) < 1e-9  # noqa: E731
    assert _ridge(raw, cfg, 2.0) != _ridge(raw, cfg, 0.5)
    for w in (2.0, 0.5, 2.0):
        box = page.locator("input[name='Classification.weight']")
        box.fill(repr(w))
        box.press("Enter")
        figure(page, "explore-graph", near(w))
    goto_view(page, "")  # the overview: its own weight box, the scatter hidden
    page.wait_for_selector("#explore-wrap", state="hidden")
    box = page.locator("input[name='Classification.weight']")
    box.fill("0.5")
    box.press("Enter")
    page.wait_for_function("() => location.search.includes('s=')")
    goto_view(page, ids.PAGE_EXPLORE)
    figure(page, "explore-graph", near(0.5))
    box = page.locator("input[name='Classification.weight']")
    box.fill("2.0")
    box.press("Enter")
    figure(page, "explore-graph", near(2.0))


SCATTER = """() => { const gd = document.querySelector('#explore-graph .js-plotly-plot');
  return {texts: gd.data.map(t => t.text || null), title: gd.layout.title.text,
          calls: window.__plotlyCalls}; }"""

SPY = """() => { window.__plotlyCalls = 0;
  for (const f of ['animate', 'react', 'restyle', 'redraw']) {
    const orig = window.Plotly[f];
    window.Plotly[f] = function () { window.__plotlyCalls++; return orig.apply(this, arguments); };
  } }"""


def test_an_edit_redraws_the_scatter_with_plotly_react(env):
    """An edit's new scatter reaches the existing graph as its new `figure` (drawn in the
    browser, assets/liveexplore.js; dcc.Graph hands it to Plotly.react): the points are the
    edit's and so are the hover texts."""
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.goto(f"{env['url']}/?v=explore&x=Classification&y=overall")
    figure(page, "explore-graph", lambda f: "Ridge" in points(f))
    before = page.evaluate(SCATTER)
    page.evaluate(SPY)
    box = page.locator("input[name='Classification.weight']")
    box.fill("0.8")
    box.press("Enter")
    want = _ridge(raw, cfg, 0.8)
    figure(page, "explore-graph", lambda f: abs(points(f)["Ridge"][1] - want) < 1e-9)
    moved = page.evaluate(SCATTER)
    assert moved["title"] == before["title"] and moved["calls"] >= 1
    new = score(raw, cfg.apply_changes({"Classification": {"weight": 0.8}}))
    texts = [t for c in moved["texts"] if c for t in c if t and "<b>Ridge regression</b>" in t]
    assert texts and f"Overall score: {fmt_score(new.overall['score']['Ridge'])}" in texts[0]


LIVE_FIG = """() => { const gd = document.querySelector('#explore-graph .js-plotly-plot');
  return gd && gd.data ? {data: gd.data.map(t => ({name: t.name, x: t.x, y: t.y, text: t.text || null,
    customdata: t.customdata || null})), title: gd.layout.title.text} : null; }"""


class Held:
    """The server's callback requests held (not sent on) while it is installed: what the page
    shows meanwhile was drawn in the browser."""

    def __init__(self, page):
        self.page, self.routes, self.released = page, [], False

    def _hold(self, route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def __enter__(self):
        self.page.route("**/_dash-update-component*", self._hold)
        return self

    def __exit__(self, *exc):
        self.released = True
        for r in self.routes:
            r.continue_()
        self.page.unroute("**/_dash-update-component*", self._hold)
        # the answers arrive: nothing is pending any more
        self.page.wait_for_function(
            "(c) => !document.documentElement.classList.contains(c)", arg=ids.PENDING_CLASS
        )


def _close(a, b) -> bool:
    """Equal texts and structure, numbers within 1e-12 (relative; the engines' last ulps)."""
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool | type(None)):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_close(a[k], b[k]) for k in a)
    return a == b


def _python_scatter(env, changes, sel: dict) -> dict:
    """The scatter the Python engine and figure builder make of ``changes``."""
    from ml_peg_like.dashboard.components.explore import view as view

    cfg, raw = env["cfg"], env["raw"]
    s = score(raw, cfg.apply_changes(changes))
    attrs = raw.attributes
    xq = view.ex.parse_quantity(cfg, sel["x"], attrs)
    yq = view.ex.parse_quantity(cfg, sel["y"], attrs)
    names = {m: n for m, n in _names().items() if n != m}
    fig = view.scatter_figure(
        s, xq, yq, list(s.models), names, attributes=attrs, colour=sel.get("c", "")
    )
    keys = ("name", "x", "y", "text", "customdata")
    data = [{k: t.get(k) for k in keys} for t in fig["data"]]
    return json.loads(json.dumps({"data": data, "title": fig["layout"]["title"]["text"]}))


def test_an_edit_redraws_the_scatter_in_the_browser_with_no_server_answer(env):
    """With every server request held, an edit moves the points to the Python engine's scores
    of the new settings, with the hover texts (ranks), colours and Pareto front Python draws."""
    page = env["page"]
    sel = {"x": "raw:Regression/Diabetes/MAE", "y": "overall", "c": "family"}
    page.goto(f"{env['url']}/?v=explore&x={sel['x']}&y={sel['y']}&c={sel['c']}")
    figure(page, "explore-graph", lambda f: "Ridge" in points(f))
    changes: dict = {}
    shown = []
    for path, value in (("Classification", 0.5), ("Regression", 3.0), ("Classification", 0.0)):
        changes.setdefault(path, {})["weight"] = value
        want = _python_scatter(env, changes, sel)
        shown.append(want)
        with Held(page) as held:
            box = page.locator(f"input[name='{path}.weight']")
            box.fill(str(value))
            box.press("Enter")
            deadline = time.time() + 10
            got = None
            while time.time() < deadline:
                got = page.evaluate(LIVE_FIG)
                if _close(got, want):
                    break
                page.wait_for_timeout(100)
            assert _close(got, want), (path, got, want)
            for _ in range(100):  # the changes go to the server, whose answer is held
                if held.routes:
                    break
                page.wait_for_timeout(50)
            assert held.routes
            assert page.evaluate(
                "(c) => document.documentElement.classList.contains(c)", ids.PENDING_CLASS
            )
    # the three states differ (each edit moved points)
    assert shown[0] != shown[1] != shown[2]


def test_a_reset_redraws_the_scatter(env):
    """The changes a reset writes come from the server; the scatter is drawn in the browser
    from them."""
    page = env["page"]
    sel = {"x": "Classification", "y": "overall"}
    page.goto(f"{env['url']}/?v=explore&x={sel['x']}&y={sel['y']}&s=")
    figure(page, "explore-graph", lambda f: "Ridge" in points(f))
    box = page.locator("input[name='Classification.weight']")
    box.fill("0.25")
    box.press("Enter")
    want = _ridge(env["raw"], env["cfg"], 0.25)
    figure(page, "explore-graph", lambda f: abs(points(f)["Ridge"][1] - want) < 1e-9)
    page.locator(f"#{ids.RESET_ALL}").click()
    want = _ridge(env["raw"], env["cfg"], 2.0)  # the config's own weight
    figure(page, "explore-graph", lambda f: abs(points(f)["Ridge"][1] - want) < 1e-9)


def test_a_model_filter_redraws_the_scatter_of_the_shown_models(env):
    """The model filter's rows come from the server; the scatter of the shown models is drawn
    in the browser (the server sends no figure for it): Python's scatter of those models."""
    from ml_peg_like.dashboard.components.explore import view as view

    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    sel = {"x": "raw:Classification/Iris/Accuracy", "y": "overall"}
    page.goto(f"{env['url']}/?v=explore&x={sel['x']}&y={sel['y']}")
    figure(page, "explore-graph", lambda f: "Ridge" in points(f))
    bodies: list[str] = []

    def grab(r):
        if "_dash-update-component" in r.url:
            bodies.append(r.text())

    shown = ["Ridge", "Model/β", "Dummy"]
    s = score(raw, cfg)
    xq = view.ex.parse_quantity(cfg, sel["x"], raw.attributes)
    yq = view.ex.parse_quantity(cfg, sel["y"], raw.attributes)
    want = view.scatter_figure(s, xq, yq, shown, _names())["data"][0]
    page.on("response", grab)
    try:
        page.evaluate(
            "([id, v]) => window.dash_clientside.set_props(id, {value: v})",
            [ids.MODEL_FILTER, shown],
        )
        f = figure(page, "explore-graph", lambda f: sorted(points(f)) == sorted(shown))
    finally:
        page.remove_listener("response", grab)
    xy = zip(want["x"], want["y"], strict=True)
    assert points(f) == dict(zip(want["customdata"], xy, strict=True))
    sent = [json.loads(b)["response"].get(ids.PLOT_FIGS, {}).get(ids.HELD) for b in bodies]
    assert bodies and not any(isinstance(d, dict) and "explore" in d for d in sent)
    page.evaluate(
        "([id, v]) => window.dash_clientside.set_props(id, {value: v})", [ids.MODEL_FILTER, None]
    )
    figure(page, "explore-graph", lambda f: len(points(f)) == 5)


def test_an_edit_redraws_the_radar_in_the_browser_with_no_server_answer(env):
    """The Compare radar of the three best ranked models (none picked): a weight of 0 for
    Classification changes who they are; with the server's answer held, the radar shows the
    models and category scores of the Python engine and figure builder; the table follows the
    server's answer."""
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.goto(f"{env['url']}/?v=compare")
    page.wait_for_selector("#compare-table")
    change = {"Classification": {"weight": 0}}
    s = score(raw, cfg.apply_changes(change))
    names = {m: n for m, n in _names().items() if n != m}
    before = compare.default_models(score(raw, cfg), list(s.models))
    after = compare.default_models(s, list(s.models))
    assert before != after  # Ridge, RandomForest, Model/β -> Ridge, <script>..., Dummy
    want = json.loads(json.dumps(compare.radar_figure(s, after, names)["data"]))
    with Held(page):
        box = page.locator("input[name='Classification.weight']")
        box.fill("0")
        box.press("Enter")
        f = figure(
            page,
            "compare-graph",
            lambda f: (
                [t["name"] for t in f["data"]] == [t["name"] for t in want]
                and all(_close(t["r"], w["r"]) for t, w in zip(f["data"], want, strict=True))
            ),
        )
        assert f is not None
    page.wait_for_function(
        "(n) => document.querySelectorAll('#compare-table thead th').length === n", arg=4
    )
    heads = page.locator("#compare-table thead th").all_inner_texts()
    assert heads[1:] == [names.get(m, m) for m in after]


def test_png_and_svg_downloads(env):
    page = env["page"]
    page.goto(f"{env['url']}/?v=explore&x=attr:params&y=overall")
    figure(page, "explore-graph", lambda f: "Ridge" in points(f))
    for fmt in ("png", "svg"):
        with page.expect_download(timeout=15000) as dl:
            page.locator(f"#explore-graph button[data-format='{fmt}']").click()
        assert dl.value.suggested_filename == f"explore.{fmt}"
        head = Path(dl.value.path()).read_bytes()[:200]
        assert head.startswith(b"\x89PNG") if fmt == "png" else b"<svg" in head


def test_compare_table_differences_and_radar(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.goto(f"{env['url']}/?v=compare&models=Ridge,RandomForest")
    page.wait_for_selector("#compare-table")
    s = score(raw, cfg)
    rows = page.evaluate(
        """() => [...document.querySelectorAll('#compare-table tbody tr')].map(
             r => [...r.querySelectorAll('td')].map(td => td.innerText.replace(/\\s+/g, ' ').trim()))"""
    )
    ov = s.overall["score"]
    d = ov["RandomForest"] - ov["Ridge"]
    sign = "+" if d > 0 else ""
    assert rows[0] == [
        "Overall",
        fmt_score(ov["Ridge"]),
        f"{fmt_score(ov['RandomForest'])} ({sign}{fmt_score(d)})",
    ]
    mae = next(r for r in rows if r[0] == "MAE")
    # RandomForest MAE 48 scores (70-48)/30 = 0.733, Ridge 45 -> 0.833: difference -0.100
    assert mae == ["MAE", "0.833 45 mg/dL", "0.733 (-0.100) 48 mg/dL"]
    f = figure(page, "compare-graph")
    assert [t["type"] for t in f["data"]] == ["scatterpolar", "scatterpolar"]
    heads = page.locator("#compare-table thead th").all_inner_texts()
    assert heads[1:] == ["Ridge regression", "Random forest"]


def test_benchmark_figure_sorted_and_follows_thresholds(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.goto(f"{env['url']}/?v=Regression/Diabetes")
    f = figure(page, "bench-fig")
    bench = [t for t in f["data"] if t["name"] == "benchmark score"][0]
    ys = [y for y in bench["y"] if y is not None]
    assert ys == sorted(ys, reverse=True) and len(bench["x"]) == 6
    box = page.locator("input[name='Regression/Diabetes/MAE.bad']")
    box.fill("100")
    box.press("Enter")
    new = score(raw, cfg.apply_changes({"Regression/Diabetes/MAE": {"bad": 100}}))
    want = round(float(new.metrics["Diabetes/MAE"]["Ridge"]), 6)  # (100-45)/60
    f = figure(
        page,
        "bench-fig",
        lambda f: any(
            x == "Ridge regression" and y is not None and abs(y - want) < 1e-6
            for t in f["data"]
            if t["name"] == "MAE"
            for x, y in zip(t["x"], t["y"], strict=False)
        ),
    )


def _names() -> dict[str, str]:
    rows = [line.split(",") for line in MODELS_CSV.strip().splitlines()[1:]]
    return {r[0]: r[1] or r[0] for r in rows}


def test_benchmark_figure_patched_by_edits_equals_the_figure_built_from_scratch(env):
    """Later edits send only what changed of the benchmark figure (a Patch of the plot-figs
    store, components/explore/plots.py); the graph then shows the figure the engine builds."""
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    bodies: list[str] = []

    def grab(r):
        if "_dash-update-component" in r.url:
            try:
                bodies.append(r.text())
            except Exception:  # noqa: BLE001 - a response the page left
                pass

    page.goto(f"{env['url']}/?v=Regression/Diabetes")
    figure(page, "bench-fig")
    page.on("response", grab)
    changes: dict = {}
    try:
        for n, (field, value) in enumerate((("bad", 100), ("bad", 80), ("good", 30))):
            changes.setdefault("Regression/Diabetes/MAE", {})[field] = value
            box = page.locator(f"input[name='Regression/Diabetes/MAE.{field}']")
            box.fill(str(value))
            box.press("Enter")
            s = score(raw, cfg.apply_changes(changes))
            want = compare.bench_figure(s, "Regression/Diabetes", list(s.models), _names())
            shown = [(t["name"], t["x"], t["y"]) for t in want["data"]]
            f = figure(
                page,
                "bench-fig",
                lambda f, shown=shown: [(t["name"], t["x"], t["y"]) for t in f["data"]] == shown,
            )
            assert f is not None, n
    finally:
        page.remove_listener("response", grab)
    sent = [json.loads(b)["response"].get(ids.PLOT_FIGS, {}).get(ids.HELD) for b in bodies if b]
    patches = [d for d in sent if isinstance(d, dict) and "__dash_patch_update" in d]
    assert len(patches) >= 2, sent  # the first edit sends the whole figure, the others patch


def test_no_errors(env):
    assert not env["errors"]
    assert not [p for p in env["seen"].problems if "favicon" not in p]
