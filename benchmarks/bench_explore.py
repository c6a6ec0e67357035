#!/usr/bin/env python
"""Edit latency with the Explore view open vs closed (issue 17), in headless Chromium.

The same category-weight edit is committed N times on the overview (``?``) and on the Explore
view (``?v=explore&x=<first category>&y=overall``); the time runs from the Enter keydown to the
first DOM state where every rendered Overall cell shows the engine's value AND (Explore) the
scatter's points hold the new overall scores. Also the server-side cost of the Explore part
alone (``explore.fill``: values, Pareto front, the figure) per edit.

    python benchmarks/bench_explore.py [--edits 10] [--only ml-peg,large]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_dashboard import INSTALL, datasets  # noqa: E402
from browser_utils import chromium, live_server  # noqa: E402

from ml_peg_like import score  # noqa: E402
from ml_peg_like.dashboard import create_app  # noqa: E402
from ml_peg_like.dashboard.components import explore as ev  # noqa: E402
from ml_peg_like.dashboard.tables import fmt_score  # noqa: E402

GRAPH_OK = """(exp) => { const g = document.querySelector('#explore-graph .js-plotly-plot');
  if (!g || !g.data) return false;
  for (const t of g.data) { if (!t.customdata) continue;
    for (let i = 0; i < t.customdata.length; i++) {
      const want = exp[t.customdata[i]]; if (want === undefined) continue;
      if (Math.abs(t.y[i] - want) > 1e-9) return false; } }
  return true; }"""


def server_side(cfg, raw, n=20) -> float:
    """Median ms of explore.fill (the scatter of overall vs the first category) per edit."""
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
        out["ex_fig"].to_plotly_json()
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts)


def browser(cfg, raw, query: str, n: int, explore: bool) -> float:
    app = create_app(cfg, raw, robustness=False)
    cat = cfg.categories[0].name
    path = f"{cat}.weight"
    times = []
    with live_server(app) as url, chromium() as b:
        page = b.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url + "/" + query)
        page.wait_for_selector("#grid .ag-cell[col-id='o']")
        if explore:
            page.wait_for_selector("#explore-graph .js-plotly-plot")
        page.wait_for_timeout(300)
        page.evaluate(INSTALL)
        for k in range(n):
            w = [2.0, 0.5, 3.0, 0.25][k % 4] + k * 1e-3
            new = score(raw, cfg.apply_changes({cat: {"weight": w}}))
            ov = new.overall["score"]
            expected = {m: fmt_score(v, cfg.scale) for m, v in ov.items()}
            exp_y = {m: round(float(v), 12) for m, v in ov.items() if v == v}
            page.evaluate("(e) => window.__arm(e)", expected)
            box = page.locator(f"input[name='{path}']")
            box.fill(repr(w))
            box.press("Enter")
            t_grid = page.evaluate("async () => (await window.__done)")
            if explore:
                page.wait_for_function(GRAPH_OK, arg=exp_y, polling="raf")
                t_end = page.evaluate("() => performance.now()")
            else:
                t_end = t_grid
            times.append(t_end - page.evaluate("() => window.__t0"))
            page.wait_for_timeout(150)
    return statistics.median(times)


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--edits", type=int, default=10)
    p.add_argument("--only", default="ml-peg,large")
    args = p.parse_args(argv)
    for name, cfg, raw in datasets(set(args.only.split(","))):
        cat = cfg.categories[0].name
        from urllib.parse import quote

        q_ex = f"?v=explore&x={quote(cat)}&y=overall"
        closed = browser(cfg, raw, "", args.edits, False)
        opened = browser(cfg, raw, q_ex, args.edits, True)
        fill = server_side(cfg, raw)
        print(
            f"{name:7s} {len(raw.models):5d} models x {len(cfg.metric_paths()):5d} metrics: "
            f"weight edit median {closed:.0f} ms (Explore closed) vs {opened:.0f} ms (Explore "
            f"open, scatter redrawn): {100 * (opened / closed - 1):+.0f} %; explore.fill "
            f"{fill:.1f} ms server-side"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
