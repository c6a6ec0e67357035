"""Browser tests of the grid's tick column: models ticked in the grid are the Compare
view's models (the picker's state, ``models=`` in the URL), at most six (the seventh tick is
undone with a note), ticking asks the server for nothing while Compare is closed, and the ticks
follow a model filter. The differences come from the engine. The demo data set (20 models)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import pytest
from browser_utils import require_browser, served_dashboard
from test_dashboard_explore_browser import GRID_TEXT

from ml_peg_like import load_dataset, score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.tables import fmt_score

pytestmark = pytest.mark.browser
DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
TICKED = "() => window.dash_ag_grid.getApi(window.mplNames.grid).getSelectedNodes().map(n => n.id)"


@pytest.fixture(scope="module")
def env():
    require_browser()
    cfg, raw = load_dataset(DEMO)
    app = create_app(cfg, raw, robustness=False)
    with served_dashboard(app) as (url, seen, errors):
        yield dict(cfg=cfg, raw=raw, url=url, page=seen.page, seen=seen, errors=errors)


def tick(page, model: str) -> None:
    page.locator(
        f"#{ids.GRID} .ag-row[row-id='{model}'] .ag-selection-checkbox input"
    ).first.click()


def label(page, text: str) -> None:
    page.wait_for_function(
        "(t) => document.getElementById('" + ids.COMPARE_OPEN + "').innerText === t", arg=text
    )


def ranked(cfg, raw) -> list[str]:
    ov = score(raw, cfg).overall["score"]
    return sorted(ov.index, key=lambda m: -ov[m])


def test_ticks_open_compare_with_the_engines_differences(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    models = ranked(cfg, raw)
    a, b = models[2], models[0]
    answered = []
    page.on(
        "response",
        lambda r: answered.append(r.status) if "_dash-update-component" in r.url else None,
    )
    tick(page, a)
    tick(page, b)
    label(page, "Compare (2)")
    # a view change of a closed view: no answer from the server (204), the URL is unchanged
    page.wait_for_timeout(300)
    assert 200 not in answered and "models=" not in page.evaluate("location.search")
    assert sorted(page.evaluate(TICKED)) == sorted([a, b])
    page.locator(f"#{ids.COMPARE_OPEN}").click()
    page.wait_for_selector(f"#{ids.COMPARE_TABLE} .ag-row .cmp-raw")
    q = parse_qs(page.evaluate("location.search")[1:])
    assert q["v"] == ["compare"] and q["models"] == [f"{a},{b}"]  # in the order ticked
    shown = page.evaluate(GRID_TEXT, ids.COMPARE_TABLE)
    assert shown["heads"][1:] == [a, b]  # the demo's display names are its keys
    rows = shown["rows"]
    s = score(raw, cfg)
    ov = s.overall["score"]
    d = ov[b] - ov[a]
    assert rows[0] == ["Overall", fmt_score(ov[a]), f"{fmt_score(ov[b])} (+{fmt_score(d)})"]
    cat = cfg.categories[0].name
    cs = s.categories[cat]
    dc = fmt_score(cs[b] - cs[a])  # "+" before a positive difference
    sign = "+" if not dc.startswith("-") and float(dc) != 0 else ""
    row = next(r for r in rows if r[0] == cat)
    assert row[1:] == [fmt_score(cs[a]), f"{fmt_score(cs[b])} ({sign}{dc})"]


def test_the_seventh_tick_is_refused(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.goto(env["url"] + "/")
    page.wait_for_selector(f"#{ids.GRID} .ag-cell[col-id='o']")
    models = ranked(cfg, raw)
    for m in models[:6]:
        tick(page, m)
    label(page, "Compare (6)")
    assert page.locator(f"#{ids.COMPARE_NOTE}").inner_text() == ""
    tick(page, models[6])
    page.wait_for_function(
        "(id) => document.getElementById(id).innerText.includes('At most 6')", arg=ids.COMPARE_NOTE
    )
    page.wait_for_timeout(200)
    assert sorted(page.evaluate(TICKED)) == sorted(models[:6])
    assert page.locator(f"#{ids.COMPARE_OPEN}").inner_text() == "Compare (6)"
    # unticking one makes room (and clears the note)
    tick(page, models[0])
    label(page, "Compare (5)")
    assert page.locator(f"#{ids.COMPARE_NOTE}").inner_text() == ""


def test_ticks_follow_a_model_filter(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    page.goto(env["url"] + "/")
    page.wait_for_selector(f"#{ids.GRID} .ag-cell[col-id='o']")
    models = ranked(cfg, raw)
    tick(page, models[0])
    tick(page, models[1])
    label(page, "Compare (2)")
    # the filter hides the first ticked model: it stays in the compare set, and is ticked again
    # when the filter is cleared
    page.evaluate(
        "([id, v]) => window.dash_clientside.set_props(id, {value: v})",
        [ids.MODEL_FILTER, models[1:5]],
    )
    page.wait_for_function(
        "(m) => !document.querySelector(`#grid .ag-row[row-id='${m}']`)", arg=models[0]
    )
    assert page.evaluate(TICKED) == [models[1]]
    assert page.locator(f"#{ids.COMPARE_OPEN}").inner_text() == "Compare (2)"
    page.evaluate(
        "([id, v]) => window.dash_clientside.set_props(id, {value: v})", [ids.MODEL_FILTER, None]
    )
    page.wait_for_function(
        "(m) => window.dash_ag_grid.getApi(window.mplNames.grid).getSelectedNodes().length === 2",
        arg=models[0],
    )
    assert sorted(page.evaluate(TICKED)) == sorted(models[:2])


def test_no_errors(env):
    assert not env["errors"]
    assert not [p for p in env["seen"].problems if "favicon" not in p]
