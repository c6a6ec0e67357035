"""The pinned baseline in the browser: "Compare against this view" pins the settings shown (in
the link as ``b=``), and the rank change, the score change and Kendall tau then compare with
them; the changes list reads the changes.

Every expected number is the Python engine's: both settings scored with ``ml_peg_like.score``
and compared with ``scoring.rank_change`` / a subtraction, tau with the scipy-free
``robustness.kendall_tau``.
"""

from __future__ import annotations

import csv
import json
import re
import urllib.parse
import zipfile

import numpy as np
import pandas as pd
import pytest
from browser_utils import GRID_READY, chromium, live_server, require_browser, small_dataset
from test_dashboard_browser import box, commit_box, goto_view, settle, wait_column
from test_dashboard_server_scored_browser import CONFIG as CUBES
from test_dashboard_server_scored_browser import _cube

import ml_peg_like as mpl
from ml_peg_like import load_dataset, score
from ml_peg_like import normalisers as nz
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.components import robustness_figures as rfig
from ml_peg_like.dashboard.state import encode_changes
from ml_peg_like.numfmt import fmt_score
from ml_peg_like.robustness import kendall_tau, spearman_rho

pytestmark = pytest.mark.browser

PIN = "#baseline-pin"
UNPIN = "#baseline-unpin"
BASE_TEXT = "#baseline-text"


@pytest.fixture(scope="module")
def browser():
    require_browser()
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def small(tmp_path_factory, browser):
    cfg, raw = small_dataset(tmp_path_factory.mktemp("baseline"))
    with live_server(create_app(cfg, raw)) as url:
        yield cfg, raw, url, browser


def _page(browser, url):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url)
    page.wait_for_selector(GRID_READY)
    return page, problems


def _overall(raw, cfg, changes):
    s = score(raw, cfg.apply_changes(changes))
    return s.overall["score"].to_numpy(dtype=float), s.overall["rank"], list(s.overall.index)


def _delta_text(before: float, after: float, rb, ra) -> str:
    """The rank change cell as the page states it (docs/DASHBOARD.md): a word without a score,
    else ▲n / ▼n, nothing for no move."""
    if np.isnan(after):
        return "no score"
    if np.isnan(before):
        return "new"
    d = int(rb) - int(ra)
    return "" if d == 0 else ("▲" if d > 0 else "▼") + str(abs(d))


def _change_text(before: float, after: float) -> str:
    """The score change cell: '—' without a score in either, '' when unchanged, else signed."""
    if np.isnan(before) or np.isnan(after):
        return "—"
    d = after - before
    if d == 0:
        return ""
    return ("+" if d > 0 else "−") + fmt_score(abs(d))


def _expected(cfg, raw, base: dict, now: dict):
    """{model: rank change text}, {model: score change text}, tau and rho of ``now`` against
    ``base``, from the Python engine."""
    b_scores, b_ranks, models = _overall(raw, cfg, base)
    a_scores, a_ranks, models_a = _overall(raw, cfg, now)
    assert models == models_a
    deltas, changes = {}, {}
    for i, m in enumerate(models):
        deltas[m] = _delta_text(b_scores[i], a_scores[i], b_ranks.iloc[i], a_ranks.iloc[i])
        changes[m] = _change_text(b_scores[i], a_scores[i])
    return deltas, changes, kendall_tau(a_ranks, b_ranks), spearman_rho(a_ranks, b_ranks)


def _edit(page, path: str, field: str, value: str) -> None:
    b = box(page, path, field)
    b.fill(value)
    commit_box(page, b)


def _pin(page) -> None:
    page.click(PIN)
    page.wait_for_function("() => new URLSearchParams(location.search).has('b')")
    page.wait_for_function(
        "(s) => document.querySelector(s).textContent.includes('your view of')", arg=BASE_TEXT
    )


def _wait_text(page, selector: str, text: str, timeout: float = 10_000) -> None:
    page.wait_for_function(
        "([s, t]) => { const e = document.querySelector(s); return e && e.textContent === t; }",
        arg=[selector, text],
        timeout=timeout,
    )


