"""Private state on disk: the background-callback cache and the signing secret.

A hostile local user may pre-create the cache directory (0777, group-writable, a symlink, owned
by someone else) with a malicious pickle in ``cache.db``, or read a world-readable secret and
sign a pid: the server refuses the directory, never unpickles what it did not write, keeps its
secret in memory, and never kills a process it did not start.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import diskcache
import psutil
import pytest
from browser_utils import small_dataset
from dash import _callback_signing as signing

from ml_peg_like.dashboard import create_app
from ml_peg_like.serving import jobs
from ml_peg_like.support.private import (
    SECRET_ENV,
    PrivateStateError,
    private_dir,
    secret_from_env,
    write_private,
)


class Boom:
    """Unpickling this creates ``marker`` (what a planted pickle would do as the server)."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def plant(directory: Path, marker: Path, mode: int) -> None:
    """A diskcache in ``directory`` whose entries unpickle to ``os.mkdir(marker)``, including
    Dash's signing-secret key, and a world-readable secret file."""
    directory.mkdir(exist_ok=True)
    with diskcache.Cache(str(directory)) as c:  # a plain Disk: raw pickles
        c.set("__dash_background_signing_secret__", Boom(str(marker)))
        c.set("ml-peg-like:jobs", Boom(str(marker)))
        for i in range(3):
            c.set(f"k{i}", Boom(str(marker)))
    (directory / "secret").write_text("x" * 64)
    os.chmod(directory / "secret", 0o644)
    os.chmod(directory, mode)


@pytest.fixture
def dataset(tmp_path):
    return small_dataset(tmp_path / "data")


@pytest.mark.parametrize("mode", [0o777, 0o750, 0o701])
def test_a_directory_others_can_enter_is_refused_and_its_pickle_never_runs(tmp_path, dataset, mode):
    hostile, marker = tmp_path / "cache", tmp_path / "pwned"
    plant(hostile, marker, mode)
    with pytest.raises(PrivateStateError) as err:
        create_app(*dataset, cache_dir=hostile)
    assert str(hostile) in str(err.value) and f"{mode:04o}" in str(err.value)
    assert not marker.exists()


