"""Browser tests of the finishing touches: a category's missing-data policy switched in the
page (and the header's summary following the policy), a preset that cannot be applied, the
exports of the filtered models (the XLSX downloaded through the page and opened with openpyxl),
the digits control in the URL and in the curve's hover, dark score cells, and the rank first on
a phone.

The small board (browser_utils): policy ``invalidate``, Classification overrides ``skip``; kNN has
no Diabetes/MAE, so its Regression and overall are missing under ``invalidate``. One preset added
here sets every category's weight to 0, which the dashboard refuses.
"""

from __future__ import annotations

import html
import re
import time

import pytest
from browser_utils import (
    GRID_READY,
    chromium,
    live_server,
    open_dashboard,
    require_browser,
    write_small_dataset,
)
from test_dashboard_browser import IRIS_ACC, SPEED, column, commit, expect, goto_view, wait_column

from ml_peg_like import load_dataset, score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.state import encode_filters
from ml_peg_like.numfmt import fmt_score

pytestmark = pytest.mark.browser

BROKEN = "Nothing counts"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    d = write_small_dataset(tmp_path_factory.mktemp("finish"))
    text = (d / "config.yml").read_text(encoding="utf-8")
    text += (
        f'  {BROKEN}: {{Classification: {{weight: 0}}, Regression: {{weight: 0}}, "{SPEED}": '
        "{weight: 0}}\n"
    )
    (d / "config.yml").write_text(text, encoding="utf-8")
    cfg, raw = load_dataset(d)
    assert BROKEN in cfg.presets
    app = create_app(cfg, raw)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        yield dict(cfg=cfg, raw=raw, url=url, page=seen.page, problems=seen.problems, b=browser)
        seen.page.context.close()


def summary(page) -> str:
    return page.locator("#summary").text_content() or ""


def policy_box_texts(page, want: list[str], timeout: float = 10.0) -> list[str]:
    """The policy boxes' texts, once they show ``want`` or ``timeout`` s passed (the dropdowns
    render after the grid, and follow an edit after its response, on a slow machine)."""
    loc = page.locator(".policy-cell .dash-dropdown-value")
    deadline = time.time() + timeout
    got = loc.all_text_contents()
    while got != want and time.time() < deadline:
        page.wait_for_timeout(50)
        got = loc.all_text_contents()
    return got


def pick_policy(page, i: int, value: str) -> None:
    page.locator(".policy-cell .dash-dropdown").nth(i).click()
    page.locator(".dash-dropdown-option", has_text=value).first.click()


def test_a_category_policy_is_switched_in_the_page_and_the_summary_follows(env):
    page, cfg, raw, url = env["page"], env["cfg"], env["raw"], env["url"]
    page.goto(url + "/")
    page.wait_for_selector(GRID_READY)
    assert summary(page).endswith("missing data: invalidate (1 category skip)")
    # the overview's category table: one policy box per category, the effective policy
    want = ["skip", "invalidate", "invalidate"]
    assert policy_box_texts(page, want) == want
    assert column(page, "d")["kNN"] == "no score"
    pick_policy(page, 1, "skip")  # Regression: average what is present
    mine = score(raw, cfg.apply_changes({"Regression": {"missing": "skip"}}))
    wait_column(page, "o", expect(mine, "overall", None))
    assert column(page, "d")["kNN"] == "new"
    page.wait_for_function(
        "() => document.querySelector('#summary').textContent.endsWith('(2 categories skip)')"
    )
    assert "s=" in page.url  # the override is a change like any other: in the link
    assert "missing=" not in page.url
    # the config's policy to skip: every category without an override follows it
    page.locator("#missing-policy input[value='skip']").check()
    both = score(
        raw, cfg.apply_changes({"": {"missing": "skip"}, "Regression": {"missing": "skip"}})
    )
    wait_column(page, "o", expect(both, "overall", None))
    page.wait_for_function(
        "() => document.querySelector('#summary').textContent.endsWith('missing data: skip')"
    )
    want = ["skip", "skip", "skip"]
    assert policy_box_texts(page, want) == want
    # a link restores both
    page.goto(page.url)
    page.wait_for_selector(GRID_READY)
    wait_column(page, "o", expect(both, "overall", None))
    want = ["skip", "skip", "skip"]
    assert policy_box_texts(page, want) == want
    page.click("#reset-all")
    wait_column(page, "o", expect(score(raw, cfg), "overall", None))
    want = ["skip", "invalidate", "invalidate"]
    assert policy_box_texts(page, want) == want
    assert summary(page).endswith("missing data: invalidate (1 category skip)")


