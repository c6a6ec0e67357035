"""XSS: names, descriptions and units holding HTML or script show as text everywhere the
dashboard puts them (tables, header tooltips, the sidebar, breadcrumbs, the settings panel, the
plot and its hover, the dropdowns, the exports), and no script ever runs: no dialog opens and the
flag an ``onerror`` handler would set stays unset."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
import yaml
from browser_utils import chromium, live_server, open_dashboard, require_browser
from test_dashboard_browser import goto_view

from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app

pytestmark = pytest.mark.browser

IMG = '<img src=x onerror="window.__xss=1;alert(1)">'
SCRIPT = "<script>window.__xss=2;alert(2)</script>"
CAT = f"Cat {IMG}"
BENCH = f"Bench {SCRIPT}"
METRIC = f"Metric {IMG}"
MODELS = [f"Model {IMG}", f"Model {SCRIPT}", "Plain model"]


def write_hostile(directory):
    directory.mkdir(parents=True, exist_ok=True)
    config = {
        "title": f"Board {SCRIPT}",
        "description": f"About {IMG}",
        "categories": {
            CAT: {
                "description": f"Category text {SCRIPT}",
                "benchmarks": {
                    BENCH: {
                        "description": f"Benchmark text {IMG}",
                        "metrics": {
                            METRIC: {
                                "good": 1.0,
                                "bad": 0.0,
                                "unit": f"u{IMG}",
                                "description": f"Metric text {SCRIPT}",
                            },
                            "Other": {"good": 0.0, "bad": 10.0, "unit": "<b>s</b>"},
                        },
                    }
                },
            },
            "Second": {"benchmarks": {"B2": {"metrics": {"M": {"good": 1.0, "bad": 0.0}}}}},
        },
    }
    (directory / "config.yml").write_text(
        yaml.safe_dump(config, allow_unicode=True), encoding="utf-8"
    )
    with open(directory / "raw_metrics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "benchmark", "metric", "value"])
        for i, m in enumerate(MODELS):
            w.writerow([m, BENCH, METRIC, 0.2 + 0.3 * i])
            w.writerow([m, BENCH, "Other", 1.0 + i])
            w.writerow([m, "B2", "M", 0.5])
    return directory


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    require_browser()
    cfg, raw = load_dataset(write_hostile(tmp_path_factory.mktemp("xss")))
    app = create_app(cfg, raw)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        page, context, dialogs, errors = seen.page, seen.page.context, seen.dialogs, seen.problems
        yield cfg, page, dialogs, errors
        context.close()


def no_script_ran(page, dialogs) -> None:
    page.wait_for_timeout(300)
    assert dialogs == []
    assert page.evaluate("() => window.__xss === undefined")
    assert page.locator("img[src='x']").count() == 0
    # every <script> in the document is one of the page's own (served from /_dash-* or /assets);
    # the board's names are data in the one JSON element (never run; "<" escaped in it)
    inline = page.evaluate(
        """() => [...document.scripts].filter(s => !s.src && s.type !== 'application/json'
                                             && s.textContent.includes('__xss')).length"""
    )
    assert inline == 0
    data = page.evaluate(
        "() => [...document.scripts].filter(s => s.type === 'application/json').map(s => s.id)"
    )
    assert sorted(data) == ["_dash-config", "mpl-bundle"]  # Dash's own, and the board
    assert "<" not in page.evaluate("() => document.getElementById('mpl-bundle').textContent")


def texts(page, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_text_contents()]


def test_names_show_as_text_in_the_overview(hostile):
    cfg, page, dialogs, errors = hostile
    assert page.locator("h1").inner_text() == f"Board {SCRIPT}"
    models = texts(page, ".ag-pinned-left-cols-container .ag-cell[col-id='model']")
    assert sorted(models) == sorted(MODELS)
    # a category's name is its header's button (MplHeader), other headers are the grid's own
    headers = texts(page, ".ag-header-cell .ag-header-cell-text, .ag-header-cell .hdr-name")
    assert CAT in headers
    sidebar = texts(page, "#sidebar .nav-item")
    assert CAT in sidebar and BENCH in sidebar
    assert CAT in texts(page, "#settings td.name button")
    # the header tooltip: AG Grid shows it as text
    page.locator(".ag-header-cell[col-id='c0'] .hdr-name").hover()
    page.wait_for_selector(".ag-tooltip")
    assert f"Category text {SCRIPT}" in page.locator(".ag-tooltip").inner_text()
    page.mouse.move(5, 5)
    # the model filter's options
    page.click("#model-filter")
    page.wait_for_selector(".dash-dropdown-option")
    assert MODELS[0] in texts(page, ".dash-dropdown-option")
    page.keyboard.press("Escape")
    no_script_ran(page, dialogs)
    assert not errors


def test_names_show_as_text_in_the_benchmark_view_and_plot(hostile):
    cfg, page, dialogs, errors = hostile
    goto_view(page, f"{CAT}/{BENCH}")
    page.wait_for_selector("#curve .js-plotly-plot")
    crumbs = page.locator("#crumbs").inner_text()
    assert CAT in crumbs and BENCH in crumbs and f"Benchmark text {IMG}" in crumbs
    headers = texts(page, ".ag-header-cell .ag-header-cell-text, .ag-header-cell .hdr-name")
    assert f"{METRIC} [u{IMG}]" in headers
    assert "Other [<b>s</b>]" in headers
    assert METRIC in texts(page, "#settings td.name button")
    # the plot: title and hover label show the names as text
    page.wait_for_function(
        "() => { const g = document.querySelector('#curve .js-plotly-plot');"
        " return g && g.data && g.data.length === 2; }"
    )
    title = page.locator("#curve .gtitle").text_content()
    assert METRIC in title and f"u{IMG}" in title
    page.evaluate(
        "() => Plotly.Fx.hover(document.querySelector('#curve .js-plotly-plot'),"
        " [{curveNumber: 1, pointNumber: 0}])"
    )
    page.wait_for_selector("#curve .hoverlayer .hovertext")
    hover = page.locator("#curve .hoverlayer .hovertext").text_content()
    assert MODELS[0] in hover
    # the metric picker's options
    page.click("#metric-pick")
    page.wait_for_selector(".dash-dropdown-option")
    assert METRIC in texts(page, ".dash-dropdown-option")
    page.keyboard.press("Escape")
    no_script_ran(page, dialogs)
    assert not errors


def test_exports_hold_the_names_as_text(hostile):
    cfg, page, dialogs, errors = hostile
    with page.expect_download() as dl:
        page.click("#dl-csv-btn")
    with zipfile.ZipFile(io.BytesIO(open(dl.value.path(), "rb").read())) as zf:
        overall = zf.read("overall_scores.csv").decode("utf-8")
        benches = zf.read("benchmark_scores.csv").decode("utf-8")
    rows = list(csv.reader(io.StringIO(overall)))
    assert sorted(r[0] for r in rows[1:]) == sorted(MODELS)
    assert BENCH in benches
    with page.expect_download() as dl:
        page.click("#dl-yaml-btn")
    text = open(dl.value.path(), encoding="utf-8").read()
    assert yaml.safe_load(text)["categories"][CAT]["benchmarks"][BENCH]["metrics"][METRIC]
    no_script_ran(page, dialogs)
    assert not errors