def test_a_symlink_and_another_owner_are_refused(tmp_path, dataset):
    real, marker = tmp_path / "real", tmp_path / "pwned"
    plant(real, marker, 0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(PrivateStateError, match="symbolic link"):
        create_app(*dataset, cache_dir=link)
    if os.getuid() == 0:  # root can hand the directory to another user
        os.chown(real, 65534, 65534)
        with pytest.raises(PrivateStateError, match="owned by uid 65534"):
            create_app(*dataset, cache_dir=real)
    assert not marker.exists()


def test_private_dir_creates_0700_and_files_0600(tmp_path):
    d = private_dir(tmp_path / "a" / "b")
    assert d.stat().st_mode & 0o777 == 0o700
    f = write_private(d / "x", b"data")
    assert f.stat().st_mode & 0o777 == 0o600 and f.read_bytes() == b"data"
    assert private_dir(d) == d  # an existing private directory is accepted


def test_a_planted_pickle_in_our_own_directory_is_never_unpickled(tmp_path, dataset):
    """Even inside a 0700 directory, entries the server did not sign read as missing."""
    d, marker = tmp_path / "cache", tmp_path / "pwned"
    plant(d, marker, 0o700)
    app = create_app(*dataset, cache_dir=d)
    client = app.server.test_client()
    assert client.get("/").status_code == 200
    m = app.robustness_manager
    assert m.handle.get("k0") is None and m.handle.get("k1", "miss") == "miss"
    assert m.status()["running"] == 0  # the planted queue state is ignored too
    assert not marker.exists()
    # what the server writes itself reads back
    m.handle.set("mine", {"a": [1, 2]})
    assert m.handle.get("mine") == {"a": [1, 2]}


def test_the_secret_is_never_on_disk_and_not_the_planted_one(tmp_path, dataset, monkeypatch):
    monkeypatch.delenv(SECRET_ENV, raising=False)
    d = tmp_path / "cache"
    plant(d, tmp_path / "pwned", 0o700)
    app = create_app(*dataset, cache_dir=d)
    client = app.server.test_client()
    assert client.get("/").status_code == 200
    secret = app.server.secret_key
    assert isinstance(secret, bytes) and len(secret) == 32
    assert secret != b"x" * 64
    for f in d.rglob("*"):
        if f.is_file() and f.name != "secret":
            assert secret not in f.read_bytes(), f
    with sqlite3.connect(d / "cache.db") as con:
        rows = con.execute("select key from Settings").fetchall()
    assert all("secret" not in str(k) for (k,) in rows)
    # files the cache made are 0600
    assert (d / "cache.db").stat().st_mode & 0o777 == 0o600


def test_secret_from_env(monkeypatch):
    assert secret_from_env({SECRET_ENV: "s" * 40}) == b"s" * 40
    with pytest.raises(PrivateStateError, match=SECRET_ENV):
        secret_from_env({SECRET_ENV: "short"})
    a, b = secret_from_env({}), secret_from_env({})
    assert len(a) == 32 and a != b


def test_default_cache_dir_is_fresh_and_private(tmp_path, dataset, monkeypatch):
    """The old predictable path, pre-created hostile, is simply not used; each start's
    directory is a fresh one in ``jobs/`` of the user's cache directory, not in the shared
    temporary directory."""
    monkeypatch.delenv(jobs.CACHE_DIR_ENV, raising=False)
    monkeypatch.delenv(jobs.BROKER_ENV, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # platformdirs' user cache
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    old = tmp_path / "tmp" / f"ml-peg-like-cache-{os.getuid()}"
    plant(old, tmp_path / "pwned", 0o777)
    a = create_app(*dataset)
    b = create_app(*dataset)
    da = Path(a.robustness_manager.handle.directory)
    db = Path(b.robustness_manager.handle.directory)
    assert da != db and old not in (da, db)
    assert da.parent == tmp_path / "xdg" / "ml-peg-like" / "jobs"
    for d in (da, da.parent, da.parent.parent):
        assert d.stat().st_mode & 0o777 == 0o700, d
    assert [p.name for p in (tmp_path / "tmp").iterdir()] == [old.name]
    assert not (tmp_path / "pwned").exists()


def test_without_a_usable_cache_dir_the_job_dir_is_a_fresh_temporary_one(tmp_path, monkeypatch):
    monkeypatch.setenv(jobs.CACHE_DIR_ENV, str(tmp_path / "file" / "cache"))
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    with pytest.warns(RuntimeWarning, match=r"job cache in the temporary directory: .*file"):
        d = jobs.fresh_jobs_dir()
    assert d.parent == tmp_path / "tmp" and d.name.startswith("ml-peg-like-run-")
    assert d.stat().st_mode & 0o777 == 0o700


def test_a_killed_starts_job_dir_is_removed_by_the_next(tmp_path, dataset, monkeypatch):
    monkeypatch.delenv(jobs.BROKER_ENV, raising=False)
    monkeypatch.setenv(jobs.CACHE_DIR_ENV, str(tmp_path / "cache"))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    d = private_dir(tmp_path / "cache" / "jobs")
    left = private_dir(d / f"run-{int(gone.stdout)}-abc")  # a start that was killed
    alive = private_dir(d / f"run-{os.getppid()}-abc")  # a start still running
    mine = jobs.fresh_jobs_dir()
    assert not left.exists() and alive.exists() and mine.parent == d


def _end_id(client) -> str:
    page = client.get("/").get_data(as_text=True)
    config = json.loads(re.search(r'id="_dash-config"[^>]*>(.*?)</script>', page, re.S).group(1))
    return config["end_id"]


def test_a_forged_old_job_cannot_kill_an_arbitrary_pid(tmp_path, dataset):
    """Even with the server's secret leaked, a signed bare pid is not a job this server
    started: nothing is killed. (Before: the secret sat in a 0644 cache.db.)"""
    app = create_app(*dataset, cache_dir=tmp_path / "cache")
    client = app.server.test_client()
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        end_id = _end_id(client)
        secret = app.server.secret_key
        raw_end = signing.unsign(secret, signing.END_SCOPE, end_id)
        forged = signing.sign(secret, signing.job_scope(raw_end), str(victim.pid))
        body = {
            "output": "..rob-results.children...rob-meta.data...rob-message.children..",
            "outputs": [
                {"id": "rob-results", "property": "children"},
                {"id": "rob-meta", "property": "data"},
                {"id": "rob-message", "property": "children"},
            ],
            "inputs": [{"id": "rob-request", "property": "data", "value": {"n": 1, "r": "x"}}],
            "changedPropIds": ["rob-request.data"],
            "state": [
                {"id": "changes", "property": "data", "value": {}},
                {"id": "rob-samples", "property": "value", "value": 10},
                {"id": "rob-concentration", "property": "value", "value": 20},
                {"id": "rob-jitter", "property": "value", "value": 10},
                {"id": "rob-topk", "property": "value", "value": 3},
                {"id": "rob-seed", "property": "value", "value": 0},
                {"id": "rob-token", "property": "data", "value": "nope"},
            ],
        }
        client.post(
            f"/_dash-update-component?oldJob={forged}&endId={end_id}",
            data=json.dumps(body),
            content_type="application/json",
        )
        # the manager itself ignores bare pids however they arrive
        app.robustness_manager.terminate_job(victim.pid)
        app.robustness_manager.terminate_job(str(victim.pid))
        assert victim.poll() is None and psutil.pid_exists(victim.pid)
    finally:
        victim.kill()
        victim.wait()


def test_a_signed_entry_from_another_start_reads_as_missing(tmp_path):
    d = private_dir(tmp_path / "c")
    with diskcache.Cache(str(d), disk=jobs.signed_disk(b"a" * 32)) as c:
        c.set("k", [1, 2, 3])
        assert c.get("k") == [1, 2, 3]
    with diskcache.Cache(str(d), disk=jobs.signed_disk(b"b" * 32)) as c:
        assert c.get("k", "miss") == "miss"
    with diskcache.Cache(str(d)) as plain:  # what is stored is not a bare pickle
        blob = plain.get("k")
    assert isinstance(blob, bytes) and blob.startswith(b"MPLS1")
    with pytest.raises(pickle.UnpicklingError):
        pickle.loads(blob)
