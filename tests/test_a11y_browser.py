"""Every view of the dashboard, in the light and the dark theme, is free of the critical and
serious violations axe-core finds (WCAG 2 A/AA rules, colour contrast included), and a screen
reader hears a name for every settings box, option group and file input (demo data)."""

from __future__ import annotations

import logging

import pytest
from browser_utils import GRID_READY, chromium, live_server, require_browser

pytestmark = pytest.mark.browser

#: the impacts this project does not ship (axe's "minor" and "moderate" are reported, not failed)
BLOCKING = ("critical", "serious")
VIEWS = {
    "overview": "/",
    "category": "/?v=Classification",
    "benchmark": "/?v=Classification%2FIris",
    "explore": "/?v=explore",
    "compare": "/?v=compare",  # the three best models
}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    pytest.importorskip("axe_playwright_python", reason="pip install axe-playwright-python")
    from ml_peg_like import load_dataset
    from ml_peg_like.dashboard import create_app
    from ml_peg_like.support.resources import demo_dir

    cfg, raw = load_dataset(demo_dir())
    app = create_app(cfg, raw, cache_dir=tmp_path_factory.mktemp("jobs"))
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with live_server(app) as url, chromium() as browser:
        yield url, browser


def _open(env, theme: str, query: str, width: int = 1280, height: int = 800):
    url, browser = env
    ctx = browser.new_context(viewport={"width": width, "height": height}, color_scheme=theme)
    page = ctx.new_page()
    page.goto(url + query)
    page.wait_for_selector(GRID_READY)
    assert page.get_attribute("html", "data-theme") == theme
    return page


def _blocking(page) -> list[str]:
    """One line per critical or serious violation: rule, impact, the first elements."""
    from axe_playwright_python.sync_playwright import Axe

    page.wait_for_timeout(300)  # a frame for assets/a11y.js after the last redraw
    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): " + "; ".join(n["html"][:120] for n in v["nodes"][:3])
        for v in found
        if v["impact"] in BLOCKING
    ]


def _wait_view(page, name: str) -> None:
    if name == "benchmark":
        page.wait_for_selector("#curve .scatterlayer", timeout=15_000)
    elif name == "explore":
        page.wait_for_selector("#explore-wrap .js-plotly-plot .scatterlayer", timeout=15_000)
    elif name == "compare":
        page.wait_for_selector("#compare-table .ag-row .cmp-raw", timeout=15_000)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_view_has_no_serious_violation(env, view, theme):
    page = _open(env, theme, VIEWS[view])
    _wait_view(page, view)
    assert _blocking(page) == []
    page.context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_phone_with_its_menu_and_tools_open_has_no_serious_violation(env, theme):
    page = _open(env, theme, "/", width=390, height=844)
    for button in ("#menu-toggle", "#tools-toggle"):
        page.click(button)
        assert page.get_attribute(button, "aria-expanded") == "true"
    assert page.locator("#toolbar").is_visible() and page.locator("#sidebar").is_visible()
    assert _blocking(page) == []
    page.context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_model_card_and_robustness_results_have_no_serious_violation(env, theme):
    page = _open(env, theme, "/")
    page.locator(".ag-cell[col-id='model']").first.click()
    page.wait_for_selector(".model-card .card-name")
    assert _blocking(page) == []
    page.locator("#model-card-close").click()
    page.fill("#rob-samples", "200")
    page.fill("#rob-seed", "3")
    page.click("#rob-run")
    page.wait_for_selector(".rob-headline", timeout=40_000)
    for fig in ("#rob-rank-fig", "#rob-heat-fig"):
        page.wait_for_selector(f"{fig} .main-svg .ytick text", timeout=20_000)
    assert page.locator("table.rob-loo tbody tr").count() > 0
    assert _blocking(page) == []
    page.context.close()


def test_screen_reader_names(env):
    """The names a screen reader says: each box by what it holds and where (its ``name``
    attribute stays ``PATH.FIELD``), each option group, the upload's file input."""
    page = _open(env, "light", "/?v=Classification%2FIris")
    page.wait_for_selector("input[name='Classification/Iris/Accuracy.good']")
    for spoken, name in (
        ("good threshold, Accuracy, Iris", "Classification/Iris/Accuracy.good"),
        ("bad threshold, Macro F1, Iris", "Classification/Iris/Macro F1.bad"),
        ("weight, Log-loss, Iris", "Classification/Iris/Log-loss.weight"),
    ):
        box = page.get_by_role("textbox", name=spoken, exact=True)
        assert box.count() == 1, spoken
        assert box.get_attribute("name") == name
    assert page.get_attribute("html", "lang") == "en"
    policy = page.get_by_role("radiogroup", name="Missing-data policy", exact=True)
    assert policy.get_by_role("radio").count() == 2  # invalidate, skip
    assert page.get_by_role("radio", name="Normalised scores", exact=True).count() == 1
    assert page.get_by_role("checkbox", name="rank within shown", exact=True).count() == 1
    assert page.locator("input[type='file']").get_attribute("aria-label") == (
        "Upload a YAML settings file"
    )
    # the overview names the category weights by category
    page.get_by_role("button", name="Overview", exact=True).first.click()
    first = page.get_by_role("textbox", name="weight, Classification", exact=True)
    first.wait_for()
    assert first.get_attribute("name") == "Classification.weight"
    page.context.close()
