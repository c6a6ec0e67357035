"""Synthetic data sets at the scales the benchmarks need (seeded, written as dataset directories)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

import ml_peg_like as mpl

ANCHORS = Path(__file__).resolve().parents[2] / "shared" / "anchors"


def _write(cfg_dict: dict, values: np.ndarray, models: list[str], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    cfg = mpl.config_from_dict(cfg_dict)
    (out / "config.yml").write_text(mpl.dump_config(cfg), encoding="utf-8")
    raw = mpl.RawData(tuple(models), tuple(cfg.metric_ids()), values)
    raw.to_long(cfg).to_csv(out / "raw_metrics.csv", index=False, float_format="%.10g")
    return out


def mlpeg_scale(out: Path, n_models: int = 30, seed: int = 0, missing: float = 0.0) -> Path:
    """ML-PEG's full tree (18 categories, 77 benchmarks, 339 metrics, from ../shared/anchors'
    configs) with seeded synthetic values around each metric's thresholds."""
    from ml_peg_like.io.mlpeg import mlpeg_config_from_analysis

    cfgs = ANCHORS / "ml-peg" / "configs"
    if not cfgs.is_dir():
        raise SystemExit(f"needs ../shared/anchors ({cfgs})")
    cfg_dict = mlpeg_config_from_analysis(cfgs / "analysis", cfgs / "app")
    cfg = mpl.config_from_dict(cfg_dict)
    rng = np.random.default_rng(seed)
    cols = []
    for _c, _b, m in cfg.iter_metrics():
        g, b = float(m.good), float(m.bad)
        cols.append(b + (g - b) * rng.uniform(-0.3, 1.3, n_models))
    values = np.column_stack(cols)
    values[rng.random(values.shape) < missing] = np.nan
    return _write(cfg_dict, values, [f"model-{i:02d}" for i in range(n_models)], out)


def mixed_config(
    n_metrics: int = 1000, n_bench: int = 100, n_cat: int = 10, rng=None, missing: str = "skip"
) -> mpl.Config:
    """A config with a mix of linear, traffic-light and data-driven ({model: model0}) metrics
    and random integer weights at every level."""
    rng = rng if rng is not None else np.random.default_rng(0)
    per_bench = n_metrics // n_bench
    per_cat = n_bench // n_cat
    cats = {}
    k = 0
    for c in range(n_cat):
        benches = {}
        for b in range(per_cat):
            metrics = {}
            for m in range(per_bench):
                lower = rng.random() < 0.6
                good, bad = (0.0, 1.0) if lower else (1.0, 0.0)
                kind = k % 10
                spec = {"good": good, "bad": bad, "weight": float(rng.integers(1, 4))}
                if kind == 7:
                    spec["normaliser"] = "traffic_light"
                    spec["good"], spec["bad"] = (0.3, 0.7) if lower else (0.7, 0.3)
                elif kind == 9:
                    spec["bad"] = {"model": "model0"}  # data-driven (UAI style)
                    spec["good"] = 0.0
                    spec["better"] = "lower"
                metrics[f"metric {m}"] = spec
                k += 1
            benches[f"bench {c}.{b}"] = {"weight": float(rng.integers(1, 3)), "metrics": metrics}
        cats[f"category {c}"] = {"weight": float(rng.integers(1, 3)), "benchmarks": benches}
    return mpl.config_from_dict({"missing": missing, "categories": cats})


def large(out: Path, n_models: int = 1000, n_metrics: int = 1000, seed: int = 0) -> Path:
    """n_models x n_metrics (100 benchmarks in 10 categories, 3% missing, policy skip)."""
    rng = np.random.default_rng(seed)
    per_bench = n_metrics // 100
    cats = {}
    for c in range(10):
        benches = {}
        for b in range(10):
            benches[f"bench {c}.{b}"] = {
                "metrics": {f"metric {m}": {"good": 0.0, "bad": 1.0} for m in range(per_bench)}
            }
        cats[f"category {c}"] = {"benchmarks": benches}
    values = rng.random((n_models, 100 * per_bench))
    values[rng.random(values.shape) < 0.03] = np.nan
    return _write(
        {"missing": "skip", "categories": cats},
        values,
        [f"model {i}" for i in range(n_models)],
        out,
    )


if __name__ == "__main__":  # pragma: no cover
    import sys

    target = Path(sys.argv[2] if len(sys.argv) > 2 else "out/bench-data")
    fn = {"mlpeg": mlpeg_scale, "large": large}[sys.argv[1] if len(sys.argv) > 1 else "mlpeg"]
    print(fn(target))
    print(
        yaml.safe_load((target / "config.yml").read_text())["title"],
        pd.read_csv(target / "raw_metrics.csv").shape,
    )
