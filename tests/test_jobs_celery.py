"""Serving many users (issue 16, item 6): background jobs on Celery with a real Redis.

A ``redis-server`` on a free loopback port, an ``ml-peg-like worker`` process on it, the
dashboard with ``--broker`` (the app in-process with the Celery manager), a robustness analysis
run from the browser: the result shown is the one the engine computes, and it came from the
worker (the worker's log names the task as succeeded; the server started no job process).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from browser_utils import chromium, live_server, require_browser, small_dataset

from ml_peg_like.dashboard import create_app, jobs
from ml_peg_like.dashboard import robustness_view as rv
from ml_peg_like.robustness import rank_robustness

ROOT = Path(__file__).resolve().parents[1]
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"

# the worker entry point (ml_peg_like/cli/worker.py) loaded by path: until cli.py becomes the
# cli/ package, `python -m ml_peg_like.cli.worker` is shadowed by cli.py
WORKER = f"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location(
    "ml_peg_like.cli.worker", {str(ROOT / "ml_peg_like" / "cli" / "worker.py")!r})
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
sys.exit(mod.main(sys.argv[1:]))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    if not os.path.exists(REDIS):
        pytest.skip("redis-server not installed (apt-get install -y redis-server)")
    pytest.importorskip("celery", reason='pip install "celery[redis]" (the celery extra)')
    port = _free_port()
    proc = subprocess.Popen(
        [REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(5)


def test_worker_refuses_a_bad_broker_with_exit_2(tmp_path):
    r = subprocess.run(
        [sys.executable, "-c", WORKER, str(tmp_path), "--broker", "http://x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "error: --broker: a redis:// URL" in r.stderr


def test_make_manager_with_a_broker_is_celery_and_json_only(redis_url, tmp_path):
    from dash import CeleryManager

    m = jobs.make_manager(broker=redis_url)
    assert isinstance(m, CeleryManager)
    assert m.handle.conf.accept_content == ["json"] and m.handle.conf.task_serializer == "json"
    assert m.handle.conf.broker_url == redis_url and len(m.secret) == 32
    # without a broker: the bounded diskcache manager
    assert isinstance(jobs.make_manager(tmp_path / "c"), jobs.BoundedDiskcacheManager)


@pytest.mark.browser
def test_a_robustness_run_from_the_browser_runs_on_the_celery_worker(
    redis_url, tmp_path, monkeypatch
):
    require_browser()
    data = tmp_path / "data"
    cfg, raw = small_dataset(data)
    log = tmp_path / "worker.log"
    secret = "s" * 48  # servers and workers behind one Redis share it
    env = dict(os.environ, ML_PEG_LIKE_SECRET=secret, PYTHONPATH=str(ROOT))
    with open(log, "w") as out:
        worker = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(data), "--broker", redis_url, "--concurrency", "1"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        deadline = time.monotonic() + 60
        while "ready" not in log.read_text() and time.monotonic() < deadline:
            assert worker.poll() is None, log.read_text()[-2000:]
            time.sleep(0.2)
        assert "ready" in log.read_text(), log.read_text()[-2000:]
        monkeypatch.setenv(jobs.BROKER_ENV, redis_url)
        monkeypatch.setenv("ML_PEG_LIKE_SECRET", secret)
        app = create_app(cfg, raw)
        assert type(app.robustness_manager).__name__ == "CeleryManager"
        children_before = {p.pid for p in psutil.Process().children(recursive=True)}
        with live_server(app) as url, chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url)
            page.wait_for_selector(".ag-cell[col-id='o']")
            for key, value in dict(samples="200", seed="3", topk="2").items():
                page.fill(f"#rob-{key}", value)
            page.click("#rob-run")
            page.wait_for_selector(".rob-headline", timeout=60_000)
            want = rank_robustness(raw, cfg, samples=200, seed=3, top_k=2)
            top = want.summary.iloc[0]
            assert page.inner_text(".rob-top") == top["model"]
            assert page.inner_text("#rob-p-top") == rv.fmt_pct(top["p_rank1"])
            assert "200 samples, seed 3" in page.inner_text(".rob-method")
            # no job process of the server: the only new children are the browser's
            for p in psutil.Process().children(recursive=True):
                if p.pid not in children_before:
                    assert p.exe() != psutil.Process().exe() or "chrom" in " ".join(p.cmdline())
        text = log.read_text()
        assert "background_callback_" in text and "succeeded" in text, text[-2000:]
    finally:
        worker.terminate()
        try:
            worker.wait(10)
        except subprocess.TimeoutExpired:
            worker.kill()
