"""The single-process server bounds its connections: one that sends nothing is closed after the
read timeout, and beyond ``MAX_CONNECTIONS`` a connection waits ``BUSY_WAIT_S`` for a slot and
then gets a short 503 (no thread is started for it); a freed slot serves again."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from ml_peg_like.serving import earlypage
from ml_peg_like.serving.earlypage import SECURITY_HEADERS, EarlyServer


def _app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(earlypage, "MAX_CONNECTIONS", 3)
    monkeypatch.setattr(earlypage, "BUSY_WAIT_S", 0.3)
    monkeypatch.setattr(earlypage, "READ_TIMEOUT_S", 1.0)
    early = EarlyServer("127.0.0.1", 0).start()
    early.adopt(_app)
    try:
        yield early
    finally:
        early.stop()


def get(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def silent(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /x HTTP/1.1\r\n")  # and nothing more
    return s


def test_a_silent_connection_is_closed_after_the_read_timeout(server):
    s = silent(server.port)
    t = time.perf_counter()
    assert s.recv(100) == b""  # closed by the server, unanswered
    took = time.perf_counter() - t
    s.close()
    assert 0.8 < took < 5.0, took


def test_connections_beyond_the_bound_get_a_503_and_no_thread(server):
    before = threading.active_count()
    held = [silent(server.port) for _ in range(3)]
    time.sleep(0.3)
    assert threading.active_count() == before + 3
    answer = get(server.port)
    head = answer.split(b"\r\n\r\n")[0].decode()
    assert head.startswith("HTTP/1.1 503 ") and "Retry-After: 5" in head
    for name, value in SECURITY_HEADERS.items():
        assert f"{name}: {value}" in head
    assert threading.active_count() == before + 3
    for s in held:
        s.close()
    time.sleep(0.3)
    assert get(server.port).endswith(b"ok")
