#!/usr/bin/env python
"""A large table's rows in the browser (components/bigrows.py), isolated from the curve: the
same 10,000-model board served twice side by side, the whole table per edit (``deltas=False``)
and the infinite row model (default), a category-weight edit in the overview, the two pages
edited alternately. Per edit: all responses done (the edit and the grid's block fetch), "grid
settled" (the last DOM mutation in the grid within 6 s of the Enter) and the bytes received.

    python benchmarks/bench_bigrows.py [--models 10000] [--edits 8] [--data DIR]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dashboard import (  # noqa: E402
    EDIT_URLS,
    FIRST_ROWS,
    mlpeg_config,
    synthetic_raw,
    write_dataset,
)
from browser_utils import chromium, live_server  # noqa: E402

from ml_peg_like import config_from_dict, load_dataset  # noqa: E402
from ml_peg_like.dashboard import create_app  # noqa: E402

_URLS = "[" + ",".join(f"'{u}'" for u in EDIT_URLS) + "]"
DONE = f"""(t0) => Math.max(0, ...performance.getEntriesByType('resource')
  .filter(e => {_URLS}.some(u => e.name.includes(u)) && e.startTime >= t0 - 1)
  .map(e => e.responseEnd - t0))"""
BYTES = f"""(t0) => performance.getEntriesByType('resource')
  .filter(e => {_URLS}.some(u => e.name.includes(u)) && e.startTime >= t0 - 1)
  .reduce((a, e) => a + e.encodedBodySize, 0)"""
WATCH = """() => {
  document.addEventListener('keydown', e => {
    if (e.key === 'Enter') window.__t0 = performance.now();
  }, true);
  new MutationObserver(() => { window.__last = performance.now(); }).observe(
    document.querySelector('#grid'),
    {subtree: true, childList: true, characterData: true, attributes: true});
}"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=int, default=10000)
    p.add_argument("--edits", type=int, default=8)
    p.add_argument("--data", default=None, help="where the data set is written (default: tmp)")
    args = p.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    cfg0 = config_from_dict(mlpeg_config())
    root = Path(args.data or tempfile.mkdtemp(prefix="bench-bigrows-"))
    name = f"{args.models}x{len(cfg0.metric_paths())}"
    cfg, raw = load_dataset(
        write_dataset(name, cfg0, synthetic_raw(cfg0, args.models, seed=42), root)
    )
    cat = cfg.categories[0].name
    apps = {
        "whole table": create_app(cfg, raw, robustness=False, deltas=False),
        "infinite": create_app(cfg, raw, robustness=False),
    }
    res: dict[str, tuple[list, list, list]] = {k: ([], [], []) for k in apps}
    with (
        live_server(apps["whole table"]) as u1,
        live_server(apps["infinite"]) as u2,
        chromium() as browser,
    ):
        pages = {}
        for k, u in zip(apps, (u1, u2), strict=True):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(u)
            page.wait_for_function(FIRST_ROWS, timeout=120_000)
            page.wait_for_selector(f"input[name='{cat}.weight']", timeout=60_000)
            page.wait_for_timeout(2000)
            page.evaluate(WATCH)
            pages[k] = page
        for i in range(args.edits):
            for k in list(apps) if i % 2 == 0 else list(apps)[::-1]:  # A/B, B/A: load drift
                page = pages[k]
                box = page.locator(f"input[name='{cat}.weight']")
                box.fill(str(1.25 + (i % 4) * 0.5))
                box.press("Enter")
                page.wait_for_timeout(6000)
                t0 = page.evaluate("() => window.__t0")
                res[k][0].append(page.evaluate(DONE, t0))
                res[k][1].append(page.evaluate("() => window.__last") - t0)
                res[k][2].append(page.evaluate(BYTES, t0))
    print(f"{name}, overview weight edit, medians of {args.edits}")
    for k, (done, settled, size) in res.items():
        print(
            f"{k}: all responses done {statistics.median(done):.0f} ms | grid settled "
            f"{statistics.median(settled):.0f} ms {[round(x) for x in settled]} | "
            f"{statistics.median(size) / 1024:.1f} KiB per edit"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
