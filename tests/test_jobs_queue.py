"""Background work bounded: forged robustness requests with fresh nonces share one
machine-wide queue (a fixed number of jobs at once, a bounded wait list, a per-client limit);
the rest are answered "busy" and start nothing."""

from __future__ import annotations

import json
import re
import time

import psutil
import pytest
from browser_utils import small_dataset

from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.components.robustness import callbacks as rcb
from ml_peg_like.serving import jobs


def _end_id(client) -> str:
    page = client.get("/").get_data(as_text=True)
    config = json.loads(re.search(r'id="_dash-config"[^>]*>(.*?)</script>', page, re.S).group(1))
    return config["end_id"]


def _body(token: str, nonce: str, samples: int = rcb.MAX_SAMPLES) -> dict:
    return {
        "output": "..rob-results.children...rob-meta.data...rob-message.children..",
        "outputs": [
            {"id": "rob-results", "property": "children"},
            {"id": "rob-meta", "property": "data"},
            {"id": "rob-message", "property": "children"},
        ],
        "inputs": [{"id": "rob-request", "property": "data", "value": {"n": 1, "r": nonce}}],
        "changedPropIds": ["rob-request.data"],
        "state": [
            {"id": "changes", "property": "data", "value": {}},
            {"id": "rob-samples", "property": "value", "value": samples},
            {"id": "rob-concentration", "property": "value", "value": 20},
            {"id": "rob-jitter", "property": "value", "value": 10},
            {"id": "rob-topk", "property": "value", "value": 3},
            {"id": "rob-seed", "property": "value", "value": 0},
            {"id": "rob-token", "property": "data", "value": token},
        ],
    }


def _post(client, end_id, body, **handles):
    query = "&".join(f"{k}={v}" for k, v in {**handles, "endId": end_id}.items())
    r = client.post(
        f"/_dash-update-component?{query}", data=json.dumps(body), content_type="application/json"
    )
    assert r.status_code in (200, 204), r.get_data(as_text=True)[:300]
    return r.get_json(silent=True) or {}


def _jobs_alive() -> list[psutil.Process]:
    out = []
    for p in psutil.Process().children(recursive=False):
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def _forge_six(tmp_path, **bounds):
    cfg, raw = small_dataset(tmp_path / "data")
    manager = jobs.make_manager(tmp_path / "cache", **bounds)
    app = create_app(cfg, raw, jobs_manager=manager)
    client = app.server.test_client()
    end_id = _end_id(client)
    token = rcb.engine_token(app.score_cache)
    before = len(_jobs_alive())
    handles = [_post(client, end_id, _body(token, f"n{i}")) for i in range(6)]
    started = len(_jobs_alive()) - before
    return app, manager, client, end_id, token, handles, started


def _cleanup(manager, handles):
    for h in handles:
        job = h.get("job", "").rpartition("~")[0]
        manager.terminate_job(job)
    for p in _jobs_alive():
        p.kill()


def _poll(client, end_id, token, handle, nonce):
    return _post(
        client, end_id, _body(token, nonce), cacheKey=handle["cacheKey"], job=handle["job"]
    )


def test_six_forged_requests_start_at_most_max_jobs_processes(tmp_path):
    app, manager, client, end_id, token, handles, started = _forge_six(
        tmp_path, max_jobs=1, max_queue=2, per_client=10
    )
    try:
        assert started == 1
        assert manager.status() == {"running": 1, "queued": 2, "max_jobs": 1}
        # the 4th..6th are answered "busy" at their first poll, and start nothing
        for i in (3, 4, 5):
            text = json.dumps(_poll(client, end_id, token, handles[i], f"n{i}"))
            assert "The server is busy (1 analyses running, 2 waiting)" in text
        # a queued one says so in its progress line
        text = json.dumps(_poll(client, end_id, token, handles[2], "n2"))
        assert "Queued: 1 analyses ahead" in text
        assert len(_jobs_alive()) <= 1
        # cancelling the running job lets the first queued one start on the next poll
        manager.terminate_job(handles[0]["job"].rpartition("~")[0])
        _poll(client, end_id, token, handles[1], "n1")
        assert manager.status()["running"] == 1 and manager.status()["queued"] == 1
        assert len(_jobs_alive()) == 1
    finally:
        _cleanup(manager, handles)


def test_one_client_holds_at_most_per_client_jobs(tmp_path):
    app, manager, client, end_id, token, handles, started = _forge_six(
        tmp_path, max_jobs=4, max_queue=8, per_client=2
    )
    try:
        assert started == 2
        assert manager.status()["running"] == 2 and manager.status()["queued"] == 0
        text = json.dumps(_poll(client, end_id, token, handles[2], "n2"))
        assert "You already have 2 analyses running or queued" in text
    finally:
        _cleanup(manager, handles)


def test_default_bound_is_the_cpu_count_and_samples_are_capped(tmp_path, monkeypatch):
    import os

    monkeypatch.delenv(jobs.MAX_JOBS_ENV, raising=False)
    assert jobs.make_manager(tmp_path / "a").max_jobs == (os.cpu_count() or 1)
    monkeypatch.setenv(jobs.MAX_JOBS_ENV, "3")
    assert jobs.make_manager(tmp_path / "b").max_jobs == 3
    monkeypatch.setenv(jobs.MAX_JOBS_ENV, "many")
    with pytest.raises(jobs.PrivateStateError, match=jobs.MAX_JOBS_ENV):
        jobs.make_manager(tmp_path / "c")
    _kw, problems = rcb.parse_controls(rcb.MAX_SAMPLES + 1, 20, 10, 3, 0)
    assert problems == ["Samples: a whole number from 1 to 20,000"]


def test_a_job_runs_to_its_result_through_the_queue(tmp_path):
    cfg, raw = small_dataset(tmp_path / "data")
    manager = jobs.make_manager(tmp_path / "cache", max_jobs=1)
    app = create_app(cfg, raw, jobs_manager=manager)
    client = app.server.test_client()
    end_id, token = _end_id(client), rcb.engine_token(app.score_cache)
    h = _post(client, end_id, _body(token, "a", samples=50))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        out = _poll(client, end_id, token, h, "a")
        if "response" in out:
            break
        time.sleep(0.2)
    assert out["response"]["rob-meta"]["data"]["samples"] == 50
    assert manager.status()["running"] == 0
