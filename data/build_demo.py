#!/usr/bin/env python
"""Build the demo data set of ml_peg_like: 20 scikit-learn models on scikit-learn's toy data sets.

Writes ``config.yml``, ``raw_metrics.csv`` and ``models.csv`` (see docs/FORMATS.md) into ``--out``
(default: ``data/demo`` next to this script).

The scoring tree (every threshold and weight with its reason) is the YAML template
``demo_template.yml`` next to this script; the script keeps the models and the data sets, fills the
template with the split sizes and writes it as ``config.yml``. ``--config-only`` rewrites only
``config.yml`` from the template, without training (checked against the raw metrics in ``--out``).

Everything except run times is deterministic (fixed random seeds, single-threaded models).
Run times are real ``time.perf_counter`` measurements, so they vary a little between runs and
machines; they are rounded to 4 significant figures.

The scoring tree follows the LIPS / UAI competition scoring rules that inspired ml_peg_like:
- in-distribution ML metrics (Classification, Regression) on a stratified held-out test split;
- an out-of-distribution test split (LIPS "test_ood_dataset"): train on the samples whose
  shift feature is below its 80th percentile and test on the top 20 %, scored with traffic lights;
- physics-compliance-like checks (LIPS "physics compliance" proportions) on two synthetic data
  sets whose generating law is known (Friedman #1 and the RLC-circuit impedance of Friedman #2);
- speed-up against a slow reference model (LIPS: against the physical solver), with the Weibull
  score on predict time (seed 000) and the log10 score on fit time (seed 001);
- an error relative to the trivial solver's error (UAI seed 002) for MAE and log-loss.

Requires only numpy, pandas, pyyaml and scikit-learn.
"""

from __future__ import annotations

import os

# Single-threaded BLAS / OpenMP: faster and more reproducible on small data (set before numpy).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402
from sklearn import datasets  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.calibration import CalibratedClassifierCV  # noqa: E402
from sklearn.compose import TransformedTargetRegressor  # noqa: E402
from sklearn.dummy import DummyClassifier, DummyRegressor  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    AdaBoostClassifier,
    AdaBoostRegressor,
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.gaussian_process import (  # noqa: E402
    GaussianProcessClassifier,
    GaussianProcessRegressor,
)
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel  # noqa: E402
from sklearn.kernel_approximation import Nystroem  # noqa: E402
from sklearn.linear_model import (  # noqa: E402
    Lasso,
    LogisticRegression,
    Ridge,
    SGDClassifier,
    SGDRegressor,
)
from sklearn.metrics import (  # noqa: E402
    accuracy_score,
    f1_score,
    log_loss,
    mean_absolute_error,
    mean_squared_error,
    r2_score,
)
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor  # noqa: E402
from sklearn.neural_network import MLPClassifier, MLPRegressor  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import PolynomialFeatures, StandardScaler  # noqa: E402
from sklearn.svm import SVC, SVR, LinearSVC, LinearSVR  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402

SEED = 0
TEST_SIZE = 0.25
OOD_QUANTILE = 0.8  # train below the 80th percentile of the shift feature, test above
TIMING_REPEATS_FIT = 3  # fit time = min over up to 3 repeats (timing data sets only) ...
TIMING_BUDGET_FIT = 0.3  # ... stopping once the repeats have taken 0.3 s
TIMING_REPEATS_PREDICT = 7  # predict time = min over repeats

DUMMY = "Dummy (trivial)"


# ----------------------------------------------------------------------------------------------
# Models: one name per family, a classifier and a regressor each (None: does not apply)
# ----------------------------------------------------------------------------------------------


def _l1_logistic(**kw: Any) -> LogisticRegression:
    """L1 logistic regression across scikit-learn versions (``penalty`` is deprecated in 1.8+)."""
    if inspect.signature(LogisticRegression).parameters["penalty"].default == "deprecated":
        return LogisticRegression(l1_ratio=1.0, solver="saga", **kw)
    return LogisticRegression(penalty="l1", solver="saga", **kw)


def _scaled_y(model: Any) -> TransformedTargetRegressor:
    """Standardise the regression target too (SVR, MLP, SGD, GP need a target of unit scale)."""
    return TransformedTargetRegressor(regressor=model, transformer=StandardScaler())


