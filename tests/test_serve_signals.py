"""``ml-peg-like serve`` ended by SIGTERM or Ctrl-C (SIGINT) leaves nothing behind: the start's
job cache lives in the user's private cache directory (never in the shared temporary directory)
and is removed on the way out."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_ended_by_a_signal_leaves_nothing(tmp_path, sig):
    tmp, xdg = tmp_path / "tmp", tmp_path / "xdg"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ML_PEG_LIKE_")}
    env.update(TMPDIR=str(tmp), XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ml_peg_like", "serve", "--port", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        line = proc.stdout.readline()
        port = int(re.search(r":(\d+)/", line).group(1))
        deadline = time.time() + 120
        while True:  # the app is up (its job cache made) once /health answers
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5).read()
                break
            except OSError:
                assert time.time() < deadline and proc.poll() is None, line
                time.sleep(0.2)
        jobs = xdg / "ml-peg-like" / "jobs"
        assert [p.name.startswith(f"run-{proc.pid}-") for p in jobs.iterdir()] == [True]
        proc.send_signal(sig)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    assert list(jobs.iterdir()) == []
    assert list(tmp.iterdir()) == []
