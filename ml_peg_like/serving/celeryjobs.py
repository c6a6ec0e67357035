"""Background jobs on Celery + Redis: signed results, trimmed task messages, failures said.

* **Signed results**: every value written to the result store (Dash's job results, progress and
  side updates, Celery's own task states) is sealed with an HMAC-SHA256 tag of the server's
  secret, bound to its Redis key (:func:`ml_peg_like.support.private.seal`; :func:`signed_backend`, a
  result backend class for Celery's documented ``backend=``). A value that does not verify
  (written by anyone with write access to Redis, moved from another key, or by a worker with
  another secret) is never decoded: the page says the result was refused.
* **Trimmed task messages**: a queued task carries the callback's inputs and what Dash's context
  needs to run it, never the request's headers, cookies, query arguments, path, origin or the
  client's address (:data:`REQUEST_FIELDS`).
* **Failures said** (:class:`SignedCeleryManager`): the broker down -> the Run request and the
  first poll are each answered within :data:`CONNECT_TIMEOUT_S` (at once when Redis refuses
  the connection; a process that failed answers at once for :data:`DOWN_MEMO_S`) and the page
  names the broker's address; a job no worker takes within :data:`QUEUE_DEADLINE_S` (also one
  queued behind that long: the workers' ``--concurrency`` is the bound), or whose worker stops
  answering (pinged at most every :data:`PING_EVERY_S`, :data:`PING_TIMEOUT_S` to answer) ->
  the page says the job was lost. Workers acknowledge a task only once it ran (``task_acks_late``) and give a task
  back when the process running it dies (``task_reject_on_worker_lost``).
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from dash import CeleryManager

from ..support.private import PrivateStateError, seal, unseal

__all__ = [
    "CONNECT_TIMEOUT_S",
    "PING_EVERY_S",
    "PING_TIMEOUT_S",
    "QUEUE_DEADLINE_S",
    "REQUEST_FIELDS",
    "ForgedResult",
    "SignedCeleryManager",
    "make_celery",
    "signed_backend",
]

#: connecting to Redis (broker and result store) gives up after this many seconds
CONNECT_TIMEOUT_S = 2.0
#: a read or write on an open Redis connection gives up after this many seconds
SOCKET_TIMEOUT_S = 10.0
#: after a failure to reach the queue, a process answers at once for this many seconds
#: (without it a poll of a hung Redis waited for the connect timeout once per read)
DOWN_MEMO_S = 5.0
#: a job that no worker has started after this many seconds is said lost (and revoked)
QUEUE_DEADLINE_S = 120.0
#: a running job's worker is pinged at most this often ...
PING_EVERY_S = 5.0
#: ... and is said gone when it does not answer within this many seconds
PING_TIMEOUT_S = 2.0
#: a result left in Redis expires after this many seconds
RESULT_EXPIRES_S = 3600
#: the request's own fields of Dash's callback context: never put in a task message
REQUEST_FIELDS = ("cookies", "headers", "args", "path", "remote", "origin")

_MAGIC = b"MPLR1"
_STARTED = ("STARTED", "PROGRESS", "RETRY")
_ENDED = ("FAILURE", "REVOKED")
log = logging.getLogger("ml_peg_like.dashboard")


class ForgedResult(ValueError):
    """A value in the result store that this server's secret did not sign."""


class QueueDown(OSError):
    """The job queue failed less than :data:`DOWN_MEMO_S` ago: not asked again yet."""


def _redis_backend_class():
    from celery.backends.redis import RedisBackend  # lazy: only this deployment needs Celery

    return RedisBackend


def _as_bytes(value) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _make_backend_class():
    base = _redis_backend_class()

    class SignedRedisBackend(base):
        """Celery's Redis result store with every value sealed (see the module docstring); the
        secret and the URL are class attributes (made per app by :func:`signed_backend`)."""

        _secret: bytes = b""
        _url: str = ""

        def __init__(self, *args, url=None, **kwargs):
            super().__init__(*args, url=url or self._url, **kwargs)

        def _open(self, key, raw):
            if raw is None:
                return None
            payload = unseal(self._secret, _as_bytes(raw), _MAGIC, _as_bytes(key))
            if payload is None:
                raise ForgedResult(f"result store entry {key!r}: not signed by this server")
            return payload

        def get(self, key):
            return self._open(key, super().get(key))

        def on_task_call(self, producer, task_id):
            """No subscription to the task's result: the dashboard polls the store, it never
            waits on a result (and an unreachable store must not fail the sending of a task)."""

        def mget(self, keys):
            return [self._open(k, v) for k, v in zip(keys, super().mget(keys), strict=True)]

        def set(self, key, value, expires=None, **retry_policy):
            sealed = seal(self._secret, _as_bytes(value), _MAGIC, _as_bytes(key))
            return super().set(key, sealed, expires, **retry_policy)

    return SignedRedisBackend


