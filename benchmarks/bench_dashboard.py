#!/usr/bin/env python
"""Dashboard scale benchmark: ``ml-peg-like serve DIR`` spawned per run, measured in
headless Chromium, BEFORE (``--full-table``: every edit sends the whole table) and AFTER (row
deltas: only the changed cells), on up to five data sets:

  ml-peg      30 models x the 77 benchmarks / 339 metrics / 18 categories of
              ../shared/anchors/ml-peg/configs, seeded synthetic raw values (3 % missing, 'skip')
  300x339, 1000x339, 10000x339   the same metrics, more models
  1000x1000   1,000 models x 1,000 metrics (10 categories x 10 benchmarks x 10 metrics)

    python benchmarks/bench_dashboard.py [--edits 10] [--rounds 2] [--only ml-peg,1000x1000]

Per run: the browser opens the address as soon as the spawned server accepts a connection
(``serve`` listens from its first moment, ``earlypage.py``); then the overview's first rows
readable from spawn (when the browser painted the first view's best overall score,
``dashboard/firstview.py``, by its Element Timing entry; the grid's first cells where the page
has none; per round, "k" where the page was the server's kept copy, answered before its app
was up), the grid's first overall cells
from spawn (and HTTP ready: ``/health`` answered), edit -> all responses done (median of
N threshold edits in the benchmark view of the most influential metric: a capture-phase keydown
stamps the Enter; done = the later of the first DOM mutation after which every rendered Overall
cell shows the engine's value and the end of the last callback response), the bytes of one
edit's responses (median; uncompressed JSON bodies), the layout size and the server's RSS.
``--rounds R`` runs before/after/before/after... R times each, interleaved, and reports the
median over the rounds: the machine may be shared, and interleaving cancels load drift.
"""

from __future__ import annotations

import argparse
import compileall
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser_utils import chromium  # noqa: E402

from ml_peg_like import config_from_dict, load_dataset, raw_from_frame, score  # noqa: E402
from ml_peg_like.dashboard.firstview import PAINT_MARK  # noqa: E402
from ml_peg_like.dashboard.state import make_query  # noqa: E402
from ml_peg_like.dashboard.tables import fmt_score  # noqa: E402
from ml_peg_like.serving.earlypage import EARLY_ATTR  # noqa: E402
from ml_peg_like.serving.servertiming import server_ms  # noqa: E402

ANCHORS = ROOT.parent / "shared" / "anchors" / "ml-peg" / "configs"


def timed_edit(page, raw, cfg, path: str, value: float) -> float | None:
    """Type ``value`` into ``path``'s good box and press Enter; the ms until every rendered
    Overall cell shows the engine's value (``INSTALL``'s stamps), or None (nothing typed) when
    the edit would not change a rendered cell, so it could not be measured."""
    new = score(raw, cfg.apply_changes({path: {"good": value}}))
    expected = {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}
    names, vals = page.evaluate("() => window.__collect()")
    visible_now = {names[r]: vals[r] for r in vals if r in names}
    if all(expected.get(m) == t for m, t in visible_now.items()):
        return None
    return typed_edit(page, path, f"{value:.6g}" if abs(value) < 1e6 else repr(value), expected)


def typed_edit(page, path: str, text: str, expected: dict) -> float:
    """Arm ``INSTALL``'s stamps for ``expected`` (model -> Overall cell text), type ``text``
    into ``path``'s good box, press Enter; the ms until the cells show it."""
    page.evaluate("(e) => window.__arm(e)", expected)
    box = page.locator(f"input[name='{path}.good']")
    box.fill(text)
    box.press("Enter")
    return page.evaluate("async () => (await window.__done) - window.__t0")


def wait_listening(proc: subprocess.Popen, port: int, t0: float, name: str = "serve") -> None:
    """Return once the spawned ``serve`` accepts a connection on ``port`` (2 minutes at most)."""
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if proc.poll() is not None or time.perf_counter() - t0 > 120:
                raise RuntimeError(f"{name}: the server did not start") from None
            time.sleep(0.005)


#: whether the page came from the server's kept copy (earlypage.py), before its app was up
KEPT = "() => !!document.querySelector('template[EARLY]')".replace("EARLY", EARLY_ATTR)


def compile_package(tree: Path = ROOT) -> None:
    """Write the bytecode of ``tree``'s package, as ``pip install`` of the wheel does: the
    spawned server then starts as an installed one, not compiling ~80 modules from source
    (~0.2 s here, and every time where PYTHONDONTWRITEBYTECODE is set, as on this machine)."""
    compileall.compile_dir(str(Path(tree) / "ml_peg_like"), quiet=1)


