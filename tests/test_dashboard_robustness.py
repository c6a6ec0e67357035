"""The dashboard's Robustness view (ml_peg_like/dashboard/components/robustness_*.py).

Unit tests of the pure builders on hand-made cases, and browser tests (headless Chromium,
Playwright) on the demo data: Run in a background callback (diskcache manager in a tmp dir)
shows what ``rank_robustness`` computes with the same seed and settings, and the Kendall tau
line follows the ``changes`` store. Writes docs/screenshots/robustness.png when
MPL_SCREENSHOTS=1.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
from browser_utils import chromium, live_server, open_dashboard, require_browser, small_dataset
from helpers_engine import raw_matrix
from plotly.utils import PlotlyJSONEncoder

import ml_peg_like as mpl
from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components.robustness import callbacks as rcb
from ml_peg_like.dashboard.components.robustness import figures as rfig
from ml_peg_like.dashboard.components.robustness import layout as rlay
from ml_peg_like.dashboard.components.robustness import tables as rtab
from ml_peg_like.dashboard.state import make_query
from ml_peg_like.robustness import kendall_tau, rank_robustness, spearman_rho

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"
SHOTS = ROOT / "docs" / "screenshots"

TREE = """
title: Hand-made
categories:
  Accuracy:
    weight: 2
    benchmarks:
      B1:
        metrics:
          err: {good: 0, bad: 10, weight: 2}
          acc: {good: 1, bad: 0.5}
      B2:
        metrics:
          light: {good: 1, bad: 5, normaliser: traffic_light}
  Speed:
    benchmarks:
      S1:
        metrics:
          time: {good: 1, bad: 100}