def test_a_preset_that_cannot_be_applied_leaves_everything_as_it_was(env):
    page, cfg, raw, url = env["page"], env["cfg"], env["raw"], env["url"]
    page.goto(url + "/")
    page.wait_for_selector(GRID_READY)
    goto_view(page, "Classification/Iris")
    commit(page, IRIS_ACC, "good", "0.95")
    edited = cfg.apply_changes({IRIS_ACC: {"good": 0.95}})
    goto_view(page, "")
    wait_column(page, "o", expect(score(raw, edited), "overall", None))
    before_url = page.url
    page.click("#preset")
    page.locator(".dash-dropdown-option", has_text=BROKEN).first.click()
    msg = page.locator("#status .status-msg.err")
    msg.wait_for()
    text = msg.text_content()
    assert f"Preset '{BROKEN}' cannot be applied" in text
    assert "every category has weight 0" in text and "the settings are as they were" in text
    # the selection is as it was: the scores, the edit, the link; the preset is not shown chosen
    wait_column(page, "o", expect(score(raw, edited), "overall", None))
    assert page.url == before_url
    assert page.locator("#reset-all").text_content() == "Reset all (1)"
    page.wait_for_function("() => !document.querySelector('#preset .dash-dropdown-value-item')")
    page.click("#reset-all")
    wait_column(page, "o", expect(score(raw, cfg), "overall", None))


def _download(page, kind: str, tmp_path):
    with page.expect_download() as info:
        page.click(f"#{ids.download_button(kind)}")
    dl = info.value
    path = tmp_path / dl.suggested_filename
    dl.save_as(path)
    return dl.suggested_filename, path


def test_the_xlsx_export_holds_the_filtered_models_or_all(env, tmp_path):
    import openpyxl

    page, cfg, raw, url = env["page"], env["cfg"], env["raw"], env["url"]
    picks = ["Dummy", "Ridge", "kNN"]
    page.goto(url + "/?f=" + encode_filters({ids.FILTER_PICKS: picks}))
    page.wait_for_selector(GRID_READY)
    page.wait_for_function(
        "() => document.querySelector('#shown-count').textContent.startsWith('3 of 6')"
    )
    name, path = _download(page, "xlsx", tmp_path)
    assert re.fullmatch(r"Small_test_board_\d{4}-\d{2}-\d{2}\.xlsx", name)
    wb = openpyxl.load_workbook(path)
    rows = list(wb["Overall"].iter_rows(values_only=True))
    assert rows[0][:5] == ("Rank", "Model", "Key", "Tied", "Overall")
    s = score(raw, cfg).overall["score"]
    # rank order among all models (the filter shows, it does not rank again); kNN has no score
    ranked = s.rank(ascending=False, method="min")
    assert [r[2] for r in rows[1:]] == ["Ridge", "Dummy", "kNN"]
    assert [r[0] for r in rows[1:]] == [int(ranked["Ridge"]), int(ranked["Dummy"]), None]
    assert rows[1][4] == pytest.approx(s["Ridge"], abs=1e-12)
    settings = dict(wb["Settings"].iter_rows(min_row=2, values_only=True))
    assert settings["Models"].startswith("3 of 6")
    # "all models": every model, whatever the filter shows
    page.get_by_label("all models").check()
    _, path = _download(page, "xlsx", tmp_path / "all")
    rows = list(openpyxl.load_workbook(path)["Overall"].iter_rows(values_only=True))
    assert sorted(r[2] for r in rows[1:]) == sorted(raw.models)
    page.get_by_label("all models").uncheck()


#: the hover label of point k of the curve's models trace
HOVER_LABEL = """(k) => {
  const g = document.querySelector('#curve .js-plotly-plot');
  const i = g.data.findIndex(t => t.name === 'models');
  Plotly.Fx.hover(g, [{curveNumber: i, pointNumber: k}]);
  const t = document.querySelector('#curve .hoverlayer');
  return t ? t.textContent : null;
}"""


