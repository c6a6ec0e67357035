#!/usr/bin/env python
"""The first page's cost ("fast start"), in CPU time as well as wall time: on a shared
machine wall times swing 3x with the load, CPU times far less.

    python benchmarks/bench_startup.py DIR [--rounds 3] [--base CHECKOUT]

Per run ``ml-peg-like serve DIR`` is spawned and a fresh headless Chromium page opens it: the
server's wall time to ``/health`` and its CPU time (user + system, /proc) at that moment and its
RSS; the browser's wall time from navigation to the first overall cell (``performance.now()``
of the first DOM mutation that shows one) and the renderer main thread's CPU time until then (the
thread time of its top-level tasks in a Chrome trace). ``--base CHECKOUT`` (a directory holding
another version's ``ml_peg_like``) runs that version interleaved with this one and prints both;
``--no-trace`` leaves the trace out (its overhead inflates the browser's wall times).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from bench_dashboard import compile_package, wait_health  # noqa: E402
from browser_utils import chromium  # noqa: E402

FIRST_CELL = """(() => {
  const o = new MutationObserver(() => {
    if (!window.__cells && document.querySelector("#grid .ag-cell[col-id='o']")) {
      window.__cells = performance.now(); o.disconnect();
    }
  });
  document.addEventListener('DOMContentLoaded',
    () => o.observe(document.body, {subtree: true, childList: true}));
})()"""
CLK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


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


def measure(browser, data: Path, base: str | None, trace_browser: bool = True) -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    if base:
        code = f"import sys; sys.path.insert(0, {base!r}); from ml_peg_like.cli import main; "
        code += "sys.exit(main())"
        cmd = [sys.executable, "-c", code]
    else:
        cmd = [sys.executable, "-m", "ml_peg_like"]
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.add_init_script(FIRST_CELL)
    trace = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*cmd, "serve", str(data), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_health(proc, url, t0)
        out = {
            "ready_s": time.perf_counter() - t0,
            "server_cpu_s": _cpu_s(proc.pid),
            "rss_ready_mib": _rss_mib(proc.pid),
        }
        if trace_browser:
            browser.start_tracing(page=page, path=trace)
        page.goto(url)
        page.wait_for_selector("#grid .ag-cell[col-id='o']", timeout=120_000)
        out["cells_from_spawn_s"] = time.perf_counter() - t0
        cells_ms = page.evaluate("() => window.__cells")
        out["cells_from_navigation_s"] = cells_ms / 1000
        if trace_browser:
            browser.stop_tracing()
            out["main_thread_cpu_s"] = _main_thread_cpu_s(trace, cells_ms)
        return out
    finally:
        page.close()
        proc.terminate()
        proc.wait(timeout=20)
        if os.path.exists(trace):
            os.unlink(trace)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", type=Path, help="a dataset directory (config.yml + raw_metrics.csv)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--base", default=None, help="a checkout of another version, run interleaved")
    p.add_argument(
        "--no-trace",
        action="store_true",
        help="no Chrome trace (wall times without its overhead; no main-thread CPU time)",
    )
    args = p.parse_args(argv)
    variants = [("this", None)] + ([("base", str(Path(args.base).resolve()))] if args.base else [])
    for _name, tree in variants:  # both start from bytecode, as an installed wheel does
        compile_package(Path(tree) if tree else ROOT)
    runs: dict[str, list[dict]] = {name: [] for name, _ in variants}
    with chromium() as browser:
        for _ in range(args.rounds):
            for name, base in variants:
                runs[name].append(measure(browser, args.data, base, not args.no_trace))
                print(name, {k: round(v, 3) for k, v in runs[name][-1].items()}, flush=True)
    print("medians over", args.rounds, "rounds")
    for name, rs in runs.items():
        print(name, {k: round(statistics.median(r[k] for r in rs), 3) for k in rs[0]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
