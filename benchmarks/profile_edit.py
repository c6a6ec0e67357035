#!/usr/bin/env python
"""Where one threshold edit's bytes and milliseconds go: the dashboard served in this
process on a benchmark data set (``bench_dashboard.datasets``), headless Chromium makes threshold
edits in the benchmark view of the most influential metric; for the last one this prints

* the JSON size of each output of the edit's response (uncompressed, the whole body too);
* the browser's stamps: Enter -> response end -> grid cells right -> curve drawn (ms);
* the server's own time per POST (a WSGI wrapper) beside the browser's first byte, and the
  captured request replayed 20 times via the test client and via HTTP to the live server;
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
from functools import partial
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

#: stamps (performance.now) of the Dash callback fetches: called, headers in, body parsed
FETCH_STAMPS = """() => {
  window.__fetches = [];
  const orig = window.fetch;
  window.fetch = function (url, opts) {
    const rec = {url: String(url), call: performance.now()};
    window.__fetches.push(rec);
    return orig.apply(this, arguments).then((r) => {
      rec.headers = performance.now();
      const json = r.json.bind(r);
      r.json = () => json().then((v) => { rec.parsed = performance.now(); return v; });
      return r;
    });
  };
  window.__tasks = [];
  new PerformanceObserver((l) => l.getEntries().forEach((e) =>
    window.__tasks.push([e.startTime, e.duration]))).observe({type: 'longtask', buffered: false});
}"""

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


def js_profile(prof: dict, top: int = 25) -> None:
    """Self time per function (and per script) of a V8 CPU profile."""
    nodes = {n["id"]: n for n in prof["nodes"]}
    self_us: dict[tuple, float] = {}
    for nid, dt in zip(prof["samples"], prof["timeDeltas"], strict=False):
        f = nodes[nid]["callFrame"]
        where = f"{f['url'].rsplit('/', 1)[-1].split('?')[0][:40]}:{f['lineNumber']}:{f['columnNumber']}"
        key = (f["functionName"] or "(anon)", where)
        self_us[key] = self_us.get(key, 0.0) + dt
    by_script: dict[str, float] = {}
    for (_fn, url), us in self_us.items():
        by_script[url.split(":")[0]] = by_script.get(url.split(":")[0], 0.0) + us
    print("JS self time by script (ms):")
    for url, us in sorted(by_script.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {us / 1000:8.1f}  {url or '(native/idle)'}")
    # inclusive time of the call tree's nodes (the heaviest paths, a few levels down)
    incl: dict[int, float] = {}
    for nid, dt in zip(prof["samples"], prof["timeDeltas"], strict=False):
        incl[nid] = incl.get(nid, 0.0) + dt
    parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}

    def total(nid: int) -> float:
        return incl.get(nid, 0.0) + sum(total(c) for c in nodes[nid].get("children", []))

    def show(nid: int, depth: int) -> None:
        t = total(nid) / 1000
        if t < 3 or depth > 40:
            return
        f = nodes[nid]["callFrame"]
        script = f["url"].rsplit("/", 1)[-1].split("?")[0][:24]
        print(f"  {'.' * min(depth, 30)}{t:6.1f} {f['functionName'] or '(anon)'} {script}")
        kids = sorted(nodes[nid].get("children", []), key=lambda c: -total(c))
        for c in kids[:4]:
            show(c, depth + 1)

    roots = [n["id"] for n in prof["nodes"] if n["id"] not in parent]
    print("JS call tree (inclusive ms, >= 3 ms):")
    for r in roots:
        show(r, 0)
    print("JS self time by function (ms):")
    for (fn, url), us in sorted(self_us.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {us / 1000:8.1f}  {fn}  {url}")


def timed_posts(wsgi_app, into: list[float]):
    """``wsgi_app`` that appends the milliseconds of each POST (the body built) to ``into``."""

    def app(environ, start_response):
        t = time.perf_counter()
        body = b"".join(wsgi_app(environ, start_response))
        if environ.get("REQUEST_METHOD") == "POST":
            into.append(round((time.perf_counter() - t) * 1000, 1))
        return [body]

    return app


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def live_post(url: str, body: str) -> bytes:
    """POST ``body`` to the live server's callback route (werkzeug's threaded server)."""
    import urllib.request

    req = urllib.request.Request(
        url + "/_dash-update-component",
        data=body.encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        return r.read()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="ml-peg")
    p.add_argument("--edits", type=int, default=3)
    p.add_argument("--replays", type=int, default=20)
    p.add_argument("--full-table", action="store_true")
    p.add_argument("--data", default=None)
    p.add_argument("--sort", default="cumulative", help="cProfile order (cumulative, tottime)")
    p.add_argument("--js", action="store_true", help="V8 CPU profile of the last edit (CDP)")
    p.add_argument("--show", default="", help="id.prop of outputs to print (comma-separated)")
    p.add_argument(
        "--dev-bundles",
        action="store_true",
        help="serve Dash's unminified bundles (readable names in --js; slower JS)",
    )
    args = p.parse_args(argv)
    from werkzeug.serving import make_server

    from ml_peg_like import load_dataset
    from ml_peg_like.dashboard import create_app
    from ml_peg_like.dashboard.servertiming import server_ms

    root = Path(args.data or tempfile.mkdtemp(prefix="profile-edit-"))
    for name, cfg, raw in datasets(set(args.only.split(","))):
        d = write_dataset(name, cfg, raw, root)
        cfg, raw = load_dataset(d)
        app = create_app(cfg, raw, robustness=False, deltas=not args.full_table and "auto")
        if args.dev_bundles:  # readable function names; no props check, no devtools UI
            app.enable_dev_tools(
                debug=False,
                dev_tools_ui=False,
                dev_tools_props_check=False,
                dev_tools_serve_dev_bundles=True,
                dev_tools_hot_reload=False,
            )
        served: list[float] = []  # ms in the WSGI app per POST (the server's own time)
        app.server.wsgi_app = timed_posts(app.server.wsgi_app, served)
        srv = make_server("127.0.0.1", 0, app.server, threaded=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{srv.server_port}"
        path = influential_metric(cfg)
        metric = cfg.node(path)
        good0, bad0 = metric.good, metric.bad
        captured: list = []
        timing: list = []  # each answer's Server-Timing (ms), as the browser received it
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})

            def on_response(r, captured=captured, timing=timing):
                if "_dash-update-component" in r.url and r.status == 200:
                    captured.append((r.request.post_data, r.body()))
                    timing.append(server_ms(r.headers))

            page.on("response", on_response)
            page.add_init_script(f"({FETCH_STAMPS})()")
            page.goto(url + "/" + make_query({}, path.rsplit("/", 1)[0]))
            page.wait_for_selector(f"input[name='{path}.good']", timeout=120_000)
            page.wait_for_selector("#grid .ag-cell[col-id='o']")
            page.wait_for_timeout(800)
            page.evaluate(INSTALL)
            cdp = page.context.new_cdp_session(page) if args.js else None
            if cdp:
                cdp.send("Profiler.enable")
                cdp.send("Profiler.setSamplingInterval", {"interval": 200})
            for k in range(args.edits):
                value = good0 + (0.1 + 0.15 * k) * (bad0 - good0)
                new = score(raw, cfg.apply_changes({path: {"good": value}}))
                expected = {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}
                page.evaluate("(e) => window.__arm(e)", expected)
                drawn = page.evaluate_handle(CURVE_DRAWN)
                captured.clear()
                box = page.locator(f"input[name='{path}.good']")
                box.fill(f"{value:.6g}")
                if cdp and k == args.edits - 1:
                    cdp.send("Profiler.start")
                box.press("Enter")
                t_cells = page.evaluate("async () => (await window.__done) - window.__t0")
                if cdp and k == args.edits - 1:
                    js_profile(cdp.send("Profiler.stop")["profile"])
                t_curve = page.evaluate("async (p) => (await p)", drawn)
                page.wait_for_timeout(300)
                t0 = page.evaluate("() => window.__t0")
                ends = page.evaluate(
                    """(t0) => performance.getEntriesByType('resource')
                    .filter(e => e.name.includes('_dash-update-component') && e.startTime >= t0-1)
                    .map(e => [e.startTime - t0, e.responseStart - t0, e.responseEnd - t0])""",
                    t0,
                )
                stamps = page.evaluate(
                    """(t0) => [window.__fetches.filter(f => f.call >= t0 - 1).map(f =>
                      [f.call - t0, (f.headers || NaN) - t0, (f.parsed || NaN) - t0]),
                      window.__tasks.filter(t => t[0] >= t0 - 1).map(t => [t[0] - t0, t[1]])]""",
                    t0,
                )
                print(
                    f"  server (WSGI app) ms of the last POSTs {served[-3:]}; "
                    f"Server-Timing of the last answers {timing[-3:]}"
                )
                print(f"  fetch (called, headers, parsed ms) {stamps[0]}; long tasks {stamps[1]}")
                print(
                    f"{name} edit {k}: cells right {t_cells:.0f} ms, curve drawn "
                    f"{(t_curve - t0) if t_curve else float('nan'):.0f} ms, requests "
                    f"(start, first byte, end ms) {[[round(x) for x in e] for e in ends]}"
                )
            page.close()
        edit = max(captured, key=lambda c: len(c[1]))
        sizes = sizes_of(edit[1])
        req = json.loads(edit[0])
        n_in = sum(len(x) if isinstance(x, list) else 1 for x in req.get("inputs", []))
        n_st = sum(len(x) if isinstance(x, list) else 1 for x in req.get("state", []))
        n_out = len(req.get("outputs", []))
        print(
            f"{name}: request {len(edit[0])} B ({n_in} input values, {n_st} state values, "
            f"{n_out} output groups)"
        )
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
        replays = {
            "test client": partial(
                client.post, "/_dash-update-component", data=edit[0], headers=hdr
            ),
            "live HTTP": partial(live_post, url, edit[0]),
        }
        for label, post in replays.items():
            ts = sorted(timed(post) for _ in range(20))
            print(f"{name}: replay via {label}: median {ts[10]:.1f} ms, min {ts[0]:.1f} ms")
        prof = cProfile.Profile()
        t = time.perf_counter()
        prof.enable()
        for _ in range(args.replays):
            client.post("/_dash-update-component", data=edit[0], headers=hdr)
        prof.disable()
        per = (time.perf_counter() - t) / args.replays * 1000
        print(f"{name}: server {per:.1f} ms per replayed edit (profiled)")
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats(args.sort).print_stats(35)
        print(s.getvalue())
        srv.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