def _gp_kernel() -> Any:
    return ConstantKernel(1.0) * RBF(length_scale=1.0) + WhiteKernel(noise_level=0.1)


@dataclass
class ModelSpec:
    name: str
    classifier: Any | None
    regressor: Any | None
    attrs: dict[str, str] = field(default_factory=dict)
    skip: dict[str, str] = field(default_factory=dict)  # data set -> reason it is not run


def model_specs() -> list[ModelSpec]:
    s = SEED
    sc = StandardScaler

    def spec(name, clf, reg, family, interpretable, probabilistic, notes, skip=None):
        attrs = {
            "family": family,
            "kind": "baseline"
            if family == "baseline"
            else (
                "parametric"
                if family in ("linear", "kernel approximation", "neural network")
                else "non-parametric"
            ),
            "interpretable": interpretable,
            "predict_proba": probabilistic,
            "classifier": type(_final(clf)).__name__ if clf is not None else "",
            "regressor": type(_final(reg)).__name__ if reg is not None else "",
            "notes": notes,
        }
        return ModelSpec(name, clf, reg, attrs, skip or {})

    return [
        spec(
            DUMMY,
            DummyClassifier(strategy="prior"),
            DummyRegressor(strategy="mean"),
            "baseline",
            "yes",
            "yes",
            "class prior / training mean: the trivial solver of the UAI score",
        ),
        spec(
            "Linear (L2)",
            make_pipeline(sc(), LogisticRegression(C=1.0, max_iter=5000)),
            make_pipeline(sc(), Ridge(alpha=1.0)),
            "linear",
            "yes",
            "yes",
            "logistic regression / ridge regression",
        ),
        spec(
            "Linear (L1)",
            make_pipeline(sc(), _l1_logistic(C=0.5, tol=1e-3, max_iter=5000, random_state=s)),
            make_pipeline(sc(), Lasso(alpha=0.05, max_iter=20000)),
            "linear",
            "yes",
            "yes",
            "sparse: L1-penalised logistic regression / lasso",
        ),
        spec(
            "Quadratic (L2)",
            make_pipeline(
                sc(), PolynomialFeatures(2), sc(), LogisticRegression(C=0.1, max_iter=5000)
            ),
            make_pipeline(sc(), PolynomialFeatures(2), sc(), Ridge(alpha=10.0)),
            "linear",
            "partly",
            "yes",
            "degree-2 polynomial features + L2 linear model",
        ),
        spec(
            "SGD linear",
            make_pipeline(sc(), SGDClassifier(loss="hinge", random_state=s)),
            _scaled_y(make_pipeline(sc(), SGDRegressor(random_state=s))),
            "linear",
            "yes",
            "no",
            "stochastic gradient descent, hinge / squared loss",
        ),
        spec(
            "Linear SVM",
            make_pipeline(sc(), LinearSVC(C=1.0, max_iter=20000, random_state=s)),
            _scaled_y(make_pipeline(sc(), LinearSVR(C=1.0, max_iter=20000, random_state=s))),
            "linear",
            "yes",
            "no",
            "no predict_proba: log-loss is missing",
        ),
        spec(
            "RBF SVM",
            make_pipeline(
                sc(),
                CalibratedClassifierCV(
                    SVC(C=10.0, random_state=s), method="sigmoid", cv=5, ensemble=False
                ),
            ),
            _scaled_y(make_pipeline(sc(), SVR(C=3.0, epsilon=0.05))),
            "kernel",
            "no",
            "yes",
            "probabilities by 5-fold Platt scaling (sigmoid calibration)",
        ),
        spec(
            "Nyström kernel",
            make_pipeline(
                sc(),
                Nystroem(n_components=100, random_state=s),
                LogisticRegression(C=1.0, max_iter=5000),
            ),
            make_pipeline(sc(), Nystroem(n_components=100, random_state=s), Ridge(alpha=0.1)),
            "kernel approximation",
            "no",
            "yes",
            "100 RBF Nyström features + linear model",
        ),
        spec(
            "Gaussian process",
            make_pipeline(sc(), GaussianProcessClassifier(1.0 * RBF(1.0), random_state=s)),
            make_pipeline(
                sc(), GaussianProcessRegressor(_gp_kernel(), normalize_y=True, random_state=s)
            ),
            "kernel",
            "no",
            "yes",
            "exact GP, O(n^3): not run on digits (too slow)",
            skip={"Digits": "GaussianProcessClassifier one-vs-rest on 10 classes: too slow"},
        ),
        spec(
            "k-nearest neighbours",
            make_pipeline(sc(), KNeighborsClassifier(n_neighbors=5)),
            make_pipeline(sc(), KNeighborsRegressor(n_neighbors=5)),
            "neighbours",
            "partly",
            "yes",
            "k = 5, Euclidean on standardised features",
        ),
        spec(
            "1-nearest neighbour",
            make_pipeline(sc(), KNeighborsClassifier(n_neighbors=1)),
            make_pipeline(sc(), KNeighborsRegressor(n_neighbors=1)),
            "neighbours",
            "partly",
            "yes",
            "k = 1: memorises the training set",
        ),
        spec(
            "Decision tree",
            DecisionTreeClassifier(random_state=s),
            DecisionTreeRegressor(random_state=s),
            "tree",
            "partly",
            "yes",
            "fully grown CART tree",
        ),
        spec(
            "Shallow tree (depth 3)",
            DecisionTreeClassifier(max_depth=3, random_state=s),
            DecisionTreeRegressor(max_depth=3, random_state=s),
            "tree",
            "yes",
            "yes",
            "at most 8 leaves: readable by hand",
        ),
        spec(
            "Random forest",
            RandomForestClassifier(n_estimators=100, random_state=s, n_jobs=1),
            RandomForestRegressor(n_estimators=100, random_state=s, n_jobs=1),
            "tree ensemble",
            "no",
            "yes",
            "100 trees",
        ),
        spec(
            "Extra trees",
            ExtraTreesClassifier(n_estimators=100, random_state=s, n_jobs=1),
            ExtraTreesRegressor(n_estimators=100, random_state=s, n_jobs=1),
            "tree ensemble",
            "no",
            "yes",
            "100 extremely randomised trees",
        ),
        spec(
            "Bagged trees",
            BaggingClassifier(
                DecisionTreeClassifier(random_state=s), n_estimators=30, random_state=s, n_jobs=1
            ),
            BaggingRegressor(
                DecisionTreeRegressor(random_state=s), n_estimators=30, random_state=s, n_jobs=1
            ),
            "tree ensemble",
            "no",
            "yes",
            "30 bootstrap-aggregated trees",
        ),
        spec(
            "AdaBoost",
            AdaBoostClassifier(n_estimators=100, random_state=s),
            AdaBoostRegressor(DecisionTreeRegressor(max_depth=3), n_estimators=100, random_state=s),
            "boosting",
            "no",
            "yes",
            "100 rounds (stumps / depth-3 trees)",
        ),
        spec(
            "Gradient boosting",
            GradientBoostingClassifier(n_estimators=100, max_features="sqrt", random_state=s),
            GradientBoostingRegressor(n_estimators=200, random_state=s),
            "boosting",
            "no",
            "yes",
            "depth-3 trees, learning rate 0.1 (classifier: sqrt(n) features per split)",
        ),
        spec(
            "Histogram gradient boosting",
            HistGradientBoostingClassifier(max_iter=100, max_leaf_nodes=15, random_state=s),
            HistGradientBoostingRegressor(max_iter=200, max_leaf_nodes=15, random_state=s),
            "boosting",
            "no",
            "yes",
            "binned features, 15 leaves per tree",
        ),
        spec(
            "Multilayer perceptron",
            make_pipeline(
                sc(),
                MLPClassifier(hidden_layer_sizes=(64,), alpha=1e-3, max_iter=1000, random_state=s),
            ),
            _scaled_y(
                make_pipeline(
                    sc(),
                    MLPRegressor(
                        hidden_layer_sizes=(64,), alpha=1.0, max_iter=2000, random_state=s
                    ),
                )
            ),
            "neural network",
            "no",
            "yes",
            "one hidden layer of 64 ReLU units, Adam; L2 alpha 1e-3 (classifier), 1.0 (regressor)",
        ),
    ]


