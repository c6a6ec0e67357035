"""Edit latency with the Explore view open vs closed, in headless Chromium.

One server per checkout (``ml-peg-like serve DIR``), one browser, two pages per server: the
overview (``?``, Explore closed) and the Explore view (``?v=explore&x=<first category>&y=overall``).
The same category-weight edit is committed on every page in turn (the order rotating, and
reversed every other edit), so that the load of a shared machine hits all alike. Two times from
the Enter keydown: "table", the first DOM state where every rendered Overall cell shows the
engine's value (a MutationObserver), on both pages; and on the Explore page "scatter drawn", the
later of the table and the first animation frame at which the scatter's points hold the new
overall scores (a poll on every frame). Also the server-side cost of the Explore part alone
(``explore.fill``: values, Pareto front, the figure) per edit, in this process.

    python -m benchmarks.bench_explore [--edits 10] [--only ml-peg,1000x1000] [--data DIR]
        [--before DIR]

``--data DIR``: that data set directory instead of the generated ones (e.g. ``/work/data/ml-peg``
when the ML-PEG anchors are not beside the checkout). ``--before DIR``: that checkout too, its
pages in the same rotation; both checkouts' medians and open / closed ratios are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import plotly.utils

from ml_peg_like import load_dataset, score
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.components.explore import view as ev
from ml_peg_like.numfmt import fmt_score

from .datasets import dashboard_sets, write_dataset
from .harness import (
    Row,
    Server,
    add_before,
    checkouts,
    chromium,
    load_average,
    new_page,
    print_table,
)
from .page import INSTALL

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


def server_side(cfg, raw, n=20) -> list[float]:
    """ms of explore.fill (the scatter of overall vs the first category) per edit."""
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
    return ts


def _open(browser, url: str, query: str, explore: bool):
    page = new_page(browser)
    page.goto(url + "/" + query, timeout=120_000)
    page.wait_for_selector("#grid .ag-cell[col-id='o']", timeout=120_000)
    if explore:
        page.wait_for_selector("#explore-graph .js-plotly-plot", timeout=120_000)
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


def edit_values(cfg, raw, k: int):
    """The ``k``-th weight of the first category and what the pages must show after it."""
    cat = cfg.categories[0].name
    w = [2.0, 0.5, 3.0, 0.25][k % 4] + k * 1e-3
    ov = score(raw, cfg.apply_changes({cat: {"weight": w}})).overall["score"]
    expected = {m: fmt_score(v, cfg.scale) for m, v in ov.items()}
    exp_y = {m: round(float(v), 12) for m, v in ov.items() if v == v}
    return w, expected, exp_y


def rotated(pages: list, k: int) -> list:
    """The pages in edit ``k``'s order: rotated by ``k``, reversed every other edit."""
    order = pages[k % len(pages) :] + pages[: k % len(pages)]
    return order if k % 2 == 0 else order[::-1]


def run_edits(pages: list, cfg, raw, n: int) -> dict:
    """``n`` edits typed into every page (tag, open?, page); {(tag, measure): ms per edit}."""
    path = f"{cfg.categories[0].name}.weight"
    res: dict = {}
    for k in range(n):
        w, expected, exp_y = edit_values(cfg, raw, k)
        for tag, is_open, page in rotated(pages, k):
            g, e = _edit(page, path, w, expected, exp_y if is_open else None)
            if is_open:
                res.setdefault((tag, "open_grid"), []).append(g)
                res.setdefault((tag, "open"), []).append(e)
            else:
                res.setdefault((tag, "closed"), []).append(e)
            page.wait_for_timeout(150)
    return res


def measure(trees: dict, data: Path, n: int) -> dict:
    """Every checkout's server on ``data``, its overview and Explore page, ``n`` edits."""
    cfg, raw = load_dataset(data)
    q = f"?v=explore&x={quote(cfg.categories[0].name)}&y=overall"
    with contextlib.ExitStack() as stack, chromium() as browser:
        pages = []
        for tag, tree in trees.items():
            server = stack.enter_context(Server(data, tree))
            server.wait_health()
            pages.append((tag, False, _open(browser, server.url, "", False)))
            pages.append((tag, True, _open(browser, server.url, q, True)))
        return run_edits(pages, cfg, raw, n)


def rows(name: str, trees: dict, res: dict) -> list[Row]:
    out = []
    for tag in trees:
        closed = f"{name} {tag}: table, Explore closed"
        out += [
            Row(closed, res[(tag, "closed")]),
            Row(f"{name} {tag}: table, Explore open", res[(tag, "open_grid")], vs=closed),
            Row(f"{name} {tag}: scatter drawn, Explore open", res[(tag, "open")], vs=closed),
        ]
    return out


def paired(opened: list[float], closed: list[float]) -> str:
    """The median and quartiles of the per-edit ratios open / closed (the same edit typed into
    both pages one after the other: less moved by the machine's load than the ratio of medians)."""
    if len(opened) < 2:
        return "n/a (fewer than two edits)"
    q = statistics.quantiles([o / c for o, c in zip(opened, closed, strict=True)], n=4)
    return f"median {100 * (q[1] - 1):+.0f} % (q25 {100 * (q[0] - 1):+.0f} %, q75 {100 * (q[2] - 1):+.0f} %)"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--edits", type=int, default=10)
    p.add_argument("--only", default="ml-peg,1000x1000")
    p.add_argument("--data", default=None, help="a data set directory instead of --only's")
    add_before(p)
    args = p.parse_args(argv)
    trees = checkouts(args.before)
    if args.data:
        sets = [(Path(args.data).name, Path(args.data))]
    else:
        root = Path(tempfile.mkdtemp(prefix="bench-explore-"))
        sets = [
            (n, write_dataset(n, c, r, root)) for n, c, r in dashboard_sets(args.only.split(","))
        ]
    for name, d in sets:
        res = measure(trees, d, args.edits)
        cfg, raw = load_dataset(d)
        fill = Row(f"{name}: explore.fill per edit, server side", server_side(cfg, raw))
        print_table(
            rows(name, trees, res) + [fill], f"{name}: {len(raw.models)} models; {load_average()}"
        )
        for tag in trees:
            print(f"{name} {tag}: scatter drawn / table closed, paired per edit: "
                  f"{paired(res[(tag, 'open')], res[(tag, 'closed')])}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
