"""The benchmark figure (``compare.bench_figure``, the reference of ``assets/curve.js``
``benchFigure`` which redraws it in the browser after an edit): the server draws it only when its
graph is made, and its models are in the order of the per-model key."""

from __future__ import annotations

import pytest
from browser_utils import small_dataset

from ml_peg_like import score
from ml_peg_like.dashboard import ids
from ml_peg_like.dashboard.components.explore import view as ev
from ml_peg_like.dashboard.components.explore.view import compare

BENCH = "Regression/Diabetes"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return small_dataset(tmp_path_factory.mktemp("small"))


def test_the_server_draws_the_figure_only_when_its_graph_is_made(data):
    """An edit, a reset or a filter leaves the graph to the browser (nothing in the answer); a
    new view, or a graph not yet made, gets the whole figure, its bars the engine's scores."""
    from ml_peg_like.dashboard import create_app

    cfg, raw = data
    cache = create_app(cfg, raw, robustness=False).score_cache
    _cfg, s = cache.scores_for({})
    kw = dict(cache=cache, scores=s, page="", view=BENCH, is_bench=True, sel=ev.defaults(cache))
    out: dict = {}
    ev.fill(out, models=None, view_changed=False, graphs={ev.plots.BENCH}, **kw)
    assert out == {}
    ev.fill(out, models=["Ridge", "Dummy"], view_changed=False, graphs=set(), **kw)
    graph = out["bench_fig"].children[0]
    assert graph.id == ids.plot_graph(ev.plots.BENCH)
    mae = next(t for t in graph.figure["data"] if t["name"] == "MAE")
    # the small data set's MAE: good 40, bad 70; Ridge 45 -> 25/30, Dummy 66 -> 4/30
    assert mae["x"] == ["Ridge", "Dummy"] and mae["y"] == pytest.approx([25 / 30, 4 / 30])
    out = {}
    ev.fill(out, models=None, view_changed=True, graphs={ev.plots.BENCH}, **kw)
    assert "bench_fig" in out


def test_the_models_are_in_the_order_of_the_per_model_key(data):
    """The benchmark figure's models (one sort in numpy) are in the order of the straightforward
    key: best benchmark score first, missing (NaN, inf) last, ties (0.0 and -0.0 too) in the
    models' order, a subset of the models as shown."""
    import dataclasses

    import numpy as np

    cfg, raw = data
    s = score(raw, cfg)
    k = s.plan.benchmarks.index("Diabetes")
    rng = np.random.default_rng(1)
    n = 60
    models = tuple(f"m{i}" for i in range(n))
    for trial in range(20):
        bs = rng.choice([0.5, 0.25, 0.0, -0.0, np.nan, np.inf, 0.75], size=n)
        bs[: trial % 7] = rng.random(trial % 7)
        bench_scores = np.zeros((n, s.bench_scores.shape[1]))
        bench_scores[:, k] = bs
        t = dataclasses.replace(
            s,
            models=models,
            bench_scores=bench_scores,
            metric_scores=np.zeros((n, s.metric_scores.shape[1])),
        )
        shown = [m for m in models if rng.random() < 0.8]
        ix = [models.index(m) for m in shown]
        ix.sort(key=lambda i: (-bs[i] if np.isfinite(bs[i]) else np.inf, i))
        fig = compare.bench_figure(t, BENCH, shown, {})
        assert fig["data"][-1]["x"] == [models[i] for i in ix][: compare.BENCH_MAX_MODELS]
