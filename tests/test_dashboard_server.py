"""The dashboard's server side against its own clients and hostile ones (no browser).

- ``/health`` answers a small JSON; ``ml-peg-like serve DIR --workers 2`` runs under gunicorn on
  loopback and answers it.
- Forged callback requests sent straight to ``/_dash-update-component`` (wrong types, huge lists,
  unknown ids and paths, 10 MB strings, malformed JSON, missing keys) get a 4xx or a 204, never a
  500, never a traceback in the response or the log, and never change another user's answer.

Requests are built like the page builds them: from ``/_dash-dependencies`` and the ids of the
overview's boxes.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser_utils import small_dataset

from ml_peg_like.dashboard import GUNICORN_REQUEST_LINE, MAX_REQUEST_BYTES, create_app, ids
from ml_peg_like.dashboard.components.robustness import callbacks as rcb

ROOT = Path(__file__).resolve().parents[1]
URL = "/_dash-update-component"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    app = create_app(cfg, raw)
    return cfg, raw, app


class Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def logs(served):
    handler = Records()
    loggers = [served[2].server.logger, logging.getLogger("ml_peg_like.dashboard")]
    for lg in loggers:
        lg.addHandler(handler)
    yield handler.records
    for lg in loggers:
        lg.removeHandler(handler)


# ------------------------------------------------------------------------------------------------
# requests as the page builds them
# ------------------------------------------------------------------------------------------------


def _main_callback(client) -> dict:
    deps = client.get("/_dash-dependencies").get_json()
    return next(
        d
        for d in deps
        if d["output"].startswith("..changes.data..") and not d.get("clientside_function")
    )


def _split(spec: str) -> list[tuple[str, str]]:
    out = []
    for part in spec.strip(".").split("..."):
        ident, _, prop = part.rpartition(".")
        out.append((ident, prop))
    return out


def _concrete(ident: str, cfg) -> list[dict] | None:
    """The overview's components matching a pattern id (None: not a pattern)."""
    if not ident.startswith("{"):
        return None
    kind = json.loads(ident)["type"]
    cats = [c.name for c in cfg.categories]
    if kind == "setting":
        return [{"type": "setting", "path": c, "field": "weight"} for c in cats]
    if kind in ("msg", "reset"):
        return [{"type": kind, "path": c} for c in cats]
    return []  # curve graphs: none on the overview


def edit_payload(client, cfg, changes=None, weights=None, trigger="changes.data") -> dict:
    """The request the page sends after an edit in the browser (its new ``changes`` in the
    store) on the overview (``weights``: the boxes' texts; ``trigger``: the changed prop)."""
    cb = _main_callback(client)
    weights = weights or {}
    values = {
        "url.search": "",
        "want.data": None,
        "show.value": "raw",
        "model-filter.value": None,
        "reset-table.n_clicks": 0,
        "reset-all.n_clicks": 0,
        "preset.value": None,
        "upload.contents": None,
        "upload.filename": None,
        "changes.data": changes or {},
        "view.data": {"v": "", "m": ""},
        "qs.data": "",
        "colsig.data": "",
        "status.children": None,
    }

    def entries(deps, with_value: bool):
        out = []
        for d in deps:
            ident, prop = d["id"], d["property"]
            many = _concrete(ident, cfg)
            if many is None:
                e = {"id": ident, "property": prop}
                if with_value:
                    e["value"] = values.get(f"{ident}.{prop}")
                out.append(e)
                continue
            group = []
            for i in many:
                e = {"id": i, "property": prop}
                if with_value:
                    if i["type"] == "setting":
                        e["value"] = weights.get(i["path"], str(cfg.node(i["path"]).weight))
                    else:
                        e["value"] = 0
                group.append(e)
            out.append(group)
        return out

    outputs = []
    for ident, prop in _split(cb["output"]):
        many = _concrete(ident, cfg)
        if many is None:
            outputs.append({"id": ident, "property": prop})
        else:
            outputs.append([{"id": i, "property": prop} for i in many])
    return {
        "output": cb["output"],
        "outputs": outputs,
        "inputs": entries(cb["inputs"], True),
        "state": entries(cb["state"], True),
        "changedPropIds": [trigger],
    }


