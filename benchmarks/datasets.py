"""Synthetic data sets at the scales the benchmarks need (seeded, written as dataset directories).

    python -m benchmarks.datasets {mlpeg,large,ml-peg,1000x1000,10000x339} [OUT]

Two families:

- the engine's (``mlpeg_scale``, ``mixed_config``, ``large``): ML-PEG's tree as
  ``ml_peg_like.io.mlpeg`` reads it, a mixed tree of linear, traffic-light and data-driven
  thresholds, and 1,000 x 1,000 of linear metrics;
- the dashboard's (``dashboard_sets``: ``ml-peg``, ``300x339``, ``1000x339``, ``10000x339``,
  ``1000x1000``, ``demo``): ML-PEG's 77 metrics.yml files and 18 category files as one config
  (policy skip, :func:`mlpeg_config`) with seeded values spread around each metric's thresholds
  (:func:`synthetic_raw`), and 10 categories x 10 benchmarks x 10 metrics (:func:`large_config`).

ML-PEG's configs come from ../shared/anchors beside the repository (``MPL_ANCHORS`` names
another directory); what needs them says so and is left out when they are absent.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

import ml_peg_like as mpl

ROOT = Path(__file__).resolve().parents[1]


def _anchors() -> Path:
    """../shared/anchors of this checkout or of the project's main checkout (a worktree lives
    one level deeper); ``MPL_ANCHORS`` first when set."""
    found = [Path(os.environ["MPL_ANCHORS"])] if os.environ.get("MPL_ANCHORS") else []
    found += [ROOT.parent / "shared" / "anchors", ROOT.parents[1] / "shared" / "anchors"]
    return next((d for d in found if d.is_dir()), found[0])


ANCHORS = _anchors()
#: ML-PEG's configs (analysis/ and app/)
MLPEG_CONFIGS = ANCHORS / "ml-peg" / "configs"


def _write(cfg_dict: dict, values: np.ndarray, models: list[str], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    cfg = mpl.config_from_dict(cfg_dict)
    (out / "config.yml").write_text(mpl.dump_config(cfg), encoding="utf-8")
    raw = mpl.RawData(tuple(models), tuple(cfg.metric_ids()), values)
    raw.to_long(cfg).to_csv(out / "raw_metrics.csv", index=False, float_format="%.10g")
    return out


def mlpeg_scale(
    out: Path, n_models: int = 30, seed: int = 0, missing: float = 0.0, anchors: Path = ANCHORS
) -> Path:
    """ML-PEG's full tree (18 categories, 77 benchmarks, 339 metrics, from ``anchors``'
    configs) with seeded synthetic values around each metric's thresholds."""
    from ml_peg_like.io.mlpeg import mlpeg_config_from_analysis

    cfgs = Path(anchors) / "ml-peg" / "configs"
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


# ------------------------------------------------------------------------------------------------
# the dashboard's data sets
# ------------------------------------------------------------------------------------------------


def _num(v):
    if v is True:
        return 1.0
    if v is False:
        return 0.0
    return float(v)


def _mlpeg_metrics(f: Path) -> dict:
    metrics = {}
    for name, m in (yaml.safe_load(f.read_text()) or {}).get("metrics", {}).items():
        good, bad = _num(m["good"]), _num(m["bad"])
        if good == bad:
            bad = good + 1.0
        spec = {
            "good": good,
            "bad": bad,
            "weight": float(m.get("weight", 1.0)),
            "unit": str(m.get("unit")) if m.get("unit") is not None else None,
            "description": m.get("tooltip"),
        }
        metrics[str(name)] = {k: v for k, v in spec.items() if v is not None}
    return metrics


def mlpeg_config(root: Path = MLPEG_CONFIGS) -> dict:
    """ML-PEG's 77 metrics.yml files and 18 category files as one config dict (policy skip)."""
    cats: dict = {}
    for cat_dir in sorted((root / "analysis").iterdir()):
        if not cat_dir.is_dir():
            continue
        app_yml = root / "app" / cat_dir.name / f"{cat_dir.name}.yml"
        meta = yaml.safe_load(app_yml.read_text()) if app_yml.is_file() else {}
        benches = {}
        for bdir in sorted(cat_dir.iterdir()):
            f = bdir / "metrics.yml"
            metrics = _mlpeg_metrics(f) if f.is_file() else {}
            if metrics:
                benches[bdir.name] = {"metrics": metrics}
        if benches:
            title = str(meta.get("title") or cat_dir.name)
            cat = {"weight": float(meta.get("weight", 1.0))}
            if meta.get("description"):
                cat["description"] = meta["description"]
            cats[title] = {**cat, "benchmarks": benches}
    return {"title": "ML-PEG scale (synthetic values)", "missing": "skip", "categories": cats}


