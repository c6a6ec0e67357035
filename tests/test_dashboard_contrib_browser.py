"""The breakdown bars ("why does this model lead?") in headless Chromium: the overview's and a
category view's bars equal ml_peg_like.scoring.contributions (a few parts worked by hand), follow
an edit with the server's answers held back, the model card shows the same numbers, a missing
cell's tooltip names the missing metrics, and axe finds no serious violation with the bars."""

from __future__ import annotations

import html
import logging
import math

import pytest
from browser_utils import (
    GRID_READY,
    chromium,
    live_server,
    open_dashboard,
    require_browser,
    small_dataset,
)

from ml_peg_like import contributions, score
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.tables import fmt_score

pytestmark = pytest.mark.browser

SPEED = "Speed <b>&amp;</b> <script>x</script>"

#: {model: [[aria-label, width %], ...]} of the bars in the grid (column "parts")
BARS = """() => {
  const out = {};
  for (const cell of document.querySelectorAll('.ag-row .ag-cell[col-id="parts"]')) {
    const model = cell.closest('.ag-row').getAttribute('row-id');
    out[model] = Array.from(cell.querySelectorAll('.contrib-seg'),
      (s) => [s.getAttribute('aria-label'), parseFloat(s.style.width)]);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    app = create_app(cfg, raw)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        yield dict(cfg=cfg, raw=raw, seen=seen, page=seen.page, browser=browser, url=url)
        seen.page.context.close()


def expected_bars(scores, path=None) -> dict[str, list]:
    """What each model's bar must show: the label and the width of every counted part."""
    c = contributions(scores, path)
    out = {}
    for i, m in enumerate(c.models):
        if math.isnan(c.score[i]):
            out[m] = []
            continue
        total = fmt_score(c.score[i])
        out[m] = [
            [
                f"{name}: {fmt_score(c.parts[i, k])} of {total} (weight {c.weights[k]:g}, "
                f"score {fmt_score(c.child_scores[i, k])})",
                100 * c.parts[i, k],
            ]
            for k, name in enumerate(c.names)
            if not math.isnan(c.parts[i, k])
        ]
    return out


def same_bars(got: dict, exp: dict) -> bool:
    if set(got) != set(exp):
        return False
    for m, segs in exp.items():
        if [s[0] for s in got[m]] != [s[0] for s in segs]:
            return False
        # (the browser keeps 6 significant digits of a width in %)
        if any(abs(g[1] - e[1]) > 1e-3 for g, e in zip(got[m], segs, strict=True)):
            return False
    return True


def bars(page) -> dict:
    # AG Grid writes a row id into the row-id attribute HTML-escaped
    return {html.unescape(k): v for k, v in page.evaluate(BARS).items()}