"""
BEST = "<b>best</b> & co"  # better on every metric; an HTML-looking name
ROWS = {
    BEST: [0.5, 0.99, 0.5, 2.0],
    "mid": [4.0, 0.8, 3.0, 30.0],
    "low": [6.0, 0.7, 4.0, 50.0],
    "worst": [9.0, 0.55, 6.0, 90.0],
}


def hand_made():
    cfg = mpl.loads_config(TREE)
    return cfg, raw_matrix(cfg, list(ROWS), list(ROWS.values()))


@pytest.fixture(scope="module")
def hand_result():
    cfg, raw = hand_made()
    return rank_robustness(
        raw, cfg, samples=300, seed=4, top_k=2, concentration=2.0, threshold_jitter=0.3
    )


def _texts(node) -> list[str]:
    """Every string inside a Dash component tree."""
    out: list[str] = []
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, list | tuple):
        for c in node:
            out += _texts(c)
    elif hasattr(node, "children"):
        out += _texts(node.children)
    return out


# ------------------------------------------------------------------------------------------------
# Pure builders
# ------------------------------------------------------------------------------------------------


def test_fmt_pct():
    assert rfig.fmt_pct(1.0) == "100%"
    assert rfig.fmt_pct(0.0) == "0%"
    assert rfig.fmt_pct(0.569) == "56.9%"
    assert rfig.fmt_pct(0.0002) == "<0.1%"
    assert rfig.fmt_pct(0.9998) == ">99.9%"
    assert rfig.fmt_pct(0.37 + 0.63 - 1e-15) == "100%"  # a sum of shares that is 1
    assert rfig.fmt_pct(float("nan")) == rfig.fmt_pct(None) == "–"
    assert rfig.tau_text(1.0, 1.0) == "Kendall τ vs defaults: 1.000 · Spearman ρ 1.000"
    assert rfig.tau_text(float("nan")) == "Kendall τ vs defaults: n/a"


def test_a_model_better_on_every_metric_shows_p_rank1_100_percent(hand_result):
    res = hand_result
    assert res.summary["model"].iloc[0] == BEST
    assert res.summary["p_rank1"].iloc[0] == 1.0

    fig = rfig.rank_figure(res.summary, 2)
    bars = {t["name"]: t for t in fig["data"] if t["type"] == "bar"}
    assert bars["P(rank 1)"]["text"][0] == "100%"
    assert bars["P(rank 1)"]["x"][0] == 100.0
    assert bars["P(top 2)"]["text"][0] == "100%"
    assert all(t != "100%" for t in bars["P(rank 1)"]["text"][1:])
    # the interval of the dominant model is the single rank 1
    interval = fig["data"][0]
    assert interval["x"][0] == 1 and interval["error_x"]["array"][0] == 0
    # data names are text: Plotly's three decoded characters escaped, in ticks and hover
    tick = fig["layout"]["yaxis"]["ticktext"][0]
    assert tick == "&lt;b&gt;best&lt;/b&gt; &amp; co"
    assert interval["customdata"][0][0] == tick
    assert "<b>best" not in json.dumps(fig)

    heat = rfig.acceptability_figure(res.acceptability, res.summary)
    z = heat["data"][0]["z"]
    assert z[0][0] == 100.0 and sum(z[0]) == 100.0
    assert heat["data"][0]["text"][0][0] == "100"
    assert "<b>best" not in json.dumps(heat)
    assert heat["layout"]["shapes"][0]["x0"] == 0.5  # current rank 1 outlined

    rows = rtab.summary_rows(res.summary)
    assert rows[0][:2] == ["1", BEST]
    assert rows[0][3] == "1–1"
    assert rows[0][5] == rows[0][6] == "100%"
    view = rtab.results_view(res)
    texts = _texts(view)
    assert "100%" in texts and BEST in texts  # as text (Dash renders strings as text)
    json.dumps(view, cls=PlotlyJSONEncoder)  # the callback's output serialises


def test_leave_one_out_rows_by_hand():
    cfg, raw = hand_made()
    res = rank_robustness(raw, cfg, samples=50, seed=0)
    rows = rtab.loo_rows(res.leave_one_out)
    removed = [r[0] for r in rows]
    assert removed == ["Accuracy", "Speed", "Accuracy/B1", "Accuracy/B2", "Speed/S1"]
    by = dict(zip(removed, rows, strict=True))
    assert by["Accuracy"][2] == BEST and by["Accuracy"][3] == "no"
    assert by["Speed/S1"][1].startswith("benchmark (and its category Speed")
    assert by["Accuracy/B1"][4] == f"{res.leave_one_out['kendall_tau'].iloc[2]:.3f}"
    table = rtab.loo_table(res.leave_one_out)
    assert "yes" not in _texts(table)  # the best model stays best whatever is removed


def test_figures_show_the_best_models_when_there_are_many():
    cfg = mpl.loads_config(TREE)
    rng = np.random.default_rng(1)
    n = 70
    vals = np.column_stack(
        [rng.uniform(0, 10, n), rng.uniform(0.5, 1, n), rng.uniform(1, 5, n), rng.uniform(1, 99, n)]
    )
    raw = raw_matrix(cfg, [f"m{i}" for i in range(n)], vals)
    res = rank_robustness(raw, cfg, samples=100, seed=0)
    fig = rfig.rank_figure(res.summary, 5)
    assert len(fig["layout"]["yaxis"]["ticktext"]) == rfig.MAX_PLOT_MODELS
    assert "best 40 of 70 models" in fig["layout"]["annotations"][0]["text"]
    heat = rfig.acceptability_figure(res.acceptability, res.summary)
    assert len(heat["data"][0]["z"]) == rfig.MAX_PLOT_MODELS
    assert len(heat["data"][0]["z"][0]) == rfig.MAX_HEAT_RANKS
    assert "text" not in heat["data"][0]  # too many cells to write numbers in
    assert len(rtab.summary_rows(res.summary)) == n  # the table lists every model


def test_parse_controls_refuses_what_the_engine_would_refuse():
    kw, problems = rcb.parse_controls(1000, 50, 10, 5, 0)
    assert problems == []
    assert kw == dict(samples=1000, top_k=5, seed=0, concentration=50.0, threshold_jitter=0.1)
    _kw, problems = rcb.parse_controls(0, -1, 150, 1.5, -3)
    assert len(problems) == 5
    _kw, problems = rcb.parse_controls(None, "x", None, True, {"a": 1})
    assert len(problems) == 5
    _kw, problems = rcb.parse_controls(rcb.MAX_SAMPLES + 1, 1e300, 0, 1, 2**40)
    assert {p.split(":")[0] for p in problems} == {"Samples", "Concentration", "Seed"}


def test_run_analysis_and_tau_on_the_engine():
    cfg, raw = hand_made()
    app = create_app(cfg, raw, robustness=False)
    eng = app.score_cache
    calls = []
    ctl = dict(samples=200, concentration=5, jitter=20, top_k=99, seed=3)
    res, msg = rcb.run_analysis(eng, {}, ctl, progress=lambda d, t: calls.append((d, t)))
    assert msg is None and calls[-1] == (200, 200)
    want = rank_robustness(
        raw, cfg, samples=200, seed=3, top_k=4, concentration=5.0, threshold_jitter=0.2
    )
    assert res.summary.equals(want.summary)
    assert res.settings["top_k"] == 4  # capped at the number of models
    # the settings of the changes store are used
    changes = {"Speed": {"weight": 5}}
    res2, _ = rcb.run_analysis(eng, changes, ctl)
    want2 = rank_robustness(
        raw,
        cfg.apply_changes(changes),
        samples=200,
        seed=3,
        top_k=4,
        concentration=5.0,
        threshold_jitter=0.2,
    )
    assert res2.summary.equals(want2.summary)
    assert rcb.run_analysis(eng, {"Nope": {"weight": 1}}, ctl)[0] is None
    assert "Samples" in rcb.run_analysis(eng, {}, dict(ctl, samples=0))[1]
    # tau: 1 at defaults, the engine's value after a change
    assert rcb.tau_for(eng, {}) == (1.0, 1.0)
    swap = {"Accuracy": {"weight": 0.01}, "Speed": {"weight": 10}}
    s0 = mpl.score(raw, cfg).overall["rank"]
    s1 = mpl.score(raw, cfg.apply_changes(swap)).overall["rank"]
    assert rcb.tau_for(eng, swap) == (kendall_tau(s1, s0), spearman_rho(s1, s0))


def _main_children(layout) -> list:
    """The children of the page's main area (the one ``html.Main``)."""
    todo = [layout]
    while todo:
        node = todo.pop()
        if type(node).__name__ == "Main":
            return list(node.children)
        ch = getattr(node, "children", None)
        todo += ch if isinstance(ch, list) else [ch] if ch is not None else []
    raise AssertionError("no main area")


