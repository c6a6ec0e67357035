"""State the page must not lose or leave behind (found by driving the page with seeded random
action sequences), and a randomised sequence of edits checked against the Python engine.

- A sort chosen on one view does not stay on the grid when another view opens and the URL
  says the rank order.
- An Explore link with a model filter draws the scatter and shows the filter (the server once
  answered it with a 400).
- Random threshold and weight edits, typed as a person types them: after each, the overall
  column and the ranks on screen are the Python engine's for the same changes.
"""

from __future__ import annotations

import random
import urllib.parse

import pandas as pd
import pytest
from browser_utils import GRID_READY, chromium, live_server, require_browser, small_dataset
from test_dashboard_browser import column, commit_box, goto_view, settle, wait_column
from test_dashboard_explore_browser import figure, points

from ml_peg_like import load_dataset, score
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.state import encode_filters
from ml_peg_like.numfmt import fmt_score
from ml_peg_like.support.resources import demo_dir

pytestmark = pytest.mark.browser

SORTED = """() => dash_ag_grid.getApi('grid').getColumnState()
                  .filter(c => c.sort).map(c => [c.colId, c.sort])"""


@pytest.fixture(scope="module")
def browser():
    require_browser()
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def small(tmp_path_factory, browser):
    cfg, raw = small_dataset(tmp_path_factory.mktemp("state"))
    with live_server(create_app(cfg, raw)) as url:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.goto(url + "/")
        page.wait_for_selector(GRID_READY)
        yield cfg, raw, url, page


def test_a_sort_does_not_outlive_its_view(small):
    _cfg, _raw, _url, page = small
    page.evaluate(  # as two clicks on the Model header's sort icon do
        """() => dash_ag_grid.getApi('grid').applyColumnState(
                   {state: [{colId: 'model', sort: 'desc'}], defaultState: {sort: null}})"""
    )
    page.wait_for_function("() => location.search.includes('sort=model.desc')")
    assert page.evaluate(SORTED) == [["model", "desc"]]
    goto_view(page, "Classification")
    goto_view(page, "")
    settle(page, 400)
    assert "sort=" not in page.url
    assert page.evaluate(SORTED) == [["rank", "asc"]]  # what the URL says: the rank order


def test_an_explore_link_with_a_model_filter_draws_its_scatter(browser):
    cfg, raw = load_dataset(demo_dir())
    picked = list(raw.models[:6])
    cat = cfg.categories[0]
    query = urllib.parse.urlencode(
        {
            "v": "explore",
            "x": cat.name,
            "y": f"{cat.name}/{cat.benchmarks[0].name}",
            "f": encode_filters({"p": picked}),
        }
    )
    with live_server(create_app(cfg, raw)) as url:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        statuses: list[int] = []
        page.on(
            "response",
            lambda r: statuses.append(r.status) if "_dash-update-component" in r.url else None,
        )
        page.goto(f"{url}/?{query}")
        page.wait_for_selector("#explore-graph .js-plotly-plot")
        settle(page, 500)
        assert statuses and all(s in (200, 204) for s in statuses), statuses
        assert "f=" in page.url
        assert page.locator("#model-filter").inner_text().strip().endswith("6 selected")
        drawn = figure(page, "explore-graph", lambda f: bool(points(f)))
        assert set(points(drawn)) == set(picked)  # the link's six models, no other


def _expected(cfg, raw, changes) -> tuple[dict[str, str], dict[str, str]]:
    s = score(raw, cfg.apply_changes(changes))
    overall = {m: fmt_score(v) for m, v in s.overall["score"].items()}
    ranks = {m: "—" if pd.isna(r) else str(int(r)) for m, r in s.overall["rank"].items()}
    return overall, ranks


@pytest.mark.parametrize("seed", [7])
def test_random_edits_show_the_engines_scores_and_ranks(small, seed):
    """Twelve seeded edits of thresholds and weights on the overview and a benchmark view;
    after each the overall column is the Python engine's (the browser scored it)."""
    cfg, raw, url, page = small
    page.goto(url + "/")
    page.wait_for_selector(GRID_READY)
    rng = random.Random(seed)
    changes: dict = {}
    boxes = [
        ("", "Classification", "weight", (0.0, 3.0)),
        ("", "Regression", "weight", (0.5, 3.0)),
        ("Classification/Iris", "Classification/Iris/Accuracy", "good", (0.9, 1.0)),
        ("Classification/Iris", "Classification/Iris/Accuracy", "bad", (0.3, 0.6)),
        ("Regression/Diabetes", "Regression/Diabetes/MAE", "good", (35.0, 50.0)),
        ("Regression/Diabetes", "Regression/Diabetes/R2", "weight", (0.0, 2.0)),
    ]
    for _ in range(12):
        view, path, field, (lo, hi) = rng.choice(boxes)
        goto_view(page, view)
        value = round(rng.uniform(lo, hi), 3)
        trial = {**changes, path: {**changes.get(path, {}), field: value}}
        try:
            cfg.apply_changes(trial)
        except Exception:  # noqa: BLE001 (a refused state: the page refuses it too)
            continue
        changes = trial
        b = page.locator(f"input[name='{path}.{field}']")
        b.fill(repr(value))
        commit_box(page, b)
        overall, _ranks = _expected(cfg, raw, changes)
        wait_column(page, "o", overall)
    assert column(page, "o") == _expected(cfg, raw, changes)[0]
    # a rank change is coloured by its kind (the cell's class: up, down or a word)
    kinds = page.evaluate(
        """() => [...document.querySelectorAll(".ag-cell[col-id='d']")].map(c =>
             [c.textContent.trim().charAt(0), ['up', 'down', 'word'].filter(k =>
               c.classList.contains(k)).join()])"""
    )
    for mark, klass in kinds:
        assert klass == {"▲": "up", "▼": "down", "": ""}.get(mark, "word"), kinds


def test_a_link_too_long_for_common_servers_is_said(small):
    """Settings whose link is over 8 KB (what gunicorn and common proxies accept on a request
    line) get a message saying so and what to do instead; a short link none."""
    _cfg, _raw, _url, page = small
    long_query = "?s=j" + "A" * 9000
    text = page.evaluate("(q) => window.mplEditRules.linkWarning(q)", long_query)
    assert text and "KB" in text and "Config YAML" in text
    assert page.evaluate("(q) => window.mplEditRules.linkWarning(q)", "?s=jabc") is None
