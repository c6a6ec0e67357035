"""The published site's speed: ``publish`` an ML-PEG-scale board (30 x 339, ML-PEG's tree) and a
1,000 x 1,000 one, serve each with ``python -m http.server`` over loopback and open it in
headless Chromium (a fresh context per load). Per load, from navigation (the page's own clock):
the first rows painted (``mplSite.paintedAt``: the frame that showed the table, then the task
after it), for the board as board.json (the default) and inside index.html (``--embed``), loads
interleaved. Then edits: a threshold typed into a box + Enter (two values in turn), from the key
event to the painted ranks; and in the Explore and Compare views, a category weight typed +
Enter, from the key event to the scatter / radar redrawn by Plotly and painted. One table per
board (the harness's).

    python -m benchmarks.bench_publish [--loads 3] [--edits 5] [--anchors DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tests.browser_utils import static_server

from .datasets import ANCHORS, large, mlpeg_scale
from .harness import Row, chromium, new_page, print_table

#: a box's text set, Enter pressed; resolves with the ms to the frame painted after the edit
#: (the frame, then the task after it), -1 when the page took no edit
EDIT = """([name, a, b, k]) => new Promise(resolve => {
  const box = document.querySelector(`input[name="${CSS.escape(name)}"]`);
  box.value = k % 2 ? a : b;
  const t0 = performance.now();
  const edits = window.mplSite.edits;
  box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  if (window.mplSite.edits === edits) { resolve(-1); return; }
  requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
})"""
PAINTED = "() => window.mplSite && window.mplSite.paintedAt"
#: the same for a category weight in the Explore or Compare view: to the plot redrawn (its
#: counter, mplSite.exploreDrawn / compareDrawn, moves when Plotly.react is done), then painted
EDIT_PLOT = """([name, counter, k]) => new Promise(resolve => {
  const box = document.querySelector(`input[name="${CSS.escape(name)}"]`);
  box.value = k % 2 ? "1.5" : "2.5";
  const S = window.mplSite, t0 = performance.now(), before = S[counter] || 0;
  box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  const wait = () => (S[counter] || 0) > before
    ? requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0))
    : setTimeout(wait, 1);
  wait();
})"""


def one_load(browser, url: str) -> float:
    page = new_page(browser)
    try:
        page.goto(url)
        page.wait_for_function(PAINTED, timeout=120_000)
        return page.evaluate(PAINTED)
    finally:
        page.context.close()


def edits(browser, url: str, metric: tuple[str, float, float], n: int) -> list[float]:
    path, good, bad = metric
    page = new_page(browser)
    try:
        page.goto(url + "?v=" + path.rsplit("/", 1)[0].replace("/", "%2F"))
        page.wait_for_function(PAINTED, timeout=120_000)
        a, b = good + 0.1 * (bad - good), good + 0.2 * (bad - good)
        out = [page.evaluate(EDIT, [f"{path}.good", repr(a), repr(b), k]) for k in range(n)]
    finally:
        page.context.close()
    if any(t < 0 for t in out):
        raise SystemExit(f"an edit of {path}.good was not taken")
    return out


def plot_edits(browser, url: str, view: str, category: str, n: int) -> list[float]:
    """ms from a category weight's Enter to the view's plot redrawn and painted, ``n`` times."""
    counter = view + "Drawn"
    page = new_page(browser)
    try:
        page.goto(url + "?v=" + view)
        page.wait_for_function(f"() => (window.mplSite.{counter} || 0) >= 1", timeout=120_000)
        return [page.evaluate(EDIT_PLOT, [f"{category}.weight", counter, k]) for k in range(n)]
    finally:
        page.context.close()


def first_linear_metric(cfg) -> tuple[str, float, float]:
    for c, b, m in cfg.iter_metrics():
        if m.normaliser == "linear" and isinstance(m.good, float) and isinstance(m.bad, float):
            return f"{c.name}/{b.name}/{m.name}", m.good, m.bad
    raise SystemExit("no linear metric with number thresholds")


def run(name: str, data: Path, tmp: Path, browser, args) -> None:
    import ml_peg_like as mpl
    from ml_peg_like.publish import publish

    cfg, raw = mpl.load_dataset(data)
    sites = {}
    for embed in (False, True):
        out = tmp / f"{name}-{embed}"
        t0 = time.perf_counter()
        publish(cfg, raw, out, embed=embed)
        sites[embed] = (out, time.perf_counter() - t0)
    with static_server(sites[False][0]) as url_file, static_server(sites[True][0]) as url_in:
        loads: dict[bool, list[float]] = {False: [], True: []}
        for k in range(args.loads):  # interleaved, the order alternating
            for embed in (False, True) if k % 2 == 0 else (True, False):
                loads[embed].append(one_load(browser, url_in if embed else url_file))
        took = edits(browser, url_file, first_linear_metric(cfg), args.edits)
        cat = cfg.categories[0].name
        plots = {
            v: plot_edits(browser, url_file, v, cat, args.edits) for v in ("explore", "compare")
        }
    file_row = f"{name}: first rows, board.json"
    rows = [
        Row(file_row, loads[False]),
        Row(f"{name}: first rows, embedded", loads[True], vs=file_row),
        Row(f"{name}: threshold + Enter to painted ranks", took),
        Row(f"{name}: Explore, weight + Enter to the redrawn scatter", plots["explore"]),
        Row(f"{name}: Compare, weight + Enter to the redrawn radar", plots["compare"]),
        Row(f"{name}: publish (board.json)", [sites[False][1] * 1000]),
    ]
    print_table(
        rows,
        f"{name}: index.html {sites[True][0].joinpath('index.html').stat().st_size // 1024} KiB embedded",
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--loads", type=int, default=3, help="loads per site (default 3)")
    p.add_argument("--edits", type=int, default=5, help="edits timed (default 5)")
    p.add_argument("--anchors", type=Path, default=ANCHORS, help="../shared/anchors elsewhere")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d, chromium() as browser:
        tmp = Path(d)
        boards = [
            ("ML-PEG", mlpeg_scale(tmp / "mlpeg", anchors=args.anchors)),
            ("1000x1000", large(tmp / "large")),
        ]
        for name, data in boards:
            run(name, data, tmp, browser, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
