"""Browser tests of the scoring semantics in the page: the missing-data policy switch and its URL
parameter, the "N models have no overall score" line and its button, rank-change words, greyed
excluded groups, presets that keep other edits, and the toggle and sort in the URL.

The small board (browser_utils): policy ``invalidate``, Classification overrides ``skip``; kNN has
no Diabetes/MAE, so Regression and its overall are missing under ``invalidate``.
"""

from __future__ import annotations

import pytest
from browser_utils import chromium, live_server, open_dashboard, require_browser, small_dataset
from test_dashboard_browser import (
    IRIS_ACC,
    column,
    commit,
    expect,
    goto_view,
    settle,
    wait_column,
)

from ml_peg_like import score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.tables import fmt_score

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    app = create_app(cfg, raw)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        yield dict(cfg=cfg, raw=raw, url=url, page=seen.page, problems=seen.problems)
        seen.page.context.close()


def no_score_text(page) -> str:
    return page.locator("#no-score").text_content() or ""


def test_no_score_line_and_its_skip_button(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    base = score(raw, cfg)
    assert base.overall["score"].isna().sum() == 1  # kNN
    page.wait_for_function("() => document.querySelector('#no-score').textContent.length > 0")
    text = no_score_text(page)
    assert text.startswith("1 of 6 models have no overall score")
    assert "policy 'invalidate'" in text and "missing: Regression for 1" in text
    assert page.locator("#missing-policy input[value='invalidate']").is_checked()
    assert column(page, "d")["kNN"] == "no score"
    page.click("#missing-skip")
    skip = score(raw, cfg.apply_changes({"": {"missing": "skip"}}))
    wait_column(page, "o", expect(skip, "overall", None))
    assert "missing=skip" in page.url
    assert page.locator("#missing-policy input[value='skip']").is_checked()
    page.wait_for_function("() => document.querySelector('#no-score').textContent === ''")
    assert not page.locator("#missing-skip").is_visible()
    # kNN gained a score: a word, not an arrow; the others moved by a number or not at all
    deltas = column(page, "d")
    assert deltas["kNN"] == "new"
    for m in skip.models:
        if m != "kNN":
            assert deltas[m] == "" or deltas[m][0] in "▲▼"
    # under skip the overview has a coverage column
    cov = column(page, "cov")
    assert cov["kNN"] == f"{round(skip.overall['coverage']['kNN'] * 100)}%"
    assert cov["Ridge"] == "100%"


def test_policy_switch_and_missing_in_the_url(env):
    page, cfg, raw, url = env["page"], env["cfg"], env["raw"], env["url"]
    page.locator("#missing-policy input[value='invalidate']").check()
    wait_column(page, "o", expect(score(raw, cfg), "overall", None))
    assert "missing=" not in page.url  # the default policy needs no parameter
    assert column(page, "d")["kNN"] == "no score"
    page.goto(url + "/?missing=skip")
    skip = score(raw, cfg.apply_changes({"": {"missing": "skip"}}))
    wait_column(page, "o", expect(skip, "overall", None))
    assert page.locator("#missing-policy input[value='skip']").is_checked()
    page.go_back()
    page.goto(url + "/")
    wait_column(page, "o", expect(score(raw, cfg), "overall", None))


def test_preset_keeps_a_threshold_edit_and_grey_excluded_groups(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    goto_view(page, "Classification/Iris")
    commit(page, IRIS_ACC, "good", "0.95")
    edited = {IRIS_ACC: {"good": 0.95}}
    goto_view(page, "")
    wait_column(page, "o", expect(score(raw, cfg.apply_changes(edited)), "overall", None))
    page.click("#preset")
    page.locator(".dash-dropdown-option", has_text="Only classification").first.click()
    both = cfg.apply_changes({**cfg.presets["Only classification"], **edited})
    new = score(raw, both)
    wait_column(page, "o", expect(new, "overall", None))
    status = page.locator("#status").text_content()
    assert "applied" in status and "1 other change kept" in status
    # the weight-0 categories still show their scores, greyed
    wait_column(page, "c1", expect(new, "categories", "Regression"))
    classes = page.evaluate(
        "() => [...document.querySelectorAll('.ag-cell[col-id=\"c1\"]')].map(c => c.className)"
    )
    assert classes and all("excluded" in c for c in classes)
    # kNN lost nothing (Regression no longer counts): its overall is back, marked "new"
    assert column(page, "d")["kNN"] == "new"
    page.click("#reset-all")
    wait_column(page, "o", expect(score(raw, cfg), "overall", None))


def test_toggle_and_sort_round_trip_through_the_url(env):
    page, cfg, raw, url = env["page"], env["cfg"], env["raw"], env["url"]
    s = score(raw, cfg)
    page.goto(url + "/?v=Classification%2FIris&show=score&sort=n1.desc")
    page.wait_for_selector(".ag-cell[col-id='n1']")
    assert page.get_by_label("Normalised scores").is_checked()
    f1 = s.metrics["Iris/F1"].dropna().sort_values(ascending=False)
    # the sort from the link is applied once the grid has its rows (wait for it, then read)
    page.wait_for_function(
        """(m) => { const c = document.querySelector(
             '.ag-pinned-left-cols-container .ag-row[row-index="0"] .ag-cell[col-id="model"]');
           return c && c.textContent === m; }""",
        arg=f1.index[0],
    )
    first = page.evaluate(
        """() => document.querySelector(
             '.ag-pinned-left-cols-container .ag-row[row-index="0"] .ag-cell[col-id="model"]'
           ).textContent"""
    )
    assert first == f1.index[0]
    assert column(page, "n1")[first] == fmt_score(f1.iloc[0])
    # back to raw values: the URL drops show=, the sort follows the metric to its raw column;
    # back restores the toggle
    page.get_by_label("Raw values").check()
    page.wait_for_function("() => !location.search.includes('show=')")
    # the URL is rewritten by the toggle's answer: wait for it (a loaded runner is slow)
    page.wait_for_function("() => location.search.includes('sort=r1.desc')")
    page.go_back()
    page.wait_for_function("() => location.search.includes('show=score')")
    page.wait_for_selector(".ag-cell[col-id='n1']")
    page.wait_for_function(
        f"() => document.querySelector('#{ids.SHOW} input[value=score]').checked"
    )
    assert page.get_by_label("Normalised scores").is_checked()
    settle(page, 200)
    assert not env["problems"]


def test_a_sort_on_a_page_without_a_query_reaches_the_url(env):
    """The grid's sort is held back only until the server has answered a link (the first
    page's columns are not the link's); on a page opened without a query, a user's sort is
    written to the URL at once."""
    page, url = env["page"], env["url"]
    page.goto(url + "/")
    page.wait_for_selector(".ag-cell[col-id='o']")
    settle(page, 200)
    assert "sort=" not in page.url
    page.click(
        ".ag-header-cell[col-id='o'] .ag-sort-indicator-container, "
        ".ag-header-cell[col-id='o'] .ag-header-cell-label"
    )
    page.wait_for_function("() => location.search.includes('sort=o.')")
    assert not env["problems"]
