"""What a threshold edit costs in Dash itself: the floor under the dashboard's edit targets.

    python benchmarks/bench_dash_floor.py [--edits 12] [--ours ml-peg,1000x1000 --data DIR]

Spawns small Dash apps built only of what an edit of this dashboard needs, the same stack and
the same measure as ``bench_dashboard.py`` (a capture-phase keydown stamps the Enter in a
debounced ``dcc.Input``; done = the later of the DOM mutation after which every rendered
Overall cell of the AG Grid shows the new value and the end of the last callback response):

* ``bare``: one text box, one ``dash_ag_grid.AgGrid`` (rows x 15 score columns, ``getRowId``),
  one server callback box -> ``rowData``; the callback returns at once;
* ``+ url``: the callback also writes the address (``dcc.Location(refresh=False).search``);
* ``+ N components``: N plain ``html.Div`` elsewhere on the page (this dashboard's ML-PEG
  page has ~390 Dash components);
* ``+ server M ms``: the callback spins the CPU for M ms first (this dashboard's server time
  per edit, on the same two cores as the browser).

Per app: the median of the edits' done time and of its phases (Enter -> request sent, ->
answer received, -> cells right, ms). ``--ours`` measures this dashboard's edits in the same
run (``bench_dashboard.measure``, the default row deltas) for the ratio. Nothing here is
this package: the apps are Dash, dash-ag-grid and a callback.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_dashboard import (  # noqa: E402
    ALL_DONE,
    INSTALL,
    datasets,
    measure,
    typed_edit,
    write_dataset,
)
from browser_utils import chromium  # noqa: E402

N_SCORES = 15  # score columns of the floor's grid (a benchmark view of ~10 metrics)


def overall(i: int, v: float) -> str:
    """The floor grid's Overall cell of row ``i`` for the box's value ``v``."""
    return f"{((i * 7919) % 1000 + 1) / 1000 * v:.3f}"


def serve(port: int, rows: int, ballast: int, url: bool, server_ms: float) -> None:
    """The floor app (run in its own process: ``--serve``)."""
    import dash
    import dash_ag_grid as dag
    from dash import Input, Output, dcc, html

    def table(v: float) -> list[dict]:
        out = []
        for i in range(rows):
            r = {"model": f"m{i:05d}", "o": overall(i, v)}
            for j in range(N_SCORES):
                r[f"c{j}"] = round(((i * 31 + j * 17) % 97) / 97 * v, 3)
            out.append(r)
        return out

    cols = [{"field": "model"}, {"field": "o"}] + [{"field": f"c{j}"} for j in range(N_SCORES)]
    app = dash.Dash(__name__)
    app.layout = html.Div(
        [
            dcc.Location(id="url", refresh=False),
            dcc.Input(id="box", name="x.good", type="text", debounce=True, value="1"),
            dag.AgGrid(
                id="grid",
                rowData=table(1.0),
                columnDefs=cols,
                getRowId="params.data.model",
                style={"height": "600px"},
            ),
            html.Div([html.Div(f"b{i}", id=f"b{i}") for i in range(ballast)]),
        ]
    )
    outputs = [Output("grid", "rowData")] + ([Output("url", "search")] if url else [])

    @app.callback(outputs, Input("box", "value"), prevent_initial_call=True)
    def edit(text):
        t0 = time.perf_counter()
        try:
            v = float(text)
        except (TypeError, ValueError):
            v = 1.0
        while time.perf_counter() - t0 < server_ms / 1000:  # the CPU, as a server's scoring
            pass
        return [table(v)] + ([f"?x={v}"] if url else [])

    @app.server.route("/health")
    def health():
        return "ok"

    app.run(port=port, debug=False)


PHASES = """(t0) => performance.getEntriesByType('resource')
  .filter(e => e.name.includes('_dash-update-component') && e.startTime >= t0 - 1)
  .map(e => [e.startTime - t0, e.responseEnd - t0])"""


def floor(browser, rows: int, ballast: int, url: bool, server_ms: float, edits: int) -> dict:
    """Spawn one floor app; the medians of ``edits`` edits (done and its phases, ms)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = [str(a) for a in (port, rows, ballast, int(url), server_ms)]
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)
        page.goto(base + "/")
        page.wait_for_selector("#grid .ag-cell[col-id='o']")
        page.wait_for_timeout(500)
        page.evaluate(INSTALL)
        done, call, answer, cells = [], [], [], []
        for k in range(edits):
            v = 1.0 + 0.37 * (k + 1)
            expected = {f"m{i:05d}": overall(i, v) for i in range(rows)}
            t_cells = typed_edit(page, "x", f"{v:.2f}", expected)
            page.wait_for_timeout(250)
            t0 = page.evaluate("() => window.__t0")
            t_resp = page.evaluate(ALL_DONE, t0)
            sent, got = page.evaluate(PHASES, t0)[0]
            done.append(max(t_cells, t_resp))
            call.append(sent)
            answer.append(got)
            cells.append(t_cells)
    finally:
        page.close()
        proc.kill()
        proc.wait()
    med = statistics.median
    return {"done": med(done), "call": med(call), "answer": med(answer), "cells": med(cells)}


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--serve":
        port, rows, ballast, url, server_ms = sys.argv[2:7]
        serve(int(port), int(rows), int(ballast), bool(int(url)), float(server_ms))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edits", type=int, default=12)
    p.add_argument("--server-ms", type=float, default=20, help="the spun server time (ms)")
    p.add_argument("--ours", default="", help="also measure this dashboard: ml-peg,1000x1000")
    p.add_argument("--data", default=None, help="where --ours writes its data sets")
    args = p.parse_args(argv)
    s = args.server_ms
    apps = [  # (name, rows, ballast, url, server ms)
        ("bare, 30 rows", 30, 0, False, 0),
        ("+ url", 30, 0, True, 0),
        ("+ url + 400 components", 30, 400, True, 0),
        (f"+ url + 400 components + server {s:g} ms", 30, 400, True, s),
        ("bare, 1,000 rows", 1000, 0, False, 0),
        ("1,000 rows + url + 400 components", 1000, 400, True, 0),
    ]
    print("app | done ms | Enter -> request sent | -> answer | -> cells right", flush=True)
    results = {}
    with chromium() as browser:
        for name, rows, ballast, url, ms in apps:
            r = floor(browser, rows, ballast, url, ms, args.edits)
            results[name] = r
            print(
                f"{name} | {r['done']:.1f} | {r['call']:.1f} | {r['answer']:.1f} | "
                f"{r['cells']:.1f}",
                flush=True,
            )
        if args.ours:
            root = Path(args.data or tempfile.mkdtemp(prefix="bench-floor-"))
            for name, cfg, raw in datasets(set(args.ours.split(","))):
                d = write_dataset(name, cfg, raw, root)
                r = measure(name, cfg, raw, args.edits, d, False, browser)
                print(
                    f"this dashboard, {name} | {r['median_ms']:.1f} (server "
                    f"{r['server_ms']:.1f}) | {json.dumps([round(t) for t in r['edit_ms']])}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
