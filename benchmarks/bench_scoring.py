"""Scoring performance: a full recompute of every level and the ranks, vectorised vs per cell.

    python -m benchmarks.bench_scoring [--models 1000] [--metrics 1000] [--repeat 30]

Generates models x metrics raw values (100 benchmarks in 10 categories, 3% missing, a mix of
linear, traffic-light and data-driven thresholds), then prints the median time of
``score_values`` (normalise + three weighted means + ranks), the same after a config edit and
its recompile, and of a straightforward per-cell Python implementation of the same formulas
measured in the same run, their ratio, and checks that both give the same numbers.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import ml_peg_like as mpl
from ml_peg_like.scoring import score_values

from .datasets import mixed_config as make_config
from .harness import Row, print_table, timed


def _traffic_light(x: float, good: float, bad: float) -> float:
    lower = good <= bad
    if (x <= good) if lower else (x >= good):
        return 1.0
    if (x > bad) if lower else (x < bad):
        return 0.0
    return 0.5


def _bench_mean(values: np.ndarray, i: int, b, index: dict) -> tuple[float, float]:
    """(weighted sum, weight) of model ``i``'s metric scores in benchmark ``b``, cell by cell."""
    m_num = m_den = 0.0
    for m in b.metrics:
        x = values[i, col_of[(b.name, m.name)]]
        if math.isnan(x) or m.weight == 0:
            continue
        good, bad = m.good, m.bad
        if isinstance(bad, mpl.ModelRef):
            bad = values[index[bad.model], col_of[(b.name, m.name)]]
            if math.isnan(bad):
                continue
        if m.normaliser == "traffic_light":
            s = _traffic_light(x, good, bad)
        elif good == bad:
            s = 1.0 if x == good else 0.0
        else:
            s = min(max((x - bad) / (good - bad), 0.0), 1.0)
        m_num += m.weight * s
        m_den += m.weight
    return m_num, m_den


def per_cell_reference(values: np.ndarray, models, cfg: mpl.Config):
    """The same formulas, one cell at a time, in plain Python (the baseline)."""
    n_models = len(models)
    index = {m: i for i, m in enumerate(models)}
    overall = []
    for i in range(n_models):
        cat_num = cat_den = 0.0
        for c in cfg.categories:
            b_num = b_den = 0.0
            for b in c.benchmarks:
                m_num, m_den = _bench_mean(values, i, b, index)
                if m_den > 0 and b.weight > 0:
                    b_num += b.weight * m_num / m_den
                    b_den += b.weight
            if b_den > 0 and c.weight > 0:
                cat_num += c.weight * b_num / b_den
                cat_den += c.weight
        overall.append(cat_num / cat_den if cat_den > 0 else math.nan)
    order = sorted(
        range(n_models), key=lambda i: -overall[i] if not math.isnan(overall[i]) else math.inf
    )
    ranks = [0] * n_models
    for pos, i in enumerate(order):
        ranks[i] = pos + 1
    return np.array(overall)


col_of: dict = {}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--metrics", type=int, default=1000)
    ap.add_argument("--benchmarks", type=int, default=100)
    ap.add_argument("--categories", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--reference-repeat", type=int, default=3)
    args = ap.parse_args(argv)

    rng = np.random.default_rng(0)
    cfg = make_config(args.metrics, args.benchmarks, args.categories, rng, "skip")
    models = [f"model{i}" for i in range(args.models)]
    values = rng.random((args.models, len(cfg.metric_ids())))
    values[rng.random(values.shape) < 0.03] = np.nan
    col_of.update({mid: j for j, mid in enumerate(cfg.metric_ids())})

    # the dashboard's path: a changed config is compiled afresh, then scored
    def recompute():
        edited = cfg.apply_changes({cfg.metric_paths()[0]: {"weight": 2.0}})
        return score_values(values, models, edited)

    edit_s, _ = timed(recompute, args.repeat, warmup=1)
    full_s, res = timed(lambda: score_values(values, models, cfg), args.repeat)
    ref_s, ref = timed(lambda: per_cell_reference(values, models, cfg), args.reference_repeat)
    same = np.allclose(res.overall_scores, ref, equal_nan=True, atol=1e-9)
    print(
        f"data: {args.models} models x {len(cfg.metric_ids())} metrics, {args.benchmarks} "
        f"benchmarks, {args.categories} categories, 3% missing, policy skip"
    )
    full_what = "full recompute (all levels + ranks)"
    ms = lambda ts: [t * 1e3 for t in ts]  # noqa: E731
    print_table(
        [
            Row(full_what, ms(full_s)),
            Row("config edit + recompile + recompute", ms(edit_s), vs=full_what),
            Row("per-cell Python reference", ms(ref_s), vs=full_what),
        ]
    )
    print(f"same overall scores as the reference: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
