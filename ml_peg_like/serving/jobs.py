"""Background jobs of the dashboard: a private, signed cache and a bounded queue.

``make_manager(cache_dir=None, broker=None, ...)`` returns the Dash background-callback manager:

* **default, one machine**: :class:`BoundedDiskcacheManager`, a ``DiskcacheManager`` whose cache
  lives in a private directory (:func:`ml_peg_like.support.private.private_dir`: created 0700, or an
  existing one checked — owner this user, no group/other bits, not a symlink — and refused with
  a clear error otherwise). Without ``cache_dir`` (nor ``$ML_PEG_LIKE_CACHE_DIR``) each start
  makes a fresh 0700 directory with an unpredictable name in ``jobs/`` of the user's private
  cache directory (removed at exit, on SIGTERM too with ``serve``; a killed start's is removed
  by the next), so nobody can plant one in advance. Every value in the cache is pickled *and signed* (HMAC-SHA256 with the
  per-start secret, :class:`SignedDisk`); an entry that is not signed by this server (a planted
  pickle, a leftover of an earlier start) is never unpickled: it reads as missing.
* ``broker="redis://HOST:PORT/DB"`` (or ``$ML_PEG_LIKE_CELERY_BROKER``): a ``CeleryManager`` on
  that Redis as broker and result store, JSON only (no pickle on the wire), every result signed,
  no request headers or cookies in a task message, a message for a lost job or an unreachable
  broker (:mod:`ml_peg_like.serving.celeryjobs`). Jobs run in
  ``ml-peg-like worker DIR --broker URL`` processes; the global queue is the broker's and the
  number of jobs running at once is the workers' ``--concurrency``.

The secret (``manager.secret``): ``$ML_PEG_LIKE_SECRET`` if set (needed, identical, on every
server behind one load balancer), else random bytes per start; kept in memory only. The app uses
it as ``server.secret_key`` (Dash signs the background job handles — cache key, pid — with it),
so Dash never stores its signing secret in the cache.

Bounds of the diskcache manager (the queue is global to the machine: it lives in the cache, so
all gunicorn workers share it): at most ``max_jobs`` jobs run at once (default: the CPU count,
``$ML_PEG_LIKE_MAX_JOBS``); up to ``max_queue`` more wait without a process ("Queued: n ahead");
one client (remote address) holds at most ``per_client`` running or queued jobs; anything beyond
is answered at once with a "busy" message and starts nothing. A pid is only ever killed when
this machine's queue started it (a forged or replayed ``oldJob``/``cancelJob`` cannot name
another process).
"""

from __future__ import annotations

import atexit
import io
import os
import pickle
import secrets
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import diskcache
from dash import DiskcacheManager

from ..support.private import (
    CACHE_ENV,
    PrivateDir,
    PrivateStateError,
    check_private_dir,
    open_user_dir,
    private_dir,
    seal,
    secret_from_env,
    unseal,
)

__all__ = [
    "BROKER_ENV",
    "CACHE_DIR_ENV",
    "MAX_JOBS_ENV",
    "BoundedDiskcacheManager",
    "SignedDisk",
    "make_celery",
    "make_manager",
    "use_secret",
]

CACHE_DIR_ENV = CACHE_ENV  # the one variable of the user's cache (private.py)
BROKER_ENV = "ML_PEG_LIKE_CELERY_BROKER"
MAX_JOBS_ENV = "ML_PEG_LIKE_MAX_JOBS"
JOBS_DIR = "jobs"  # the per-start job caches, in the user's cache directory
DEFAULT_PER_CLIENT = 2  # running + queued jobs of one client
QUEUE_PER_SLOT = 4  # default max_queue = this x max_jobs
STATE_KEY = "ml-peg-like:jobs"
RESERVE_S = 30.0  # a slot reserved for a fork that never reported its pid is freed after this

_MAGIC = b"MPLS1"


class UntrustedEntry(OSError):
    """A cache entry this server did not write (diskcache reads an OSError as a miss)."""


