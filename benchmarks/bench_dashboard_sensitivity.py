#!/usr/bin/env python
"""(Kept from main at the issue-15 merge: bench_dashboard.py now spawns `serve` and compares
full table vs row deltas; this file keeps the in-process --sensitivity comparison.)

Dashboard latency in headless Chromium: committed threshold edit -> last updated cell of the
overall score column, median of N edits, for three data sets:

  (a) demo      data/demo (20 models)
  (b) ml-peg    30 models x the 77 benchmarks / 339 metrics / 18 categories of
                ../shared/anchors/ml-peg/configs, seeded synthetic raw values (3 % missing,
                policy 'skip' so that overall scores exist)
  (c) large     1,000 models x 1,000 metrics (10 categories x 10 benchmarks x 10 metrics)

Also: first render (navigation start -> first overall cell in the DOM, from the browser's own
clock) and the size of one edit's response. The app is served in-process (werkzeug, threaded) on
a random loopback port, as in the browser tests.

    python benchmarks/bench_dashboard.py [--edits 12] [--only demo,ml-peg,large] [--sensitivity]

``--sensitivity``: measure each data set twice in the same run, with the stability intervals
(and dominance marks) shown and without (``create_app(sensitivity=False)``), and print the ratio.

Timing: a capture-phase keydown listener stamps the Enter that commits the box; a
MutationObserver on the grid stamps the first DOM mutation after which every rendered cell of
the table's Overall column shows the engine's value for the edited config (formatted by the
Python twin of the grid's formatter). The edit is made in the benchmark view, whose table pins
the Overall column beside the metric columns.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser_utils import chromium, live_server  # noqa: E402

from ml_peg_like import config_from_dict, load_dataset, raw_from_frame, score  # noqa: E402
from ml_peg_like.dashboard import create_app  # noqa: E402
from ml_peg_like.dashboard.state import make_query  # noqa: E402
from ml_peg_like.dashboard.tables import fmt_score  # noqa: E402

ANCHORS = ROOT.parent / "shared" / "anchors" / "ml-peg" / "configs"


# ------------------------------------------------------------------------------------------------
# data sets
# ------------------------------------------------------------------------------------------------


def _num(v):
    if v is True:
        return 1.0
    if v is False:
        return 0.0
    return float(v)


def mlpeg_config(root: Path = ANCHORS) -> dict:
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
            if not f.is_file():
                continue
            metrics = {}
            for name, m in (yaml.safe_load(f.read_text()) or {}).get("metrics", {}).items():
                good, bad = _num(m["good"]), _num(m["bad"])
                if good == bad:
                    bad = good + 1.0
                metrics[str(name)] = {
                    "good": good,
                    "bad": bad,
                    "weight": float(m.get("weight", 1.0)),
                    "unit": str(m.get("unit")) if m.get("unit") is not None else None,
                    "description": m.get("tooltip"),
                }
                metrics[str(name)] = {k: v for k, v in metrics[str(name)].items() if v is not None}
            if metrics:
                benches[bdir.name] = {"metrics": metrics}
        if benches:
            title = str(meta.get("title") or cat_dir.name)
            cats[title] = {
                "weight": float(meta.get("weight", 1.0)),
                "description": meta.get("description") or None,
                "benchmarks": benches,
            }
            if cats[title]["description"] is None:
                del cats[title]["description"]
    return {"title": "ML-PEG scale (synthetic values)", "missing": "skip", "categories": cats}


def synthetic_raw(cfg, n_models: int, seed: int, missing: float = 0.03):
    """Seeded values spread from a little worse than 'bad' to a little better than 'good'."""
    import pandas as pd

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
    return raw_from_frame(wide, cfg, source="synthetic")


def large_config(n_cat=10, n_bench=10, n_metric=10) -> dict:
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


def datasets(only: set[str]):
    if "demo" in only:
        yield "demo", *load_dataset(ROOT / "data" / "demo")
    if "ml-peg" in only:
        if not ANCHORS.is_dir():
            print(f"(b) skipped: {ANCHORS} not found")
        else:
            cfg = config_from_dict(mlpeg_config())
            yield "ml-peg", cfg, synthetic_raw(cfg, 30, seed=42)
    if "large" in only:
        cfg = config_from_dict(large_config())
        yield "large", cfg, synthetic_raw(cfg, 1000, seed=7)


# ------------------------------------------------------------------------------------------------
# measurement
# ------------------------------------------------------------------------------------------------

INSTALL = """() => {
  window.__t0 = null;
  document.addEventListener('keydown', e => {
    if (e.key === 'Enter') window.__t0 = performance.now();
  }, true);
  window.__collect = () => {
    const names = {}, vals = {};
    document.querySelectorAll('#grid .ag-row').forEach(r => {
      const i = r.getAttribute('row-index');
      const m = r.querySelector('.ag-cell[col-id="model"]');
      if (m) names[i] = m.textContent;
      const c = r.querySelector('.ag-cell[col-id="o"]');
      if (c) vals[i] = c.textContent.trim();
    });
    return [names, vals];
  };
  window.__arm = (expected) => {
    window.__done = new Promise(resolve => {
      const ok = () => {
        const [names, vals] = window.__collect();
        let n = 0;
        for (const i in vals) {
          if (!(i in names)) continue;
          if (expected[names[i]] !== vals[i]) return false;
          n++;
        }
        return n > 0;
      };
      const obs = new MutationObserver(() => {
        if (ok()) { obs.disconnect(); resolve(performance.now()); }
      });
      obs.observe(document.querySelector('#grid'),
                  {subtree: true, childList: true, characterData: true, attributes: true});
    });
  };
}"""


def influential_metric(cfg) -> str:
    """The metric with the largest share of the overall weight (its edits move the ranking)."""
    best, share = "", -1.0
    wc = sum(c.weight for c in cfg.categories)
    for c in cfg.categories:
        wb = sum(b.weight for b in c.benchmarks)
        for b in c.benchmarks:
            wm = sum(m.weight for m in b.metrics)
            for m in b.metrics:
                if not m.norm.uses_thresholds or not isinstance(m.good, float):
                    continue
                s = (c.weight / wc) * (b.weight / wb) * (m.weight / wm)
                if s > share:
                    best, share = f"{c.name}/{b.name}/{m.name}", s
    return best


def measure(name: str, cfg, raw, n_edits: int, sensitivity: bool = True) -> dict:
    app = create_app(cfg, raw, sensitivity=sensitivity)
    path = influential_metric(cfg)
    metric = cfg.node(path)
    bench_view = path.rsplit("/", 1)[0]
    good0, bad0 = metric.good, metric.bad
    candidates = [good0 + f * (bad0 - good0) for f in (0.0, 0.45, 0.2, 0.6, 0.1, 0.35)]
    result: dict = {"name": name, "models": len(raw.models), "metrics": len(cfg.metric_paths())}
    with live_server(app) as url, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        sizes: list[int] = []
        posts: list[int] = []

        def on_response(r):
            if "_dash-update-component" in r.url:
                posts.append(1)
                try:
                    sizes.append(len(r.body()))
                except Exception:  # noqa: BLE001 (a 204 has no body)
                    sizes.append(0)

        page.on("response", on_response)
        # first render of the overview (cold browser cache: a fresh page in a fresh browser)
        t = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("#grid .ag-cell[col-id='o']")
        result["first_render_ms"] = page.evaluate("() => performance.now()")
        result["first_render_wall_ms"] = (time.perf_counter() - t) * 1000
        # the benchmark view, by URL
        page.goto(url + "/" + make_query({}, bench_view))
        page.wait_for_selector(f"input[name='{path}.good']")
        page.wait_for_selector("#grid .ag-cell[col-id='o']")
        page.wait_for_timeout(300)
        page.evaluate(INSTALL)
        times, last = [], None
        i = 0
        for k in range(n_edits + 40):
            if len(times) >= n_edits:
                break
            value = candidates[(i + 1) % len(candidates)]
            i += 1
            new = score(raw, cfg.apply_changes({path: {"good": value}}))
            expected = {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}
            shown = page.evaluate("() => window.__collect()")
            names, vals = shown
            visible_now = {names[r]: vals[r] for r in vals if r in names}
            if all(expected.get(m) == t for m, t in visible_now.items()):
                continue  # this edit would not change a rendered cell: not measurable
            page.evaluate("(e) => window.__arm(e)", expected)
            n_before = len(posts)
            box = page.locator(f"input[name='{path}.good']")
            box.fill(f"{value:.6g}" if abs(value) < 1e6 else repr(value))
            box.press("Enter")
            t_done = page.evaluate("async () => (await window.__done) - window.__t0")
            times.append(t_done)
            page.wait_for_timeout(150)
            last = sizes[-1] if sizes else None
            result.setdefault("posts_per_edit", []).append(len(posts) - n_before)
            del k
        result["edit_ms"] = times
        result["median_ms"] = statistics.median(times) if times else float("nan")
        result["edit_response_bytes"] = last
    return result


def compare_sensitivity(name: str, cfg, raw, n_edits: int, rounds: int = 3) -> None:
    """Median edit latency with the intervals shown and without, alternating ``rounds`` times
    (a loaded machine drifts: alternating spreads the drift over both)."""
    runs: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(rounds):
        for on in (False, True):
            runs[on] += measure(name, cfg, raw, max(1, n_edits // rounds), sensitivity=on)[
                "edit_ms"
            ]
    off, on = statistics.median(runs[False]), statistics.median(runs[True])
    print(
        f"{name:7s} {len(raw.models):5d} models x {len(cfg.metric_paths()):5d} metrics: "
        f"edit -> overall column median without intervals {off:.0f} ms (n={len(runs[False])}), "
        f"with intervals {on:.0f} ms (n={len(runs[True])}): {100 * (on / off - 1):+.1f} % "
        "(target <= +15 %)",
        flush=True,
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edits", type=int, default=12)
    p.add_argument("--only", default="demo,ml-peg,large")
    p.add_argument(
        "--sensitivity",
        action="store_true",
        help="edit latency with and without the stability intervals, interleaved, same run",
    )
    args = p.parse_args(argv)
    only = set(args.only.split(","))
    targets = {"demo": 150, "ml-peg": 150, "large": 600}
    rows = []
    for name, cfg, raw in datasets(only):
        if args.sensitivity:
            compare_sensitivity(name, cfg, raw, args.edits)
            continue
        r = measure(name, cfg, raw, args.edits)
        rows.append(r)
        posts = r.get("posts_per_edit", [])
        print(
            f"({'abc'[['demo', 'ml-peg', 'large'].index(name)]}) {name:7s} "
            f"{r['models']:5d} models x {r['metrics']:5d} metrics: "
            f"edit -> overall column median {r['median_ms']:.0f} ms "
            f"(min {min(r['edit_ms']):.0f}, max {max(r['edit_ms']):.0f}, n={len(r['edit_ms'])}; "
            f"target <= {targets[name]} ms); "
            f"first render {r['first_render_ms']:.0f} ms; "
            f"one edit's response {r['edit_response_bytes'] / 1024:.1f} KiB; "
            f"server round trips per edit: {sorted(set(posts))}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        raise SystemExit(main())
