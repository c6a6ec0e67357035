"""The board's raw matrix leaves the page for a route of its own (``liveedit.add_route``): the
page names where it is and preloads it, the route answers its bytes (little-endian float64,
column-major) with an ETag, a 304 to a browser that has them, and the security headers."""

from __future__ import annotations

import json
import re
import struct

import pytest

from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app
from ml_peg_like.dashboard.components.editing.liveedit import RAW_ROUTE
from ml_peg_like.serving.csp import BASE_POLICY
from ml_peg_like.serving.earlypage import SECURITY_HEADERS

CONFIG = """\
title: Two by two
categories:
  C:
    benchmarks:
      B:
        metrics:
          e: {good: 0, bad: 1}
          f: {good: 10, bad: 0}
"""
# model, benchmark, metric, value: e = (0.25, 0.5), f = (2, missing)
CSV = """model,benchmark,metric,value
m1,B,e,0.25
m1,B,f,2
m2,B,e,0.5
m2,B,f,
"""


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    d = tmp_path_factory.mktemp("two")
    (d / "config.yml").write_text(CONFIG, encoding="utf-8")
    (d / "raw_metrics.csv").write_text(CSV, encoding="utf-8")
    cfg, raw = load_dataset(d)
    app = create_app(cfg, raw, robustness=False, sensitivity=False)
    return app.server.test_client()


def bundle_of(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="mpl-bundle">(.*?)</script>', html, re.S)
    assert m, "the page holds no board"
    return json.loads(m.group(1))


def test_the_page_names_the_matrix_and_preloads_it(client):
    html = client.get("/").get_data(as_text=True)
    raw = bundle_of(html)["raw"]
    assert raw == {"dtype": "<f8", "shape": [2, 2], "order": "F", "href": "/" + RAW_ROUTE}
    assert f'<link rel="preload" href="/{RAW_ROUTE}" as="fetch" crossorigin="anonymous">' in html


def test_the_route_answers_the_matrix_column_by_column(client):
    answer = client.get("/" + RAW_ROUTE)
    assert answer.status_code == 200
    assert answer.mimetype == "application/octet-stream"
    # column e (m1, m2), then column f (m1, m2); the missing value is NaN
    want = struct.pack("<4d", 0.25, 0.5, 2.0, float("nan"))
    got = answer.get_data()
    assert got[:24] == want[:24]
    (last,) = struct.unpack("<d", got[24:])
    assert last != last  # NaN
    assert len(got) == 32
    for name, value in SECURITY_HEADERS.items():
        want_value = BASE_POLICY if name == "Content-Security-Policy" else value
        assert answer.headers[name] == want_value, name
    assert answer.headers["Cache-Control"] == "no-cache"


def test_a_browser_that_has_it_gets_a_304(client):
    tag = client.get("/" + RAW_ROUTE).headers["ETag"]
    again = client.get("/" + RAW_ROUTE, headers={"If-None-Match": tag})
    assert again.status_code == 304
    assert again.get_data() == b""
    other = client.get("/" + RAW_ROUTE, headers={"If-None-Match": '"not-it"'})
    assert other.status_code == 200 and len(other.get_data()) == 32


def test_the_pieces_are_whole_columns_in_order(monkeypatch):
    """Served a few columns at a time (no column-major copy held): the pieces join into the
    matrix column by column, whatever their size."""
    import numpy as np

    from ml_peg_like.dashboard.components.editing import liveedit

    values = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # 2 models x 3 metrics
    monkeypatch.setattr(liveedit, "PIECE_BYTES", 32)  # two columns of two models a piece
    pieces = list(liveedit.column_pieces(values))
    assert pieces == [struct.pack("<4d", 1, 4, 2, 5), struct.pack("<2d", 3, 6)]
    monkeypatch.setattr(liveedit, "PIECE_BYTES", 1)  # never less than one column
    assert list(liveedit.column_pieces(values)) == [
        struct.pack("<2d", 1, 4),
        struct.pack("<2d", 2, 5),
        struct.pack("<2d", 3, 6),
    ]