def _final(est: Any) -> Any:
    """The last step of a pipeline / the wrapped regressor (for the models.csv attribute)."""
    if isinstance(est, TransformedTargetRegressor):
        est = est.regressor
    if hasattr(est, "steps"):
        est = est.steps[-1][1]
    if isinstance(est, CalibratedClassifierCV):
        est = est.estimator
    return est


# ----------------------------------------------------------------------------------------------
# Data sets and splits
# ----------------------------------------------------------------------------------------------


@dataclass
class DataSet:
    name: str
    task: str  # "classification" | "regression"
    X: np.ndarray
    y: np.ndarray
    source: str
    feature_names: list[str]
    ood_feature: int | None = None  # column whose top 20 % forms the OOD test set
    ood_label: str = ""


def load_datasets() -> list[DataSet]:
    out = []
    for name, loader in [
        ("Iris", datasets.load_iris),
        ("Wine", datasets.load_wine),
        ("Breast cancer", datasets.load_breast_cancer),
        ("Digits", datasets.load_digits),
    ]:
        b = loader()
        ds = DataSet(
            name,
            "classification",
            b.data.astype(float),
            b.target,
            f"sklearn.datasets.{loader.__name__}",
            list(map(str, b.feature_names)),
        )
        if name == "Breast cancer":
            ds.ood_feature, ds.ood_label = 1, "mean texture"
        out.append(ds)
    b = datasets.load_diabetes()
    out.append(
        DataSet(
            "Diabetes",
            "regression",
            b.data,
            b.target.astype(float),
            "sklearn.datasets.load_diabetes",
            list(b.feature_names),
            2,
            "BMI",
        )
    )
    X, y = datasets.make_friedman1(n_samples=600, n_features=10, noise=1.0, random_state=SEED)
    out.append(
        DataSet(
            "Friedman #1",
            "regression",
            X,
            y,
            "sklearn.datasets.make_friedman1(n_samples=600, noise=1.0, random_state=0)",
            [f"x{i + 1}" for i in range(10)],
            3,
            "x4",
        )
    )
    X, y = datasets.make_friedman2(n_samples=600, noise=0.0, random_state=SEED)
    out.append(
        DataSet(
            "Circuit impedance",
            "regression",
            X,
            y,
            "sklearn.datasets.make_friedman2(n_samples=600, random_state=0)",
            ["R (ohm)", "omega (rad s-1)", "L (H)", "C (F)"],
            1,
            "angular frequency",
        )
    )
    return out


