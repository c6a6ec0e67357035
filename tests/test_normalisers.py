"""Every normaliser on hand-computed values and on the seeds' published numbers."""

from __future__ import annotations

import numpy as np
import pytest

import ml_peg_like as mpl
from ml_peg_like.normalisers import apply_normaliser, get_normaliser


def run(name, x, **params):
    x = np.asarray(x, dtype=float).reshape(-1, 1)
    p = {k: np.array([v], dtype=float) for k, v in params.items()}
    return apply_normaliser(get_normaliser(name), x, p)[:, 0]


def test_linear_follows_seed_003_example_lower_is_better():
    # good 1.0 kcal/mol, bad 5.0: 1.0 -> 1, 5.0 -> 0, 3.0 -> 0.5; clipped outside
    assert run("linear", [1.0, 5.0, 3.0, 0.2, 9.0], good=1, bad=5).tolist() == [1, 0, 0.5, 1, 0]


def test_linear_higher_is_better_and_nan_stays_nan():
    out = run("linear", [0.5, 0.75, 1.0, np.nan], good=1, bad=0.5)
    assert out[:3].tolist() == [0.0, 0.5, 1.0]
    assert np.isnan(out[3])


def test_traffic_light_levels_in_both_directions():
    # lower is better: <= good great (1); > bad red (0); otherwise orange (0.5)
    assert run("traffic_light", [0.1, 0.2, 0.3, 0.5, 0.6], good=0.2, bad=0.5).tolist() == [
        1,
        1,
        0.5,
        0.5,
        0,
    ]
    # higher is better
    assert run("traffic_light", [0.95, 0.9, 0.7, 0.5, 0.4], good=0.9, bad=0.5).tolist() == [
        1,
        1,
        0.5,
        0.5,
        0,
    ]


@pytest.mark.parametrize("speedup,expected", [(5, 0.100), (10, 0.290), (20, 0.671)])
def test_weibull_speedup_published_values(speedup, expected):
    assert run("weibull_speedup", [speedup], b=1.7, c=5)[0] == pytest.approx(expected, abs=5e-4)


def test_weibull_speedup_scale_parameter_matches_seed_000():
    # a = c (-ln 0.9)^(-1/b) = 18.787 for b = 1.7, c = 5: the score is 1 - 1/e at s = a
    a = 5 * (-np.log(0.9)) ** (-1 / 1.7)
    assert a == pytest.approx(18.787, abs=1e-3)
    assert run("weibull_speedup", [a], b=1.7, c=5)[0] == pytest.approx(1 - np.exp(-1))


def test_weibull_speedup_from_run_times_with_a_reference():
    # reference 100 s, inference 10 s: speed-up 10 -> 0.290
    assert run("weibull_speedup", [10.0], b=1.7, c=5, reference=100)[0] == pytest.approx(
        0.290, abs=5e-4
    )


def test_log_speedup_seed_001_example():
    # reference 1500 s, inference 5 s, max speed-up 10000: log10(300) / 4 = 0.61928
    assert run("log_speedup", [5.0], max_speedup=10000, reference=1500)[0] == pytest.approx(
        0.61928, abs=1e-5
    )
    # slower than the reference -> 0; faster than the max -> 1
    assert run("log_speedup", [0.5, 20000], max_speedup=10000).tolist() == [0.0, 1.0]


def test_registered_normaliser_works_in_a_config():
    def halfway(x, good, bad):
        return np.where(x == good, 1.0, 0.5)

    mpl.register_normaliser("test_halfway", halfway)
    cfg = mpl.loads_config(
        "categories: {C: {benchmarks: {B: {metrics: {m: {good: 1, bad: 0, normaliser: test_halfway}}}}}}"
    )
    raw = mpl.RawData(("a", "b"), tuple(cfg.metric_ids()), np.array([[1.0], [0.3]]))
    assert mpl.score(raw, cfg).metrics["B/m"].tolist() == [1.0, 0.5]
    assert "test_halfway" in mpl.normaliser_names()


def test_results_are_clipped_even_if_a_custom_normaliser_misbehaves():
    mpl.register_normaliser("test_wild", lambda x, good, bad: x * 10)
    out = run("test_wild", [-1.0, 0.05, 3.0, np.nan], good=1, bad=0)
    assert out[:3].tolist() == [0.0, 0.5, 1.0] and np.isnan(out[3])
