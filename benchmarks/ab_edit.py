#!/usr/bin/env python
"""A/B of one threshold edit between two checkouts: ``ml-peg-like serve DIR`` is
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

``--cpu``: a Chromium trace of each edit gives the page's main-thread CPU time (the trace's
thread durations of its top-level tasks) from Enter to the request (cpu-call), while waiting
(cpu-wait) and from the parsed answer to 50 ms after the cells are right (cpu-after). Meant to be
steadier than the wall times above on a loaded machine (which tracing inflates); at load ~11 it
still differed by up to 20 % between two servers of the same checkout.
"""

from __future__ import annotations

import argparse
import json
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
#: trace marks (``--cpu``): Enter, the request leaves, the answer is parsed
CPU_MARKS = """() => {
  document.addEventListener('keydown', e => {
    if (e.key === 'Enter') console.timeStamp('mpl-enter');
  }, true);
  const orig = window.fetch;
  window.fetch = function (url) {
    if (!String(url).includes('_dash-update-component')) return orig.apply(this, arguments);
    console.timeStamp('mpl-call');
    return orig.apply(this, arguments).then((r) => {
      const json = r.json.bind(r);
      r.json = () => json().then((v) => { console.timeStamp('mpl-parsed'); return v; });
      return r;
    });
  };
}"""
CPU_END = "() => new Promise(r => setTimeout(() => { console.timeStamp('mpl-end'); r(); }, 50))"
CPU_PHASES = ("call", "wait", "after")


def main_thread_cpu(trace: bytes) -> dict[str, float]:
    """ms of main-thread CPU per phase (``CPU_PHASES``) of one traced edit (``CPU_MARKS``)."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    marks: dict[str, tuple] = {}
    for e in events:
        msg = (
            e.get("args", {}).get("data", {}).get("message", "")
            if e.get("name") == "TimeStamp"
            else ""
        )
        if msg.startswith("mpl-") and msg not in marks:
            marks[msg] = (e["ts"], e["pid"], e["tid"])
    if len(marks) < 4:
        return {ph: float("nan") for ph in CPU_PHASES}
    _ts, pid, tid = marks["mpl-enter"]
    # the phases' bounds; the keydown's own task starts just before its mark
    bounds = [marks["mpl-enter"][0] - 5000] + [
        marks[m][0] for m in ("mpl-call", "mpl-parsed", "mpl-end")
    ]
    tasks = sorted(
        (
            e
            for e in events
            if e.get("pid") == pid
            and e.get("tid") == tid
            and e.get("ph") == "X"
            and "tdur" in e
            and e.get("cat", "").startswith("toplevel")
        ),
        key=lambda e: e["ts"],
    )
    out = dict.fromkeys(CPU_PHASES, 0.0)
    end = -1
    for e in tasks:
        if e["ts"] < end:
            continue  # nested in the task counted before
        end = e["ts"] + e.get("dur", 0)
        for ph, lo, hi in zip(CPU_PHASES, bounds, bounds[1:], strict=False):
            if lo <= e["ts"] < hi:
                out[ph] += e["tdur"] / 1000
    return out


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
    p.add_argument("--cpu", action="store_true", help="main-thread CPU per phase (a trace)")
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
                if args.cpu:
                    page.add_init_script(f"({CPU_MARKS})()")

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
                    if args.cpu:
                        page.bring_to_front()
                        browser.start_tracing(
                            page=page, categories=["devtools.timeline", "toplevel"]
                        )
                    box.press("Enter")
                    cells = page.evaluate(DONE)
                    cpu = {}
                    if args.cpu:
                        page.evaluate(CPU_END)
                        cpu = {
                            f"cpu-{ph}": ms
                            for ph, ms in main_thread_cpu(browser.stop_tracing()).items()
                        }
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
                            **cpu,
                        )
                    )
            rss = {k: rss_mib(proc.pid) for k, (proc, _url) in procs.items()}
    finally:
        for proc, _url in procs.values():
            proc.terminate()
            proc.wait(timeout=20)
    print(f"{data.name}: A={args.a} {args.a_args} | B={args.b} {args.b_args} | {args.edits} edits")
    cpu_fields = tuple(f"cpu-{ph}" for ph in CPU_PHASES) if args.cpu else ()
    for f in ("done", "call", "hdr", "after", "server", "bytes", *cpu_fields):
        a = statistics.median(r[f] for r in res["A"])
        b = statistics.median(r[f] for r in res["B"])
        ratio = b / a if a == a and a else float("nan")
        print(f"  {f:9s}  A {a:9.1f}  B {b:9.1f}  B/A {ratio:.2f}")
    for k in ("A", "B"):
        print(f"  {k} done ms {[round(r['done']) for r in res[k]]}; RSS {rss.get(k, 0):.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
