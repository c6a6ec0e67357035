"""Rank robustness: Monte Carlo over weights and thresholds, rank correlations, leave one out.

Hand-checkable cases first (a dominant model, identical models, reversed rankings, a
three-model leave-one-out), then exact agreement of sampled overall scores with the engine
(``score_values`` on the config with that sample's weights and thresholds applied).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers_engine import raw_matrix

import ml_peg_like as mpl
from ml_peg_like import robustness as rb
from ml_peg_like.aggregation import weighted_mean
from ml_peg_like.cli import main
from ml_peg_like.robustness import (
    aggregate_batch,
    compare_settings,
    kendall_tau,
    leave_one_out,
    rank_robustness,
    rank_samples,
    spearman_rho,
)
from ml_peg_like.scoring import rank_desc, score_values

TREE = """
title: Robustness
missing: {missing}
categories:
  Accuracy:
    weight: 2
    benchmarks:
      B1:
        weight: 1
        metrics:
          err: {{good: 0, bad: 10, weight: 2}}
          acc: {{good: 1, bad: 0.5}}
      B2:
        weight: 3
        metrics:
          light: {{good: 1, bad: 5, normaliser: traffic_light}}
  Speed:
    benchmarks:
      S1:
        metrics:
          speedup: {{normaliser: log_speedup, max_speedup: 100}}
          time: {{good: 1, bad: 100}}
