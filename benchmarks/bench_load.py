"""Bounded load test of the dashboard under gunicorn, on loopback only; it stops by itself.

    python benchmarks/bench_load.py [--users 20] [--requests 100] [--workers 4]

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
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from datasets import mlpeg_scale  # noqa: E402

LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port: int, timeout: float = 60) -> None:
    t0 = time.time()
    while time.time() - t0 < timeout:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit("server did not become ready")


def capture_edit(port: int) -> tuple[dict, str, str, float]:
    """One real threshold edit in Chromium: (request body, box id JSON, path, old value)."""
    from playwright.sync_api import sync_playwright

    bodies: list[dict] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
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
        browser.close()
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


def main() -> None:
    ap = argparse.ArgumentParser(description="bounded loopback load test of the dashboard")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--requests", type=int, default=100)
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="mpl-load-"))
    data = mlpeg_scale(tmp / "mlpeg")
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ml_peg_like",
            "serve",
            str(data),
            "--workers",
            str(args.workers),
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_ready(port)
        body, box_id, path, old = capture_edit(port)
        base = old
        lat: list[float] = []
        errors: list[int] = []
        threads = [
            threading.Thread(
                target=user, args=(port, body, box_id, base, args.requests, u, lat, errors)
            )
            for u in range(args.users)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        wall = time.perf_counter() - t0
        lat.sort()

        def q(p):
            return lat[min(len(lat) - 1, int(p * len(lat)))] * 1e3

        size = len(with_value(body, box_id, 0.5))
        print(f"data: ML-PEG scale (30 models, 77 benchmarks, 339 metrics); edited {path}")
        print(f"server: gunicorn, {args.workers} workers, 127.0.0.1:{port}")
        print(
            f"{args.users} users x {args.requests} threshold edits = {len(lat)} requests in {wall:.1f} s"
        )
        print(f"throughput: {len(lat) / wall:.0f} requests/s")
        print(
            f"latency: p50 {q(0.50):.0f} ms, p95 {q(0.95):.0f} ms, p99 {q(0.99):.0f} ms, "
            f"mean {statistics.mean(lat) * 1e3:.0f} ms"
        )
        kinds = {e: errors.count(e) for e in set(errors)}
        print(
            f"errors: {len(errors)} {kinds if kinds else ''}  request size: {size / 1024:.1f} KiB"
        )
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
