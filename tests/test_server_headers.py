"""The single-process server (werkzeug, behind ``earlypage.EarlyServer``) names no versions and
sends the security headers on every response, including the error pages the HTTP server writes
itself before any application runs (414 URI too long, 431 header line too long; a request line
it cannot read at all is answered the HTTP/0.9 way, a body without any header); the page no
longer carries the Python version in Dash's config."""

from __future__ import annotations

import socket
import sys

import pytest
from browser_utils import small_dataset

from ml_peg_like.dashboard import create_app
from ml_peg_like.serving.earlypage import SECURITY_HEADERS, SERVER_NAME, EarlyServer


def raw_request(port: int, data: bytes) -> tuple[str, list[tuple[str, str]]]:
    """The status line and the headers (in order, repeats kept) of the answer to ``data``."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    head = buf.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = [tuple(x.strip() for x in line.split(":", 1)) for line in head[1:]]
    return head[0], headers


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    app = create_app(cfg, raw, robustness=False)
    early = EarlyServer("127.0.0.1", 0).start()
    early.adopt(app.server)
    try:
        yield app, early.port
    finally:
        early.stop()


@pytest.mark.parametrize(
    "request_bytes, status",
    [
        (b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "200"),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", "414"),
        (b"GET / HTTP/1.1\r\nX-Long: " + b"b" * 70_000 + b"\r\n\r\n", "431"),
    ],
)
def test_every_answer_has_the_headers_and_no_versions(served, request_bytes, status):
    _app, port = served
    line, headers = raw_request(port, request_bytes)
    assert line.split(" ")[1] == status, line
    names = [k.lower() for k, _v in headers]
    for name, value in SECURITY_HEADERS.items():
        assert names.count(name.lower()) == 1, (name, headers)
        assert (name, value) in headers
    assert ("Server", SERVER_NAME) in headers
    text = "\n".join(f"{k}: {v}" for k, v in headers)
    assert "Werkzeug" not in text and "Python" not in text


def test_the_page_does_not_tell_the_python_version(served):
    app, _port = served
    page = app.server.test_client().get("/").get_data(as_text=True)
    assert '"python_version": ""' in page or '"python_version":""' in page
    assert sys.version.split()[0] not in page