"""


def cfg_with(missing="invalidate"):
    return mpl.loads_config(TREE.format(missing=missing))


# err (lower better), acc (higher), light (lower), speedup (higher), time (lower)
ROWS = {
    "best": [0.5, 0.99, 0.5, 90.0, 2.0],
    "mid": [4.0, 0.8, 3.0, 20.0, 30.0],
    "twin_a": [6.0, 0.7, 4.0, 10.0, 50.0],
    "twin_b": [6.0, 0.7, 4.0, 10.0, 50.0],
    "worst": [9.0, 0.55, 6.0, 2.0, 90.0],
}


# models that trade off: their ranking depends on the settings
MIXED = {
    "p": [1.0, 0.9, 2.0, 5.0, 10.0],
    "q": [5.0, 0.95, 4.0, 50.0, 20.0],
    "r": [3.0, 0.7, 0.5, 20.0, 5.0],
    "s": [8.0, 0.99, 3.0, 80.0, 60.0],
}


def raw_of(cfg, rows=ROWS):
    return raw_matrix(cfg, list(rows), list(rows.values()))


def run(raw, cfg, **kw):
    kw.setdefault("samples", 400)
    kw.setdefault("seed", 7)
    kw.setdefault("concentration", 2.0)
    kw.setdefault("threshold_jitter", 0.3)
    return rank_robustness(raw, cfg, **kw)


# ------------------------------------------------------------------------------------------------
# Hand-checkable Monte Carlo results
# ------------------------------------------------------------------------------------------------


def test_a_model_better_on_every_metric_is_always_first():
    cfg = cfg_with()
    res = run(raw_of(cfg), cfg)
    row = res.summary.set_index("model").loc["best"]
    assert row["p_rank1"] == 1.0
    assert row["rank_5"] == row["median_rank"] == row["rank_95"] == 1
    assert res.acceptability.loc["best", 1] == 1.0
    # the model worse on every metric is always last
    assert res.acceptability.loc["worst", len(ROWS)] == 1.0
    assert res.scalars["p_top_model_stays_first"] == 1.0


def test_two_identical_models_get_identical_distributions():
    cfg = cfg_with()
    res = run(raw_of(cfg), cfg, threshold_jitter=0.5, concentration=1.0)
    acc = res.acceptability
    assert np.array_equal(acc.loc["twin_a"].to_numpy(), acc.loc["twin_b"].to_numpy())
    s = res.summary.set_index("model")
    cols = ["rank_now", "median_rank", "rank_5", "rank_95", "p_rank1", "p_topk", "mean_rank"]
    assert s.loc["twin_a", cols].tolist() == s.loc["twin_b", cols].tolist()
    # they tie, so they share ranks: never ranks 4 and 5 apart, and 5 (last) is only 'worst'
    assert acc.loc["twin_a", 5] == 0.0


def test_rows_of_the_acceptability_matrix_are_distributions_and_summaries_agree():
    cfg = cfg_with("skip")
    res = run(raw_of(cfg), cfg, top_k=2)
    acc = res.acceptability.to_numpy()
    assert np.allclose(acc.sum(axis=1), 1.0)
    s = res.summary
    assert np.allclose(s["p_rank1"], acc[:, 0])
    assert np.allclose(s["p_topk"], acc[:, :2].sum(axis=1))
    assert np.allclose(s["mean_rank"], acc @ np.arange(1, acc.shape[1] + 1))
    assert (s["rank_5"] <= s["median_rank"]).all() and (s["median_rank"] <= s["rank_95"]).all()
    assert list(s["rank_now"]) == sorted(s["rank_now"])  # sorted by the current rank


def test_same_seed_same_result_other_seed_other_result_whatever_the_batching(monkeypatch):
    cfg = cfg_with("skip")
    raw = raw_of(cfg, MIXED)
    a = run(raw, cfg, seed=11, threshold_draws=40)
    b = run(raw, cfg, seed=11, threshold_draws=40, workers=1)
    monkeypatch.setattr(rb.api, "CHUNK_ELEMENTS", 64)  # many small batches
    monkeypatch.setattr(rb.montecarlo, "SUBBATCH_ELEMENTS", 8)
    c = run(raw, cfg, seed=11, threshold_draws=40, workers=2)
    for other in (b, c):
        assert np.array_equal(a.acceptability.to_numpy(), other.acceptability.to_numpy())
        assert a.summary.equals(other.summary)
    assert 0 < a.acceptability.to_numpy().max(axis=1).min() < 1  # the ranking does move
    d = run(raw, cfg, seed=12, threshold_draws=40)
    assert not np.array_equal(a.acceptability.to_numpy(), d.acceptability.to_numpy())


def test_a_huge_concentration_without_threshold_jitter_keeps_the_current_ranking():
    cfg = cfg_with("skip")
    rows = dict(ROWS, mid2=[4.5, 0.8, 3.0, 20.0, 30.0])
    raw = raw_of(cfg, rows)
    res = run(raw, cfg, concentration=1e12, threshold_jitter=0.0, samples=300)
    s = res.summary
    assert (s["median_rank"] == s["rank_now"]).all()
    assert (s["rank_5"] == s["rank_now"]).all() and (s["rank_95"] == s["rank_now"]).all()
    for model, r in zip(s["model"], s["rank_now"], strict=True):
        assert res.acceptability.loc[model, r] == 1.0
    assert res.scalars["spearman_vs_current_5"] == pytest.approx(1.0)
    assert res.scalars["threshold_draws"] == 0  # nothing jittered


def test_infinite_concentration_and_zero_jitter_reproduce_the_engine_exactly():
    cfg = cfg_with()
    raw = raw_of(cfg)
    res = run(raw, cfg, concentration=math.inf, threshold_jitter=0.0, samples=5, keep_samples=5)
    ref = mpl.score(raw, cfg).overall_scores
    for i in range(5):
        assert np.allclose(res.samples["overall"][i], ref, atol=1e-12)


def test_a_model_without_an_overall_score_has_no_rank_and_no_rank_statistics():
    # it used to be counted at rank n (a last place it never had); now it has no rank at all
    cfg = cfg_with()  # invalidate: a missing metric removes the overall score
    rows = dict(ROWS)
    rows["gap"] = [1.0, 0.9, np.nan, 50.0, 5.0]
    res = run(raw_of(cfg, rows), cfg)
    assert res.acceptability.loc["gap"].isna().all()
    gap = res.summary.set_index("model").loc["gap"]
    assert (
        gap[["rank_now", "median_rank", "rank_5", "rank_95", "mean_rank", "p_rank1"]].isna().all()
    )
    assert res.scalars["models_ranked"] == len(rows) - 1
    # the ranked models' probabilities of ranks 1..n-1 add up to 1: none is left for the gap
    ranked = res.acceptability.drop(index="gap")
    assert np.allclose(ranked.sum(axis=1), 1.0)
    assert (ranked[len(rows)] == 0).all()


def test_progress_is_reported_per_batch_up_to_the_total(monkeypatch):
    monkeypatch.setattr(rb.api, "CHUNK_ELEMENTS", 64)
    cfg = cfg_with()
    seen = []
    run(
        raw_of(cfg), cfg, samples=250, threshold_draws=25, progress=lambda d, t: seen.append((d, t))
    )
    assert len(seen) > 1
    assert [t for _, t in seen] == [250] * len(seen)
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == 250


# ------------------------------------------------------------------------------------------------
# The sampled settings themselves
# ------------------------------------------------------------------------------------------------


def test_dirichlet_weights_keep_zeros_single_children_and_group_totals():
    cfg = mpl.loads_config(
        """
