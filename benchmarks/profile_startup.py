#!/usr/bin/env python
"""Where the first page's browser time goes ("fast start"): a V8 CPU profile (CDP) of
a fresh page from navigation to the first overall cell, per script (self time) and the functions
with the most self time, plus the browser's own phases from a Chrome trace (style, layout,
paint, script compile) on the renderer's main thread.

    python benchmarks/profile_startup.py DIR [--tree CHECKOUT] [--runs 3] [--top 25]

``--tree``: profile another checkout's package (e.g. ``/work/main``). The server is spawned once
and each run opens a new page (the browser's cache is off); the figures are medians over runs.
"""

from __future__ import annotations

import argparse
import collections
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]

from bench_dashboard import compile_package, wait_health  # noqa: E402
from bench_startup import FIRST_CELL, main_thread_window  # noqa: E402
from browser_utils import chromium  # noqa: E402
from profile_explore import self_times  # noqa: E402

#: trace events of the renderer's main thread summed as phases (ms)
PHASES = (
    "UpdateLayoutTree",
    "Layout",
    "Paint",
    "PrePaint",
    "Layerize",
    "v8.compile",
    "v8.compileModule",
    "EvaluateScript",
    "ParseHTML",
    "FunctionCall",
    "TimerFire",
    "FireAnimationFrame",
    "MinorGC",
    "MajorGC",
    "V8.GC_SCAVENGER",
)


def phases(trace_path: str, until_ms: float) -> dict[str, float]:
    window = main_thread_window(trace_path, until_ms)
    if window is None:
        return {}
    ev, main, t0, end = window
    out: collections.Counter = collections.Counter()
    for e in ev:
        if (e.get("pid"), e.get("tid")) not in main or e.get("ph") != "X":
            continue
        if not t0 <= e["ts"] <= end:
            continue
        if e.get("name") in PHASES:
            out[e["name"]] += e.get("dur", 0) / 1000
        if e.get("name") == "ThreadControllerImpl::RunTask":
            out["(all tasks)"] += e.get("dur", 0) / 1000
    return dict(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", type=Path)
    p.add_argument("--tree", default=str(ROOT))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--save", default=None, help="write the last run's CPU profile to this file")
    args = p.parse_args(argv)
    compile_package(Path(args.tree))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    code = f"import sys; sys.path.insert(0, {args.tree!r}); from ml_peg_like.cli import main; "
    code += "sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve", str(args.data), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    scripts: list[collections.Counter] = []
    fns: list[collections.Counter] = []
    phs: list[dict] = []
    cells: list[float] = []
    try:
        wait_health(proc, url, time.perf_counter())
        with chromium() as browser:
            for _ in range(args.runs + 1):  # the first run warms the server (not counted)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.add_init_script(FIRST_CELL)
                cdp = page.context.new_cdp_session(page)
                cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
                cdp.send("Profiler.enable")
                cdp.send("Profiler.setSamplingInterval", {"interval": 200})
                cdp.send("Profiler.start")
                trace = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
                browser.start_tracing(page=page, path=trace)
                page.goto(url)
                page.wait_for_selector("#grid .ag-cell[col-id='o']", timeout=120_000)
                ms = page.evaluate("() => window.__cells")
                prof = cdp.send("Profiler.stop")["profile"]
                if args.save:
                    Path(args.save).write_text(json.dumps(prof))
                browser.stop_tracing()
                cells.append(ms)
                scripts.append(self_times(prof))
                fns.append(self_times(prof, by_function=True))
                phs.append(phases(trace, ms))
                Path(trace).unlink()
                page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    scripts, fns, phs = scripts[1:], fns[1:], phs[1:]
    print(f"first cells from navigation: median {statistics.median(cells[1:]):.0f} ms")

    def med(counters, key):
        return statistics.median(c.get(key, 0) for c in counters)

    print("\nself time per script (ms, median):")
    keys = set().union(*scripts)
    for k in sorted(keys, key=lambda k: -med(scripts, k))[:15]:
        print(f"  {med(scripts, k):7.1f}  {k}")
    print("\nmain-thread phases (ms, median, trace):")
    for k in sorted(set().union(*phs), key=lambda k: -med(phs, k)):
        print(f"  {med(phs, k):7.1f}  {k}")
    print(f"\ntop {args.top} functions by self time (ms, median):")
    keys = set().union(*fns)
    for k in sorted(keys, key=lambda k: -med(fns, k))[: args.top]:
        print(f"  {med(fns, k):7.1f}  {k}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
