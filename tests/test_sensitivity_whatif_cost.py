"""The "what would put this model first?" analysis on large boards: its work grows linearly with
the number of models (each pair of models is evaluated on its own pieces, not on the union of
every pair's), it stops at a stated time budget with a message saying what it left out, and a
forged request for it on 2,000 models answers within a few seconds while ``/health`` keeps
answering in under a second."""

from __future__ import annotations

import json
import math
import threading
import time
import urllib.request

import numpy as np
import pytest
from browser_utils import live_server
from test_sensitivity import MODELS, VALUES, _row, example_cfg

import ml_peg_like as mpl
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components.board import sensitivity as sens
from ml_peg_like.scoring import score_values
from ml_peg_like.sensitivity import families, walk, what_if, what_if_of

# the worked example (docs/SENSITIVITY.md): what puts A first, by hand
A_FIRST = {
    ("C/B1", "weight"): 4 / 3,
    ("C/B2", "weight"): 3 / 4,
    ("C/B1/m", "bad"): 1 / 4,
    ("C/B2/m", "bad"): -1 / 3,
    ("C/B2/m", "good"): 4 / 3,
}


def board(n_models: int, seed: int = 0, n_cat: int = 4, n_bench: int = 5, n_metric: int = 3):
    """``n_cat`` categories x ``n_bench`` benchmarks x ``n_metric`` linear metrics (good 1,
    bad 0) with seeded uniform raw values in [-0.2, 1.2]."""
    one = {"metrics": {f"m{k}": {"good": 1, "bad": 0} for k in range(n_metric)}}
    cats = {
        f"C{c}": {"benchmarks": {f"B{c}.{b}": one for b in range(n_bench)}} for c in range(n_cat)
    }
    cfg = mpl.config_from_dict({"title": "big", "categories": cats})
    rng = np.random.default_rng(seed)
    values = rng.uniform(-0.2, 1.2, (n_models, len(cfg.metric_ids())))
    return cfg, tuple(f"model-{i:04d}" for i in range(n_models)), values


def test_the_worked_example_without_and_with_a_spent_budget():
    full = what_if(VALUES, MODELS, example_cfg(), "A")
    for (path, field), v in A_FIRST.items():
        assert _row(full, path, field)["value"] == pytest.approx(v, abs=1e-9)
    assert math.isnan(_row(full, "C/B1/m", "good")["value"])
    assert "stopped" not in full.attrs
    sc = score_values(VALUES, MODELS, example_cfg())
    spent = what_if_of(sc, 0, budget=0.0)
    # 5 weights (C, C/B1, C/B2, C/B1/m, C/B2/m) + good and bad of 2 metrics = 9 values
    assert spent.attrs["stopped"]["examined"] == 0 and spent.attrs["stopped"]["total"] == 9
    assert spent["value"].isna().all()


def test_the_picker_says_what_a_stopped_analysis_left_out():
    sc = score_values(VALUES, MODELS, example_cfg())
    text = json.dumps(sens.whatif_rows(sc, "A", budget=0.0).to_plotly_json(), default=str)
    assert "Stopped after 0.0 s: 0 of 9 values examined; the other 9 are not listed" in text
    assert "No single change puts A first among those." in text
    full = json.dumps(sens.whatif_rows(sc, "A", budget=60.0).to_plotly_json(), default=str)
    assert "Stopped" not in full and "5 single changes put A first" in full


def test_beyond_the_analyses_at_once_a_client_is_told_the_server_is_busy():
    sc = score_values(VALUES, MODELS, example_cfg())
    held = [sens._WHATIF_SLOTS.acquire(timeout=5) for _ in range(sens.WHATIF_AT_ONCE)]
    try:
        assert all(held)
        t = time.perf_counter()
        busy = json.dumps(sens.whatif_rows(sc, "A", budget=0.2).to_plotly_json(), default=str)
        assert sens.WHATIF_BUSY in busy and 0.15 < time.perf_counter() - t < 10.0  # waited, not hung
    finally:
        for _ in held:
            sens._WHATIF_SLOTS.release()
    free = json.dumps(sens.whatif_rows(sc, "A", budget=60.0).to_plotly_json(), default=str)
    assert "5 single changes put A first" in free


