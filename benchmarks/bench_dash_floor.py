"""What a threshold edit costs in Dash itself: the floor under the dashboard's edit targets.

    python -m benchmarks.bench_dash_floor [--edits 12] [--ours ml-peg,1000x1000 --data DIR]

Spawns small Dash apps built only of what an edit of this dashboard needs, the same stack and
the same measure as ``bench_dashboard`` (a capture-phase keydown stamps the Enter in a
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
run (``bench_dashboard.measure``) for the ratio. Nothing in the floor apps is this package:
they are Dash, dash-ag-grid and a callback.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from . import bench_dashboard
from .datasets import dashboard_sets, write_dataset
from .harness import ROOT, Row, Server, chromium, new_page, print_table
from .page import ALL_DONE, INSTALL, typed_edit

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
    """Spawn one floor app; per edit: done and its phases (ms)."""
    app = [str(a) for a in (rows, ballast, int(url), server_ms)]
    command = ["-m", "benchmarks.bench_dash_floor", "--serve", *app]
    out: dict[str, list[float]] = {"done": [], "call": [], "answer": [], "cells": []}
    page = new_page(browser)
    try:
        with Server(None, ROOT, command=command) as server:
            server.wait_health()
            page.goto(server.url + "/")
            page.wait_for_selector("#grid .ag-cell[col-id='o']")
            page.wait_for_timeout(500)
            page.evaluate(INSTALL)
            for k in range(edits):
                v = 1.0 + 0.37 * (k + 1)
                expected = {f"m{i:05d}": overall(i, v) for i in range(rows)}
                t_cells = typed_edit(page, "x.good", f"{v:.2f}", expected)
                page.wait_for_timeout(250)
                t0 = page.evaluate("() => window.__t0")
                sent, got = page.evaluate(PHASES, t0)[0]
                out["done"].append(max(t_cells, page.evaluate(ALL_DONE, t0)))
                out["call"].append(sent)
                out["answer"].append(got)
                out["cells"].append(t_cells)
    finally:
        page.context.close()
    return out


def floor_rows(name: str, r: dict) -> list[Row]:
    return [
        Row(f"{name}: edit done", r["done"]),
        Row(f"{name}: Enter -> request sent", r["call"]),
        Row(f"{name}: Enter -> answer", r["answer"]),
        Row(f"{name}: Enter -> cells right", r["cells"]),
    ]


def ours(browser, only: str, data: str | None, edits: int) -> list[Row]:
    """This dashboard's edits (``bench_dashboard.measure``), compared with the floor app of
    the same rows, url and components."""
    root = Path(data or tempfile.mkdtemp(prefix="bench-floor-"))
    out = []
    for name, cfg, raw in dashboard_sets(only.split(",")):
        d = write_dataset(name, cfg, raw, root)
        r = bench_dashboard.measure(ROOT, d, cfg, raw, edits, browser)
        rows = 30 if len(raw.models) < 500 else 1000
        vs = f"{FLOOR_OF[rows]}: edit done"
        out.append(Row(f"this dashboard, {name}: edit -> all responses", r.edit_ms, vs=vs))
        out.append(Row(f"this dashboard, {name}: server time per edit", r.server_ms))
    return out


def serve_main(argv: list[str]) -> int:
    """``--serve ROWS BALLAST URL SERVER_MS --port P``: one floor app (the benchmark spawns it)."""
    p = argparse.ArgumentParser(prog="bench_dash_floor --serve")
    p.add_argument("rows", type=int)
    p.add_argument("ballast", type=int)
    p.add_argument("url", type=int)
    p.add_argument("server_ms", type=float)
    p.add_argument("--port", type=int, required=True)
    a = p.parse_args(argv)
    serve(a.port, a.rows, a.ballast, bool(a.url), a.server_ms)
    return 0


#: the floor app each of this dashboard's data sets is compared with, by its rows
FLOOR_OF = {30: "+ url + 400 components", 1000: "1,000 rows + url + 400 components"}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        return serve_main(argv[1:])
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
        (FLOOR_OF[30], 30, 400, True, 0),
        (f"+ url + 400 components + server {s:g} ms", 30, 400, True, s),
        ("bare, 1,000 rows", 1000, 0, False, 0),
        (FLOOR_OF[1000], 1000, 400, True, 0),
    ]
    rows = []
    with chromium() as browser:
        for name, n, ballast, url, ms in apps:
            rows += floor_rows(name, floor(browser, n, ballast, url, ms, args.edits))
        if args.ours:
            rows += ours(browser, args.ours, args.data, args.edits)
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