def wait_health(
    proc: subprocess.Popen, url: str, t0: float, name: str = "serve", timeout: float = 1
) -> None:
    """Return once the spawned ``serve`` answers ``/health`` (2 minutes at most from ``t0``;
    ``timeout``: how long one request may wait: the server holds it until the app is up)."""
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=timeout).read()
            return
        except OSError:
            if proc.poll() is not None or time.perf_counter() - t0 > 120:
                raise RuntimeError(f"{name}: the server did not start") from None
            time.sleep(0.01)


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
    mlpeg = config_from_dict(mlpeg_config()) if ANCHORS.is_dir() else None
    for name, n in (("ml-peg", 30), ("300x339", 300), ("1000x339", 1000), ("10000x339", 10000)):
        if name in only:
            if mlpeg is None:
                print(f"{name} skipped: {ANCHORS} not found")
            else:
                yield name, mlpeg, synthetic_raw(mlpeg, n, seed=42)
    if "1000x1000" in only:
        cfg = config_from_dict(large_config())
        yield "1000x1000", cfg, synthetic_raw(cfg, 1000, seed=7)


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


def write_dataset(name: str, cfg, raw, root: Path) -> Path:
    """The data set as a directory ``ml-peg-like serve`` reads (config.yml + raw_metrics.csv)."""
    from ml_peg_like import dump_config

    out = root / name
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "raw_metrics.csv").is_file():
        (out / "config.yml").write_text(dump_config(cfg), encoding="utf-8")
        raw.to_long(cfg).to_csv(out / "raw_metrics.csv", index=False, float_format="%.10g")
    load_dataset(out)  # builds the binary raw cache once, so both runs start alike
    return out


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


#: the first rows are drawn (a model's name: a large table's grid draws empty rows until its
#: first block of rows arrives)
FIRST_ROWS = """() => [...document.querySelectorAll('#grid .ag-cell[col-id="model"]')]
  .some(c => c.textContent.trim())"""

#: when the first view's best overall score was painted (ms from navigation: the browser's
#: Element Timing entry of ``firstview.PAINT_MARK``); NaN where the page has no first view
PAINTED = (
    """() => new Promise((done) => {
  try {
    new PerformanceObserver((list) => {
      const e = list.getEntries().find((x) => x.identifier === "MARK");
      if (e) done(e.renderTime || e.loadTime);
    }).observe({ type: "element", buffered: true });
  } catch (err) { done(NaN); }
  setTimeout(() => done(NaN), 3000);
})"""
).replace("MARK", PAINT_MARK)

#: the responses of an edit: its callbacks and, for a large table, the blocks of rows the grid
#: fetches after it (components/bigrows.py)
EDIT_URLS = ("_dash-update-component",)

ALL_DONE = """(t0) => Math.max(0, ...performance.getEntriesByType('resource')
  .filter(e => URLS.some(u => e.name.includes(u)) && e.startTime >= t0 - 1)
  .map(e => e.responseEnd - t0))""".replace("URLS", json.dumps(EDIT_URLS))


def measure(name: str, cfg, raw, n_edits: int, data_dir: Path, full: bool, browser) -> dict:
    """Spawn ``ml-peg-like serve DIR`` (``--full-table``: the whole table per edit) and time it."""
    path = influential_metric(cfg)
    metric = cfg.node(path)
    bench_view = path.rsplit("/", 1)[0]
    good0, bad0 = metric.good, metric.bad
    candidates = [good0 + f * (bad0 - good0) for f in (0.0, 0.45, 0.2, 0.6, 0.1, 0.35)]
    result: dict = {"name": name, "models": len(raw.models), "metrics": len(cfg.metric_paths())}
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "ml_peg_like", "serve", str(data_dir), "--port", str(port)]
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    t_spawn = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # as a person who opens the address the moment it answers: the server listens from
        # its first moment (earlypage.py); /health answers once the app is up (a thread)
        wait_listening(proc, port, t_spawn, name)
        ready: list[float] = []
        health = threading.Thread(
            target=lambda: (wait_health(proc, url, t_spawn, name, timeout=120),
                            ready.append(time.perf_counter() - t_spawn)),
            daemon=True,
        )  # fmt: skip
        health.start()
        t_goto = time.perf_counter()
        page.goto(url, wait_until="commit")
        page.wait_for_function(FIRST_ROWS, timeout=120_000)
        result["kept_page"] = page.evaluate(KEPT)  # (the template stays in the page)
        result["first_cells_s"] = time.perf_counter() - t_spawn
        health.join(120)
        result["http_ready_s"] = ready[0] if ready else float("nan")
        painted = page.evaluate(PAINTED)  # the first view's ranking painted (ms)
        result["first_seen_s"] = (
            t_goto - t_spawn + painted / 1000 if painted == painted else result["first_cells_s"]
        )
        result["layout_kib"] = len(urllib.request.urlopen(url + "/_dash-layout").read()) / 1024
        sizes: list[tuple[float, int]] = []
        served: list[float] = []  # the server's ms per answer (its Server-Timing header)

        def on_response(r):
            if any(u in r.url for u in EDIT_URLS):
                ms = server_ms(r.headers)
                if ms is not None:
                    served.append(ms)
                try:
                    sizes.append((time.perf_counter(), len(r.body())))
                except Exception:  # noqa: BLE001 (a 204 has no body)
                    sizes.append((time.perf_counter(), 0))

        page.on("response", on_response)
        page.goto(url + "/" + make_query({}, bench_view))
        page.wait_for_selector(f"input[name='{path}.good']", timeout=120_000)
        page.wait_for_selector("#grid .ag-cell[col-id='o']")
        page.wait_for_timeout(500)
        page.evaluate(INSTALL)
        times, per_edit, server = [], [], []
        i = 0
        for _k in range(n_edits + 40):
            if len(times) >= n_edits:
                break
            value = candidates[(i + 1) % len(candidates)]
            i += 1
            n_before, s_before = len(sizes), len(served)
            t_cells = timed_edit(page, raw, cfg, path, value)
            if t_cells is None:
                continue
            page.wait_for_timeout(250)
            t_resp = page.evaluate(ALL_DONE, page.evaluate("() => window.__t0"))
            times.append(max(t_cells, t_resp))
            per_edit.append(sum(b for _t, b in sizes[n_before:]))
            server.append(sum(served[s_before:]))
        result["edit_ms"] = times
        result["median_ms"] = statistics.median(times) if times else float("nan")
        result["edit_kib"] = statistics.median(per_edit) / 1024 if per_edit else float("nan")
        result["rss_mib"] = rss_mib(proc.pid)
        result["server_ms"] = statistics.median(server) if server else float("nan")
    finally:
        page.close()
        proc.terminate()
        proc.wait(timeout=20)
    return result


