"""Serving many users: background jobs on Celery with a real Redis.

A ``redis-server`` on a free loopback port, the real CLI as two processes: ``ml-peg-like worker
DIR --broker URL`` and ``ml-peg-like serve DIR --workers 2 --broker URL`` (gunicorn), and a
robustness analysis run from the browser: the result shown is the one the engine computes, and it
came from the worker (the worker's log names the task as succeeded; the server's process tree
holds its two gunicorn workers and no job process).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
from browser_utils import GRID_READY, chromium, require_browser, small_dataset

from ml_peg_like.dashboard.components.robustness.figures import fmt_pct
from ml_peg_like.robustness import rank_robustness
from ml_peg_like.serving import jobs

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
_SCRIPT = Path(sys.executable).with_name("ml-peg-like")
#: the installed console script (``python -m ml_peg_like`` when it is not on this interpreter)
CLI = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "ml_peg_like"]


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


def _wait_for(predicate, what: str, proc, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        assert proc.poll() is None, f"{what}: exited\n" + log.read_text()[-2000:]
        time.sleep(0.2)
    raise AssertionError(f"{what}: not ready\n" + log.read_text()[-2000:])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@pytest.mark.parametrize("command", ["worker", "serve"])
def test_a_bad_broker_is_refused_with_exit_2(tmp_path, command):
    r = subprocess.run(
        [*CLI, command, str(tmp_path), "--broker", "http://x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2, r.stderr
    assert "argument --broker: a redis:// URL (redis://HOST:PORT/DB), not 'http://x'" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("command", ["worker", "serve"])
def test_a_broker_without_the_shared_secret_is_refused_with_exit_2(tmp_path, command):
    env = {k: v for k, v in os.environ.items() if k != "ML_PEG_LIKE_SECRET"}
    r = subprocess.run(
        [*CLI, command, "--broker", "redis://127.0.0.1:1/0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: --broker needs ML_PEG_LIKE_SECRET, the same on every")
    assert "Traceback" not in r.stderr


def test_make_manager_with_a_broker_is_celery_and_json_only(redis_url, tmp_path):
    from dash import CeleryManager

    m = jobs.make_manager(broker=redis_url)
    assert isinstance(m, CeleryManager)
    assert m.handle.conf.accept_content == ["json"] and m.handle.conf.task_serializer == "json"
    assert m.handle.conf.broker_url == redis_url and len(m.secret) == 32
    # without a broker: the bounded diskcache manager
    assert isinstance(jobs.make_manager(tmp_path / "c"), jobs.BoundedDiskcacheManager)


@pytest.mark.browser
def test_a_robustness_run_from_the_browser_runs_on_the_celery_worker(redis_url, tmp_path):
    require_browser()
    data = tmp_path / "data"
    cfg, raw = small_dataset(data)
    wlog, slog = tmp_path / "worker.log", tmp_path / "serve.log"
    # servers and workers behind one Redis share the secret; no job may fall back to a cache
    env = dict(os.environ, ML_PEG_LIKE_SECRET="s" * 48)
    env.pop(jobs.BROKER_ENV, None)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    with open(wlog, "w") as wout, open(slog, "w") as sout:
        worker = subprocess.Popen(
            [*CLI, "worker", str(data), "--broker", redis_url, "--concurrency", "1"],
            stdout=wout,
            stderr=subprocess.STDOUT,
            env=env,
        )
        server = subprocess.Popen(
            [*CLI, "serve", str(data), "--workers", "2", "--port", str(port)]
            + ["--broker", redis_url],
            stdout=sout,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        _wait_for(lambda: "ready" in wlog.read_text(), "worker", worker, wlog)
        _wait_for(lambda: _healthy(url), "server", server, slog)
        gunicorn = psutil.Process(server.pid)
        workers = {p.pid for p in gunicorn.children()}
        assert len(workers) == 2  # --workers 2
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url)
            page.wait_for_selector(GRID_READY)
            for key, value in dict(samples="200", seed="3", topk="2").items():
                page.fill(f"#rob-{key}", value)
            page.click("#rob-run")
            # while the job runs, the server's tree stays the master and its two workers
            extra, deadline = set(), time.monotonic() + 60
            while page.locator(".rob-headline").count() == 0:
                assert time.monotonic() < deadline, "no result within 60 s"
                extra |= {p.pid for p in gunicorn.children(recursive=True)} - workers
                page.wait_for_timeout(100)
            assert not extra  # no job process started by the server
            want = rank_robustness(raw, cfg, samples=200, seed=3, top_k=2)
            top = want.summary.iloc[0]
            assert page.inner_text(".rob-top") == top["model"]
            assert page.inner_text("#rob-p-top") == fmt_pct(top["p_rank1"])
            assert "200 samples, seed 3" in page.inner_text(".rob-method")
        assert {p.pid for p in gunicorn.children(recursive=True)} == workers
        text = wlog.read_text()
        assert "background_callback_" in text and "succeeded" in text, text[-2000:]
    finally:
        _stop(server)
        _stop(worker)