def id_split(ds: DataSet):
    strat = ds.y if ds.task == "classification" else None
    return train_test_split(ds.X, ds.y, test_size=TEST_SIZE, random_state=SEED, stratify=strat)


def ood_split(ds: DataSet):
    """LIPS-style covariate shift: train below the 80th percentile of one feature, test above."""
    f = ds.X[:, ds.ood_feature]
    cut = np.quantile(f, OOD_QUANTILE)
    tr, te = f < cut, f >= cut
    return ds.X[tr], ds.X[te], ds.y[tr], ds.y[te]


# ----------------------------------------------------------------------------------------------
# Fitting and metrics
# ----------------------------------------------------------------------------------------------


def timed_fit(est: Any, X: np.ndarray, y: np.ndarray, repeats: int = 1) -> tuple[Any, float]:
    best, fitted, spent = math.inf, None, 0.0
    for _ in range(repeats):
        e = clone(est)
        t0 = time.perf_counter()
        e.fit(X, y)
        dt = time.perf_counter() - t0
        best, fitted, spent = min(best, dt), e, spent + dt
        if spent >= TIMING_BUDGET_FIT:
            break
    return fitted, best


def timed_predict(est: Any, X: np.ndarray, repeats: int = 1) -> tuple[np.ndarray, float]:
    best, pred = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        pred = est.predict(X)
        best = min(best, time.perf_counter() - t0)
    return pred, best


def classification_metrics(est, X_te, y_te, pred, labels) -> dict[str, float]:
    m = {
        "Accuracy": accuracy_score(y_te, pred),
        "Macro F1": f1_score(y_te, pred, average="macro", zero_division=0),
    }
    if hasattr(est, "predict_proba"):
        m["Log-loss"] = log_loss(y_te, est.predict_proba(X_te), labels=labels)
    return m


def regression_metrics(y_te, pred) -> dict[str, float]:
    return {
        "MAE": mean_absolute_error(y_te, pred),
        "RMSE": math.sqrt(mean_squared_error(y_te, pred)),
        "R²": r2_score(y_te, pred),
    }


