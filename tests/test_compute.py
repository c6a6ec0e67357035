"""ml_peg_like.compute (+ cli_compute, io.extxyz): predictions table + SPEC -> raw metrics."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ml_peg_like import metrics as m
from ml_peg_like.cli.compute import add_parser as add_compute_parser
from ml_peg_like.cli.compute import run as run_compute
from ml_peg_like.compute import (
    MISSING_METRIC,
    compute_raw_metrics,
    load_predictions,
    load_spec,
    spec_from_dict,
    write_raw_metrics,
)
from ml_peg_like.errors import ConfigError, DataError
from ml_peg_like.io.extxyz import parse_comment_line, read_extxyz_energies


def value(out: pd.DataFrame, model: str, bench: str, metric: str) -> float:
    sel = out[(out.model == model) & (out.benchmark == bench) & (out.metric == metric)]
    assert len(sel) == 1, (model, bench, metric, sel)
    return float(sel.value.iloc[0])


def scalar_table() -> pd.DataFrame:
    # model A: residuals -1, 0, 1, 2 on E (n_atoms 1, 4, 1, 4); model B: 0, 0, 0, 4
    return pd.DataFrame(
        {
            "model": ["A"] * 4 + ["B"] * 4,
            "benchmark": ["E"] * 8,
            "sample": ["s1", "s2", "s3", "s4"] * 2,
            "reference": [1.0, 2.0, 3.0, 4.0] * 2,
            "prediction": [2.0, 2.0, 2.0, 2.0, 1.0, 2.0, 3.0, 0.0],
            "n_atoms": [1, 4, 1, 4] * 2,
            "weight": [2.0] * 8,
        }
    )


SCALAR_SPEC = {
    "benchmarks": {
        "E": {
            "metrics": [
                {"name": "MAE", "fn": "mae"},
                {"name": "RMSE", "fn": "rmse"},
                {"name": "MAE/sqrt(N)", "fn": "mae", "per_atom": "sqrt"},
                {"name": "MAE/N", "fn": "mae", "per_atom": "n", "scale": 1000},
                {"name": "wMAE", "fn": "mae", "weighted": True},
                {"name": "wRMSE", "fn": "rmse", "weighted": True},
                {"name": "Max", "fn": "max_abs_error"},
                {"name": "MAPE", "fn": "mape"},
                {"name": "R2", "fn": "r2"},
            ]
        }
    }
}


def test_scalar_metrics_by_hand():
    out = compute_raw_metrics(scalar_table(), SCALAR_SPEC)
    assert list(out.columns) == ["model", "benchmark", "metric", "value"]
    assert value(out, "A", "E", "MAE") == pytest.approx(1.0)
    assert value(out, "A", "E", "RMSE") == pytest.approx(math.sqrt(1.5))
    # |r| / sqrt(n): 1/1, 0/2, 1/1, 2/2 -> 3/4 ; |r| / n: 1, 0, 1, 0.5 -> 2.5/4 (x 1000)
    assert value(out, "A", "E", "MAE/sqrt(N)") == pytest.approx(0.75)
    assert value(out, "A", "E", "MAE/N") == pytest.approx(625.0)
    assert value(out, "A", "E", "wMAE") == pytest.approx(2.0)  # weights 2: not normalised
    assert value(out, "A", "E", "wRMSE") == pytest.approx(2 * math.sqrt(1.5))
    assert value(out, "A", "E", "Max") == 2.0
    assert value(out, "A", "E", "MAPE") == pytest.approx(100 * (1 + 0 + 1 / 3 + 1 / 2) / 4)
    assert value(out, "A", "E", "R2") == pytest.approx(1 - 6 / 5)
    assert value(out, "B", "E", "MAE") == pytest.approx(1.0)
    assert value(out, "B", "E", "RMSE") == pytest.approx(2.0)
    assert value(out, "B", "E", "Max") == 4.0
    assert value(out, "A", "E", MISSING_METRIC) == 0.0
    # order: model (first appearance), benchmark, metric (spec order) + missing fraction
    names = [d["name"] for d in SCALAR_SPEC["benchmarks"]["E"]["metrics"]]
    assert out.metric.tolist() == (names + [MISSING_METRIC]) * 2
    assert out.model.tolist() == ["A"] * 10 + ["B"] * 10


def test_categorical_and_string_columns_give_the_same_result():
    df = scalar_table()
    cat = df.astype({"model": "category", "benchmark": "category"})
    cat["model"] = cat["model"].cat.set_categories(["B", "A", "unused"])  # odd category order
    a = compute_raw_metrics(df, SCALAR_SPEC)
    b = compute_raw_metrics(cat, SCALAR_SPEC)
    pd.testing.assert_frame_equal(a, b)


def test_vector_benchmark():
    df = pd.DataFrame(
        {
            "model": ["A", "A"],
            "benchmark": ["F", "F"],
            "sample": [0, 1],
            "reference_x": [0.0, 0.0],
            "reference_y": [0.0, 0.0],
            "reference_z": [0.0, 0.0],
            "prediction_x": [3.0, 0.0],
            "prediction_y": [4.0, 0.0],
            "prediction_z": [0.0, 1.0],
        }
    )
    spec = {
        "benchmarks": {
            "F": {
                "vector": True,
                "metrics": [
                    {"name": "MAE", "fn": "vector_mae"},
                    {"name": "RMSE", "fn": "vector_rmse", "mode": "magnitude"},
                    {"name": "cMAE", "fn": "vector_mae", "mode": "component"},
                    {"name": "cRMSE", "fn": "vector_rmse", "mode": "component"},
                ],
            }
        }
    }
    out = compute_raw_metrics(df, spec)
    assert value(out, "A", "F", "MAE") == pytest.approx(3.0)
    assert value(out, "A", "F", "RMSE") == pytest.approx(math.sqrt(13))
    assert value(out, "A", "F", "cMAE") == pytest.approx(8 / 6)
    assert value(out, "A", "F", "cRMSE") == pytest.approx(math.sqrt(13) / math.sqrt(3))


def test_lips_metrics():
    ref = np.arange(1.0, 11.0)
    pred = ref * 1.1
    pred[-1] = 12.0
    pred[0] = -0.5  # one negative current
    lines = pd.DataFrame(
        {"model": "M", "benchmark": "A", "sample": range(10), "reference": ref, "prediction": pred}
    )
    disc = pd.DataFrame(  # disconnected lines: reference 0, prediction should be 0
        {
            "model": "M",
            "benchmark": "A",
            "sample": range(10, 14),
            "reference": 0.0,
            "prediction": [0.0, 0.0, 1e-9, 2.0],
        }
    )
    df = pd.concat([lines, disc], ignore_index=True)
    spec = {
        "benchmarks": {
            "A": {
                "metrics": [
                    {"name": "MAPE90", "fn": "mape90"},
                    {"name": "MAPE10", "fn": "mape_top_quantile", "quantile": 0.1},
                    {"name": "P1", "fn": "share_negative"},
                    {"name": "P4", "fn": "share_nonzero"},
                    {"name": "P4 tol", "fn": "share_nonzero", "tol": 1e-6},
                    {"name": "P4 all", "fn": "share_nonzero", "where": "all"},
                ]
            }
        }
    }
    out = compute_raw_metrics(df, spec)
    # 14 samples: k = floor(0.1 * 14) = 1 -> only ref = 10 (20 %)
    assert value(out, "M", "A", "MAPE90") == pytest.approx(20.0)
    # k = floor(0.9 * 14) = 12: the 10 lines + 2 of the zeros; with ties all 4 zeros are kept
    ape = [150.0] + [10.0] * 8 + [20.0] + [0.0, 0.0, math.inf, math.inf]
    assert value(out, "M", "A", "MAPE10") == np.mean(ape)
    assert value(out, "M", "A", "P1") == pytest.approx(1 / 14)
    assert value(out, "M", "A", "P4") == pytest.approx(0.5)
    assert value(out, "M", "A", "P4 tol") == pytest.approx(0.25)
    assert value(out, "M", "A", "P4 all") == pytest.approx(12 / 14)
    direct = m.mape_top_quantile(lines.reference, lines.prediction, 0.1)
    sub = compute_raw_metrics(lines, {"benchmarks": {"A": {"metrics": [{"fn": "mape10"}]}}})
    assert value(sub, "M", "A", "mape10") == pytest.approx(direct)


def test_uai_metrics():
    df = pd.DataFrame(
        {
            "model": ["S", "S", "T", "T"],
            "benchmark": ["PR"] * 4,
            "sample": ["i1", "i2"] * 2,
            "reference": [1e5, -3.0, 1e5, -3.0],  # log Z*
            "prediction": [1e5 - 2.0, -2.0, 1e5, -7.0],  # log Z_hat
        }
    )
    spec = {
        "benchmarks": {
            "PR": {
                "metrics": [
                    {"name": "Err", "fn": "log_partition_error"},
                    {"name": "MPE", "fn": "mpe_error"},
                ]
            }
        }
    }
    with np.errstate(all="raise"):
        out = compute_raw_metrics(df, spec)
    assert value(out, "S", "PR", "Err") == pytest.approx(1.5)  # (2 + 1) / 2
    assert value(out, "T", "PR", "Err") == pytest.approx(2.0)  # (0 + 4) / 2
    assert value(out, "S", "PR", "MPE") == pytest.approx(0.5)  # (2 - 1) / 2


def distribution_table() -> pd.DataFrame:
    rows = []
    p_true = [[1.0, 0.0], [0.5, 0.25, 0.25], [1.0, 0.0]]
    preds = {
        "Q": [[0.0, 1.0], [0.5, 0.25, 0.25], [0.5, 0.5]],
        "R": [[1.0, 0.0], [0.5, 0.25, 0.25], [1.0, 0.0]],
    }
    for model, p_pred in preds.items():
        for v, (pt, pp) in enumerate(zip(p_true, p_pred, strict=True)):
            for s, (a, b) in enumerate(zip(pt, pp, strict=True)):
                rows.append((model, "MAR", f"var{v}", s, a, b))
    return pd.DataFrame(
        rows, columns=["model", "benchmark", "sample", "state", "reference", "prediction"]
    )


DIST_SPEC = {
    "benchmarks": {
        "MAR": {"kind": "distribution", "metrics": [{"name": "H", "fn": "mean_hellinger"}]}
    }
}


def test_distribution_benchmark_hellinger():
    out = compute_raw_metrics(distribution_table(), DIST_SPEC)
    h = math.sqrt(1 - math.sqrt(2) / 2)
    assert value(out, "Q", "MAR", "H") == pytest.approx((1 + 0 + h) / 3)
    assert value(out, "R", "MAR", "H") == 0.0


def test_distribution_missing_state_makes_the_variable_missing():
    df = distribution_table()
    df.loc[(df.model == "Q") & (df["sample"] == "var2") & (df.state == 1), "prediction"] = np.nan
    out = compute_raw_metrics(df, {**DIST_SPEC, "max_missing": 0.5})
    assert value(out, "Q", "MAR", MISSING_METRIC) == pytest.approx(1 / 3)
    assert value(out, "Q", "MAR", "H") == pytest.approx(0.5)  # mean(1, 0): var2 dropped
    assert value(out, "R", "MAR", MISSING_METRIC) == 0.0


def test_missing_predictions_are_counted_and_reported():
    df = scalar_table()
    df.loc[1, "prediction"] = np.nan  # A misses s2
    df = df.drop(index=7)  # B has no row for s4
    out = compute_raw_metrics(df, SCALAR_SPEC)  # default max_missing 0
    assert value(out, "A", "E", MISSING_METRIC) == 0.25
    assert value(out, "B", "E", MISSING_METRIC) == 0.25
    assert math.isnan(value(out, "A", "E", "MAE"))
    lenient = compute_raw_metrics(df, {**SCALAR_SPEC, "max_missing": 0.25})
    assert value(lenient, "A", "E", "MAE") == pytest.approx(4 / 3)  # (1 + 1 + 2) / 3
    assert value(lenient, "B", "E", "MAE") == 0.0
    per_bench = {"benchmarks": {"E": {**SCALAR_SPEC["benchmarks"]["E"], "max_missing": 0.2}}}
    assert math.isnan(value(compute_raw_metrics(df, per_bench), "A", "E", "MAE"))


def test_model_without_rows_for_a_benchmark_is_fully_missing():
    df = pd.concat(
        [
            scalar_table(),
            pd.DataFrame(
                {
                    "model": ["C"],
                    "benchmark": ["G"],
                    "sample": ["x"],
                    "reference": [1.0],
                    "prediction": [1.0],
                }
            ),
        ],
        ignore_index=True,
    )
    spec = {
        "benchmarks": {
            **SCALAR_SPEC["benchmarks"],
            "G": {"metrics": [{"name": "MAE", "fn": "mae"}]},
        }
    }
    out = compute_raw_metrics(df, spec)
    assert value(out, "C", "E", MISSING_METRIC) == 1.0
    assert math.isnan(value(out, "C", "E", "MAE"))
    assert value(out, "A", "G", MISSING_METRIC) == 1.0
    assert value(out, "C", "G", "MAE") == 0.0
    assert len(out) == 3 * (10 + 2)  # every model x every benchmark


# ------------------------------------------------------------------------------------------------
# vectorised result == the metric functions applied group by group
# ------------------------------------------------------------------------------------------------

PROPERTY_SPEC = {
    "max_missing": 1,
    "benchmarks": {
        "b0": {
            "metrics": [
                {"fn": "mae"},
                {"fn": "rmse", "weighted": True},
                {"fn": "max_abs_error", "per_atom": "n"},
                {"fn": "mape90"},
                {"fn": "mape10"},
                {"fn": "r2"},
                {"fn": "share_negative"},
            ]
        },
        "b1": {"metrics": [{"fn": "mae", "per_atom": "sqrt"}, {"fn": "mape90"}, {"fn": "mape"}]},
    },
}


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 30), st.floats(0, 0.5))
def test_vectorised_equals_per_group_functions(seed, n_models, n_samples, p_missing):
    rng = np.random.default_rng(seed)
    parts = []
    for bench in ("b0", "b1"):
        for k in range(n_models):
            parts.append(
                pd.DataFrame(
                    {
                        "model": f"m{k}",
                        "benchmark": bench,
                        "sample": np.arange(n_samples),
                        "reference": np.round(rng.normal(size=n_samples), 1),
                        "prediction": rng.normal(size=n_samples),
                        "n_atoms": rng.integers(1, 50, size=n_samples),
                        "weight": rng.uniform(0, 2, size=n_samples),
                    }
                )
            )
    df = pd.concat(parts, ignore_index=True).sample(frac=1, random_state=seed % 1000)
    df.loc[rng.random(len(df)) < p_missing, "prediction"] = np.nan
    out = compute_raw_metrics(df, PROPERTY_SPEC)
    for (model, bench), d in df.groupby(["model", "benchmark"]):
        r, p = d.reference.to_numpy(), d.prediction.to_numpy()
        n, w = d.n_atoms.to_numpy(), d.weight.to_numpy()
        ok = np.isfinite(p)
        assert value(out, model, bench, MISSING_METRIC) == pytest.approx(1 - ok.mean())
        if not ok.any():
            assert math.isnan(value(out, model, bench, "mae" if bench == "b0" else "mape"))
            continue
        r, p, n, w = r[ok], p[ok], n[ok], w[ok]
        expect = (
            {
                "mae": m.mae(r, p),
                "rmse": m.rmse(r, p, w),
                "max_abs_error": m.max_abs_error(m.per_atom(r, n), m.per_atom(p, n)),
                "mape90": m.mape_top_quantile(r, p, 0.9),
                "mape10": m.mape_top_quantile(r, p, 0.1),
                "r2": m.r2(r, p),
                "share_negative": m.share_negative(p),
            }
            if bench == "b0"
            else {
                "mae": m.mae(m.per_sqrt_atom(r, n), m.per_sqrt_atom(p, n)),
                "mape90": m.mape_top_quantile(r, p, 0.9),
                "mape": m.mape(r, p),
            }
        )
        for metric, v in expect.items():
            got = value(out, model, bench, metric)
            if math.isnan(v):
                assert math.isnan(got), (metric, got)
            else:
                assert got == pytest.approx(v, rel=1e-9, abs=1e-12), (model, bench, metric)


def mixed_table() -> tuple[pd.DataFrame, dict]:
    """Scalar, vector and distribution benchmarks in one table, with missing values."""
    scalar = scalar_table().drop(columns=["n_atoms", "weight"])
    scalar.loc[1, "prediction"] = np.nan
    vec = pd.DataFrame(
        {
            "model": ["A", "A", "B", "B"],
            "benchmark": "F",
            "sample": ["a0", "a1"] * 2,
            "reference_x": 0.0,
            "reference_y": 0.0,
            "reference_z": 0.0,
            "prediction_x": [3.0, 0.0, 1.0, 2.0],
            "prediction_y": [4.0, 0.0, np.nan, 0.0],
            "prediction_z": [0.0, 1.0, 0.0, 0.0],
        }
    )
    dist = distribution_table().rename(columns={"model": "m"})
    dist["model"] = dist.pop("m").map({"Q": "A", "R": "B"})
    dist.loc[
        (dist.model == "B") & (dist["sample"] == "var0") & (dist.state == 0), "prediction"
    ] = -0.1
    spec = {
        "max_missing": 1,
        "benchmarks": {
            "E": {
                "metrics": [{"name": "MAE", "fn": "mae"}, {"name": "Max", "fn": "max_abs_error"}]
            },
            "F": {"kind": "vector", "metrics": [{"name": "MAE", "fn": "vector_mae"}]},
            "MAR": {"kind": "distribution", "metrics": [{"name": "H", "fn": "mean_hellinger"}]},
        },
    }
    return pd.concat([scalar, vec, dist], ignore_index=True), spec


def check_mixed(out: pd.DataFrame) -> None:
    h = math.sqrt(1 - math.sqrt(2) / 2)
    assert value(out, "A", "E", "MAE") == pytest.approx(4 / 3)
    assert value(out, "A", "E", "Max") == 2.0
    assert value(out, "A", "E", MISSING_METRIC) == 0.25
    assert value(out, "A", "F", "MAE") == pytest.approx(3.0)
    assert value(out, "B", "F", "MAE") == pytest.approx(2.0)  # a NaN component: sample missing
    assert value(out, "B", "F", MISSING_METRIC) == 0.5
    assert value(out, "A", "MAR", "H") == pytest.approx((1 + 0 + h) / 3)
    assert value(out, "B", "MAR", "H") == 0.0  # var0 has a negative probability: missing
    assert value(out, "B", "MAR", MISSING_METRIC) == pytest.approx(1 / 3)


def test_mixed_kinds_in_one_table():
    df, spec = mixed_table()
    check_mixed(compute_raw_metrics(df, spec))
    check_mixed(compute_raw_metrics(df.sample(frac=1, random_state=3), spec))


def test_sparse_key_path_gives_the_same_result(monkeypatch):
    from ml_peg_like.compute import segments

    df, spec = mixed_table()
    dense = compute_raw_metrics(df, spec)
    monkeypatch.setattr(segments, "DENSE_FACTOR", 0)
    monkeypatch.setattr(segments, "DENSE_MIN", 0)
    sparse = compute_raw_metrics(df, spec)
    pd.testing.assert_frame_equal(dense, sparse)
    check_mixed(sparse)
    dup = pd.concat([scalar_table(), scalar_table().iloc[[2]]], ignore_index=True)
    with pytest.raises(DataError, match="duplicate"):
        compute_raw_metrics(dup, SCALAR_SPEC)


def test_models_are_listed_in_order_of_first_appearance():
    df = scalar_table().iloc[[4, 0, 5, 1, 6, 2, 7, 3]]  # B first, interleaved
    for table in (df, df.astype({"model": "category"})):
        out = compute_raw_metrics(table, SCALAR_SPEC)
        assert out.model.drop_duplicates().tolist() == ["B", "A"]
    cat = df.astype({"model": pd.CategoricalDtype(["zzz", "A", "B"])})  # unused category
    out = compute_raw_metrics(cat, SCALAR_SPEC)
    assert out.model.drop_duplicates().tolist() == ["B", "A"]


# ------------------------------------------------------------------------------------------------
# SPEC validation
# ------------------------------------------------------------------------------------------------

BAD_SPEC = """\
max_missing: 2
benchmarks:
  E:
    metrics:
      - {name: MAE, fn: maes}
      - {name: RMSE, fn: rmse, per_atom: cube}
      - {name: RMSE, fn: rmse}
      - {name: missing fraction, fn: mae}
      - {name: F, fn: vector_mae}
      - {name: Q, fn: mape_top_quantile}
      - {name: Q2, fn: mape_top_quantile, quantile: 90}
      - {name: W, fn: mae, colour: red}
  F:
    vector: true
    kind: scalar
    metrics: []