def _check_csv_export(page, cfg, raw, pinned: dict, now: dict) -> None:
    """The CSV export names the baseline and holds the changes against it (Python's)."""
    with page.expect_download() as dl:
        page.click("#dl-csv-btn")
    with zipfile.ZipFile(dl.value.path()) as zf:
        ov = pd.read_csv(zf.open("overall_scores.csv"), keep_default_na=False)
        prov = json.loads(zf.read("provenance.json"))
    assert prov["baseline"]["changes_from_defaults"] == {"Classification": {"weight": 0.5}}
    b_scores, b_ranks, _m = _overall(raw, cfg, pinned)
    a_scores, a_ranks, models = _overall(raw, cfg, now)
    by = ov.set_index("model")
    for i, m in enumerate(models):
        word = _delta_text(b_scores[i], a_scores[i], b_ranks.iloc[i], a_ranks.iloc[i])
        want = {"": "0", "new": "new", "no score": "no score"}.get(word)
        want = want or str(int(b_ranks.iloc[i]) - int(a_ranks.iloc[i]))
        assert str(by.loc[m, "rank_change_vs_baseline"]) == want, m
        got = by.loc[m, "score_change_vs_baseline"]
        if np.isnan(a_scores[i]) or np.isnan(b_scores[i]):
            assert got == ""
        else:
            assert float(got) == pytest.approx(a_scores[i] - b_scores[i], abs=1e-12)


def test_pin_edit_reload_unpin(small):
    cfg, raw, url, browser = small
    page, problems = _page(browser, url + "/")
    assert page.inner_text(BASE_TEXT) == "Compared with: the published settings"
    assert page.is_disabled(UNPIN)
    pinned = {"Classification": {"weight": 0.5}}
    _edit(page, "Classification", "weight", "0.5")
    _pin(page)
    assert re.fullmatch(
        r"Compared with: your view of \d\d:\d\d, 1 change", page.inner_text(BASE_TEXT)
    )
    assert not page.is_disabled(UNPIN)
    b = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["b"][0]
    assert b == encode_changes(pinned)
    # pinned: nothing has moved against the baseline
    deltas, changes, _tau, _rho = _expected(cfg, raw, pinned, pinned)
    wait_column(page, "d", deltas)
    wait_column(page, "ds", changes)

    now = {"Classification": {"weight": 0.5}, "Regression": {"weight": 4.0}}
    _edit(page, "Regression", "weight", "4")
    deltas, changes, tau, rho = _expected(cfg, raw, pinned, now)
    assert any(v not in ("", "—", "new", "no score") for v in deltas.values())  # a real move
    wait_column(page, "d", deltas)
    wait_column(page, "ds", changes)
    _wait_text(page, "#rob-tau", rfig.tau_text(tau, rho, against="pinned view"))
    assert "b=" in page.url

    # the link restores the baseline (and the changes)
    page.goto(page.url)
    page.wait_for_selector(GRID_READY)
    _wait_text(page, BASE_TEXT, "Compared with: the pinned view of the link, 1 change")
    wait_column(page, "d", deltas)
    wait_column(page, "ds", changes)
    _wait_text(page, "#rob-tau", rfig.tau_text(tau, rho, against="pinned view"))

    _check_csv_export(page, cfg, raw, pinned, now)

    # Unpin: the published settings again
    page.click(UNPIN)
    _wait_text(page, BASE_TEXT, "Compared with: the published settings")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('b')")
    deltas, changes, tau, rho = _expected(cfg, raw, {}, now)
    wait_column(page, "d", deltas)
    wait_column(page, "ds", changes)
    _wait_text(page, "#rob-tau", rfig.tau_text(tau, rho))
    assert not problems