def synthetic_raw(cfg, n_models: int, seed: int, missing: float = 0.03):
    """Seeded values spread from a little worse than 'bad' to a little better than 'good'."""
    rng = np.random.default_rng(seed)
    ids = cfg.metric_ids()
    good = np.array([m.good for _c, _b, m in cfg.iter_metrics()], dtype=float)
    bad = np.array([m.bad for _c, _b, m in cfg.iter_metrics()], dtype=float)
    skill = rng.uniform(-0.1, 1.0, size=(n_models, 1))
    u = np.clip(skill + rng.normal(0, 0.25, size=(n_models, len(ids))), -0.2, 1.2)
    values = bad + (good - bad) * u
    values[rng.random(values.shape) < missing] = np.nan
    models = [f"model-{i:04d}" for i in range(n_models)]
    wide = pd.DataFrame(values, columns=[f"{b}/{m}" for b, m in ids]).astype(object)
    wide = wide.where(~pd.isna(wide), "").astype(str)
    wide.insert(0, "model", models)
    return mpl.raw_from_frame(wide, cfg, source="synthetic")


def large_config(n_cat=10, n_bench=10, n_metric=10) -> dict:
    """``n_cat`` categories x ``n_bench`` benchmarks x ``n_metric`` linear metrics (the first
    of each level weighs 5, the others 1)."""
    cats = {}
    for i in range(n_cat):
        benches = {}
        for j in range(n_bench):
            benches[f"B{i:02d}.{j:02d}"] = {
                "weight": 5.0 if j == 0 else 1.0,
                "metrics": {
                    f"M{k:02d}": {"good": 1.0, "bad": 0.0, "weight": 5.0 if k == 0 else 1.0}
                    for k in range(n_metric)
                },
            }
        cats[f"Category {i:02d}"] = {"weight": 5.0 if i == 0 else 1.0, "benchmarks": benches}
    return {
        "title": "1,000 models x 1,000 metrics (synthetic)",
        "missing": "skip",
        "categories": cats,
    }


#: the dashboard's data sets on ML-PEG's tree: name -> models
MLPEG_SIZES = {"ml-peg": 30, "300x339": 300, "1000x339": 1000, "10000x339": 10000}
DASHBOARD_SETS = ("demo", *MLPEG_SIZES, "1000x1000")


def dashboard_sets(only):
    """(name, config, raw) of each of the dashboard's data sets named in ``only`` (in its
    order); one left out, with a line saying why, when it needs absent anchors or is unknown."""
    mlpeg = None
    for name in only:
        if name == "demo":
            yield name, *mpl.load_dataset(ROOT / "data" / "demo")
        elif name in MLPEG_SIZES:
            if not MLPEG_CONFIGS.is_dir():
                print(f"{name} skipped: {MLPEG_CONFIGS} not found", flush=True)
                continue
            mlpeg = mlpeg or mpl.config_from_dict(mlpeg_config())
            yield name, mlpeg, synthetic_raw(mlpeg, MLPEG_SIZES[name], seed=42)
        elif name == "1000x1000":
            cfg = mpl.config_from_dict(large_config())
            yield name, cfg, synthetic_raw(cfg, 1000, seed=7)
        else:
            print(f"{name} skipped: not one of {', '.join(DASHBOARD_SETS)}", flush=True)


def write_dataset(name: str, cfg, raw, root: Path) -> Path:
    """The data set as a directory ``ml-peg-like serve`` reads (config.yml + raw_metrics.csv),
    written once to ``root``/``name``; its binary raw cache built, so every run starts alike."""
    out = Path(root) / name
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "raw_metrics.csv").is_file():
        (out / "config.yml").write_text(mpl.dump_config(cfg), encoding="utf-8")
        raw.to_long(cfg).to_csv(out / "raw_metrics.csv", index=False, float_format="%.10g")
    mpl.load_dataset(out)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("name", choices=["mlpeg", "large", *DASHBOARD_SETS])
    p.add_argument("out", nargs="?", default="out/bench-data", help="the directory written")
    args = p.parse_args(argv)
    out = Path(args.out)
    if args.name in ("mlpeg", "large"):
        target = {"mlpeg": mlpeg_scale, "large": large}[args.name](out)
    else:
        sets = list(dashboard_sets([args.name]))
        if not sets:
            return 1
        target = write_dataset(args.name, sets[0][1], sets[0][2], out)
    shape = pd.read_csv(target / "raw_metrics.csv").shape
    print(f"{target}: {yaml.safe_load((target / 'config.yml').read_text())['title']}, {shape}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
