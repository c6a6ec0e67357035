#!/usr/bin/env python
"""The server's share of one threshold edit under cProfile: the app is built in this
process as ``ml-peg-like serve DIR`` builds it, headless Chromium makes one threshold edit of the
most influential metric (benchmark view) to capture the page's own request, and that request is
replayed through Flask's test client with a NEW threshold value each time (so the score memo
misses, as in the browser), alternating between two ends of the metric's range.

    python benchmarks/profile_server_edit.py DATA_DIR [--replays 20] [--sort tottime] [--no-profile]
        [--parts] [--save FILE | --load FILE]

``--parts``: instead of cProfile (which inflates per-call costs: a loop of many small calls
looks several times dearer than it is), the wall time of the edit's main parts per replay
(``PARTS``, each wrapped with a timer; nested parts count in both), medians and minima.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import threading
import time
from pathlib import Path

import ml_peg_like  # noqa: E402,F401 (first: the checkout on PYTHONPATH, not bench_dashboard's)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dashboard import chromium, influential_metric, make_query  # noqa: E402


def set_box(body: dict, path: str, field: str, value: str) -> dict:
    """``body`` with the value of the box ``path.field`` replaced (inputs and state)."""

    def walk(x):
        if isinstance(x, list):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            i = x.get("id")
            if isinstance(i, dict) and i.get("path") == path and i.get("field") == field:
                x["value"] = value
            for y in x.values():
                if isinstance(y, list | dict):
                    walk(y)

    walk(body.get("inputs"))
    walk(body.get("state"))
    return body


#: the parts ``--parts`` times: (module, attribute), "Class.method" for a method; a part a
#: checkout does not have is left out (A/B of two checkouts)
PARTS = [
    ("ml_peg_like.dashboard.components.edit", "curve_figure"),
    ("ml_peg_like.dashboard.components.curve", "update"),
    ("ml_peg_like.dashboard.components.rowsync", "RowSync.output"),
    ("ml_peg_like.dashboard.components.edit", "row_table"),
    ("ml_peg_like.dashboard.components.rowsync", "diff_columns"),
    ("ml_peg_like.dashboard.components.sensitivity", "Sensitivity.view_state"),
    ("ml_peg_like.sensitivity.api", "leader_intervals"),
    ("ml_peg_like.sensitivity.api", "families"),
    ("ml_peg_like.sensitivity.dominance", "DominanceMemo.__call__"),
    ("ml_peg_like.dashboard.components.explore", "fill"),
    ("ml_peg_like.dashboard.components.compare", "bench_figure"),
    ("ml_peg_like.dashboard.components.policy", "fill"),
    ("ml_peg_like.dashboard.cache", "ScoreCache.scores_for"),
    ("ml_peg_like.dashboard.figures", "_hover_scores"),
    ("ml_peg_like.dashboard.figures", "point_groups"),
    ("ml_peg_like.dashboard.figures", "group_points"),
    ("ml_peg_like.dashboard.reasoncodes", "level_reasons"),
]


def time_parts(spent: dict[str, float]) -> None:
    """Wrap each of :data:`PARTS` with a wall-time timer adding its ms to ``spent``."""
    import functools
    import importlib

    for modname, attr in PARTS:
        try:
            owner = importlib.import_module(modname)
        except ImportError:
            continue
        name = attr
        if "." in attr:
            cls, name = attr.split(".")
            owner = getattr(owner, cls, None)
        f = getattr(owner, name, None) if owner is not None else None
        if f is None:
            continue
        label = f"{modname.rsplit('.', 1)[-1]}:{attr}"

        def timed(*a, _f=f, _label=label, **k):
            t = time.perf_counter()
            try:
                return _f(*a, **k)
            finally:
                spent[_label] = spent.get(_label, 0.0) + (time.perf_counter() - t) * 1000

        setattr(owner, name, functools.wraps(f)(timed))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data")
    p.add_argument("--replays", type=int, default=20)
    p.add_argument("--sort", default="cumulative")
    p.add_argument("--top", type=int, default=45)
    p.add_argument("--no-profile", action="store_true", help="only time the replays")
    p.add_argument("--parts", action="store_true", help="wall time per part (no cProfile)")
    p.add_argument("--save", default="", help="write the captured request here")
    p.add_argument("--load", default="", help="replay this saved request (no browser)")
    args = p.parse_args(argv)
    from werkzeug.serving import make_server

    from ml_peg_like import load_dataset
    from ml_peg_like.cli.serve import tune_malloc
    from ml_peg_like.dashboard import create_app

    print("ml_peg_like from", Path(ml_peg_like.__file__).parent.parent)
    spent: dict[str, float] = {}
    if args.parts:
        time_parts(spent)  # before the app is built: the callbacks close over the wrappers
    cfg, raw = load_dataset(args.data)
    tune_malloc(raw.values.nbytes)  # as ``serve`` does
    app = create_app(cfg, raw)
    path = influential_metric(cfg)
    metric = cfg.node(path)
    good0, bad0 = metric.good, metric.bad
    if args.load:
        body = Path(args.load).read_text()
    else:
        srv = make_server("127.0.0.1", 0, app.server, threaded=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{srv.server_port}"
        captured: list[str] = []
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on(
                "response",
                lambda r: (
                    captured.append(r.request.post_data)
                    if "_dash-update-component" in r.url and r.status == 200
                    else None
                ),
            )
            page.goto(url + "/" + make_query({}, path.rsplit("/", 1)[0]))
            page.wait_for_selector(f"input[name='{path}.good']", timeout=180_000)
            page.wait_for_selector("#grid .ag-cell[col-id='o']")
            page.wait_for_timeout(800)
            captured.clear()
            box = page.locator(f"input[name='{path}.good']")
            box.fill(f"{good0 + 0.3 * (bad0 - good0):.6g}")
            box.press("Enter")
            page.wait_for_timeout(3000)
        srv.shutdown()
        body = max(captured, key=len)
        if args.save:
            Path(args.save).write_text(body)
    client = app.server.test_client()
    hdr = {"Content-Type": "application/json"}
    base = json.loads(body)

    def post(k: int) -> None:
        frac = (0.05 + 0.4 * (k % 2)) + 0.001 * k  # alternate ends, never the same value
        b = set_box(json.loads(body), path, "good", f"{good0 + frac * (bad0 - good0):.9g}")
        r = client.post("/_dash-update-component", data=json.dumps(b), headers=hdr)
        assert r.status_code == 200, r.status_code

    assert base
    post(10_000)  # warm
    ts = []
    per_part: dict[str, list[float]] = {}
    for k in range(args.replays):
        spent.clear()
        t = time.perf_counter()
        post(k)
        ts.append((time.perf_counter() - t) * 1000)
        for label, ms in spent.items():
            per_part.setdefault(label, []).append(ms)
    ts.sort()
    print(f"{args.data}: {args.replays} replays, median {ts[len(ts) // 2]:.1f} ms, min {ts[0]:.1f}")
    if args.parts:
        for label, v in sorted(per_part.items(), key=lambda kv: -sorted(kv[1])[len(kv[1]) // 2]):
            v.sort()
            print(f"  {label:44s} median {v[len(v) // 2]:7.1f}  min {v[0]:7.1f} ms")
    if args.no_profile or args.parts:
        return 0
    prof = cProfile.Profile()
    prof.enable()
    for k in range(args.replays):
        post(100 + k)
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats(args.sort).print_stats(args.top)
    print(s.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
