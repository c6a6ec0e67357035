"""The server that listens from the first moment of ``ml-peg-like serve`` (``earlypage.py``):
the kept page at once, every other request held until the app answers it, the kept pages
private, and a kept page that is out of date replaced by the app's own before anything runs."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from browser_utils import GRID_READY, VIEWPORT, chromium, require_browser, small_dataset

from ml_peg_like.dashboard import create_app, first_page, ids
from ml_peg_like.serving.earlypage import (
    BOOT_HEADER,
    EARLY_ATTR,
    MAX_PAGES,
    SCRIPTS_HOLDER,
    SECURITY_HEADERS,
    EarlyServer,
    keep_page,
    kept_page,
    page_key,
    pages_dir,
)
from ml_peg_like.support.resources import assets_dir

PAGE = (
    f'<html><body><p>kept</p><template id="{SCRIPTS_HOLDER}"><script>var a = 1;</script>'
    '<script type="application/json">{"b": 2}</script></template></body></html>'
)
#: the kept page's policy names its one inline script by hash (the JSON element is data)
PAGE_SCRIPT_HASH = "'sha256-" + base64.b64encode(hashlib.sha256(b"var a = 1;").digest()).decode()


def _app(environ, start_response):
    body = f"app {environ['PATH_INFO']}?{environ.get('QUERY_STRING', '')}".encode()
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [body]


def _get(url: str, headers: dict | None = None, out: list | None = None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=30) as r:
        answer = (r.status, dict(r.headers), r.read())
    if out is not None:
        out.append(answer)
    return answer


def _later(url: str, headers: dict | None = None) -> tuple[threading.Thread, list]:
    out: list = []
    t = threading.Thread(target=_get, args=(url, headers, out), daemon=True)
    t.start()
    return t, out


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ML_PEG_LIKE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_kept_page_at_once_the_rest_once_the_app_is_up():
    early = EarlyServer("127.0.0.1", 0, PAGE.encode()).start()
    try:
        url = f"http://127.0.0.1:{early.port}"
        status, headers, body = _get(url + "/")
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        # marked for the loader, with the app's security headers, never cached by the browser
        assert (
            body
            == PAGE.replace(
                f'id="{SCRIPTS_HOLDER}"', f'id="{SCRIPTS_HOLDER}" {EARLY_ATTR}'
            ).encode()
        )
        for name, value in SECURITY_HEADERS.items():
            if name != "Content-Security-Policy":
                assert headers[name] == value
        policy = headers["Content-Security-Policy"]
        assert policy.startswith(f"script-src 'self' {PAGE_SCRIPT_HASH}'; ")
        assert "frame-ancestors 'none'" in policy and "unsafe-inline'; img" in policy
        assert headers["Cache-Control"] == "no-store"
        # anything else waits for the app: a link, another path, the loader's own request
        held = [
            _later(url + "/?v=Classification"),
            _later(url + "/health"),
            _later(url + "/", {BOOT_HEADER: "1"}),
        ]
        time.sleep(0.4)
        assert all(t.is_alive() for t, _out in held)
        early.adopt(_app)
        for t, _out in held:
            t.join(10)
        answers = [out[0][2] for _t, out in held]
        assert answers == [b"app /?v=Classification", b"app /health?", b"app /?"]
        assert _get(url + "/")[2] == b"app /?"  # the app's own page from now on
    finally:
        early.server.shutdown()
        early.server.server_close()


def test_without_a_kept_page_the_first_page_waits_for_the_app():
    early = EarlyServer("127.0.0.1", 0, None).start()
    try:
        t, out = _later(f"http://127.0.0.1:{early.port}/")
        time.sleep(0.3)
        assert t.is_alive()
        early.adopt(_app)
        t.join(10)
        assert out[0][2] == b"app /?"
    finally:
        early.server.shutdown()
        early.server.server_close()


def test_kept_pages_are_private_and_bounded(cache):
    assert kept_page("k0") is None  # nothing kept yet
    path = keep_page("k0", b"<p>0</p>")
    assert path is not None and kept_page("k0") == b"<p>0</p>"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(pages_dir().stat().st_mode) == 0o700
    for i in range(1, MAX_PAGES + 3):
        keep_page(f"k{i}", f"<p>{i}</p>".encode())
        time.sleep(0.01)  # distinct modification times
    kept = sorted(p.name for p in pages_dir().glob("page-*.html"))
    assert len(kept) == MAX_PAGES and "page-k0.html" not in kept
    # a directory others can write to: nothing read from it, nothing written to it
    os.chmod(pages_dir(), 0o755)
    assert kept_page(f"k{MAX_PAGES + 2}") is None
    assert keep_page("k99", b"x") is None


def test_a_kept_page_is_read_only_through_checked_handles(cache, tmp_path):
    """The cache directory itself (the parent of ``pages/``) is checked, and the page is opened
    relative to the checked ``pages/`` (no symlink, this user's, 0600)."""
    keep_page("k1", b"<p>mine</p>")
    page = pages_dir() / "page-k1.html"
    os.chmod(cache, 0o757)  # the parent open to others: someone could swap pages/ inside it
    assert kept_page("k1") is None
    os.chmod(cache, 0o700)
    assert kept_page("k1") == b"<p>mine</p>"
    os.chmod(page, 0o644)  # a page someone else could have read (or made)
    assert kept_page("k1") is None
    os.chmod(page, 0o600)
    planted = tmp_path / "planted.html"
    planted.write_bytes(b"<p>planted</p>")
    os.chmod(planted, 0o600)
    page.unlink()
    page.symlink_to(planted)  # the page a symlink to a file elsewhere
    assert kept_page("k1") is None
    page.unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (elsewhere / "page-k1.html").write_bytes(b"<p>planted</p>")
    os.chmod(elsewhere / "page-k1.html", 0o600)
    os.rmdir(pages_dir())
    pages_dir().symlink_to(elsewhere)  # pages/ a symlink to a directory elsewhere
    assert kept_page("k1") is None
    assert keep_page("k1", b"x") is None


def test_the_page_key_follows_the_data_and_the_options(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.yml").write_text("title: t\n", encoding="utf-8")
    key = page_key([data, None], {"full_table": False})
    assert page_key([data, None], {"full_table": False}) == key
    assert page_key([data, None], {"full_table": True}) != key
    (data / "raw_metrics.csv").write_text("model\n", encoding="utf-8")  # a file more
    key2 = page_key([data, None], {"full_table": False})
    assert key2 != key
    st = (data / "config.yml").stat()
    os.utime(data / "config.yml", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # changed
    key3 = page_key([data, None], {"full_table": False})
    assert key3 != key2
    # an asset the page inlines (the loader), changed: another key (a checkout keeps the
    # assets outside the package)
    loader = assets_dir() / "loader.js"
    st = loader.stat()
    try:
        os.utime(loader, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        assert page_key([data, None], {"full_table": False}) != key3
    finally:
        os.utime(loader, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_the_page_key_covers_every_file_the_loader_reads(tmp_path):
    """``serve CONFIG RAW``: the models.csv beside RAW is read too (its columns are the models'
    attributes), so adding or changing it gives another key (the kept page is not tried)."""
    from ml_peg_like.raw import dataset_files, load_dataset

    cfg, raw = tmp_path / "c.yml", tmp_path / "data" / "raw.csv"
    raw.parent.mkdir()
    cfg.write_text(
        "title: t\ncategories:\n  C:\n    benchmarks:\n      B:\n        metrics:\n"
        "          m: {good: 1, bad: 0}\n",
        encoding="utf-8",
    )
    raw.write_text("model,B/m\nA,0.5\nZ,0.25\n", encoding="utf-8")
    models = raw.parent / "models.csv"
    assert dataset_files(cfg, raw) == [cfg, raw, models]
    assert dataset_files(tmp_path / "data", None) == [
        tmp_path / "data" / "config.yml",
        tmp_path / "data" / "raw_metrics.csv",
        tmp_path / "data" / "models.csv",
    ]
    key = page_key(dataset_files(cfg, raw), {})
    models.write_text("model,display_name\nA,Alpha\n", encoding="utf-8")
    assert load_dataset(cfg, raw)[1].attributes.at["A", "display_name"] == "Alpha"  # read
    key2 = page_key(dataset_files(cfg, raw), {})
    assert key2 != key
    st = models.stat()
    models.write_text("model,display_name\nA,Beta!\n", encoding="utf-8")
    os.utime(models, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert page_key(dataset_files(cfg, raw), {}) not in (key, key2)


@pytest.mark.browser
def test_a_kept_page_out_of_date_is_shown_then_the_app_takes_over(tmp_path):
    """The kept page names a model that is not in the data any more and carries an old Dash
    config (another start's signed end id): it is painted at once; once the app is up, the
    app's page takes its place before the scripts run, and the app starts without an error."""
    require_browser()
    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    page = first_page(app).decode("utf-8")
    model = raw.models[0]
    stale = page.replace(f">{model}<", ">Old model<")
    stale, n = re.subn(r'"end_id":"[^"]*"', '"end_id":"another start"', stale)
    assert n == 1 and "Old model" in stale
    early = EarlyServer("127.0.0.1", 0, stale.encode()).start()
    try:
        url = f"http://127.0.0.1:{early.port}/"
        with chromium() as browser:
            ctx = browser.new_context(viewport=VIEWPORT)
            page_ = ctx.new_page()
            problems: list[str] = []
            page_.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page_.on("pageerror", lambda e: problems.append(str(e)))
            page_.goto(url, wait_until="commit")
            first = page_.locator(f"#{ids.FIRST_VIEW}")
            first.get_by_text("Old model").wait_for()
            assert first.is_visible()
            page_.wait_for_timeout(500)  # the scripts wait for the app meanwhile
            assert page_.evaluate("typeof window.DashRenderer") == "undefined"
            early.adopt(app.server)
            page_.wait_for_selector(f"#{ids.GRID} {GRID_READY}")
            page_.wait_for_function(f"() => !document.getElementById('{ids.FIRST_VIEW}')")
            config = page_.evaluate("document.getElementById('_dash-config').textContent")
            assert "another start" not in config and '"end_id"' in config
            shown = page_.evaluate(
                f"""() => [...document.querySelectorAll('#{ids.GRID} .ag-cell[col-id="{ids.COL_MODEL}"]')]
                       .map(c => c.textContent.trim())"""
            )
            assert model in shown and "Old model" not in shown
            assert not problems, problems
            ctx.close()
    finally:
        early.server.shutdown()
        early.server.server_close()


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_keeps_its_page_and_answers_it_at_the_next_start(tmp_path):
    """``ml-peg-like serve`` twice on the demo data: the first start keeps the app's page
    (0600, private); the second answers ``/`` with it before the app is up, marked early."""
    env = {**os.environ, "ML_PEG_LIKE_CACHE_DIR": str(tmp_path / "cache")}
    pages = Path(tmp_path / "cache" / "pages")
    seen = []
    for _start in range(2):
        port = _port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "ml_peg_like", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert proc.stdout.readline().strip() == (
                f"ml-peg-like: listening on http://127.0.0.1:{port}/"
            )
            status, _h, body = _get(f"http://127.0.0.1:{port}/")
            seen.append((status, f'{SCRIPTS_HOLDER}" {EARLY_ATTR}'.encode() in body))
            _get(f"http://127.0.0.1:{port}/health")
            deadline = time.time() + 30
            while not list(pages.glob("page-*.html")) and time.time() < deadline:
                time.sleep(0.05)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    kept = list(pages.glob("page-*.html"))
    assert len(kept) == 1 and stat.S_IMODE(kept[0].stat().st_mode) == 0o600
    assert f'<template id="{SCRIPTS_HOLDER}">'.encode() in kept[0].read_bytes()
    # the first start had nothing kept (its page is the app's); the second answered at once
    assert seen == [(200, False), (200, True)]


def test_run_app_sets_dash_up_before_the_held_requests_go_in(tmp_path, cache):
    """Dash registers its assets' scripts on its first request; the held requests go in at
    once on ``adopt``: ``run_app`` renders the app's page first (seen without it: a page
    rendered by one held request while another set Dash up had no asset scripts)."""
    import gc

    from ml_peg_like.dashboard import run_app

    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    seen = {}

    class Early:
        def adopt(self, server):
            seen["set_up"] = app._got_first_request["setup_server"]
            seen["server"] = server

        def serve(self):
            seen["served"] = True

    try:
        assert run_app(app, early=Early(), page_key="k1") == 0
    finally:
        gc.unfreeze()
    assert seen == {"set_up": True, "server": app.server, "served": True}
    page = kept_page("k1")
    assert page is not None and b"/assets/firstview.js" in page


def test_the_page_is_the_same_from_one_start_to_the_next(tmp_path):
    """Two starts (other hash seeds) serve the same page but for Dash's per-load end id, so a
    kept page is the app's own (the loader replaces nothing)."""
    code = (
        "import sys; from ml_peg_like import load_dataset; from ml_peg_like.support.resources import "
        "demo_dir; from ml_peg_like.dashboard import create_app, first_page; "
        "sys.stdout.buffer.write(first_page(create_app(*load_dataset(demo_dir()))))"
    )
    pages = []
    for seed in ("1", "5"):  # two seeds that order a set of aria-* props differently
        env = {**os.environ, "PYTHONHASHSEED": seed, "ML_PEG_LIKE_CACHE_DIR": str(tmp_path)}
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, timeout=120, env=env, check=True
        ).stdout
        pages.append(re.sub(rb'"end_id":"[^"]*"', b"", out))
    assert pages[0] == pages[1] and b'id="mpl-first"' in pages[0]
