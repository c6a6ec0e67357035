"""Browser tests of the dashboard: headless Debian Chromium (Playwright) against the app served
in-process on a random loopback port. Every expected number comes from the engine
(``score(raw, config.apply_changes(...))``) formatted by the Python twins of the grid's formatters.
"""

from __future__ import annotations

import datetime
import io
import json
import logging
import time
import zipfile

import pytest
import yaml
from browser_utils import (
    ServerErrors,
    chromium,
    live_server,
    open_dashboard,
    require_browser,
    small_dataset,
)

from ml_peg_like import loads_config, score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.tables import fmt_raw, fmt_score
from ml_peg_like.io.report import safe_file_stem
from ml_peg_like.scoring import rank_text

pytestmark = pytest.mark.browser

IRIS_ACC = "Classification/Iris/Accuracy"
SPEED = "Speed <b>&amp;</b> <script>x</script>"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    app = create_app(cfg, raw)
    errors = ServerErrors()
    app.server.logger.addHandler(errors)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        page, context = seen.page, seen.page.context
        problems, posts = seen.problems, seen.callback_statuses
        yield dict(
            cfg=cfg,
            raw=raw,
            app=app,
            url=url,
            page=page,
            context=context,
            problems=problems,
            posts=posts,
            server_errors=errors.records,
        )
        context.close()


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------

COLLECT = """(col) => {
  const names = {}, vals = {}, out = {};
  const rows = document.querySelectorAll(
    '.ag-center-cols-container .ag-row, .ag-pinned-left-cols-container .ag-row');
  rows.forEach(r => {
    const i = r.getAttribute('row-index');
    const m = r.querySelector('.ag-cell[col-id="model"]');
    if (m) names[i] = m.textContent;
    const c = r.querySelector(`.ag-cell[col-id="${col}"]`);
    if (c) vals[i] = c.textContent.trim();
  });
  for (const i in vals) if (i in names) out[names[i]] = vals[i];
  return out;
}"""


def column(page, col: str) -> dict[str, str]:
    return page.evaluate(COLLECT, col)


def wait_column(page, col: str, expected: dict[str, str], timeout: float = 8.0) -> dict[str, str]:
    deadline = time.time() + timeout
    got = {}
    while time.time() < deadline:
        got = column(page, col)
        if got == expected:
            return got
        page.wait_for_timeout(50)
    assert got == expected, f"column {col}: shown {got}, expected {expected}"
    return got


def expect(scores, frame: str, key, scale=1.0) -> dict[str, str]:
    df = getattr(scores, frame)
    series = df[key] if key is not None else df["score"]
    return {m: fmt_score(v, scale) for m, v in series.items()}


def box(page, path: str, field: str):
    return page.locator(f"input[name='{path}.{field}']")


def box_class(page, path: str, field: str) -> str:
    """Classes of the box's wrapper (dcc.Input puts className on a container)."""
    return page.evaluate(
        "(n) => document.querySelector(`input[name=\"${n}\"]`).closest('.box').className",
        f"{path}.{field}",
    )


def commit(page, path: str, field: str, text: str) -> None:
    """Type into a box and press Enter, returning once the page shows the result (as a person
    sees it before the next click): the browser scores the edit at once (a refused value turns
    the box red, with no request); new changes then go to the server for what needs Python,
    whose answer is awaited too. The same text again changes nothing and is not waited for."""
    b = box(page, path, field)
    same = b.input_value() == text
    b.fill(text)
    commit_box(page, b, same)


def commit_box(page, b, same: bool = False) -> None:
    """Press Enter in the box ``b`` (a locator) and wait as :func:`commit` says."""
    if same:
        b.press("Enter")
        return
    edits, key = page.evaluate("[window.mplLive.edits, window.mplLive.key]")
    answers: list[int] = []

    def on_response(r) -> None:
        if "_dash-update-component" in r.url:
            answers.append(r.status)

    page.on("response", on_response)
    try:
        b.press("Enter")
        page.wait_for_function("(n) => window.mplLive.edits > n", arg=edits)
        if page.evaluate("(k) => window.mplLive.key !== k", key):
            for _ in range(500):  # the server's answer to the new changes (10 s at most)
                if answers:
                    break
                page.wait_for_timeout(20)
    finally:
        page.remove_listener("response", on_response)


