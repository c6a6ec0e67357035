"""The dashboard's names, edit flow and hardening: the JS reads only names Python defines, one
edit builds its config once, the client changes only fields with a box, security headers, and
``{model: NAME}`` thresholds whose model has no value."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser_utils import small_dataset
from test_dashboard_server import _set, edit_payload, post

from ml_peg_like import dump_config, loads_config, score
from ml_peg_like.config import Config
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components.controls import settings
from ml_peg_like.dashboard.figures import curve_figure
from ml_peg_like.dashboard.state import (
    changes_from_upload,
    clean_changes,
    encode_changes,
    make_query,
)
from ml_peg_like.dashboard.tables import REASON_BY_CODE, threshold_problems
from ml_peg_like.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
IRIS_ACC = "Classification/Iris/Accuracy"
JS = [
    ROOT / "assets" / name
    for name in (
        "navigation.js",
        "dashAgGridFunctions.js",
        "upload.js",
        "plots.js",
        "sensitivity.js",
        "restore.js",
    )
]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    return cfg, raw, create_app(cfg, raw, robustness=False)


def _id_values() -> set[str]:
    return {v for k, v in vars(ids).items() if k.isupper() and isinstance(v, str) and len(v) > 1}


@pytest.mark.parametrize("path", JS, ids=lambda p: p.name)
def test_the_js_reads_only_names_python_defines_and_spells_none_itself(path):
    source = path.read_text(encoding="utf-8")
    used = set(re.findall(r"\bN\(\)\.(\w+)", source))
    assert used, "the asset reads no names"
    assert used <= set(ids.js_names(REASON_BY_CODE)), used - set(ids.js_names(REASON_BY_CODE))
    literals = set(re.findall(r'"([^"\\]*)"', source)) | set(re.findall(r"'([^'\\]*)'", source))
    assert not (literals & _id_values()), literals & _id_values()
    assert not re.search(r"\._w\b|\bhdr\.colId\b|\btree\.(col|cat|metrics)\b", source)


def test_the_page_carries_the_names_before_the_assets(served):
    _cfg, _raw, app = served
    page = app.server.test_client().get("/").get_data(as_text=True)
    i = page.index("window.mplNames = ")
    names = json.loads(page[i + len("window.mplNames = ") :].split(";</script>")[0])
    assert names["grid"] == "grid" and names["rowReasons"] == "_w"
    assert names["reasons"]["4"].startswith("Invalidated")
    assert i < page.index("navigation.js")


def test_security_headers_on_every_response(served):
    _cfg, _raw, app = served
    client = app.server.test_client()
    for r in (client.get("/"), client.get("/health"), client.get("/nope"), client.post("/x")):
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        assert r.headers["Referrer-Policy"] == "same-origin"


def test_the_icon_is_cached_so_an_edit_does_not_fetch_it_again(served):
    # Chromium asks for the icon at every history entry, and every edit rewrites the URL
    _cfg, _raw, app = served
    client = app.server.test_client()
    r = client.get("/_favicon.ico?v=1")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "public, max-age=86400"
    assert "Cache-Control" not in client.get("/health").headers


def test_one_edit_builds_the_edited_config_once(served, monkeypatch):
    cfg, raw, app = served
    client = app.server.test_client()
    payload = edit_payload(client, cfg, changes={"Regression": {"weight": 7.0}})
    calls = []
    real = Config.apply_changes

    def counting(self, changes):
        calls.append(changes)
        return real(self, changes)

    monkeypatch.setattr(Config, "apply_changes", counting)
    r = post(client, payload)
    assert r.status_code == 200
    assert calls == [{"Regression": {"weight": 7.0}}]
    assert "url" not in r.get_json()["response"]  # the browser wrote its own URL


@pytest.mark.parametrize(
    "field, value",
    [("better", "lower"), ("unit", "spoofed"), ("description", "x"), ("normaliser", "linear")],
)
def test_a_link_cannot_change_a_field_without_a_box(served, field, value):
    cfg, raw, app = served
    with pytest.raises(ValueError, match=rf"{IRIS_ACC}\.{field}: this field has no box"):
        clean_changes(cfg, {IRIS_ACC: {field: value}})
    with pytest.raises(ValueError, match=r"Classification\.description: this field has no box"):
        clean_changes(cfg, {"Classification": {"description": "x"}})
    client = app.server.test_client()
    p = edit_payload(client, cfg)
    _set(p, "url.search", "?s=" + encode_changes({IRIS_ACC: {field: value}}))
    p["changedPropIds"] = ["url.search"]
    resp = post(client, p).get_json()["response"]
    text = json.dumps(resp["status"])
    assert "were ignored" in text and f"{IRIS_ACC}.{field}" in text


def test_an_upload_cannot_change_a_field_without_a_box(served):
    cfg, _raw, _app = served
    text = dump_config(cfg)
    assert changes_from_upload(cfg, loads_config(text)) == {}
    spoofed = text.replace("unit: fraction", "unit: spoofed", 1)
    with pytest.raises(ConfigError, match=rf"{IRIS_ACC}\.unit: this field has no box"):
        changes_from_upload(cfg, loads_config(spoofed))
    inverted = text.replace("description: Share of correct labels", "better: lower", 1)
    with pytest.raises(ConfigError, match=rf"{IRIS_ACC}\.better"):
        changes_from_upload(cfg, loads_config(inverted))


def test_a_threshold_from_a_model_without_a_value(served):
    cfg, raw, app = served
    # Model/β has no Iris/F1 value; Nope is no model at all
    for model, why in (("Model/β", "has none for this metric"), ("Nope", "not on this board")):
        path = "Classification/Iris/F1"
        s = score(raw, cfg.apply_changes({path: {"good": {"model": model}}}))
        problems = threshold_problems(s)
        assert list(problems) == [(path, "good")] and why in problems[(path, "good")]
        fig = curve_figure(s, path)  # no TypeError
        assert [sh["x0"] for sh in fig["layout"]["shapes"]] == [0.5]  # bad only
        assert "not scored: good is the value of model" in fig["layout"]["title"]["text"]
        boxes = settings.panel(
            cfg, s.config, {path: {"good": {"model": model}}}, "Classification/Iris", problems
        )
        found = json.dumps(boxes[1].to_plotly_json(), default=lambda o: o.to_plotly_json())
        assert settings.BOX_INVALID in found and why in found
    # a shared link with such a state opens its view with a message
    client = app.server.test_client()
    p = edit_payload(client, cfg)
    state = {"Classification/Iris/F1": {"good": {"model": "Nope"}}}
    _set(p, "url.search", make_query(state, "Classification/Iris"))
    p["changedPropIds"] = ["url.search"]
    r = post(client, p)
    assert r.status_code == 200
    resp = r.get_json()["response"]
    assert resp["view"]["data"] == {"v": "Classification/Iris", "m": IRIS_ACC}
    status = json.dumps(resp["status"])
    assert "Classification/Iris/F1.good" in status and "not on this board" in status
    assert settings.BOX_INVALID in json.dumps(resp["settings"])
