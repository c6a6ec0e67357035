#!/usr/bin/env python
"""A/B of one threshold edit between two checkouts (issue 15): ``ml-peg-like serve DIR`` is
spawned from checkout A and from checkout B, one headless Chromium opens both, and the same
threshold edits (the benchmark view of the most influential metric) alternate between them
(A/B, B/A, ...), so load drift on a shared machine hits both alike. Per checkout, medians of:

  done    Enter -> every rendered Overall cell right and every callback answer received
  call    Enter -> the edit's request leaves (Dash gathering the callback's inputs)
  hdr     Enter -> the answer's headers (server + network)
  after   the answer parsed -> cells right (the browser's work on the answer)
  server  the answer's Server-Timing (when the checkout sends one)
  bytes   the edit's answers (uncompressed JSON)

    python benchmarks/ab_edit.py DATA_DIR --a /work/main --b . [--edits 12] [--b-args "--always-deltas"]

DATA_DIR holds config.yml + raw_metrics.csv (``bench_dashboard.py --data DIR`` writes them).
"""

from __future__ import annotations

import argparse
import os
import shlex
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dashboard import (  # noqa: E402
    INSTALL,
    chromium,
    fmt_score,
    influential_metric,
    make_query,
    rss_mib,
    score,
    wait_health,
)
from profile_edit import FETCH_STAMPS  # noqa: E402

from ml_peg_like import load_dataset  # noqa: E402
from ml_peg_like.dashboard.servertiming import server_ms  # noqa: E402

DONE = """async () => (await Promise.race([window.__done,
  new Promise(r => setTimeout(() => r(NaN), 6000))])) - window.__t0"""
STAMPS = """(t0) => window.__fetches.filter(f => f.call >= t0 - 1).map(f =>
  [f.call - t0, (f.headers || NaN) - t0, (f.parsed || NaN) - t0])"""
LAST_END = """(t0) => Math.max(0, ...performance.getEntriesByType('resource')
  .filter(e => e.name.includes('_dash-update-component') && e.startTime >= t0 - 1)
  .map(e => e.responseEnd - t0))"""
#: the edits, as fractions of the way from the metric's 'good' to its 'bad'
FRACTIONS = (0.45, 0.05, 0.2, 0.6, 0.1, 0.35, 0.8, 0.27)


def spawn(checkout: str, data: Path, args: list[str]) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=checkout)
    cmd = [sys.executable, "-m", "ml_peg_like", "serve", str(data), "--port", str(port), *args]
    proc = subprocess.Popen(
        cmd, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    wait_health(proc, url, time.perf_counter(), checkout)
    return proc, url


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data")
    p.add_argument("--a", required=True, help="checkout A (e.g. the main branch)")
    p.add_argument("--b", default=str(ROOT), help="checkout B (default: this one)")
    p.add_argument("--edits", type=int, default=12)
    p.add_argument("--a-args", default="", help="more `serve` arguments for A")
    p.add_argument("--b-args", default="", help="more `serve` arguments for B")
    args = p.parse_args(argv)
    data = Path(args.data)
    cfg, raw = load_dataset(data)
    path = influential_metric(cfg)
    metric = cfg.node(path)
    sides = {"A": (args.a, shlex.split(args.a_args)), "B": (args.b, shlex.split(args.b_args))}
    procs = {k: spawn(str(Path(c).resolve()), data, a) for k, (c, a) in sides.items()}
    res: dict[str, list[dict]] = {"A": [], "B": []}
    answers: dict[str, list[tuple[int, float | None]]] = {"A": [], "B": []}
    rss = {}
    try:
        with chromium() as browser:
            pages = {}
            for k, (_proc, url) in procs.items():
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.add_init_script(f"({FETCH_STAMPS})()")

                def on_response(r, k=k):
                    if "_dash-update-component" in r.url and r.status == 200:
                        answers[k].append((len(r.body()), server_ms(r.headers)))

                page.on("response", on_response)
                page.goto(url + "/" + make_query({}, path.rsplit("/", 1)[0]))
                page.wait_for_selector(f"input[name='{path}.good']", timeout=120_000)
                page.wait_for_selector("#grid .ag-cell[col-id='o']")
                page.wait_for_timeout(800)
                page.evaluate(INSTALL)
                pages[k] = page
            span = metric.bad - metric.good
            for i in range(args.edits):
                value = metric.good + (FRACTIONS[i % len(FRACTIONS)] + 1e-4 * i) * span
                new = score(raw, cfg.apply_changes({path: {"good": value}}))
                expected = {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}
                for k in ("A", "B") if i % 2 == 0 else ("B", "A"):
                    page = pages[k]
                    page.evaluate("(e) => window.__arm(e)", expected)
                    box = page.locator(f"input[name='{path}.good']")
                    box.fill(f"{value:.6g}")
                    n0 = len(answers[k])
                    box.press("Enter")
                    cells = page.evaluate(DONE)
                    page.wait_for_timeout(400)
                    t0 = page.evaluate("() => window.__t0")
                    stamps = page.evaluate(STAMPS, t0)
                    end = page.evaluate(LAST_END, t0)
                    call, hdr, parsed = stamps[0] if stamps else (float("nan"),) * 3
                    mine = answers[k][n0:]
                    served = [ms for _b, ms in mine if ms is not None]
                    res[k].append(
                        dict(
                            done=max(cells, end),
                            call=call,
                            hdr=hdr,
                            after=cells - parsed,
                            server=sum(served) if served else float("nan"),
                            bytes=sum(b for b, _ms in mine),
                        )
                    )
            rss = {k: rss_mib(proc.pid) for k, (proc, _url) in procs.items()}
    finally:
        for proc, _url in procs.values():
            proc.terminate()
            proc.wait(timeout=20)
    print(f"{data.name}: A={args.a} {args.a_args} | B={args.b} {args.b_args} | {args.edits} edits")
    for f in ("done", "call", "hdr", "after", "server", "bytes"):
        a = statistics.median(r[f] for r in res["A"])
        b = statistics.median(r[f] for r in res["B"])
        ratio = b / a if a == a and a else float("nan")
        print(f"  {f:6s}  A {a:9.1f}  B {b:9.1f}  B/A {ratio:.2f}")
    for k in ("A", "B"):
        print(f"  {k} done ms {[round(r['done']) for r in res[k]]}; RSS {rss.get(k, 0):.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
