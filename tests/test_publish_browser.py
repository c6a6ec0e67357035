"""The published site in headless Chromium, served by ``python -m http.server`` (a plain static
server: no code of the project runs behind the page). Ranks, scores, edits, links, the CSV and
YAML exports are held to the Python engine (the reference) and to numbers worked out by hand."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from browser_utils import COLUMNS, SMALL_CONFIG, VALUES, chromium, require_browser, static_server

import ml_peg_like as mpl
from ml_peg_like import explore as ex
from ml_peg_like.cli import main
from ml_peg_like.dashboard import state
from ml_peg_like.dashboard.components.explore import compare as dash_compare
from ml_peg_like.dashboard.components.explore import view as dash_explore
from ml_peg_like.publish import publish

pytestmark = pytest.mark.browser

XSS = "<img src=x onerror=alert(1)>"
SPEED = "Speed <b>&amp;</b> <script>x</script>"
IRIS_ACC = "Classification/Iris/Accuracy"
READY = "td[col-id='o']"
TIMEOUT = 60_000


def _write_dataset(d: Path) -> Path:
    """The tests' small board (every normaliser, awkward names) with one more model named as
    markup, display names and links in models.csv."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.yml").write_text(SMALL_CONFIG, encoding="utf-8")
    values = dict(VALUES)
    values[XSS] = (0.95, 0.9, 0.9, 42.0, 0.55, 0.02, 50.0)
    with open(d / "raw_metrics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "benchmark", "metric", "value"])
        for m, row in values.items():
            for (b, k), v in zip(COLUMNS, row, strict=True):
                w.writerow([m, b, k, "" if v is None else v])
    with open(d / "models.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "display_name", "paper", "code"])
        w.writerow(
            ["Ridge", "Ridge regression", "https://example.org/ridge", "javascript:alert(2)"]
        )
        w.writerow([XSS, XSS + " (shown)", "", ""])
    return d


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return _write_dataset(tmp_path_factory.mktemp("pub") / "data")


@pytest.fixture(scope="module")
def site(data_dir, tmp_path_factory):
    require_browser()
    cfg, raw = mpl.load_dataset(data_dir)
    out = tmp_path_factory.mktemp("pub") / "site"
    publish(cfg, raw, out)
    with static_server(out) as url, chromium() as browser:
        yield {"url": url, "browser": browser, "cfg": cfg, "raw": raw}


class Opened:
    def __init__(self, page):
        self.page = page
        self.problems: list[str] = []
        self.dialogs: list[str] = []


def _open(site, query: str = "", viewport=None) -> Opened:
    ctx = site["browser"].new_context(
        viewport=viewport or {"width": 1280, "height": 800}, accept_downloads=True
    )
    page = ctx.new_page()
    seen = Opened(page)
    page.on("console", lambda m: seen.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.problems.append(str(e)))

    def dialog(d):
        seen.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)
    page.goto(site["url"] + query)
    page.wait_for_selector(READY, timeout=TIMEOUT)
    return seen


def _rows(page) -> dict[str, tuple[str, float]]:
    """{model key: (rank text, overall score)} as the page shows them (the overall cell's
    full-precision value; NaN when it shows none)."""
    got = page.evaluate(
        """() => Array.from(document.querySelectorAll('table.scores tbody tr')).map(tr => [
            tr.getAttribute('data-model'),
            tr.querySelector("[col-id='rank']").textContent,
            tr.querySelector("[col-id='o']").getAttribute('data-value')])"""
    )
    return {m: (r, float(v) if v is not None else math.nan) for m, r, v in got}


def _python(site, changes=None) -> dict[str, tuple[str, float]]:
    cfg = site["cfg"].apply_changes(changes or {})
    res = mpl.score(site["raw"], cfg)
    out = {}
    for m, s, r, t in zip(res.models, res.overall_scores, res.ranks, res.tied, strict=True):
        text = "\u2014" if math.isnan(r) else ("=" if t else "") + str(int(r))
        out[m] = (text, float(s))
    return out


def _same(page_rows, python_rows):
    assert set(page_rows) == set(python_rows)
    for m, (rank, score) in python_rows.items():
        got_rank, got = page_rows[m]
        assert got_rank == rank, m
        if math.isnan(score):
            assert math.isnan(got), m
        else:
            assert got == pytest.approx(score, rel=1e-12, abs=1e-15), m


def _edit(page, name: str, text: str) -> None:
    before = page.evaluate("() => window.mplSite.edits")
    box = page.locator(f"input[name='{name}']")
    box.fill(text)
    box.press("Enter")
    page.wait_for_function(f"() => window.mplSite.edits > {before}", timeout=TIMEOUT)


def _view(name: str) -> str:
    return "?" + "v=" + name.replace("/", "%2F")


def test_first_rows_and_ranks_equal_the_python_engine(site):
    seen = _open(site)
    page = seen.page
    _same(_rows(page), _python(site))
    # the model without an overall score has no rank; Plotly waited (no plot on the overview)
    assert _rows(page)["kNN"][0] == "\u2014"
    assert page.evaluate("() => typeof window.Plotly") == "undefined"
    # the dashboard's column ids on every header and cell
    heads = page.eval_on_selector_all(
        "table.scores thead th", "ths => ths.map(t => t.getAttribute('col-id'))"
    )
    assert heads == ["rank", "d", "model", "o", "cov", "c0", "c1", "c2"]
    assert page.get_attribute("th[col-id='rank']", "aria-sort") == "ascending"
    assert not seen.problems and not seen.dialogs


def test_threshold_edit_scores_as_python_and_by_hand(site):
    seen = _open(site, _view("Classification/Iris") + "&show=score")
    page = seen.page
    before = _rows(page)
    _edit(page, f"{IRIS_ACC}.bad", "0.92")
    changes = {IRIS_ACC: {"bad": 0.92}}
    after = _rows(page)
    _same(after, _python(site, changes))
    # the edit swaps two models (so the comparison above saw new ranks)
    assert before["Model/β"][0] == "4" and after["Model/β"][0] == "5"
    # by hand: RandomForest 0.96 on [0.92, 1] scores (0.96 - 0.92) / 0.08 = 0.5; Ridge's 0.9
    # is below bad: 0
    cell = "tr[data-model='{}'] td[col-id='n0']"
    assert float(page.get_attribute(cell.format("RandomForest"), "data-value")) == pytest.approx(
        0.5, rel=1e-12
    )
    assert float(page.get_attribute(cell.format("Ridge"), "data-value")) == 0.0
    # the URL holds the change in the dashboard's encoding
    q = parse_qs(urlsplit(page.url).query)
    assert state.decode_changes(q["s"][0]) == changes
    assert q["v"] == ["Classification/Iris"] and q["show"] == ["score"]
    assert not seen.problems


def test_bad_box_shows_the_message_and_keeps_the_last_good_ranks(site):
    seen = _open(site, _view("Classification/Iris"))
    page = seen.page
    _edit(page, f"{IRIS_ACC}.bad", "0.92")
    good = _rows(page)
    url = page.url
    box = page.locator(f"input[name='{IRIS_ACC}.good']")
    box.fill("abc")
    box.press("Enter")
    msg = page.locator(f".msg[data-path='{IRIS_ACC}']")
    msg.wait_for(state="visible", timeout=TIMEOUT)
    assert msg.text_content() == "expected a number, got 'abc'"
    assert "invalid" in box.get_attribute("class")
    assert _rows(page) == good and page.url == url
    # good equal to bad: the engine's own message
    box.fill("0.92")
    box.press("Enter")
    page.wait_for_function(
        "t => document.querySelector(`.msg[data-path='Classification/Iris/Accuracy']`)"
        ".textContent === t",
        arg="good and bad must differ (both 0.92)",
        timeout=TIMEOUT,
    )
    assert _rows(page) == good
    assert not seen.problems


def test_links_round_trip_with_the_dashboard(site):
    seen = _open(site, _view("Classification/Iris"))
    page = seen.page
    _edit(page, f"{IRIS_ACC}.bad", "0.92")
    _edit(page, "Classification/Iris/F1.weight", "0.5")
    rows = _rows(page)
    boxes = page.eval_on_selector_all("input[name]", "bs => bs.map(b => [b.name, b.value])")
    # the link opens the same view, boxes and ranks in a new page
    again = _open(site, "?" + urlsplit(page.url).query)
    assert (
        again.page.eval_on_selector_all("input[name]", "bs => bs.map(b => [b.name, b.value])")
        == boxes
    )
    assert _rows(again.page) == rows
    # the dashboard reads the site's link ...
    q = parse_qs(urlsplit(page.url).query)
    changes = {IRIS_ACC: {"bad": 0.92}, "Classification/Iris/F1": {"weight": 0.5}}
    assert state.decode_changes(q["s"][0]) == changes
    # ... and the site reads the dashboard's, deflated ("z") or not, with its policy parameter
    policy = {**changes, "": {"missing": "skip"}}
    many = {f"Classification/{p}": {"weight": 0.5} for p in ("Iris/F1", "Wine/Accuracy")}
    many.update({f"Regression/Diabetes/{m}": {"weight": 0.25} for m in ("MAE", "R2")})
    many["Regression/Diabetes/MAE"]["good"] = 41.0
    assert q["s"][0].startswith("j") and state.encode_changes(many)[0] == "z"
    # what the site does not show (the dashboard's digits) stays in its links
    kept = _open(site, "?" + urlsplit(page.url).query + "&digits=5")
    _edit(kept.page, "Classification/Iris/F1.weight", "0.25")
    assert parse_qs(urlsplit(kept.page.url).query)["digits"] == ["5"]
    for ch in (policy, many):
        query = state.make_query(ch, "Regression/Diabetes", "Regression/Diabetes/MAE")
        other = _open(site, query)
        _same(_rows(other.page), _python(site, ch))
        assert other.page.input_value("input[name='Regression/Diabetes/MAE.good']") == (
            "41" if ch is many else "40"
        )
        assert other.page.input_value("input[name='Regression/Diabetes/R2.weight']") == (
            "0.25" if ch is many else "1"
        )
    assert not seen.problems


def test_history_back_and_forward(site):
    seen = _open(site)
    page = seen.page
    page.click("nav#views a:text-is('Regression')")
    page.wait_for_selector("th[col-id='cs']", timeout=TIMEOUT)
    page.go_back()
    page.wait_for_selector("th[col-id='c0']", timeout=TIMEOUT)
    page.go_forward()
    page.wait_for_selector("th[col-id='cs']", timeout=TIMEOUT)
    assert parse_qs(urlsplit(page.url).query)["v"] == ["Regression"]


def _download(page, button: str, level: str | None = None) -> str:
    if level:
        page.select_option("#csv-level", level)
    with page.expect_download(timeout=TIMEOUT) as dl:
        page.click(button)
    return Path(dl.value.path()).read_text(encoding="utf-8")


def _csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _as_number(cell: str):
    try:
        return float(cell) if cell else math.nan
    except ValueError:
        return cell


def test_csv_export_equals_ml_peg_like_score(site, data_dir, tmp_path):
    seen = _open(site, _view("Classification/Iris"))
    page = seen.page
    changes = {IRIS_ACC: {"bad": 0.92}, "Classification": {"missing": "invalidate"}}
    _edit(page, f"{IRIS_ACC}.bad", "0.92")
    page.goto(site["url"] + state.make_query(changes))
    page.wait_for_selector(READY, timeout=TIMEOUT)
    # `ml-peg-like score` on the same settings (the defaults + changes, as a config file)
    cfg_file = tmp_path / "config.yml"
    cfg_file.write_text(mpl.dump_config(site["cfg"].apply_changes(changes)), encoding="utf-8")
    out = tmp_path / "scores"
    raw = str(data_dir / "raw_metrics.csv")
    # models.csv goes with a dataset directory: copy the tree
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "config.yml").write_text(cfg_file.read_text(encoding="utf-8"), encoding="utf-8")
    (ds / "raw_metrics.csv").write_bytes(Path(raw).read_bytes())
    (ds / "models.csv").write_bytes((data_dir / "models.csv").read_bytes())
    assert main(["score", str(ds), "--out", str(out)]) == 0
    for level in ("overall_scores", "category_scores", "benchmark_scores", "metric_scores"):
        ours = _csv_rows(_download(page, "#csv", level))
        theirs = _csv_rows((out / f"{level}.csv").read_text(encoding="utf-8"))
        assert ours[0] == theirs[0], level
        assert len(ours) == len(theirs) == 8
        for a, b in zip(ours[1:], theirs[1:], strict=True):
            for x, y in zip(map(_as_number, a), map(_as_number, b), strict=True):
                if isinstance(y, float) and math.isnan(y):
                    assert isinstance(x, float) and math.isnan(x), (level, a, b)
                elif isinstance(y, float):
                    assert x == pytest.approx(y, rel=1e-12, abs=1e-15), (level, a, b)
                else:
                    assert x == y, (level, a, b)
    assert not seen.problems


