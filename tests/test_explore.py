"""The Explore/Compare engine (ml_peg_like.explore): quantities, their values, the Pareto front."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from helpers_engine import raw_matrix

import ml_peg_like as mpl
from ml_peg_like.explore import (
    CATEGORY,
    DATE,
    HIGHER,
    LOWER,
    NUMBER,
    attribute_kind,
    compare_rows,
    pareto_front,
    parse_quantity,
    quantity_options,
    quantity_values,
)

# five points: A(1,5) B(2,4) C(3,1) D(4,2) E(2,3)
X = [1, 2, 3, 4, 2]
Y = [5, 4, 1, 2, 3]


def test_pareto_front_higher_is_better_on_both():
    # D dominates C; B dominates E; A (highest y), B, D (highest x) remain
    assert pareto_front(X, Y, HIGHER, HIGHER) == [0, 1, 3]


def test_pareto_front_lower_is_better_on_both():
    # E dominates B (same x, lower y); C dominates D; A (lowest x), E, C (lowest y) remain
    assert pareto_front(X, Y, LOWER, LOWER) == [0, 4, 2]


def test_pareto_front_mixed_directions():
    # maximise x, minimise y: D (largest x) and C (smallest y); D dominates A, B and E
    assert pareto_front(X, Y, HIGHER, LOWER) == [2, 3]


def test_pareto_front_skips_missing_values_and_keeps_exact_duplicates():
    x = [1, 2, float("nan"), 2, 9]
    y = [5, 4, 99, 4, float("nan")]
    assert pareto_front(x, y, HIGHER, HIGHER) == [0, 1, 3]
    assert pareto_front([], [], HIGHER, HIGHER) == []


CFG = mpl.loads_config(
    """
title: t
categories:
  Cat:
    benchmarks:
      B1:
        metrics:
          MAE: {good: 0.0, bad: 1.0, unit: eV}
          R2: {good: 1.0, bad: 0.0}
      B2:
        metrics:
          F1: {good: 1.0, bad: 0.0}
"""
)
MODELS = ["a", "b", "c"]
RAW = raw_matrix(CFG, MODELS, [[0.25, 0.5, 1.0], [0.5, 1.0, 0.0], [float("nan"), 0.5, 0.5]])
ATTRS = pd.DataFrame(
    {
        "params": ["1000", "20000000", "3e9"],
        "date": ["2024-01-05", "2023-11-30", ""],
        "family": ["x", "y", "x"],
    },
    index=pd.Index(MODELS, name="model"),
)


def test_parse_quantity_names_every_kind_and_its_direction():
    assert parse_quantity(CFG, "overall").better == HIGHER
    assert parse_quantity(CFG, "rank").better == LOWER
    q = parse_quantity(CFG, "B1/MAE")  # a short form becomes the full path
    assert (q.kind, q.path, q.better) == ("score", "Cat/B1/MAE", HIGHER)
    q = parse_quantity(CFG, "raw:Cat/B1/MAE")
    assert (q.kind, q.better, q.unit) == ("raw", LOWER, "eV")
    assert parse_quantity(CFG, "raw:Cat/B1/R2").better == HIGHER
    q = parse_quantity(CFG, "attr:params", ATTRS)
    assert (q.kind, q.better) == ("attr", None)
    for bad in ("nope", "raw:Cat/B1", "attr:nope", ""):
        with pytest.raises(mpl.ConfigError):
            parse_quantity(CFG, bad, ATTRS)


def test_quantity_values_by_hand():
    s = mpl.score(RAW, CFG)
    # a: MAE 0.25 -> 0.75, R2 0.5 -> 0.5, B1 = 0.625, F1 1.0 -> B2 = 1, Cat = overall = 0.8125
    kind, v = quantity_values(s, parse_quantity(CFG, "overall"))
    assert kind == NUMBER and v[0] == pytest.approx(0.8125)
    assert quantity_values(s, parse_quantity(CFG, "Cat/B1"))[1][0] == pytest.approx(0.625)
    assert quantity_values(s, parse_quantity(CFG, "raw:Cat/B1/MAE"))[1][:2] == [0.25, 0.5]
    # b: MAE 0.5, R2 1 -> B1 0.75; F1 0 -> 0; overall 0.375; c has a missing MAE: no overall
    ranks = quantity_values(s, parse_quantity(CFG, "rank"))[1]
    assert ranks[:2] == [1.0, 2.0] and math.isnan(ranks[2])
    kind, v = quantity_values(s, parse_quantity(CFG, "attr:params", ATTRS), ATTRS)
    assert kind == NUMBER and v == [1000.0, 2e7, 3e9]
    kind, v = quantity_values(s, parse_quantity(CFG, "attr:date", ATTRS), ATTRS)
    assert kind == DATE and v == ["2024-01-05", "2023-11-30", None]
    assert quantity_values(s, parse_quantity(CFG, "attr:family", ATTRS), ATTRS) == (
        CATEGORY,
        ["x", "y", "x"],
    )


def test_attribute_kind():
    assert attribute_kind(pd.Series(["1", " 2.5", None])) == NUMBER
    assert attribute_kind(pd.Series(["2024-02-01", "2024-03"])) == DATE
    assert attribute_kind(pd.Series(["2024-02-01", "soon"])) == CATEGORY
    assert attribute_kind(pd.Series([None, ""])) == CATEGORY


def test_options_and_compare_rows():
    opts = [v for v, _ in quantity_options(CFG, ATTRS)]
    assert opts[:4] == ["overall", "rank", "Cat", "Cat/B1"]
    assert "raw:Cat/B2/F1" in opts and "attr:family" in opts
    rows = compare_rows(mpl.score(RAW, CFG), ["b", "a"])
    assert [r["path"] for r in rows] == [
        "",
        "Cat",
        "Cat/B1",
        "Cat/B1/MAE",
        "Cat/B1/R2",
        "Cat/B2",
        "Cat/B2/F1",
    ]
    assert rows[0]["scores"] == pytest.approx([0.375, 0.8125])
    assert rows[3]["raw"] == [0.5, 0.25] and rows[3]["unit"] == "eV"