def friedman1_laws(est, X_te) -> dict[str, float]:
    """Known structure of Friedman #1: y increases with x4 (dy/dx4 = 10) and is symmetric in
    x1 <-> x2 (10 sin(pi x1 x2))."""
    X = X_te[X_te[:, 3] <= 0.95]
    Xp = X.copy()
    Xp[:, 3] += 0.05
    viol = float(np.mean(est.predict(Xp) < est.predict(X)))
    Xs = X_te.copy()
    Xs[:, [0, 1]] = Xs[:, [1, 0]]
    sym = float(np.mean(np.abs(est.predict(Xs) - est.predict(X_te))))
    return {"Monotonicity violations (x₄)": viol, "Symmetry error (x₁↔x₂)": sym}


def impedance_laws(est, X_te, pred) -> dict[str, float]:
    """|Z| = sqrt(R² + (ωL − 1/(ωC))²) is at least the resistance R (so never negative) and, for
    these parameter ranges (ωL ≫ 1/(ωC)), increases with the inductance L."""
    below = float(np.mean(pred < X_te[:, 0]))
    X = X_te[X_te[:, 2] <= 0.95]
    Xp = X.copy()
    Xp[:, 2] += 0.05
    viol = float(np.mean(est.predict(Xp) < est.predict(X)))
    return {
        "Negative impedance": float(np.mean(pred < 0)),
        "Impedance below R": below,
        "Monotonicity violations (L)": viol,
    }


TIMING_SETS = ("Breast cancer", "Friedman #1")
LAW_BENCHMARK = {"Friedman #1": "Friedman #1 laws", "Circuit impedance": "Circuit impedance laws"}


def split_facts(ds: DataSet) -> dict[str, dict[str, Any]]:
    """What the config says about a data set's splits (sizes, origin, shift feature), by split
    name: the data set's own name and, with a shift feature, "<name> (OOD)"."""
    _X_tr, _X_te, y_tr, y_te = id_split(ds)
    facts = {
        ds.name: {
            "n_train": len(y_tr),
            "n_test": len(y_te),
            "source": ds.source,
            "n_features": ds.X.shape[1],
            "y_std": float(np.std(y_te)),
        }
    }
    if ds.ood_feature is not None:
        _oX_tr, _oX_te, oy_tr, oy_te = ood_split(ds)
        facts[ds.name + " (OOD)"] = {
            "n_train": len(oy_tr),
            "n_test": len(oy_te),
            "feature": ds.ood_label,
        }
    return facts