def wait_bars(page, exp: dict, timeout_ms: int = 15_000) -> dict:
    got = {}
    for _ in range(timeout_ms // 50):
        got = bars(page)
        if same_bars(got, exp):
            return got
        page.wait_for_timeout(50)
    assert got.keys() == exp.keys()
    for m in exp:  # the first model whose bar differs
        assert [s[0] for s in got[m]] == [s[0] for s in exp[m]], m
        assert [s[1] for s in got[m]] == pytest.approx([s[1] for s in exp[m]], abs=1e-3), m
    return got


def test_overview_bars_are_the_python_contributions(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    s = score(raw, cfg)
    got = wait_bars(page, expected_bars(s))
    # by hand, Ridge: Iris (0.8 + 2 x 0.76) / 3, Wine 1 (traffic light), Classification their
    # mean 0.88667 of weight 2; Regression (MAE 45 and R2 0.5 both 0.8333) of weight 1; 4 in all
    ridge = {label.split(":")[0]: width for label, width in got["Ridge"]}
    assert ridge["Classification"] == pytest.approx(100 * 2 * (2.32 / 3 + 1) / 2 / 4, abs=1e-3)
    assert ridge["Regression"] == pytest.approx(100 * (25 / 30) / 4, abs=1e-3)
    # kNN has no Diabetes/MAE: Regression invalidated, no overall score and no bar
    assert got["kNN"] == []
    # the legend names every category (the awkward name as text)
    legend = page.locator("#contrib-legend li").all_inner_texts()
    assert [t.strip() for t in legend] == ["Classification", "Regression", SPEED]


def test_a_missing_cells_tooltip_names_the_missing_metrics(env):
    page = env["page"]
    page.mouse.move(0, 0)
    page.hover('.ag-row[row-id="kNN"] .ag-cell[col-id="c1"]', position={"x": 20, "y": 4})
    tip = page.wait_for_selector(".ag-tooltip", timeout=10_000)
    assert tip.inner_text().strip() == "No score: missing Diabetes/MAE (policy: invalidate)"
    page.mouse.move(0, 0)
    page.wait_for_selector(".ag-tooltip", state="detached", timeout=10_000)
    page.hover('.ag-row[row-id="kNN"] .ag-cell[col-id="o"]', position={"x": 20, "y": 4})
    tip = page.wait_for_selector(".ag-tooltip", timeout=10_000)
    assert tip.inner_text().strip() == "No score: missing Diabetes/MAE (policy: invalidate)"
    page.mouse.move(0, 0)


def test_bars_follow_an_edit_with_the_servers_answers_held_back(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    held = []  # every callback request from now on waits until the bars are checked
    page.route("**/_dash-update-component", lambda route: held.append(route))
    try:
        b = page.locator("input[name='Regression.weight']")
        b.fill("3")
        b.press("Enter")
        s = score(raw, cfg.apply_changes({"Regression": {"weight": 3}}))
        got = wait_bars(page, expected_bars(s))
        # by hand, Ridge's Regression part is now 3 x 0.8333 / 6
        ridge = {label.split(":")[0]: width for label, width in got["Ridge"]}
        assert ridge["Regression"] == pytest.approx(100 * 3 * (25 / 30) / 6, abs=1e-3)
    finally:
        page.unroute("**/_dash-update-component")
        for route in held:
            route.continue_()
    page.wait_for_timeout(500)


def test_the_model_card_shows_the_same_breakdown(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    s = score(raw, cfg.apply_changes({"Regression": {"weight": 3}}))
    c = contributions(s)
    page.locator('.ag-row[row-id="Ridge"] .ag-cell[col-id="model"]').click()
    page.wait_for_selector(".contrib-card .contrib-table tbody tr", timeout=10_000)
    rows = page.evaluate(
        """() => Array.from(document.querySelectorAll('.contrib-card .contrib-table tbody tr'),
             (tr) => Array.from(tr.children, (td) => td.textContent.trim()))"""
    )
    i = c.models.index("Ridge")
    assert rows == [
        [name, f"{c.weights[k]:g}", fmt_score(c.child_scores[i, k]), fmt_score(c.parts[i, k])]
        for k, name in enumerate(c.names)
    ]
    page.locator("#model-card-close").click()


def test_category_view_bars_are_its_benchmarks_contributions(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.locator("#sidebar .nav-item[data-path='Classification']").click()
    page.wait_for_selector('.ag-header-cell[col-id="b0"]', timeout=15_000)
    s = score(raw, cfg.apply_changes({"Regression": {"weight": 3}}))
    got = wait_bars(page, expected_bars(s, "Classification"))
    # Model/β has no Iris/F1: under skip Iris is its Accuracy alone, 0.6; Wine 0.85 is between
    # the traffic light's thresholds, 0.5; the Classification score (0.6 + 0.5) / 2
    assert [w for _label, w in got["Model/β"]] == pytest.approx([30.0, 25.0], abs=1e-3)
    legend = page.locator("#contrib-legend li").all_inner_texts()
    assert [t.strip() for t in legend] == ["Iris", "Wine"]


def test_no_serious_axe_violation_with_the_bars(env):
    pytest.importorskip("axe_playwright_python", reason="pip install axe-playwright-python")
    from axe_playwright_python.sync_playwright import Axe

    for theme in ("light", "dark"):
        ctx = env["browser"].new_context(
            viewport={"width": 1280, "height": 800}, color_scheme=theme
        )
        page = ctx.new_page()
        page.goto(env["url"] + "/")
        page.wait_for_selector(GRID_READY, timeout=15_000)
        page.wait_for_selector(".contrib-seg", timeout=15_000)
        page.wait_for_timeout(300)
        found = Axe().run(page).response["violations"]
        bad = [v["id"] for v in found if v["impact"] in ("critical", "serious")]
        assert bad == [], theme
        ctx.close()


def _open_board(browser, url: str):
    seen = open_dashboard(browser, url)
    return seen, seen.page


def test_a_vetoed_models_bar_explains_its_score_before_the_veto(env, monkeypatch):
    """The hand board of tests/test_contributions.py: m3 is vetoed (d = 9 above 8), its overall
    score is 0, its bar shows Surfaces 0.5 and Bulk 0.1 / 3, hatched and marked."""
    import numpy as np
    import test_contributions as tc

    import ml_peg_like as mpl

    cfg = mpl.loads_config(tc.BOARD.format(policy="invalidate"))
    raw = mpl.RawData(tc.MODELS, tuple(cfg.metric_ids()), np.array(tc.VALUES))
    with live_server(create_app(cfg, raw)) as url:
        seen, page = _open_board(env["browser"], url)
        got = wait_bars(page, expected_bars(score(raw, cfg)))
        assert [w for _label, w in got["m3"]] == pytest.approx([50.0, 10 / 3], abs=1e-3)
        cell = '.ag-row[row-id="m3"] .ag-cell[col-id="parts"]'
        assert page.locator(cell + " .contrib-cell.vetoed .contrib-veto").inner_text() == "vetoed"
        label = page.locator(cell + " .contrib-bar").get_attribute("aria-label")
        assert label == "Overall score 0.533 before the veto (vetoed: overall score 0)"
        assert seen.problems == []
        page.context.close()


def test_a_board_scored_on_the_server_has_its_bars(env, monkeypatch):
    """A normaliser registered in Python only: the page shows the server's scores, and the bars
    are drawn from them (p: (0.8 + 0.5**3) / 2 = 0.4625, all of it from the one category)."""
    import numpy as np
    import test_dashboard_server_scored_browser as ss

    import ml_peg_like as mpl
    from ml_peg_like import normalisers as nz

    monkeypatch.setitem(nz._REGISTRY, "cube", nz.Normaliser("cube", ss._cube))
    cfg = mpl.loads_config(ss.CONFIG)
    raw = mpl.RawData(("p", "q"), (("B", "e"), ("B", "k")), np.array([[0.2, 0.5], [0.6, 0.9]]))
    with live_server(create_app(cfg, raw, robustness=False)) as url:
        seen, page = _open_board(env["browser"], url)
        assert page.evaluate("window.mplLive.serverScored") is True
        got = wait_bars(page, expected_bars(score(raw, cfg)))
        assert [w for _label, w in got["p"]] == pytest.approx([46.25], abs=1e-3)
        assert seen.problems == []
        page.context.close()


def test_the_page_reported_no_problem(env):
    assert env["seen"].problems == []
