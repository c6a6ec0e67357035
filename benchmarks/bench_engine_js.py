"""The JavaScript engine (assets/engine.js) in headless Chromium vs the Python engine, same run.

    python -m benchmarks.bench_engine_js [--repeat 15] [--anchors ../shared/anchors]

Scales: ML-PEG's full tree (339 metrics; from the anchors' configs, else a synthetic tree of
the same size) with 30 and 10,000 models, and 1,000 models x 1,000 metrics (the mixed tree of
datasets.py: linear, traffic-light and {model: NAME} thresholds). For each: the median time of
``mplEngine.score(board, changes)``: a first scoring (normalise every column, three weighted
means, vetoes, reasons, ranks), and a threshold edit and a weight edit of one metric (the board
keeps the last normalised columns and benchmark means); of ``mplEngine.prepare`` (once per
board: the matrix decoded); and of the Python engine's ``score_values`` (the reference), with
the ratio Python / JS full. Timing printout only: the numbers are compared by tests/test_engine_js.py.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import ml_peg_like as mpl
from ml_peg_like.bundle import make_bundle
from ml_peg_like.scoring import score_values

from .datasets import ANCHORS, mixed_config
from .harness import ROOT, Row, chromium, print_table, timed

ENGINE_JS = ROOT / "assets" / "engine.js"

TIME_JS = """([bundle, edits, repeat]) => {
  const t0 = performance.now();
  const board = mplEngine.prepare(bundle);
  const prep = performance.now() - t0;
  const med = (a) => a;  // every time: the medians are Python's (harness.median)
  // call k scores pair[k % 2]: two alternating states, so every call has a change to make
  const run = (pair, cold) => {
    const t = [];
    for (let k = 0; k < repeat + 2; k++) {
      if (cold) { delete board.lastNormalised; delete board.lastBench; }  // a first scoring
      const s = performance.now();
      const r = mplEngine.score(board, pair[k % 2]);
      if (k >= 2) t.push(performance.now() - s);  // two warm-up calls
      if (r.errors.length) throw new Error(JSON.stringify(r.errors));
    }
    return med(t);
  };
  // the floor on this machine now: one bare pass of clip((x - 0) / 1, 0, 1) over the matrix
  const x = mplEngine.decodeMatrix(bundle.raw);
  const floor = [];
  for (let k = 0; k < repeat; k++) {
    const s = performance.now();
    const out = new Float64Array(x.length);
    for (let i = 0; i < x.length; i++) { const v = x[i]; out[i] = v < 0 ? 0 : v > 1 ? 1 : v; }
    floor.push(performance.now() - s);
  }
  return { prepare: [prep], full: run([{}, {}], true), threshold: run(edits.threshold, false),
           weight: run(edits.weight, false), floor: med(floor) };
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


def edits(cfg: mpl.Config) -> dict:
    """Two alternating states each of a threshold edit and of a weight edit (one metric)."""
    path = cfg.metric_paths()[len(cfg.metric_paths()) // 2]
    m = cfg.node(path)
    if isinstance(m.good, float) and isinstance(m.bad, float):
        threshold = [{path: {"good": m.good + 0.25 * (m.bad - m.good)}}, {}]
    else:
        threshold = [{path: {"weight": m.weight + 2}}, {}]
    return {"threshold": threshold, "weight": [{path: {"weight": m.weight + 1}}, {}]}


def python_ms(values, models, cfg, repeat: int) -> list[float]:
    """The Python engine's full scoring (``score_values`` of a new config each time), ms."""
    states = edits(cfg)["threshold"]
    cfgs = [cfg.apply_changes(states[k % 2]) for k in range(repeat)]
    it = iter(cfgs)
    ts, _ = timed(lambda: score_values(values, models, next(it)), repeat)
    return [t * 1e3 for t in ts]


def measure(page, name: str, cfg: mpl.Config, n: int, repeat: int) -> list[Row]:
    """The rows of one scale: the JS engine's phases and the Python engine's full scoring."""
    models = ["model0", *[f"model{i}" for i in range(1, n)]]
    values = values_for(cfg, n)
    bundle = make_bundle(cfg, values, models=models)
    js = page.evaluate(TIME_JS, [bundle, edits(cfg), repeat])
    full = f"{name}: JS full"
    return [
        Row(f"{name}: JS prepare", js["prepare"]),
        Row(full, js["full"]),
        Row(f"{name}: JS threshold edit", js["threshold"], vs=full),
        Row(f"{name}: JS weight edit", js["weight"], vs=full),
        Row(f"{name}: 1 bare pass", js["floor"], vs=full),
        Row(f"{name}: Python score_values", python_ms(values, models, cfg, repeat), vs=full),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--anchors", default=str(ANCHORS))
    args = ap.parse_args(argv)
    mlpeg = mlpeg_tree(Path(args.anchors))
    scales = [
        (f"ML-PEG 30 x {len(mlpeg.metric_paths())}", mlpeg, 30),
        ("1,000 x 1,000", mixed_config(1000, 100, 10), 1000),
        (f"10,000 x {len(mlpeg.metric_paths())}", mlpeg, 10_000),
    ]
    rows = []
    with chromium() as browser:
        page = browser.new_page()
        page.set_content("<!doctype html><html><body></body></html>")
        page.add_script_tag(path=str(ENGINE_JS))
        for name, cfg, n in scales:
            rows += measure(page, name, cfg, n, args.repeat)
    print_table(rows)
    print(
        "JS: mplEngine.score in headless Chromium (performance.now); full = a first scoring "
        "(nothing kept), threshold / weight edit = one metric's threshold / weight changed "
        "between calls; 1 bare pass = one clip loop over the matrix in the same page (the "
        "machine's floor). Python: score_values."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
