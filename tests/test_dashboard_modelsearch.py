"""A large board's model pickers search on the server: the page holds the first 50 models,
typing asks for the matches (key or display name), and a link's picked models stay offered."""

from __future__ import annotations

import pytest
from browser_utils import GRID_READY, chromium, live_server, require_browser, write_big_dataset

from ml_peg_like import load_dataset
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components.board import modelsearch
from ml_peg_like.dashboard.state import encode_filters


def test_model_options_keep_the_picked_then_the_matches():
    models = [f"m{i:03d}" for i in range(200)]
    names = {"m007": "Zeta seven", "m150": "zeta one-fifty"}
    got = modelsearch.model_options(models, names, "ZETA", ["m199"])
    assert [o["value"] for o in got] == ["m199", "m007", "m150"]
    assert got[1]["label"] == "Zeta seven"
    first = modelsearch.model_options(models, names, "", [])
    assert len(first) == modelsearch.SEARCH_LIMIT and first[0]["value"] == "m000"
    assert modelsearch.model_options(models, names, 5, ["nope"]) == first  # junk: no search


def _props_of(node, ident):
    """The props of the component ``ident`` in a layout's JSON (None: not there)."""
    if isinstance(node, dict):
        props = node.get("props") if "namespace" in node else None
        if props and props.get("id") == ident:
            return props
        for value in (props or node).values():
            found = _props_of(value, ident)
            if found is not None:
                return found
    elif isinstance(node, list):
        for value in node:
            found = _props_of(value, ident)
            if found is not None:
                return found
    return None


@pytest.mark.browser
def test_a_large_boards_model_filter_searches_on_the_server(tmp_path):
    require_browser()
    cfg, raw = load_dataset(write_big_dataset(tmp_path / "big", n=2500))
    app = create_app(cfg, raw, robustness=False)
    layout = app.server.test_client().get("/_dash-layout").get_json()
    options = _props_of(layout, ids.MODEL_FILTER)["options"]
    assert modelsearch.is_large(len(raw.models)) and len(options) == modelsearch.SEARCH_LIMIT
    picked = ["m2400", "m2499"]
    with live_server(app) as url, chromium() as browser:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.goto(f"{url}/?f={encode_filters({'p': picked})}")
        page.wait_for_selector(GRID_READY)
        page.wait_for_function(
            "() => document.querySelector('#model-filter').textContent.includes('2 selected')"
        )
        page.click("#model-filter")
        page.keyboard.type("m2450")
        page.wait_for_selector(".dash-dropdown-option:has-text('m2450')")
        shown = page.locator(".dash-dropdown-option").all_text_contents()
        assert any("m2450" in t for t in shown) and len(shown) <= modelsearch.SEARCH_LIMIT + 2
