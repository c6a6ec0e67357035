#!/usr/bin/env python
"""The published site's speed: ``publish`` an ML-PEG-scale board (30 x 339, ML-PEG's tree) and a
1,000 x 1,000 one, serve each with ``python -m http.server`` over loopback and open it in headless
Chromium (a fresh context per load). Per load, from navigation (the page's own clock): the first
rows painted (``mplSite.paintedAt``: the frame that showed the table, then the task after it).
Then edits: a threshold typed into a box + Enter (alternating two values), from the key event to
the painted ranks. Medians (and minimum) of ``--loads`` loads and ``--edits`` edits, for the board
inside index.html (embedded, the default) and as board.json (fetched).

    python benchmarks/bench_publish.py [--loads 3] [--edits 5] [--anchors DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import datasets  # noqa: E402
from browser_utils import chromium  # noqa: E402
from test_publish_browser import static_server  # noqa: E402

import ml_peg_like as mpl  # noqa: E402
from ml_peg_like.publish import publish  # noqa: E402

EDIT = """([name, a, b, k]) => new Promise(resolve => {
  const box = document.querySelector(`input[name="${CSS.escape(name)}"]`);
  box.value = k % 2 ? a : b;
  const t0 = performance.now();
  const edits = window.mplSite.edits;
  box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  if (window.mplSite.edits === edits) { resolve(-1); return; }
  requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
})"""


def _med(xs: list[float]) -> str:
    return f"{statistics.median(xs):7.1f} ({min(xs):.1f}) ms"


def _loads(browser, url: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        page = ctx.new_page()
        page.goto(url)
        page.wait_for_function("() => window.mplSite && window.mplSite.paintedAt", timeout=120_000)
        out.append(page.evaluate("() => window.mplSite.paintedAt"))
        ctx.close()
    return out


def _edits(browser, url: str, metric_path: str, good: float, bad: float, n: int) -> list[float]:
    bench = metric_path.rsplit("/", 1)[0]
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.goto(url + "?v=" + bench.replace("/", "%2F"))
    page.wait_for_function("() => window.mplSite && window.mplSite.paintedAt", timeout=120_000)
    a, b = good + 0.1 * (bad - good), good + 0.2 * (bad - good)
    out = [page.evaluate(EDIT, [f"{metric_path}.good", repr(a), repr(b), k]) for k in range(n)]
    ctx.close()
    if any(t < 0 for t in out):
        raise SystemExit(f"an edit of {metric_path}.good was not accepted")
    return out


def _first_metric(cfg) -> tuple[str, float, float]:
    for c, b, m in cfg.iter_metrics():
        if m.normaliser == "linear" and isinstance(m.good, float) and isinstance(m.bad, float):
            return f"{c.name}/{b.name}/{m.name}", m.good, m.bad
    raise SystemExit("no linear metric with number thresholds")


def run(name: str, data: Path, tmp: Path, browser, args) -> None:
    cfg, raw = mpl.load_dataset(data)
    path, good, bad = _first_metric(cfg)
    sites = {}
    for embed in (True, False):
        out = tmp / f"{name}-{embed}"
        t0 = time.perf_counter()
        publish(cfg, raw, out, embed=embed)
        sites[embed] = (out, time.perf_counter() - t0, (out / "index.html").stat().st_size)
    with static_server(sites[True][0]) as url_in, static_server(sites[False][0]) as url_file:
        loads: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.loads):  # interleaved: a slower moment of the machine hits both
            loads[True] += _loads(browser, url_in, 1)
            loads[False] += _loads(browser, url_file, 1)
        edits = _edits(browser, url_file, path, good, bad, args.edits)
    for embed, (_out, took, size) in sites.items():
        how = "embedded  " if embed else "board.json"
        print(
            f"{name:10s} {how}: publish {took:5.2f} s, index.html {size / 1024:6.0f} KB; "
            f"first rows {_med(loads[embed])}"
        )
    print(f"{name:10s} edit of a threshold to painted ranks: {_med(edits)}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--loads", type=int, default=3)
    p.add_argument("--edits", type=int, default=5)
    p.add_argument("--anchors", type=Path, default=None, help="../shared/anchors elsewhere")
    args = p.parse_args()
    if args.anchors:
        datasets.ANCHORS = args.anchors
    with tempfile.TemporaryDirectory() as d, chromium() as browser:
        tmp = Path(d)
        boards = [
            ("ML-PEG", datasets.mlpeg_scale(tmp / "mlpeg")),
            ("1000x1000", datasets.large(tmp / "large")),
        ]
        for name, data in boards:
            run(name, data, tmp, browser, args)


if __name__ == "__main__":
    main()