def run_all(verbose: bool = True) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Train every model on every data set; return long rows and split facts for the config."""
    rows: list[dict[str, Any]] = []
    facts: dict[str, Any] = {}
    specs = model_specs()

    def add(category, model, benchmark, metric, value):
        rows.append(
            {
                "category": category,
                "model": model,
                "benchmark": benchmark,
                "metric": metric,
                "value": float(value),
            }
        )

    for ds in load_datasets():
        t_ds = time.perf_counter()
        X_tr, X_te, y_tr, y_te = id_split(ds)
        ood = ood_split(ds) if ds.ood_feature is not None else None
        facts.update(split_facts(ds))
        labels = np.unique(ds.y) if ds.task == "classification" else None
        for sp in specs:
            est = sp.classifier if ds.task == "classification" else sp.regressor
            if est is None or ds.name in sp.skip:
                continue
            timing = ds.name in TIMING_SETS
            fitted, t_fit = timed_fit(est, X_tr, y_tr, TIMING_REPEATS_FIT if timing else 1)
            pred, t_pred = timed_predict(fitted, X_te, TIMING_REPEATS_PREDICT if timing else 1)
            if ds.task == "classification":
                for k, v in classification_metrics(fitted, X_te, y_te, pred, labels).items():
                    add("Classification", sp.name, ds.name, k, v)
            else:
                for k, v in regression_metrics(y_te, pred).items():
                    add("Regression", sp.name, ds.name, k, v)
            if ds.name == "Friedman #1":
                for k, v in friedman1_laws(fitted, X_te).items():
                    add("Physical consistency", sp.name, LAW_BENCHMARK[ds.name], k, v)
            if ds.name == "Circuit impedance":
                for k, v in impedance_laws(fitted, X_te, pred).items():
                    add("Physical consistency", sp.name, LAW_BENCHMARK[ds.name], k, v)
            if timing:
                bench = f"{ds.name} timing"
                add("Speed", sp.name, bench, "Fit time", _sig(t_fit, 4))
                add("Speed", sp.name, bench, "Predict time", _sig(t_pred, 4))
            if ood is not None:
                oX_tr, oX_te, oy_tr, oy_te = ood
                ofit, _ = timed_fit(est, oX_tr, oy_tr)
                opred = ofit.predict(oX_te)
                bench = f"{ds.name} (OOD)"
                if ds.task == "classification":
                    m = classification_metrics(ofit, oX_te, oy_te, opred, labels)
                    m.pop("Log-loss", None)
                else:
                    m = regression_metrics(oy_te, opred)
                    m.pop("RMSE")
                for k, v in m.items():
                    add("Out-of-distribution", sp.name, bench, k, v)
        if verbose:
            print(f"  {ds.name:<18} {time.perf_counter() - t_ds:6.2f} s", file=sys.stderr)
    return rows, facts


def _sig(x: float, digits: int) -> float:
    return float(f"{x:.{digits}g}")


# ----------------------------------------------------------------------------------------------
# Config: the scoring tree is the YAML template next to this script, a reason comment on every
# threshold and weight. It is read with the comments kept (R values), filled with the split facts,
# written as YAML text by hand (PyYAML cannot write comments) and checked by reading it back.
# ----------------------------------------------------------------------------------------------

TEMPLATE = Path(__file__).resolve().parent / "demo_template.yml"
SETTINGS = {  # the builder's settings a template string may name
    "train_pct": int((1 - TEST_SIZE) * 100),
    "test_pct": int(TEST_SIZE * 100),
    "fit_repeats": TIMING_REPEATS_FIT,
    "predict_repeats": TIMING_REPEATS_PREDICT,
}


@dataclass(frozen=True)
class R:
    """A config value with its one-line reason (written as a YAML comment on the same line)."""

    value: Any
    why: str


MUST_HAVE_REASON = {"good", "bad", "weight", "reference", "max_speedup", "b", "c", "better"}


def _comment(line: str) -> str | None:
    """The text of a trailing ``# comment`` on a YAML line (a ``#`` outside quotes after a blank)."""
    quote, i = None, 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[i + 1 :].strip()
        i += 1
    return None


def _with_reasons(node: yaml.Node, value: Any, lines: list[str], where: str) -> Any:
    """``value`` (the loaded node) with every scalar or flow value that has a comment as R."""
    if not (isinstance(node, yaml.MappingNode) and not node.flow_style):
        return value
    out: dict[str, Any] = {}
    for knode, vnode in node.value:
        key = knode.value
        here = f"{where}{key}"
        if isinstance(vnode, yaml.MappingNode) and not vnode.flow_style:
            if _comment(lines[knode.start_mark.line]) is not None:
                raise ValueError(
                    f"{TEMPLATE.name}:{knode.start_mark.line + 1}: {here}: a comment "
                    "on a block key would be lost; put it on its own line"
                )
            out[key] = _with_reasons(vnode, value[key], lines, here + "/")
            continue
        why = _comment(lines[vnode.end_mark.line])
        out[key] = R(value[key], why) if why else value[key]
    return out


def load_template(path: Path = TEMPLATE) -> dict[str, Any]:
    """The template as a tree of dicts, a reasoned value as R(value, comment)."""
    text = path.read_text(encoding="utf-8")
    return _with_reasons(yaml.compose(text), yaml.safe_load(text), text.splitlines(), "")


def _filled(node: Any, fields: dict[str, Any], where: str) -> Any:
    if isinstance(node, dict):
        return {k: _filled(v, fields, f"{where}/{k}") for k, v in node.items()}
    if isinstance(node, str) and "{" in node:
        try:
            return node.format_map(fields)
        except (KeyError, IndexError, ValueError) as e:
            raise ValueError(f"{TEMPLATE.name}: {where}: cannot fill {node!r}: {e!r}") from None
    return node