categories:
  A:
    weight: 3
    benchmarks:
      B1:
        weight: 2
        metrics:
          m1: {good: 0, bad: 1, weight: 2}
          m2: {good: 0, bad: 1, weight: 0}
          m3: {good: 0, bad: 1, weight: 5}
      B2:
        weight: 0
        metrics:
          m4: {good: 0, bad: 1}
  C:
    benchmarks:
      B3:
        metrics:
          m5: {good: 0, bad: 1, weight: 4}
"""
    )
    raw = raw_matrix(cfg, ["p", "q"], [[0.1, 0.2, 0.3, 0.4, 0.5], [0.5, 0.4, 0.3, 0.2, 0.1]])
    res = rank_robustness(
        raw, cfg, samples=200, concentration=3.0, threshold_jitter=0.0, keep_samples=200
    )
    mw = res.samples["metric_weights"]
    bw = res.samples["benchmark_weights"]
    cw = res.samples["category_weights"]
    assert (mw[:, 1] == 0).all() and (bw[:, 1] == 0).all()  # zero weights stay zero
    assert (mw[:, 3] == 1).all() and (mw[:, 4] == 4).all()  # single children unchanged
    assert (bw[:, 2] == 1).all()
    assert np.allclose(mw[:, :3].sum(axis=1), 7.0)  # group totals kept
    assert np.allclose(cw.sum(axis=1), 4.0)
    assert (mw[:, [0, 2]] > 0).all() and (cw > 0).all()
    assert mw[:, 0].std() > 0.1  # they do move
    # E[w] = current weight (Dirichlet mean)
    assert mw[:, 0].mean() == pytest.approx(2.0, abs=0.3)


def test_thresholds_move_by_at_most_x_keep_their_direction_and_are_shared_per_block():
    cfg = cfg_with()
    raw = raw_of(cfg)
    x = 0.4
    res = run(raw, cfg, threshold_jitter=x, samples=60, threshold_draws=12, keep_samples=60)
    assert res.scalars["threshold_draws"] == 12
    assert res.scalars["samples_per_threshold_draw"] == 5
    cols = res.samples["threshold_columns"]
    paths = cfg.metric_paths()
    assert [paths[j].split("/")[-1] for j in cols] == ["err", "acc", "light", "speedup", "time"]
    good, bad = res.samples["good"], res.samples["bad"]
    for j, (g0, b0) in zip([0, 1, 2, 4], [(0, 10), (1, 0.5), (1, 5), (1, 100)], strict=True):
        sg = abs(g0) if g0 != 0 else abs(g0 - b0)  # 'value' scale; 0 uses |good - bad|
        assert (np.abs(good[:, j] - g0) <= x * sg + 1e-12).all()
        assert (np.abs(bad[:, j] - b0) <= x * abs(b0) + 1e-12).all()
        assert (np.sign(good[:, j] - bad[:, j]) == np.sign(g0 - b0)).all()
        assert np.unique(good[:, j]).size == 12  # one draw per block of 5 samples
        assert (good[::5, j] == good[4::5, j]).all()
    # the normaliser without thresholds has no good/bad: its max_speedup (100) moves instead
    assert np.isnan(good[:, 3]).all() and np.isnan(bad[:, 3]).all()
    ms = res.samples["parameters"]["max_speedup"]
    assert set(res.samples["parameters"]) == {"max_speedup"}
    assert (np.abs(ms[:, 3] - 100.0) <= x * 100.0 + 1e-12).all()
    assert np.unique(ms[:, 3]).size == 12 and np.isnan(ms[:, [0, 1, 2, 4]]).all()


def test_span_scale_and_data_driven_thresholds_are_resolved_then_moved():
    cfg = mpl.loads_config(
        """
categories:
  A:
    benchmarks:
      B:
        metrics:
          e: {good: 0, bad: {model: ref}, better: lower}
          f: {good: best, bad: worst, better: higher}