def test_a_bad_baseline_in_a_link_says_so_and_compares_with_the_defaults(small):
    cfg, raw, url, browser = small
    page, problems = _page(browser, url + "/?b=jbm90LWpzb24")
    page.wait_for_selector(".status-msg.err")
    msg = page.inner_text(".status-msg.err")
    assert "The baseline in the link (b=) was ignored" in msg, msg
    assert "published settings" in msg
    assert page.inner_text(BASE_TEXT) == "Compared with: the published settings"
    deltas, changes, _tau, _rho = _expected(cfg, raw, {}, {})
    wait_column(page, "d", deltas)
    # an unknown key path is named too
    page.goto(url + "/?b=" + encode_changes({"Nope": {"weight": 1}}))
    page.wait_for_function(
        "() => (document.querySelector('.status-msg.err') || {}).textContent"
        " && document.querySelector('.status-msg.err').textContent.includes('unknown key path')"
    )
    assert not problems


def test_the_changes_list_reads_the_changes_and_opens_their_view(small):
    cfg, raw, url, browser = small
    page, problems = _page(browser, url + "/")
    assert page.inner_text("#changes-label") == "No changes from the published settings"
    link = encode_changes({"Classification/Iris/Accuracy": {"good": 0.9}})
    page.goto(f"{url}/?s={link}")
    page.wait_for_selector("#changes-list button")
    items = page.locator("#changes-list button").all_text_contents()
    assert items == ["Iris / Accuracy: good 1 → 0.9"]  # the default good is 1.0 (SMALL_CONFIG)
    assert page.inner_text("#changes-label") == "Your changes (1):"
    _edit(page, "Classification", "weight", "3")  # an edit: the list follows at once
    page.wait_for_function("() => document.querySelectorAll('#changes-list button').length === 2")
    items = page.locator("#changes-list button").all_text_contents()
    assert items == ["Classification: weight 2 → 3", "Iris / Accuracy: good 1 → 0.9"]
    page.locator("#changes-list button").nth(1).click()  # opens the metric's benchmark view
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('v') === 'Classification/Iris'"
    )
    settle(page, 300)
    assert problems == []