def evaluations(n_models: int, model_rank: int = 3) -> int:
    """Model scores evaluated by the what-if of the model ranked ``model_rank`` (all values)."""
    cfg, models, values = board(n_models)
    sc = score_values(values, models, cfg)
    m = int(np.argsort(sc.ranks)[model_rank - 1])
    count = 0
    for fam in families(sc):
        real = fam.ev

        def counted(rows, cols, t, real=real):
            nonlocal count
            out = real(rows, cols, t)
            count += np.size(out)
            return out

        fam.ev = counted
        for col in range(len(fam.t0)):
            walk.nearest_first(fam, col, m)
    return count


def test_the_work_grows_linearly_with_the_models():
    """Four times the models: about four times the evaluations (the union walk this replaced
    evaluated every model at every piece of every pair: sixteen times)."""
    small, large = evaluations(150), evaluations(600)
    assert large / small < 6, (small, large)


@pytest.mark.parametrize("rank", [2, 7])
def test_the_sweep_agrees_with_evaluating_every_model_at_every_piece(rank):
    """The value found equals the first piece (walking out from the current value) at which
    no model is above, found by evaluating every model at a point inside every piece."""
    cfg, models, values = board(60, seed=rank, n_cat=2, n_bench=2, n_metric=2)
    sc = score_values(values, models, cfg)
    m = int(np.argsort(sc.ranks)[rank - 1])
    for fam in families(sc):
        for col in range(len(fam.t0)):
            assert _nearest_by_union(fam, col, m) == pytest.approx(
                walk.nearest_first(fam, col, m), abs=0, nan_ok=True
            ), (fam.paths[col], fam.fields[col])


def _nearest_by_union(fam, col, m):
    t0 = fam.t0[col]
    if walk._first_at(fam, col, m, t0):
        return t0
    cand = fam.candidates(m, np.array([col]))[:, 0, :].ravel()
    cand = np.unique(cand[~np.isnan(cand)])
    best = math.nan
    for sign, bound in ((-1, fam.lo[col]), (1, fam.hi[col])):
        rep, near, valid = walk.side_pieces(t0, cand, bound, sign)
        scores = fam.ev(np.arange(fam.n_models)[:, None], col, rep[None, :])
        hit = walk.topk_ok(np.round(scores, 12), [m], 1) & valid
        if hit.any():
            h = int(np.argmax(hit))
            v = walk._attained(fam, col, m, near[h], rep[h])
            if math.isnan(best) or abs(v - t0) < abs(best - t0):
                best = v
    return best


def _whatif_request(url: str, model: str) -> dict:
    deps = json.loads(urllib.request.urlopen(f"{url}/_dash-dependencies", timeout=30).read())
    cb = next(d for d in deps if d["output"] == f"{ids.WHATIF_LIST}.children")
    assert [i["id"] for i in cb["inputs"]] == [ids.WHATIF_MODEL, ids.WHATIF_ASK]
    return {
        "output": cb["output"],
        "outputs": {"id": ids.WHATIF_LIST, "property": "children"},
        "inputs": [
            {"id": ids.WHATIF_MODEL, "property": "value", "value": model},
            {"id": ids.WHATIF_ASK, "property": "n_clicks", "value": 1},
        ],
        "changedPropIds": [f"{ids.WHATIF_ASK}.n_clicks"],
        "state": [{"id": ids.CHANGES, "property": "data", "value": {}}],
    }


def test_a_forged_whatif_on_2000_models_answers_while_health_stays_fast():
    cfg, models, values = board(2000, n_cat=10, n_bench=10, n_metric=3)
    raw = mpl.RawData(models, tuple(cfg.metric_ids()), values)
    app = create_app(cfg, raw, robustness=False)
    sc = score_values(values, models, cfg)
    model = models[int(np.argsort(sc.ranks)[len(models) // 2])]
    health: list[float] = []
    done = threading.Event()
    with live_server(app) as url:
        body = json.dumps(_whatif_request(url, model)).encode()

        def poll():
            while not done.is_set():
                t = time.perf_counter()
                urllib.request.urlopen(f"{url}/health", timeout=30).read()
                health.append(time.perf_counter() - t)
                time.sleep(0.05)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        req = urllib.request.Request(
            f"{url}/_dash-update-component", body, {"Content-Type": "application/json"}
        )
        t = time.perf_counter()
        answer = urllib.request.urlopen(req, timeout=120).read().decode()
        took = time.perf_counter() - t
        done.set()
        poller.join(10)
    assert took < sens.WHATIF_BUDGET_S + 4.0, took
    assert model in answer
    assert len(health) >= 5 and max(health) < 1.0, health
