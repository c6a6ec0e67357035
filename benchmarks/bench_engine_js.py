"""The JavaScript engine (assets/engine.js) in headless Chromium vs the Python engine, same run.

    python benchmarks/bench_engine_js.py [--repeat 15] [--anchors ../shared/anchors]

Scales: ML-PEG's full tree (339 metrics; from the anchors' configs, else a synthetic tree of
the same size) with 30 and 10,000 models, and 1,000 models x 1,000 metrics (the mixed tree of
datasets.py: linear, traffic-light and {model: NAME} thresholds). For each: the median time of
``mplEngine.score(board, changes)`` (a full scoring: normalise, three weighted means, vetoes,
reasons, ranks) with no change and with one threshold changed, of ``mplEngine.prepare`` (once
per board: the matrix decoded), and of the Python engine's ``score_values`` (the reference), and
their ratio. Timing printout only: the numbers are compared by tests/test_engine_js.py.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import ml_peg_like as mpl
from ml_peg_like.bundle import make_bundle
from ml_peg_like.scoring import score_values

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from browser_utils import chromium  # noqa: E402
from datasets import mixed_config  # noqa: E402

ENGINE_JS = HERE.parent / "assets" / "engine.js"

TIME_JS = """([bundle, changes, repeat]) => {
  const t0 = performance.now();
  const board = mplEngine.prepare(bundle);
  const prep = performance.now() - t0;
  const med = (a) => { a.sort((x, y) => x - y); return a[a.length >> 1]; };
  const run = (ch) => {
    for (let k = 0; k < 3; k++) mplEngine.score(board, ch);  // warm up
    const t = [];
    for (let k = 0; k < repeat; k++) {
      const s = performance.now();
      const r = mplEngine.score(board, ch);
      t.push(performance.now() - s);
      if (r.errors.length) throw new Error(JSON.stringify(r.errors));
    }
    return med(t);
  };
  return { prepare: prep, none: run({}), edit: run(changes) };
}"""


def mlpeg_tree(anchors: Path) -> mpl.Config:
    cfgs = anchors / "ml-peg" / "configs"
    if cfgs.is_dir():
        from ml_peg_like.io.mlpeg import mlpeg_config_from_analysis

        return mpl.config_from_dict(mlpeg_config_from_analysis(cfgs / "analysis", cfgs / "app"))
    print(f"(no {cfgs}: a synthetic tree of 340 metrics stands in for ML-PEG's 339)")
    return mixed_config(340, 68, 17, missing="invalidate")


def values_for(cfg: mpl.Config, n_models: int, seed: int = 0) -> np.ndarray:
    """Seeded values around each metric's thresholds (numbers) or uniform in [0, 1]."""
    rng = np.random.default_rng(seed)
    cols = []
    for _c, _b, m in cfg.iter_metrics():
        if isinstance(m.good, float) and isinstance(m.bad, float):
            g, b = m.good, m.bad
            cols.append(b + (g - b) * rng.uniform(-0.3, 1.3, n_models))
        else:
            cols.append(rng.random(n_models))
    x = np.column_stack(cols)
    x[rng.random(x.shape) < 0.03] = np.nan
    return x


def an_edit(cfg: mpl.Config) -> dict:
    path = cfg.metric_paths()[0]
    m = cfg.node(path)
    if isinstance(m.good, float) and isinstance(m.bad, float):
        return {path: {"good": m.good + 0.25 * (m.bad - m.good)}}
    return {path: {"weight": 2}}


def python_median(values, models, cfg, repeat: int) -> float:
    cfg2 = cfg.apply_changes({})
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        score_values(values, models, cfg2)
        times.append(time.perf_counter() - t)
        cfg2 = cfg.apply_changes(an_edit(cfg)) if len(times) % 2 else cfg.apply_changes({})
    return statistics.median(times) * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    default = os.environ.get("MPL_ANCHORS") or str(HERE.parents[1] / "shared" / "anchors")
    ap.add_argument("--anchors", default=default)
    args = ap.parse_args(argv)
    mlpeg = mlpeg_tree(Path(args.anchors))
    scales = [
        (f"ML-PEG 30 x {len(mlpeg.metric_paths())}", mlpeg, 30),
        ("1,000 x 1,000", mixed_config(1000, 100, 10), 1000),
        (f"10,000 x {len(mlpeg.metric_paths())}", mlpeg, 10_000),
    ]
    print(
        f"{'scale':<22}{'JS prepare':>12}{'JS score':>11}{'JS edit':>10}{'Python':>10}{'Py/JS':>8}"
    )
    with chromium() as browser:
        page = browser.new_page()
        page.set_content("<!doctype html><html><body></body></html>")
        page.add_script_tag(path=str(ENGINE_JS))
        for name, cfg, n in scales:
            models = ["model0", *[f"model{i}" for i in range(1, n)]]
            values = values_for(cfg, n)
            bundle = make_bundle(cfg, values, models=models)
            js = page.evaluate(TIME_JS, [bundle, an_edit(cfg), args.repeat])
            py = python_median(values, models, cfg, args.repeat)
            print(
                f"{name:<22}{js['prepare']:>10.1f}ms{js['none']:>9.1f}ms{js['edit']:>8.1f}ms"
                f"{py:>8.1f}ms{py / max(js['edit'], 1e-3):>8.1f}"
            )
    print("medians; JS in headless Chromium (performance.now), Python: score_values")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