def test_create_app_places_the_tau_line_and_the_panel_in_the_main_area(tmp_path):
    cfg, raw = hand_made()
    app = create_app(cfg, raw, cache_dir=tmp_path / "cache")
    main = _main_children(app.layout)
    names = [getattr(c, "id", None) for c in main]
    i = names.index(ids.GRID_WRAP)
    assert main[i + 1].className == "rob-tau"  # right below the grid
    assert names[-1] == ids.ROB_SECTION and names.count(ids.ROB_SECTION) == 1
    assert ids.ROB_RUN in json.dumps(app.layout, cls=PlotlyJSONEncoder)
    bg = [c for c in app.callback_map.values() if c.get("background")]
    assert len(bg) == 1
    # the tau line has no callback of its own: the server's callback fills it in its response
    tau_out = [k for k in app.callback_map if f"{ids.ROB_TAU}.children" in k]
    assert len(tau_out) == 1 and f"{ids.CHANGES}.data" in tau_out[0]
    assert app.robustness_manager.handle.directory == str(tmp_path / "cache")
    assert app.server.secret_key == app.robustness_manager.secret  # signs the job handles
    assert rcb.tau_line_text(app.score_cache, {}) == rfig.tau_text(1.0, 1.0)
    assert rcb.tau_line_text(app.score_cache, {"Nope": {"weight": 1}}) is None
    # without the view: no piece of it, no manager, no background callback
    quiet = create_app(cfg, raw, robustness=False)
    assert ids.ROB_SECTION not in [getattr(c, "id", None) for c in _main_children(quiet.layout)]
    assert "rob-" not in json.dumps(quiet.layout, cls=PlotlyJSONEncoder)
    assert quiet.robustness_manager is None
    assert not [c for c in quiet.callback_map.values() if c.get("background")]


def test_the_jobs_checks_answer_forged_states_with_a_message(tmp_path):
    cfg, raw = hand_made()
    app = create_app(cfg, raw, cache_dir=tmp_path / "cache")
    swap = {"Accuracy": {"weight": 0.01}, "Speed": {"weight": 10}}
    assert rcb.tau_line_text(app.score_cache, swap) == rfig.tau_text(
        *rcb.tau_for(app.score_cache, swap)
    )
    for junk in ([1, 2], "abc", {"Nope": {"weight": 1}}, {"Speed": {"weight": "x" * 1000}}):
        assert rcb.tau_line_text(app.score_cache, junk) is None, junk
    # the job's own checks: junk changes or controls give a message, never an exception
    for junk in ([1, 2], "abc", None, {"Speed": {"weight": -1}}):
        res, msg = rcb.run_analysis(
            app.score_cache, junk, dict(samples=10, concentration=1, jitter=0, top_k=1, seed=0)
        )
        assert (res is None and "not valid" in msg) or (junk is None and res is not None)
    res, msg = rcb.run_analysis(
        app.score_cache, {}, dict(samples="1e9", concentration="inf", jitter="nan")
    )
    assert res is None and "Samples" in msg and "Threshold jitter" in msg