def test_yaml_export_loads_and_scores_the_same(site, tmp_path):
    seen = _open(site, _view("Classification/Iris"))
    page = seen.page
    _edit(page, f"{IRIS_ACC}.bad", "0.92")
    _edit(page, f"{IRIS_ACC}.good", "model:RandomForest")
    _edit(page, "Classification/Iris/F1.weight", "1e-05")
    page.click("nav#crumbs a:text-is('Overview')")
    page.wait_for_selector("th[col-id='c0']", timeout=TIMEOUT)
    page.select_option("select[name='Regression.missing']", "skip")
    page.wait_for_function("() => window.mplSite.edits >= 4", timeout=TIMEOUT)
    text = _download(page, "#yaml")
    path = tmp_path / "settings.yml"
    path.write_text(text, encoding="utf-8")
    cfg = mpl.load_config(path)
    changes = {
        IRIS_ACC: {"bad": 0.92, "good": {"model": "RandomForest"}},
        "Classification/Iris/F1": {"weight": 1e-05},
        "Regression": {"missing": "skip"},
    }
    assert cfg == site["cfg"].apply_changes(changes)
    ours = mpl.score(site["raw"], cfg)
    _same(_rows(page), _python(site, changes))
    assert np.array_equal(ours.ranks, mpl.score(site["raw"], cfg).ranks, equal_nan=True)
    assert not seen.problems


