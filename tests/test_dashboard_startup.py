"""The fast start: what ``ml-peg-like serve`` imports before it serves (no pandas with
a binary raw cache), the layout and callbacks preloaded by the page's head, the collector
off during the start and frozen before serving, the async chunks the first page loads with its
scripts (the grid's, the dropdown's, the upload's; never Plotly's), the score memo's bound in
bytes and the malloc settings of the serve process."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest
from browser_utils import (
    chromium,
    live_server,
    open_dashboard,
    require_browser,
    small_dataset,
    write_small_dataset,
)
from test_dashboard_browser import expect, wait_column

from ml_peg_like import config_from_dict, raw_from_frame, score
from ml_peg_like.cli import serve as cli_serve
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.cache import CACHE_BYTES, ScoreCache, entry_bytes
from ml_peg_like.dashboard.components.editing.liveedit import RAW_ROUTE
from ml_peg_like.dashboard.firstpage import EAGER_CHUNKS, PRELOADS
from ml_peg_like.dashboard.state import make_query

#: modules the first page never uses: the export writers' workbook library, the converters and
#: the compute kernels (each loaded by the command or the click that needs it)
NOT_AT_START = (
    "openpyxl",
    "ml_peg_like.compute",
    "ml_peg_like.io.mlpeg",
    "ml_peg_like.io.matbench",
    "ml_peg_like.io.lips",
    "ml_peg_like.io.extxyz",
)


def _run_fresh(code: str, tmp_path) -> dict:
    """Run ``code`` in a fresh interpreter (its private cache in ``tmp_path``); the JSON it
    printed last."""
    env = {**os.environ, "ML_PEG_LIKE_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _chunk_url(ns: str, path: str) -> str:
    return f"/_dash-component-suites/{ns}/{path}"


def test_serve_starts_without_what_the_first_page_does_not_need(tmp_path):
    """``ml-peg-like serve DIR`` up to serving, in a fresh interpreter: none of NOT_AT_START is
    imported, the collector is off while the app is made, and ``run_app`` freezes what exists
    and turns the collector back on before it serves."""
    data = write_small_dataset(tmp_path / "small")
    code = textwrap.dedent(
        f"""
        import gc, json, sys
        import dash
        import ml_peg_like.dashboard as d
        from ml_peg_like.cli import main
        from ml_peg_like.serving.earlypage import EarlyServer
        seen = {{}}
        real_run_app = d.run_app
        def run_app(app, **kw):
            seen["gc_on_at_run_app"] = gc.isenabled()
            seen["imported"] = sorted(m for m in {list(NOT_AT_START)!r} if m in sys.modules)
            def run(self, *a, **k):
                seen["gc_on_when_serving"] = gc.isenabled()
                seen["frozen"] = gc.get_freeze_count()
            dash.Dash.run = run
            EarlyServer.serve = lambda self: run(None)  # the server listening since the start
            return real_run_app(app, **kw)
        d.run_app = run_app
        code = main(["serve", {str(data)!r}, "--port", "0"])
        seen["exit"] = code
        print(json.dumps(seen))
        """
    )
    seen = _run_fresh(code, tmp_path)
    assert seen["imported"] == []
    assert seen["gc_on_at_run_app"] is False
    assert seen["gc_on_when_serving"] is True
    assert seen["frozen"] > 10_000  # the imports, the data and the layout
    assert seen["exit"] == 0


def test_a_failed_start_turns_the_collector_back_on(tmp_path):
    """A start that fails (a bad data directory) leaves the collector as it found it."""
    assert gc.isenabled()
    args = cli_serve.add_parser(
        __import__("argparse").ArgumentParser().add_subparsers()
    ).parse_args([str(tmp_path / "missing"), "--port", "0"])
    with pytest.raises(Exception):  # noqa: B017 (the CLI turns it into one line, exit code 2)
        cli_serve.run(args)
    assert gc.isenabled()


def test_the_first_page_loads_the_grid_and_dropdown_chunks_with_its_scripts(tmp_path):
    cfg, raw = small_dataset(tmp_path)
    client = create_app(cfg, raw).server.test_client()
    html = client.get("/").get_data(as_text=True)
    srcs = re.findall(r'<script src="([^"]+)"', html)
    renderer = next(i for i, s in enumerate(srcs) if "dash_renderer" in s)
    inline_renderer = html.index('id="_dash-renderer"')
    for ns, path in EAGER_CHUNKS:
        url = _chunk_url(ns, path)
        assert srcs.count(url) == 1, url
        # after the bundles (the renderer's runtime exists), before the renderer starts
        assert srcs.index(url) > renderer and html.index(url) < inline_renderer
        r = client.get(url)
        assert r.status_code == 200 and "javascript" in r.content_type
        assert len(r.data) > 10_000  # the chunk itself, not an error page
    assert not [s for s in srcs if "async-graph" in s or "plotly" in s.lower()]
    # a link with a sort: the grid waits for its chunk (and so for the link's columns)
    linked = client.get("/?v=Classification%2FIris&sort=n1.desc").get_data(as_text=True)
    assert not [u for ns, p in EAGER_CHUNKS if (u := _chunk_url(ns, p)) in linked]
    assert client.get("/?v=Classification%2FIris").get_data(as_text=True).count("async-") == 3


def test_the_first_page_preloads_its_layout_and_callbacks(tmp_path):
    """The page's head asks for the layout and the callbacks (what the renderer fetches once its
    scripts ran) and the board's raw matrix (what live.js fetches), with the fetches' request mode, on every page (a link's too); what it asks
    for is what the renderer gets."""
    cfg, raw = small_dataset(tmp_path)
    client = create_app(cfg, raw).server.test_client()
    for query in ("", "?v=Classification%2FIris&sort=n1.desc"):
        html = client.get("/" + query).get_data(as_text=True)
        head = html[: html.index("</head>")]
        links = re.findall(r"<link ([^>]*)>", head)
        preloads = [a for a in links if 'rel="preload"' in a]
        assert [re.search(r'href="([^"]+)"', a)[1] for a in preloads] == [f"/{p}" for p in PRELOADS]
        assert all('as="fetch"' in a and 'crossorigin="anonymous"' in a for a in preloads)
    for path in PRELOADS:
        r = client.get("/" + path)
        if path == RAW_ROUTE:  # the board's raw matrix (live.js fetches it): 8 bytes a value
            n_values = len(raw.models) * len(cfg.metric_ids())
            assert r.status_code == 200 and len(r.get_data()) == 8 * n_values > 0
            continue
        assert r.status_code == 200 and r.is_json and r.get_json()


def _synthetic(n_models: int, n_cat: int, n_bench: int, n_metric: int, seed: int = 3):
    cats = {
        f"C{i}": {
            "benchmarks": {
                f"B{i}.{j}": {
                    "metrics": {f"M{k}": {"good": 1.0, "bad": 0.0} for k in range(n_metric)}
                }
                for j in range(n_bench)
            }
        }
        for i in range(n_cat)
    }
    cfg = config_from_dict({"title": "t", "missing": "skip", "categories": cats})
    import pandas as pd

    ids_ = cfg.metric_ids()
    rng = np.random.default_rng(seed)
    wide = pd.DataFrame(
        rng.uniform(0, 1, size=(n_models, len(ids_))), columns=[f"{b}/{m}" for b, m in ids_]
    )
    wide.insert(0, "model", [f"m{i}" for i in range(n_models)])
    return cfg, raw_from_frame(wide, cfg)


def test_a_cached_start_needs_no_pandas_and_the_server_warms_it(tmp_path, monkeypatch):
    """Data with a binary raw cache (a raw file above ``rawcache.MIN_BYTES``): in a fresh
    interpreter ``ml-peg-like serve DIR`` makes the app and answers the page, its scripts and
    ``/health`` without importing pandas (``lazy.py``); the layout's route imports it first
    (``warm.py``), and the server's background thread imports it once it serves."""
    from ml_peg_like import dump_config, load_dataset
    from ml_peg_like.support import rawcache

    cfg, raw = _synthetic(120, 3, 4, 10)
    data = tmp_path / "cached"
    data.mkdir()
    (data / "config.yml").write_text(dump_config(cfg), encoding="utf-8")
    raw.to_long(cfg).to_csv(data / "raw_metrics.csv", index=False, float_format="%.10g")
    assert (data / "raw_metrics.csv").stat().st_size > rawcache.MIN_BYTES
    monkeypatch.setenv("ML_PEG_LIKE_CACHE_DIR", str(tmp_path / "cache"))  # the child's
    load_dataset(data)  # builds the cache
    code = textwrap.dedent(
        f"""
        import json, re, sys, threading
        import dash
        import ml_peg_like.dashboard as d
        from ml_peg_like.cli import main
        from ml_peg_like.serving.earlypage import EarlyServer
        from ml_peg_like.support.lazy import lazy_module
        seen = {{}}
        real_run_app = d.run_app
        def run_app(app, **kw):
            client = app.server.test_client()
            page = client.get("/").get_data(as_text=True)
            script = re.findall(r'<script src="([^"]+)"', page)[0]
            seen["static"] = [client.get(p).status_code for p in ("/health", script)]
            seen["at_serve"] = "pandas" in sys.modules
            seen["layout"] = client.get("/_dash-layout").status_code
            seen["after_layout"] = "pandas" in sys.modules
            def run(self, *a, **k):
                for t in threading.enumerate():
                    if t.name == "warm-imports":
                        t.join()
                seen["warmed"] = app.warmer.done.is_set()
            dash.Dash.run = run
            EarlyServer.serve = lambda self: run(None)  # the server listening since the start
            return real_run_app(app, **kw)
        d.run_app = run_app
        seen["exit"] = main(["serve", {str(data)!r}, "--port", "0"])
        pd = lazy_module("pandas")
        seen["lazy_is_module"] = pd is sys.modules["pandas"]
        print(json.dumps(seen))
        """
    )
    seen = _run_fresh(code, tmp_path)
    assert seen == {
        "static": [200, 200],
        "at_serve": False,
        "layout": 200,
        "after_layout": True,
        "warmed": True,
        "exit": 0,
        "lazy_is_module": True,
    }


def test_dynamic_routes_wait_for_the_warm_imports(tmp_path, monkeypatch):
    """While the warm import runs (a module that blocks until the test lets it go), the page, a
    script and ``/health`` answer; the layout's request waits for the import to end (a
    half-imported pandas breaks Plotly's JSON encoder: the 400 this prevents)."""
    import builtins
    import threading

    from ml_peg_like.serving import warm

    gate = threading.Event()
    monkeypatch.setattr(builtins, "_mpl_warm_test_gate", gate, raising=False)
    (tmp_path / "mpl_slow_module.py").write_text(
        "import builtins\nbuiltins._mpl_warm_test_gate.wait(30)\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mpl_slow_module", raising=False)
    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    app.warmer.names = ("mpl_slow_module",)
    client = app.server.test_client()
    thread = app.warmer.start()
    try:
        page = client.get("/")
        script = re.findall(r'<script src="([^"]+)"', page.get_data(as_text=True))[0]
        assert [page.status_code, client.get(script).status_code] == [200, 200]
        assert client.get("/health").status_code == 200
        assert not app.warmer.done.is_set()
        got = {}
        asker = threading.Thread(
            target=lambda: got.update(layout=client.get("/_dash-layout").status_code)
        )
        asker.start()
        asker.join(0.3)
        assert got == {} and asker.is_alive()  # waiting for the import
    finally:
        gate.set()
    asker.join(30)
    thread.join(30)
    assert got == {"layout": 200} and app.warmer.done.is_set()
    assert [warm.needs_warm(p) for p in ("/", "/health", "/_dash-layout")] == [False, False, True]
    assert warm.needs_warm("/_dash-update-component") and warm.needs_warm("/_dash-layout")
    assert not warm.needs_warm("/_dash-component-suites/dash/dcc/async-dropdown.js")
    assert warm.needs_warm("/app/_dash-layout", "/app/")
    assert not warm.needs_warm("/app/assets/style.css", "/app/")


def test_a_lazy_module_imports_on_first_use():
    """``lazy_module``'s stand-in imports its module when an attribute is first read."""
    code = textwrap.dedent(
        """
        import json, sys
        from ml_peg_like.support.lazy import lazy_module
        fr = lazy_module("fractions")
        seen = [("fractions" in sys.modules)]
        half = fr.Fraction(1, 2)
        seen += ["fractions" in sys.modules, str(half + fr.Fraction(1, 3)), "Fraction" in dir(fr)]
        print(json.dumps(seen))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, True, "5/6", True]


def test_the_score_memo_holds_at_most_its_bytes():
    """Distinct states beyond the memo's size: the memo's entries, measured by tracemalloc, stay
    within CACHE_BYTES (+ 25 %), and one entry costs no more than ``entry_bytes`` says."""
    cfg, raw = _synthetic(30, 6, 6, 9)  # 30 models x 324 metrics: ML-PEG's shape
    cache = ScoreCache(cfg, raw)
    path = cfg.metric_paths()[0]
    n = cache._size
    assert 4 <= n == CACHE_BYTES // entry_bytes(cache.values.size, len(cache.paths))

    def fill(start: int, count: int) -> None:
        for k in range(start, start + count):
            cache.scores_for({path: {"good": 0.9 + k * 1e-6}})

    fill(0, 2)  # the first entries build what every later one shares (code paths, interning)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        fill(2, 1)
        gc.collect()
        one = tracemalloc.get_traced_memory()[0] - before
        fill(3, 3 * n)  # far more states than the memo keeps
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(cache._memo) == n
    assert one <= 1.25 * entry_bytes(cache.values.size, len(cache.paths)), one
    assert held <= 1.25 * CACHE_BYTES, f"{held / 2**20:.1f} MiB held"


def test_tune_malloc_bounds_the_mmap_threshold_by_the_matrix():
    """In a fresh interpreter (the settings are the process's): blocks above max(256 KiB,
    2 x the raw matrix, at most 32 MiB) are mmapped; 2 arenas. Not glibc: nothing is set."""
    code = textwrap.dedent(
        """
        import json, os
        for k in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_ARENA_MAX"):
            os.environ.pop(k, None)
        from ml_peg_like.cli.serve import tune_malloc
        print(json.dumps([tune_malloc(b) for b in (8_000, 8_000_000, 80_000_000)]))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    small, mid, big = json.loads(out.stdout)
    if not small:
        assert sys.platform != "linux" or "glibc" not in " ".join(__import__("platform").libc_ver())
        pytest.skip("not glibc: tune_malloc sets nothing")
    m, a = str(cli_serve.M_MMAP_THRESHOLD), str(cli_serve.M_ARENA_MAX)
    assert small == {m: 256 * 1024, a: 2}
    assert mid == {m: 16_000_000, a: 2}
    assert big == {m: 32 * 1024 * 1024, a: 2}


# ------------------------------------------------------------------------------------------------
# Browser: the first page
# ------------------------------------------------------------------------------------------------


@pytest.mark.browser
def test_first_page_default_and_linked_state(tmp_path):
    """The default first page: each eager chunk fetched once, no Plotly, and no callback answers
    with data (the rows are in the layout). A link holding a state and a benchmark view: the
    engine's scores for that state, and Plotly loads for the curve it shows."""
    require_browser()
    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)  # a fresh context: a cold cache
        page = seen.page
        page.wait_for_timeout(300)
        wait_column(page, "o", expect(score(raw, cfg), "overall", None))
        entries = page.evaluate(
            """() => performance.getEntriesByType('resource')
                 .map(e => [new URL(e.name).pathname, e.startTime])"""
        )
        loaded = [u for u, _t in entries]
        scripts_done = page.evaluate(
            """() => performance.getEntriesByType('resource')
                 .find(e => e.name.includes('dash_renderer')).responseEnd"""
        )
        for ns, path in EAGER_CHUNKS:
            assert loaded.count(_chunk_url(ns, path)) == 1, (path, loaded)
            # with the page's scripts, not after the renderer has drawn the layout
            assert next(t for u, t in entries if u == _chunk_url(ns, path)) < scripts_done
        for path in PRELOADS:  # preloaded with the scripts, and the renderer used the preload
            assert loaded.count("/" + path) == 1, (path, loaded)
            assert next(t for u, t in entries if u == "/" + path) < scripts_done
        assert not [u for u in loaded if "plotly" in u or "async-graph" in u]
        assert all(s == 204 for s in seen.callback_statuses), seen.callback_statuses
        assert seen.problems == []
        seen.page.context.close()

        changes = {"Classification/Iris/Accuracy": {"good": 0.95, "bad": 0.6}}
        linked = open_dashboard(browser, url + "/" + make_query(changes, "Classification/Iris"))
        page = linked.page
        want = expect(score(raw, cfg.apply_changes(changes)), "overall", None)
        wait_column(page, "o", want)
        page.wait_for_selector("#curve-holder .js-plotly-plot", timeout=30_000)
        loaded = page.evaluate(
            "() => performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)"
        )
        assert any("async-graph" in u for u in loaded)
        assert linked.problems == []
        page.context.close()