def goto_view(page, path: str) -> None:
    page.evaluate(
        """(p) => { for (const b of document.querySelectorAll('#sidebar .nav-item')) {
             if (b.dataset.path === p) { b.click(); return; } } }""",
        path,
    )
    page.wait_for_function(
        """(p) => { const a = document.querySelector('#sidebar .nav-item.active');
                    return a && a.dataset.path === p; }""",
        arg=path,
    )


def settle(page, ms: int = 250) -> None:
    page.wait_for_timeout(ms)


# ------------------------------------------------------------------------------------------------
# tests (they share one page and run in file order)
# ------------------------------------------------------------------------------------------------


def test_formatters_match_their_python_twins(env):
    page = env["page"]
    values = [
        0,
        0.0625,
        0.1235,
        0.99951,
        1,
        12.5,
        0.0015,
        0.00012345,
        1234.5,
        99999.5,
        1234567,
        -0.5,
        -3.14159,
        2.5e-7,
        0.3333333333,
        5e-4,
        0.03333,
        9.5e23,
        10.133000000000001,
        99999.4,
        0.125,
        0.995,
        1e-9,
    ]
    js = page.evaluate(
        """(vs) => vs.map(v => [window.dashAgGridFunctions.fmtRaw(v),
                                window.dashAgGridFunctions.fmtScore(v, 1),
                                window.dashAgGridFunctions.fmtScore(v, 100)].concat(
                                [1, 2, 4, 5, 8].map(d =>
                                  window.dashAgGridFunctions.fmtScore(v, 1, d))))""",
        values,
    )
    py = [
        [fmt_raw(v), fmt_score(v, 1), fmt_score(v, 100)]
        + [fmt_score(v, 1, d) for d in (1, 2, 4, 5, 8)]
        for v in values
    ]
    assert js == py
    # the rank column: fmtRank is scoring.rank_text ("=2" shared, "—" no rank); rankCompare
    # puts a model without a rank last whichever way the column is sorted (AG Grid negates the
    # comparator's result for a descending sort)
    cases = [[1, False], [2, True], [None, False], [7, True]]
    shown = page.evaluate(
        """(cs) => cs.map(([v, t]) => window.dashAgGridFunctions.fmtRank(
             {value: v, data: t ? {[window.mplNames.rowTied]: true} : {}}))""",
        cases,
    )
    assert shown == ["1", "=2", "\u2014", "=7"] == [rank_text(v, t) for v, t in cases]
    orders = page.evaluate(
        """() => { const f = window.dashAgGridFunctions.rankCompare; const a = [3, null, 1, 2];
             return [a.slice().sort((x, y) => f(x, y, null, null, false)),
                     a.slice().sort((x, y) => -f(x, y, null, null, true))]; }"""
    )
    assert orders == [[1, 2, 3, None], [3, 2, 1, None]]


