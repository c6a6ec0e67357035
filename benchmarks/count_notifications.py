#!/usr/bin/env python
"""Counts the Redux store notifications of one threshold edit. Dash's renderer is a
Redux store: every action that reaches its reducer notifies every subscriber, i.e. runs the
selector of every component of the page and Dash's observers, so at ML-PEG scale the number of
notifications per edit is the browser's main cost after the answer.

``ml-peg-like serve DIR`` is spawned from a checkout, headless Chromium opens the benchmark view
of the most influential metric (``bench_dashboard.influential_metric``) and makes ``--edits``
threshold edits; the reducer is wrapped through Redux's devtools compose hook (so every action
is seen, including the thunks' own dispatches) and the actions from Enter until 400 ms after the
cells are right are listed by type and by component / prop (``ON_PROP_CHANGE``) or callback.

    python benchmarks/count_notifications.py DATA_DIR [--checkout .] [--edits 3] [--list]

``--profile``: a V8 CPU profile over the edits (with the wait for the cells and 400 ms after
each), Dash's unminified bundles served (``DASH_SERVE_DEV_BUNDLES``). Per edit it prints the count; then the counts of the last edit by action type and by
component.prop, and with ``--list`` every action of the last edit in order.
"""

from __future__ import annotations

import argparse
import collections
import os
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from ab_edit import FRACTIONS, spawn  # noqa: E402
from bench_dashboard import (  # noqa: E402
    INSTALL,
    chromium,
    fmt_score,
    influential_metric,
    make_query,
    score,
)
from profile_edit import FETCH_STAMPS  # noqa: E402

from ml_peg_like import load_dataset  # noqa: E402

#: every notification of the store (Dash's production bundle has no devtools hook: a listener
#: compares the state with the last one and names what changed -- the slices of the state, and
#: for the layout the component's id and props, found by following the changed objects down)
HOOK = """() => {
  window.__actions = [];
  const diffLayout = (a, b) => {
    // follow the objects whose identity changed, down to a component's props
    let node = b, old = a, guard = 0;
    while (node && old && node !== old && guard++ < 80) {
      if (node.props && old.props && node.props !== old.props) {
        const keys = Object.keys(node.props).filter((k) => node.props[k] !== old.props[k]);
        const id = node.props.id;
        const deeper = keys.filter((k) => k === 'children' && typeof node.props[k] === 'object');
        if (deeper.length && keys.length === 1) {
          node = node.props.children; old = old.props.children; continue;
        }
        return (typeof id === 'string' ? id : JSON.stringify(id)) + ' ' + keys.join(',');
      }
      const ks = Object.keys(node).filter((k) => node[k] !== old[k]);
      if (!ks.length) return '?';
      node = node[ks[0]]; old = old[ks[0]];
    }
    return '?';
  };
  const attach = () => {
    const store = (window.dash_stores || [])[0];
    if (!store) { setTimeout(attach, 5); return; }
    let prev = store.getState();
    store.subscribe(() => {
      const s = store.getState();
      const changed = Object.keys(s).filter((k) => s[k] !== prev[k]);
      let what = changed.join(',');
      if (s.layout !== prev.layout) what = 'layout: ' + diffLayout(prev.layout, s.layout);
      else if (s.callbacks !== prev.callbacks) {
        const c = s.callbacks, p = prev.callbacks;
        what = 'callbacks.' + Object.keys(c).filter((k) => c[k] !== p[k]).join(',');
      }
      window.__actions.push([performance.now(), changed.join(',') || '(none)', what]);
      prev = s;
    });
  };
  attach();
  // --profile: a 3 ms busy loop of a named function at Enter aligns the CPU profile's clock
  // with performance.now()
  window.__anchors = [];
  document.addEventListener('keydown', function mplAnchor(e) {
    if (e.key !== 'Enter') return;
    const t = performance.now();
    while (performance.now() - t < 3) { /* the anchor's samples */ }
    window.__anchors.push(t);
  }, true);
}"""

#: the phases of an edit (ms from Enter): to the request, to the answer parsed, to the cells
#: right, and 400 ms after (the curve and plots drawn)
PHASES = ("call", "wait", "after", "later")


