"""The dashboard on the embedded demo data (data/demo): it loads, shows the engine's numbers and
a threshold edit rescores it. Also writes the screenshots of docs/screenshots when
MPL_SCREENSHOTS=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_utils import chromium, live_server, open_dashboard, require_browser
from test_dashboard_browser import column, commit, goto_view, settle, wait_column

from ml_peg_like import load_dataset, score
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.tables import fmt_score

pytestmark = pytest.mark.browser
DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
SHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def demo():
    require_browser()
    if not (DEMO / "config.yml").is_file():
        pytest.skip("data/demo is not built (python data/build_demo.py)")
    cfg, raw = load_dataset(DEMO)
    app = create_app(cfg, raw)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        page, errors = seen.page, seen.problems
        yield cfg, raw, page, errors


def shot(page, name: str) -> None:
    if os.environ.get("MPL_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.wait_for_timeout(400)
        page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_demo_loads_with_every_model_and_category(demo):
    cfg, raw, page, errors = demo
    s = score(raw, cfg)
    want = {m: fmt_score(v, cfg.scale) for m, v in s.overall["score"].items()}
    wait_column(page, "o", want)
    assert len(want) == len(raw.models) == 20
    for i, c in enumerate(cfg.categories):
        # a column beyond the grid's width is drawn once scrolled to (AG Grid's documented API)
        page.evaluate("(c) => dash_ag_grid.getApi('grid').ensureColumnVisible(c)", f"c{i}")
        page.wait_for_selector(f".ag-cell[col-id='c{i}']")
        got = column(page, f"c{i}")
        assert got == {m: fmt_score(v, cfg.scale) for m, v in s.categories[c.name].items()}
    assert page.locator("h1").inner_text() == cfg.title
    shot(page, "overview")
    assert not errors


def test_demo_threshold_edit_matches_the_engine(demo):
    cfg, raw, page, errors = demo
    cat = cfg.categories[0]
    bench = cat.benchmarks[0]
    metric = next(m for m in bench.metrics if m.norm.uses_thresholds and isinstance(m.good, float))
    path = f"{cat.name}/{bench.name}/{metric.name}"
    goto_view(page, f"{cat.name}/{bench.name}")
    value = metric.bad + 0.5 * (metric.good - metric.bad)
    commit(page, path, "good", f"{value:.6g}")
    new = score(raw, cfg.apply_changes({path: {"good": float(f"{value:.6g}")}}))
    wait_column(page, "bs", {m: fmt_score(v) for m, v in new.benchmarks[bench.name].items()})
    wait_column(page, "o", {m: fmt_score(v) for m, v in new.overall["score"].items()})
    page.wait_for_selector("#curve .js-plotly-plot")
    shot(page, "benchmark")
    goto_view(page, cat.name)
    wait_column(page, "cs", {m: fmt_score(v) for m, v in new.categories[cat.name].items()})
    shot(page, "category")
    commit(page, cat.name + "/" + bench.name, "weight", "-1")
    page.wait_for_selector(".msg:has-text('>= 0')")
    shot(page, "bad-input")
    assert not errors


def test_demo_attribute_filter_shows_only_those_models_and_lives_in_the_url(demo):
    cfg, raw, page, errors = demo
    if not page.locator("#reset-all").is_disabled():
        page.click("#reset-all")
        # as a person sees the reset done before the next click
        page.wait_for_function("() => document.querySelector('#reset-all').disabled")
        settle(page)
    goto_view(page, "")
    s = score(raw, cfg)
    every = {m: fmt_score(v, cfg.scale) for m, v in s.overall["score"].items()}
    wait_column(page, "o", every)
    family = raw.attributes["family"]
    linear = {m for m in raw.models if family[m] == "linear"}
    assert 1 < len(linear) < len(raw.models)
    dropdown = page.locator("""[id='{"name":"family","type":"attr"}']""")
    dropdown.click()
    page.locator(".dash-dropdown-option", has_text="linear").first.click()
    page.keyboard.press("Escape")
    # display only: the same scores (and ranks) for the models still shown
    wait_column(page, "o", {m: every[m] for m in linear})
    ranks = column(page, "rank")
    assert ranks == {m: str(int(s.overall["rank"][m])) for m in linear}
    assert "f=" in page.url
    shot(page, "filter")
    page.reload()
    page.wait_for_selector(".ag-cell[col-id='o']")
    wait_column(page, "o", {m: every[m] for m in linear})
    assert "linear" in dropdown.inner_text()
    # cleared: every model again
    dropdown.hover()
    page.locator("""[id='{"name":"family","type":"attr"}'] .dash-dropdown-clear""").click()
    wait_column(page, "o", every)
    assert not errors
