"""A hostile link: a ~1 KB ``?s=`` or ``?f=`` that deflates to JSON nested 100,000 levels deep.
Decoding it never raises anything but the ValueError the callers handle (no RecursionError,
no silent reset): the settings are refused with a message naming the nesting, and the filter is
dropped with a message too."""

from __future__ import annotations

import base64
import zlib

import pytest
from browser_utils import small_dataset
from test_dashboard_server import _set, edit_payload, post

from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.state import (
    MAX_DEPTH,
    decode_changes,
    decode_filters,
    encode_changes,
    filter_problem,
)


def deflated(text: str) -> str:
    return "z" + base64.urlsafe_b64encode(zlib.compress(text.encode(), 9)).decode().rstrip("=")


DEEP = deflated("[" * 100_000 + "]" * 100_000)
#: just past the bound: {"a": {"a": ... 1}} with MAX_DEPTH + 1 mappings
OVER = deflated('{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1))
AT = deflated('{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH)


def test_the_hostile_links_are_small():
    assert len(DEEP) < 1_500


@pytest.mark.parametrize("text", [DEEP, OVER])
def test_deep_settings_are_refused_with_a_message(text):
    with pytest.raises(ValueError, match=f"nested deeper than {MAX_DEPTH} levels"):
        decode_changes(text)
    assert decode_filters(text, ("A",), {}) == {}
    assert f"nested deeper than {MAX_DEPTH} levels" in filter_problem(text)


def test_nesting_up_to_the_bound_still_decodes():
    d = decode_changes(AT)  # MAX_DEPTH mappings, each {"a": ...}, the last {"a": 1}
    for _ in range(MAX_DEPTH - 1):
        d = d["a"]
    assert d == {"a": 1}
    assert filter_problem(AT) == ""
    ok = {"C/B/m": {"bad": {"model": "A"}, "good": 1}}
    assert decode_changes(encode_changes(ok)) == ok


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    return cfg, create_app(cfg, raw, robustness=False)


@pytest.mark.parametrize(
    "param, message",
    [
        ("s", "The settings in the link were ignored: the settings in the link are not readable"),
        ("f", "The model filter in the link was ignored: the filters in the link are not readable"),
    ],
)
def test_a_deep_link_gets_a_message_not_a_crash(served, param, message):
    cfg, app = served
    client = app.server.test_client()
    payload = edit_payload(client, cfg)
    _set(payload, "url.search", f"?{param}={DEEP}")
    payload["changedPropIds"] = ["url.search"]
    r = post(client, payload)
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    body = r.get_data(as_text=True)
    assert message in body and f"nested deeper than {MAX_DEPTH} levels" in body