def phase_profile(prof: dict, edits: list[dict], top: int = 24, inclusive: int = 0) -> None:
    """Self time per phase (``PHASES``) of the profiled edits, by script and by function: each
    sample is placed by its time relative to its edit's anchor (``HOOK``)."""
    nodes = {n["id"]: n for n in prof["nodes"]}
    t = prof["startTime"]
    samples = []
    for nid, dt in zip(prof["samples"], prof["timeDeltas"], strict=False):
        t += dt
        samples.append((t / 1000, nid, dt / 1000))
    anchor_fn = [s for s in samples if nodes[s[1]]["callFrame"]["functionName"] == "mplAnchor"]
    if not anchor_fn:
        print("  (no anchor samples)")
        return
    # the first anchor sample of each edit (anchors are >= 100 ms apart)
    firsts = [anchor_fn[0][0]]
    for ts, _n, _d in anchor_fn[1:]:
        if ts - firsts[-1] > 100:
            firsts.append(ts)
    per: dict[str, dict] = {ph: {} for ph in PHASES}
    incl: dict[str, dict] = {ph: {} for ph in PHASES}  # inclusive: a sample counts for its callers
    parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}
    busy: list[list[float]] = []  # per edit, per phase
    n_used = 0
    for k, e in enumerate(edits):
        if k == 0 or k >= len(firsts):
            continue  # the first edit warms up
        n_used += 1
        base = firsts[k] - e["anchor"]  # profile ms = performance.now() + base
        bounds = [e["t0"] - 5, e["call"], e["parsed"], e["done"], e["done"] + 400]
        busy.append([0.0] * len(PHASES))
        for ts, nid, d in samples:
            pt = ts - base
            for i, (ph, lo, hi) in enumerate(zip(PHASES, bounds, bounds[1:], strict=False)):
                if lo <= pt < hi:
                    f = nodes[nid]["callFrame"]
                    if f["functionName"] not in ("(idle)", "mplAnchor"):
                        busy[-1][i] += d
                    script = f["url"].rsplit("/", 1)[-1].split("?")[0].split(".")[0][:24]
                    if script:
                        script += f":{f['lineNumber']}:{f['columnNumber']}"
                    key = (f["functionName"] or "(anon)", script)
                    per[ph][key] = per[ph].get(key, 0.0) + d
                    seen = set()
                    up = nid
                    while up is not None:
                        uf = nodes[up]["callFrame"]
                        name = uf["functionName"] or "(anon)"
                        where = uf["url"].rsplit("/", 1)[-1].split("?")[0].split(".")[0][:20]
                        k2 = (name, f"{where}:{uf['lineNumber']}" if where else "")
                        if k2 not in seen:
                            seen.add(k2)
                            incl[ph][k2] = incl[ph].get(k2, 0.0) + d
                        up = parent.get(up)
    print("  busy ms per edit and phase " + "/".join(PHASES) + ":")
    print("    " + "; ".join("/".join(f"{x:.0f}" for x in row) for row in busy))
    for ph in PHASES:
        total = sum(v for (fn, _s), v in per[ph].items() if fn not in ("(idle)", "mplAnchor"))
        print(f"  phase {ph}: {total / max(n_used, 1):.1f} ms busy per edit; by script:")
        scripts: dict[str, float] = {}
        for (fn, sc), v in per[ph].items():
            if fn not in ("(idle)", "mplAnchor"):
                sc = sc.split(":")[0] or fn
                scripts[sc] = scripts.get(sc, 0.0) + v
        for sc, v in sorted(scripts.items(), key=lambda kv: -kv[1])[:8]:
            print(f"      {v / max(n_used, 1):6.1f}  {sc}")
        print("    by function:")
        for (fn, sc), v in sorted(per[ph].items(), key=lambda kv: -kv[1])[:top]:
            print(f"      {v / max(n_used, 1):6.1f}  {fn}  {sc}")
        if inclusive:
            print("    by function, inclusive:")
            for (fn, sc), v in sorted(incl[ph].items(), key=lambda kv: -kv[1])[:inclusive]:
                print(f"      {v / max(n_used, 1):6.1f}  {fn}  {sc}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data")
    p.add_argument("--checkout", default=str(ROOT))
    p.add_argument("--edits", type=int, default=3)
    p.add_argument("--serve-args", default="", help="more `serve` arguments")
    p.add_argument("--list", action="store_true", help="every action of the last edit")
    p.add_argument(
        "--profile",
        action="store_true",
        help="a V8 CPU profile of the edits (Dash's unminified bundles: readable names)",
    )
    p.add_argument(
        "--minified", action="store_true", help="--profile with Dash's usual (minified) bundles"
    )
    p.add_argument("--inclusive", type=int, default=0, help="--profile: N functions inclusive")
    args = p.parse_args(argv)
    data = Path(args.data)
    cfg, raw = load_dataset(data)
    path = influential_metric(cfg)
    metric = cfg.node(path)
    if (
        args.profile and not args.minified
    ):  # read by Dash's run() (enable_dev_tools) in the spawned server
        os.environ["DASH_SERVE_DEV_BUNDLES"] = "true"
    proc, url = spawn(str(Path(args.checkout).resolve()), data, shlex.split(args.serve_args))
    counts = []
    dones = []
    timed: list[dict] = []
    last: list = []
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.add_init_script(f"({HOOK})()")
            page.add_init_script(f"({FETCH_STAMPS})()")
            page.goto(url + "/" + make_query({}, path.rsplit("/", 1)[0]))
            page.wait_for_selector(f"input[name='{path}.good']", timeout=120_000)
            page.wait_for_selector("#grid .ag-cell[col-id='o']")
            page.wait_for_timeout(800)
            page.evaluate(INSTALL)
            span = metric.bad - metric.good
            cdp = page.context.new_cdp_session(page) if args.profile else None
            if cdp:
                cdp.send("Profiler.enable")
                cdp.send("Profiler.setSamplingInterval", {"interval": 200})
                cdp.send("Profiler.start")
            for i in range(args.edits):
                value = metric.good + FRACTIONS[i % len(FRACTIONS)] * span
                new = score(raw, cfg.apply_changes({path: {"good": value}}))
                expected = {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}
                page.evaluate("(e) => window.__arm(e)", expected)
                box = page.locator(f"input[name='{path}.good']")
                box.fill(f"{value:.6g}")
                n0 = page.evaluate("() => window.__actions.length")
                box.press("Enter")
                done = page.evaluate("async () => (await window.__done) - window.__t0")
                page.wait_for_timeout(400)
                last = page.evaluate("(n) => window.__actions.slice(n)", n0)
                t0 = page.evaluate("() => window.__t0")
                last = [(t - t0, typ, what) for t, typ, what in last]
                counts.append(len(last))
                stamps = page.evaluate(
                    "(t0) => window.__fetches.filter(f => f.call >= t0 - 1)"
                    ".map(f => [f.call, f.parsed || NaN])",
                    t0,
                )
                timed.append(
                    dict(
                        t0=t0,
                        anchor=page.evaluate("() => window.__anchors.slice(-1)[0]"),
                        call=stamps[0][0] if stamps else t0,
                        parsed=stamps[0][1] if stamps else t0,
                        done=t0 + done,
                    )
                )
                dones.append(round(done))
            if cdp:
                phase_profile(cdp.send("Profiler.stop")["profile"], timed, inclusive=args.inclusive)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    print(
        f"{data.name}: {args.checkout}: notifications per edit {counts}; cells right (ms) {dones}"
    )
    by_slice = collections.Counter(typ for _t, typ, _w in last)
    print("  by the state's slices changed (last edit):")
    for typ, n in by_slice.most_common():
        print(f"    {n:3d}  {typ}")
    by_what = collections.Counter(w for _t, _typ, w in last)
    print("  by what changed (layout: component props; callbacks: its lists):")
    for w, n in by_what.most_common():
        print(f"    {n:3d}  {w}")
    if args.list:
        for t, typ, w in last:
            print(f"  {t:7.1f}  {typ:28s} {w}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