def test_markup_in_names_is_text(site):
    seen = _open(site)
    page = seen.page
    # the model named as markup is shown as text (its display name), and no element came of it
    cell = page.locator(f"tr[data-model='{XSS}'] th[col-id='model']")
    assert cell.text_content() == XSS + " (shown)"
    assert page.evaluate("() => document.querySelectorAll('img').length") == 0
    assert page.evaluate("() => document.querySelectorAll('script:not([src])').length") == 0
    page.locator("tr[data-model='<script>alert(1)</script>'] th[col-id='model']").text_content()
    # the category named with markup: text in its header
    assert page.locator("th[col-id='c2'] .sort").text_content() == SPEED
    # the model card: attributes as text, only the http(s) address a link
    page.click("tr[data-model='Ridge'] th[col-id='model'] button")
    card = page.locator("#card")
    card.wait_for(state="visible", timeout=TIMEOUT)
    links = card.locator("a").evaluate_all("as => as.map(a => [a.textContent, a.href, a.rel])")
    assert links == [
        ["https://example.org/ridge", "https://example.org/ridge", "noopener noreferrer"]
    ]
    assert "javascript:alert(2)" in card.text_content()
    page.click("#card-close")
    page.click(f"tr[data-model='{XSS}'] th[col-id='model'] button")
    assert page.locator("#card .card-key code").text_content() == XSS
    assert not seen.dialogs and not seen.problems