class SignedDisk(diskcache.Disk):
    """Values pickled with an HMAC-SHA256 tag of the per-start secret in front
    (:func:`~ml_peg_like.support.private.seal`); anything else in the store (a raw pickle, a wrong
    tag, a pickled key) is refused before unpickling. Subclass with :func:`signed_disk` (the secret is a class attribute: diskcache would store
    a ``disk_*`` setting in ``cache.db``)."""

    _secret: bytes = b""

    def store(self, value, read, key=diskcache.core.UNKNOWN):
        if read:
            value = value.read()
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        return super().store(seal(self._secret, payload, _MAGIC), False, key)

    def fetch(self, mode, filename, value, read):
        if mode not in (diskcache.core.MODE_RAW, diskcache.core.MODE_BINARY):
            raise UntrustedEntry("cache entry not written by this server")
        payload = unseal(self._secret, super().fetch(mode, filename, value, False), _MAGIC)
        if payload is None:
            raise UntrustedEntry("cache entry not signed by this server")
        obj = pickle.loads(payload)
        return io.BytesIO(obj) if read and isinstance(obj, bytes) else obj

    def get(self, key, raw):
        if not raw:  # a pickled key: this server only writes str keys
            raise UntrustedEntry("pickled cache key")
        return super().get(key, raw)


def signed_disk(secret: bytes) -> type[SignedDisk]:
    return type("SignedDisk", (SignedDisk,), {"_secret": bytes(secret)})


def _client() -> str:
    try:
        import flask

        return flask.request.remote_addr or "?"
    except Exception:  # outside a request
        return "?"


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return False


def _kill(pid: int) -> None:
    import psutil

    try:
        proc = psutil.Process(pid)
        for child in proc.children(recursive=True):
            try:
                child.kill()
            except psutil.NoSuchProcess:
                pass
        proc.kill()
        proc.wait(1)
    except (psutil.NoSuchProcess, psutil.TimeoutExpired, psutil.AccessDenied):
        pass


