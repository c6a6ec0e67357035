"""Sensitivity in the dashboard, on a worked example: one category C with
benchmarks B1, B2 (one linear metric m each, good 1, bad 0, weights 1), raw A = (1, 0),
B = (0.4, 0.8), D = (0.3, 0.3): overall A 0.5, B 0.6, D 0.3, leader B.

By hand: B stays first while B1's weight w satisfies 0.4 w + 0.8 >= w (w <= 4/3), and while B2's
weight v satisfies 0.4 + 0.8 v >= 1 (v >= 3/4); B2's bad b: A = 1/2, B = (0.4 + (0.8 - b) /
(1 - b)) / 2 >= 1/2 for b <= 1/2, and >= A... down to -1/3 where A's B2 score (-b / (1 - b))
= 1/4 makes A = 0.625 = B; D <= B on both metrics, lower on one: dominated by B.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from browser_utils import chromium, live_server, open_dashboard, require_browser
from test_dashboard_browser import commit, goto_view, wait_column

from ml_peg_like import config_from_dict, raw_from_frame
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components.board.sensitivity import interval_text
from ml_peg_like.sensitivity import stability_intervals

pytestmark = pytest.mark.browser


def example():
    one = {"metrics": {"m": {"good": 1, "bad": 0}}}
    cfg = config_from_dict(
        {"title": "Worked example", "categories": {"C": {"benchmarks": {"B1": one, "B2": one}}}}
    )
    wide = pd.DataFrame(
        {"model": ["A", "B", "D"], "B1/m": ["1", "0.4", "0.3"], "B2/m": ["0", "0.8", "0.3"]}
    )
    return cfg, raw_from_frame(wide, cfg, source="worked example")


@pytest.fixture(scope="module")
def env():
    require_browser()
    cfg, raw = example()
    app = create_app(cfg, raw, robustness=False)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        yield seen
        seen.page.context.close()


def iv(page, path: str, field: str) -> str:
    return page.evaluate(
        """([a, n]) => { for (const s of document.querySelectorAll('.sens-iv')) {
             if (s.getAttribute(a) === n) return s.textContent; }
           return null; }""",
        [ids.ATTR_BOX, ids.box_name(path, field)],
    )


def wait_iv(page, path: str, field: str, text: str, timeout: float = 30000) -> None:
    page.wait_for_function(
        """([a, n, t]) => { for (const s of document.querySelectorAll('.sens-iv')) {
             if (s.getAttribute(a) === n) return s.textContent === t; }
           return false; }""",
        arg=[ids.ATTR_BOX, ids.box_name(path, field), text],
        timeout=timeout,
    )


def test_intervals_beside_the_weight_and_threshold_boxes(env):
    page = env.page
    goto_view(page, "C")
    wait_iv(page, "C/B1", "weight", "leader holds for 0 – 1.33")
    assert iv(page, "C/B2", "weight") == "leader holds for 0.75 – ∞"
    goto_view(page, "C/B2")
    wait_iv(page, "C/B2/m", "bad", "leader holds for -0.333 – 0.5")
    assert iv(page, "C/B2/m", "good") == "leader holds for 0 – 1.33"
    # the curve shades the thresholds' intervals: bad [-1/3, 1/2] and good [0, 4/3], clipped to
    # the x axis (raw 0 .. 1 and 12 % of the span either side: -0.12 .. 1.12)
    page.wait_for_selector(".js-plotly-plot")
    shapes = page.evaluate(
        """() => document.querySelector('.js-plotly-plot').layout.shapes
                   .filter(s => s.type === 'rect').map(s => [s.x0, s.x1])"""
    )
    assert sorted((round(a, 6), round(b, 6)) for a, b in shapes) == [(-0.12, 0.5), (0, 1.12)]
    goto_view(page, "C/B1")
    wait_iv(page, "C/B1/m", "bad", "leader holds for -∞ – 0.25")
    assert not env.problems


def test_an_edit_updates_the_intervals_in_the_same_round_trip(env):
    page = env.page
    goto_view(page, "C")
    wait_iv(page, "C/B1", "weight", "leader holds for 0 – 1.33")
    n = len(env.callback_statuses)
    commit(page, "C/B1", "weight", "2")
    # w = 2: A = 2/3, B = 1.6/3, leader A, which holds for w >= 4/3; B2's weight: A leads while
    # 2 / (2 + v) >= (0.8 + 0.8 v) / (2 + v), i.e. v <= 1.5
    wait_iv(page, "C/B1", "weight", "leader holds for 1.33 – ∞")
    assert iv(page, "C/B2", "weight") == "leader holds for 0 – 1.5"
    wait_column(page, "rank", {"A": "1", "B": "2", "D": "3"})
    page.wait_for_timeout(300)
    assert len(env.callback_statuses) - n == 1  # one request per edit
    page.click("#reset-all")
    wait_iv(page, "C/B1", "weight", "leader holds for 0 – 1.33")


def test_dominated_model_is_marked(env):
    page = env.page
    goto_view(page, "")
    page.wait_for_selector(".ag-cell[col-id='model'].dominated")
    marked = page.evaluate(
        """() => [...document.querySelectorAll(".ag-cell[col-id='model'].dominated")]
                 .map(c => c.textContent)"""
    )
    assert marked == ["D"]
    page.locator(".ag-cell[col-id='model'].dominated").hover()
    tip = page.locator(".ag-tooltip")
    tip.wait_for()
    assert "dominated by B" in tip.inner_text()


def test_whatif_lists_the_single_changes_and_applies_and_undoes(env):
    page = env.page
    goto_view(page, "C")
    page.click("#whatif-model")
    page.locator(".dash-dropdown-option").first.wait_for()
    page.locator(".dash-dropdown-option", has_text="A").first.click()
    page.keyboard.press("Escape")
    page.wait_for_selector(".whatif-item")
    items = page.evaluate(
        "() => [...document.querySelectorAll('.whatif-item')].map(li => li.textContent)"
    )
    by_hand = {
        ("C/B1", "weight"): "1 → 1.33",
        ("C/B2", "weight"): "1 → 0.75",
        ("C/B1/m", "bad"): "0 → 0.25",
        ("C/B2/m", "bad"): "0 → -0.333",
        ("C/B2/m", "good"): "1 → 1.33",
    }
    for (path, field), change in by_hand.items():
        assert any(t.startswith(f"{path} {field}: {change}") for t in items), (path, items)
    assert len(items) == 5  # B1's good and the category's weight cannot put A first
    button = page.locator(".whatif-item", has_text="C/B1 weight").locator("button")
    assert button.inner_text() == "Apply"
    button.click()
    wait_column(page, "rank", {"A": "=1", "B": "=1", "D": "3"})  # a tie for first at 4/3
    page.wait_for_function(
        """() => document.querySelector("input[name='C/B1.weight']").value.startsWith('1.333')"""
    )
    assert button.inner_text() == "Undo"
    button.click()
    wait_column(page, "rank", {"A": "2", "B": "1", "D": "3"})
    page.wait_for_function(
        "() => document.querySelector(\"input[name='C/B1.weight']\").value === '1'"
    )
    assert button.inner_text() == "Apply"
    assert page.locator("#reset-all").inner_text() == "Reset all"
    assert not env.problems


def engine_texts(changes: dict) -> dict[tuple[str, str], str]:
    """The engine's intervals for the worked example under ``changes``, formatted as the page
    formats them."""
    cfg, _raw = example()
    values = np.array([[1.0, 0.0], [0.4, 0.8], [0.3, 0.3]])  # A, B, D on B1/m, B2/m
    df = stability_intervals(values, ("A", "B", "D"), cfg.apply_changes(changes))
    return {(r.path, r.field): interval_text(r.low, r.high) for r in df.itertuples()}


def test_interval_texts_come_as_one_store_and_survive_navigation(env):
    page = env.page
    goto_view(page, "C/B2")
    before, after = engine_texts({}), engine_texts({"C/B2/m": {"bad": "0.2"}})
    mine = [k for k in after if k[0] == "C/B2/m"]
    assert sorted(f for _p, f in mine) == ["bad", "good", "weight"]
    assert any(before[k] != after[k] for k in mine)  # the edit moves a text (JS writes it)
    wait_iv(page, "C/B2/m", "good", before[("C/B2/m", "good")])
    bodies: list[dict] = []

    def on_response(r):
        if "_dash-update-component" in r.url and r.status == 200:
            try:
                bodies.append(r.json())
            except Exception:  # noqa: BLE001 (another callback's body: not ours)
                pass

    page.on("response", on_response)
    try:
        commit(page, "C/B2/m", "bad", "0.2")
        for path, field in mine:
            wait_iv(page, path, field, after[(path, field)])
    finally:
        page.remove_listener("response", on_response)
    # the edit's response: every box of the view in ONE store, no output per interval holder
    edit = next(b["response"] for b in bodies if ids.SENS_TEXTS in b.get("response", {}))
    assert edit[ids.SENS_TEXTS]["data"] == {ids.box_name(p, f): after[(p, f)] for p, f in mine}
    assert not [k for k in edit if ids.CLASS_INTERVAL in k or "interval" in k]
    # away and back: the boxes are drawn again, with the texts of the current state
    goto_view(page, "C")
    wait_iv(page, "C/B1", "weight", after[("C/B1", "weight")])
    assert iv(page, "C/B2", "weight") == after[("C/B2", "weight")]
    goto_view(page, "C/B2")
    for path, field in mine:
        wait_iv(page, path, field, after[(path, field)])
    page.click("#reset-all")
    wait_iv(page, "C/B2/m", "good", before[("C/B2/m", "good")])