def test_digits_are_in_the_url_and_in_the_curve_hover(env):
    page, cfg, raw, url = env["page"], env["cfg"], env["raw"], env["url"]
    s = score(raw, cfg)
    acc = s.metrics["Iris/Accuracy"]
    page.goto(url + "/?v=Classification%2FIris&digits=4")
    page.wait_for_selector(GRID_READY)
    page.wait_for_function(
        "() => { const g = document.querySelector('#curve .js-plotly-plot');"
        " return g && g.data && g.data.length > 1; }"
    )
    assert page.locator("#digits .dash-dropdown-value").text_content() == "4"
    wait_column(page, "o", expect_digits(s, 4))

    def hover_scores(want):
        """The score in each point's hover label (Plotly draws one label per 50 ms at most;
        with 3 digits or more the label formats the point's y, with 2 the text holds it)."""
        texts = page.evaluate(
            "() => document.querySelector('#curve .js-plotly-plot').data"
            ".filter(t => t.name === 'models')[0].text"
        )
        out = []
        for k, text in enumerate(texts):
            plain = html.unescape(re.sub(r"<[^>]+>", "", text.split("<br>score")[0]))
            label, found = "", []
            for _ in range(150):  # a label drawn before the redraw may linger: wait it out
                label = page.evaluate(HOVER_LABEL, k) or ""
                found = re.findall(r"score (\S+)", label[len(plain) :])
                if label.startswith(plain) and found and set(found) <= set(want):
                    break
                page.wait_for_timeout(60)
            assert label.startswith(plain)
            out += found
        return sorted(out)

    want4 = sorted(fmt_score(v, 1.0, 4) for v in acc.dropna())
    assert hover_scores(want4) == want4
    page.click("#digits")
    page.locator(".dash-dropdown-option", has_text="2").first.click()
    page.wait_for_function("() => location.search.includes('digits=2')")
    wait_column(page, "o", expect_digits(s, 2))
    want2 = sorted(fmt_score(v, 1.0, 2) for v in acc.dropna())
    assert hover_scores(want2) == want2
    # back to the default: the parameter goes
    page.click("#digits")
    page.locator(".dash-dropdown-option", has_text="3").first.click()
    page.wait_for_function("() => !location.search.includes('digits=')")
    assert not env["problems"]


def expect_digits(s, digits: int) -> dict[str, str]:
    return {m: fmt_score(v, 1.0, digits) for m, v in s.overall["score"].items()}


def _rgb(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in re.findall(r"\d+", text)[:3])


def test_dark_score_cells_and_the_rank_first_on_a_phone(env):
    browser, url = env["b"], env["url"]
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
    page = ctx.new_page()
    page.goto(url + "/")
    page.wait_for_selector(GRID_READY)
    cell = page.locator(".ag-cell[col-id='o']").filter(has_text=re.compile(r"\d")).first
    bg = _rgb(cell.evaluate("c => getComputedStyle(c).backgroundColor"))
    fg = _rgb(cell.evaluate("c => getComputedStyle(c).color"))
    assert sum(bg) / 3 < 110 and sum(fg) / 3 > 200  # a dark tint, light text
    # on a 390 px screen the scores come first: the model's name (the only pinned column), then
    # the rank and the overall score; no tick column, no rank-change column
    page.wait_for_function(
        "() => !document.querySelector(\".ag-header-cell[col-id='ag-Grid-SelectionColumn']\")"
    )
    order = page.evaluate(
        "() => [...document.querySelectorAll('.ag-header-cell')].filter(h => h.offsetWidth)"
        ".sort((a, b) => a.getBoundingClientRect().left - b.getBoundingClientRect().left)"
        ".map(h => h.getAttribute('col-id'))"
    )
    assert order[:3] == ["model", "rank", "o"]
    assert "d" not in order
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    # the curve is drawn in the dark: only its bottom layer has the page's background
    page.goto(url + "/?v=Classification%2FIris")
    page.wait_for_selector("#curve .js-plotly-plot .scatterlayer .point")
    layers = page.evaluate(
        "() => [...document.querySelectorAll('#curve .svg-container > svg.main-svg')]"
        ".map(s => getComputedStyle(s).backgroundColor)"
    )
    assert len(layers) >= 2 and layers[0] != "rgba(0, 0, 0, 0)"
    assert all(c == "rgba(0, 0, 0, 0)" for c in layers[1:])
    # the theme button: light cells again, dark text
    page.click("#theme-toggle")
    page.wait_for_function(
        "() => getComputedStyle(document.querySelector(\".ag-cell[col-id='o']\")).color"
        " === 'rgb(31, 35, 40)'"
    )
    ctx.close()