_BASE: list = []  # the signed backend class, made on first use (Celery is optional)


def signed_backend(secret: bytes, url: str):
    """Celery's Redis result store, every value sealed with ``secret`` (see the module
    docstring), on the Redis ``url``: a class, for Celery's ``backend=``."""
    if not _BASE:
        _BASE.append(_make_backend_class())
    return type("SignedRedisBackend", (_BASE[0],), {"_secret": bytes(secret), "_url": url})


def make_celery(broker: str, secret: bytes, backend: str | None = None):
    """A Celery app on ``broker`` (result store ``backend``, default the broker), JSON only,
    results signed with ``secret``, short connection timeouts, tasks acknowledged late."""
    try:
        from celery import Celery  # lazy: only this deployment needs it
    except ImportError as exc:  # pragma: no cover
        raise PrivateStateError(
            '--broker needs Celery: pip install "ml-peg-like[celery]" (celery[redis])'
        ) from exc
    app = Celery(
        "ml_peg_like_jobs", broker=broker, backend=signed_backend(secret, backend or broker)
    )
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        result_expires=RESULT_EXPIRES_S,
        broker_connection_retry_on_startup=True,
        broker_connection_timeout=CONNECT_TIMEOUT_S,
        broker_transport_options={
            "socket_connect_timeout": CONNECT_TIMEOUT_S,
            "socket_timeout": SOCKET_TIMEOUT_S,
        },
        task_publish_retry_policy={"max_retries": 0},
        redis_socket_connect_timeout=CONNECT_TIMEOUT_S,
        redis_socket_timeout=SOCKET_TIMEOUT_S,
        result_backend_transport_options={"retry_policy": {"max_retries": 0}},
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_track_started=True,
        worker_prefetch_multiplier=1,
    )
    return app


