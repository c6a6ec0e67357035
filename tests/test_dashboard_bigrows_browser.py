"""A large table in the browser (components/bigrows.py, lowered to 50 models): the grid holds
only the blocks it shows; after an edit, a scroll, a sort and a model filter (searched, not in
the page) every row it holds, and every overall cell on screen, equals a full recompute by the
engine for that state, in the order of the sort."""

from __future__ import annotations

import math

import pytest
from browser_utils import chromium, live_server, open_dashboard, require_browser
from test_dashboard_bigrows import IRIS, N_MODELS, write_big_dataset

from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.state import make_query
from ml_peg_like.dashboard.tables import fmt_score, row_data
from ml_peg_like.scoring import score_values

pytestmark = pytest.mark.browser

#: the rows the grid holds (the loaded blocks): [row index, data]
HELD = """() => {
  const api = window.dash_ag_grid.getApi(window.mplNames.grid);
  const out = [];
  api.forEachNode(n => { if (n.data) out.push([n.rowIndex, n.data]); });
  return [api.getDisplayedRowCount(), out];
}"""

#: the overall cells on screen: {row index: text}
SHOWN = """() => {
  const out = {};
  document.querySelectorAll('#grid .ag-row').forEach(r => {
    const c = r.querySelector('.ag-cell[col-id="o"]');
    const m = r.querySelector('.ag-cell[col-id="model"]');
    if (c && m && m.textContent) out[r.getAttribute('row-index')] = c.textContent.trim();
  });
  return out;
}"""


#: the blocks the grid fetched so far (requests to the block route)
FETCHES = f"""() => performance.getEntriesByType('resource')
  .filter(e => e.name.includes('{ids.ROWS_ROUTE}')).length"""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    cfg, raw = load_dataset(write_big_dataset(tmp_path_factory.mktemp("big"), n=200))
    app = create_app(cfg, raw, robustness=False, sensitivity=False, large_rows=50)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        yield dict(cfg=cfg, raw=raw, app=app, url=url, page=seen.page, seen=seen)
        seen.page.context.close()


