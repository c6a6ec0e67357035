"""When the overview's first rows can be read (fast start): one server per checkout, spawned as
``ml-peg-like serve DIR``, and one headless Chromium that opens each in turn (a fresh context
per load, loads interleaved so that load drift hits all alike). Per load, in ms from navigation
(the page's own clock): the first contentful paint, the first rows readable (when the first
view's best overall score was painted, from the browser's Element Timing entry,
``dashboard/firstview.py``; where the page has none, when the grid had its rows) and when the
grid had its rows (a poll each frame: a frame late at most) and when the first view went (the
app shown in its place: a mutation observer started before the page's scripts). Prints the
medians per checkout and their ratios to the first checkout's.

    python -m benchmarks.bench_firstview DATA_DIR CHECKOUT [CHECKOUT ...] [--loads 6]
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from .harness import Row, Server, chromium, new_page, prepare_checkout, print_table
from .page import FIRST_ROWS, PAINTED

FCP = "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime"
MEASURES = ("first contentful paint", "first rows readable", "grid rows", "first view gone")
#: when the first view left the page (ms from navigation; NaN where the page had none)
GONE_WATCH = """
document.addEventListener("DOMContentLoaded", () => {
  const first = document.getElementById("mpl-first");
  if (!first) { window.__firstGone = NaN; return; }
  new MutationObserver((records, obs) => {
    if (first.isConnected) return;
    window.__firstGone = performance.now();
    obs.disconnect();
  }).observe(document.body, { childList: true, subtree: true });
});
"""
FIRST_GONE = "() => window.__firstGone !== undefined"


def one_load(browser, server: Server) -> dict[str, float]:
    """The three times (ms from navigation) of one load in a fresh context."""
    page = new_page(browser)
    try:
        page.add_init_script(GONE_WATCH)
        page.goto(server.url + "/", wait_until="commit")
        page.wait_for_function(FIRST_ROWS, timeout=120_000)
        grid = page.evaluate("() => performance.now()")
        painted = page.evaluate(PAINTED)
        page.wait_for_function(FIRST_GONE, timeout=60_000)
        return {
            "first contentful paint": page.evaluate(FCP) or float("nan"),
            "first rows readable": painted if painted == painted else grid,  # NaN: none
            "grid rows": grid,
            "first view gone": page.evaluate("() => window.__firstGone"),
        }
    finally:
        page.context.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", help="a dataset directory (config.yml + raw_metrics.csv)")
    p.add_argument("checkouts", nargs="+", help="directories holding an ml_peg_like package")
    p.add_argument("--loads", type=int, default=6)
    args = p.parse_args(argv)
    trees = [prepare_checkout(Path(c)) for c in args.checkouts]
    got = {(t, m): [] for t in range(len(trees)) for m in MEASURES}
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(Server(args.data, tree)) for tree in trees]
        for server in servers:
            server.wait_health()
        with chromium() as browser:
            for _ in range(args.loads):
                for t, server in enumerate(servers):
                    for m, v in one_load(browser, server).items():
                        got[(t, m)].append(v)
    rows = []
    for m in MEASURES:
        for t, tree in enumerate(trees):
            vs = f"{trees[0]}: {m}" if t else None
            rows.append(Row(f"{tree}: {m}", got[(t, m)], vs=vs))
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