def _where(url: str) -> str:
    """The broker's address without its password (``redis://HOST:PORT/DB``)."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.rpartition('@')[2]}"


def _job_time(job) -> float | None:
    head = str(job).split("-", 1)[0]
    return int(head) / 1000 if head.isdigit() else None


class SignedCeleryManager(CeleryManager):
    """Dash's ``CeleryManager`` on a :func:`make_celery` app: trimmed task messages, signed
    results, and a message for a forged result, an unreachable broker or a lost job.
    ``on_busy(text) -> callback outputs`` says how the callback shows such a message (set by the
    component that owns the callback); ``secret`` is the app's signing secret."""

    def __init__(self, celery_app, secret: bytes, broker: str):
        super().__init__(celery_app)
        self.secret = secret
        self.broker = _where(broker)
        self.on_busy = lambda text: text
        self.on_queued = lambda ahead: [f"Queued: {ahead} ahead"]
        self._pinged: dict[str, float] = {}
        self._down_until = 0.0  # after a failure, the queue is not asked again until then
        self._down_why = ""

    # -- Dash's signing secret is ours (server.secret_key); it is never written to Redis
    def get_or_create_signing_secret(self, generate):
        raise NotImplementedError

    def _errors(self) -> tuple[type[BaseException], ...]:
        from kombu.exceptions import OperationalError

        backend = self.handle.backend
        return (OperationalError, OSError, *backend.connection_errors, *backend.channel_errors)

    def _check_up(self) -> None:
        """Fail at once while the queue failed less than DOWN_MEMO_S ago: one poll does
        several reads, each would wait for the connect timeout again."""
        if time.monotonic() < self._down_until:
            raise QueueDown(self._down_why)

    def _down(self, exc: BaseException) -> str:
        """Note a failure to reach the queue (see :meth:`_check_up`); the page's message."""
        if not isinstance(exc, QueueDown):
            log.warning("job queue %s unreachable: %s", self.broker, exc)
            self._down_until = time.monotonic() + DOWN_MEMO_S
            self._down_why = str(exc)
        return self._down_text()

    def _down_text(self) -> str:
        return (
            f"The job queue ({self.broker}) cannot be reached: the analysis could not run. "
            "Try again later, or ask the server's operator to check Redis."
        )

    def call_job_fn(self, key, job_fn, args, context):
        trimmed = {k: v for k, v in dict(context).items() if k not in REQUEST_FIELDS}
        job = f"{int(time.time() * 1000)}-{uuid.uuid4().hex}"
        try:
            self._check_up()
            job_fn.apply_async(args=(key, self._make_progress_key(key), args, trimmed), task_id=job)
        except self._errors() as exc:
            self._down(exc)
            return "x" + job  # not queued: the first poll says why
        return job

    def job_running(self, job):
        if job is None or str(job).startswith("x"):
            return False
        try:
            self._check_up()
            return bool(super().job_running(job))
        except ForgedResult:
            return False
        except self._errors() as exc:
            self._down(exc)
            return False

    def terminate_job(self, job):
        if job is None or str(job).startswith("x"):
            return
        try:
            self._check_up()
            super().terminate_job(job)
        except self._errors() as exc:
            self._down(exc)

    def get_progress(self, key):
        try:
            self._check_up()
            return super().get_progress(key)
        except ForgedResult as exc:
            log.warning("refused a job progress: %s", exc)
        except self._errors() as exc:
            self._down(exc)
        return None

    def get_updated_props(self, key):
        try:
            self._check_up()
            return super().get_updated_props(key)
        except ForgedResult as exc:
            log.warning("refused a job's side updates: %s", exc)
        except self._errors() as exc:
            self._down(exc)
        return {}

    def result_ready(self, key):
        try:
            self._check_up()
            return super().result_ready(key)
        except ForgedResult:
            return True  # get_result says it is refused
        except self._errors():
            return True  # get_result says the queue is down

    def get_result(self, key, job):
        try:
            self._check_up()
            result = super().get_result(key, job)
        except ForgedResult as exc:
            log.warning("refused a job result: %s", exc)
            self._forget(key, job)
            return self.on_busy(
                "A result that this server did not sign was found in the job queue: refused. "
                "If several servers and workers share this queue, they must share "
                "ML_PEG_LIKE_SECRET; otherwise someone else can write to its Redis."
            )
        except self._errors() as exc:
            return self.on_busy(self._down(exc))
        if result is not self.UNDEFINED:
            self._pinged.pop(str(job), None)
            return result
        try:
            lost = self._lost(job)
        except self._errors() as exc:
            lost = self._down(exc)
        if lost is None:
            return result
        self._forget(key, job)
        return self.on_busy(lost)

    def _forget(self, key, job) -> None:
        try:
            self._check_up()
            self.clear_cache_entry(key)
            self.clear_cache_entry(self._make_progress_key(key))
        except self._errors() as exc:
            self._down(exc)
        self.terminate_job(job)
        self._pinged.pop(str(job), None)

    def _state(self, job) -> tuple[str, dict]:
        meta = self.handle.backend.get_task_meta(str(job))
        info = meta.get("result")
        return str(meta.get("status")), info if isinstance(info, dict) else {}

    def _lost(self, job) -> str | None:
        """Why a job without a result will never give one, or None while it may still."""
        if job is None:
            return None
        if str(job).startswith("x"):
            return self._down_text()  # call_job_fn could not queue it
        try:
            status, info = self._state(job)
        except ForgedResult:
            return "The job's state in the job queue was not signed by this server: refused."
        if status in _ENDED:
            return "The job stopped on its worker without a result (the worker was stopped?)."
        started = _job_time(job)
        if status == "PENDING" and started and time.time() - started > QUEUE_DEADLINE_S:
            return (
                f"No worker took the job in {QUEUE_DEADLINE_S:.0f} s: is "
                f"`ml-peg-like worker ... --broker {self.broker}` running?"
            )
        if status in _STARTED and not self._worker_answers(str(job), info.get("hostname")):
            return (
                f"The worker running the job ({info.get('hostname')}) stopped answering: the "
                "job was lost. Run it again."
            )
        return None

    def _worker_answers(self, job: str, hostname: Any) -> bool:
        """Ping the job's worker (at most every PING_EVERY_S per job and process)."""
        if not isinstance(hostname, str):
            return True
        now = time.monotonic()
        if now - self._pinged.get(job, 0.0) < PING_EVERY_S:
            return True
        self._pinged[job] = now
        replies = self.handle.control.ping(destination=[hostname], timeout=PING_TIMEOUT_S)
        return any(hostname in r for r in replies or [])
