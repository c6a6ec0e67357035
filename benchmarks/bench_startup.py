"""The first page's cost ("fast start"), in CPU time as well as wall time: on a shared
machine wall times swing 3x with the load, CPU times far less.

    python -m benchmarks.bench_startup DIR [--rounds 3] [--before DIR]

Per run ``ml-peg-like serve DIR`` is spawned and a fresh headless Chromium page opens it: the
server's wall time to ``/health`` and its CPU time (user + system, /proc) at that moment and its
RSS; the browser's wall time from navigation to the first overall cell (``performance.now()``
of the first DOM mutation that shows one) and the renderer main thread's CPU time until then (the
thread time of its top-level tasks in a Chrome trace). ``--before DIR`` (a directory holding
another version's ``ml_peg_like``) runs that version interleaved with this one and prints both;
``--no-trace`` leaves the trace out (its overhead inflates the browser's wall times).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from .harness import (
    Row,
    Server,
    add_before,
    checkouts,
    chromium,
    cpu_seconds,
    interleave,
    new_page,
    print_table,
    tree_rss_mib,
)

FIRST_CELL = """(() => {
  const o = new MutationObserver(() => {
    if (!window.__cells && document.querySelector("#grid .ag-cell[col-id='o']")) {
      window.__cells = performance.now(); o.disconnect();
    }
  });
  document.addEventListener('DOMContentLoaded',
    () => o.observe(document.body, {subtree: true, childList: true}));
})()"""


def main_thread_window(trace_path: str, until_ms: float):
    """A Chrome trace's events, the renderer main thread's (pid, tid) set and the window from
    its navigation start to ``until_ms`` later (µs), or None without a navigation start."""
    ev = json.loads(Path(trace_path).read_text())
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    main = {k for k, v in names.items() if v == "CrRendererMain"}
    nav = [
        e["ts"] for e in ev if e.get("name") == "navigationStart" and (e["pid"], e["tid"]) in main
    ]
    if not nav:
        return None
    t0 = min(nav)
    return ev, main, t0, t0 + until_ms * 1000


def _main_thread_cpu_s(trace_path: str, until_ms: float) -> float:
    window = main_thread_window(trace_path, until_ms)
    if window is None:
        return float("nan")
    ev, main, t0, end = window
    return (
        sum(
            e.get("tdur", 0)
            for e in ev
            if (e.get("pid"), e.get("tid")) in main
            and e.get("ph") == "X"
            and e.get("name") == "ThreadControllerImpl::RunTask"
            and t0 <= e["ts"] <= end
        )
        / 1e6
    )


def measure(browser, data: Path, checkout: Path, trace_browser: bool = True) -> dict:
    page = new_page(browser, FIRST_CELL)
    trace = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    try:
        with Server(data, checkout) as server:
            out = {"HTTP ready from spawn (s)": server.wait_health()}
            out["server CPU at HTTP ready (s)"] = cpu_seconds(server.proc.pid)
            out["server RSS at HTTP ready (MiB)"] = tree_rss_mib(server.proc.pid)
            if trace_browser:
                browser.start_tracing(page=page, path=trace)
            page.goto(server.url)
            page.wait_for_selector("#grid .ag-cell[col-id='o']", timeout=120_000)
            out["first cells from spawn (s)"] = time.perf_counter() - server.t_spawn
            cells_ms = page.evaluate("() => window.__cells")
            out["first cells from navigation (s)"] = cells_ms / 1000
            if trace_browser:
                browser.stop_tracing()
                out["main-thread CPU to the first cells (s)"] = _main_thread_cpu_s(trace, cells_ms)
        return out
    finally:
        page.context.close()
        if os.path.exists(trace):
            os.unlink(trace)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", type=Path, help="a dataset directory (config.yml + raw_metrics.csv)")
    p.add_argument("--rounds", type=int, default=3)
    add_before(p)
    p.add_argument(
        "--no-trace",
        action="store_true",
        help="no Chrome trace (wall times without its overhead; no main-thread CPU time)",
    )
    args = p.parse_args(argv)
    trees = checkouts(args.before)  # both start from bytecode, as an installed wheel does
    runs: dict[str, list[dict]] = {tag: [] for tag in trees}
    with chromium() as browser:
        for _r, tag in interleave(list(trees), args.rounds):
            runs[tag].append(measure(browser, args.data, trees[tag], not args.no_trace))
            print(tag, {k: round(v, 3) for k, v in runs[tag][-1].items()}, flush=True)
    rows = []
    for key in runs["now"][0]:
        for tag, rs in runs.items():
            vs = f"before: {key}" if tag == "now" and "before" in runs else None
            what, unit = key.rsplit(" (", 1)
            rows.append(Row(f"{tag}: {what}", [r[key] for r in rs], unit.rstrip(")"),
                            vs and vs.rsplit(" (", 1)[0]))  # fmt: skip
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
