"""Where an edit's browser time goes with the Explore view open vs closed: V8 CPU
profile (CDP) of N weight edits on the overview and N on the Explore page (x = the first
category, y = overall) of one browser, edits interleaved; prints the self time per edit of each
script (Plotly, Dash's renderer, React, AG Grid, ...) on both pages and the difference.

    python -m benchmarks.profile_explore [--tree CHECKOUT] [--edits 12] [--data DIR]

``ml-peg-like serve`` of ``--tree`` (default: this checkout; e.g. ``/work/main``) is spawned on
``--data``, a data set directory (default: the ML-PEG-scale data set of ``datasets``, which
needs the ML-PEG anchors beside the checkout). Absolute times include the machine's load;
compare the two pages of a run.
"""

from __future__ import annotations

import argparse
import collections
import tempfile
from pathlib import Path
from urllib.parse import quote

from ml_peg_like import load_dataset

from .bench_explore import edit_values
from .datasets import dashboard_sets, write_dataset
from .harness import ROOT, Row, Server, chromium, new_page, prepare_checkout, print_table
from .page import INSTALL, typed_edit

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


def open_pages(browser, url: str, cat: str) -> dict:
    """{explore open?: (page, CDP session)}: the overview and the Explore view, stamps armed."""
    pages = {}
    for is_open in (False, True):
        page = new_page(browser)
        page.goto(url + (f"/?v=explore&x={quote(cat)}&y=overall" if is_open else "/"))
        page.wait_for_selector("#grid .ag-cell[col-id='o']", timeout=120_000)
        if is_open:
            page.wait_for_selector("#explore-graph .js-plotly-plot", timeout=120_000)
        page.wait_for_timeout(1000)
        page.evaluate(INSTALL)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 100})
        pages[is_open] = (page, cdp)
    return pages


def profile(url: str, cfg, raw, n: int):
    """``n`` edits on both pages, interleaved: ({open?: table ms per edit}, {open?: profile})."""
    cat = cfg.categories[0].name
    lat: dict[bool, list[float]] = {False: [], True: []}
    with chromium() as browser:
        pages = open_pages(browser, url, cat)
        for _page, cdp in pages.values():
            cdp.send("Profiler.start")
        for k in range(n):
            w, expected, _ = edit_values(cfg, raw, k)
            for is_open in (False, True) if k % 2 == 0 else (True, False):
                page = pages[is_open][0]
                lat[is_open].append(typed_edit(page, f"{cat}.weight", repr(w), expected))
                page.wait_for_timeout(400)
        return lat, {o: pages[o][1].send("Profiler.stop")["profile"] for o in pages}


def script_rows(lat: dict, profs: dict, n: int) -> list[Row]:
    """Table ms per edit on both pages, then each script's self time per edit (one value: the
    profile's total over the edits / n), open against closed."""
    res = {o: self_times(profs[o]) for o in profs}
    rows = [Row("table, closed", lat[False]), Row("table, open", lat[True], vs="table, closed")]
    keys = [(k, lambda s, k=k: s.startswith(k)) for k in SCRIPTS]
    keys.append(("all but idle", lambda s: s != "(idle)"))
    for key, pick in keys:
        c, o = (sum(v for s, v in res[x].items() if pick(s)) / n for x in (False, True))
        rows.append(Row(f"{key}, closed", [c]))
        rows.append(Row(f"{key}, open", [o], vs=f"{key}, closed"))
    return rows


def function_rows(profs: dict, n: int, top: int) -> list[Row]:
    """The ``top`` functions the open page adds most self time to (ms per edit)."""
    fn = {o: self_times(profs[o], by_function=True) for o in profs}
    diff = {k: (fn[True][k] - fn[False][k]) / n for k in set(fn[True]) | set(fn[False])}
    return [
        Row(f"open - closed: {k}", [diff[k]])
        for k in sorted(diff, key=diff.get, reverse=True)[:top]
    ]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", default=str(ROOT), help="the checkout whose package is profiled")
    p.add_argument("--edits", type=int, default=12)
    p.add_argument("--functions", type=int, default=0, help="also the N functions that differ most")
    p.add_argument("--data", default=None, help="a data set directory instead of the ML-PEG one")
    args = p.parse_args(argv)
    if args.data:
        data = Path(args.data)
    else:
        sets = list(dashboard_sets(["ml-peg"]))
        if not sets:
            return 1
        data = write_dataset("ml-peg", *sets[0][1:], Path(tempfile.mkdtemp(prefix="profile-")))
    cfg, raw = load_dataset(data)
    tree = prepare_checkout(Path(args.tree))
    with Server(data, tree) as server:
        server.wait_health()
        lat, profs = profile(server.url, cfg, raw, args.edits)
    rows = script_rows(lat, profs, args.edits)
    if args.functions:
        rows += function_rows(profs, args.edits, args.functions)
    print_table(rows, f"{tree}: {args.edits} edits per page; self time in ms per edit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
