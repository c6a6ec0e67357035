"""Property tests (hypothesis): bounds, monotonicity, invariances and the YAML round trip."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ml_peg_like as mpl

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
weights = st.one_of(st.just(0.0), st.floats(1e-3, 10))
names = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="/"),
    min_size=1,
    max_size=12,
).filter(lambda s: s.strip() != "")


@st.composite
def configs(draw):
    n_cat = draw(st.integers(1, 3))
    cats = {}
    bench_id = 0
    for c in range(n_cat):
        benches = {}
        for _ in range(draw(st.integers(1, 3))):
            metrics = {}
            for k in range(draw(st.integers(1, 3))):
                good = draw(finite)
                bad = draw(finite.filter(lambda b, g=good: b != g))
                norm = draw(st.sampled_from(["linear", "traffic_light"]))
                metrics[f"m{k}"] = {
                    "good": good,
                    "bad": bad,
                    "normaliser": norm,
                    "weight": draw(weights),
                }
            benches[f"b{bench_id}"] = {"weight": draw(weights), "metrics": metrics}
            bench_id += 1
        cats[f"c{c}"] = {"weight": draw(weights), "benchmarks": benches}
    missing = draw(st.sampled_from(["invalidate", "skip"]))
    return mpl.config_from_dict({"missing": missing, "categories": cats})


@st.composite
def config_and_raw(draw):
    cfg = draw(configs())
    n_models = draw(st.integers(1, 6))
    n_metrics = len(cfg.metric_ids())
    cells = draw(
        st.lists(
            st.one_of(finite, st.just(float("nan"))),
            min_size=n_models * n_metrics,
            max_size=n_models * n_metrics,
        )
    )
    values = np.array(cells, dtype=float).reshape(n_models, n_metrics)
    models = tuple(f"model{i}" for i in range(n_models))
    return cfg, mpl.RawData(models, tuple(cfg.metric_ids()), values)


def in_unit_or_nan(a):
    a = np.asarray(a, dtype=float)
    return bool(np.all(np.isnan(a) | ((a >= 0) & (a <= 1 + 1e-12))))


@settings(max_examples=150, deadline=None)
@given(config_and_raw())
def test_every_score_is_in_unit_interval_or_missing(data):
    cfg, raw = data
    s = mpl.score(raw, cfg)
    for arr in (s.metric_scores, s.bench_scores, s.cat_scores, s.overall_scores):
        assert in_unit_or_nan(arr)


@settings(max_examples=150, deadline=None)
@given(
    finite,
    finite,
    st.lists(finite, min_size=2, max_size=20),
    st.sampled_from(["linear", "traffic_light"]),
)
def test_scores_are_monotone_in_the_metric_direction(good, bad, xs, norm):
    if good == bad:
        return
    cfg = mpl.config_from_dict(
        {
            "categories": {
                "C": {
                    "benchmarks": {
                        "B": {"metrics": {"m": {"good": good, "bad": bad, "normaliser": norm}}}
                    }
                }
            }
        }
    )
    xs = np.sort(np.array(xs))
    raw = mpl.RawData(tuple(f"x{i}" for i in range(len(xs))), tuple(cfg.metric_ids()), xs[:, None])
    sc = mpl.score(raw, cfg).metric_scores[:, 0]
    diffs = np.diff(sc)
    if good > bad:  # higher is better: non-decreasing in x
        assert np.all(diffs >= -1e-12)
    else:
        assert np.all(diffs <= 1e-12)


@settings(max_examples=100, deadline=None)
@given(config_and_raw(), st.floats(0.01, 100), st.data())
def test_scaling_a_groups_weights_changes_nothing(data, k, pick):
    cfg, raw = data
    base = mpl.score(raw, cfg)
    cat = pick.draw(st.sampled_from(cfg.categories))
    bench = pick.draw(st.sampled_from(cat.benchmarks))
    changes = {f"{cat.name}/{bench.name}/{m.name}": {"weight": m.weight * k} for m in bench.metrics}
    changes.update({f"{cat.name}/{b.name}": {"weight": b.weight * k} for b in cat.benchmarks})
    changes.update({c.name: {"weight": c.weight * k} for c in cfg.categories})
    scaled = mpl.score(raw, cfg.apply_changes(changes))
    for a, b in (
        (base.bench_scores, scaled.bench_scores),
        (base.cat_scores, scaled.cat_scores),
        (base.overall_scores, scaled.overall_scores),
    ):
        assert np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


@settings(max_examples=100, deadline=None)
@given(config_and_raw(), st.randoms(use_true_random=False))
def test_reordering_models_changes_no_model_score(data, rnd):
    cfg, raw = data
    order = list(range(len(raw.models)))
    rnd.shuffle(order)
    shuffled = mpl.RawData(tuple(raw.models[i] for i in order), raw.metric_ids, raw.values[order])
    a = mpl.score(raw, cfg).overall
    b = mpl.score(shuffled, cfg).overall.loc[list(raw.models)]
    assert np.allclose(a["score"], b["score"], equal_nan=True)
    # ranks with their missing (no score) places: the same where they are
    assert a["rank"].equals(b["rank"]) and a["tied"].equals(b["tied"])


@settings(max_examples=100, deadline=None)
@given(configs(), names, names)
def test_yaml_round_trip_gives_an_equal_config(cfg, cat_name, metric_name):
    renamed = (
        mpl.config_from_dict(
            {
                **mpl.config_to_dict(cfg),
                "title": cat_name,
                "categories": {
                    (cat_name if i == 0 else k): v
                    for i, (k, v) in enumerate(mpl.config_to_dict(cfg)["categories"].items())
                },
            }
        )
        if cat_name not in mpl.config_to_dict(cfg)["categories"]
        else cfg
    )
    assert mpl.loads_config(mpl.dump_config(renamed)) == renamed
    assert mpl.loads_config(mpl.dump_config(cfg)) == cfg