def test_curve_loads_plotly_only_when_asked(site):
    seen = _open(site, _view("Classification/Iris"))
    page = seen.page
    assert page.evaluate("() => typeof window.Plotly") == "undefined"
    page.click("td.name button:text-is('Accuracy')")
    page.wait_for_function("() => (window.mplSite.curveDrawn || 0) >= 1", timeout=TIMEOUT)
    assert parse_qs(urlsplit(page.url).query)["m"] == [IRIS_ACC]
    title = page.locator("#curve-plot .gtitle").text_content()
    assert title.startswith("Accuracy [fraction]")
    # an edit redraws it: the good threshold's line moves to the new value
    _edit(page, f"{IRIS_ACC}.good", "0.97")
    page.wait_for_function("() => window.mplSite.curveDrawn >= 2", timeout=TIMEOUT)
    assert not seen.problems


def test_readable_at_390_px(site):
    seen = _open(site, "", viewport={"width": 390, "height": 800})
    page = seen.page
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390
    # the table scrolls inside its own box; its first cells are on screen
    box = page.locator("tbody tr:first-child th[col-id='model']").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390


@pytest.mark.anchors
def test_converted_ml_peg_ranks_equal_python(site, anchors, tmp_path):
    ds = tmp_path / "mlpeg"
    assert main(["convert", "ml-peg", str(anchors / "ml-peg" / "tables"), "--out", str(ds)]) == 0
    cfg, raw = mpl.load_dataset(ds)
    out = tmp_path / "site"
    assert main(["publish", str(ds), "--out", str(out)]) == 0
    with static_server(out) as url:
        s = {"url": url, "browser": site["browser"], "cfg": cfg, "raw": raw}
        seen = _open(s)
        _same(_rows(seen.page), _python(s))
        bench = cfg.categories[0].benchmarks[0]
        path = f"{cfg.categories[0].name}/{bench.name}"
        other = _open(s, "?" + "v=" + path)
        m = bench.metrics[0]
        new = json.dumps(float(m.good) + 0.5 * (float(m.bad) - float(m.good)))
        _edit(other.page, f"{path}/{m.name}.good", new)
        _same(_rows(other.page), _python(s, {f"{path}/{m.name}": {"good": json.loads(new)}}))
        # Explore and Compare at ML-PEG scale: the first category's scores against the overall,
        # the three best models' category scores, as Python scores them
        explore = _explore(s, "?v=explore&x=" + cfg.categories[0].name.replace("/", "%2F"))
        _scatter_equals_python(explore.page, s, 0)
        compare = _explore(s, "?v=compare")
        models, cats = _python_defaults(s)
        traces = _points(compare.page, "compare-plot")
        assert len(traces) == len(models) == 3
        for t, want in zip(traces, cats, strict=True):
            assert t["r"] == pytest.approx([*want, want[0]], rel=1e-12, abs=1e-15)
        heads = compare.page.eval_on_selector_all(
            "#compare-table thead th", "ths => ths.map(t => t.title)"
        )
        assert heads[1:] == models
        assert not seen.problems and not other.problems
        assert not explore.problems and not compare.problems


def test_the_board_inside_index_html_scores_the_same(site, tmp_path):
    out = tmp_path / "embedded"
    publish(site["cfg"], site["raw"], out, embed=True)
    assert not (out / "board.json").exists()
    with static_server(out) as url:
        s = {**site, "url": url}
        seen = _open(s)
        _same(_rows(seen.page), _python(s))
        # the board's element is data: no inline script runs
        assert seen.page.evaluate(
            "() => Array.from(document.querySelectorAll('script:not([src])')).map(s => s.type)"
        ) == ["application/json"]
        assert not seen.problems and not seen.dialogs


def test_a_links_model_filter_and_the_theme(site):
    # the dashboard's filter (?f=): picked models, of which those with the chosen attribute value
    filters = {"p": ["Ridge", "kNN", XSS], "a": {"paper": ["https://example.org/ridge"]}}
    seen = _open(site, state.make_query({}, filters=filters))
    page = seen.page
    assert list(_rows(page)) == ["Ridge"]
    assert page.locator(".filter-note").text_content().startswith("Showing 1 of 7 models")
    # ranks stay those of the whole board
    assert _rows(page)["Ridge"] == _python(site)["Ridge"]
    page.click(".filter-note a")
    page.wait_for_function(
        "() => document.querySelectorAll('table.scores tbody tr').length === 7", timeout=TIMEOUT
    )
    assert "f" not in parse_qs(urlsplit(page.url).query)
    # light by default (the reader's system: light here), dark on the button, cells follow
    assert page.get_attribute("html", "data-theme") == "light"
    light = page.eval_on_selector("td[col-id='o']", "td => td.style.backgroundColor")
    page.click("#theme")
    assert page.get_attribute("html", "data-theme") == "dark"
    assert page.get_attribute("#theme", "aria-pressed") == "true"
    dark = page.eval_on_selector("td[col-id='o']", "td => td.style.backgroundColor")
    assert light != dark
    assert not seen.problems


def test_resets_and_what_needs_serve(site):
    seen = _open(site, _view("Classification/Iris"))
    page = seen.page
    _edit(page, f"{IRIS_ACC}.bad", "0.92")
    _edit(page, "Classification/Iris/F1.weight", "3")
    assert page.text_content("#reset-all") == "Reset all (2)"
    # a row's reset: that row only
    page.click("button[aria-label='Reset F1 to the defaults']")
    page.wait_for_function("() => window.mplSite.edits >= 3", timeout=TIMEOUT)
    assert page.input_value("input[name='Classification/Iris/F1.weight']") == "2"
    assert page.text_content("#reset-all") == "Reset all (1)"
    _same(_rows(page), _python(site, {IRIS_ACC: {"bad": 0.92}}))
    # this view's reset, then the defaults' ranks
    page.click("#reset-view")
    page.wait_for_function("() => window.mplSite.edits >= 4", timeout=TIMEOUT)
    assert page.input_value(f"input[name='{IRIS_ACC}.bad']") == "0.5"
    assert page.is_disabled("#reset-all")
    _same(_rows(page), _python(site))
    assert "s" not in parse_qs(urlsplit(page.url).query)
    # Explore and Compare are the site's now: the line of what needs serve no longer names them
    assert "ml-peg-like serve" in page.text_content("#only-serve")
    assert "Explore" not in page.text_content("#only-serve")
    assert not seen.problems


