#!/usr/bin/env python
"""A threshold edit at 10,000 models, A/B against another checkout, step by step.

Both checkouts' ``ml-peg-like serve DIR`` are spawned side by side (``--base`` is imported from
its own folder: ``PYTHONPATH``), one headless Chromium page each on the benchmark view of the
most influential metric (``bench_dashboard``'s edit), and the pages are edited alternately
(A/B, B/A: load drift hits both alike). Per edit, in ms after the Enter: the edit's request
leaves, its response ends, the grid's block fetch (``POST /_mpl/rows``) starts and ends, the
Overall cells are right, and everything is done (bench_dashboard's figure: the later of the
cells and the last response); plus the bytes received and the main thread's long tasks.

    python benchmarks/bench_bigedit.py --base /work/main [--edits 8] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dashboard import (  # noqa: E402
    ALL_DONE,
    FIRST_ROWS,
    INSTALL,
    chromium,
    datasets,
    influential_metric,
    make_query,
    timed_edit,
    wait_health,
    write_dataset,
)

STEPS = """(t0) => {
  const es = performance.getEntriesByType('resource').filter(e => e.startTime >= t0 - 1);
  const f = (u) => es.filter(e => e.name.includes(u)).map(e => [e.startTime - t0,
    e.responseEnd - t0, e.encodedBodySize]);
  return [f('_dash-update-component'), f('/_mpl/rows'),
          (window.__tasks || []).filter(t => t[0] >= t0 - 1).map(t => [t[0] - t0, t[1]])];
}"""
TASKS = """() => { window.__tasks = []; new PerformanceObserver((l) => l.getEntries().forEach(
  (e) => window.__tasks.push([e.startTime, e.duration]))).observe({type: 'longtask'}); }"""


def spawn(checkout: Path, data: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(checkout), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "ml_peg_like", "serve", str(data), "--port", str(port)]
    proc = subprocess.Popen(
        cmd, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    wait_health(proc, url, time.perf_counter(), str(checkout))
    return proc, url


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="the 'before' checkout (e.g. /work/main)")
    p.add_argument("--edits", type=int, default=8)
    p.add_argument("--only", default="10000x339")
    p.add_argument("--data", default=None)
    p.add_argument("--verbose", action="store_true", help="each edit's steps and long tasks")
    args = p.parse_args(argv)
    root = Path(args.data or tempfile.mkdtemp(prefix="bench-bigedit-"))
    name, cfg, raw = next(datasets({args.only}))
    data = write_dataset(name, cfg, raw, root)
    path = influential_metric(cfg)
    metric = cfg.node(path)
    good0, bad0 = metric.good, metric.bad
    runs = {"before": Path(args.base).resolve(), "after": ROOT}
    procs, pages = {}, {}
    res: dict[str, list] = {k: [] for k in runs}
    try:
        with chromium() as browser:
            for k, checkout in runs.items():
                procs[k], url = spawn(checkout, data)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.add_init_script(f"({TASKS})()")
                page.goto(url + "/" + make_query({}, path.rsplit("/", 1)[0]))
                page.wait_for_selector(f"input[name='{path}.good']", timeout=120_000)
                page.wait_for_function(FIRST_ROWS, timeout=120_000)
                page.wait_for_timeout(1500)
                page.evaluate(INSTALL)
                pages[k] = page
            for i in range(args.edits):
                value = good0 + (0.05 + 0.9 * ((i * 0.37) % 1.0)) * (bad0 - good0)
                for k in list(runs) if i % 2 == 0 else list(runs)[::-1]:
                    page = pages[k]
                    t_cells = timed_edit(page, raw, cfg, path, value)
                    if t_cells is None:
                        continue
                    page.wait_for_timeout(400)
                    t0 = page.evaluate("() => window.__t0")
                    done = max(t_cells, page.evaluate(ALL_DONE, t0))
                    edit, blocks, tasks = page.evaluate(STEPS, t0)
                    res[k].append((done, t_cells, edit, blocks, tasks))
                    page.wait_for_timeout(300)
    finally:
        for proc in procs.values():
            proc.terminate()
            proc.wait(timeout=20)

    def med(xs):
        xs = [x for x in xs if x == x]
        return statistics.median(xs) if xs else float("nan")

    print(f"{name}: threshold edits of {path}, {args.edits} per side, alternating")
    meds = {}
    for k, rows in res.items():
        nan = float("nan")
        cols = {
            "done": [r[0] for r in rows],
            "cells": [r[1] for r in rows],
            "req": [r[2][0][0] if r[2] else nan for r in rows],
            "resp": [r[2][-1][1] if r[2] else nan for r in rows],
            "blk0": [r[3][0][0] if r[3] else nan for r in rows],
            "blk1": [r[3][-1][1] if r[3] else nan for r in rows],
            "kib": [(sum(e[2] for e in r[2]) + sum(b[2] for b in r[3])) / 1024 for r in rows],
            "tasks": [sum(t[1] for t in r[4]) for r in rows],
        }
        meds[k] = {c: med(v) for c, v in cols.items()}
        print(f"{k:6s} " + " | ".join(f"{c} {m:.0f}" for c, m in meds[k].items()) + " (medians)")
        print(f"       done per edit {[round(r[0]) for r in rows]}")
        if args.verbose:
            for r in rows:
                steps = [[round(x) for x in e[:2]] for e in r[2] + r[3]]
                tasks = [[round(x) for x in t] for t in r[4]]
                print(f"       cells {r[1]:.0f}; requests {steps}; long tasks {tasks}")
    b, a = meds["before"], meds["after"]
    print(
        "ratio before/after: "
        + " ".join(f"{c}={b[c] / a[c]:.2f}" for c in ("done", "cells", "resp", "kib") if a[c])
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
