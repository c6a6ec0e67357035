"""Background jobs on Celery + Redis, attacked and broken: a result planted in Redis is refused
(never shown), a task message carries no request headers or cookies, an unreachable broker and a
killed worker are said to the user within a stated time.

Each test runs a real ``redis-server`` on a free loopback port (see ``test_jobs_celery.py``).
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
from browser_utils import small_dataset
from test_jobs_celery import _free_port
from test_jobs_celery import redis_url as redis_url  # noqa: F401 - the fixture

from ml_peg_like.serving import celeryjobs, jobs

SECRET = b"k" * 32


def _client(url: str):
    import redis

    return redis.Redis.from_url(url)


def _manager(url: str, secret: bytes = SECRET):
    m = jobs.make_manager(broker=url, secret=secret)
    m.on_busy = lambda text: ("no_update", "no_update", text)
    return m


def _message(out) -> str:
    assert isinstance(out, tuple) and out[:2] == ("no_update", "no_update"), out
    return out[2]


# -- F7: results are signed ------------------------------------------------------------------


def test_a_result_written_through_the_backend_is_read_back(redis_url):  # noqa: F811
    m = _manager(redis_url)
    m.handle.backend.set("res-1", json.dumps({"props": [1, 2]}))
    raw = _client(redis_url).get("res-1")
    assert raw.startswith(b"MPLR1") and raw.endswith(b'{"props": [1, 2]}')  # sealed: 5 + 32 + body
    assert len(raw) == 5 + 32 + len(b'{"props": [1, 2]}')
    assert m.get_result("res-1", None) == {"props": [1, 2]}
    assert _client(redis_url).get("res-1") is None  # read once, as Dash does


def test_a_result_planted_in_redis_is_refused_not_shown(redis_url):  # noqa: F811
    m = _manager(redis_url)
    script = '<img src=x onerror="alert(1)">'
    _client(redis_url).set("res-2", json.dumps([script, None, None]))  # write access to Redis
    assert m.result_ready("res-2")
    text = _message(m.get_result("res-2", None))
    assert "did not sign" in text and "refused" in text and script not in text
    assert _client(redis_url).get("res-2") is None  # removed, not read again


def test_a_signed_result_moved_to_another_key_or_signed_by_another_secret_is_refused(
    redis_url,  # noqa: F811
):
    m = _manager(redis_url)
    r = _client(redis_url)
    m.handle.backend.set("res-a", json.dumps("mine"))
    r.set("res-b", r.get("res-a"))  # a genuine value under another job's key
    assert "did not sign" in _message(m.get_result("res-b", None))
    other = _manager(redis_url, secret=b"o" * 32)
    other.handle.backend.set("res-c", json.dumps("theirs"))
    assert "did not sign" in _message(m.get_result("res-c", None))
    # a planted progress or side update is dropped, not shown
    r.set("res-d-progress", json.dumps(["<b>x</b>"]))
    r.set("res-d-set_props", json.dumps({"a": {"children": "<b>x</b>"}}))
    assert m.get_progress("res-d") is None and m.get_updated_props("res-d") == {}


def test_a_planted_task_state_does_not_crash_the_poll(redis_url):  # noqa: F811
    m = _manager(redis_url)
    job = f"{int(time.time() * 1000)}-{'0' * 32}"
    meta = {"status": "SUCCESS", "result": None, "task_id": job}
    _client(redis_url).set(f"celery-task-meta-{job}", json.dumps(meta))
    assert m.job_running(job) is False
    assert "not signed by this server" in _message(m.get_result("res-e", job))


def _robustness_request(app) -> tuple[str, dict]:
    """The robustness callback's request body, as the page sends it on Run."""
    key = next(k for k in app.callback_map if "rob-results.children" in k)
    cb = app.callback_map[key]
    outs = [o.rsplit(".", 1) for o in key.strip(".").split("...")]

    def values(specs, first):
        return [dict(s, value=first if i == 0 else None) for i, s in enumerate(specs)]

    body = {
        "output": key,
        "outputs": [dict(id=i, property=p) for i, p in outs],
        "inputs": values(cb["inputs"], {"n": 1, "nonce": "INPUT-VALUE-7"}),
        "state": values(cb["state"], None),
        "changedPropIds": [f"{cb['inputs'][0]['id']}.{cb['inputs'][0]['property']}"],
    }
    return key, body