"""
    )
    raw = raw_matrix(cfg, ["ref", "p", "q"], [[4.0, 1.0], [1.0, 3.0], [2.0, 2.0]])
    res = rank_robustness(
        raw, cfg, samples=50, threshold_jitter=0.25, jitter_scale="span", keep_samples=50
    )
    good, bad = res.samples["good"], res.samples["bad"]
    assert (np.abs(good[:, 0] - 0.0) <= 0.25 * 4 + 1e-12).all()  # span |0 - 4|
    assert (np.abs(bad[:, 0] - 4.0) <= 0.25 * 4 + 1e-12).all()
    assert (np.abs(good[:, 1] - 3.0) <= 0.25 * 2 + 1e-12).all()  # best 3, worst 1: span 2
    assert (np.abs(bad[:, 1] - 1.0) <= 0.25 * 2 + 1e-12).all()


# ------------------------------------------------------------------------------------------------
# Exact agreement with the engine: policies (invalidate / skip) honoured sample by sample
# ------------------------------------------------------------------------------------------------


def random_config(rng, missing: str, mixed: bool) -> mpl.Config:
    cats = {}
    for c in range(3):
        benches = {}
        for b in range(int(rng.integers(1, 4))):
            metrics = {}
            for m in range(int(rng.integers(1, 4))):
                lower = bool(rng.random() < 0.5)
                kind = int(rng.integers(0, 5))
                w = float(rng.choice([0, 1, 2, 3]))
                spec = {"good": 0.0 if lower else 1.0, "bad": 1.0 if lower else 0.0, "weight": w}
                if kind == 1:
                    spec.update(normaliser="traffic_light")
                    spec.update(good=0.3 if lower else 0.7, bad=0.7 if lower else 0.3)
                elif kind == 2:
                    spec.update(bad={"model": "m0"}, good=0.0 if lower else 1.5)
                elif kind == 3:
                    better = "lower" if lower else "higher"
                    spec = {"good": "best", "bad": "worst", "better": better, "weight": w}
                elif kind == 4:
                    spec = {"normaliser": "log_speedup", "max_speedup": 10.0, "weight": w}
                metrics[f"m{m}"] = spec
            benches[f"b{c}{b}"] = {"weight": float(rng.choice([0, 1, 2])), "metrics": metrics}
        cat = {"weight": float(rng.choice([0, 1, 2, 3])), "benchmarks": benches}
        if mixed and rng.random() < 0.5:
            cat["missing"] = "skip" if missing == "invalidate" else "invalidate"
        cats[f"C{c}"] = cat
    return mpl.config_from_dict({"missing": missing, "categories": cats})


@pytest.mark.parametrize("trial", range(12))
def test_every_sample_equals_the_engine_on_the_config_with_that_samples_settings(trial):
    rng = np.random.default_rng(100 + trial)
    cfg = random_config(rng, ("invalidate", "skip")[trial % 2], trial % 3 == 0)
    n_models = int(rng.integers(2, 9))
    values = rng.random((n_models, len(cfg.metric_ids()))) * 2
    values[rng.random(values.shape) < 0.2] = np.nan
    models = [f"m{i}" for i in range(n_models)]
    raw = raw_matrix(cfg, models, values)
    n = 12
    res = rank_robustness(
        raw,
        cfg,
        samples=n,
        seed=trial,
        concentration=float(rng.choice([0.5, 5.0, 50.0])),
        threshold_jitter=(0.0, 0.1, 0.5)[trial % 3],
        threshold_draws=int(rng.choice([1, 4, n])),
        keep_samples=n,
    )
    for i in range(n):
        changed = cfg.apply_changes(res.sample_changes(i))
        ref = score_values(values, models, changed)
        got = res.samples["overall"][i]
        assert np.array_equal(np.isnan(ref.overall_scores), np.isnan(got))
        assert np.allclose(got, ref.overall_scores, atol=1e-12, equal_nan=True)
        assert np.array_equal(rank_samples(got[None])[0], ref.ranks, equal_nan=True)


def test_skip_and_invalidate_by_hand_in_one_sample():
    """Missing 'acc' for p: invalidate drops p's overall score, skip renormalises B1."""
    rows = {"p": [2.0, np.nan, 1.0, 10.0, 1.0], "q": [4.0, 0.8, 3.0, 20.0, 30.0]}
    for missing in ("invalidate", "skip"):
        cfg = cfg_with(missing)
        res = rank_robustness(
            raw_of(cfg, rows), cfg, samples=3, concentration=5.0, keep_samples=3, seed=1
        )
        for i in range(3):
            mw = res.samples["metric_weights"][i]
            bw = res.samples["benchmark_weights"][i]
            cw = res.samples["category_weights"][i]
            g, b = res.samples["good"][i], res.samples["bad"][i]
            ov = res.samples["overall"][i]
            if missing == "invalidate":
                assert math.isnan(ov[0])
                continue
            err = min(max((2.0 - b[0]) / (g[0] - b[0]), 0), 1)
            b1 = err  # acc missing: B1 = err alone (skip)
            light = 1.0 if 1.0 <= g[2] else (0.0 if 1.0 > b[2] else 0.5)
            acc_cat = (bw[0] * b1 + bw[1] * light) / (bw[0] + bw[1])
            ms = res.samples["parameters"]["max_speedup"][i][3]  # 100 moved by up to 10 %
            assert 90.0 <= ms <= 110.0 and ms != 100.0
            speed = math.log10(10.0) / math.log10(ms)
            t = min(max((1.0 - b[4]) / (g[4] - b[4]), 0), 1)
            s1 = (mw[3] * speed + mw[4] * t) / (mw[3] + mw[4])
            expected = (cw[0] * acc_cat + cw[1] * s1) / cw.sum()
            assert ov[0] == pytest.approx(expected, abs=1e-12)


