"""Where the first page's browser time goes ("fast start"): a V8 CPU profile (CDP) of
a fresh page from navigation to the first overall cell, per script (self time) and the functions
with the most self time, plus the browser's own phases from a Chrome trace (style, layout,
paint, script compile) on the renderer's main thread.

    python -m benchmarks.profile_startup DIR [--tree CHECKOUT] [--runs 3] [--top 25]

``--tree``: profile another checkout's package (e.g. ``/work/main``). The server is spawned once
and each run opens a new page (the browser's cache is off); the figures are medians over runs.
"""

from __future__ import annotations

import argparse
import collections
import json
import tempfile
from pathlib import Path

from .bench_startup import FIRST_CELL, main_thread_window
from .harness import ROOT, Row, Server, chromium, median, new_page, prepare_checkout, print_table
from .profile_explore import self_times

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


def one_run(browser, url: str, save: str | None):
    """A fresh page from navigation to the first overall cell: (ms, CPU profile, phases)."""
    page = new_page(browser, FIRST_CELL)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    cdp.send("Profiler.start")
    trace = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    try:
        browser.start_tracing(page=page, path=trace)
        page.goto(url)
        page.wait_for_selector("#grid .ag-cell[col-id='o']", timeout=120_000)
        ms = page.evaluate("() => window.__cells")
        prof = cdp.send("Profiler.stop")["profile"]
        if save:
            Path(save).write_text(json.dumps(prof))
        browser.stop_tracing()
        return ms, prof, phases(trace, ms)
    finally:
        Path(trace).unlink(missing_ok=True)
        page.context.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", type=Path)
    p.add_argument("--tree", default=str(ROOT), help="the checkout whose package is profiled")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--save", default=None, help="write the last run's CPU profile to this file")
    args = p.parse_args(argv)
    scripts: list[collections.Counter] = []
    fns: list[collections.Counter] = []
    phs: list[dict] = []
    cells: list[float] = []
    with Server(args.data, prepare_checkout(Path(args.tree))) as server, chromium() as browser:
        server.wait_health()
        for _ in range(args.runs + 1):  # the first run warms the server (not counted)
            ms, prof, ph = one_run(browser, server.url, args.save)
            cells.append(ms)
            scripts.append(self_times(prof))
            fns.append(self_times(prof, by_function=True))
            phs.append(ph)
    print_table(profile_rows(cells[1:], scripts[1:], fns[1:], phs[1:], args.top))
    return 0


def _top(counters: list, n: int, prefix: str) -> list[Row]:
    """The ``n`` keys with the most time (median over the runs), a row each."""
    keys = set().union(*counters)
    med = {k: median(c.get(k, 0) for c in counters) for k in keys}
    return [
        Row(f"{prefix}{k}", [c.get(k, 0) for c in counters])
        for k in sorted(keys, key=lambda k: -med[k])[:n]
    ]


def profile_rows(cells, scripts, fns, phs, top: int) -> list[Row]:
    """First cells, then self time per script (15), main-thread phases (trace), functions."""
    return (
        [Row("first cells from navigation", cells)]
        + _top(scripts, 15, "self time, script ")
        + _top(phs, len(PHASES) + 1, "main-thread phase ")
        + _top(fns, top, "self time, function ")
    )


if __name__ == "__main__":
    raise SystemExit(main())