def test_a_queued_task_carries_no_request_headers_or_cookies(redis_url, tmp_path):  # noqa: F811
    from ml_peg_like.dashboard import create_app

    cfg, raw = small_dataset(tmp_path / "data")
    app = create_app(cfg, raw, broker=redis_url)
    _key, body = _robustness_request(app)
    client = app.server.test_client()
    client.set_cookie("session", "COOKIE-SECRET-1")
    r = client.post(
        "/_dash-update-component?endId=END-ID-4",
        json=body,
        headers={"Authorization": "Bearer HEADER-SECRET-2", "X-Trace": "HEADER-SECRET-3"},
    )
    assert r.status_code == 200, r.get_data(as_text=True)
    assert "cacheKey" in r.get_json()
    queued = _client(redis_url).lrange("celery", 0, -1)  # no worker: the message waits
    assert len(queued) == 1
    envelope = json.loads(queued[0])
    task = base64.b64decode(envelope["body"]).decode()
    assert "INPUT-VALUE-7" in task  # the callback's input is there ...
    for secret in ("COOKIE-SECRET-1", "HEADER-SECRET-2", "HEADER-SECRET-3", "END-ID-4"):
        assert secret not in task and secret not in json.dumps(envelope["headers"])  # ... these not
    context = json.loads(task)[0][3]
    assert not set(context) & set(celeryjobs.REQUEST_FIELDS)
    assert "inputs_list" in context and "triggered_inputs" in context


# -- F8: failures are said -------------------------------------------------------------------


def test_an_unreachable_broker_is_said_within_the_connect_timeout(redis_url):  # noqa: F811
    # (redis_url: skips without redis-server and Celery, like the other tests)
    port = _free_port()  # bound, then closed: nothing listens there
    url = f"redis://127.0.0.1:{port}/0"
    m = _manager(url)
    job_fn = m.make_job_fn(lambda: 1, False, "down-test")
    t0 = time.monotonic()
    job = m.call_job_fn("res-f", job_fn, [], {"inputs_list": []})
    queued_s = time.monotonic() - t0
    t0 = time.monotonic()
    text = _message(m.get_result("res-f", job))
    poll_s = time.monotonic() - t0
    assert m.job_running(job) is False
    assert f"The job queue (redis://127.0.0.1:{port}/0) cannot be reached" in text
    assert "cannot be reached" in text
    limit = 2 * celeryjobs.CONNECT_TIMEOUT_S + 1
    assert queued_s < limit and poll_s < limit, (queued_s, poll_s)