def test_policies_of_the_board_and_of_a_category(site):
    seen = _open(site)
    page = seen.page
    page.select_option("select[name='.missing']", "skip")
    page.wait_for_function("() => window.mplSite.edits >= 1", timeout=TIMEOUT)
    # Regression has no policy of its own: it follows the board's ...
    assert page.input_value("select[name='Regression.missing']") == "skip"
    _same(_rows(page), _python(site, {"": {"missing": "skip"}}))
    # ... until one is chosen for it, even the board's old one
    page.select_option("select[name='Regression.missing']", "invalidate")
    page.wait_for_function("() => window.mplSite.edits >= 2", timeout=TIMEOUT)
    changes = {"": {"missing": "skip"}, "Regression": {"missing": "invalidate"}}
    _same(_rows(page), _python(site, changes))
    q = parse_qs(urlsplit(page.url).query)
    assert q["missing"] == ["skip"]
    assert state.decode_changes(q["s"][0]) == {"Regression": {"missing": "invalidate"}}
    assert not seen.problems


def test_the_filter_box_is_the_dashboards_filter(site):
    seen = _open(site)
    page = seen.page
    page.fill("#model-filter", "FOREST")
    page.wait_for_function(
        "() => document.querySelectorAll('table.scores tbody tr').length === 1", timeout=TIMEOUT
    )
    assert list(_rows(page)) == ["RandomForest"]
    f = parse_qs(urlsplit(page.url).query)["f"][0]
    models = tuple(site["raw"].models)
    assert state.decode_filters(f, models, {}) == {"p": ["RandomForest"]}
    # a display name matches too ("Ridge regression" is Ridge's)
    page.fill("#model-filter", "regression")
    page.wait_for_function(
        "() => document.querySelector('table.scores tbody tr').dataset.model === 'Ridge'",
        timeout=TIMEOUT,
    )
    assert list(_rows(page)) == ["Ridge"]
    page.fill("#model-filter", "")
    page.wait_for_function(
        "() => document.querySelectorAll('table.scores tbody tr').length === 7", timeout=TIMEOUT
    )
    assert "f" not in parse_qs(urlsplit(page.url).query)
    assert not seen.problems


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_serious_accessibility_violation(site, theme):
    pytest.importorskip("axe_playwright_python", reason="pip install axe-playwright-python")
    from axe_playwright_python.sync_playwright import Axe

    for query in ("", _view("Classification/Iris") + "&m=" + IRIS_ACC.replace("/", "%2F")):
        ctx = site["browser"].new_context(color_scheme=theme)
        page = ctx.new_page()
        page.goto(site["url"] + query)
        page.wait_for_selector(READY, timeout=TIMEOUT)
        if query:
            page.wait_for_function("() => window.mplSite.curveDrawn >= 1", timeout=TIMEOUT)
        assert page.get_attribute("html", "data-theme") == theme
        found = Axe().run(page).response["violations"]
        serious = [v["id"] for v in found if v["impact"] in ("critical", "serious")]
        assert serious == [], (query, serious)
        ctx.close()


def test_shared_ranks_and_no_rank(site, tmp_path):
    # two models with the same values share rank 1 ("=1"); the next is 3; no value, no rank
    d = tmp_path / "ties"
    d.mkdir()
    (d / "config.yml").write_text(
        "categories:\n  C:\n    benchmarks:\n      B:\n        metrics:\n"
        "          M: {good: 1, bad: 0}\n",
        encoding="utf-8",
    )
    (d / "raw_metrics.csv").write_text(
        "model,benchmark,metric,value\np,B,M,0.8\nq,B,M,0.8\nr,B,M,0.3\ns,B,M,\n",
        encoding="utf-8",
    )
    cfg, raw = mpl.load_dataset(d)
    out = tmp_path / "site"
    publish(cfg, raw, out)
    with static_server(out) as url:
        seen = _open({**site, "url": url})
        rows = _rows(seen.page)
        assert {m: r for m, (r, _s) in rows.items()} == {
            "p": "=1",
            "q": "=1",
            "r": "3",
            "s": "\u2014",
        }
        assert rows["r"][1] == pytest.approx(0.3, rel=1e-12)
        assert not seen.problems


# ------------------------------------------------------------------ Explore and Compare
EXPLORED = "() => (window.mplSite.exploreDrawn || 0) >= {}"
COMPARED = "() => (window.mplSite.compareDrawn || 0) >= {}"


def _explore(site, query: str, viewport=None) -> Opened:
    seen = _open(site, query, viewport) if "v=" not in query else None
    if seen is None:
        ctx = site["browser"].new_context(viewport=viewport or {"width": 1280, "height": 800})
        page = ctx.new_page()
        seen = Opened(page)
        page.on("console", lambda m: seen.problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: seen.problems.append(str(e)))
        page.goto(site["url"] + query)
    key = EXPLORED if "v=explore" in query else COMPARED
    seen.page.wait_for_function(key.format(1), timeout=TIMEOUT)
    return seen


