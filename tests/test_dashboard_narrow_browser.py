"""Every screen readable: on a phone (390 px) the toolbar folds away behind its button and the
grid shows the scores on the first screen (only the model's name pinned); the Compare radar's
and the benchmark figure's legends never cover an axis label (demo data)."""

from __future__ import annotations

import logging

import pytest
from browser_utils import GRID_READY, chromium, live_server, require_browser

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def _many_categories(directory):
    """Ten categories (the Compare view draws bars instead of a radar above eight) and six
    models with long names: six legend entries that wrap onto rows on a phone."""
    import csv

    cats = {f"Category number {c}": f"B{c}" for c in range(10)}
    lines = ["title: Many categories", "categories:"]
    for cat, bench in cats.items():
        lines += [f"  {cat}:", "    benchmarks:", f"      {bench}:", "        metrics:"]
        lines.append("          M: {good: 1.0, bad: 0.0}")
    (directory / "config.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with open(directory / "raw_metrics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "benchmark", "metric", "value"])
        for m in range(6):
            for c, bench in enumerate(cats.values()):
                w.writerow([f"A model with a long name {m}", bench, "M", (m + c) % 7 / 7])
    return directory


@pytest.fixture(scope="module")
def env():
    require_browser()
    from ml_peg_like import load_dataset
    from ml_peg_like.dashboard import create_app
    from ml_peg_like.support.resources import demo_dir

    cfg, raw = load_dataset(demo_dir())
    app = create_app(cfg, raw, robustness=False)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with live_server(app) as url, chromium() as browser:
        yield url, browser


@pytest.fixture(scope="module")
def many(env, tmp_path_factory):
    from ml_peg_like import load_dataset
    from ml_peg_like.dashboard import create_app

    cfg, raw = load_dataset(_many_categories(tmp_path_factory.mktemp("many")))
    app = create_app(cfg, raw, robustness=False)
    with live_server(app) as url:
        yield url, env[1]


def _open(env, viewport: dict, query: str = "/"):
    url, browser = env
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(url + query)
    page.wait_for_selector(GRID_READY)
    return page


def _pinned_left(page) -> list[str]:
    return page.evaluate(
        "() => [...document.querySelectorAll('.ag-pinned-left-header .ag-header-cell')]"
        ".map(c => c.getAttribute('col-id'))"
    )


def test_phone_toolbar_folds_away_and_opens_with_its_button(env):
    page = _open(env, PHONE)
    toolbar, button = page.locator("#toolbar"), page.locator("#tools-toggle")
    assert not toolbar.is_visible()
    assert button.get_attribute("aria-expanded") == "false"
    assert button.get_attribute("aria-controls") == "toolbar"
    button.click()
    assert toolbar.is_visible() and page.locator("#model-filter").is_visible()
    assert button.get_attribute("aria-expanded") == "true"
    assert page.evaluate("() => document.scrollingElement.scrollWidth") <= PHONE["width"]
    button.click()
    assert not toolbar.is_visible()
    page.context.close()


def test_phone_grid_shows_the_scores_first(env):
    page = _open(env, PHONE)
    page.wait_for_function(
        "() => document.querySelectorAll('.ag-pinned-left-header .ag-header-cell').length === 1"
    )
    assert _pinned_left(page) == ["model"]
    # no rank-change column, no tick column; the overall score of the first rows is on the
    # first screen, whole
    assert page.locator(".ag-header-cell[col-id='d']").count() == 0
    assert page.locator(".ag-header-cell[col-id='ag-Grid-SelectionColumn']").count() == 0
    cell = page.locator(".ag-row[row-index='0'] .ag-cell[col-id='o']").first
    box = cell.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert box["y"] + box["height"] <= PHONE["height"]
    page.context.close()


def test_desktop_grid_keeps_rank_change_and_ticks_pinned(env):
    page = _open(env, DESKTOP)
    assert _pinned_left(page) == ["ag-Grid-SelectionColumn", "rank", "d", "model", "o"]
    assert page.locator("#toolbar").is_visible()
    assert not page.locator("#tools-toggle").is_visible()
    page.context.close()


#: the boxes of the legend and of the axis labels that must not meet
OVERLAP = """([graph, labels]) => {
  const g = document.querySelector(graph);
  const box = e => e.getBoundingClientRect();
  const leg = box(g.querySelector('.legend'));
  const hits = [...g.querySelectorAll(labels)].map(e => [e.textContent, box(e)]).filter(
    ([, b]) => b.width > 0 && b.left < leg.right && leg.left < b.right &&
               b.top < leg.bottom && leg.top < b.bottom);
  return {n: g.querySelectorAll(labels).length, hits: hits.map(([t]) => t)};
}"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1280"])
def test_compare_legend_covers_no_axis_label(env, viewport):
    page = _open(env, viewport, "/?v=compare")
    page.wait_for_selector("#compare-graph .legend .traces")
    found = page.evaluate(OVERLAP, ["#compare-graph", ".angularaxistick text"])
    assert found["n"] == 5 and found["hits"] == []  # the demo's five categories
    page.context.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1280"])
def test_benchmark_figure_legend_covers_no_axis_label(env, viewport):
    page = _open(env, viewport, "/?v=Classification%2FIris")
    page.wait_for_selector("#bench-fig .legend .traces")
    found = page.evaluate(OVERLAP, ["#bench-fig", ".xtick text, .ytick text, .gtitle"])
    assert found["n"] > 0 and found["hits"] == []
    page.context.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1280"])
def test_compare_bars_legend_covers_no_axis_label(many, viewport):
    models = ",".join(f"A model with a long name {m}" for m in range(6))
    page = _open(many, viewport, "/?v=compare&models=" + models.replace(" ", "%20"))
    page.wait_for_selector("#compare-graph .legend .traces")
    assert page.locator("#compare-graph .legend .traces").count() == 6
    found = page.evaluate(OVERLAP, ["#compare-graph", ".xtick text, .ytick text, .gtitle"])
    assert found["n"] >= 10 and found["hits"] == []
    page.context.close()