def _write_gappy(directory):
    """Every model misses one metric: under ``invalidate`` nobody has an overall score."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.yml").write_text(
        "title: Gaps\nmissing: invalidate\nscale: 1\ncategories:\n"
        "  A:\n    benchmarks:\n      B1:\n        metrics:\n"
        "          M1: {good: 1.0, bad: 0.0}\n          M2: {good: 1.0, bad: 0.0}\n"
        "      B2:\n        metrics:\n          M3: {good: 1.0, bad: 0.0}\n",
        encoding="utf-8",
    )
    values = {
        "p": (0.9, None, 0.2),
        "q": (None, 0.6, 0.7),
        "r": (0.4, 0.5, None),
        "s": (0.1, None, 0.95),
    }
    keys = [("B1", "M1"), ("B1", "M2"), ("B2", "M3")]
    with open(directory / "raw_metrics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "benchmark", "metric", "value"])
        for m, row in values.items():
            for (bn, mn), v in zip(keys, row, strict=True):
                w.writerow([m, bn, mn, "" if v is None else v])
    return load_dataset(directory)


def test_defaults_that_score_nobody_give_real_rank_changes_once_pinned(tmp_path, browser):
    cfg, raw = _write_gappy(tmp_path / "gaps")
    assert score(raw, cfg).overall["score"].isna().all()  # the defaults score nobody
    with live_server(create_app(cfg, raw)) as url:
        page, problems = _page(browser, url + "/?missing=skip")
        skip = {"": {"missing": "skip"}}
        deltas, _c, _t, _r = _expected(cfg, raw, {}, skip)
        assert set(deltas.values()) == {"new"}  # against the defaults: nobody was ranked
        wait_column(page, "d", deltas)
        _wait_text(page, "#rob-tau", rfig.tau_text(float("nan"), float("nan")))
        _pin(page)
        goto_view(page, "A")  # the benchmarks' weight boxes; the grid keeps # and ±
        now = {"": {"missing": "skip"}, "A/B2": {"weight": 5.0}}
        _edit(page, "A/B2", "weight", "5")
        deltas, changes, tau, rho = _expected(cfg, raw, skip, now)
        assert all(re.fullmatch(r"|[▲▼]\d+", v) for v in deltas.values()), deltas
        assert any(v for v in deltas.values())  # models moved, by numbers, not "new"
        wait_column(page, "d", deltas)
        wait_column(page, "ds", changes)
        assert np.isfinite(tau)
        _wait_text(page, "#rob-tau", rfig.tau_text(tau, rho, against="pinned view"))
        assert not problems


@pytest.fixture
def cubes(monkeypatch):
    """A board with a normaliser registered only in Python (the browser cannot score it)."""
    require_browser()
    monkeypatch.setitem(nz._REGISTRY, "cube", nz.Normaliser("cube", _cube))
    raw = mpl.RawData(("p", "q"), (("B", "e"), ("B", "k")), np.array([[0.2, 0.5], [0.6, 0.9]]))
    return mpl.loads_config(CUBES), raw


def test_a_board_scored_on_the_server_compares_with_the_servers_baseline(cubes, browser):
    """Scores by hand (tests/test_dashboard_server_scored_browser.py): overall = mean(1 - e /
    bad, k**3); p (e 0.2, k 0.5), q (e 0.6, k 0.9). Pinned at e's bad 2: p 0.5125, q 0.7145;
    then bad 4: p (0.95 + 0.125) / 2 = 0.5375, q (0.85 + 0.729) / 2 = 0.7895."""
    cfg, raw = cubes
    app = create_app(cfg, raw, robustness=False)
    with live_server(app) as url:
        page, problems = _page(browser, url + "/?v=C/B")
        assert page.evaluate("window.mplLive.serverScored") is True
        _edit(page, "C/B/e", "bad", "2")
        wait_column(page, "o", {"p": fmt_score(0.5125), "q": fmt_score(0.7145)})
        _pin(page)
        wait_column(page, "ds", {"p": "", "q": ""})
        _edit(page, "C/B/e", "bad", "4")
        p, q = (1 - 0.2 / 4 + 0.5**3) / 2, (1 - 0.6 / 4 + 0.9**3) / 2  # 0.5375, 0.7895
        wait_column(page, "o", {"p": fmt_score(p), "q": fmt_score(q)})
        dp, dq = p - (1 - 0.2 / 2 + 0.5**3) / 2, q - (1 - 0.6 / 2 + 0.9**3) / 2  # 0.025, 0.075
        wait_column(page, "ds", {"p": "+" + fmt_score(dp), "q": "+" + fmt_score(dq)})
        wait_column(page, "d", {"p": "", "q": ""})
        assert not problems


ORDER = """() => { const out = [];
  dash_ag_grid.getApi('grid').forEachNodeAfterFilterAndSort(n => out.push(n.data.model));
  return out; }"""


@pytest.mark.parametrize("direction", ["desc", "asc"])
def test_the_score_change_sorts_by_its_number_with_no_score_last(small, direction):
    cfg, raw, url, browser = small
    base = {"Classification": {"weight": 0.5}}
    now = {"Classification": {"weight": 0.5}, "Regression": {"weight": 4.0}}
    query = f"/?s={encode_changes(now)}&b={encode_changes(base)}&sort=ds.{direction}"
    page, problems = _page(browser, url + query)
    _wait_text(page, BASE_TEXT, "Compared with: the pinned view of the link, 1 change")
    b_scores, _br, models = _overall(raw, cfg, base)
    a_scores, _ar, _m = _overall(raw, cfg, now)
    change = {m: a_scores[i] - b_scores[i] for i, m in enumerate(models)}
    scored = sorted((m for m in models if not np.isnan(change[m])), key=change.get)
    want = (scored[::-1] if direction == "desc" else scored) + [
        m for m in models if np.isnan(change[m])
    ]
    assert len(scored) < len(models)  # a model without a score: last either way
    page.wait_for_function(
        f"(want) => JSON.stringify(({ORDER})()) === JSON.stringify(want)", arg=want
    )
    assert not problems