def _points(page, plot="explore-plot") -> list[dict]:
    """The traces Plotly holds in the plot (its graph div's ``data``)."""
    return page.evaluate(
        """id => document.getElementById(id).data.map(t => ({
            name: t.name, mode: t.mode, x: t.x, y: t.y, r: t.r,
            keys: t.customdata || null, text: t.text || null}))""",
        plot,
    )


def _commit(page, name: str, text: str, after: int, drawn: str = EXPLORED) -> None:
    before = page.evaluate("() => window.mplSite.edits")
    box = page.locator(f"input[name='{name}']")
    box.fill(text)
    box.press("Enter")
    page.wait_for_function(f"() => window.mplSite.edits > {before}", timeout=TIMEOUT)
    page.wait_for_function(drawn.format(after), timeout=TIMEOUT)


def _scatter_equals_python(page, site, x: int, changes=None) -> dict[str, tuple]:
    """The scatter's points {model: (x, y)} equal the Python engine's (category ``x``'s score
    against the overall score) for every model that has both."""
    res = mpl.score(site["raw"], site["cfg"].apply_changes(changes or {}))
    want = {
        m: (float(c), float(o))
        for m, c, o in zip(res.models, res.cat_scores[:, x], res.overall_scores, strict=True)
        if not (math.isnan(c) or math.isnan(o))
    }
    (models,) = [t for t in _points(page) if t["mode"] == "markers"]
    got = {k: (a, b) for k, a, b in zip(models["keys"], models["x"], models["y"], strict=True)}
    assert set(got) == set(want)
    for m, (a, b) in want.items():
        assert got[m][0] == pytest.approx(a, rel=1e-12, abs=1e-15), m
        assert got[m][1] == pytest.approx(b, rel=1e-12, abs=1e-15), m
    return got


def test_explore_scatter_is_the_python_engines_scores_and_follows_an_edit(site):
    seen = _explore(site, "?v=explore&x=Classification&y=overall")
    page = seen.page
    got = _scatter_equals_python(page, site, 0)
    # by hand: Ridge's Iris is (0.8 + 2 * 0.76) / 3 (Accuracy 0.9 and F1 0.88 on [0.5, 1]), its
    # Wine 1 (0.97 beyond good 0.95); Classification the mean of the two
    assert got["Ridge"][0] == pytest.approx((2.32 / 3 + 1.0) / 2, rel=1e-12)
    # kNN has no Regression value (policy invalidate): no overall score, no point
    assert "kNN" not in got
    title = page.locator("#explore-plot .gtitle").text_content()
    assert title.startswith("6 of 7 models (the others lack a value)")
    # an edit in the view's own boxes (the category weights) redraws it from the live result
    _commit(page, "Regression.weight", "3", 2)
    moved = _scatter_equals_python(page, site, 0, {"Regression": {"weight": 3.0}})
    assert moved["Ridge"][1] != got["Ridge"][1]
    q = parse_qs(urlsplit(page.url).query)
    assert q["x"] == ["Classification"] and q["y"] == ["overall"]
    assert state.decode_changes(q["s"][0]) == {"Regression": {"weight": 3.0}}
    # an edit made in another view is the scatter's when it opens again
    page.click("nav#views a:text-is('Regression')")
    page.wait_for_selector("th[col-id='cs']", timeout=TIMEOUT)
    page.click("nav#views a:text-is('Explore')")
    page.wait_for_function(EXPLORED.format(3), timeout=TIMEOUT)
    _scatter_equals_python(page, site, 0, {"Regression": {"weight": 3.0}})
    # the model filter: the points of the shown models only
    page.fill("#model-filter", "forest")
    page.wait_for_function(EXPLORED.format(4), timeout=TIMEOUT)
    (points,) = [t for t in _points(page) if t["mode"] == "markers"]
    assert points["keys"] == ["RandomForest"]
    assert page.locator("#explore-plot .gtitle").text_content().startswith("1 of 1 models")
    assert not seen.problems and not seen.dialogs