def expected(env, changes: dict, view: str, sort: tuple[str, str], models=None) -> list[dict]:
    """A full recompute's rows (fresh scores), in the order AG Grid gives a small table: by
    ``sort``'s column, missing values first ascending and last descending (the rank column,
    whose comparator is rankCompare: no rank last both ways), ties in board order."""
    cfg, cache = env["cfg"], env["app"].score_cache
    default = score_values(cache.values, cache.models, cfg)
    scores = score_values(cache.values, cache.models, cfg.apply_changes(changes))
    rows = row_data(
        scores, view, default_overall=default.overall_scores, models=models, names=cache.display
    )
    col, direction = sort
    present = [r for r in rows if r.get(col) is not None]
    missing = [r for r in rows if r.get(col) is None]
    present.sort(key=lambda r: r[col], reverse=direction == "desc")  # stable: ties kept
    return missing + present if direction == "asc" and col != "rank" else present + missing


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def assert_grid_is(page, want: list[dict], at_least: int = 20, timeout_ms: int = 10000) -> None:
    """The grid's row count is ``len(want)``, every row it holds is ``want``'s row at that index
    (every field), it holds at least ``at_least`` rows, and the overall cells on screen show
    those rows' scores."""
    held: list = []
    count = shown = None
    for _ in range(timeout_ms // 50):
        count, held = page.evaluate(HELD)
        shown = page.evaluate(SHOWN)
        ok = (
            count == len(want)
            and len(held) >= min(at_least, len(want))
            and all(
                i < len(want)
                and d.keys() == want[i].keys()
                and all(same(d[f], v) for f, v in want[i].items())
                for i, d in held
            )
            and shown
            and all(t == fmt_score(want[int(i)]["o"]) for i, t in shown.items())
        )
        if ok:
            return
        page.wait_for_timeout(50)
    bad = [(i, d["model"], want[i]["model"] if i < len(want) else None) for i, d in held]
    raise AssertionError(f"rows {count} of {len(want)}; held (index, got, want): {bad[:10]}")


def commit(page, path: str, field: str, text: str) -> None:
    b = page.locator(f"input[name='{path}.{field}']")
    b.fill(text)
    b.press("Enter")


def sort_by(page, col: str, direction: str) -> None:
    page.evaluate(
        """([c, d]) => window.dash_ag_grid.getApi(window.mplNames.grid).applyColumnState(
             {state: [{colId: c, sort: d}], defaultState: {sort: null}})""",
        [col, direction],
    )


def test_edit_scroll_sort_and_filter_show_the_engine_scores(env):
    page, url = env["page"], env["url"]
    rank = ("rank", "asc")
    assert_grid_is(page, expected(env, {}, "", rank))
    # the page holds no rows: only the first blocks were fetched
    assert page.evaluate(HELD)[0] == 200 and len(page.evaluate(HELD)[1]) < 200
    page.goto(url + "/" + make_query({}, IRIS))
    page.wait_for_selector(f"input[name='{IRIS}/Accuracy.good']")
    assert_grid_is(page, expected(env, {}, IRIS, rank))
    changes = {f"{IRIS}/Accuracy": {"good": 0.8}}
    fetched = page.evaluate(FETCHES)
    commit(page, f"{IRIS}/Accuracy", "good", "0.8")
    assert_grid_is(page, expected(env, changes, IRIS, rank))
    page.wait_for_timeout(300)
    assert page.evaluate(FETCHES) == fetched  # the top block came with the edit's response
    # scroll to the end: the last block is fetched, in the same order
    page.evaluate("() => window.dash_ag_grid.getApi(window.mplNames.grid).ensureIndexVisible(190)")
    page.wait_for_function(
        "() => !!document.querySelector('#grid .ag-row[row-index=\"190\"] .ag-cell[col-id=o]')"
    )
    assert_grid_is(page, expected(env, changes, IRIS, rank), at_least=120)
    # sort by the overall score, descending, then edit again (scrolled down)
    sort_by(page, "o", "desc")
    assert_grid_is(page, expected(env, changes, IRIS, ("o", "desc")))
    commit(page, f"{IRIS}/Accuracy", "good", "0.9")
    changes = {f"{IRIS}/Accuracy": {"good": 0.9}}
    assert_grid_is(page, expected(env, changes, IRIS, ("o", "desc")))
    sort_by(page, "o", "asc")  # missing scores first
    assert_grid_is(page, expected(env, changes, IRIS, ("o", "asc")))
    # the model filter: its options are searched (not 200 in the page); pick two models
    picks = []
    names = env["app"].score_cache.display
    for name in ("m137", "m042"):  # m042 is shown as "A-model 158": found by its key too
        page.click("#model-filter")
        page.locator(".dash-dropdown-content .dash-dropdown-search").fill(name[1:])
        option = page.locator(".dash-dropdown-option", has_text=names.get(name, name)).first
        option.wait_for()
        assert page.locator(".dash-dropdown-option").count() <= 50 + len(picks)
        option.click()
        page.keyboard.press("Escape")
        picks.append(name)
        page.wait_for_function(
            "(n) => document.querySelector('#shown-count').textContent.startsWith(n + ' of')",
            arg=str(len(picks)),
        )
    models = sorted(picks, key=lambda m: int(m[1:]))  # board order
    assert_grid_is(page, expected(env, changes, IRIS, ("o", "asc"), models=models), at_least=2)
    # a reload keeps the state (URL): the same rows come back
    page.reload()
    page.wait_for_selector(f"input[name='{IRIS}/Accuracy.good']")
    assert_grid_is(page, expected(env, changes, IRIS, ("o", "asc"), models=models), at_least=2)
    assert N_MODELS < 200
    assert not env["seen"].problems