# ------------------------------------------------------------------------------------------------
# Ranks, weighted means and rank correlations
# ------------------------------------------------------------------------------------------------


def test_rank_samples_is_rank_desc_on_every_row():
    rng = np.random.default_rng(3)
    V = rng.integers(0, 4, size=(50, 9)).astype(float) / 4
    V[rng.random(V.shape) < 0.2] = np.nan
    V[0] = np.nan
    R = rank_samples(V)
    for row, r in zip(V, R, strict=True):
        assert np.array_equal(r, rank_desc(row), equal_nan=True)


def test_aggregate_batch_is_the_engine_aggregate_for_each_weight_vector():
    rng = np.random.default_rng(5)
    X = rng.random((6, 7))
    X[rng.random(X.shape) < 0.3] = np.nan
    starts = np.array([0, 3, 5])
    skip = np.array([True, False, True])
    W = rng.choice([0.0, 1.0, 2.5], size=(4, 7))
    out = aggregate_batch(X, W, starts, skip)
    out3 = aggregate_batch(np.broadcast_to(X, (4, 6, 7)).copy(), W, starts, skip)
    for r in range(4):
        ref, _ = weighted_mean(X, W[r], starts, skip, need_coverage=False)
        assert np.allclose(out[r], ref, equal_nan=True)
        assert np.allclose(out3[r], ref, equal_nan=True)