def test_the_digits_control_reformats_the_grid(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    s = score(raw, cfg)
    want = s.overall["score"]
    for digits in (5, 3):
        page.click(f"#{ids.DIGITS}")
        page.locator(".dash-dropdown-option", has_text=str(digits)).first.click()
        wait_column(page, "o", {m: fmt_score(v, cfg.scale, digits) for m, v in want.items()})


def test_overview_shows_the_engine_scores_and_escapes_names(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    s = score(raw, cfg)
    wait_column(page, "o", expect(s, "overall", None))
    for i, c in enumerate(cfg.categories):
        wait_column(page, f"c{i}", expect(s, "categories", c.name))
    # a model called <script>…</script> is text, and no dialog ever opened
    names = column(page, "model")
    assert "<script>alert(1)</script>" in names.values()
    assert (
        page.locator(".ag-cell[col-id='model']", has_text="<script>alert(1)</script>").count() == 1
    )
    # missing is not zero: kNN has no overall score and a tooltip reason in the row data
    assert column(page, "o")["kNN"] == "—"
    assert not env["problems"]


def test_threshold_edit_rescores_every_level_in_one_round_trip(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    goto_view(page, "Classification/Iris")
    settle(page)
    n0 = len(env["posts"])
    commit(page, IRIS_ACC, "good", "0.95")
    new = score(raw, cfg.apply_changes({IRIS_ACC: {"good": 0.95}}))
    old = score(raw, cfg)
    assert expect(new, "benchmarks", "Iris") != expect(old, "benchmarks", "Iris")
    wait_column(page, "bs", expect(new, "benchmarks", "Iris"))
    wait_column(page, "o", expect(new, "overall", None))
    settle(page, 300)
    assert len(env["posts"]) - n0 == 1, "one edit = one server round trip"
    assert "modified" in box_class(page, IRIS_ACC, "good")
    # the normalised toggle shows the metric scores instead of the raw values
    raw_shown = column(page, "r0")
    assert raw_shown["Ridge"] == fmt_raw(0.9)
    page.get_by_label("Normalised scores").check()
    wait_column(page, "n0", {m: fmt_score(v) for m, v in new.metrics["Iris/Accuracy"].items()})
    page.get_by_label("Raw values").check()
    wait_column(page, "r0", raw_shown)
    # the category and the overview show the same engine numbers
    goto_view(page, "Classification")
    wait_column(page, "cs", expect(new, "categories", "Classification"))
    wait_column(page, "b0", expect(new, "benchmarks", "Iris"))
    goto_view(page, "")
    wait_column(page, "c0", expect(new, "categories", "Classification"))
    wait_column(page, "o", expect(new, "overall", None))


def test_plot_follows_an_edit(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    goto_view(page, "Classification/Iris")
    page.wait_for_function(
        "() => { const g = document.querySelector('#curve .js-plotly-plot');"
        " return g && g.layout && g.layout.shapes"
        " && g.layout.shapes.filter(s => s.type === 'line' && !/^default/.test(s.name || ''))"
        ".length === 2; }"
    )

    def shapes():
        return page.evaluate(
            "() => document.querySelector('#curve .js-plotly-plot').layout.shapes"
            ".filter(s => s.type === 'line' && !/^default/.test(s.name || '')).map(s => s.x0)"
        )

    assert shapes() == [0.5, 0.95]  # in x order (their labels stack in that order)
    commit(page, IRIS_ACC, "bad", "0.6")
    page.wait_for_function(
        "() => document.querySelector('#curve .js-plotly-plot').layout.shapes"
        ".filter(s => s.type === 'line' && !/^default/.test(s.name || ''))[0].x0 === 0.6"
    )
    new = score(raw, cfg.apply_changes({IRIS_ACC: {"good": 0.95, "bad": 0.6}}))
    pts = page.evaluate(
        "() => { const d = document.querySelector('#curve .js-plotly-plot').data[1];"
        " const f = a => Array.from(a);"
        " return [f(d.x), f(d.y)]; }"
    )
    got = dict(zip(pts[0], pts[1], strict=True))
    want = new.metrics["Iris/Accuracy"]
    for m, x in new.raw["Iris/Accuracy"].items():  # y: the score as the grid shows it
        assert got[x] == float(fmt_score(want[m])) == pytest.approx(want[m], abs=5e-4)
    wait_column(page, "o", expect(new, "overall", None))


def test_weight_edit_rescores(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    goto_view(page, "")
    commit(page, "Classification", "weight", "0.5")
    new = score(
        raw,
        cfg.apply_changes(
            {IRIS_ACC: {"good": 0.95, "bad": 0.6}, "Classification": {"weight": 0.5}}
        ),
    )
    wait_column(page, "o", expect(new, "overall", None))
    # rank movement against the defaults: the ± column shows default rank - current rank
    base = score(raw, cfg)
    deltas = column(page, "d")
    for m in new.models:
        # a model with no overall score shows a word, never an arrow
        if new.overall["score"].isna()[m]:
            assert deltas[m] == "no score"
            continue
        if base.overall["score"].isna()[m]:  # no rank before: a word, not a number
            assert deltas[m] == "new"
            continue
        d = int(base.overall["rank"][m] - new.overall["rank"][m])
        assert deltas[m] == ("" if d == 0 else (f"▲{d}" if d > 0 else f"▼{-d}"))


@pytest.mark.parametrize(
    "path,field,text,needle",
    [
        ("Classification", "weight", "abc", "number"),
        ("Classification", "weight", "", "empty"),
        ("Classification", "weight", "nan", "finite"),
        ("Classification", "weight", "inf", "finite"),
        ("Regression", "weight", "-1", ">= 0"),
    ],
)
def test_bad_input_turns_the_box_red_and_keeps_the_scores(env, path, field, text, needle):
    page = env["page"]
    goto_view(page, "")
    before = column(page, "o")
    commit(page, path, field, text)
    page.wait_for_function(
        "(n) => document.querySelector(`input[name=\"${n}\"]`).closest('.box').classList.contains('invalid')",
        arg=f"{path}.{field}",
    )
    msg = page.locator(".msg").filter(has_text=needle)
    assert msg.count() == 1, page.locator(".msg").all_text_contents()
    settle(page, 200)
    assert column(page, "o") == before
    # a valid value clears the error
    commit(page, path, field, "0.5" if path == "Classification" else "1")
    page.wait_for_function(
        "(n) => !document.querySelector(`input[name=\"${n}\"]`).closest('.box').classList.contains('invalid')",
        arg=f"{path}.{field}",
    )
    assert "invalid" not in box_class(page, path, field)
    assert not env["server_errors"] and not env["problems"]


def test_good_equal_bad_and_all_zero_weights_are_refused(env):
    page = env["page"]
    goto_view(page, "Classification/Iris")
    before = column(page, "o")
    commit(page, IRIS_ACC, "good", "0.6")  # bad is 0.6
    page.wait_for_selector(".msg:has-text('differ')")
    assert "invalid" in box_class(page, IRIS_ACC, "good")
    assert column(page, "o") == before
    commit(page, IRIS_ACC, "good", "0.95")
    page.wait_for_function(
        "(n) => !document.querySelector(`input[name=\"${n}\"]`).closest('.box').classList.contains('invalid')",
        arg=f"{IRIS_ACC}.good",
    )
    commit(page, IRIS_ACC, "weight", "0")
    settle(page, 300)
    commit(page, "Classification/Iris/F1", "weight", "0")
    page.wait_for_selector(".msg:has-text('weight 0')")
    assert column(page, "o") != {}
    commit(page, "Classification/Iris/F1", "weight", "2")
    commit(page, IRIS_ACC, "weight", "1")
    settle(page, 300)
    assert not env["server_errors"] and not env["problems"]


def test_url_round_trip_and_back_forward(env):
    page, cfg, raw, context = env["page"], env["cfg"], env["raw"], env["context"]
    goto_view(page, "")
    changes = {IRIS_ACC: {"good": 0.95, "bad": 0.6}, "Classification": {"weight": 0.5}}
    want = expect(score(raw, cfg.apply_changes(changes)), "overall", None)
    wait_column(page, "o", want)
    url = page.url
    assert "s=" in url
    from ml_peg_like.dashboard.state import decode_changes, parse_query

    assert decode_changes(parse_query(url.split("?", 1)[1])["s"]) == changes
    other = context.new_page()
    other.goto(url)
    wait_column(other, "o", want)
    assert box(other, "Classification", "weight").input_value() == "0.5"
    other.reload()
    wait_column(other, "o", want)
    other.close()
    # back undoes an edit (the previous URL), forward redoes it
    commit(page, "Regression", "weight", "3")
    more = {**changes, "Regression": {"weight": 3.0}}
    wait_column(page, "o", expect(score(raw, cfg.apply_changes(more)), "overall", None))
    page.go_back()
    wait_column(page, "o", want)
    assert box(page, "Regression", "weight").input_value() == "1"
    page.go_forward()
    wait_column(page, "o", expect(score(raw, cfg.apply_changes(more)), "overall", None))
    assert box(page, "Regression", "weight").input_value() == "3"
    page.go_back()
    wait_column(page, "o", want)


def test_downloads_hold_the_current_scores(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    changes = {IRIS_ACC: {"good": 0.95, "bad": 0.6}, "Classification": {"weight": 0.5}}
    cur = cfg.apply_changes(changes)
    s = score(raw, cur)
    with page.expect_download() as dl:
        page.click("#dl-csv-btn")
    data = open(dl.value.path(), "rb").read()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        assert {
            "overall_scores.csv",
            "category_scores.csv",
            "benchmark_scores.csv",
            "metric_scores.csv",
            "provenance.json",
            "settings.yml",
        } <= names
        import json

        import pandas as pd

        prov = json.loads(zf.read("provenance.json"))
        # the config as read at the start (its file's hash), the changes made since
        assert prov["changes_from_defaults"][IRIS_ACC] == {"good": 0.95, "bad": 0.6}
        assert prov["settings"] == "2 changed from defaults"

        ov = pd.read_csv(zf.open("overall_scores.csv")).set_index("model")
    for m in s.models:
        want = s.overall["score"][m]
        got = ov["score"][m]
        assert (pd.isna(want) and pd.isna(got)) or got == pytest.approx(want, abs=1e-12)
    with page.expect_download() as dl:
        page.click("#dl-xlsx-btn")
    import openpyxl

    stem = safe_file_stem(cfg.title, datetime.date.today())
    assert dl.value.suggested_filename == f"{stem}.xlsx"
    wb = openpyxl.load_workbook(io.BytesIO(open(dl.value.path(), "rb").read()))
    assert wb.sheetnames == [
        "Overall",
        "Categories",
        "Benchmarks",
        "Metrics",
        "Settings",
        "Provenance",
    ]
    ws = wb["Overall"]
    header = [c.value for c in ws[1]]
    rows = {
        r[2]: dict(zip(header, r, strict=True)) for r in ws.iter_rows(min_row=2, values_only=True)
    }
    assert rows["Ridge"]["Overall"] == pytest.approx(s.overall["score"]["Ridge"])
    settings = {r[0]: r[1] for r in wb["Settings"].iter_rows(min_row=2, values_only=True)}
    assert settings[f"Changed: {IRIS_ACC}"] == "good = 0.95, bad = 0.6"
    with page.expect_download() as dl:
        page.click("#dl-latex-btn")
    assert dl.value.suggested_filename == f"{stem}.tex"
    assert "\\toprule" in open(dl.value.path(), encoding="utf-8").read()
    with page.expect_download() as dl:
        page.click("#dl-yaml-btn")
    text = open(dl.value.path(), encoding="utf-8").read()
    again = loads_config(text)
    s2 = score(raw, again)
    assert s2.overall["score"].fillna(-1).tolist() == s.overall["score"].fillna(-1).tolist()
    assert cfg.diff(again) == cfg.diff(cur)


def test_reset_all_and_per_row(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    goto_view(page, "")
    page.click("button[id*='reset'][id*='Classification']")
    want = expect(
        score(raw, cfg.apply_changes({IRIS_ACC: {"good": 0.95, "bad": 0.6}})), "overall", None
    )
    wait_column(page, "o", want)
    assert box(page, "Classification", "weight").input_value() == "2"
    page.click("#reset-all")
    wait_column(page, "o", expect(score(raw, cfg), "overall", None))
    assert page.locator("#reset-all").is_disabled()
    goto_view(page, "Classification/Iris")
    assert box(page, IRIS_ACC, "good").input_value() == "1"
    assert "modified" not in box_class(page, IRIS_ACC, "good")


def test_upload_applies_a_config_and_refuses_bad_files(env, tmp_path):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    goto_view(page, "")
    changed = cfg.apply_changes(
        {"Regression/Diabetes/MAE": {"good": 45}, "Regression": {"weight": 3}}
    )
    from ml_peg_like import dump_config

    good = tmp_path / "mine.yml"
    good.write_text(dump_config(changed), encoding="utf-8")
    page.set_input_files("#upload input[type=file]", str(good))
    wait_column(page, "o", expect(score(raw, changed), "overall", None))
    assert "mine.yml" in page.locator("#status").inner_text()
    assert box(page, "Regression", "weight").input_value() == "3"
    bad = tmp_path / "bad.yml"
    bad.write_text("categories: [1, 2\n", encoding="utf-8")
    page.set_input_files("#upload input[type=file]", str(bad))
    page.wait_for_selector("#status .err")
    assert "bad.yml" in page.locator("#status").inner_text()
    other = tmp_path / "other.yml"
    data = yaml.safe_load(dump_config(cfg))
    data["categories"]["Regression"]["benchmarks"]["Diabetes"]["metrics"]["New"] = {
        "good": 1,
        "bad": 0,
    }
    other.write_text(yaml.safe_dump(data), encoding="utf-8")
    page.set_input_files("#upload input[type=file]", str(other))
    page.wait_for_function(
        "() => document.querySelector('#status').innerText.includes('different tree')"
    )
    wait_column(page, "o", expect(score(raw, changed), "overall", None))
    page.click("#reset-all")


def test_preset_and_model_filter(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    goto_view(page, "")
    page.click("#preset")
    page.locator(".dash-dropdown-option", has_text="Only classification").first.click()
    wait_column(
        page,
        "o",
        expect(score(raw, cfg.apply_changes(cfg.presets["Only classification"])), "overall", None),
    )
    page.click("#reset-all")
    wait_column(page, "o", expect(score(raw, cfg), "overall", None))
    page.click("#model-filter")
    # fill the menu's search box (typed keys raced the focus moving from the button to the box
    # on a loaded CI runner, losing letters, so no option matched)
    page.locator(".dash-dropdown-content .dash-dropdown-search").fill("Ridge")
    page.wait_for_function(
        """() => { const o = [...document.querySelectorAll('.dash-dropdown-option')];
                   return o.length && o.every(e => e.textContent.includes('Ridge')); }"""
    )
    page.locator(".dash-dropdown-option", has_text="Ridge").first.click()
    page.keyboard.press("Escape")
    page.wait_for_function(
        "() => document.querySelectorAll('.ag-center-cols-container .ag-row').length === 1"
    )
    assert column(page, "o") == {"Ridge": fmt_score(score(raw, cfg).overall["score"]["Ridge"])}


def test_header_name_opens_the_column_and_the_icon_sorts(env):
    page, cfg, raw = env["page"], env["cfg"], env["raw"]
    goto_view(page, "")
    page.locator("#model-filter").hover()
    page.click("#model-filter .dash-dropdown-clear")
    wait_column(page, "o", expect(score(raw, cfg), "overall", None))
    settle(page)
    n0 = len(env["posts"])

    def sorted_col():
        return page.evaluate(
            "() => dash_ag_grid.getApi('grid').getColumnState()"
            ".filter(c => c.sort).map(c => [c.colId, c.sort])"
        )

    assert sorted_col() == [["rank", "asc"]]
    # the name of a category column opens the category (no sort)
    page.click(".ag-header-cell[col-id='c1'] .hdr-name")
    page.wait_for_function(
        """() => { const a = document.querySelector('#sidebar .nav-item.active');
                   return a && a.dataset.path === 'Regression'; }"""
    )
    settle(page)
    assert len(env["posts"]) - n0 == 1, "one click = one server round trip"
    s = score(raw, cfg)
    wait_column(page, "cs", expect(s, "categories", "Regression"))
    # the name of a benchmark column opens the benchmark
    page.click(".ag-header-cell[col-id='b2'] .hdr-name")
    page.wait_for_function(
        """() => { const a = document.querySelector('#sidebar .nav-item.active');
                   return a && a.dataset.path === 'Regression/Diabetes'; }"""
    )
    wait_column(page, "bs", expect(s, "benchmarks", "Diabetes"))
    # a metric column's name selects the metric for the plot
    page.click(".ag-header-cell[col-id='r4'] .hdr-name")
    page.wait_for_function(
        "() => document.querySelector('#curve .gtitle')"
        " && document.querySelector('#curve .gtitle').textContent.startsWith('R2')"
    )
    assert "selected" in page.get_attribute(".ag-header-cell[col-id='r4']", "class")
    # the name is a button (a click on it does not sort); the sort button sorts, says so, and
    # the header cell's aria-sort follows (ascending, descending, none: AG Grid's sort order)
    goto_view(page, "")
    header = page.locator(".ag-header-cell[col-id='c0']")
    assert header.locator(".hdr-name").evaluate("b => [b.tagName, b.type]") == ["BUTTON", "button"]
    assert sorted_col() == [["rank", "asc"]]
    header.hover()
    sort = header.locator(".hdr-sort")
    for want, aria in (("asc", "ascending"), ("desc", "descending"), (None, "none")):
        sort.click()
        page.wait_for_function(
            "(w) => { const c = dash_ag_grid.getApi('grid').getColumnState()"
            ".find(c => c.colId === 'c0'); return c && c.sort === w; }",
            arg=want,
        )
        assert header.get_attribute("aria-sort") == aria
        assert sort.get_attribute("aria-label") == f"sort: {aria}"
    assert ["c0", "asc"] not in sorted_col() and ["c0", "desc"] not in sorted_col()
    # the keyboard is the grid's own: neither button is in the Tab order, and Enter on the
    # focused header cell sorts it (AG Grid's setFocusedHeader focuses it as Tab would)
    assert header.locator("button").evaluate_all("bs => bs.map(b => b.tabIndex)") == [-1, -1]
    def c0_sorted(way):
        page.wait_for_function(
            "(w) => dash_ag_grid.getApi('grid').getColumnState().some(c => c.colId === 'c0'"
            " && c.sort === w)",
            arg=way,
        )

    page.evaluate("() => dash_ag_grid.getApi('grid').setFocusedHeader('c0')")
    page.keyboard.press("Enter")
    c0_sorted("asc")
    assert header.get_attribute("aria-sort") == "ascending"
    # Enter on the (clicked, so focused) sort button presses it once: one step, not two
    sort.click()
    c0_sorted("desc")
    page.keyboard.press("Enter")
    c0_sorted(None)
    settle(page)
    assert header.get_attribute("aria-sort") == "none"
    page.evaluate(
        "() => dash_ag_grid.getApi('grid').applyColumnState("
        "{state: [{colId: 'rank', sort: 'asc'}], defaultState: {sort: null}})"
    )


def test_sidebar_buttons_navigate_by_keyboard_and_follow_the_view(env):
    """The sidebar is one Dash component; its entries are plain buttons made in the browser
    (no Dash ids), focusable, Enter opens one, the highlight follows every way of navigating."""
    page, cfg = env["page"], env["cfg"]
    goto_view(page, "")
    entries = page.evaluate(
        """() => [...document.querySelectorAll('#sidebar > *')].map(b =>
             [b.tagName, b.type, b.id, b.dataset.path, b.textContent])"""
    )
    expect = [["", "Overview"], [ids.PAGE_EXPLORE, "Explore"], [ids.PAGE_COMPARE, "Compare"]]
    for c in cfg.categories:
        expect.append([c.name, c.name])
        expect += [[f"{c.name}/{b.name}", b.name] for b in c.benchmarks]
    assert [[e[3], e[4]] for e in entries] == expect
    assert {(e[0], e[1], e[2]) for e in entries} == {("BUTTON", "button", "")}
    shown = (
        "() => [...document.querySelectorAll('#sidebar .nav-item.shown')].map(b => b.dataset.path)"
    )
    assert page.evaluate(shown) == []  # no category open: no benchmark shown
    settle(page)  # the answers to what came before are in
    n0 = len(env["posts"])
    cat = page.locator("#sidebar button[data-path='Regression']")
    cat.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        """() => { const a = document.querySelector('#sidebar .nav-item.active');
                   return a && a.dataset.path === 'Regression'; }"""
    )
    settle(page)
    assert len(env["posts"]) - n0 == 1, ("one key press = one server round trip", env["posts"][n0:])
    assert page.evaluate("() => document.activeElement.dataset.path") == "Regression"
    assert cat.get_attribute("aria-current") == "page"
    assert "open" in cat.get_attribute("class").split()
    reg = next(c for c in cfg.categories if c.name == "Regression")
    assert page.evaluate(shown) == [f"Regression/{b.name}" for b in reg.benchmarks]
    # a breadcrumb moves the highlight back
    page.click(f"#{ids.CRUMBS} button.crumb")
    page.wait_for_function(
        """() => { const a = document.querySelector('#sidebar .nav-item.active');
                   return a && a.dataset.path === ''; }"""
    )
    assert page.evaluate(shown) == []
    assert cat.get_attribute("aria-current") is None


def test_no_errors_anywhere(env):
    assert not env["server_errors"], env["server_errors"]
    assert not env["problems"], env["problems"]
    assert all(s in (200, 204) for s in env["posts"]), env["posts"]
    json.dumps(env["posts"])