def test_engine_token_names_the_data():
    cfg, raw = hand_made()
    a, b = (
        create_app(cfg, raw, robustness=False).score_cache,
        create_app(cfg, raw, robustness=False).score_cache,
    )
    assert rcb.engine_token(a) == rcb.engine_token(b)
    raw2 = raw_matrix(cfg, list(ROWS), np.asarray(list(ROWS.values())) * 1.01)
    assert rcb.engine_token(create_app(cfg, raw2).score_cache) != rcb.engine_token(a)


# ------------------------------------------------------------------------------------------------
# Browser: the demo data
# ------------------------------------------------------------------------------------------------

RUN = dict(samples="300", concentration="20", jitter="15", topk="3", seed="5")


def _page(browser, url: str):
    seen = open_dashboard(browser, url)
    return seen.page, seen.problems


def _run(page, **values) -> None:
    for key, value in values.items():
        page.fill(f"#rob-{key}", value)
    page.click("#rob-run")
    # bounded waits: the job starts, then its result replaces the placeholder
    page.wait_for_selector(".rob-headline", timeout=40_000)
    page.wait_for_function(
        "() => !document.querySelector('#rob-run').disabled"
        " && !document.querySelector('#rob-progress-wrap').classList.contains('on')",
        timeout=20_000,
    )
    for fig in ("#rob-rank-fig", "#rob-heat-fig"):  # plotly.js draws them (loaded on demand)
        page.wait_for_selector(f"{fig} .main-svg .ytick text", timeout=20_000)


def _job_processes() -> list:
    """Background jobs: the live children of this process running its own executable (forked
    Python processes; not Chromium, not Playwright's driver)."""
    me = psutil.Process().exe()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        jobs = []
        for p in psutil.Process().children():
            try:
                if p.is_running() and p.exe() == me:
                    jobs.append(p)
            except psutil.Error:
                pass
        if jobs:
            return jobs
        time.sleep(0.05)
    return []


def _tau(page) -> str:
    return page.inner_text("#rob-tau")


def _wait_tau(page, text: str) -> None:
    page.wait_for_function(
        "(t) => { const e = document.querySelector('#rob-tau'); return e && e.textContent === t; }",
        arg=text,
        timeout=15_000,
    )


@pytest.fixture(scope="module")
def browser():
    require_browser()
    with chromium() as b:  # one Playwright per module (the sync API cannot nest)
        yield b


@pytest.fixture(scope="module")
def demo(browser, tmp_path_factory):
    if not (DEMO / "config.yml").is_file():
        pytest.skip("data/demo is not built (python data/build_demo.py)")
    cfg, raw = load_dataset(DEMO)
    # the production setup: create_app attaches the view and fills the tau line from the
    # main callback's response
    app = create_app(cfg, raw, cache_dir=tmp_path_factory.mktemp("rob-cache"))
    with live_server(app) as url:
        yield cfg, raw, url, browser