def post(client, payload):
    return client.post(URL, json=payload)


def _set(payload, key: str, value, where="inputs"):
    """Set the value of the input/state ``key`` (``id.property``) of a payload."""
    for e in payload[where]:
        if isinstance(e, dict) and f"{e['id']}.{e['property']}" == key:
            e["value"] = value
            return payload
    raise KeyError(key)


# ------------------------------------------------------------------------------------------------
# health and serving
# ------------------------------------------------------------------------------------------------


def test_health_answers_a_small_json(served):
    cfg, raw, app = served
    r = app.server.test_client().get("/health")
    assert r.status_code == 200
    assert r.get_json() == {"status": "ok", "models": 6, "metrics": 7}
    assert len(r.data) < 200


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_with_workers_runs_gunicorn_on_loopback(tmp_path):
    pytest.importorskip("gunicorn")
    from browser_utils import write_small_dataset

    data = write_small_dataset(tmp_path / "data")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ml_peg_like", "serve", str(data), "--workers", "2"]
        + ["--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        deadline = time.time() + 40
        body = None
        while time.time() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    body = json.loads(r.read())
                    break
            except OSError:
                time.sleep(0.3)
        assert body == {"status": "ok", "models": 6, "metrics": 7}
        # the page and a callback request work through gunicorn's workers
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert r.status == 200 and b"_dash-renderer" in r.read()
        # a 6 KB link (every threshold of ML-PEG changed: 4.2-5 KB) is served; gunicorn's
        # default refuses a request line over 4,094 bytes, its maximum is 8,190
        link = f"http://127.0.0.1:{port}/?v=Classification&pad=" + "a" * 6000
        with urllib.request.urlopen(link, timeout=5) as r:
            assert r.status == 200 and b"_dash-renderer" in r.read()
        # 8 clients sending their request slowly (a byte now and then) stall no one: the
        # workers serve with threads (sync workers were stalled 30 s by as many)
        slow = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(8)]
        for s in slow:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        t0 = time.time()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
            assert r.status == 200
        assert time.time() - t0 < 10.0  # sync workers stalled each request for 30 s
        for s in slow:
            s.close()
        for extra, status in ((0, b"200"), (1, b"414")):  # a request line of 8,190 bytes: served
            pad = "a" * (GUNICORN_REQUEST_LINE + extra - len("GET /?pad= HTTP/1.1"))
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(f"GET /?pad={pad} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                assert s.recv(100).startswith(b"HTTP/1.1 " + status)
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    text = out.decode("utf-8", "replace")
    assert "gunicorn" in text.lower() or "Booting worker" in text, text
    assert "Traceback" not in text, text
    assert "Debugger" not in text and "debug" not in text.lower().split("booting")[0], text


def test_debug_is_off_by_default():
    from ml_peg_like.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.debug is False and args.host == "127.0.0.1"


# ------------------------------------------------------------------------------------------------
# hostile clients
# ------------------------------------------------------------------------------------------------


def test_the_browsers_new_changes_get_what_needs_python(served, logs):
    """An edit is scored in the browser; its new changes reach the server through the changes
    store, which answers the parts only Python makes (here the robustness tau line of the new
    state) and never the grid's numbers, the changes or the URL (the browser's own)."""
    cfg, _raw, app = served
    client = app.server.test_client()
    changes = {"Classification": {"weight": 0.0}}
    r = post(client, edit_payload(client, cfg, changes=changes))
    assert r.status_code == 200, r.data[:300]
    resp = r.get_json()["response"]
    tau = rcb.tau_line_text(app.score_cache, changes)
    assert tau is not None and tau != rcb.tau_line_text(app.score_cache, {})
    assert resp[ids.ROB_TAU] == {"children": tau}
    assert "rowData" not in json.dumps(resp)
    assert "changes" not in resp and "url" not in resp
    assert not [x for x in logs if x.levelno >= logging.WARNING]


BIG = "x" * (10 * 1024 * 1024)


def _forgeries(client, cfg):
    """(name, payload or raw bytes) of forged requests."""
    base = lambda **kw: edit_payload(client, cfg, **kw)  # noqa: E731
    cases = [
        ("box text is a list", base(weights={"Regression": [1, 2, 3]})),
        ("box text is a dict", base(weights={"Regression": {"a": 1}})),
        ("box text is a boolean", base(weights={"Regression": True})),
        ("box text is 10 kB", base(weights={"Regression": "1" * 10_000})),
        ("changes store is a list", base(changes=[1, 2])),
        ("changes store is a string", base(changes="abc")),
        ("unknown key path", base(changes={"Nope/Nothing": {"weight": 1}})),
        ("unknown field", base(changes={"Regression": {"colour": 1}})),
        ("not a finite number", base(changes={"Regression": {"weight": 1e400}})),
        ("a negative weight in the store", base(changes={"Regression": {"weight": -1}})),
        ("every weight zero", base(changes={c.name: {"weight": 0} for c in cfg.categories})),
        ("nested junk", base(changes={"Regression": {"weight": {"model": ["x"] * 10}}})),
        ("huge changes", base(changes={f"p{i}": {"weight": 1} for i in range(100_000)})),
        ("unknown trigger path", base(trigger="Nope.value")),
    ]
    p = base()
    _set(p, "view.data", {"v": ["x"] * 1000, "m": 5}, "state")
    cases.append(("view store of wrong types", p))
    p = base()
    _set(p, "view.data", {"v": "Nope/None", "m": "A/B/C"}, "state")
    cases.append(("view store with unknown paths", p))
    p = base()
    _set(p, "model-filter.value", list(range(100_000)))
    cases.append(("huge model list", p))
    p = base()
    _set(p, "show.value", {"x": 1})
    cases.append(("toggle of a wrong type", p))
    p = base()
    _set(p, "colsig.data", ["a"] * 100, "state")
    cases.append(("column signature of a wrong type", p))
    p = base()
    _set(p, "url.search", "?s=" + "A" * 300_000)
    p["changedPropIds"] = ["url.search"]
    cases.append(("url of 300 kB", p))
    p = base()
    _set(p, "want.data", {"v": 1, "m": None, "t": 1})
    p["changedPropIds"] = ["want.data"]
    cases.append(("navigation request of wrong types", p))
    p = base()
    _set(p, "upload.contents", ["data:"])
    p["changedPropIds"] = ["upload.contents"]
    cases.append(("upload contents of a wrong type", p))
    p = base()
    _set(p, "preset.value", {"name": 1})
    p["changedPropIds"] = ["preset.value"]
    cases.append(("preset of a wrong type", p))
    boxes = next(i for i, e in enumerate(base()["state"]) if isinstance(e, list))
    p = base()
    p["state"][boxes] = [{"id": "not-a-dict", "property": "value", "value": "1"}]
    cases.append(("box id not a pattern id", p))
    p = base()
    p["state"][boxes] = p["state"][boxes][:1]
    cases.append(("fewer boxes than outputs", p))
    p = base()
    del p["state"]
    cases.append(("missing state", p))
    p = base()
    del p["inputs"]
    cases.append(("missing inputs", p))
    p = base()
    p["output"] = "nope.children"
    cases.append(("unknown callback", p))
    p = base()
    p["changedPropIds"] = ["nope.value"]
    cases.append(("unknown trigger", p))
    cases.append(("a 10 MB string box", base(weights={"Regression": BIG[: 4 * 1024 * 1024]})))
    cases.append(("a 10 MB body", b'{"output": "' + BIG.encode() + b'"}'))
    cases.append(("malformed JSON", b'{"output": [1, 2'))
    cases.append(("JSON of the wrong kind", b"[1, 2, 3]"))
    cases.append(("empty body", b""))
    return cases


def test_forged_callback_requests_are_refused_or_ignored(served, logs):
    cfg, raw, app = served
    client = app.server.test_client()
    before = post(client, edit_payload(client, cfg)).get_json()
    for name, payload in _forgeries(client, cfg):
        if isinstance(payload, bytes):
            r = client.post(URL, data=payload, content_type="application/json")
        else:
            r = post(client, payload)
        body = r.get_data(as_text=True)
        assert r.status_code < 500, (name, r.status_code, body[:300])
        assert "Traceback" not in body and 'File "' not in body, name
        assert len(r.data) < 200_000, (name, len(r.data))
        if r.status_code == 200:  # never the grid's numbers: the browser scores
            assert "rowData" not in body, name
    # nothing the server keeps changed: the same request gets the same answer
    after = post(client, edit_payload(client, cfg)).get_json()
    assert after == before
    for record in logs:
        assert record.exc_info is None, record.getMessage()
        assert "Traceback" not in record.getMessage()
        assert record.levelno < logging.ERROR, record.getMessage()
    assert MAX_REQUEST_BYTES <= 8 * 1024 * 1024


def test_downloads_ignore_a_forged_state(served):
    cfg, raw, app = served
    client = app.server.test_client()
    deps = client.get("/_dash-dependencies").get_json()
    dl = next(d for d in deps if d["output"] == "dl-yaml.data")
    for junk in ([1, 2], "abc", {"Nope": {"weight": 1}}, {"Regression": {"weight": "x" * 1000}}):
        payload = {
            "output": dl["output"],
            "outputs": {"id": "dl-yaml", "property": "data"},
            "inputs": [{"id": "dl-yaml-btn", "property": "n_clicks", "value": 1}],
            "state": [{"id": "changes", "property": "data", "value": junk}],
            "changedPropIds": ["dl-yaml-btn.n_clicks"],
        }
        r = post(client, payload)
        assert r.status_code in (204, 400), (junk, r.status_code)


@pytest.mark.parametrize(
    "state",
    [
        {"Regression": {"weight": [1, 2]}},
        {"Regression": {"weight": "x" * 5000}},
        {"Nope/Nothing": {"weight": 1}},
        {"Regression": {"weight": -1}},
    ],
)
def test_a_forged_link_is_ignored_with_a_message(served, logs, state):
    from ml_peg_like.dashboard.state import encode_changes

    cfg, raw, app = served
    client = app.server.test_client()
    p = edit_payload(client, cfg)
    _set(p, "url.search", "?s=" + encode_changes(state))
    p["changedPropIds"] = ["url.search"]
    r = post(client, p)
    assert r.status_code == 200
    resp = r.get_json()["response"]
    assert "were ignored" in json.dumps(resp["status"])
    assert "changes" not in resp  # the defaults stay: the store already holds them
    assert not [x for x in logs if x.levelno >= logging.WARNING]


def test_callback_answers_carry_their_server_time(tmp_path, monkeypatch):
    """``Server-Timing: app;dur=MS`` on the edit's answer (a benchmark splits server and
    browser time with it), within the time the request took; none on the page or assets."""
    import time

    from ml_peg_like.serving import servertiming
    from ml_peg_like.serving.servertiming import server_ms

    cfg, raw = small_dataset(tmp_path)
    plain = create_app(cfg, raw).server.test_client()  # the product: no timing in its answers
    answer = post(plain, edit_payload(plain, cfg, changes={"Regression": {"weight": 2.5}}))
    assert answer.status_code == 200 and server_ms(dict(answer.headers)) is None
    monkeypatch.setenv(servertiming.ENV, "1")  # the benchmark harness turns it on
    app = create_app(cfg, raw)
    client = app.server.test_client()
    payload = edit_payload(client, cfg, changes={"Regression": {"weight": 2.5}})
    t0 = time.perf_counter()
    r = post(client, payload)
    wall = (time.perf_counter() - t0) * 1000
    ms = server_ms(dict(r.headers))
    assert r.status_code == 200 and ms is not None and 0 < ms <= wall
    assert server_ms(dict(client.get("/").headers)) is None
    assert server_ms({"Server-Timing": "db;dur=3, app;dur=12.5"}) == 12.5
    assert server_ms({"Server-Timing": "app;dur=x"}) is None
