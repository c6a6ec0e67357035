"""The curve built in the browser (``assets/curve.js``, ``mplCurve.figure``) against Python's
``figures.curve_figure`` in the same run: medians at 30, 1,000 and 10,000 models.

The models' raw values are random (uniform, 5% missing, a few outliers, ties), scored with the
small test board's config (the browser tests' fixture, ``tests/browser_utils.py``); the metric is a linear rule (Iris accuracy) and a log-hinted one
(the Weibull speed-up of Predict time). The JS is timed in headless Chromium on the page alone
(its inputs built once in the page: Float64Arrays, as the engine hands them); ``evaluate``
returns the normaliser's values on the grid, computed beforehand (the engine's part). Python is
timed cold (its kept raw texts and hover lines cleared before each call: a new metric or new
values) and warm (the same figure again: an edit of a threshold); so is the JS (cold: a new
``names`` object each call, so the hover lines it keeps are written again).

    python -m benchmarks.bench_curve_js [--sizes 30 1000 10000] [--repeat 9]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from ml_peg_like.dashboard import figures
from ml_peg_like.dashboard.tables import resolved_params, unresolved_thresholds
from ml_peg_like.normalisers import apply_normaliser
from ml_peg_like.scoring import score_values
from tests.browser_utils import small_dataset

from .harness import ROOT, Row, chromium, print_table

METRICS = {
    "linear": "Classification/Iris/Accuracy",
    "weibull (log)": "Speed <b>&amp;</b> <script>x</script>/Timing/Predict time",
}

SETUP = """([input, grid, ys]) => {
  input.raw = Float64Array.from(input.raw.map((v) => (v === null ? NaN : v)));
  input.score = Float64Array.from(input.score.map((v) => (v === null ? NaN : v)));
  const curve = Float64Array.from(ys);
  input.evaluate = (xs) => {
    if (xs.length !== grid.length) throw new Error("grid");
    return curve;
  };
  window.__input = input;
}"""
TIME = """([repeat, inner, cold]) => {
  // `inner` calls per sample (the page's clock ticks by 0.1 ms); cold: new names each call
  // (the hover lines the JS keeps between calls are written again)
  const times = [];
  const input = window.__input;
  let fig;
  for (let k = 0; k < repeat; k++) {
    const t0 = performance.now();
    for (let r = 0; r < inner; r++) {
      if (cold) input.names = Object.assign({}, input.names);
      fig = window.mplCurve.figure(input);
    }
    times.push((performance.now() - t0) / inner);
  }
  return [times, fig.data[1].x.length];
}"""


def _scores(cfg, n: int, rng):
    paths = cfg.metric_paths()
    values = rng.uniform(0.3, 1.0, (n, len(paths)))
    values[:, paths.index(cfg.full_path(METRICS["weibull (log)"]))] = rng.lognormal(-3, 1.5, n)
    values[rng.random(values.shape) < 0.05] = np.nan
    values[: max(1, n // 100)] *= 40.0  # outliers
    values[n // 2 : n // 2 + n // 10] = values[n // 2]  # ties
    models = tuple(f"model-{i}" for i in range(n))
    return score_values(values, models, cfg)


def _js_input(scores, path: str) -> dict:
    cfg = scores.config
    metric = cfg.node(path)
    j = scores.plan.metric_paths.index(cfg.full_path(path))
    params = resolved_params(scores, j)
    marks = metric.norm.curve_marks(params)
    return dict(
        path=cfg.full_path(path),
        name=metric.name,
        unit=metric.unit or "",
        normaliser=metric.normaliser,
        logHint=bool(metric.norm.log_x),
        params=params,
        marks=[dict(label=m.label, x=m.x, kind=m.kind) for m in marks],
        unresolved=unresolved_thresholds(scores, j),
        models=list(scores.models),
        names={m: f"Model {m}" for m in scores.models[::2]},
        raw=[None if np.isnan(v) else v for v in scores.raw_values[:, j].tolist()],
        score=[None if np.isnan(v) else v for v in scores.metric_scores[:, j].tolist()],
        scale=cfg.scale,
        xscale="auto",
        digits=3,
    )


def _py_ms(scores, path: str, names, repeat: int, cold: bool) -> list[float]:
    times = []
    for _ in range(repeat):
        if cold:
            figures._raw_texts.clear()
            figures._lines.clear()
        t0 = time.perf_counter()
        figures.curve_figure(scores, path, names=names)
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def measure(page, cfg, scores, n: int, label: str, repeat: int) -> list[Row]:
    """JS and Python, cold and warm, of one metric's curve at ``n`` models."""
    path = METRICS[label]
    inp = _js_input(scores, path)
    grid = page.evaluate("(i) => Array.from(window.mplCurve.grid(i))", inp)
    arr = {k: np.asarray([v]) for k, v in inp["params"].items()}
    with np.errstate(all="ignore"):
        ys = apply_normaliser(cfg.node(path).norm, np.asarray(grid)[:, None], arr)[:, 0]
    page.evaluate(SETUP, [inp, grid, ys.tolist()])
    inner = max(1, 3000 // n)
    page.evaluate(TIME, [2, inner, False])  # warm the JIT
    js_cold, points = page.evaluate(TIME, [repeat, inner, True])
    js_warm, _ = page.evaluate(TIME, [repeat, inner, False])
    what = f"{n} models, {label} ({points} points)"
    names = inp["names"]
    return [
        Row(f"{what}: JS cold", js_cold),
        Row(f"{what}: JS warm", js_warm),
        Row(f"{what}: Python cold", _py_ms(scores, path, names, repeat, True),
            vs=f"{what}: JS cold"),
        Row(f"{what}: Python warm", _py_ms(scores, path, names, repeat, False),
            vs=f"{what}: JS warm"),
    ]  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[30, 1000, 10000])
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(7)
    cfg, _raw = small_dataset(Path(tempfile.mkdtemp()))
    rows = []
    with chromium() as browser:
        page = browser.new_page()
        page.set_content("<!doctype html><html><body></body></html>")
        page.add_script_tag(path=str(ROOT / "assets" / "curve.js"))
        for n in args.sizes:
            scores = _scores(cfg, n, rng)
            for label in METRICS:
                rows += measure(page, cfg, scores, n, label, args.repeat)
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
