"""Come back to your work: the browser remembers the last settings (localStorage, never the
server) and offers them back on the plain address; a link's settings always win.

The counts below are the changed fields written into each query by hand.
"""

from __future__ import annotations

import urllib.parse

import pytest
from browser_utils import GRID_READY, chromium, live_server, require_browser, small_dataset
from test_dashboard_browser import box, commit, goto_view, settle

from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.state import (
    Q_FILTER,
    Q_MISSING,
    Q_STATE,
    decode_changes,
    encode_changes,
    make_query,
    parse_query,
)

pytestmark = pytest.mark.browser

IRIS_ACC = "Classification/Iris/Accuracy"
KEPT = """() => Object.keys(localStorage).filter(k => k.startsWith('mpl-last-query:'))
                 .map(k => localStorage.getItem(k))"""
LINE = f"#{ids.RESTORE}"


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    require_browser()
    cfg, raw = small_dataset(tmp_path_factory.mktemp("restore"))
    with live_server(create_app(cfg, raw, robustness=False)) as url, chromium() as browser:
        yield url, browser


def _open(context, url: str):
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(GRID_READY)
    settle(page, 300)
    return page


def _keep(page, query: str) -> None:
    page.evaluate("(q) => localStorage.setItem('mpl-last-query:' + location.pathname, q)", query)


def _offer_text(page) -> str:
    page.wait_for_selector(LINE, state="visible")
    return page.locator(f"#{ids.RESTORE_TEXT}").inner_text()


def test_the_names_the_script_reads_are_the_query_parameters():
    names = ids.js_names()
    assert (names["qState"], names["qMissing"], names["qFilter"]) == (Q_STATE, Q_MISSING, Q_FILTER)


def test_an_edit_is_remembered_and_restored_on_the_plain_address(board):
    url, browser = board
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = _open(context, url + "/")
    assert page.locator(LINE).is_hidden()  # nothing kept yet: nothing offered
    goto_view(page, "Classification/Iris")
    commit(page, IRIS_ACC, "good", "0.95")
    page.wait_for_function("() => location.search.includes('s=')")
    (kept,) = page.evaluate(KEPT)
    assert decode_changes(parse_query(kept)[Q_STATE]) == {IRIS_ACC: {"good": 0.95}}
    page.close()

    page = _open(context, url + "/")  # the plain address, later
    assert _offer_text(page) == "Restore your last settings: 1 change"
    assert "s=" not in page.url  # offered, not applied
    page.locator(f"#{ids.RESTORE_YES}").click()
    page.wait_for_function("() => location.search.includes('s=')")
    page.wait_for_selector(LINE, state="hidden")
    query = parse_query(urllib.parse.urlparse(page.url).query)
    assert decode_changes(query[Q_STATE]) == {IRIS_ACC: {"good": 0.95}}
    assert parse_query(urllib.parse.urlparse(page.url).query).get("v") == "Classification/Iris"
    page.wait_for_function(
        '(n) => { const b = document.querySelector(`input[name="${n}"]`); '
        "return b && b.value === '0.95'; }",
        arg=f"{IRIS_ACC}.good",
    )
    assert box(page, IRIS_ACC, "good").input_value() == "0.95"
    context.close()


def test_a_link_always_wins_and_is_never_offered_anything(board):
    url, browser = board
    context = browser.new_context()
    page = _open(context, url + "/")
    _keep(page, make_query({IRIS_ACC: {"good": 0.9}}))
    link = make_query({IRIS_ACC: {"bad": 0.6}}, view="Classification/Iris")
    page.goto(url + "/" + link)
    page.wait_for_selector(GRID_READY)
    settle(page, 500)
    assert page.locator(LINE).is_hidden()
    assert box(page, IRIS_ACC, "bad").input_value() == "0.6"
    (kept,) = page.evaluate(KEPT)  # the link's settings are now the last ones
    assert decode_changes(parse_query(kept)[Q_STATE]) == {IRIS_ACC: {"bad": 0.6}}
    context.close()


def test_the_count_adds_the_fields_and_the_policy_and_names_a_filter(board):
    url, browser = board
    context = browser.new_context()
    page = _open(context, url + "/")
    # 2 fields + 1 field + the missing-data policy = 4 changes
    changes = {IRIS_ACC: {"good": 0.9, "bad": 0.6}, "Regression": {"weight": 3}}
    query = make_query({**changes, "": {"missing": "skip"}}) + "&f=x"
    assert parse_query(query)[Q_STATE].startswith("j")
    _keep(page, query)
    page.reload()
    assert _offer_text(page) == "Restore your last settings: 4 changes and a model filter"
    context.close()


def test_deflated_settings_are_counted(board):
    url, browser = board
    context = browser.new_context()
    page = _open(context, url + "/")
    paths = [f"Classification/Iris/M{i}" for i in range(12)]
    changes = {p: {"good": 1, "bad": 0, "weight": 2} for p in paths}  # 12 x 3 = 36 fields
    encoded = encode_changes(changes)
    assert encoded.startswith("z")  # the long, repetitive state is deflated
    _keep(page, "?" + urllib.parse.urlencode({Q_STATE: encoded}))
    page.reload()
    assert _offer_text(page) == "Restore your last settings: 36 changes"
    context.close()


def test_dismiss_hides_the_line_and_forgets_the_settings(board):
    url, browser = board
    context = browser.new_context()
    page = _open(context, url + "/")
    _keep(page, make_query({IRIS_ACC: {"good": 0.9}}))
    page.reload()
    assert _offer_text(page) == "Restore your last settings: 1 change"
    page.locator(f"#{ids.RESTORE_NO}").click()
    page.wait_for_selector(LINE, state="hidden")
    assert page.evaluate(KEPT) == []
    page.reload()
    page.wait_for_selector(GRID_READY)
    settle(page, 500)
    assert page.locator(LINE).is_hidden()
    assert "s=" not in page.url
    context.close()


def test_unreadable_settings_are_offered_without_a_count(board):
    url, browser = board
    context = browser.new_context()
    page = _open(context, url + "/")
    _keep(page, "?s=j%%%")
    page.reload()
    assert _offer_text(page) == "Restore your last settings"
    context.close()


def test_undoing_every_change_forgets_the_settings(board):
    url, browser = board
    context = browser.new_context()
    page = _open(context, url + "/")
    goto_view(page, "Classification/Iris")
    commit(page, IRIS_ACC, "bad", "0.6")
    page.wait_for_function("() => location.search.includes('s=')")
    assert len(page.evaluate(KEPT)) == 1
    page.locator(f"#{ids.RESET_ALL}").click()
    page.wait_for_function("() => !location.search.includes('s=')")
    settle(page, 300)
    assert page.evaluate(KEPT) == []  # the last settings are the defaults: nothing to offer
    context.close()