def _benchmark(bench: dict[str, Any], facts: dict[str, Any], where: str) -> dict[str, Any]:
    """A template benchmark filled from its ``split``: the split's facts (and the settings) fill
    its strings, and every metric gets the split's sizes (and shift feature) as ``meta``."""
    split = bench.get("split")
    if split not in facts:
        raise ValueError(f"{TEMPLATE.name}: {where}: split {split!r} is not one of {sorted(facts)}")
    fact = facts[split]
    meta = {"n_train": fact["n_train"], "n_test": fact["n_test"]}
    if "feature" in fact:
        meta["shift"] = fact["feature"]
    out = _filled({k: v for k, v in bench.items() if k != "split"}, {**SETTINGS, **fact}, where)
    for m in out["metrics"].values():
        m["meta"] = dict(meta)
    return out


def build_config(facts: dict[str, Any], template: dict[str, Any] | None = None) -> dict[str, Any]:
    """The config: the template with its benchmarks filled from the split facts and every other
    string from the builder's settings (the template's key order kept)."""
    tpl = template or load_template()
    cfg: dict[str, Any] = {}
    for key, value in tpl.items():
        if key != "categories":
            cfg[key] = _filled(value, SETTINGS, key)
            continue
        cfg[key] = {}
        for cname, cat in value.items():
            where = f"categories/{cname}"
            cfg[key][cname] = {
                k: {b: _benchmark(v[b], facts, f"{where}/benchmarks/{b}") for b in v}
                if k == "benchmarks"
                else _filled(v, SETTINGS, f"{where}/{k}")
                for k, v in cat.items()
            }
    return cfg


_PLAIN_KEY = __import__("re").compile(r"[A-Za-z_][A-Za-z0-9_]*")
_YAML11_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "none"}


def _key(k: str) -> str:
    if _PLAIN_KEY.fullmatch(k) and k.lower() not in _YAML11_WORDS:
        return k
    return json.dumps(k, ensure_ascii=False)


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"non-finite number in the config: {v}")
        s = repr(v)
        if "e" in s and "." not in s.split("e")[0]:  # YAML 1.1 floats need a dot
            mant, exp = s.split("e")
            s = f"{mant}.0e{exp if exp.startswith(('-', '+')) else '+' + exp}"
        return s
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a double-quoted YAML string
    if isinstance(v, dict):  # small flow mapping, e.g. {model: "Dummy (trivial)"}
        return "{" + ", ".join(f"{_key(k)}: {_scalar(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {v!r} as YAML")


def to_yaml(node: dict[str, Any], indent: int = 0) -> list[str]:
    lines: list[str] = []
    pad = " " * indent
    for k, v in node.items():
        if k in MUST_HAVE_REASON and not isinstance(v, R):
            raise ValueError(f"{k!r} has no reason: {v!r}")
        if isinstance(v, R):
            if "\n" in v.why or not v.why.strip():
                raise ValueError(f"bad reason for {k!r}: {v.why!r}")
            lines.append(f"{pad}{_key(k)}: {_scalar(v.value)}  # {v.why}")
        elif isinstance(v, dict) and k not in ("meta",):
            lines.append(f"{pad}{_key(k)}:")
            lines.extend(to_yaml(v, indent + 2))
        else:
            lines.append(f"{pad}{_key(k)}: {_scalar(v)}")
    return lines


def plain(node: Any) -> Any:
    """The config without reasons: what yaml.safe_load must give back."""
    if isinstance(node, R):
        return plain(node.value)
    if isinstance(node, dict):
        return {k: plain(v) for k, v in node.items()}
    return node


def config_text(cfg: dict[str, Any]) -> str:
    head = [
        "# Demo scoring tree for ml_peg_like, generated by data/build_demo.py from",
        "# data/demo_template.yml: do not edit by hand, edit the template and run the script again",
        "# (--config-only: no training). Every threshold and weight carries its reason.",
        "# Data-driven thresholds: {model: NAME} is that model's raw value (UAI: the error of the",
        "# trivial solver); best/worst are the best/worst raw values among the models.",
    ]
    return "\n".join(head + to_yaml(cfg)) + "\n"


# ----------------------------------------------------------------------------------------------
# Checks and output
# ----------------------------------------------------------------------------------------------


