"""The per-client job limit behind a reverse proxy: with ``ML_PEG_LIKE_TRUSTED_PROXIES`` set to
the number of proxies in front, the client's address is the one they forward; without it a
forwarded header is ignored (a client could otherwise pick any address to escape its limit)."""

from __future__ import annotations

import flask
from browser_utils import small_dataset

from ml_peg_like.dashboard import create_app
from ml_peg_like.serving.server import TRUSTED_PROXIES_ENV, trusted_proxies


def _seen_address(app, headers) -> str:
    @app.server.route("/_test/remote")
    def remote():
        return flask.request.remote_addr or ""

    return app.server.test_client().get("/_test/remote", headers=headers).get_data(as_text=True)


def test_a_forwarded_address_counts_only_behind_trusted_proxies(tmp_path, monkeypatch):
    cfg, raw = small_dataset(tmp_path)
    forwarded = {"X-Forwarded-For": "203.0.113.7"}
    monkeypatch.delenv(TRUSTED_PROXIES_ENV, raising=False)
    assert _seen_address(create_app(cfg, raw, robustness=False), forwarded) == "127.0.0.1"
    monkeypatch.setenv(TRUSTED_PROXIES_ENV, "1")
    assert _seen_address(create_app(cfg, raw, robustness=False), forwarded) == "203.0.113.7"
    for junk in ("", "x", "-1", "99"):
        monkeypatch.setenv(TRUSTED_PROXIES_ENV, junk)
        assert trusted_proxies() == 0