@pytest.fixture
def hung_port():
    """A port whose listener never accepts and whose backlog is full: a connection to it waits
    (a Redis host that stopped answering, not one that refuses)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(0)
    port = srv.getsockname()[1]
    held = []
    for _ in range(8):
        c = socket.socket()
        c.setblocking(False)
        c.connect_ex(("127.0.0.1", port))
        held.append(c)
    time.sleep(0.2)
    probe = socket.socket()
    probe.settimeout(0.5)
    try:
        probe.connect(("127.0.0.1", port))
        pytest.skip("this system accepts connections beyond a full backlog")
    except OSError:
        pass
    finally:
        probe.close()
    yield port
    for c in held:
        c.close()
    srv.close()


def test_a_hung_broker_is_said_within_one_connect_timeout_per_process(redis_url, hung_port):  # noqa: F811
    url = f"redis://127.0.0.1:{hung_port}/0"
    m = _manager(url)
    job_fn = m.make_job_fn(lambda: 1, False, "hung-test")
    limit = celeryjobs.CONNECT_TIMEOUT_S + 1
    t0 = time.monotonic()
    job = m.call_job_fn("res-j", job_fn, [], {"inputs_list": []})
    assert time.monotonic() - t0 < limit
    other = _manager(url)  # another server process: its first poll (every read Dash does)
    t0 = time.monotonic()
    assert other.get_progress("res-j") is None
    text = _message(other.get_result("res-j", job))
    assert other.job_running(job) is False and other.get_updated_props("res-j") == {}
    assert time.monotonic() - t0 < limit
    assert f"The job queue ({url}) cannot be reached" in text


def test_a_job_no_worker_takes_is_said_lost_after_the_queue_deadline(redis_url, monkeypatch):  # noqa: F811
    monkeypatch.setattr(celeryjobs, "QUEUE_DEADLINE_S", 1.0)
    m = _manager(redis_url)
    job_fn = m.make_job_fn(lambda: 1, False, "nobody")
    job = m.call_job_fn("res-g", job_fn, [], {"inputs_list": []})
    assert m.get_result("res-g", job) is m.UNDEFINED and m.job_running(job)  # still waiting
    time.sleep(1.2)
    text = _message(m.get_result("res-g", job))
    assert "No worker took the job in 1 s" in text and redis_url in text


_WORKER = """
import sys, time
from ml_peg_like.serving import jobs
m = jobs.make_manager(broker=sys.argv[1], secret=b"k" * 32)
def slow(seconds):
    time.sleep(seconds)
    return "done"
m.make_job_fn(slow, False, "slow")
m.handle.worker_main(["worker", "--loglevel=INFO", "--without-gossip", "--without-mingle",
                      "--concurrency=1", "--hostname=lost@%h"])
"""


def _start_worker(tmp_path, url):
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(_WORKER))
    log = open(tmp_path / "worker.log", "w")
    proc = subprocess.Popen(
        [sys.executable, str(script), url], stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, PYTHONPATH=os.getcwd()), start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while "ready" not in (tmp_path / "worker.log").read_text():
        assert proc.poll() is None and time.monotonic() < deadline, (
            tmp_path / "worker.log"
        ).read_text()
        time.sleep(0.2)
    return proc


def test_a_killed_worker_is_said_within_the_ping_time(redis_url, tmp_path):  # noqa: F811
    m = _manager(redis_url)
    slow = m.make_job_fn(lambda seconds: None, False, "slow")  # the worker's task of that name
    worker = _start_worker(tmp_path, redis_url)
    try:
        short = m.call_job_fn("res-h", slow, [0.2], {"inputs_list": []})
        deadline = time.monotonic() + 30
        while (out := m.get_result("res-h", short)) is m.UNDEFINED:
            assert time.monotonic() < deadline, "the worker did not run the job"
            time.sleep(0.2)
        assert out == "done"  # a result of the worker, signed by it, read back
        job = m.call_job_fn("res-i", slow, [600], {"inputs_list": []})
        while m.handle.AsyncResult(job).status != "STARTED":
            assert time.monotonic() < deadline, "the job did not start"
            time.sleep(0.2)
        assert m.get_result("res-i", job) is m.UNDEFINED  # running, its worker answers
        os.killpg(worker.pid, signal.SIGKILL)  # the whole worker: master and pool
        worker.wait(10)
        killed = time.monotonic()
        while (out := m.get_result("res-i", job)) is m.UNDEFINED:
            time.sleep(0.5)  # the page's poll
        took = time.monotonic() - killed
        assert "stopped answering: the job was lost" in _message(out)
        assert took <= celeryjobs.PING_EVERY_S + celeryjobs.PING_TIMEOUT_S + 1.0, took
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(10)


def test_the_worker_settings_acknowledge_late_and_give_back_a_lost_task(redis_url):  # noqa: F811
    conf = _manager(redis_url).handle.conf
    assert conf.task_acks_late is True and conf.task_reject_on_worker_lost is True
    assert conf.task_track_started is True
    assert conf.broker_connection_timeout == celeryjobs.CONNECT_TIMEOUT_S
    assert conf.redis_socket_connect_timeout == celeryjobs.CONNECT_TIMEOUT_S