@pytest.mark.browser
def test_run_shows_what_rank_robustness_computes(demo):
    cfg, raw, url, browser = demo
    page, problems = _page(browser, url)
    assert page.is_disabled("#rob-cancel") and not page.is_disabled("#rob-run")
    _run(page, **RUN)
    want = rank_robustness(
        raw, cfg, samples=300, seed=5, top_k=3, concentration=20.0, threshold_jitter=0.15
    )
    top = want.summary.iloc[0]
    shown = rfig.fmt_pct(top["p_rank1"])
    assert page.inner_text(".rob-top") == top["model"] == want.scalars["top_model"]
    assert page.inner_text("#rob-p-top") == shown
    # the table of every model and the P(rank 1) bars say the same
    first = page.locator("table.rob-summary tbody tr").first
    cells = [c.strip() for c in first.locator("td").all_text_contents()]
    assert cells == rtab.summary_rows(want.summary)[0]
    bar_texts = page.locator("#rob-rank-fig .bars .bartext").all_text_contents()
    assert shown in bar_texts
    assert "300 samples, seed 5" in page.inner_text(".rob-method")
    # leave one out: one row per removal, the engine's tau
    loo = page.locator("table.rob-loo tbody tr")
    assert loo.count() == len(want.leave_one_out)
    assert loo.first.locator("td").nth(4).inner_text() == (
        f"{want.leave_one_out['kendall_tau'].iloc[0]:.3f}"
    )
    assert page.locator("#rob-heat-fig .heatmaplayer").count() == 1
    if os.environ.get("MPL_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate("document.querySelector('#robustness').scrollIntoView()")
        page.wait_for_timeout(400)
        page.screenshot(path=str(SHOTS / "robustness.png"))

    # an edit afterwards: the tau line follows at once, the results say they are stale
    assert _tau(page).startswith("Kendall τ vs defaults: 1.000")
    cat = cfg.categories[0].name
    box = page.locator(f"input[name='{cat}.weight']")
    box.fill("6")
    box.press("Enter")
    new = cfg.apply_changes({cat: {"weight": 6.0}})
    r0, r1 = mpl.score(raw, cfg).overall["rank"], mpl.score(raw, new).overall["rank"]
    _wait_tau(page, rfig.tau_text(kendall_tau(r1, r0), spearman_rho(r1, r0)))
    page.wait_for_selector(".rob-stale.on", timeout=10_000)
    assert page.inner_text(".rob-stale") == rlay.STALE_TEXT
    assert not problems


@pytest.mark.browser
def test_cancel_stops_a_long_run(demo):
    cfg, raw, url, browser = demo
    page, problems = _page(browser, url)
    page.fill("#rob-samples", str(rcb.MAX_SAMPLES))  # about 4 s on the demo: time to Cancel
    page.click("#rob-run")
    page.wait_for_selector("#rob-progress-wrap.on", timeout=10_000)
    assert page.is_disabled("#rob-run") and not page.is_disabled("#rob-cancel")
    jobs = _job_processes()
    assert jobs  # the run is a forked process of this (server) process
    page.click("#rob-cancel")
    page.wait_for_function("() => !document.querySelector('#rob-run').disabled", timeout=15_000)
    _gone, alive = psutil.wait_procs(jobs, timeout=10)
    assert not alive  # Cancel killed the job
    assert page.is_disabled("#rob-cancel")
    assert page.locator(".rob-headline").count() == 0  # no result from the cancelled job
    assert not problems


@pytest.mark.browser
def test_tau_line_is_1_at_defaults_and_follows_the_url_state(demo):
    cfg, raw, url, browser = demo
    page, problems = _page(browser, url)
    assert _tau(page) == "Kendall τ vs defaults: 1.000 · Spearman ρ 1.000"
    a, b = cfg.categories[0].name, cfg.categories[-1].name
    changes = {a: {"weight": 0.05}, b: {"weight": 8.0}}
    page.goto(url + make_query(changes))
    r0 = mpl.score(raw, cfg).overall["rank"]
    r1 = mpl.score(raw, cfg.apply_changes(changes)).overall["rank"]
    tau, rho = kendall_tau(r1, r0), spearman_rho(r1, r0)
    assert tau < 0.999
    _wait_tau(page, rfig.tau_text(tau, rho))
    assert re.fullmatch(r"Kendall τ vs defaults: -?\d\.\d{3} · Spearman ρ -?\d\.\d{3}", _tau(page))
    # the analysis then runs on the linked settings
    _run(page, samples="200", seed="1")
    want = rank_robustness(raw, cfg.apply_changes(changes), samples=200, seed=1)
    assert page.inner_text("#rob-p-top") == rfig.fmt_pct(want.scalars["p_top_model_stays_first"])
    assert page.locator(".rob-stale.on").count() == 0
    assert not problems


# ------------------------------------------------------------------------------------------------
# Browser: awkward names are text
# ------------------------------------------------------------------------------------------------


@pytest.mark.browser
def test_html_in_names_is_shown_as_text(browser, tmp_path):
    cfg, raw = small_dataset(tmp_path / "small")
    app = create_app(cfg, raw, cache_dir=tmp_path / "cache")
    with live_server(app) as url:
        page, problems = _page(browser, url)
        page.evaluate("window.__pwned = 0")
        _run(page, samples="100")
        xss = "<script>alert(1)</script>"
        cells = page.locator("table.rob-summary td").all_text_contents()
        assert xss in cells
        ticks = page.locator("#rob-rank-fig .ytick text").all_text_contents()
        assert xss in ticks
        speed = next(c.name for c in cfg.categories if "<script>" in c.name)
        assert speed in page.locator("table.rob-loo td").all_text_contents()
        assert page.locator("table.rob-loo b, table.rob-summary script").count() == 0
        assert not problems
