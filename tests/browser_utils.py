"""Shared fixtures of the dashboard tests: a small data set with awkward names, a live server
on a random loopback port, headless Debian Chromium through Playwright, and the dashboard page
every browser test opens (``open_dashboard``)."""

from __future__ import annotations

import csv
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

CHROMIUM = os.environ.get("MPL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
]
VIEWPORT = {"width": 1280, "height": 800}
#: the dashboard has rendered: the grid shows its overall-score cells
GRID_READY = ".ag-cell[col-id='o']"

SMALL_CONFIG = """\
title: Small test board
description: A small tree with every normaliser and awkward names
missing: invalidate
scale: 1
categories:
  Classification:
    weight: 2
    description: Held-out classification
    missing: skip
    benchmarks:
      Iris:
        weight: 1
        metrics:
          Accuracy: {good: 1.0, bad: 0.5, unit: fraction, description: Share of correct labels}
          F1: {good: 1.0, bad: 0.5, weight: 2}
      Wine:
        metrics:
          Accuracy: {good: 0.95, bad: 0.8, normaliser: traffic_light, description: Traffic light}
  Regression:
    weight: 1
    benchmarks:
      Diabetes:
        metrics:
          MAE: {good: 40, bad: 70, unit: mg/dL}
          R2: {good: 0.6, bad: 0.0}
  "Speed <b>&amp;</b> <script>x</script>":
    weight: 1
    benchmarks:
      Timing:
        metrics:
          Predict time: {normaliser: weibull_speedup, reference: 2.0, unit: s}
          Fit speed-up: {normaliser: log_speedup, max_speedup: 100}
presets:
  Only classification: {Regression: {weight: 0}, "Speed <b>&amp;</b> <script>x</script>": {weight: 0}}
"""

MODELS = ["Ridge", "RandomForest", "<script>alert(1)</script>", "Model/β", "kNN", "Dummy"]
# model: (Iris/Accuracy, Iris/F1, Wine/Accuracy, Diabetes/MAE, Diabetes/R2, Timing/Predict, Timing/Fit)
VALUES = {
    "Ridge": (0.9, 0.88, 0.97, 45.0, 0.5, 0.01, 30.0),
    "RandomForest": (0.96, 0.95, 0.9, 48.0, 0.45, 0.2, 5.0),
    "<script>alert(1)</script>": (0.7, 0.66, 0.75, 60.0, 0.2, 0.05, 80.0),
    "Model/β": (0.8, None, 0.85, 52.0, 0.4, 0.5, 2.0),
    "kNN": (0.93, 0.93, 0.96, None, 0.35, 0.02, 200.0),
    "Dummy": (0.33, 0.17, 0.4, 66.0, 0.0, 0.001, 500.0),
}
COLUMNS = [
    ("Iris", "Accuracy"),
    ("Iris", "F1"),
    ("Wine", "Accuracy"),
    ("Diabetes", "MAE"),
    ("Diabetes", "R2"),
    ("Timing", "Predict time"),
    ("Timing", "Fit speed-up"),
]


def write_small_dataset(directory: Path) -> Path:
    """config.yml + raw_metrics.csv (long format, quoted names) in ``directory``."""
    import csv

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.yml").write_text(SMALL_CONFIG, encoding="utf-8")
    with open(directory / "raw_metrics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "benchmark", "metric", "value"])
        for m in MODELS:
            for (b, k), v in zip(COLUMNS, VALUES[m], strict=True):
                w.writerow([m, b, k, "" if v is None else v])
    return directory


def small_dataset(directory: Path):
    from ml_peg_like import load_dataset

    return load_dataset(write_small_dataset(directory))


def browser_missing_reason() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)"
    return None


def require_browser() -> None:
    reason = browser_missing_reason()
    if reason:
        pytest.skip(reason)


@contextmanager
def static_server(directory: Path):
    """``python -m http.server`` (a plain static file server, no code of the project) on a free
    loopback port, serving ``directory``: its URL while the block runs."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    proc = subprocess.Popen(
        [*cmd, "--directory", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url, timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def live_server(app):
    """Serve a Dash app in-process on a random loopback port; yields its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app.server, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


@contextmanager
def chromium():
    """A headless Debian Chromium driven by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class DashboardPage:
    """A dashboard page and what it reported since it opened."""

    page: Any
    #: console errors, uncaught exceptions and "dialog: <message>" for every dialog (dismissed)
    problems: list[str] = field(default_factory=list)
    #: the messages of the dialogs only (a script that ran would open one)
    dialogs: list[str] = field(default_factory=list)
    #: HTTP status of every callback request (``_dash-update-component``)
    callback_statuses: list[int] = field(default_factory=list)


def open_dashboard(browser, url: str) -> DashboardPage:
    """Open ``url`` in a fresh context of ``browser`` (1280x800, downloads accepted), record its
    problems, and wait until the grid has rendered."""
    page = browser.new_context(viewport=VIEWPORT, accept_downloads=True).new_page()
    seen = DashboardPage(page)

    def on_dialog(d) -> None:
        seen.dialogs.append(d.message)
        seen.problems.append(f"dialog: {d.message}")
        d.dismiss()

    page.on("console", lambda m: seen.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.problems.append(str(e)))
    page.on("dialog", on_dialog)
    page.on(
        "response",
        lambda r: (
            seen.callback_statuses.append(r.status) if "_dash-update-component" in r.url else None
        ),
    )
    rate = float(os.environ.get("MPL_CPU_THROTTLE", "1") or 1)
    if rate > 1:  # a slower machine, to reproduce what a loaded CI runner does
        page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
    page.goto(url)
    page.wait_for_selector(GRID_READY)
    return seen


class ServerErrors(logging.Handler):
    """The messages of the errors the app's server logged."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record):
        self.records.append(record.getMessage())


@contextmanager
def served_dashboard(app):
    """Serve ``app`` on loopback and open it in headless Chromium: yields (url, the opened
    :class:`DashboardPage`, the server's error messages); closes all on exit."""
    errors = ServerErrors()
    app.server.logger.addHandler(errors)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with live_server(app) as url, chromium() as browser:
        seen = open_dashboard(browser, url)
        try:
            yield url, seen, errors.records
        finally:
            seen.page.context.close()


def write_big_dataset(directory: Path, n: int = 3000, seed: int = 3) -> Path:
    """The small test board with ``n`` seeded models: values near the thresholds, 10 % missing,
    every 7th model a copy of the one before (ties), display names for every 3rd model (some
    sorting before their keys), a ``family`` attribute."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.yml").write_text(SMALL_CONFIG, encoding="utf-8")
    lo = np.array([0.5, 0.5, 0.8, 70, 0.0, 0.001, 1.0])
    hi = np.array([1.0, 1.0, 0.95, 40, 0.6, 1.0, 100.0])
    values = lo + (hi - lo) * rng.uniform(-0.1, 1.1, size=(n, len(COLUMNS)))
    values[rng.random(values.shape) < 0.1] = np.nan
    for i in range(7, n, 7):
        values[i] = values[i - 1]
    models = [f"m{i:03d}" for i in range(n)]
    with open(directory / "raw_metrics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "benchmark", "metric", "value"])
        for m, row in zip(models, values, strict=True):
            for (b, k), v in zip(COLUMNS, row, strict=True):
                w.writerow([m, b, k, "" if np.isnan(v) else f"{v:.6g}"])
    with open(directory / "models.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "display_name", "family"])
        for i, m in enumerate(models):
            w.writerow([m, f"{'Az'[i % 2]}-model {n - i}" if i % 3 == 0 else "", "ab"[i % 2]])
    return directory