def check(cfg: dict[str, Any], text: str, raw: pd.DataFrame, models: pd.DataFrame) -> None:
    loaded = yaml.safe_load(text)
    if loaded != plain(cfg):
        raise AssertionError("the YAML text does not load back to the intended config")
    bench_seen: set[str] = set()
    for cname, cat in loaded["categories"].items():
        assert "/" not in cname and cat.get("description"), cname
        for bname, bench in cat["benchmarks"].items():
            assert "/" not in bname and bench.get("description"), bname
            assert bname not in bench_seen, f"duplicate benchmark {bname}"
            bench_seen.add(bname)
            for mname, m in bench["metrics"].items():
                assert "/" not in mname and m.get("unit") and m.get("description"), mname
                have = raw[(raw.benchmark == bname) & (raw.metric == mname)]
                assert len(have), f"no data for {bname}/{mname}"
                for key in ("good", "bad", "reference"):
                    ref = m.get(key)
                    if isinstance(ref, dict):
                        assert ref["model"] in set(have.model), f"{bname}/{mname}: {ref}"
    pairs = set(zip(raw.benchmark, raw.metric, strict=True))
    known = {
        (b, m)
        for c in loaded["categories"].values()
        for b, bd in c["benchmarks"].items()
        for m in bd["metrics"]
    }
    assert pairs == known, pairs ^ known
    assert set(raw.model) == set(models.model)
    assert not raw.duplicated(["model", "benchmark", "metric"]).any()


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "demo",
        help="output directory (default: data/demo next to this script)",
    )
    ap.add_argument("-q", "--quiet", action="store_true", help="no per-data-set progress")
    ap.add_argument(
        "--config-only",
        action="store_true",
        help="only rewrite config.yml from the template (no training; checked against the "
        "raw_metrics.csv and models.csv already in --out)",
    )
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    if args.config_only:
        facts = {k: v for ds in load_datasets() for k, v in split_facts(ds).items()}
        cfg = build_config(facts)
        text = config_text(cfg)
        read = {"keep_default_na": False, "encoding": "utf-8"}
        raw = pd.read_csv(args.out / "raw_metrics.csv", **read)
        check(cfg, text, raw, pd.read_csv(args.out / "models.csv", **read))
        (args.out / "config.yml").write_text(text, encoding="utf-8")
        print(f"wrote {args.out / 'config.yml'} in {time.perf_counter() - t0:.1f} s")
        return 0
    np.random.seed(SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("ignore", message=".*lbfgs failed to converge.*")
        warnings.filterwarnings("ignore", message=".*[Pp]redicted variances smaller than 0.*")
        rows, facts = run_all(verbose=not args.quiet)

    raw = pd.DataFrame(rows).sort_values(["category", "model", "benchmark", "metric"])
    raw = raw.reset_index(drop=True)
    specs = model_specs()
    models = pd.DataFrame([{"model": s.name, **s.attrs} for s in specs])
    cfg = build_config(facts)
    text = config_text(cfg)
    check(cfg, text, raw, models)

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "config.yml").write_text(text, encoding="utf-8")
    out_raw = raw.copy()
    out_raw["value"] = out_raw["value"].map(_fmt)
    out_raw.to_csv(args.out / "raw_metrics.csv", index=False, lineterminator="\n")
    models.to_csv(args.out / "models.csv", index=False, lineterminator="\n")

    n_metrics = sum(
        len(b["metrics"]) for c in cfg["categories"].values() for b in c["benchmarks"].values()
    )
    n_bench = sum(len(c["benchmarks"]) for c in cfg["categories"].values())
    full = len(models) * n_metrics
    print(
        f"models: {len(models)}  categories: {len(cfg['categories'])}  benchmarks: {n_bench}  "
        f"metrics: {n_metrics}"
    )
    print(f"raw values: {len(raw)} of {full} (missing: {full - len(raw)})")
    for s in specs:
        for ds_name, why in s.skip.items():
            print(f"  not run: {s.name} on {ds_name} ({why})")
    no_proba = sorted(set(models.model) - set(raw[raw.metric == "Log-loss"].model))
    print(f"  no log-loss (no predict_proba): {', '.join(no_proba)}")
    print(
        f"wrote {args.out / 'config.yml'}, raw_metrics.csv, models.csv "
        f"in {time.perf_counter() - t0:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