class BoundedDiskcacheManager(DiskcacheManager):
    """A ``DiskcacheManager`` with a machine-wide bounded queue (see the module docstring).

    ``on_queued(position) -> progress values`` and ``on_busy(text) -> callback outputs`` say how
    the callback shows "queued" and "busy" (set by the component that owns the callback)."""

    def __init__(
        self,
        cache: diskcache.Cache,
        secret: bytes,
        *,
        max_jobs: int | None = None,
        max_queue: int | None = None,
        per_client: int = DEFAULT_PER_CLIENT,
    ):
        super().__init__(cache)
        self.secret = secret
        self.max_jobs = max(1, int(max_jobs or os.cpu_count() or 1))
        self.max_queue = max(
            0, int(self.max_jobs * QUEUE_PER_SLOT if max_queue is None else max_queue)
        )
        self.per_client = max(1, int(per_client))
        self.on_queued: Callable[[int], Any] = lambda ahead: [f"Queued: {ahead} ahead"]
        self.on_busy: Callable[[str], Any] = lambda text: text

    # -- Dash's signing secret is ours (server.secret_key); it is never written to the cache
    def get_or_create_signing_secret(self, generate):
        raise NotImplementedError

    # -- the shared state: {"running": {id: [client, pid|None, t]}, "queue": [entry, ...]}
    def _state(self) -> dict:
        st = self.handle.get(STATE_KEY)
        if not isinstance(st, dict):
            st = {}
        st.setdefault("running", {})
        st.setdefault("queue", [])
        return st

    def _prune(self, st: dict) -> None:
        now = time.time()
        for jid, (_, pid, t) in list(st["running"].items()):
            if (pid is None and now - t > RESERVE_S) or (pid is not None and not _alive(pid)):
                del st["running"][jid]

    def status(self) -> dict:
        """``{"running": n, "queued": n, "max_jobs": n}`` (for tests and /health-like views)."""
        with self.handle.transact():
            st = self._state()
            self._prune(st)
            self.handle.set(STATE_KEY, st)
        return {
            "running": len(st["running"]),
            "queued": len(st["queue"]),
            "max_jobs": self.max_jobs,
        }

    def _fn_key(self, job_fn) -> str | None:
        for k, f in self.func_registry.items():
            if f is job_fn:
                return k
        return None

    def call_job_fn(self, key, job_fn, args, context):
        client = _client()
        jid = "j" + secrets.token_hex(8)
        with self.handle.transact():
            st = self._state()
            self._prune(st)
            mine = sum(1 for c, _p, _t in st["running"].values() if c == client)
            mine += sum(1 for e in st["queue"] if e["client"] == client)
            if mine >= self.per_client:
                verdict = "client"
            elif len(st["running"]) < self.max_jobs and not st["queue"]:
                verdict = "run"
                st["running"][jid] = [client, None, time.time()]
            elif len(st["queue"]) < self.max_queue:
                verdict = "queue"
                st["queue"].append(
                    dict(
                        id=jid,
                        key=key,
                        client=client,
                        fn=self._fn_key(job_fn),
                        args=args,
                        context=_picklable(context),
                    )
                )
                self.handle.set(self._make_progress_key(key), self.on_queued(len(st["queue"]) - 1))
            else:
                verdict = "full"
            self.handle.set(STATE_KEY, st)
        if verdict == "run":
            self._start(jid, key, job_fn, args, context)
        elif verdict in ("client", "full"):
            text = (
                f"You already have {self.per_client} analyses running or queued: wait for one "
                "to finish (or cancel it) and run again."
                if verdict == "client"
                else f"The server is busy ({self.max_jobs} analyses running, {self.max_queue} "
                "waiting): try again in a minute."
            )
            self.handle.set(key, self.on_busy(text))
            return "x" + jid[1:]
        return jid

    def _start(self, jid: str, key: str, job_fn, args, context) -> None:
        try:
            pid = super().call_job_fn(key, job_fn, args, context)
        except Exception:
            with self.handle.transact():
                st = self._state()
                st["running"].pop(jid, None)
                self.handle.set(STATE_KEY, st)
            raise
        with self.handle.transact():
            st = self._state()
            if jid in st["running"]:
                st["running"][jid][1] = pid
            self.handle.set(STATE_KEY, st)

    def _pump(self) -> None:
        """Start queued jobs while slots are free (called on every poll of any client)."""
        while True:
            with self.handle.transact():
                st = self._state()
                self._prune(st)
                entry = None
                if st["queue"] and len(st["running"]) < self.max_jobs:
                    entry = st["queue"].pop(0)
                    st["running"][entry["id"]] = [entry["client"], None, time.time()]
                for i, e in enumerate(st["queue"]):
                    self.handle.set(self._make_progress_key(e["key"]), self.on_queued(i))
                self.handle.set(STATE_KEY, st)
            if entry is None:
                return
            job_fn = self.func_registry.get(entry["fn"])
            if job_fn is None:  # not this app's job: drop it
                with self.handle.transact():
                    st = self._state()
                    st["running"].pop(entry["id"], None)
                    self.handle.set(STATE_KEY, st)
                continue
            self._start(entry["id"], entry["key"], job_fn, entry["args"], entry["context"])

    def _lookup(self, job) -> tuple[str, Any]:
        """("running", pid|None) / ("queued", None) / ("none", None) for a job handle."""
        jid = str(job)
        with self.handle.transact():
            st = self._state()
        if jid in st["running"]:
            return "running", st["running"][jid][1]
        if any(e["id"] == jid for e in st["queue"]):
            return "queued", None
        return "none", None

    def job_running(self, job):
        if job is None or not str(job).startswith("j"):
            return False
        self._pump()
        kind, pid = self._lookup(job)
        if kind == "running":
            return pid is None or _alive(pid)
        return kind == "queued"

    def terminate_job(self, job):
        """Stop a job this queue knows (dequeue it, or kill the process it started); any other
        handle — a bare pid, an unknown id — is ignored."""
        if job is None or not str(job).startswith("j"):
            return
        jid = str(job)
        with self.handle.transact():
            st = self._state()
            st["queue"] = [e for e in st["queue"] if e["id"] != jid]
            entry = st["running"].pop(jid, None)
            self.handle.set(STATE_KEY, st)
        if entry and entry[1] is not None:
            _kill(int(entry[1]))

    def terminate_unhealthy_job(self, job):
        if self.job_running(job):
            return False
        self.terminate_job(job)
        return True


def _picklable(context: dict) -> dict:
    out = {}
    for k, v in dict(context).items():
        try:
            pickle.dumps(v)
        except Exception:
            continue
        out[k] = v
    return out


