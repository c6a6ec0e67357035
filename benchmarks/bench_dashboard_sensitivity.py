#!/usr/bin/env python
"""(Kept from main at the issue-15 merge: bench_dashboard.py now spawns `serve` and compares
full table vs row deltas; this file keeps the in-process --sensitivity comparison.)

    python benchmarks/bench_dashboard_sensitivity.py --sensitivity --only ml-peg,large --edits 15

Dashboard latency in headless Chromium: committed threshold edit -> last updated cell of the
overall score column, median of N edits, for three data sets:

  (a) demo      data/demo (20 models)
  (b) ml-peg    30 models x the 77 benchmarks / 339 metrics / 18 categories of
                ../shared/anchors/ml-peg/configs, seeded synthetic raw values (3 % missing,
                policy 'skip' so that overall scores exist)
  (c) large     1,000 models x 1,000 metrics (10 categories x 10 benchmarks x 10 metrics)

Also: first render (navigation start -> first overall cell in the DOM, from the browser's own
clock) and the size of one edit's response. The app is served in-process (werkzeug, threaded) on
a random loopback port, as in the browser tests.

    python benchmarks/bench_dashboard.py [--edits 12] [--only demo,ml-peg,large] [--sensitivity]
    python benchmarks/bench_dashboard_sensitivity.py --base /work/main --data DIR --edits 30

``--base CHECKOUT --data DIR``: the intervals' cost (on / off ratio) of this tree and of
CHECKOUT in one run (four spawned servers, every value typed into all four; ``compare_base``).

``--sensitivity``: the edit latency of each data set with the stability intervals (and dominance
marks) shown and without (``create_app(sensitivity=False)``), interleaved edit by edit in one run
(see ``compare_sensitivity``), and the ratio.

Timing: a capture-phase keydown listener stamps the Enter that commits the box; a
MutationObserver on the grid stamps the first DOM mutation after which every rendered cell of
the table's Overall column shows the engine's value for the edited config (formatted by the
Python twin of the grid's formatter). The edit is made in the benchmark view, whose table pins
the Overall column beside the metric columns.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

# the data sets are bench_dashboard.py's (one generator for both scripts)
from bench_dashboard import (  # noqa: E402
    ANCHORS,
    INSTALL,
    influential_metric,
    large_config,
    mlpeg_config,
    synthetic_raw,
    timed_edit,
    typed_edit,
)
from browser_utils import chromium, live_server  # noqa: E402

from ml_peg_like import config_from_dict, load_dataset, score  # noqa: E402
from ml_peg_like.dashboard import create_app  # noqa: E402
from ml_peg_like.dashboard.state import make_query  # noqa: E402
from ml_peg_like.dashboard.tables import fmt_score  # noqa: E402


def datasets(only: set[str]):
    if "demo" in only:
        yield "demo", *load_dataset(ROOT / "data" / "demo")
    if "ml-peg" in only:
        if not ANCHORS.is_dir():
            print(f"(b) skipped: {ANCHORS} not found")
        else:
            cfg = config_from_dict(mlpeg_config())
            yield "ml-peg", cfg, synthetic_raw(cfg, 30, seed=42)
    if "large" in only:
        cfg = config_from_dict(large_config())
        yield "large", cfg, synthetic_raw(cfg, 1000, seed=7)


# ------------------------------------------------------------------------------------------------
# measurement
# ------------------------------------------------------------------------------------------------


def measure(name: str, cfg, raw, n_edits: int, sensitivity: bool = True) -> dict:
    app = create_app(cfg, raw, sensitivity=sensitivity)
    path = influential_metric(cfg)
    metric = cfg.node(path)
    bench_view = path.rsplit("/", 1)[0]
    good0, bad0 = metric.good, metric.bad
    candidates = [good0 + f * (bad0 - good0) for f in (0.0, 0.45, 0.2, 0.6, 0.1, 0.35)]
    result: dict = {"name": name, "models": len(raw.models), "metrics": len(cfg.metric_paths())}
    with live_server(app) as url, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        sizes: list[int] = []
        posts: list[int] = []

        def on_response(r):
            if "_dash-update-component" in r.url:
                posts.append(1)
                try:
                    sizes.append(len(r.body()))
                except Exception:  # noqa: BLE001 (a 204 has no body)
                    sizes.append(0)

        page.on("response", on_response)
        # first render of the overview (cold browser cache: a fresh page in a fresh browser)
        t = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("#grid .ag-cell[col-id='o']")
        result["first_render_ms"] = page.evaluate("() => performance.now()")
        result["first_render_wall_ms"] = (time.perf_counter() - t) * 1000
        # the benchmark view, by URL
        page.goto(url + "/" + make_query({}, bench_view))
        page.wait_for_selector(f"input[name='{path}.good']")
        page.wait_for_selector("#grid .ag-cell[col-id='o']")
        page.wait_for_timeout(300)
        page.evaluate(INSTALL)
        times, last = [], None
        i = 0
        for _k in range(n_edits + 40):
            if len(times) >= n_edits:
                break
            value = candidates[(i + 1) % len(candidates)]
            i += 1
            n_before = len(posts)
            t_done = timed_edit(page, raw, cfg, path, value)
            if t_done is None:
                continue  # this edit would not change a rendered cell: not measurable
            times.append(t_done)
            page.wait_for_timeout(150)
            last = sizes[-1] if sizes else None
            result.setdefault("posts_per_edit", []).append(len(posts) - n_before)
        result["edit_ms"] = times
        result["median_ms"] = statistics.median(times) if times else float("nan")
        result["edit_response_bytes"] = last
    return result


def _timed(app, sink: list[float]):
    """Record the server time of every callback request of ``app`` (ms) in ``sink``."""
    inner = app.server.wsgi_app

    def wrapper(environ, start_response):
        t = time.perf_counter()
        body = list(inner(environ, start_response))
        if environ.get("PATH_INFO", "").endswith("_dash-update-component"):
            sink.append((time.perf_counter() - t) * 1000)
        return body

    app.server.wsgi_app = wrapper
    return app


def compare_sensitivity(name: str, cfg, raw, n_edits: int) -> dict:
    """Edit latency with the intervals shown and without, interleaved edit by edit.

    Two apps (``create_app(sensitivity=True / False)``) are served side by side, a page of one
    browser on each; every value is typed into both pages, one after the other, the order
    flipped every time (a shared machine drifts: interleaving spreads the drift over both).
    Every value is new (no memo holds its state). Server time per edit from a WSGI wrapper."""
    server: dict[bool, list[float]] = {False: [], True: []}
    apps = {on: _timed(create_app(cfg, raw, sensitivity=on), server[on]) for on in (False, True)}
    path = influential_metric(cfg)
    metric = cfg.node(path)
    bench_view = path.rsplit("/", 1)[0]
    fracs = np.random.default_rng(3).permutation(np.linspace(0.0, 0.6, 2 * n_edits + 24))
    values = [metric.good + f * (metric.bad - metric.good) for f in fracs]
    lat: dict[bool, list[float]] = {False: [], True: []}
    srv: dict[bool, list[float]] = {False: [], True: []}
    with (
        live_server(apps[False]) as url_off,
        live_server(apps[True]) as url_on,
        chromium() as browser,
    ):
        pages = {}
        for on, url in ((False, url_off), (True, url_on)):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url + "/" + make_query({}, bench_view))
            page.wait_for_selector(f"input[name='{path}.good']")
            page.wait_for_selector("#grid .ag-cell[col-id='o']")
            page.wait_for_timeout(300)
            page.evaluate(INSTALL)
            pages[on] = page
        for k, value in enumerate(values):
            if min(len(lat[False]), len(lat[True])) >= n_edits:
                break
            new = score(raw, cfg.apply_changes({path: {"good": value}}))
            expected = {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}
            for on in (False, True) if k % 2 == 0 else (True, False):
                page = pages[on]
                n_before = len(server[on])
                t_done = typed_edit(page, path, repr(float(value)), expected)
                page.wait_for_timeout(150)
                if k >= 2:  # the first two values warm both up
                    lat[on].append(t_done)
                    srv[on].append(sum(server[on][n_before:]))
    off, on = statistics.median(lat[False]), statistics.median(lat[True])
    q_off, q_on = (statistics.quantiles(lat[x], n=4) for x in (False, True))
    s_off, s_on = statistics.median(srv[False]), statistics.median(srv[True])
    print(
        f"{name:7s} {len(raw.models):5d} models x {len(cfg.metric_paths()):5d} metrics: "
        f"edit -> overall column median without intervals {off:.0f} ms, with {on:.0f} ms "
        f"(n={len(lat[True])} each, interleaved): ratio {on / off:.3f} ({100 * (on / off - 1):+.1f} %, "
        f"target <= +15 %); quartiles {q_off[0]:.0f}-{q_off[2]:.0f} / {q_on[0]:.0f}-{q_on[2]:.0f} ms; "
        f"server median {s_off:.0f} / {s_on:.0f} ms",
        flush=True,
    )
    return {"off": off, "on": on, "server_off": s_off, "server_on": s_on}


#: a server of one checkout's app, intervals on or off (run with cwd=CHECKOUT: its package)
SERVE = """import sys
from werkzeug.serving import run_simple
from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app
cfg, raw = load_dataset(sys.argv[1])
app = create_app(cfg, raw, sensitivity=sys.argv[2] == "on")
run_simple("127.0.0.1", int(sys.argv[3]), app.server, threaded=True)
"""


def _spawn(tree: Path, data: Path, on: bool):
    import os
    import socket
    import subprocess
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    args = [sys.executable, "-c", SERVE, str(data), "on" if on else "off", str(port)]
    proc = subprocess.Popen(
        args, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    while True:
        try:
            urllib.request.urlopen(url + "/_dash-layout", timeout=2).read()
            return proc, url
        except OSError:
            if proc.poll() is not None or time.perf_counter() - t0 > 180:
                raise RuntimeError(f"{tree}: the server did not start") from None
            time.sleep(0.05)


def compare_base(base: Path, data: Path, n_edits: int) -> None:
    """The intervals' cost in this tree and in ``base`` in one run: four servers (each tree,
    intervals on and off; ``create_app`` of a copy of ``data``), a page on each, every new
    threshold value typed into all four in a rotating order."""
    import shutil

    cfg, raw = load_dataset(data)
    path = influential_metric(cfg)
    metric = cfg.node(path)
    bench_view = path.rsplit("/", 1)[0]
    fracs = np.random.default_rng(3).permutation(np.linspace(0.0, 0.6, 2 * n_edits + 24))
    values = [metric.good + f * (metric.bad - metric.good) for f in fracs]
    keys = [(t, on) for t in ("base", "new") for on in (False, True)]
    trees = {"base": base, "new": ROOT}
    lat: dict = {k: [] for k in keys}
    procs = []
    with tempfile.TemporaryDirectory() as tmp, chromium() as browser:
        try:
            pages = {}
            for t, on in keys:
                d = Path(tmp) / f"{t}-{on}"
                shutil.copytree(data, d)
                proc, url = _spawn(trees[t], d, on)
                procs.append(proc)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(url + "/" + make_query({}, bench_view))
                page.wait_for_selector(f"input[name='{path}.good']", timeout=120_000)
                page.wait_for_selector("#grid .ag-cell[col-id='o']")
                page.wait_for_timeout(300)
                page.evaluate(INSTALL)
                pages[(t, on)] = page
            for k, value in enumerate(values[: n_edits + 2]):
                new = score(raw, cfg.apply_changes({path: {"good": value}}))
                expected = {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}
                order = keys[k % 4 :] + keys[: k % 4]
                for key in order if k % 2 == 0 else order[::-1]:
                    page = pages[key]
                    t_done = typed_edit(page, path, repr(float(value)), expected)
                    page.wait_for_timeout(150)
                    if k >= 2:  # the first two values warm them up
                        lat[key].append(t_done)
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(10)
    for t in trees:
        off, on = statistics.median(lat[(t, False)]), statistics.median(lat[(t, True)])
        print(
            f"{t:4s} ({trees[t]}): {len(raw.models)} models x {len(cfg.metric_paths())} "
            f"metrics, {len(lat[(t, True)])} edits: without intervals {off:.0f} ms, with "
            f"{on:.0f} ms: ratio {on / off:.3f}",
            flush=True,
        )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edits", type=int, default=12)
    p.add_argument("--only", default="demo,ml-peg,large")
    p.add_argument(
        "--sensitivity",
        action="store_true",
        help="edit latency with and without the stability intervals, interleaved, same run",
    )
    p.add_argument("--base", default=None, help="A/B against this checkout (with --data)")
    p.add_argument("--data", default=None, help="a data set directory (with --base)")
    args = p.parse_args(argv)
    if args.base:
        compare_base(Path(args.base), Path(args.data), args.edits)
        return 0
    only = set(args.only.split(","))
    targets = {"demo": 150, "ml-peg": 150, "large": 600}
    rows = []
    for name, cfg, raw in datasets(only):
        if args.sensitivity:
            compare_sensitivity(name, cfg, raw, args.edits)
            continue
        r = measure(name, cfg, raw, args.edits)
        rows.append(r)
        posts = r.get("posts_per_edit", [])
        print(
            f"({'abc'[['demo', 'ml-peg', 'large'].index(name)]}) {name:7s} "
            f"{r['models']:5d} models x {r['metrics']:5d} metrics: "
            f"edit -> overall column median {r['median_ms']:.0f} ms "
            f"(min {min(r['edit_ms']):.0f}, max {max(r['edit_ms']):.0f}, n={len(r['edit_ms'])}; "
            f"target <= {targets[name]} ms); "
            f"first render {r['first_render_ms']:.0f} ms; "
            f"one edit's response {r['edit_response_bytes'] / 1024:.1f} KiB; "
            f"server round trips per edit: {sorted(set(posts))}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        raise SystemExit(main())
