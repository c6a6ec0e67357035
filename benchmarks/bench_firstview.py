#!/usr/bin/env python
"""When the overview's first rows can be read (fast start): one server per checkout,
spawned as ``ml-peg-like serve DIR``, and one headless Chromium that opens each in turn (fresh
context per load, loads interleaved so that load drift hits all alike). Per load, in ms from
navigation (the page's own clock): the first contentful paint, the first rows readable (when
the first view's best overall score was painted, from the browser's Element Timing entry,
``dashboard/firstview.py``; where the page has none, when the grid had its rows) and when the
grid had its rows (a poll each frame: a frame late at most) and when the first view went (the
app shown in its place: a mutation observer started before the page's scripts). Prints the
medians per checkout and their ratios to the first checkout.

    python benchmarks/bench_firstview.py DATA_DIR CHECKOUT [CHECKOUT ...] [--loads 6]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dashboard import FIRST_ROWS, PAINTED  # noqa: E402
from browser_utils import chromium  # noqa: E402

FCP = "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime"
#: the grid had its rows (ms from navigation)
GRID_ROWS_AT = "() => performance.now()"
#: when the first view left the page (ms from navigation; NaN where the page had none), and
#: whether the grid's model cells had their text then (the app shown is not an empty grid)
GONE_WATCH = """
document.addEventListener("DOMContentLoaded", () => {
  const first = document.getElementById("mpl-first");
  if (!first) { window.__firstGone = [NaN, true]; return; }
  new MutationObserver((records, obs) => {
    if (first.isConnected) return;
    const cells = [...document.querySelectorAll('#grid .ag-cell[col-id="model"]')];
    window.__firstGone = [performance.now(), cells.some((c) => c.textContent.trim())];
    obs.disconnect();
  }).observe(document.body, { childList: true, subtree: true });
});
"""
FIRST_GONE = "() => window.__firstGone"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _load(browser, port: int) -> dict:
    """One load of the page in a fresh context: its times (ms from navigation)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.add_init_script(GONE_WATCH)
    page.goto(f"http://127.0.0.1:{port}/", wait_until="commit")
    page.wait_for_function(FIRST_ROWS, timeout=120_000)
    grid = page.evaluate(GRID_ROWS_AT)
    painted = page.evaluate(PAINTED)
    gone, had_text = page.wait_for_function(FIRST_GONE, timeout=60_000).json_value()
    fcp = page.evaluate(FCP) or float("nan")
    ctx.close()
    readable = painted if painted == painted else grid  # NaN: no first view
    return {"fcp": fcp, "readable": readable, "grid": grid, "gone": gone, "had_text": had_text}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data")
    p.add_argument("checkouts", nargs="+", help="directories holding an ml_peg_like package")
    p.add_argument("--loads", type=int, default=6)
    args = p.parse_args(argv)
    servers = {}
    try:
        for tree in args.checkouts:
            port = _port()
            home = Path(tree).resolve()
            env = dict(os.environ, PYTHONPATH=str(home))
            data = str(Path(args.data).resolve())
            cmd = [sys.executable, "-m", "ml_peg_like", "serve", data, "--port", str(port)]
            # run from the checkout: ``-m`` puts the working directory first on the path
            proc = subprocess.Popen(
                cmd, env=env, cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            servers[tree] = (port, proc)
        for port, _proc in servers.values():
            deadline = time.time() + 120
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/health")
                    break
                except OSError:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.05)
        got = {t: {"fcp": [], "readable": [], "grid": [], "gone": []} for t in args.checkouts}
        empty = {t: 0 for t in args.checkouts}
        with chromium() as browser:
            for _ in range(args.loads):
                for tree, (port, _proc) in servers.items():
                    one = _load(browser, port)
                    for k in ("fcp", "readable", "grid", "gone"):
                        got[tree][k].append(one[k])
                    empty[tree] += not one["had_text"]
        first = args.checkouts[0]
        base = {k: statistics.median(v) for k, v in got[first].items()}
        print(
            "checkout | first contentful paint ms | first rows readable ms | grid rows ms"
            " | first view gone ms"
        )
        for tree in args.checkouts:
            med = {k: statistics.median(v) for k, v in got[tree].items()}
            ratio = " ".join(f"{k} x{med[k] / base[k]:.2f}" for k in med)
            print(
                f"{tree} | {med['fcp']:.0f} | {med['readable']:.0f} | {med['grid']:.0f} | "
                f"{med['gone']:.0f} | vs {first}: {ratio} | readable per load "
                f"{[round(x) for x in got[tree]['readable']]} | gone before the grid's text: "
                f"{empty[tree]} of {len(got[tree]['gone'])}"
            )
    finally:
        for _unused, proc in servers.values():
            proc.terminate()
            proc.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
