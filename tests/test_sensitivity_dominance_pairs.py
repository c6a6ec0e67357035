"""The pairs behind dominance (sensitivity/dominance.py ``_at_least``): listed per small group
of models missing the same metrics, compared on a grid for a large group; both against a
brute force over every pair, on boards built to have ties and many dominated models."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

#: the module (the package exports a function of the same name)
dom = importlib.import_module("ml_peg_like.sensitivity.dominance")


def brute(filled: np.ndarray, group: np.ndarray):
    n = len(filled)
    pairs = [
        (i, j)
        for i in range(n)
        for j in range(n)
        if i != j and group[i] == group[j] and (filled[j] >= filled[i]).all()
    ]
    ii = np.array([p[0] for p in pairs], dtype=np.intp)
    jj = np.array([p[1] for p in pairs], dtype=np.intp)
    return ii, jj


@pytest.mark.parametrize(
    ("n", "k", "groups", "levels"),
    [
        (40, 3, 1, 3),  # one group (no missing data): the grid path, many ties
        (90, 12, 1, 4),  # more columns than the grid's first ones
        (200, 5, 60, 3),  # many small groups: the listed path
        (150, 6, 2, 3),  # two large groups
        (300, 4, 30, 2),  # small groups next to ... (sizes drawn at random)
        (1, 4, 1, 2),  # a single model: no pair
        (0, 4, 1, 2),  # no model
    ],
)
def test_pairs_equal_the_brute_force(n, k, groups, levels, monkeypatch):
    rng = np.random.default_rng(n * 31 + k)
    filled = rng.integers(0, levels, size=(n, k)).astype(float) / (levels - 1)
    group = rng.integers(0, groups, size=n)
    # small blocks and a small "small group" bound, so that every path runs on a small board
    monkeypatch.setattr(dom, "ROW_BLOCK", 7)
    monkeypatch.setattr(dom, "SMALL_GROUP", 5)
    monkeypatch.setattr(dom, "DENSE_METRICS", 2)
    ii, jj = dom._at_least(filled, group)
    bi, bj = brute(filled, group)
    assert ii.tolist() == bi.tolist() and jj.tolist() == bj.tolist()


def test_a_hand_made_board():
    # rows: models; a and b in group 0, c and d in group 1 (c missing what d misses)
    filled = np.array(
        [
            [0.5, 0.5],  # a
            [0.5, 1.0],  # b: at least as good as a (and better on one)
            [1.0, 0.0],  # c
            [1.0, 0.0],  # d: equal to c: each at least as good as the other
        ]
    )
    group = np.array([0, 0, 1, 1])
    ii, jj = dom._at_least(filled, group)
    assert list(zip(ii.tolist(), jj.tolist(), strict=True)) == [(0, 1), (2, 3), (3, 2)]
