#!/usr/bin/env python
"""Edit latency with the Explore view open vs closed, in headless Chromium.

One server, one browser, two pages: the overview (``?``, Explore closed) and the Explore view
(``?v=explore&x=<first category>&y=overall``). The same category-weight edit is committed on
both pages in turn (A/B interleaved, the page that goes first alternates), so that the load of a
shared machine hits both alike. Two times from the Enter keydown: "table", the first DOM state
where every rendered Overall cell shows the engine's value (a MutationObserver), on both pages;
and on the Explore page "scatter drawn", the later of the table and the first animation frame at
which the scatter's points hold the new overall scores (a poll on every frame: the scatter is
drawn after the table's paint, assets/plots.js). Also the server-side cost of the Explore part
alone (``explore.fill``: values, Pareto front, the figure) per edit.

    python benchmarks/bench_explore.py [--edits 10] [--only ml-peg,1000x1000] [--gl N]
    python benchmarks/bench_explore.py --base /work/main --data /tmp/benchdata/ml-peg --edits 20

``--base CHECKOUT --data DIR``: A/B against another checkout in one run: ``ml-peg-like serve``
of a copy of DIR from this tree and from CHECKOUT (``python -m ml_peg_like`` run there), four
pages (each server's overview and Explore view) in one browser, every edit typed into all four
in a rotating order; prints both trees' medians and open / closed ratios.

``--data DIR`` alone: that data set instead of the generated ones (e.g. ``/work/data/ml-peg``
when the ML-PEG anchors are not beside the checkout).

``--gl N``: Plotly ``scattergl`` above N points (default: the dashboard's own threshold), e.g.
``--gl 5000`` to measure SVG ``scatter`` at 1,000 models.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_dashboard import INSTALL, datasets, wait_health  # noqa: E402
from browser_utils import chromium, live_server  # noqa: E402

from ml_peg_like import load_dataset, score  # noqa: E402
from ml_peg_like.dashboard import create_app, figures  # noqa: E402
from ml_peg_like.dashboard.components import explore as ev  # noqa: E402
from ml_peg_like.dashboard.tables import fmt_score  # noqa: E402

GRAPH_OK = """(exp) => { const g = document.querySelector('#explore-graph .js-plotly-plot');
  if (!g || !g.data) return false;
  let n = 0;
  for (const t of g.data) { if (!t.customdata) continue;
    for (let i = 0; i < t.customdata.length; i++) {
      const want = exp[t.customdata[i]]; if (want === undefined) continue;
      if (Math.abs(t.y[i] - want) > 1e-9) return false; n++; } }
  return n > 0; }"""


ARM_GRAPH = """(exp) => { const ok = GRAPH_OK;
  window.__graphDone = new Promise(resolve => {
    const poll = () => ok(exp) ? resolve(performance.now()) : requestAnimationFrame(poll);
    requestAnimationFrame(poll); }); }"""


def server_side(cfg, raw, n=20) -> float:
    """Median ms of explore.fill (the scatter of overall vs the first category) per edit."""
    import json

    import plotly.utils

    app = create_app(cfg, raw, robustness=False)
    cache = app.score_cache
    sel = dict(ev.defaults(cache), x=cfg.categories[0].name, y="overall")
    ts = []
    for k in range(n):
        _c, s = cache.scores_for({cfg.categories[0].name: {"weight": 1.5 + k}})
        out: dict = {}
        t = time.perf_counter()
        ev.fill(
            out,
            cache=cache,
            scores=s,
            page="explore",
            view="",
            is_bench=False,
            sel=sel,
            models=None,
            view_changed=False,
        )
        json.dumps(out, cls=plotly.utils.PlotlyJSONEncoder)  # what goes over the wire
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts)


def _open(browser, url: str, query: str, explore: bool):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.goto(url + "/" + query)
    page.wait_for_selector("#grid .ag-cell[col-id='o']")
    if explore:
        page.wait_for_selector("#explore-graph .js-plotly-plot")
    page.wait_for_timeout(300)
    page.evaluate(INSTALL)
    return page


def _edit(page, path: str, w: float, expected: dict, exp_y: dict | None) -> tuple[float, float]:
    """(grid ms, end ms) of one committed edit."""
    page.evaluate("(e) => window.__arm(e)", expected)
    if exp_y is not None:  # stamped in the page (a poll on every frame), not by Playwright
        page.evaluate(ARM_GRAPH.replace("GRAPH_OK", GRAPH_OK), exp_y)
    box = page.locator(f"input[name='{path}']")
    box.fill(repr(w))
    box.press("Enter")
    t_grid = page.evaluate("async () => (await window.__done)")
    t_end = t_grid
    if exp_y is not None:  # the later of the two (the scatter may be drawn before the grid)
        t_end = max(t_grid, page.evaluate("async () => (await window.__graphDone)"))
    t0 = page.evaluate("() => window.__t0")
    return t_grid - t0, t_end - t0


def interleaved(cfg, raw, n: int) -> dict[str, list[float]]:
    app = create_app(cfg, raw, robustness=False)
    cat = cfg.categories[0].name
    path = f"{cat}.weight"
    res: dict[str, list[float]] = {"closed": [], "open_grid": [], "open": []}
    with live_server(app) as url, chromium() as b:
        closed = _open(b, url, "", False)
        opened = _open(b, url, f"?v=explore&x={quote(cat)}&y=overall", True)
        for k in range(n):
            w = [2.0, 0.5, 3.0, 0.25][k % 4] + k * 1e-3
            new = score(raw, cfg.apply_changes({cat: {"weight": w}}))
            ov = new.overall["score"]
            expected = {m: fmt_score(v, cfg.scale) for m, v in ov.items()}
            exp_y = {m: round(float(v), 12) for m, v in ov.items() if v == v}
            order = (closed, opened) if k % 2 == 0 else (opened, closed)
            for page in order:
                if page is closed:
                    res["closed"].append(_edit(page, path, w, expected, None)[1])
                else:
                    g, e = _edit(page, path, w, expected, exp_y)
                    res["open_grid"].append(g)
                    res["open"].append(e)
                page.wait_for_timeout(150)
    return res


@contextmanager
def served(tree: Path, data_dir: Path):
    """``ml-peg-like serve data_dir`` of the package in ``tree`` (a subprocess); yields its URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "ml_peg_like", "serve", str(data_dir), "--port", str(port)]
    proc = subprocess.Popen(
        cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_health(proc, url, time.perf_counter(), str(tree))
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def ab(base: Path, data: Path, n: int) -> None:
    """This tree against ``base``: four pages, every edit in all four, the order rotating."""
    cfg, raw = load_dataset(data)
    cat = cfg.categories[0].name
    path = f"{cat}.weight"
    trees = {"base": base, "new": ROOT}
    res = {(t, k): [] for t in trees for k in ("closed", "open_grid", "open")}
    with tempfile.TemporaryDirectory() as tmp, chromium() as b:
        urls = {}
        stack = []
        for t, tree in trees.items():
            d = Path(tmp) / t  # a copy: serve may write its cache beside the data
            shutil.copytree(data, d)
            cm = served(tree, d)
            urls[t] = cm.__enter__()
            stack.append(cm)
        try:
            pages = []
            for t in trees:
                pages.append((t, False, _open(b, urls[t], "", False)))
                q = f"?v=explore&x={quote(cat)}&y=overall"
                pages.append((t, True, _open(b, urls[t], q, True)))
            for k in range(n):
                w = [2.0, 0.5, 3.0, 0.25][k % 4] + k * 1e-3
                ov = score(raw, cfg.apply_changes({cat: {"weight": w}})).overall["score"]
                expected = {m: fmt_score(v, cfg.scale) for m, v in ov.items()}
                exp_y = {m: round(float(v), 12) for m, v in ov.items() if v == v}
                order = pages[k % 4 :] + pages[: k % 4]
                for t, is_open, page in order if k % 2 == 0 else order[::-1]:
                    g, e = _edit(page, path, w, expected, exp_y if is_open else None)
                    if is_open:
                        res[(t, "open_grid")].append(g)
                        res[(t, "open")].append(e)
                    else:
                        res[(t, "closed")].append(e)
                    page.wait_for_timeout(150)
        finally:
            for cm in stack:
                cm.__exit__(None, None, None)
    for t, tree in trees.items():
        med = {k: statistics.median(res[(t, k)]) for k in ("closed", "open_grid", "open")}
        print(
            f"{t:4s} ({tree}): {n} edits, table {med['closed']:.0f} ms closed vs "
            f"{med['open_grid']:.0f} ms open ({100 * (med['open_grid'] / med['closed'] - 1):+.0f} %), "
            f"scatter drawn {med['open']:.0f} ms ({100 * (med['open'] / med['closed'] - 1):+.0f} %); "
            f"paired: {paired(res[(t, 'open')], res[(t, 'closed')])}",
            flush=True,
        )


def paired(opened: list[float], closed: list[float]) -> str:
    """The median and quartiles of the per-edit ratios open / closed (the same edit typed into
    both pages one after the other: less moved by the machine's load than the ratio of medians)."""
    q = statistics.quantiles([o / c for o, c in zip(opened, closed, strict=True)], n=4)
    return f"median {100 * (q[1] - 1):+.0f} % (q25 {100 * (q[0] - 1):+.0f} %, q75 {100 * (q[2] - 1):+.0f} %)"


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--edits", type=int, default=10)
    p.add_argument("--only", default="ml-peg,1000x1000")
    p.add_argument("--gl", type=int, default=None, help="scattergl above this many points")
    p.add_argument("--base", default=None, help="A/B against this checkout (with --data)")
    p.add_argument("--data", default=None, help="a data set directory (required with --base)")
    args = p.parse_args(argv)
    if args.base:
        ab(Path(args.base), Path(args.data), args.edits)
        return 0
    if args.gl is not None:
        figures.GL_POINTS = args.gl
    sets = datasets(set(args.only.split(",")))
    if args.data:  # a data set directory instead of the generated ones
        sets = [(Path(args.data).name, *load_dataset(args.data))]
    for name, cfg, raw in sets:
        r = interleaved(cfg, raw, args.edits)
        med = {k: statistics.median(v) for k, v in r.items()}
        fill = server_side(cfg, raw)
        kind = "scattergl" if len(raw.models) > figures.GL_POINTS else "scatter"
        print(
            f"{name:7s} {len(raw.models):5d} models x {len(cfg.metric_paths()):5d} metrics "
            f"({kind}), {args.edits} interleaved edits: table median {med['closed']:.0f} ms "
            f"(Explore closed) vs {med['open_grid']:.0f} ms (Explore open): "
            f"{100 * (med['open_grid'] / med['closed'] - 1):+.0f} %; scatter drawn "
            f"{med['open']:.0f} ms (the later of table and scatter, Explore open): "
            f"{100 * (med['open'] / med['closed'] - 1):+.0f} % of the closed table "
            f"(paired {paired(r['open'], r['closed'])}); "
            f"explore.fill {fill:.1f} ms server-side",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
