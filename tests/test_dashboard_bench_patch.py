"""The benchmark figure an edit patches (components/explore/plots.py ``put`` with ``compare.bench_parts``,
the rule of ``figpatch``): after any chain of edits the figure the browser's ``plot-figs`` store
holds (nothing, a Patch of the parts that changed under the figure's name, or a whole
{name: figure}) equals the figure built from scratch for the last state; an edit of another
benchmark sends nothing; a new graph or a patched scatter forgets what the store held."""

from __future__ import annotations

import pytest
from browser_utils import small_dataset
from dash import Patch, no_update
from patch_utils import apply, size

from ml_peg_like import score
from ml_peg_like.dashboard import figpatch
from ml_peg_like.dashboard.components.explore.view import compare, plots

BENCH = "Regression/Diabetes"
MAE = "Regression/Diabetes/MAE"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return small_dataset(tmp_path_factory.mktemp("small"))


def bench(raw, cfg, changes, shown=None):
    s = score(raw, cfg.apply_changes(changes))
    models = list(s.models) if shown is None else shown
    return compare.bench_figure(s, BENCH, models, {m: m for m in s.models})


def edit(fig, store, sig, fresh=False):
    """One edit's outputs through ``plots.put`` and the stores after it."""
    out: dict = {"plot_figs": no_update, "plot_sig": no_update}  # as the edit callback starts
    parts = compare.bench_parts(fig)
    plots.put(out, "bench_fig", "w", plots.BENCH, fig, {plots.BENCH}, fresh, sig, parts=parts)
    answer = out["plot_figs"]
    new_sig = sig if out["plot_sig"] is no_update else out["plot_sig"]
    return out, apply(store, answer), new_sig, answer


EDITS = [  # (path, field, value or None: the models shown); cumulative
    (MAE, "bad", 100.0),  # every model's MAE score: y of the MAE bars and the benchmark marker
    ("Classification/Iris/Accuracy", "good", 0.9),  # another benchmark: nothing sent
    (MAE, "good", 60.0),  # the order of the models may change: x of every trace
    ("models", None, 3),  # three models shown: the title says how many, x shorter
    ("models", None, None),
    ("Regression/Diabetes/R2", "weight", 0.0),
]


def test_a_patched_benchmark_figure_equals_the_figure_built_from_scratch(data):
    cfg, raw = data
    changes: dict = {}
    shown = None
    fig = bench(raw, cfg, changes)
    out, store, sig, _ = edit(fig, None, None)  # the store holds nothing: the whole figure
    assert out["plot_figs"] == {plots.BENCH: fig}
    assert sig == {plots.BENCH: compare_sig(fig)}
    kinds = []
    for path, field, value in EDITS:
        if path == "models":
            models = list(score(raw, cfg).models)
            shown = None if value is None else models[:value]
        else:
            changes.setdefault(path, {})[field] = value
        fresh = bench(raw, cfg, changes, shown)
        _out, store, sig, answer = edit(fresh, store, sig)
        assert store == {plots.BENCH: fresh}  # every bar, the order, the title
        assert sig == {plots.BENCH: compare_sig(fresh)}
        kinds.append("none" if answer is no_update else type(answer).__name__)
        if isinstance(answer, Patch):
            assert size(answer) < size(fresh) * 0.75
    assert kinds[1] == "none"  # an edit of another benchmark sends nothing
    assert kinds[0] == "Patch" and kinds.count("Patch") >= 4


def compare_sig(fig):
    return figpatch.signature(fig, compare.bench_parts(fig))


def test_a_threshold_edit_sends_only_the_values_that_moved(data):
    cfg, raw = data
    before = bench(raw, cfg, {})
    after = bench(raw, cfg, {MAE: {"bad": 100.0}})
    _out, _store, _sig, answer = edit(after, {plots.BENCH: before}, edit(before, None, None)[2])
    ops = {tuple(op["location"]) for op in answer.to_plotly_json()["operations"]}
    names = [t["name"] for t in after["data"]]
    mae, r2, marker = names.index("MAE"), names.index("R2"), len(names) - 1
    assert (plots.BENCH, "data", mae, "y") in ops
    assert (plots.BENCH, "data", r2, "y") not in ops  # R2's scores did not change
    if after["data"][0]["x"] == before["data"][0]["x"]:  # the same order: no x sent
        assert not any(op[-1] == "x" for op in ops)
    assert (plots.BENCH, "data", marker, "y") in ops  # the benchmark score moved


def test_a_new_graph_or_another_store_content_gets_the_whole_figure(data):
    cfg, raw = data
    fig = bench(raw, cfg, {})
    _out, store, sig, _ = edit(fig, None, None)
    # the graph is created again (a view change): the store no longer matches it
    out: dict = {"plot_figs": no_update, "plot_sig": no_update}
    plots.put(out, "bench_fig", "w", plots.BENCH, fig, {plots.BENCH}, True, sig, parts=[])
    assert out["plot_sig"] is None and out["plot_figs"] is no_update and "bench_fig" in out
    # held signatures of another plot, a forged one, none: the whole figure
    for held in ({plots.COMPARE: "a:b"}, {plots.BENCH: "x:y"}, {plots.BENCH: 7}, "zz", None):
        out, _store, new_sig, answer = edit(fig, store, held)
        assert answer == {plots.BENCH: fig} and new_sig == {plots.BENCH: compare_sig(fig)}


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
