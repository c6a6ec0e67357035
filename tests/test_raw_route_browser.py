"""In the browser: the page's board waits for its raw matrix (fetched from its own route) before
Dash's renderer starts, so nothing is drawn from a board without it; a matrix that does not
load is said (``mplLive.failed``) and the page still opens."""

from __future__ import annotations

import pytest
from browser_utils import chromium, live_server, require_browser
from test_raw_route import CONFIG, CSV

from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.components.editing.liveedit import RAW_ROUTE
from ml_peg_like.dashboard.ids import FIRST_VIEW
from ml_peg_like.numfmt import fmt_score

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    require_browser()
    d = tmp_path_factory.mktemp("two")
    (d / "config.yml").write_text(CONFIG, encoding="utf-8")
    (d / "raw_metrics.csv").write_text(CSV, encoding="utf-8")
    cfg, raw = load_dataset(d)
    with live_server(create_app(cfg, raw, robustness=False, sensitivity=False)) as url:
        with chromium() as browser:
            yield url, browser


def _page(browser):
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    return page, problems


def test_the_app_starts_once_the_matrix_is_in(served):
    url, browser = served
    page, problems = _page(browser)
    held = []
    page.route(f"**/{RAW_ROUTE}", lambda route: held.append(route))
    try:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_function("() => window.mplLive && window.dash_clientside", timeout=60_000)
        page.wait_for_timeout(1500)  # the scripts ran; the matrix is held back
        assert held, "the page did not ask for the raw matrix"
        waiting = page.evaluate(
            """(first) => ({renderer: typeof window.renderer, cells: document.querySelectorAll(
                 ".ag-cell").length, first: !!document.getElementById(first)})""",
            FIRST_VIEW,
        )
        # Dash's renderer not started, no grid cell; the first view (the HTML's) shows
        assert waiting == {"renderer": "undefined", "cells": 0, "first": True}
        for route in held:
            route.continue_()
        # m1: e 1 - 0.25 = 0.75, f 2 / 10 = 0.2 -> overall 0.475; m2: f missing -> no score
        page.wait_for_selector(".ag-cell[col-id='o']", timeout=60_000)
        texts = page.evaluate(
            """() => Array.from(document.querySelectorAll("#grid .ag-row")).map((r) => {
                 const c = (id) => r.querySelector(`.ag-cell[col-id="${id}"]`);
                 return c("model") ? [c("model").textContent, c("o").textContent.trim()] : null;
               }).filter(Boolean)"""
        )
        assert sorted(texts) == [["m1", fmt_score(0.475)], ["m2", fmt_score(None)]]
        assert page.evaluate("() => window.mplLive.failed") == ""
        assert not problems, problems
    finally:
        page.context.close()


def test_a_matrix_that_does_not_load_is_said(served):
    url, browser = served
    page, problems = _page(browser)
    page.route(f"**/{RAW_ROUTE}", lambda route: route.fulfill(status=500, body="no"))
    try:
        page.goto(url)
        page.wait_for_function("() => window.mplLive && window.mplLive.failed", timeout=60_000)
        failed = page.evaluate("() => window.mplLive.failed")
        assert failed == f"the board's raw values did not load from /{RAW_ROUTE} (HTTP 500)"
        page.wait_for_function("() => typeof window.renderer === 'object'", timeout=60_000)
        assert page.evaluate("() => window.mplLive.boot()") is False
        assert not problems, problems
    finally:
        page.context.close()
