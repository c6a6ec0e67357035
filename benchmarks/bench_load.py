"""Bounded load test of the dashboard under gunicorn, on loopback only; it stops by itself.

    python -m benchmarks.bench_load [--users 20] [--requests 100] [--workers 4]

1. Writes the ML-PEG-scale data set (30 models, 77 benchmarks, 339 metrics, 18 categories).
2. Starts ``ml-peg-like serve DIR --workers N`` (gunicorn) on 127.0.0.1 and a free port.
3. Drives one real threshold edit in headless Chromium and records the callback request that
   the browser sends (so the payload is exactly what Dash's front end produces).
4. Replays that request from ``--users`` concurrent simulated users, ``--requests`` each, every
   request with a different threshold value (so the server's memo cannot answer it), and prints
   requests per second, p50 / p95 / p99 latency and the number of errors.
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import tempfile
import threading
import time
from pathlib import Path

from .datasets import mlpeg_scale
from .harness import Row, Server, chromium, new_page, print_table


def capture_edit(port: int) -> tuple[dict, str, str, float]:
    """One real threshold edit in Chromium: (request body, box id JSON, path, old value)."""
    bodies: list[dict] = []
    with chromium() as browser:
        page = new_page(browser)
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector(".ag-row", timeout=30000)
        # go to the first benchmark view: its boxes hold thresholds
        page.evaluate(
            """() => { for (const b of document.querySelectorAll('#sidebar .nav-item')) {
                 if (b.dataset.path.includes('/')) { b.click(); return; } } }"""
        )
        page.wait_for_selector('input[id*=\'"field":"good"\']', timeout=30000)
        box = page.locator('input[id*=\'"field":"good"\']').first
        box_id = box.get_attribute("id")

        def on_request(req):
            if "_dash-update-component" in req.url and req.method == "POST":
                body = json.loads(req.post_data or "{}")
                # the browser scores the edit; what it sends is the new changes, for what
                # needs Python (the load this replays)
                if "changes.data" in json.dumps(body.get("changedPropIds", [])):
                    bodies.append(body)

        page.on("request", on_request)
        old = float(box.input_value())
        box.fill(str(old + 0.001))
        box.press("Enter")
        page.wait_for_timeout(1500)
    if not bodies:
        raise SystemExit("no edit request was captured")
    return bodies[-1], box_id, json.loads(box_id)["path"], old


def with_value(body: dict, box_id: str, value: float) -> bytes:
    """The captured request with the changes store holding the box's threshold at ``value``."""
    b = copy.deepcopy(body)
    path = json.loads(box_id)["path"]

    def patch(item):
        if isinstance(item, list):
            for x in item:
                patch(x)
        elif (
            isinstance(item, dict)
            and item.get("id") == "changes"
            and item.get("property") == "data"
        ):
            item["value"] = {path: {"good": value}}

    patch(b["inputs"])
    return json.dumps(b).encode()


def user(port, body, box_id, base, n, uid, lat, errors):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for k in range(n):
        payload = with_value(body, box_id, round(base + 1e-6 * (uid * n + k + 1), 9))
        t0 = time.perf_counter()
        try:
            conn.request(
                "POST", "/_dash-update-component", payload, {"Content-Type": "application/json"}
            )
            resp = conn.getresponse()
            data = resp.read()
            # the server's answer to an edit's new changes (what needs Python: the browser
            # scores the table itself)
            ok = resp.status == 200 and b"response" in data
            why = f"HTTP {resp.status}" if resp.status != 200 else "no table in the response"
        except OSError as exc:
            ok = False
            why = type(exc).__name__
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        lat.append(time.perf_counter() - t0)
        if not ok:
            errors.append(why)


def load(port: int, users: int, requests: int) -> tuple[list[float], list[str], float, str]:
    """Capture one edit, replay it from ``users`` threads: (seconds per request, errors, wall
    seconds, the edited path)."""
    body, box_id, path, old = capture_edit(port)
    lat: list[float] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=user, args=(port, body, box_id, old, requests, u, lat, errors))
        for u in range(users)
    ]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    return lat, errors, time.perf_counter() - t0, path


def quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (the value at rank ``int(q * n)``, as a load report gives)."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="bounded loopback load test of the dashboard")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--requests", type=int, default=100)
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args(argv)
    data = mlpeg_scale(Path(tempfile.mkdtemp(prefix="mpl-load-")) / "mlpeg")
    with Server(data, args=["--workers", str(args.workers)]) as server:
        server.wait_health(timeout=60)
        lat, errors, wall, path = load(server.port, args.users, args.requests)
    ms = [t * 1e3 for t in lat]
    print(f"data: ML-PEG scale (30 models, 77 benchmarks, 339 metrics); edited {path}")
    print(f"server: gunicorn, {args.workers} workers; {args.users} users x {args.requests} "
          f"threshold edits = {len(lat)} requests in {wall:.1f} s")  # fmt: skip
    print_table(
        [
            Row("edit request latency", ms),
            Row("throughput", [len(lat) / wall], unit="requests/s"),
            Row("errors", [float(len(errors))], unit=""),
        ]
    )
    kinds = {e: errors.count(e) for e in set(errors)}
    print(
        f"latency p50 {quantile(ms, 0.5):.0f} ms, p95 {quantile(ms, 0.95):.0f} ms, p99 "
        f"{quantile(ms, 0.99):.0f} ms; errors {kinds or 'none'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
