#!/usr/bin/env python
"""Where an edit's browser time goes with the Explore view open vs closed: V8 CPU
profile (CDP) of N weight edits on the overview and N on the Explore page (x = the first
category, y = overall) of one browser, edits interleaved; prints the self time per edit of each
script (Plotly, Dash's renderer, React, AG Grid, ...) on both pages and the difference.

    python benchmarks/profile_explore.py [--tree CHECKOUT] [--edits 12] [--data DIR]

``--tree``: profile another checkout's package (e.g. ``/work/main``), with this tree's data sets
and browser helpers; ``--data``: a data set directory (e.g. ``/work/data/ml-peg``) instead of
the ML-PEG anchors beside the checkout. Absolute times include the machine's load; compare the two pages of a run.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = (
    "plotly",
    "async-graph",
    "dash_renderer",
    "react-dom",
    "dash_core_components",
    "dash_ag_grid",
    "async-community",
    "plots.js",
    "(garbage collector)",
    "(program)",
)


def self_times(profile: dict, by_function: bool = False) -> collections.Counter:
    """ms of self time per script (file name without version) of a CDP profile; per function
    (``script:function:line``) with ``by_function``."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    per_node: collections.Counter = collections.Counter()
    for s, d in zip(profile["samples"], profile["timeDeltas"], strict=False):
        per_node[s] += d
    out: collections.Counter = collections.Counter()
    for nid, t in per_node.items():
        cf = nodes[nid]["callFrame"]
        name = cf["url"].rsplit("/", 1)[-1].split("?")[0].split(".v")[0]
        if by_function:
            name = f"{name}:{cf['functionName'] or '(anonymous)'}:{cf['lineNumber']}"
        out[name or cf["functionName"] or "(native)"] += t / 1000
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", default=str(ROOT), help="the checkout whose package is profiled")
    p.add_argument("--edits", type=int, default=12)
    p.add_argument("--functions", type=int, default=0, help="also the N functions that differ most")
    p.add_argument("--data", default=None, help="a data set directory instead of the anchors'")
    args = p.parse_args(argv)
    sys.path[:0] = [args.tree, str(ROOT / "benchmarks"), str(ROOT / "tests")]
    import ml_peg_like  # noqa: PLC0415 (first: bench_dashboard puts this tree on the path)

    package = ml_peg_like.__file__
    from bench_dashboard import INSTALL, datasets  # noqa: PLC0415
    from browser_utils import chromium, live_server  # noqa: PLC0415

    from ml_peg_like import load_dataset, score  # noqa: PLC0415
    from ml_peg_like.dashboard import create_app  # noqa: PLC0415
    from ml_peg_like.dashboard.tables import fmt_score  # noqa: PLC0415

    cfg, raw = load_dataset(args.data) if args.data else next(datasets({"ml-peg"}))[1:]
    app = create_app(cfg, raw, robustness=False)
    cat = cfg.categories[0].name
    n = args.edits
    with live_server(app) as url, chromium() as b:
        pages = {}
        for is_open in (False, True):
            page = b.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url + (f"/?v=explore&x={quote(cat)}&y=overall" if is_open else "/"))
            page.wait_for_selector("#grid .ag-cell[col-id='o']")
            if is_open:
                page.wait_for_selector("#explore-graph .js-plotly-plot")
            page.wait_for_timeout(1000)
            page.evaluate(INSTALL)
            cdp = page.context.new_cdp_session(page)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 100})
            pages[is_open] = (page, cdp)
        lat: dict[bool, list[float]] = {False: [], True: []}
        for _page, cdp in pages.values():
            cdp.send("Profiler.start")
        for k in range(n):
            w = [2.0, 0.5, 3.0, 0.25][k % 4] + k * 1e-3
            ov = score(raw, cfg.apply_changes({cat: {"weight": w}})).overall["score"]
            expected = {m: fmt_score(v, cfg.scale) for m, v in ov.items()}
            for is_open in (False, True) if k % 2 == 0 else (True, False):
                page = pages[is_open][0]
                page.evaluate("(e) => window.__arm(e)", expected)
                box = page.locator(f"input[name='{cat}.weight']")
                box.fill(repr(w))
                box.press("Enter")
                lat[is_open].append(
                    page.evaluate("async () => (await window.__done) - window.__t0")
                )
                page.wait_for_timeout(400)
        profs = {o: pages[o][1].send("Profiler.stop")["profile"] for o in pages}
        res = {o: self_times(profs[o]) for o in pages}
    print(
        f"{package}: {n} edits per page, table median "
        f"{statistics.median(lat[False]):.0f} ms closed, {statistics.median(lat[True]):.0f} ms open"
    )
    for key in SCRIPTS:
        c, o = (sum(v for s, v in res[x].items() if s.startswith(key)) / n for x in (False, True))
        print(f"  {key:22s} closed {c:6.1f}  open {o:6.1f} ms per edit  ({o - c:+.1f})")
    c, o = (sum(v for s, v in res[x].items() if s != "(idle)") / n for x in (False, True))
    print(f"  {'all but idle':22s} closed {c:6.1f}  open {o:6.1f} ms per edit  ({o - c:+.1f})")
    if args.functions:
        fn = {o: self_times(profs[o], by_function=True) for o in profs}
        diff = {k: (fn[True][k] - fn[False][k]) / n for k in set(fn[True]) | set(fn[False])}
        print(
            f"  the {args.functions} functions the open page adds most self time to (ms per edit):"
        )
        for k in sorted(diff, key=diff.get, reverse=True)[: args.functions]:
            print(f"    {diff[k]:+6.1f}  {k}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