def test_kendall_and_spearman_by_hand():
    a = [1, 2, 3, 4, 5]
    assert kendall_tau(a, a) == 1.0 and spearman_rho(a, a) == 1.0
    assert kendall_tau(a, a[::-1]) == -1.0 and spearman_rho(a, a[::-1]) == -1.0
    # one tie in x: 6 pairs, 5 untied, all concordant: tau-b = 5 / sqrt(5 * 6)
    assert kendall_tau([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(5 / math.sqrt(30))
    # one swapped pair out of 6: (5 - 1) / 6
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    # rho = 1 - 6 * sum d^2 / (n (n^2 - 1)) without ties: d = (0, 1, -1, 0)
    assert spearman_rho([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(1 - 6 * 2 / 60)
    # NaN entries are left out; constant vectors are undefined
    assert kendall_tau([1, 2, np.nan, 3], [3, 2, 1, np.nan]) == -1.0
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    assert math.isnan(spearman_rho([1, 1, 1], [1, 2, 3]))
    # rows at once, broadcast against one vector
    rows = kendall_tau([[1, 2, 3], [3, 2, 1]], [1, 2, 3])
    assert rows.tolist() == [1.0, -1.0]


def test_kendall_and_spearman_agree_with_scipy_with_ties_and_gaps():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(9)
    for _ in range(30):
        n = int(rng.integers(3, 40))
        a = rng.integers(0, 6, n).astype(float)
        b = rng.integers(0, 6, n).astype(float)
        a[rng.random(n) < 0.1] = np.nan
        ok = ~(np.isnan(a) | np.isnan(b))
        if ok.sum() < 3 or np.unique(a[ok]).size < 2 or np.unique(b[ok]).size < 2:
            continue
        assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(a[ok], b[ok])[0], abs=1e-12)
        assert spearman_rho(a, b) == pytest.approx(stats.spearmanr(a[ok], b[ok])[0], abs=1e-12)


def test_kendall_counted_in_n_log_n_is_the_all_pairs_float(monkeypatch):
    """Long rows are counted by sorting (statistics._kendall_sorted): the very float of the
    all-pairs comparison, with ties in either vector, gaps, stacks and constant vectors."""
    from ml_peg_like.robustness import statistics as st

    rng = np.random.default_rng(5)
    for trial in range(60):
        n = int(rng.integers(2, 700))
        a = rng.integers(0, int(rng.integers(1, 40)), n).astype(float)
        b = rng.integers(0, int(rng.integers(1, 40)), n).astype(float)
        if trial % 3 == 0:
            a = rng.random(n)
            b = a + rng.normal(0, 0.3, n)
        ref = st._kendall_block(a[None], b[None])[0]
        got = st._kendall_sorted(a, b)
        assert (math.isnan(ref) and math.isnan(got)) or got == ref, (n, ref, got)
    # by hand: one swapped pair of 6, one tie of x (5 / sqrt(30)), 2 swaps by merge counting
    assert st._kendall_sorted(np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 4])) == 4 / 6
    assert st._kendall_sorted(np.array([1.0, 2, 2, 3]), np.array([1.0, 2, 3, 4])) == 5 / math.sqrt(
        30
    )
    assert st._inversions(np.array([2, 0, 1, 3])) == 2
    assert st._inversions(np.array([3, 2, 1, 0])) == 6
    # the public function on stacks with gaps, both ways round the threshold
    A = rng.integers(0, 50, (5, 400)).astype(float)
    A[1, 7] = np.nan
    b = rng.permutation(400).astype(float)
    monkeypatch.setattr(st, "SORTED_FROM", 10**9)
    pairs = kendall_tau(A, b)
    monkeypatch.setattr(st, "SORTED_FROM", 2)
    assert np.array_equal(kendall_tau(A, b), pairs)
    assert math.isnan(kendall_tau(np.ones(500), b[:400].tolist() + [1.0] * 100))


def two_metric_config():
    return mpl.loads_config(
        """
categories:
  A:
    benchmarks:
      One: {metrics: {m: {good: 1, bad: 0}}}
  B:
    benchmarks:
      Two: {metrics: {m: {good: 1, bad: 0}}}
"""
    )


def test_compare_settings_tau_is_1_for_identical_and_minus_1_for_reversed_rankings():
    cfg = two_metric_config()
    raw = raw_matrix(cfg, ["x", "y", "z", "w"], [[0.9, 0.1], [0.6, 0.3], [0.4, 0.7], [0.2, 0.8]])
    same = compare_settings(raw, cfg, cfg)
    assert same.kendall_tau == 1.0 and same.spearman_rho == 1.0 and not same.top_changed
    only_a = cfg.apply_changes({"B": {"weight": 0}})
    rev = compare_settings(raw, only_a, {"A": {"weight": 0}, "B": {"weight": 1}})
    assert rev.kendall_tau == -1.0 and rev.spearman_rho == -1.0
    assert rev.top_a == ["x"] and rev.top_b == ["w"] and rev.top_changed
    assert rev.max_rank_change == 3
    assert list(rev.table["model"]) == ["w", "z", "y", "x"]
    json.dumps(rev.to_dict())
    # the Monte Carlo result reports tau against a default setting too
    res = rank_robustness(raw, only_a, samples=20, default=cfg)
    assert res.scalars["kendall_tau_vs_default"] == pytest.approx(
        kendall_tau(mpl.score(raw, only_a).ranks, mpl.score(raw, cfg).ranks)
    )


# ------------------------------------------------------------------------------------------------
# Leave one out
# ------------------------------------------------------------------------------------------------


LOO_TREE = """
categories:
  A:
    benchmarks:
      A1: {metrics: {a: {good: 1, bad: 0}}}
  B:
    benchmarks:
      B1: {metrics: {b: {good: 1, bad: 0}}}
      B2: {metrics: {c: {good: 1, bad: 0}}}
"""


def test_leave_one_out_by_hand_the_top_model_changes_when_a_category_goes():
    cfg = mpl.loads_config(LOO_TREE)
    # overall = (a + (b + c) / 2) / 2: X 0.6, Y 0.55, Z 0.5
    raw = raw_matrix(cfg, ["X", "Y", "Z"], [[1, 0.2, 0.2], [0.5, 0.6, 0.6], [0, 1, 1]])
    df = leave_one_out(raw, cfg).set_index("removed")
    assert list(df.index) == ["A", "B", "A/A1", "B/B1", "B/B2"]
    # without A the ranking is by b: Z > Y > X, exactly reversed
    assert df.loc["A", "new_top"] == "Z" and df.loc["A", "top_changed"]
    assert df.loc["A", "kendall_tau"] == -1.0 and df.loc["A", "spearman_rho"] == -1.0
    assert df.loc["A", "max_rank_change"] == 2 and df.loc["A", "max_change_model"] == "X"
    # without B the ranking is by a: unchanged
    assert df.loc["B", "new_top"] == "X" and not df.loc["B", "top_changed"]
    assert df.loc["B", "kendall_tau"] == 1.0 and df.loc["B", "max_rank_change"] == 0
    # A1 is A's only benchmark: removing it removes A
    assert df.loc["A/A1", "also_removed"] == "A" and df.loc["A/A1", "new_top"] == "Z"
    # B1 and B2 carry the same values: nothing changes
    assert df.loc["B/B1", "also_removed"] == "" and df.loc["B/B1", "kendall_tau"] == 1.0
    assert df["top_changed"].sum() == 2
    res = rank_robustness(raw, cfg, samples=10)
    assert res.scalars["leave_one_out_top_changes"] == 2
    assert res.leave_one_out.equals(leave_one_out(raw, cfg))


@pytest.mark.parametrize("trial", range(4))
def test_leave_one_out_matches_the_engine_with_that_weight_set_to_zero(trial):
    rng = np.random.default_rng(200 + trial)
    cfg = random_config(rng, ("invalidate", "skip")[trial % 2], True)
    values = rng.random((6, len(cfg.metric_ids())))
    values[rng.random(values.shape) < 0.15] = np.nan
    models = [f"m{i}" for i in range(6)]
    raw = raw_matrix(cfg, models, values)
    full = mpl.score(raw, cfg)
    base = full.ranks
    for row in leave_one_out(raw, cfg).itertuples():
        changes = {row.removed: {"weight": 0}}
        if row.also_removed:
            changes[row.also_removed] = {"weight": 0}
        ref = mpl.score(raw, cfg.apply_changes(changes))
        tau = kendall_tau(ref.ranks, base)
        assert (math.isnan(tau) and math.isnan(row.kendall_tau)) or tau == pytest.approx(
            row.kendall_tau
        )
        top = [m for m, r in zip(models, ref.ranks, strict=True) if r == 1]
        if np.isnan(ref.overall_scores).all():
            top = []
        assert row.new_top == " = ".join(top)
        # only models ranked with and without the removal count
        both = ~np.isnan(full.overall_scores) & ~np.isnan(ref.overall_scores)
        moved = np.abs(ref.ranks - base)[both]
        assert row.max_rank_change == (int(moved.max()) if moved.size else 0)


# ------------------------------------------------------------------------------------------------
# Results, writers and the CLI
# ------------------------------------------------------------------------------------------------


def test_bad_settings_are_reported_together():
    cfg = cfg_with()
    with pytest.raises(mpl.MlPegLikeError) as exc:
        rank_robustness(raw_of(cfg), cfg, samples=0, concentration=0, threshold_jitter=-1, top_k=0)
    wheres = [p.where for p in exc.value.problems]
    assert wheres == ["samples", "concentration", "threshold_jitter", "top_k"]


def test_result_writes_four_files(tmp_path):
    cfg = cfg_with("skip")
    res = run(raw_of(cfg), cfg, samples=50)
    paths = res.write(tmp_path / "out")
    assert [p.name for p in paths] == [
        "robustness_summary.csv",
        "rank_acceptability.csv",
        "leave_one_out.csv",
        "robustness.json",
    ]
    data = json.loads(paths[3].read_text())
    assert data["settings"]["samples"] == 50 and data["settings"]["seed"] == 7
    assert data["scalars"]["threshold_draws"] >= 1
    full = json.loads(json.dumps(res.to_dict()))
    assert len(full["acceptability"]["p"]) == len(ROWS)


def make_dataset(tmp_path):
    d = tmp_path / "ds"
    d.mkdir()
    cfg = cfg_with("skip")
    (d / "config.yml").write_text(mpl.dump_config(cfg))
    lines = ["model,benchmark,metric,value"]
    for model, vals in ROWS.items():
        for (b, m), v in zip(cfg.metric_ids(), vals, strict=True):
            lines.append(f"{model},{b},{m},{v}")
    (d / "raw_metrics.csv").write_text("\n".join(lines) + "\n")
    return d


def test_cli_writes_the_tables(tmp_path, capsys):
    d = make_dataset(tmp_path)
    out = tmp_path / "rob"
    rc = main(
        ["robustness", str(d), "--samples", "200", "--seed", "3", "--top-k", "2", "--out", str(out)]
    )
    assert rc == 0
    assert "200 samples" in capsys.readouterr().out
    summary = (out / "robustness_summary.csv").read_text().splitlines()
    assert summary[0] == (
        "model,score_now,rank_now,median_rank,rank_5,rank_95,mean_rank,p_rank1,p_topk"
    )
    assert summary[1].startswith("best,")
    acc = (out / "rank_acceptability.csv").read_text().splitlines()
    assert acc[0] == "model,1,2,3,4,5"
    assert (out / "leave_one_out.csv").read_text().startswith("level,removed,")
    data = json.loads((out / "robustness.json").read_text())
    assert data["settings"]["top_k"] == 2 and data["scalars"]["kendall_tau_vs_default"] == 1.0
    # CONFIG RAW form, changes and the same seed give the same tables
    out2 = tmp_path / "rob2"
    rc = main(
        [
            "robustness",
            str(d / "config.yml"),
            str(d / "raw_metrics.csv"),
            "--samples",
            "200",
            "--seed",
            "3",
            "--top-k",
            "2",
            "--changes",
            '{"Speed": {"weight": 1}}',
            "--out",
            str(out2),
        ]
    )
    assert rc == 0
    assert (out2 / "rank_acceptability.csv").read_text() == "\n".join(acc) + "\n"


def test_cli_exits_2_with_one_line_per_problem(tmp_path, capsys):
    bad = tmp_path / "bad.yml"
    bad.write_text("categories:\n  A: {weight: -1, benchmarks: {}}\n")
    raw = tmp_path / "raw.csv"
    raw.write_text("model,benchmark,metric,value\n")
    assert main(["robustness", str(bad), str(raw), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert lines and all(line.startswith("error: ") for line in lines)
    assert "Traceback" not in err
    d = make_dataset(tmp_path)
    rc = main(["robustness", str(d), "--samples", "0", "--concentration", "-2", "--out", "x"])
    assert rc == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: samples: expected an integer >= 1, got 0",
        "error: concentration: expected a number > 0 (or inf), got -2.0",
    ]
    rc = main(["robustness", str(d), "--changes", "{nope", "--out", str(tmp_path / "o")])
    assert rc == 2
    assert "invalid JSON" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------
# Every normaliser's declared parameters are jittered (not only good/bad)
# ------------------------------------------------------------------------------------------------


def test_a_weibull_metric_is_jittered_within_the_bounds():
    cfg = mpl.loads_config(
        "categories: {C: {benchmarks: {B: {metrics: "
        "{s: {normaliser: weibull_speedup, b: 1.7, c: 5.0}}}}}}"
    )
    speedups = [2.0, 5.0, 20.0]
    raw = raw_matrix(cfg, ["p", "q", "r"], [[v] for v in speedups])
    x = 0.2
    res = rank_robustness(raw, cfg, samples=40, threshold_jitter=x, seed=3, keep_samples=40)
    par = res.samples["parameters"]
    assert set(par) == {"b", "c"} and res.scalars["jittered_parameters"] == 2
    b, c = par["b"][:, 0], par["c"][:, 0]
    assert (np.abs(b - 1.7) <= x * 1.7 + 1e-12).all() and (np.abs(c - 5.0) <= x * 5.0 + 1e-12).all()
    assert np.unique(b).size > 1 and np.unique(c).size > 1
    ov = res.samples["overall"]
    for i in range(40):  # 1 - exp(-(s / a)^b), a = c (-ln 0.9)^(-1/b), by hand
        a = c[i] * (-math.log(0.9)) ** (-1.0 / b[i])
        want = [1.0 - math.exp(-((s / a) ** b[i])) for s in speedups]
        assert ov[i] == pytest.approx(want, abs=1e-12)
    # q sits at the current c (score 0.1): the jittered c moves its score to both sides
    assert ov[:, 1].min() < 0.1 < ov[:, 1].max()
    with_engine = cfg.apply_changes(res.sample_changes(0))
    assert np.allclose(mpl.score(raw, with_engine).overall_scores, ov[0], atol=1e-12)


def test_a_user_registered_normaliser_parameter_is_jittered():
    from ml_peg_like.normalisers import ParamSpec, register_normaliser

    register_normaliser(
        "test_ratio_k",
        lambda x, k: x / k,
        params=(ParamSpec("k", 2.0, "divisor", positive=True),),
        uses_thresholds=False,
    )
    cfg = mpl.loads_config(
        "categories: {C: {benchmarks: {B: {metrics: {r: {normaliser: test_ratio_k, k: 4}}}}}}"
    )
    raw = raw_matrix(cfg, ["p", "q"], [[1.0], [2.0]])
    res = rank_robustness(raw, cfg, samples=30, threshold_jitter=0.5, seed=1, keep_samples=30)
    k = res.samples["parameters"]["k"][:, 0]
    assert ((k >= 2.0) & (k <= 6.0)).all() and np.unique(k).size > 1
    assert res.samples["overall"] == pytest.approx(np.c_[1.0 / k, 2.0 / k], abs=1e-12)
    # a declared parameter with jitter=False stays put
    register_normaliser(
        "test_ratio_fixed",
        lambda x, k: x / k,
        params=(ParamSpec("k", 2.0, "divisor", positive=True, jitter=False),),
        uses_thresholds=False,
    )
    cfg2 = mpl.loads_config(
        "categories: {C: {benchmarks: {B: {metrics: {r: {normaliser: test_ratio_fixed}}}}}}"
    )
    res2 = rank_robustness(raw, cfg2, samples=5, threshold_jitter=0.5, keep_samples=5)
    assert res2.samples["parameters"] == {} and res2.scalars["jittered_thresholds"] == 0