def test_explore_pareto_front_and_names_as_text(site):
    # raw values: Iris accuracy (higher is better) against Diabetes MAE (lower is better).
    # By hand: the markup model (0.95, 42) beats every model but RandomForest (0.96, 48), whose
    # accuracy is higher; kNN has no MAE. The front, by x: the markup model, RandomForest
    acc, mae = "raw:Classification/Iris/Accuracy", "raw:Regression/Diabetes/MAE"
    seen = _explore(site, f"?v=explore&x={acc}&y={mae}")
    page = seen.page
    traces = _points(page)
    (front,) = [t for t in traces if t["name"] == "Pareto front"]
    assert front["x"] == [0.95, 0.96] and front["y"] == [42.0, 48.0]
    (points,) = [t for t in traces if t["mode"] == "markers"]
    assert dict(zip(points["keys"], zip(points["x"], points["y"], strict=True), strict=True)) == {
        m: (v[0], v[3]) for m, v in {**VALUES, XSS: (0.95, 0, 0, 42.0)}.items() if m != "kNN"
    }
    # the front is Python's too
    assert ex.pareto_front(points["x"], points["y"], "higher", "lower") == [
        points["keys"].index(XSS),
        points["keys"].index("RandomForest"),
    ]
    # the hover names the model by its display name, as text (no element made of the markup)
    path = page.locator("#explore-plot .scatterlayer .trace:first-child .point").nth(
        points["keys"].index(XSS)
    )
    box = path.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = page.locator("#explore-plot .hoverlayer .hovertext")
    hover.wait_for(timeout=TIMEOUT)
    text = hover.text_content()
    assert text.startswith(XSS + " (shown)")
    assert "Classification/Iris/Accuracy (raw, fraction): 0.95" in text
    assert page.evaluate("() => document.querySelectorAll('img').length") == 0
    # a click on a point opens the model's card
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.locator("#card").wait_for(state="visible", timeout=TIMEOUT)
    assert page.locator("#card .card-key code").text_content() == XSS
    # a models.csv column on an axis: only Ridge has a paper (the markup model's is empty); a
    # category axis, no front (an attribute has no direction)
    attr = _explore(site, "?v=explore&x=attr:paper&y=overall")
    (points,) = [t for t in _points(attr.page) if t["mode"] == "markers"]
    assert points["keys"] == ["Ridge"] and points["x"] == ["https://example.org/ridge"]
    axis = "() => document.getElementById('explore-plot').layout.xaxis.type"
    assert attr.page.evaluate(axis) == "category"
    assert attr.page.locator("#explore-plot .gtitle").text_content() == (
        "1 of 7 models (the others lack a value) \u00b7 no Pareto front (an attribute has no "
        "direction)"
    )
    assert not seen.problems and not seen.dialogs and not attr.problems


def _python_defaults(site, changes=None) -> tuple[list[str], np.ndarray]:
    """The three best ranked models (board order breaks ties) and the category scores."""
    res = mpl.score(site["raw"], site["cfg"].apply_changes(changes or {}))
    ranks = [math.inf if math.isnan(r) else r for r in res.ranks]
    order = sorted(range(len(res.models)), key=lambda i: (ranks[i], i))[:3]
    return [res.models[i] for i in order], res.cat_scores[order]


def _radar_equals_python(page, site, changes=None) -> list[str]:
    models, cats = _python_defaults(site, changes)
    traces = _points(page, "compare-plot")
    names = {"Ridge": "Ridge regression", XSS: XSS + " (shown)"}
    assert [t["name"] for t in traces] == [
        names.get(m, m).replace("<", "&lt;").replace(">", "&gt;") for m in models
    ]
    for t, want in zip(traces, cats, strict=True):
        assert len(t["r"]) == 4  # three categories and the first again (the closed line)
        assert t["r"] == pytest.approx([*want, want[0]], rel=1e-12, abs=1e-15)
    return models


def _text(part) -> str:
    """The text a Dash component (or a string) shows: its children's, in order."""
    if isinstance(part, str):
        return part
    kids = getattr(part, "children", None)
    kids = kids if isinstance(kids, list) else [] if kids is None else [kids]
    return "".join(_text(k) for k in kids)


def _dashboard_table(site, models: list[str], changes=None) -> list[list[str]]:
    """The dashboard's Compare table (components/explore/compare.py table) as text, row by row."""
    res = mpl.score(site["raw"], site["cfg"].apply_changes(changes or {}))
    names = {"Ridge": "Ridge regression", XSS: XSS + " (shown)"}
    body = dash_compare.table(res, models, names).children[1]
    return [[_text(td) for td in tr.children] for tr in body.children]


def _site_table(page) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#compare-table tbody tr",
        "trs => trs.map(tr => Array.from(tr.children).map(c => c.textContent))",
    )


def test_compare_radar_and_table_are_pythons_and_follow_an_edit(site):
    seen = _explore(site, "?v=compare")
    page = seen.page
    first = _radar_equals_python(page, site)
    heads = page.eval_on_selector_all("#compare-table thead th", "ths => ths.map(t => t.title)")
    assert heads[1:] == first
    assert _site_table(page) == _dashboard_table(site, first)
    _commit(page, "Classification.weight", "0.1", 2, COMPARED)
    again = _radar_equals_python(page, site, {"Classification": {"weight": 0.1}})
    assert again != first  # the edit changed the three best
    # the table, text for text, is the one the dashboard draws for these settings
    assert _site_table(page) == _dashboard_table(site, again, {"Classification": {"weight": 0.1}})
    # picked models: the table's differences to the first, worked out by hand. Regression:
    # Ridge (70 - 45) / 30 and 0.5 / 0.6; RandomForest 22 / 30 and 0.45 / 0.6: -0.0917
    page.goto(site["url"] + "?v=compare&models=Ridge,RandomForest")
    page.wait_for_function(COMPARED.format(1), timeout=TIMEOUT)
    row = page.locator("#compare-table tr[data-path='Regression'] td")
    assert row.nth(0).text_content() == "0.833"
    assert row.nth(1).text_content() == "0.742 (-0.0917)"
    assert "down" in row.nth(1).locator(".cmp-diff").get_attribute("class")
    raw = page.locator("#compare-table tr[data-path='Regression/Diabetes/MAE'] td .cmp-raw")
    assert raw.all_text_contents() == ["45 mg/dL", "48 mg/dL"]
    # a model added in the picker joins the link; a removed one leaves it
    page.select_option("#cmp-add", "kNN")
    page.wait_for_function(COMPARED.format(2), timeout=TIMEOUT)
    assert parse_qs(urlsplit(page.url).query)["models"] == ["Ridge,RandomForest,kNN"]
    page.click("button[aria-label='Remove Ridge regression from the comparison']")
    page.wait_for_function(COMPARED.format(3), timeout=TIMEOUT)
    assert parse_qs(urlsplit(page.url).query)["models"] == ["RandomForest,kNN"]
    assert [t["name"] for t in _points(page, "compare-plot")] == ["RandomForest", "kNN"]
    assert not seen.problems


