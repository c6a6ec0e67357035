"""The Explore scatter built in the browser (``assets/explorefig.js``, ``mplExploreFig.scatter``)
against Python's ``components/explore/view.py`` ``scatter_figure`` in the same run: medians (and
minima) at 30, 1,000 and 10,000 models.

The models' raw values are random (uniform, 10% missing), scored with the small test board's
config; the scatter is a category score against the overall score (the Pareto front drawn),
with no colour and coloured by a twelve-valued attribute. The JS is timed in headless Chromium
on the page alone (its input built once in the page, the values as Float64Arrays as the engine
hands them); the figure's size (JSON) is what a server answer would have carried.

    python -m benchmarks.bench_explorefig_js [--sizes 30 1000 10000] [--repeat 9]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ml_peg_like import explore as ex
from ml_peg_like.dashboard.components.explore import view as view
from ml_peg_like.scoring import score_values
from tests.browser_utils import small_dataset

from .harness import ROOT, Row, chromium, print_table

SEL = {"x": "Classification", "y": "overall", "axes": "auto"}

TIME_JS = """([input, repeat]) => {
  const f = (q) => Object.assign({}, q, {values: q.values && Float64Array.from(q.values,
    (v) => v === null ? NaN : v)});
  input.x = input.x.kind === "attr" ? input.x : f(input.x);
  input.y = input.y.kind === "attr" ? input.y : f(input.y);
  const times = [];
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    window.mplExploreFig.scatter(input);
    times.push(performance.now() - t0);
  }
  return times;
}"""


def board(n: int, seed: int = 1):
    with tempfile.TemporaryDirectory() as d:
        cfg, _raw = small_dataset(Path(d))
    rng = np.random.default_rng(seed)
    k = len(cfg.metric_paths())
    lo = np.array([0.5, 0.5, 0.8, 70, 0.0, 0.001, 1.0])
    hi = np.array([1.0, 1.0, 0.95, 40, 0.6, 1.0, 100.0])
    values = lo + (hi - lo) * rng.uniform(-0.1, 1.1, size=(n, k))
    values[rng.random(values.shape) < 0.1] = np.nan
    models = tuple(f"m{i:05d}" for i in range(n))
    attrs = pd.DataFrame({"family": rng.choice(list("abcdefghijkl"), n)}, index=list(models))
    return score_values(values, models, cfg), attrs


def js_input(scores, attrs, sel) -> dict:
    spec = view.scatter_spec(scores.config, attrs, scores.models, sel)
    qs = {}
    for a in ("x", "y"):
        q = dict(spec[a])
        if q["kind"] != "attr":
            vals = ex.quantity_values(scores, ex.parse_quantity(scores.config, q["text"]))[1]
            q["values"] = [None if v != v else v for v in vals]
        qs[a] = q
    ranks = np.asarray(scores.ranks, float)
    return dict(
        models=list(scores.models),
        names={},
        shown=None,
        ranks=[None if r != r else r for r in ranks.tolist()],
        tied=[bool(t) for t in scores.tied],
        colour=spec["colour"],
        colourText=spec["colourText"],
        axes=spec["axes"],
        theme="light",
        **qs,
    )


def time_python(scores, attrs, sel, repeat: int) -> list[float]:
    xq = ex.parse_quantity(scores.config, sel["x"], attrs)
    yq = ex.parse_quantity(scores.config, sel["y"], attrs)
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        view.scatter_figure(scores, xq, yq, list(scores.models), {}, attributes=attrs,
                            colour=sel.get("c", ""))  # fmt: skip
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def figure_kb(scores, attrs, sel) -> float:
    """The size of the figure's JSON: what a server answer would have carried."""
    xq = ex.parse_quantity(scores.config, sel["x"], attrs)
    yq = ex.parse_quantity(scores.config, sel["y"], attrs)
    fig = view.scatter_figure(scores, xq, yq, list(scores.models), {}, attributes=attrs,
                              colour=sel.get("c", ""))  # fmt: skip
    return len(json.dumps(fig)) / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[30, 1000, 10000])
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args(argv)
    rows = []
    with chromium() as browser:
        page = browser.new_page()
        page.set_content("<!doctype html><html><body></body></html>")
        for s in ("curve.js", "explorefig.js"):
            page.add_script_tag(path=str(ROOT / "assets" / s))
        for n in args.sizes:
            scores, attrs = board(n)
            for colour in ("", "family"):
                sel = dict(SEL, c=colour)
                what = f"{n} models, colour {colour or '-'}"
                js = page.evaluate(TIME_JS, [js_input(scores, attrs, sel), args.repeat])
                py = time_python(scores, attrs, sel, args.repeat)
                rows.append(Row(f"{what}: Python scatter_figure", py))
                rows.append(Row(f"{what}: JS scatter", js, vs=f"{what}: Python scatter_figure"))
                rows.append(Row(f"{what}: figure JSON", [figure_kb(scores, attrs, sel)], "KB"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