def _remove_leftovers(d: PrivateDir) -> None:
    """Remove the per-start directories of starts whose process is gone (killed: its exit
    handler never ran)."""
    for name in d.names():
        parts = name.split("-")
        if len(parts) < 3 or parts[0] != "run" or not parts[1].isdigit():
            continue
        if int(parts[1]) != os.getpid() and not _alive(int(parts[1])):
            if d.fd is not None:
                shutil.rmtree(name, ignore_errors=True, dir_fd=d.fd)
            else:
                shutil.rmtree(d.path / name, ignore_errors=True)


def fresh_jobs_dir() -> Path:
    """A new 0700 directory for this start's job cache, with an unpredictable name, in
    ``jobs/`` of the user's private cache directory; leftovers of starts that are gone are
    removed first. When that directory cannot be made (a service account without a home),
    one in the temporary directory (``mkdtemp``: as private, but a killed start's stays), and
    a warning that says why."""
    try:
        with open_user_dir(JOBS_DIR) as d:
            _remove_leftovers(d)
            path = tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=d.path)
    except (OSError, PrivateStateError) as exc:
        warnings.warn(
            f"job cache in the temporary directory: {exc} (set {CACHE_ENV})",
            RuntimeWarning,
            stacklevel=2,
        )
        path = tempfile.mkdtemp(prefix="ml-peg-like-run-")
    return check_private_dir(path)


def _own_dir(path: Path) -> None:
    """Remove a per-start cache directory at exit (only in the process that made it; ``serve``
    turns SIGTERM into an exit, Ctrl-C is one already)."""
    pid = os.getpid()

    def _rm():
        if os.getpid() == pid:
            shutil.rmtree(path, ignore_errors=True)

    atexit.register(_rm)


def make_celery(broker: str, backend: str | None = None, *, secret: bytes | None = None):
    """A Celery app on ``broker`` (and result store ``backend``, default the broker), JSON only,
    results signed with ``secret`` (default :func:`~ml_peg_like.support.private.secret_from_env`); see
    :mod:`ml_peg_like.serving.celeryjobs`."""
    from .celeryjobs import make_celery as _make

    return _make(broker, secret_from_env() if secret is None else secret, backend)


def make_manager(
    cache_dir: str | os.PathLike | None = None,
    broker: str | None = None,
    *,
    secret: bytes | None = None,
    max_jobs: int | None = None,
    max_queue: int | None = None,
    per_client: int = DEFAULT_PER_CLIENT,
):
    """The background callback manager (see the module docstring). ``broker`` (or
    ``$ML_PEG_LIKE_CELERY_BROKER`` when no ``cache_dir`` is given): Celery on that Redis; else the
    bounded diskcache manager in ``cache_dir`` (or ``$ML_PEG_LIKE_CACHE_DIR``, or a fresh private
    directory). Raises :class:`~ml_peg_like.support.private.PrivateStateError` for an unsafe directory or
    secret. ``manager.secret`` is the secret the app must sign with (:func:`use_secret`)."""
    secret = secret_from_env() if secret is None else secret
    broker = broker or (os.environ.get(BROKER_ENV) if cache_dir is None else None)
    if broker:
        from .celeryjobs import SignedCeleryManager

        return SignedCeleryManager(make_celery(broker, secret=secret), secret, broker)
    if max_jobs is None and os.environ.get(MAX_JOBS_ENV):
        try:
            max_jobs = int(os.environ[MAX_JOBS_ENV])
        except ValueError:
            raise PrivateStateError(
                f"{MAX_JOBS_ENV}: a whole number, not {os.environ[MAX_JOBS_ENV]!r}"
            ) from None
    chosen = cache_dir if cache_dir is not None else os.environ.get(CACHE_DIR_ENV)
    if chosen:
        directory = private_dir(chosen)
    else:
        directory = fresh_jobs_dir()
        _own_dir(directory)
    cache = diskcache.Cache(str(directory), disk=signed_disk(secret))
    for f in directory.glob("cache.db*"):
        os.chmod(f, 0o600)
    return BoundedDiskcacheManager(
        cache, secret, max_jobs=max_jobs, max_queue=max_queue, per_client=per_client
    )


def use_secret(app, manager) -> None:
    """Sign the app's background job handles with ``manager.secret`` (never stored in a cache)."""
    app.server.secret_key = manager.secret
