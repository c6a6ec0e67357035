"""Browser tests of the looks: display names (grid, curve hover), the model card and its
safe links, the curve's axis (linear for a linear rule) / log toggle / pinned outliers / every model at a point, the dark
theme (system setting, toggle, remembered), a 390 px phone, "N of M models shown" and ranks
within the shown models. One small board built here (values chosen so the ranks are known by
hand)."""

from __future__ import annotations

import csv
from urllib.parse import quote

import pytest
from browser_utils import CHROMIUM, CHROMIUM_ARGS, GRID_READY, live_server, require_browser

from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.state import encode_filters
from ml_peg_like.numfmt import fmt_raw

pytestmark = pytest.mark.browser

CONFIG = """\
title: Looks test board
categories:
  A:
    benchmarks:
      Ext:
        metrics:
          dE: {good: 0, bad: 10, unit: meV}
          Acc: {good: 1, bad: 0}
  B:
    benchmarks:
      Other:
        metrics:
          F1: {good: 1, bad: 0}
"""
KEYS = [f"m{i}" for i in range(10)]
NAMES = ["Model Zero", "Model One", "Model Two", "Model Three", "Model Four", "Model Five",
         "Model Six", "Model Seven", "Model Eight", "Model Nine"]  # fmt: skip
OUTLIER = 9.485584224987686e23  # ML-PEG extensivity's outlier
# dE: six models at one point (0.5 -> score 0.95), an outlier each side, 3 (0.7) and 20 (0)
DE = [0.5] * 6 + [OUTLIER, 2e-9, 3.0, 20.0]
ACC = [round(0.9 - 0.05 * i, 2) for i in range(10)]
# overall = (mean(dE score, Acc) + 0.5) / 2: m0 .7125, m1 .70, m2 .6875, m3 .675, m4 .6625,
# m5 .65, m7 .6375, m8 .55, m6 .40, m9 .3625 -> m3 is 4th, m8 8th
RANKS = {"m3": 4, "m8": 8}
SCARY = "<img src=x onerror=alert(2)><b>bold</b>"


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    require_browser()
    d = tmp_path_factory.mktemp("looks")
    (d / "config.yml").write_text(CONFIG, encoding="utf-8")
    with open(d / "raw_metrics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "benchmark", "metric", "value"])
        for k, de, acc in zip(KEYS, DE, ACC, strict=True):
            w.writerows(
                [[k, "Ext", "dE", repr(de)], [k, "Ext", "Acc", acc], [k, "Other", "F1", 0.5]]
            )
    with open(d / "models.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "display_name", "paper", "repo", "notes", "family"])
        for i, (k, n) in enumerate(zip(KEYS, NAMES, strict=True)):
            w.writerow(
                [
                    k,
                    n,
                    "https://example.org/paper?a=1&b=2",
                    "javascript:alert(1)",
                    SCARY,
                    "fam" + "AB"[i % 2],
                ]  # fmt: skip
            )
    cfg, raw = load_dataset(d)
    app = create_app(cfg, raw, robustness=False)
    from playwright.sync_api import sync_playwright

    with live_server(app) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser, url
        browser.close()


def _page(board, query="", *, width=1280, height=800, scheme="light"):
    browser, url = board
    ctx = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = ctx.new_page()
    problems: list[str] = []
    page.on("dialog", lambda d: (problems.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url + "/" + query)
    page.wait_for_selector(GRID_READY)
    return page, problems


def _curve(page):
    page.wait_for_function(
        "() => { const g = document.querySelector('#curve .js-plotly-plot');"
        " return g && g.data && g.data.length > 1; }"
    )


def _fig(page):
    return page.evaluate(
        "() => { const g = document.querySelector('#curve .js-plotly-plot');"
        " return {data: g.data.map(t => ({text: t.text, x: t.x, symbol: t.marker && t.marker.symbol})),"
        " xtype: g._fullLayout.xaxis.type, range: g._fullLayout.xaxis.range,"
        " notes: g._fullLayout.annotations.map(a => a.text)}; }"
    )


EXT = "?v=" + quote("A/Ext", safe="")


def test_display_names_in_the_grid_filter_and_curve_hover(board):
    page, problems = _page(board, EXT)
    cells = page.locator(".ag-center-cols-viewport .ag-cell[col-id='model'], "
                         ".ag-pinned-left-cols-container .ag-cell[col-id='model']")  # fmt: skip
    texts = set(cells.all_inner_texts())
    assert "Model Zero" in texts and "m0" not in texts
    _curve(page)
    fig = _fig(page)
    six = [i for i, t in enumerate(fig["data"][1]["text"]) if t.startswith("6 models")]
    assert len(six) == 1
    # hover that point: the label lists all six display names
    page.evaluate(
        "(k) => { const g = document.querySelector('#curve .js-plotly-plot');"
        " Plotly.Fx.hover(g, [{curveNumber: 1, pointNumber: k}]); }",
        six[0],
    )
    label = page.locator("#curve .hoverlayer").text_content()
    for name in NAMES[:6]:
        assert name in label
    assert "Model Six" not in label
    # the model filter offers display names
    page.locator("#model-filter").click()
    opts = page.locator(".dash-dropdown-option, .dash-options-list-option").all_inner_texts()
    assert any("Model Three" in o for o in opts), opts
    assert not problems


def test_model_card_shows_every_attribute_and_only_safe_links(board):
    page, problems = _page(board)
    page.locator(".ag-cell[col-id='model']", has_text="Model Zero").first.click()
    card = page.locator("#model-card")
    card.locator(".card-name").wait_for()
    assert card.locator(".card-name").inner_text() == "Model Zero"
    text = card.inner_text()
    for part in ("m0", "paper", "https://example.org/paper?a=1&b=2", "javascript:alert(1)",
                 SCARY, "famA"):  # fmt: skip
        assert part in text, part
    links = card.locator("a")
    assert links.count() == 1
    assert links.first.get_attribute("href") == "https://example.org/paper?a=1&b=2"
    assert links.first.get_attribute("rel") == "noopener noreferrer"
    assert links.first.get_attribute("target") == "_blank"
    assert card.locator("img").count() == 0 and card.locator("b").count() == 0
    page.wait_for_timeout(300)
    assert not problems  # no alert ran
    page.locator("#model-card-close").click()
    page.wait_for_function(
        "() => getComputedStyle(document.querySelector('#model-card')).display === 'none'"
    )


def test_log_axis_its_toggle_and_pinned_outliers(board):
    page, problems = _page(board, EXT)
    _curve(page)
    fig = _fig(page)
    # dE's rule is linear: its automatic axis is linear although its values span 33 decades
    # (2e-9 .. 9.5e23); a log axis is the user's choice (the toggle)
    assert fig["xtype"] == "linear"
    assert fig["range"][1] < 1e3  # the outlier does not stretch the axis
    assert any(fmt_raw(OUTLIER) in t for t in fig["data"][1]["text"])
    page.locator(".xscale label", has_text="log x").click()
    page.wait_for_function(
        "() => document.querySelector('#curve .js-plotly-plot')._fullLayout.xaxis.type === 'log'"
    )
    fig = _fig(page)
    pts = fig["data"][1]
    pinned = [i for i, s in enumerate(pts["symbol"]) if s.startswith("triangle")]
    assert pinned
    texts = [pts["text"][i] for i in pinned]
    assert any(fmt_raw(OUTLIER) in t and "beyond the axis" in t for t in texts)
    lo, hi = 10 ** fig["range"][0], 10 ** fig["range"][1]
    assert hi < OUTLIER  # the outlier does not stretch the axis: it sits at the edge
    assert all(lo * (1 - 1e-9) <= x <= hi * (1 + 1e-9) for x in pts["x"])
    # threshold labels: one row each (they cannot overlap)
    assert sum(1 for n in fig["notes"] if n.startswith(("good", "bad"))) == 2
    page.locator(".xscale label", has_text="linear").click()
    page.wait_for_function(
        "() => document.querySelector('#curve .js-plotly-plot')._fullLayout.xaxis.type === 'linear'"
    )
    assert not problems


BG = "(sel) => getComputedStyle(document.querySelector(sel)).backgroundColor"


def test_dark_theme_follows_the_system_and_the_toggle_is_remembered(board):
    page, _ = _page(board, EXT, scheme="dark")
    _curve(page)
    dark = {
        s: page.evaluate(BG, s) for s in ("body", ".ag-root-wrapper", ".js-plotly-plot .main-svg")
    }
    assert dark["body"] == "rgb(13, 17, 23)"
    assert dark[".ag-root-wrapper"] == "rgb(13, 17, 23)"
    assert dark[".js-plotly-plot .main-svg"] == "rgb(13, 17, 23)"
    page.locator("#theme-toggle").click()
    page.wait_for_function("() => document.documentElement.dataset.theme === 'light'")
    light = {s: page.evaluate(BG, s) for s in dark}
    assert light["body"] == "rgb(255, 255, 255)"
    assert light[".ag-root-wrapper"] == "rgb(255, 255, 255)"
    assert light[".js-plotly-plot .main-svg"] == "rgb(255, 255, 255)"
    page.reload()
    page.wait_for_selector(GRID_READY)
    assert page.evaluate(BG, "body") == "rgb(255, 255, 255)"  # remembered over the system's


def test_light_system_setting_gives_the_light_theme(board):
    page, _ = _page(board, scheme="light")
    assert page.evaluate(BG, "body") == "rgb(255, 255, 255)"
    assert page.evaluate("() => document.documentElement.dataset.theme") == "light"


def test_phone_width_does_not_scroll_sideways_and_the_sidebar_is_a_menu(board):
    page, problems = _page(board, EXT, width=390, height=844)
    page.wait_for_timeout(300)
    assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 390
    assert not page.locator("#sidebar").is_visible()
    page.locator("#menu-toggle").click()
    assert page.locator("#sidebar").is_visible()
    assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 390
    assert not problems


def test_n_of_m_shown_and_rank_within_shown(board):
    f = encode_filters({"p": ["m3", "m8"]})
    page, problems = _page(board, "?f=" + quote(f, safe=""))
    count = page.locator("#shown-count")
    count.filter(has_text="2 of 10 models shown").wait_for()

    def ranks():
        rows = page.locator(".ag-pinned-left-cols-container .ag-row")
        out = {}
        for i in range(rows.count()):
            r = rows.nth(i)
            out[r.get_attribute("row-id")] = r.locator(".ag-cell[col-id='rank']").inner_text()
        return out

    page.wait_for_function(
        "() => document.querySelectorAll('.ag-pinned-left-cols-container .ag-row').length === 2"
    )
    assert ranks() == {k: str(v) for k, v in RANKS.items()}
    overall = page.locator(".ag-row[row-id='m8'] .ag-cell[col-id='o']").first.inner_text()
    page.locator("#rank-shown input").check()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.ag-pinned-left-cols-container .ag-row[row-id=\"m8\"] .ag-cell[col-id=\"rank\"]')].some(c => c.innerText.trim() === '2')"
    )
    assert ranks() == {"m3": "1", "m8": "2"}
    assert page.locator(".ag-row[row-id='m8'] .ag-cell[col-id='o']").first.inner_text() == overall
    assert not problems
