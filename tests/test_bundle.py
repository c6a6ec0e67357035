"""The board bundle for the JavaScript engine: plain JSON, the raw matrix bit for bit, and what
the browser cannot score named."""

from __future__ import annotations

import base64
import json
import struct

import numpy as np
import orjson
import pytest

import ml_peg_like as mpl
from ml_peg_like import normalisers as nz
from ml_peg_like.bundle import decode_matrix, encode_matrix, make_bundle
from ml_peg_like.raw import InstanceBlock

CONFIG = """
missing: skip
categories:
  C:
    weight: 2
    missing: invalidate
    benchmarks:
      B:
        metrics:
          e: {good: 0, bad: {model: trivial}, weight: 3}
          f: {good: best, bad: worst, better: higher}
          s: {normaliser: weibull_speedup, reference: 2.5}
vetoes:
  - metric: B/e
    above: 10
"""


def test_bundle_is_plain_json_with_every_setting():
    cfg = mpl.loads_config(CONFIG)
    x = np.array([[1.0, np.nan, np.inf], [-np.inf, 2.0, 0.5]])
    b = make_bundle(cfg, x, models=["trivial", "m"])
    text = json.dumps(b, allow_nan=False)  # no NaN / Infinity literal anywhere
    assert json.loads(orjson.dumps(b)) == json.loads(text)
    b = json.loads(text)
    assert b["version"] == 1 and b["models"] == ["trivial", "m"]
    assert b["metric_columns"] == ["B/e", "B/f", "B/s"]
    assert b["missing"] == "skip"
    cat = b["categories"][0]
    assert (cat["path"], cat["weight"], cat["missing"]) == ("C", 2.0, "invalidate")
    e, f, s = cat["benchmarks"][0]["metrics"]
    assert e["path"] == "C/B/e"
    assert e["fields"] == {"good": 0.0, "bad": {"model": "trivial"}, "weight": 3.0}
    assert f["fields"]["good"] == "best" and f["fields"]["better"] == "higher"
    assert s["fields"] == {"weight": 1.0, "normaliser": "weibull_speedup", "reference": 2.5}
    assert b["vetoes"] == [{"metric": "C/B/e", "side": "above", "limit": 10.0}]
    weib = b["normalisers"]["weibull_speedup"]
    assert weib["uses_thresholds"] is False and weib["js"] is True and weib["log_x"] is True
    assert weib["thresholds"] == []
    lin = b["normalisers"]["linear"]
    assert [(t["name"], t["model_ref"]) for t in lin["thresholds"]] == [
        ("good", True),
        ("bad", True),
    ]
    assert lin["params"] == [] and lin["editable"] == ["good", "bad"]
    assert [(p["name"], p["default"]) for p in weib["params"]] == [
        ("b", 1.7),
        ("c", 5.0),
        ("reference", None),
    ]
    assert b["unsupported"] == []


def test_raw_matrix_is_little_endian_float64_column_major():
    x = np.array([[1.0, np.nan, np.inf], [-np.inf, 2.0, -0.0]])
    enc = encode_matrix(x)
    assert (enc["dtype"], enc["shape"], enc["order"]) == ("<f8", [2, 3], "F")
    raw = base64.b64decode(enc["b64"])
    # column-major: x[0,0], x[1,0], x[0,1], x[1,1], ...
    cells = struct.unpack("<6d", raw)
    assert cells[0] == 1.0 and cells[1] == -np.inf and np.isnan(cells[2]) and cells[3] == 2.0
    assert cells[4] == np.inf and str(cells[5]) == "-0.0"
    back = decode_matrix(enc)
    assert back.tobytes() == x.tobytes()


def test_a_matrix_that_does_not_fit_the_config_is_refused():
    cfg = mpl.loads_config(CONFIG)
    with pytest.raises(ValueError, match="shape"):
        make_bundle(cfg, np.zeros((2, 2)), models=["a", "b"])
    with pytest.raises(ValueError, match="model names"):
        make_bundle(cfg, np.zeros((2, 3)))


def test_per_instance_metrics_and_python_only_normalisers_are_named(monkeypatch):
    cube = nz.Normaliser("cube", lambda x, good, bad: x**3)
    monkeypatch.setitem(nz._REGISTRY, "cube", cube)
    cfg = mpl.loads_config(
        """
categories:
  C:
    benchmarks:
      B:
        metrics:
          e: {good: 0, bad: 1}
          k: {good: 1, bad: 0, normaliser: cube}
"""
    )
    raw = mpl.RawData(
        ("x",),
        (("B", "e"), ("B", "k")),
        np.array([[0.5, 0.5]]),
        instances={("B", "e"): InstanceBlock(("i1",), np.array([[0.5]]))},
    )
    b = make_bundle(cfg, raw)
    assert [u["path"] for u in b["unsupported"]] == ["C/B/e", "C/B/k"]
    assert "per-instance" in b["unsupported"][0]["why"]
    assert "'cube' is registered in Python only" in b["unsupported"][1]["why"]
    assert b["normalisers"]["cube"]["js"] is False


def test_a_builtin_name_registered_again_is_not_the_builtin(monkeypatch):
    other = nz.Normaliser("linear", lambda x, good, bad: x * 0)
    monkeypatch.setitem(nz._REGISTRY, "linear", other)
    cfg = mpl.loads_config("categories: {C: {benchmarks: {B: {metrics: {e: {good: 0, bad: 1}}}}}}")
    b = make_bundle(cfg, np.zeros((1, 1)), models=["x"])
    assert [u["path"] for u in b["unsupported"]] == ["C/B/e"]