TARGETS = {  # the scale targets: first cells s, edit ms, KiB per edit, RSS MiB
    "ml-peg": (1.5, 60, 10, 120),
    "1000x1000": (3, 100, 50, 250),
    "10000x339": (6, 300, 100, 600),
}


def _merge(runs: list[dict]) -> dict:
    """One result from interleaved rounds: medians over the rounds; every edit time kept."""
    out = dict(runs[0])
    for k in (
        "first_seen_s",
        "first_cells_s",
        "http_ready_s",
        "median_ms",
        "edit_kib",
        "layout_kib",
        "rss_mib",
    ):
        out[k] = statistics.median(r[k] for r in runs)
    out["edit_ms"] = [t for r in runs for t in r["edit_ms"]]
    out["round_ms"] = [round(r["median_ms"]) for r in runs]
    out["kept"] = " ".join(
        f"{r['first_seen_s']:.2f}{'k' if r.get('kept_page') else ''}" for r in runs
    )
    out["server_ms"] = statistics.median(r.get("server_ms", float("nan")) for r in runs)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edits", type=int, default=10)
    p.add_argument("--only", default="ml-peg,300x339,1000x339,1000x1000,10000x339")
    p.add_argument("--rounds", type=int, default=2, help="interleaved before/after rounds")
    p.add_argument("--data", default=None, help="where the data sets are written (default: tmp)")
    args = p.parse_args(argv)
    only = args.only.split(",")
    root = Path(args.data or tempfile.mkdtemp(prefix="bench-dashboard-"))
    cols = ("first_cells_s", "median_ms", "edit_kib", "layout_kib", "rss_mib")
    print(
        "data | run | first rows readable s (first view) | first grid cells from spawn s "
        "(HTTP ready) | edit -> all responses ms | "
        "KiB per edit | layout KiB | server RSS MiB",
        flush=True,
    )
    compile_package()
    with chromium() as browser:
        for name, cfg, raw in datasets(set(only)):
            d = write_dataset(name, cfg, raw, root)
            runs: dict[bool, list[dict]] = {True: [], False: []}
            for _r in range(args.rounds):  # A/B/A/B: load drift hits both alike
                for full in (True, False):
                    runs[full].append(measure(name, cfg, raw, args.edits, d, full, browser))
            before, after = _merge(runs[True]), _merge(runs[False])
            for tag, r in (("before", before), ("after", after)):
                print(
                    f"{name} {r['models']}x{r['metrics']} | {tag} | {r['first_seen_s']:.2f} "
                    f"(rounds: {r['kept']}) | "
                    f"{r['first_cells_s']:.2f} "
                    f"({r['http_ready_s']:.2f}) | {r['median_ms']:.0f} (rounds {r['round_ms']}) | "
                    f"{r['edit_kib']:.1f} | {r['layout_kib']:.0f} | {r['rss_mib']:.0f}",
                    flush=True,
                )
            print(
                f"{name} | server ms per edit (Server-Timing; the rest of the edit is the "
                f"browser and the network) | before {before['server_ms']:.1f} | "
                f"after {after['server_ms']:.1f}",
                flush=True,
            )
            ratio = " ".join(
                f"{c}={before[c] / after[c]:.2f}" if after[c] else f"{c}=n/a" for c in cols
            )
            t = TARGETS.get(name)
            met = ""
            if t:
                ok = [
                    after["first_seen_s"] <= t[0],
                    after["median_ms"] <= t[1],
                    after["edit_kib"] <= t[2],
                    after["rss_mib"] <= t[3],
                ]
                met = " targets (first rows readable, edit, KiB, RSS) " + " ".join(
                    f"{'met' if o else 'MISSED'}<={v}" for o, v in zip(ok, t, strict=True)
                )
            print(f"{name} | before/after | {ratio}{met}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