"""


def test_spec_reports_every_problem_with_its_line(tmp_path):
    path = tmp_path / "spec.yml"
    path.write_text(BAD_SPEC)
    with pytest.raises(ConfigError) as exc:
        load_spec(path)
    lines = exc.value.lines()
    text = "\n".join(lines)
    expected = [
        ("spec.yml:1 max_missing", "fraction"),
        ("spec.yml:5 benchmarks.E.metrics[0].fn", "unknown fn 'maes'"),
        ("spec.yml:6 benchmarks.E.metrics[1].per_atom", "cube"),
        ("spec.yml:7 benchmarks.E.metrics[2].name", "used twice"),
        ("spec.yml:8 benchmarks.E.metrics[3].name", "reserved"),
        ("spec.yml:9 benchmarks.E.metrics[4].fn", "needs a vector benchmark"),
        ("spec.yml:10 benchmarks.E.metrics[5]", "needs 'quantile'"),
        ("spec.yml:11 benchmarks.E.metrics[6].quantile", "(0, 1)"),
        ("spec.yml:12 benchmarks.E.metrics[7].colour", "unknown key"),
        ("spec.yml:14 benchmarks.F.vector", "contradicts"),
        ("spec.yml:16 benchmarks.F.metrics", "non-empty list"),
    ]
    for where, msg in expected:
        assert any(where in line and msg in line for line in lines), (where, msg, text)
    assert len(lines) == len(expected), text


def test_spec_from_dict_errors_and_defaults():
    with pytest.raises(ConfigError, match="benchmarks"):
        spec_from_dict({"benchmark": {}})
    with pytest.raises(ConfigError, match="mapping"):
        spec_from_dict([1, 2])
    spec = spec_from_dict({"benchmarks": {"E": {"metrics": [{"fn": "mae"}, {"fn": "mape90"}]}}})
    b = spec.benchmark("E")
    assert b.kind == "scalar" and b.max_missing == 0.0
    assert [x.name for x in b.metrics] == ["mae", "mape90"]
    assert b.metrics[1].fn == "mape_top_quantile" and b.metrics[1].quantile == 0.9


def test_invalid_yaml_is_a_config_error(tmp_path):
    path = tmp_path / "spec.yml"
    path.write_text("benchmarks: {E: [\n")
    with pytest.raises(ConfigError) as exc:
        load_spec(path)
    assert "spec.yml" in exc.value.lines()[0]
    with pytest.raises(ConfigError, match="cannot read"):
        load_spec(tmp_path / "absent.yml")


# ------------------------------------------------------------------------------------------------
# predictions validation
# ------------------------------------------------------------------------------------------------

SPEC_E = {"benchmarks": {"E": {"metrics": [{"name": "MAE", "fn": "mae", "per_atom": "n"}]}}}


def write(tmp_path, text: str) -> Path:
    p = tmp_path / "pred.csv"
    p.write_text(text)
    return p


def test_data_errors_name_file_and_line(tmp_path):
    p = write(
        tmp_path,
        "model,benchmark,sample,reference,prediction,n_atoms\n"
        "A,E,1,1.0,1.5,2\n"
        "A,E,2,abc,1.5,2\n"
        "A,E,3,1.0,oops,2\n",
    )
    with pytest.raises(DataError) as exc:
        compute_raw_metrics(load_predictions(p), SPEC_E)
    lines = exc.value.lines()
    assert any("pred.csv:3" in x and "'abc' is not a number" in x for x in lines), lines
    assert any("pred.csv:4" in x and "'oops'" in x for x in lines), lines


def test_data_errors_references_atoms_duplicates(tmp_path):
    p = write(
        tmp_path,
        "model,benchmark,sample,reference,prediction,n_atoms\n"
        "A,E,1,1.0,1.5,2\n"
        "A,E,2,,1.5,2\n"
        "A,E,3,1.0,1.5,0\n",
    )
    with pytest.raises(DataError) as exc:
        compute_raw_metrics(load_predictions(p), SPEC_E)
    lines = exc.value.lines()
    assert any("pred.csv:3" in x and "reference is missing" in x for x in lines), lines
    assert any("pred.csv:4" in x and "n_atoms" in x for x in lines), lines
    p = write(
        tmp_path, "model,benchmark,sample,reference,prediction,n_atoms\nA,E,1,1,1,1\nA,E,1,1,2,1\n"
    )
    with pytest.raises(DataError, match="duplicate"):
        compute_raw_metrics(load_predictions(p), SPEC_E)


def test_data_errors_columns_and_benchmarks(tmp_path):
    p = write(tmp_path, "model,benchmark,sample,reference,prediction\nA,E,1,1,1\nA,X,1,1,1\n")
    with pytest.raises(DataError) as exc:
        compute_raw_metrics(load_predictions(p), SPEC_E)
    lines = exc.value.lines()
    assert any("'X'" in x and "not in the spec" in x for x in lines), lines
    spec2 = {"benchmarks": {"E": {"metrics": [{"fn": "mae"}]}, "Y": {"metrics": [{"fn": "mae"}]}}}
    with pytest.raises(DataError) as exc:
        compute_raw_metrics(load_predictions(p), spec2)
    assert any("'Y' has no rows" in x for x in exc.value.lines())
    with pytest.raises(DataError, match="missing column 'sample'"):
        compute_raw_metrics(pd.DataFrame({"model": ["A"], "benchmark": ["E"]}), SPEC_E)
    df = pd.DataFrame(
        {"model": ["A"], "benchmark": ["E"], "sample": [1], "reference": [1.0], "prediction": [1.0]}
    )
    with pytest.raises(DataError, match="missing column 'n_atoms'"):
        compute_raw_metrics(df, SPEC_E)
    with pytest.raises(DataError, match="no such file"):
        load_predictions(tmp_path / "absent.csv")
    with pytest.raises(DataError, match="empty"):
        load_predictions(write(tmp_path, ""))


def test_dataframe_errors_name_rows():
    df = pd.DataFrame(
        {
            "model": ["A", "A"],
            "benchmark": ["E", "E"],
            "sample": [1, 2],
            "reference": [1.0, np.nan],
            "prediction": [1.0, 1.0],
        }
    )
    with pytest.raises(DataError) as exc:
        compute_raw_metrics(df, {"benchmarks": {"E": {"metrics": [{"fn": "mae"}]}}})
    assert exc.value.lines() == [
        "row 1: reference is missing or not finite (references must be given)"
    ]


def test_share_negative_needs_no_reference():
    df = pd.DataFrame(
        {"model": ["A", "A"], "benchmark": ["V", "V"], "sample": [1, 2], "prediction": [-1.0, 1.0]}
    )
    out = compute_raw_metrics(
        df, {"benchmarks": {"V": {"metrics": [{"name": "P2", "fn": "share_negative"}]}}}
    )
    assert value(out, "A", "V", "P2") == 0.5


def test_parquet_without_pyarrow_is_a_clear_error(tmp_path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        p = tmp_path / "pred.parquet"
        p.write_bytes(b"PAR1")
        with pytest.raises(DataError, match="needs pyarrow"):
            load_predictions(p)
    else:
        df = scalar_table()
        p = tmp_path / "pred.parquet"
        df.to_parquet(p)
        out = compute_raw_metrics(load_predictions(p), SCALAR_SPEC)
        pd.testing.assert_frame_equal(out, compute_raw_metrics(df, SCALAR_SPEC))


# ------------------------------------------------------------------------------------------------
# CSV out and the CLI
# ------------------------------------------------------------------------------------------------


def cli(argv):
    parser = argparse.ArgumentParser(prog="ml-peg-like")
    sub = parser.add_subparsers(dest="command", required=True)
    add_compute_parser(sub)
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_compute_writes_raw_metrics_readable_by_the_engine(tmp_path, capsys):
    pred = tmp_path / "pred.csv"
    df = scalar_table()
    df.loc[0, "prediction"] = np.nan
    df.to_csv(pred, index=False)
    spec = tmp_path / "spec.yml"
    spec.write_text("benchmarks:\n  E:\n    metrics:\n      - {name: MAE, fn: mae}\n")
    out = tmp_path / "raw_metrics.csv"
    assert cli(["compute", str(pred), "--spec", str(spec), "--out", str(out)]) == 0
    text = out.read_text().splitlines()
    assert text[0] == "model,benchmark,metric,value"
    assert text[1] == "A,E,MAE,"  # missing -> empty cell
    assert text[2] == "A,E,missing fraction,0.25"
    assert text[3] == "B,E,MAE,1.0"
    from ml_peg_like.config import loads_config
    from ml_peg_like.raw import load_raw

    cfg = loads_config(
        "categories:\n  C:\n    benchmarks:\n      E:\n        metrics:\n"
        "          MAE: {good: 0, bad: 2}\n"
        "          missing fraction: {good: 0, bad: 1, weight: 0}\n"
    )
    raw = load_raw(out, cfg)
    assert raw.models == ("A", "B")
    assert "computed 4 raw values" in capsys.readouterr().out


def test_cli_compute_errors_exit_2_one_line_each(tmp_path, capsys):
    spec = tmp_path / "spec.yml"
    spec.write_text(
        "benchmarks:\n  E:\n    metrics:\n      - {fn: nope}\n      - {fn: mae, mode: x}\n"
    )
    pred = tmp_path / "pred.csv"
    pred.write_text("model,benchmark,sample,reference,prediction\nA,E,1,1,1\n")
    assert cli(["compute", str(pred), "--spec", str(spec), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(e.startswith("error: ") for e in err)
    assert "Traceback" not in "\n".join(err)
    spec.write_text("benchmarks:\n  E:\n    metrics:\n      - {fn: mae}\n")
    assert cli(["compute", str(tmp_path / "no.csv"), "--spec", str(spec)]) == 2
    assert "no such file" in capsys.readouterr().err
    args = ["compute", str(pred), "--spec", str(spec), "--out", str(tmp_path / "no" / "dir.csv")]
    assert cli(args) == 2
    assert "cannot write" in capsys.readouterr().err


def test_cli_stdout(tmp_path, capsys):
    spec = tmp_path / "spec.yml"
    spec.write_text("benchmarks:\n  E:\n    metrics:\n      - {fn: mae}\n")
    pred = tmp_path / "pred.csv"
    pred.write_text("model,benchmark,sample,reference,prediction\nA,E,001,1,3\n")
    assert run_compute(argparse.Namespace(predictions=str(pred), spec=str(spec), out="-")) == 0
    assert capsys.readouterr().out.splitlines() == [
        "model,benchmark,metric,value",
        "A,E,mae,2.0",
        "A,E,missing fraction,0.0",
    ]


def test_write_raw_metrics_error(tmp_path):
    with pytest.raises(DataError, match="cannot write"):
        write_raw_metrics(pd.DataFrame({"a": [1]}), tmp_path / "no" / "x.csv")


# ------------------------------------------------------------------------------------------------
# extended XYZ
# ------------------------------------------------------------------------------------------------


def test_parse_comment_line():
    line = (
        'Lattice="1 0 0 0 1 0 0 0 1" Properties=species:S:1:pos:R:3 Energy=spin=1 charge=0 '
        'energy=-1.5 name="two words" stress="1 2 3 4 5 6" flag ok=T pbc="T T T"'
    )
    assert parse_comment_line(line) == {
        "Energy": "spin=1",
        "charge": 0,
        "energy": -1.5,
        "name": "two words",
        "flag": True,
        "ok": True,
    }


def test_python_reader_multi_frame_and_errors(tmp_path):
    p = tmp_path / "a.xyz"
    p.write_text("1\nenergy=-1.0\nH 0 0 0\n2\nenergy=-2.5 model_energy=-2.0\nH 0 0 0\nH 0 0 1\n")
    df = read_extxyz_energies(p, backend="python")
    assert df["frame"].tolist() == [0, 1]
    assert df["n_atoms"].tolist() == [1, 2]
    assert df["energy"].tolist() == [-1.0, -2.5]
    assert math.isnan(df["model_energy"][0]) and df["model_energy"][1] == -2.0
    p.write_text("3\nenergy=-1.0\nH 0 0 0\n")
    with pytest.raises(DataError, match="truncated"):
        read_extxyz_energies(p, backend="python")
    p.write_text("x\nenergy=-1.0\n")
    with pytest.raises(DataError, match=r"a.xyz:1"):
        read_extxyz_energies(p, backend="python")
    with pytest.raises(DataError, match="no such file"):
        read_extxyz_energies(tmp_path / "none.xyz")


@pytest.mark.anchors
def test_extxyz_anchors_python_parser_matches_ase(anchors):
    base = anchors / "ml-peg" / "tables"
    slabs = str(base / "physicality" / "extensivity" / "*" / "slabs.xyz")
    ionpi = str(base / "non_covalent_interactions" / "IONPI19" / "*" / "*.xyz")
    py_slabs = read_extxyz_energies(slabs, backend="python")
    assert len(py_slabs) >= 1 and (py_slabs["n_atoms"] > 0).all()
    assert np.isfinite(py_slabs["energy"]).all()
    py_ion = read_extxyz_energies(ionpi, backend="python")
    assert {"ref_int_energy", "model_energy", "energy"} <= set(py_ion.columns)
    assert np.isfinite(py_ion["ref_int_energy"]).all()
    np.testing.assert_allclose(py_ion["model_energy"], py_ion["energy"])
    try:
        import ase  # noqa: F401
    except ImportError:
        pytest.skip("ASE not installed: only the built-in parser was checked")
    for pattern, py in ((slabs, py_slabs), (ionpi, py_ion)):
        a = read_extxyz_energies(pattern, backend="ase")
        assert sorted(a.columns) == sorted(py.columns)
        pd.testing.assert_frame_equal(
            a[sorted(a.columns)], py[sorted(py.columns)], check_dtype=False
        )


# ------------------------------------------------------------------------------------------------
# huge residuals: the kernels stay finite like ml_peg_like.metrics
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("big", [1e200, 1e300])
def test_kernels_of_huge_residuals_are_finite_and_exact(big):
    df = pd.DataFrame(
        {
            "model": ["A", "A", "B", "B"],
            "benchmark": ["E"] * 4,
            "sample": ["s1", "s2"] * 2,
            "reference": [big, -big, 1.0, 2.0],
            "prediction": [0.0, 0.0, 1.0, 0.0],
            "n_atoms": [2, 2, 1, 1],
        }
    )
    spec = {
        "benchmarks": {
            "E": {
                "metrics": [
                    {"name": "RMSE", "fn": "rmse"},
                    {"name": "RMSE/N", "fn": "rmse", "per_atom": "n"},
                    {"name": "MAE", "fn": "mae"},
                ]
            }
        }
    }
    out = compute_raw_metrics(df, spec)
    assert value(out, "A", "E", "RMSE") == big  # sqrt((big^2 + big^2) / 2)
    assert value(out, "A", "E", "RMSE/N") == big / 2
    assert value(out, "A", "E", "MAE") == big
    assert value(out, "B", "E", "RMSE") == math.sqrt(2.0)  # other segments: plain formula


def test_vector_kernels_of_huge_residuals_are_finite_and_exact():
    df = pd.DataFrame(
        {
            "model": ["A", "A", "B", "B"],
            "benchmark": ["F"] * 4,
            "sample": ["s1", "s2"] * 2,
            "reference_x": [3e300, 0.0, 3.0, 0.0],
            "reference_y": [4e300, 0.0, 4.0, 0.0],
            "reference_z": [0.0] * 4,
            "prediction_x": [0.0] * 4,
            "prediction_y": [0.0] * 4,
            "prediction_z": [0.0] * 4,
        }
    )
    spec = {
        "benchmarks": {
            "F": {
                "vector": True,
                "metrics": [
                    {"name": "MAE", "fn": "vector_mae"},
                    {"name": "RMSE", "fn": "vector_rmse"},
                    {"name": "RMSE c", "fn": "vector_rmse", "mode": "component"},
                    {"name": "MAE c", "fn": "vector_mae", "mode": "component"},
                ],
            }
        }
    }
    out = compute_raw_metrics(df, spec)
    # lengths 5e300 and 0: MAE 2.5e300, RMSE sqrt(25e600 / 2), component RMSE / sqrt(3)
    assert value(out, "A", "F", "MAE") == 2.5e300
    assert value(out, "A", "F", "RMSE") == pytest.approx(5e300 / math.sqrt(2), rel=1e-15)
    assert value(out, "A", "F", "RMSE c") == pytest.approx(5e300 / math.sqrt(6), rel=1e-15)
    assert value(out, "A", "F", "MAE c") == pytest.approx(7e300 / 6, rel=1e-15)
    assert value(out, "B", "F", "MAE") == 2.5
    assert value(out, "B", "F", "RMSE") == math.sqrt(12.5)
    for metric in ("MAE", "RMSE", "RMSE c"):  # the kernels agree with ml_peg_like.metrics
        fn = m.vector_mae if metric.startswith("MAE") else m.vector_rmse
        mode = "component" if metric.endswith(" c") else "magnitude"
        ref = df[df.model == "A"][["reference_x", "reference_y", "reference_z"]].to_numpy()
        assert value(out, "A", "F", metric) == fn(ref, np.zeros((2, 3)), mode)


# ------------------------------------------------------------------------------------------------
# per-instance metrics: one raw value per instance, `instance` column
# ------------------------------------------------------------------------------------------------

SEED_002_ERRORS = {"A": [0.5, 2.0, 10.0], "B": [0.0, 4.0, 1.0], "trivial": [1.0, 4.0, 5.0]}


def seed_002_table() -> pd.DataFrame:
    # PR task: reference log Z* = 0, prediction log Z_hat = -Err, so |log Z* - log Z_hat| = Err
    rows = [
        (model, "PR", f"p{i + 1}", 0.0, -err)
        for model, errs in SEED_002_ERRORS.items()
        for i, err in enumerate(errs)
    ]
    return pd.DataFrame(rows, columns=["model", "benchmark", "sample", "reference", "prediction"])


SEED_002_SPEC = {
    "benchmarks": {
        "PR": {
            "metrics": [
                {"name": "Err", "fn": "log_partition_error", "per_instance": True},
                {"name": "mean Err", "fn": "log_partition_error"},
            ]
        }
    }
}


def test_per_instance_metric_gives_one_row_per_instance(tmp_path):
    out = compute_raw_metrics(seed_002_table(), SEED_002_SPEC)
    assert list(out.columns) == ["model", "benchmark", "metric", "instance", "value"]
    per = out[out.metric == "Err"]
    assert per.instance.tolist() == ["p1", "p2", "p3"] * 3
    for model, errs in SEED_002_ERRORS.items():
        assert per[per.model == model].value.tolist() == errs
    # the other rows have no instance; the aggregate is still the mean error
    rest = out[out.metric != "Err"]
    assert rest.instance.isna().all()
    assert rest.metric.tolist() == ["mean Err", MISSING_METRIC] * 3
    assert value(out, "A", "PR", "mean Err") == pytest.approx(12.5 / 3)
    # seed 002: per-instance score max(0, 1 - Err / MaxErr) (MaxErr: trivial), then the mean
    wide = per.pivot(index="instance", columns="model", values="value")
    score = (1 - wide[["A", "B", "trivial"]].div(wide["trivial"], axis=0)).clip(lower=0).mean()
    assert score.round(4).tolist() == [round(1 / 3, 4), 0.6, 0.0]  # 33.3, 60, 0 (x 100)
    # the CSV: empty instance cells outside per-instance rows
    path = tmp_path / "raw.csv"
    write_raw_metrics(out, path)
    lines = path.read_text().splitlines()
    assert lines[:5] == [
        "model,benchmark,metric,instance,value",
        "A,PR,Err,p1,0.5",
        "A,PR,Err,p2,2.0",
        "A,PR,Err,p3,10.0",
        "A,PR,mean Err,,4.166666666666667",
    ]


def test_without_per_instance_metrics_there_is_no_instance_column():
    spec = {"benchmarks": {"PR": {"metrics": [{"fn": "log_partition_error"}]}}}
    out = compute_raw_metrics(seed_002_table(), spec)
    assert list(out.columns) == ["model", "benchmark", "metric", "value"]


def test_per_instance_missing_instance_and_integer_ids():
    df = seed_002_table()
    df["sample"] = [3, 1, 2] * 3  # integer ids: instances in increasing order
    df = df.drop(index=[4])  # B has no row for instance 1
    df.loc[8, "prediction"] = np.nan  # trivial's prediction for instance 2 is missing
    spec = {
        "max_missing": 0.5,
        "benchmarks": {
            "PR": {"metrics": [{"name": "Err", "fn": "log_partition_error", "per_instance": True}]}
        },
    }
    out = compute_raw_metrics(df, spec)
    per = out[out.metric == "Err"]
    assert per.instance.tolist() == ["1", "2", "3"] * 3
    got = {m: per[per.model == m].value.tolist() for m in ("A", "B", "trivial")}
    assert got["A"] == [2.0, 10.0, 0.5]
    assert math.isnan(got["B"][0]) and got["B"][1:] == [1.0, 0.0]  # no row for instance 1
    assert got["trivial"][0] == 4.0 and math.isnan(got["trivial"][1])
    assert value(out, "B", "PR", MISSING_METRIC) == pytest.approx(1 / 3)
    spec["max_missing"] = 0.2  # over the limit: every instance of the model is missing
    out = compute_raw_metrics(df, spec)
    assert out[(out.model == "B") & (out.metric == "Err")].value.isna().all()
    assert out[(out.model == "A") & (out.metric == "Err")].value.notna().all()


def test_per_instance_with_an_instance_column_groups_samples():
    # MAR: instance u1 has variables v1, v2 (two states each), instance u2 has v3
    df = pd.DataFrame(
        {
            "model": ["A"] * 6,
            "benchmark": ["MAR"] * 6,
            "instance": ["u1"] * 4 + ["u2"] * 2,
            "sample": ["v1", "v1", "v2", "v2", "v3", "v3"],
            "reference": [1.0, 0.0, 0.5, 0.5, 0.0, 1.0],
            "prediction": [0.0, 1.0, 0.5, 0.5, 0.0, 1.0],
        }
    )
    spec = {
        "benchmarks": {
            "MAR": {
                "kind": "distribution",
                "metrics": [{"name": "HErr", "fn": "mean_hellinger", "per_instance": True}],
            }
        }
    }
    out = compute_raw_metrics(df, spec)
    per = out[out.metric == "HErr"]
    # u1: mean of H(v1) = 1 (disjoint) and H(v2) = 0; u2: H(v3) = 0
    assert per.instance.tolist() == ["u1", "u2"]
    assert per.value.tolist() == [0.5, 0.0]
    with pytest.raises(ConfigError, match="per_instance"):
        spec_from_dict({"benchmarks": {"E": {"metrics": [{"fn": "mae", "per_instance": 1}]}}})
    df.loc[0, "instance"] = None
    with pytest.raises(DataError, match="empty instance id"):
        compute_raw_metrics(df, spec)