def test_explore_and_compare_links_round_trip_with_the_dashboard(site):
    changes = {"Regression": {"weight": 3.0}, IRIS_ACC: {"bad": 0.92}}
    sel = {"x": "Regression/Diabetes/MAE", "y": "raw:Regression/Diabetes/R2", "c": "paper",
           "axes": "linear", "models": []}  # fmt: skip
    # the dashboard's link (state.make_query + explore.query_tail) opens the same scatter
    link = dash_explore.query_tail(state.make_query(changes, "explore"), "explore", sel)
    seen = _explore(site, link)
    page = seen.page
    assert page.input_value("#ex-x") == sel["x"] and page.input_value("#ex-y") == sel["y"]
    assert page.input_value("#ex-c") == "paper" and page.is_checked("#ex-axes-linear")
    res = mpl.score(site["raw"], site["cfg"].apply_changes(changes))
    traces = [t for t in _points(page) if t["mode"] == "markers"]
    j = list(site["cfg"].metric_paths()).index("Regression/Diabetes/MAE")
    for t in traces:  # coloured by paper: a trace per value
        for k, x in zip(t["keys"], t["x"], strict=True):
            assert x == pytest.approx(res.metric_scores[res.models.index(k), j], rel=1e-12)
    # a short path in a link is its full form (the config's rule)
    short = _explore(site, "?v=explore&x=Diabetes/MAE&y=Iris")
    assert short.page.input_value("#ex-x") == "Regression/Diabetes/MAE"
    assert short.page.input_value("#ex-y") == "Classification/Iris"
    # a new choice is a new link, in the dashboard's keys; the dashboard's parts come back
    page.select_option("#ex-y", "rank")
    page.wait_for_function(EXPLORED.format(2), timeout=TIMEOUT)
    q = parse_qs(urlsplit(page.url).query)
    assert q["v"] == ["explore"] and q["x"] == [sel["x"]] and q["y"] == ["rank"]
    assert q["c"] == ["paper"] and q["axes"] == ["linear"]
    assert state.decode_changes(q["s"][0]) == changes
    # ... and the site's link is the dashboard's, key for key (the changes' JSON writes 3.0 as
    # the browser's 3: compared decoded, above)
    want = parse_qs(
        dash_explore.query_tail(
            state.make_query(changes, "explore"), "explore", {**sel, "y": "rank"}
        )[1:]
    )
    assert {k: v for k, v in q.items() if k != "s"} == {k: v for k, v in want.items() if k != "s"}
    # the redrawn view gives the focus back to the box that changed; back is the former choice
    assert page.evaluate("() => document.activeElement.id") == "ex-y"
    page.go_back()
    page.wait_for_function(EXPLORED.format(3), timeout=TIMEOUT)
    assert page.input_value("#ex-y") == sel["y"]
    assert parse_qs(urlsplit(page.url).query)["y"] == [sel["y"]]
    # an unknown quantity falls back to the first choices (as the dashboard does)
    odd = _explore(site, "?v=explore&x=nope&y=raw:Classification")
    assert odd.page.input_value("#ex-x") == "Classification"
    assert odd.page.input_value("#ex-y") == "overall"
    # Compare: the models of a dashboard link, in its order
    cmp = _explore(site, "?v=compare&models=kNN,Ridge,nobody")
    assert [t["name"] for t in _points(cmp.page, "compare-plot")] == ["kNN", "Ridge regression"]
    assert parse_qs(urlsplit(cmp.page.url).query)["models"] == ["kNN,Ridge,nobody"]
    assert not seen.problems and not short.problems and not cmp.problems


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_explore_and_compare_no_serious_accessibility_violation(site, theme):
    pytest.importorskip("axe_playwright_python", reason="pip install axe-playwright-python")
    from axe_playwright_python.sync_playwright import Axe

    for query, drawn in (("?v=explore&x=Classification&c=paper", EXPLORED),
                         ("?v=compare&models=Ridge,kNN", COMPARED)):  # fmt: skip
        ctx = site["browser"].new_context(color_scheme=theme)
        page = ctx.new_page()
        page.goto(site["url"] + query)
        page.wait_for_function(drawn.format(1), timeout=TIMEOUT)
        assert page.get_attribute("html", "data-theme") == theme
        found = Axe().run(page).response["violations"]
        serious = [v["id"] for v in found if v["impact"] in ("critical", "serious")]
        assert serious == [], (query, serious)
        ctx.close()


@pytest.mark.parametrize(
    "query", ["?v=explore&x=raw:Regression/Diabetes/MAE&c=paper", "?v=compare"]
)
def test_explore_and_compare_readable_at_390_px(site, query, tmp_path):
    seen = _explore(site, query, viewport={"width": 390, "height": 800})
    page = seen.page
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    plot = "#explore-plot" if "explore" in query else "#compare-plot"
    box = page.locator(plot + " .main-svg").first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    # the title and the axis titles are inside the plot (on a phone the title takes two lines)
    for part in page.locator(plot + " .gtitle, " + plot + " .xtitle").all():
        b = part.bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= 390, part.text_content()
    page.screenshot(path=str(tmp_path / "narrow.png"), full_page=True)
    assert not seen.problems
