#!/usr/bin/env python
"""Where one threshold edit's bytes and milliseconds go (issue 15): the dashboard served in this
process on a benchmark data set (``bench_dashboard.datasets``), headless Chromium makes threshold
edits in the benchmark view of the most influential metric; for the last one this prints

* the JSON size of each output of the edit's response (uncompressed, the whole body too);
* the browser's stamps: Enter -> response end -> grid cells right -> curve drawn (ms);
* the server: the captured request replayed ``--replays`` times through Flask's test client
  under cProfile (top functions by cumulative time).

    python benchmarks/profile_edit.py [--only ml-peg] [--edits 3] [--replays 20] [--full-table]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dashboard import (  # noqa: E402
    INSTALL,
    chromium,
    datasets,
    fmt_score,
    influential_metric,
    make_query,
    score,
    write_dataset,
)

CURVE_DRAWN = """() => new Promise(resolve => {
  const gd = document.querySelector('#curve .js-plotly-plot');
  if (!gd) { resolve(null); return; }
  const done = () => { gd.removeListener('plotly_afterplot', done); resolve(performance.now()); };
  gd.on('plotly_afterplot', done);
  setTimeout(() => resolve(null), 3000);
})"""


def sizes_of(body: bytes) -> list[tuple[int, str]]:
    """(bytes, "id.prop") of every output of a Dash response body, largest first."""
    resp = json.loads(body).get("response", {})
    out = []
    for cid, props in resp.items():
        for prop, val in props.items():
            n = len(json.dumps(val, separators=(",", ":")))
            out.append((n, f"{cid}.{prop}"))
    return sorted(out, reverse=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="ml-peg")
    p.add_argument("--edits", type=int, default=3)
    p.add_argument("--replays", type=int, default=20)
    p.add_argument("--full-table", action="store_true")
    p.add_argument("--data", default=None)
    p.add_argument("--show", default="", help="id.prop of outputs to print (comma-separated)")
    args = p.parse_args(argv)
    from werkzeug.serving import make_server

    from ml_peg_like import load_dataset
    from ml_peg_like.dashboard import create_app

    root = Path(args.data or tempfile.mkdtemp(prefix="profile-edit-"))
    for name, cfg, raw in datasets(set(args.only.split(","))):
        d = write_dataset(name, cfg, raw, root)
        cfg, raw = load_dataset(d)
        app = create_app(cfg, raw, robustness=False, deltas=not args.full_table and "auto")
        srv = make_server("127.0.0.1", 0, app.server, threaded=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{srv.server_port}"
        path = influential_metric(cfg)
        metric = cfg.node(path)
        good0, bad0 = metric.good, metric.bad
        captured: list = []
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})

            def on_response(r, captured=captured):
                if "_dash-update-component" in r.url and r.status == 200:
                    captured.append((r.request.post_data, r.body()))

            page.on("response", on_response)
            page.goto(url + "/" + make_query({}, path.rsplit("/", 1)[0]))
            page.wait_for_selector(f"input[name='{path}.good']", timeout=120_000)
            page.wait_for_selector("#grid .ag-cell[col-id='o']")
            page.wait_for_timeout(800)
            page.evaluate(INSTALL)
            for k in range(args.edits):
                value = good0 + (0.1 + 0.15 * k) * (bad0 - good0)
                new = score(raw, cfg.apply_changes({path: {"good": value}}))
                expected = {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}
                page.evaluate("(e) => window.__arm(e)", expected)
                drawn = page.evaluate_handle(CURVE_DRAWN)
                captured.clear()
                box = page.locator(f"input[name='{path}.good']")
                box.fill(f"{value:.6g}")
                box.press("Enter")
                t_cells = page.evaluate("async () => (await window.__done) - window.__t0")
                t_curve = page.evaluate("async (p) => (await p)", drawn)
                page.wait_for_timeout(300)
                t0 = page.evaluate("() => window.__t0")
                ends = page.evaluate(
                    """(t0) => performance.getEntriesByType('resource')
                    .filter(e => e.name.includes('_dash-update-component') && e.startTime >= t0-1)
                    .map(e => [e.startTime - t0, e.responseStart - t0, e.responseEnd - t0])""",
                    t0,
                )
                print(
                    f"{name} edit {k}: cells right {t_cells:.0f} ms, curve drawn "
                    f"{(t_curve - t0) if t_curve else float('nan'):.0f} ms, requests "
                    f"(start, first byte, end ms) {[[round(x) for x in e] for e in ends]}"
                )
            page.close()
        edit = max(captured, key=lambda c: len(c[1]))
        sizes = sizes_of(edit[1])
        print(f"{name}: response {len(edit[1])} B; outputs (bytes, id.prop):")
        for n, what in sizes:
            print(f"  {n:8d}  {what}")
        resp = json.loads(edit[1])["response"]
        for what in filter(None, args.show.split(",")):
            cid, _, prop = what.rpartition(".")
            print(what, json.dumps(resp.get(cid, {}).get(prop))[:3000])
        client = app.server.test_client()
        hdr = {"Content-Type": "application/json"}
        client.post("/_dash-update-component", data=edit[0], headers=hdr)
        prof = cProfile.Profile()
        t = time.perf_counter()
        prof.enable()
        for _ in range(args.replays):
            client.post("/_dash-update-component", data=edit[0], headers=hdr)
        prof.disable()
        per = (time.perf_counter() - t) / args.replays * 1000
        print(f"{name}: server {per:.1f} ms per replayed edit (profiled)")
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(35)
        print(s.getvalue())
        srv.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
