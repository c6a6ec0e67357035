"""Seed 000's worked examples (LIPS power grid), built as a native config + raw CSV.

Physical solver: 0.625 (speed-up 3.77); LeapNet: 0.376 (speed-up 11.9), with
alpha_test = alpha_ood = 0.3, alpha_speed-up = 0.4, alpha_ML = 0.66, alpha_Physics = 0.34,
Weibull b = 1.7, c = 5. Traffic lights: ML 6 quantities, physics 8 criteria.
"""

from __future__ import annotations

import io

import pytest

import ml_peg_like as mpl

# lower is better; great <= 0.1 < acceptable <= 0.5 < unacceptable
GREEN, ORANGE, RED = 0.05, 0.3, 0.9


def lips_config() -> mpl.Config:
    def group(prefix, n):
        return {
            f"{prefix}{i}": {"good": 0.1, "bad": 0.5, "normaliser": "traffic_light"}
            for i in range(1, n + 1)
        }

    def dataset(tag):
        return {
            f"ML ({tag})": {"weight": 0.66, "metrics": group("q", 6)},
            f"Physics ({tag})": {"weight": 0.34, "metrics": group("P", 8)},
        }

    return mpl.config_from_dict(
        {
            "title": "LIPS power grid",
            "categories": {
                "Test": {"weight": 0.3, "benchmarks": dataset("test")},
                "OOD": {"weight": 0.3, "benchmarks": dataset("OOD")},
                "Speed-up": {
                    "weight": 0.4,
                    "benchmarks": {
                        "Speed-up": {
                            "metrics": {
                                "speed-up": {"normaliser": "weibull_speedup", "b": 1.7, "c": 5}
                            }
                        }
                    },
                },
            },
        }
    )


def lights(model, bench, prefix, n_green, n_orange, n_red):
    values = [GREEN] * n_green + [ORANGE] * n_orange + [RED] * n_red
    return [f"{model},{bench},{prefix}{i + 1},{v}" for i, v in enumerate(values)]


def lips_raw(cfg):
    rows = ["model,benchmark,metric,value"]
    rows += lights("Grid2Op", "ML (test)", "q", 6, 0, 0) + lights(
        "Grid2Op", "Physics (test)", "P", 8, 0, 0
    )
    rows += lights("Grid2Op", "ML (OOD)", "q", 6, 0, 0) + lights(
        "Grid2Op", "Physics (OOD)", "P", 8, 0, 0
    )
    rows += ["Grid2Op,Speed-up,speed-up,3.77"]
    rows += lights("LeapNet", "ML (test)", "q", 2, 2, 2) + lights(
        "LeapNet", "Physics (test)", "P", 2, 1, 5
    )
    rows += lights("LeapNet", "ML (OOD)", "q", 0, 4, 2) + lights(
        "LeapNet", "Physics (OOD)", "P", 2, 1, 5
    )
    rows += ["LeapNet,Speed-up,speed-up,11.9"]
    return mpl.load_raw(io.BytesIO("\n".join(rows).encode()), cfg)


def test_lips_global_scores_of_the_worked_examples():
    cfg = lips_config()
    s = mpl.score(lips_raw(cfg), cfg)
    assert s.overall.loc["Grid2Op", "score"] == pytest.approx(0.625, abs=1e-3)
    assert s.overall.loc["LeapNet", "score"] == pytest.approx(0.376, abs=1e-3)


def test_lips_sub_scores_of_the_worked_examples():
    cfg = lips_config()
    s = mpl.score(lips_raw(cfg), cfg)
    # (2 Ng + No) / (2 N): ML test 2/2/2 -> 6/12; physics 2/1/5 -> 5/16
    assert s.benchmarks.loc["LeapNet", "ML (test)"] == pytest.approx(6 / 12)
    assert s.benchmarks.loc["LeapNet", "Physics (test)"] == pytest.approx(5 / 16)
    assert s.categories.loc["LeapNet", "Test"] == pytest.approx(0.44, abs=5e-3)
    assert s.categories.loc["LeapNet", "OOD"] == pytest.approx(0.33, abs=5e-3)
    assert s.categories.loc["LeapNet", "Speed-up"] == pytest.approx(0.36, abs=0.01)
    assert s.categories.loc["Grid2Op", "Speed-up"] == pytest.approx(0.06, abs=5e-3)
    assert s.overall.loc["Grid2Op", "rank"] == 1
