#!/usr/bin/env python
"""A threshold edit of the dashboard, scored in the browser (NOW: a checkout of this design)
against the design before it (BEFORE: one server callback per edit, row deltas), in headless
Chromium. Each run spawns ``python -m ml_peg_like serve DIR --port P`` from its own checkout
(``PYTHONPATH=<checkout>``), BEFORE and NOW interleaved round by round (B N, N B, B N, ...) so
load drift on a shared machine hits both alike. Per data set and checkout, medians of:

  edit          Enter in the good box of the most influential metric (its benchmark view: the
                only view with threshold boxes; the curve panel is open there) -> every rendered
                row right: its Overall cell shows the Python engine's text for that edit, its
                rank cell the engine's rank, the rows in rank order; then the next frame
                painted. Enter is stamped in the page by a capture-phase keydown listener
                (``performance.now()``); the rows are checked by a MutationObserver on the grid
                at every DOM change; "painted" is a requestAnimationFrame then a setTimeout(0)
                after the check passed ("edit DOM": the check alone).
  requests      requests to the server that started (Resource Timing ``startTime``) between
                Enter and the rows right (the most in one edit, not a median)
  curve         Enter -> the curve graph's model points (``data`` of the Plotly graph div, its
                ``models`` trace) hold the engine's metric scores (each within 1e-3 x scale: the
                points are written to 3 significant digits), checked at every Plotly
                ``plotly_afterplot`` event and DOM change of the curve's div; with the requests
                that started before it
  first rows    spawn -> the first ``.ag-cell[col-id='o']`` with a number (a
                requestAnimationFrame poll from the document's start stamps it with
                ``performance.timeOrigin + performance.now()``, compared with the spawn's epoch)
  RSS           the server's resident memory (its process tree) once the page is loaded and 10
                edits are made and answered

    python benchmarks/bench_edit.py [--only ml-peg,1000x1000,10000x339] [--rounds 3] [--edits 8]
        [--before /work/wt/before] [--now /work/main] [--data DIR]

BEFORE is a worktree of the previous design (``git -C /work/main worktree add --detach
/work/wt/before b3e7b62``). Data sets (``bench_dashboard.py``'s): ML-PEG scale 30 models x 339
metrics (needs ML-PEG's configs from ../shared/anchors), 1,000 x 1,000 and 10,000 x 339; written
once to ``--data`` (default: a directory in the system's temp). Each spawned server keeps its
bytecode (``PYTHONPYCACHEPREFIX``) and its output (``serve.log``) under ``--data``/pycache/,
never in the checkout. A line after the table says when NOW's curve still waited for the server.

``--profile``: NOW alone, per data set: the first page's weight and timing, then per edit the
phases (the page's public hooks wrapped: the edit callback, ``mplEngine.score``,
``mplLive.refreshGrid``, ``mplLive.redraw``) and the main thread's CPU from Enter to the rows
right by script and by function (a CDP ``Profiler`` profile).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_dashboard import (  # noqa: E402
    influential_metric,
    large_config,
    mlpeg_config,
    synthetic_raw,
    wait_listening,
    write_dataset,
)
from browser_utils import CHROMIUM_ARGS, VIEWPORT, chromium  # noqa: E402

from ml_peg_like import config_from_dict, score  # noqa: E402
from ml_peg_like.dashboard.state import make_query  # noqa: E402
from ml_peg_like.numfmt import fmt_score  # noqa: E402

#: ML-PEG's configs: the worktree's ../shared/anchors, else the project's shared directory
ANCHOR_DIRS = (
    ROOT.parent / "shared" / "anchors" / "ml-peg" / "configs",
    Path("/work/shared/anchors/ml-peg/configs"),
)
#: (first rows s, edit ms, requests waited, RSS MiB) by data set
TARGETS = {
    "ml-peg": (1.5, 30, 0, 120),
    "1000x1000": (3, 80, 0, 250),
    "10000x339": (6, 200, 0, 500),
}
RSS_AFTER_EDITS = 10
CURVE_TOL = 1e-3  # x scale: the curve's points are written to 3 significant digits

# ------------------------------------------------------------------------------------------------
# the page's side: installed before any script of the page (an init script)
# ------------------------------------------------------------------------------------------------

PAGE_JS = r"""
(() => {
  const W = window, M = (W.__mpl = { t0: NaN, first: NaN, st: null });
  try { performance.setResourceTimingBufferSize(100000); } catch (e) { /* older browser */ }
  const poll = () => {
    const c = document.querySelector(".ag-cell[col-id='o']");
    if (c && /\d/.test(c.textContent)) { M.first = performance.timeOrigin + performance.now(); return; }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
  document.addEventListener("keydown", (e) => { if (e.key === "Enter") M.t0 = performance.now(); }, true);

  M.rows = () => {  // {row-index: {name, rank (its digits), o}} of the rendered rows
    const rows = {};
    document.querySelectorAll("#grid .ag-row").forEach((r) => {
      const o = rows[r.getAttribute("row-index")] ||= {};
      const cell = (id) => r.querySelector(`.ag-cell[col-id="${id}"]`);
      if (cell("model")) o.name = cell("model").textContent;
      if (cell("rank")) o.rank = cell("rank").textContent.replace(/\D/g, "");
      if (cell("o")) o.o = cell("o").textContent.trim();
    });
    return rows;
  };
  M.cellsRight = (exp) => {  // exp: {model: [overall text, rank text]}
    const rows = M.rows();
    let n = 0, last = 0;
    for (const i of Object.keys(rows).map(Number).sort((a, b) => a - b)) {
      const r = rows[i];
      if (r.name === undefined || r.o === undefined) continue;
      const e = exp[r.name];
      if (!e || e[0] !== r.o || e[1] !== r.rank) return false;
      const rank = r.rank === "" ? Infinity : Number(r.rank);
      if (rank < last) return false;  // the rows in rank order
      last = rank;
      n++;
    }
    return n > 0;
  };

  const TYPES = { f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array,
                  i1: Int8Array, u4: Uint32Array, u2: Uint16Array, u1: Uint8Array };
  const decode = (a) => {  // a trace's y: an array, a typed array or Plotly's {dtype, bdata}
    if (!a) return [];
    if (Array.isArray(a) || ArrayBuffer.isView(a)) return Array.from(a);
    if (a.bdata && TYPES[a.dtype]) {
      const bin = atob(a.bdata), buf = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
      return Array.from(new TYPES[a.dtype](buf.buffer));
    }
    return [];
  };
  M.graph = () => document.querySelector("#curve .js-plotly-plot");
  M.curveYs = () => {
    const gd = M.graph();
    if (!gd || !Array.isArray(gd.data)) return null;
    const pts = gd.data.filter((t) => String(t.mode || "").includes("markers") && t.name !== "instances");
    const t = pts.find((x) => x.name === "models") || pts[0];
    return t ? decode(t.y).filter(Number.isFinite).sort((a, b) => a - b) : null;
  };
  const covered = (a, b, tol) => {  // every value of sorted a within tol of one of sorted b
    let j = 0;
    for (const x of a) {
      while (j < b.length && b[j] < x - tol) j++;
      if (j >= b.length || b[j] > x + tol) return false;
    }
    return true;
  };
  M.curveRight = (exp, tol) => {
    const ys = M.curveYs();
    return !!ys && ys.length > 0 && covered(ys, exp, tol) && covered(exp, ys, tol);
  };

  const afterPaint = (fn) => requestAnimationFrame(() => setTimeout(fn, 0));
  M.arm = (cells, curve, tol) => {
    const st = (M.st = { dom: NaN, paint: NaN, curve: NaN });
    M.cellsDone = new Promise((resolve) => {
      const obs = new MutationObserver(() => {
        if (!M.cellsRight(cells)) return;
        obs.disconnect();
        st.dom = performance.now();
        afterPaint(() => { st.paint = performance.now(); resolve(st); });
      });
      obs.observe(document.querySelector("#grid"),
                  { subtree: true, childList: true, characterData: true, attributes: true });
    });
    M.curveDone = !curve ? Promise.resolve(st) : new Promise((resolve) => {
      const check = () => {
        if (!isNaN(st.curve) || !M.curveRight(curve, tol)) return;
        st.curve = performance.now();
        obs.disconnect();
        resolve(st);
      };
      const obs = new MutationObserver(check);
      obs.observe(document.querySelector("#curve") || document.body, { subtree: true, childList: true });
      M.onPlot = check;
      const gd = M.graph();
      if (gd && gd.on && !gd.__mplHooked) {
        gd.__mplHooked = true;
        gd.on("plotly_afterplot", () => M.onPlot && M.onPlot());
      }
    });
  };
  // requests to this server that started from Enter up to t (ms of the page)
  M.requestsBefore = (t) => performance.getEntriesByType("resource").filter(
    (e) => e.name.startsWith(location.origin) && e.startTime >= M.t0 - 1 && e.startTime <= t).length;
})();
"""

WAIT = """async ([which, ms]) => await Promise.race([window.__mpl[which],
  new Promise((r) => setTimeout(() => r(null), ms))])"""

# ------------------------------------------------------------------------------------------------
# data sets and what the engine expects
# ------------------------------------------------------------------------------------------------


def anchors() -> Path | None:
    return next((d for d in ANCHOR_DIRS if d.is_dir()), None)


def datasets(only: list[str], root: Path):
    """(name, config, raw, directory) of each data set asked for (written once to ``root``)."""
    configs = anchors()
    mlpeg = config_from_dict(mlpeg_config(configs)) if configs else None
    sizes = {"ml-peg": 30, "10000x339": 10000}
    for name in only:
        if name in sizes:
            if mlpeg is None:
                print(f"{name} skipped: ML-PEG's configs not found in {ANCHOR_DIRS}", flush=True)
                continue
            cfg, raw = mlpeg, synthetic_raw(mlpeg, sizes[name], seed=42)
        elif name == "1000x1000":
            cfg = config_from_dict(large_config())
            raw = synthetic_raw(cfg, 1000, seed=7)
        else:
            print(f"{name} skipped: unknown data set", flush=True)
            continue
        yield name, cfg, raw, write_dataset(name, cfg, raw, root)


@dataclass
class Expected:
    """What the page must show after an edit of ``path``'s good threshold to ``text``."""

    text: str
    cells: dict  # model -> [overall text, rank digits]
    curve: list  # sorted distinct scores x scale of the curve's points


def expected(raw, cfg, path: str, value: float) -> Expected:
    """The Python engine's scores for ``{path: {good: value}}``."""
    c = cfg.apply_changes({path: {"good": value}}) if value != cfg.node(path).good else cfg
    s = score(raw, c)
    ov = s.overall
    cells = {}
    for m, v, r in zip(ov.index, ov["score"], ov["rank"], strict=True):
        cells[str(m)] = [fmt_score(v, cfg.scale), "" if math.isnan(v) else str(int(r))]
    j = s.plan.metric_paths.index(cfg.full_path(path))
    x, y = s.raw_values[:, j], s.metric_scores[:, j]
    ys = y[~np.isnan(x) & ~np.isnan(y)] * cfg.scale
    text = f"{value:.6g}" if abs(value) < 1e6 else repr(value)
    return Expected(text, cells, np.unique(ys).tolist())


def edit_plan(raw, cfg, path: str) -> list[Expected]:
    """The values typed, in turn (the default first: where every run starts)."""
    m = cfg.node(path)
    good, bad = float(m.good), float(m.bad)
    return [
        expected(raw, cfg, path, good + f * (bad - good)) for f in (0, 0.45, 0.2, 0.6, 0.1, 0.35)
    ]


# ------------------------------------------------------------------------------------------------
# the server
# ------------------------------------------------------------------------------------------------


def server_env(checkout: Path, cache: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout), PYTHONPYCACHEPREFIX=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def check_checkout(checkout: Path, cache: Path) -> None:
    """The checkout's package is the one a spawned server imports; its bytecode is written
    (to ``cache``), so no run compiles it."""
    env = server_env(checkout, cache)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(checkout / "ml_peg_like")],
        env=env, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c", "import ml_peg_like; print(ml_peg_like.__file__)"],
        env=env, cwd=checkout, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if not Path(out).resolve().is_relative_to(checkout.resolve()):
        raise SystemExit(f"{checkout}: a server would import {out}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tree_rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants (MiB)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return total / 1024


# ------------------------------------------------------------------------------------------------
# one run: spawn, first rows, edits, RSS
# ------------------------------------------------------------------------------------------------


class Traffic:
    """The page's requests to the server in flight (to wait until it has answered an edit)."""

    def __init__(self, page, base: str):
        self.n = 0
        self.page = page
        own = lambda r: r.url.startswith(base)  # noqa: E731
        page.on("request", lambda r: self._add(1) if own(r) else None)
        page.on("requestfinished", lambda r: self._add(-1) if own(r) else None)
        page.on("requestfailed", lambda r: self._add(-1) if own(r) else None)

    def _add(self, k: int) -> None:
        self.n += k

    def wait_idle(self, quiet_ms: int = 300, timeout_s: float = 60) -> None:
        t_end, quiet = time.perf_counter() + timeout_s, 0
        while quiet < quiet_ms and time.perf_counter() < t_end:
            self.page.wait_for_timeout(50)
            quiet = quiet + 50 if self.n <= 0 else 0


@dataclass
class Run:
    first_s: float = math.nan
    rss_mib: float = math.nan
    edits: list = field(default_factory=list)  # per timed edit: dict of ms and counts


def box_selector(path: str) -> str:
    return "input[name=" + json.dumps(path + ".good", ensure_ascii=False) + "]"


def one_edit(page, traffic: Traffic, path: str, exp: Expected, scale: float, cdp=None):
    """Type ``exp.text`` into the good box and press Enter; the timings (None when the rendered
    rows already show ``exp``: nothing to measure, nothing typed). ``cdp``: a CDP session whose
    CPU profile of the edit (Enter -> rows right) is kept as the result's "cpu"."""
    if page.evaluate("(e) => window.__mpl.cellsRight(e)", exp.cells):
        return None
    curve = None if page.evaluate("([c, t]) => window.__mpl.curveRight(c, t)",
                                  [exp.curve, CURVE_TOL * scale]) else exp.curve  # fmt: skip
    page.evaluate("() => performance.clearResourceTimings()")
    page.evaluate("([a, b, t]) => window.__mpl.arm(a, b, t)", [exp.cells, curve, CURVE_TOL * scale])
    box = page.locator(box_selector(path))
    box.fill(exp.text)
    if cdp:
        cdp.send("Profiler.start")
    box.press("Enter")
    st = page.evaluate(WAIT, ["cellsDone", 30_000])
    p1 = page.evaluate("() => performance.now()")
    prof = cdp.send("Profiler.stop")["profile"] if cdp else None
    page.evaluate(WAIT, ["curveDone", 15_000])
    traffic.wait_idle()
    t0 = page.evaluate("() => window.__mpl.t0")
    st = page.evaluate("() => window.__mpl.st") if st else None
    if not st or st["dom"] is None:
        return {"dom": math.nan, "paint": math.nan, "req": math.nan, "curve": math.nan,
                "req_curve": math.nan}  # fmt: skip
    count = lambda t: page.evaluate("(t) => window.__mpl.requestsBefore(t)", t)  # noqa: E731
    has_curve = curve is not None and st.get("curve") is not None
    return {
        "cpu": cpu_self(prof, p1, t0, st["dom"]) if prof else {},
        "cpu_fn": cpu_self(prof, p1, t0, st["dom"], by_function=True) if prof else {},
        "dom": st["dom"] - t0,
        "paint": st["paint"] - t0,
        "req": count(st["dom"]),
        "curve": st["curve"] - t0 if has_curve else math.nan,
        "req_curve": count(st["curve"]) if has_curve else math.nan,
    }


def edits(page, traffic, proc, path, plan, scale, n: int, run: Run, cdp=None) -> None:
    """``n`` timed edits (cycling through ``plan``); RSS once ``RSS_AFTER_EDITS`` are made."""
    made, k = 0, 0
    while (len(run.edits) < n or made < RSS_AFTER_EDITS) and k < 4 * len(plan) + 2 * n:
        k += 1
        e = one_edit(page, traffic, path, plan[k % len(plan)], scale, cdp)
        if e is None:
            continue
        made += 1
        if len(run.edits) < n:
            run.edits.append(e)
        if made == RSS_AFTER_EDITS:
            run.rss_mib = tree_rss_mib(proc.pid)


def spawn(checkout: Path, cache: Path, data_dir: Path, port: int) -> subprocess.Popen:
    """``python -m ml_peg_like serve DATA --port PORT`` from ``checkout``; its output goes to
    ``cache``/serve.log (appended)."""
    cmd = [sys.executable, "-m", "ml_peg_like", "serve", str(data_dir), "--port", str(port)]
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "serve.log", "ab") as log:
        return subprocess.Popen(
            cmd, env=server_env(checkout, cache), cwd=checkout, stdout=log, stderr=log
        )


def open_page(page, url: str, proc) -> None:
    """Navigate to ``url``; a refused connection is tried again for 30 s while the server
    runs (a server may close its first socket as its app takes over)."""
    from playwright.sync_api import Error

    t_end = time.perf_counter() + 30
    while True:
        try:
            page.goto(url, wait_until="commit", timeout=120_000)
            return
        except Error as err:
            if "ERR_CONNECTION_REFUSED" not in str(err) or time.perf_counter() > t_end:
                raise
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited ({proc.returncode})") from err
            page.wait_for_timeout(50)


def first_rows(browser, url: str, proc, t_spawn: float):
    """Open ``url`` as soon as the server listens; (the page, seconds from spawn to the first
    overall cell with a number)."""
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.add_init_script(PAGE_JS)
    page = ctx.new_page()
    wait_listening(proc, int(url.rsplit(":", 1)[1]), time.perf_counter())
    open_page(page, url, proc)
    page.wait_for_function("() => !isNaN(window.__mpl.first)", timeout=120_000, polling=100)
    return page, page.evaluate("() => window.__mpl.first") / 1000 - t_spawn


def measure(checkout: Path, cache: Path, data_dir: Path, browser, ds, n_edits: int) -> Run:
    """One run of ``checkout``'s server on ``data_dir``."""
    cfg, path, plan = ds
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    run = Run()
    t_spawn = time.time()
    proc = spawn(checkout, cache, data_dir, port)
    page = None
    try:
        page, run.first_s = first_rows(browser, url, proc, t_spawn)
        traffic = Traffic(page, url)
        page.goto(url + "/" + make_query({}, path.rsplit("/", 1)[0]))
        page.wait_for_selector(box_selector(path), timeout=120_000)
        page.wait_for_selector("#grid .ag-cell[col-id='o']")
        traffic.wait_idle(quiet_ms=500)
        edits(page, traffic, proc, path, plan, cfg.scale, n_edits, run)
    finally:
        if page is not None:
            page.context.close()
        proc.terminate()
        proc.wait(timeout=30)
    return run


# ------------------------------------------------------------------------------------------------
# --profile: where an edit's time goes in NOW
# ------------------------------------------------------------------------------------------------

#: wraps the page's public hooks (the edit callback, the engine's score, the grid's and the
#: curve's redraw) to stamp each edit's phases, in ms from Enter
PHASES_JS = r"""() => {
  const M = window.__mpl, P = (M.phases = []);
  const wrap = (obj, name, tag) => {
    const f = obj && obj[name];
    if (typeof f !== "function" || f.__mplWrapped) return;
    const g = function () {
      const t = performance.now();
      try { return f.apply(this, arguments); }
      finally { P.push([tag, t - M.t0, performance.now() - t]); }
    };
    g.__mplWrapped = true;
    obj[name] = g;
  };
  wrap(window.dash_clientside.mplEdit, "box", "callback");
  wrap(window.mplEngine, "score", "score");
  wrap(window.mplLive, "refreshGrid", "grid");
  wrap(window.mplLive, "redraw", "redraw");
}"""


#: the first page's weight and timing (Navigation Timing; the board's JSON element)
PAGE_LOAD = """() => {
  const n = performance.getEntriesByType("navigation")[0];
  const b = document.getElementById("mpl-bundle");
  const mib = (x) => (x / 1048576).toFixed(1);
  return `the page: ${mib(n.decodedBodySize)} MiB of HTML (board JSON ${mib(b ? b.textContent.length : 0)}` +
    ` MiB), its last byte at ${n.responseEnd.toFixed(0)} ms, DOMContentLoaded at ` +
    `${n.domContentLoadedEventEnd.toFixed(0)} ms, the first overall cell at ` +
    `${(window.__mpl.first - performance.timeOrigin).toFixed(0)} ms (from navigation)`;
}"""


def frame_name(cf: dict, with_function: bool) -> str:
    """A profile node's script (file name) or, ``with_function``, ``script:function``."""
    script = cf["url"].rsplit("/", 1)[-1].split("?")[0]
    if not with_function or not script:
        return script or cf["functionName"] or "(anonymous)"
    return f"{script}:{cf['functionName'] or '(anonymous)'}"


def cpu_self(profile: dict, p1: float, lo: float, hi: float, by_function=False) -> dict:
    """Self time (ms) of a CDP ``Profiler`` profile by script (its file name; native work:
    "(program)", "(garbage collector)"; ``by_function``: by script and function) over the
    samples from ``lo`` to ``hi`` (ms of the page's clock; ``p1``: the page's clock just
    before the profiler stopped, its ``endTime``), idle left out."""
    where = {n["id"]: frame_name(n["callFrame"], by_function) for n in profile["nodes"]}
    out: dict[str, float] = {}
    t = (profile["startTime"] - profile["endTime"]) / 1000  # ms before the stop
    for sid, dt in zip(profile["samples"], profile["timeDeltas"], strict=True):
        t += dt / 1000
        key = where.get(sid, "?")
        if key != "(idle)" and lo <= p1 + t <= hi:
            out[key] = out.get(key, 0.0) + dt / 1000
    return out


def phase_summary(phases: list[list]) -> dict[str, tuple[float, float]]:
    """{phase: (median start ms from Enter, median duration ms)} over the edits."""
    out = {}
    for tag in sorted({p[0] for p in phases}):
        ps = [p for p in phases if p[0] == tag]
        out[tag] = (med(p[1] for p in ps), med(p[2] for p in ps))
    return out


def profile_now(checkout: Path, cache: Path, data_dir: Path, browser, ds, n_edits: int) -> None:
    """NOW alone: phases of each edit (the wrapped hooks) and a CPU profile of the edits."""
    cfg, path, plan = ds
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = spawn(checkout, cache, data_dir, port)
    page = None
    try:
        page, first = first_rows(browser, url, proc, time.time())
        print(f"  first rows {first:.2f} s from spawn; " + page.evaluate(PAGE_LOAD), flush=True)
        traffic = Traffic(page, url)
        page.goto(url + "/" + make_query({}, path.rsplit("/", 1)[0]))
        page.wait_for_selector(box_selector(path), timeout=120_000)
        traffic.wait_idle(quiet_ms=500)
        page.evaluate(PHASES_JS)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 100})
        run = Run()
        edits(page, traffic, proc, path, plan, cfg.scale, n_edits, run, cdp)
        report_profile(run, page.evaluate("() => window.__mpl.phases"))
    finally:
        if page is not None:
            page.context.close()
        proc.terminate()
        proc.wait(timeout=30)


def report_profile(run: Run, phases: list) -> None:
    s = summary([run])
    print(f"  edits {[round(e['paint']) for e in run.edits]} ms (rows right in the DOM: median "
          f"{s['edit DOM']:.0f} ms; painted: {s['edit']:.0f} ms)")  # fmt: skip
    for tag, (start, dur) in phase_summary(phases).items():
        print(f"  {tag}: starts {start:.1f} ms after Enter, lasts {dur:.1f} ms (medians)")
    for key, what in (("cpu", "script"), ("cpu_fn", "function")):
        cpu = mean_cpu(run.edits, key)
        top = sorted(cpu.items(), key=lambda kv: -kv[1])[:10]
        print(f"  CPU of the main thread from Enter to the rows right by {what}, ms per edit "
              f"(mean; {sum(cpu.values()):.0f} ms busy): "
              + ", ".join(f"{k} {v:.1f}" for k, v in top))  # fmt: skip


def mean_cpu(edits: list[dict], key: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for e in edits:
        for k, v in e[key].items():
            out[k] = out.get(k, 0.0) + v / len(edits)
    return out


# ------------------------------------------------------------------------------------------------
# the table
# ------------------------------------------------------------------------------------------------


def med(xs) -> float:
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    return statistics.median(xs) if xs else math.nan


def most(xs) -> float:
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    return max(xs) if xs else math.nan


def summary(runs: list[Run]) -> dict:
    """Medians over every timed edit of the rounds (first rows and RSS: over the rounds; the
    requests: the most of one edit)."""
    es = [e for r in runs for e in r.edits]
    return {
        "edit": med(e["paint"] for e in es),
        "edit DOM": med(e["dom"] for e in es),
        "requests waited (most in one edit)": most(e["req"] for e in es),
        "curve": med(e["curve"] for e in es),
        "requests before curve (most)": most(e["req_curve"] for e in es),
        "first rows": med(r.first_s for r in runs),
        "RSS": med(r.rss_mib for r in runs),
        "n": len(es),
        "rounds": " ".join(f"{med(e['paint'] for e in r.edits):.0f}" for r in runs),
    }


#: measure -> (unit, format, index into TARGETS' tuple or None)
MEASURES = {
    "edit": ("ms", "{:.0f}", 1),
    "edit DOM": ("ms", "{:.0f}", None),
    "requests waited (most in one edit)": ("", "{:.0f}", 2),
    "curve": ("ms", "{:.0f}", None),
    "requests before curve (most)": ("", "{:.0f}", None),
    "first rows": ("s", "{:.2f}", 0),
    "RSS": ("MiB", "{:.0f}", 3),
}


def fmt(v: float, form: str) -> str:
    return "n/a" if v is None or math.isnan(v) else form.format(v)


def table_rows(name: str, size: str, before: dict, now: dict) -> list[str]:
    out = []
    for m, (unit, form, ti) in MEASURES.items():
        b, n = before[m], now[m]
        ratio = f"{b / n:.2f}" if n and not math.isnan(b) and not math.isnan(n) else "n/a"
        target, met = "", ""
        if ti is not None and name in TARGETS:
            t = TARGETS[name][ti]
            target = f"<= {t}"
            met = "n/a" if math.isnan(n) else ("met" if n <= t else "MISSED")
        label = f"{m} ({unit})" if unit else m
        out.append(
            f"| {name} {size}".rstrip()
            + f" | {label} | {fmt(b, form)} | {fmt(n, form)} | {ratio} | {target} | {met} |"
        )
    return out


def curve_note(name: str, now: dict) -> str | None:
    waited = now["requests before curve (most)"]
    if math.isnan(now["curve"]):
        return f"{name}: curve not measured (no curve point changed or none drawn)"
    if waited > 0:
        return (
            f"{name}: the curve of NOW still waits for the server ({waited:.0f} request(s) before "
            "its points are right): the curve in the browser is not in this checkout yet; its "
            "figures are those of the server-drawn curve"
        )
    return None


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def run_dataset(name, cfg, raw, d, checkouts, browser, args, cache) -> tuple[dict, dict]:
    path = influential_metric(cfg)
    ds = (cfg, path, edit_plan(raw, cfg, path))
    runs: dict[str, list[Run]] = {"before": [], "now": []}
    for r in range(args.rounds):
        order = ("before", "now") if r % 2 == 0 else ("now", "before")
        for tag in order:
            try:
                run = measure(checkouts[tag], cache / tag, d, browser, ds, args.edits)
            except Exception as err:  # noqa: BLE001 (one failed run: said, the others kept)
                print(f"  {name} round {r + 1} {tag} FAILED: {str(err)[:300]} "
                      f"(server output: {cache / tag / 'serve.log'})", flush=True)  # fmt: skip
                continue
            runs[tag].append(run)
            print(f"  {name} round {r + 1} {tag}: first rows {run.first_s:.2f} s, edits "
                  f"{[round(e['paint']) for e in run.edits]} ms, RSS {run.rss_mib:.0f} MiB, "
                  f"{load()}", flush=True)  # fmt: skip
    return summary(runs["before"]), summary(runs["now"])


def commit_of(checkout: Path) -> str:
    """The checkout's commit (short hash, "+changes" when its files differ from it)."""
    git = ["git", "-C", str(checkout)]
    try:
        head = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
        dirty = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    return head + (" +changes" if dirty else "")


def parse(argv) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="ml-peg,1000x1000,10000x339")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds per checkout")
    p.add_argument("--edits", type=int, default=8, help="timed edits per round")
    p.add_argument("--before", default="/work/wt/before", help="checkout of the previous design")
    p.add_argument("--now", default="/work/main", help="checkout of the design measured")
    p.add_argument("--profile", action="store_true", help="NOW alone: phases and CPU profile")
    p.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "ml-peg-like-bench-edit"))
    return p.parse_args(argv)


def compare(browser, args, checkouts, cache) -> None:
    lines, notes = [], []
    for name, cfg, raw, d in datasets(args.only.split(","), Path(args.data)):
        before, now = run_dataset(name, cfg, raw, d, checkouts, browser, args, cache)
        size = f"{len(raw.models)}x{len(cfg.metric_ids())}"
        lines += table_rows(name, "" if size == name else size, before, now)
        notes.append(f"{name}: {now['n']} edits timed per checkout; edit ms per round: "
                     f"before {before['rounds']}, now {now['rounds']}")  # fmt: skip
        notes += [n for n in [curve_note(name, now)] if n]
    print("\n| data set | measure | before | now | ratio before/now | target (now) | met |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    print("\n".join(notes))


def profile(browser, args, checkouts, cache) -> None:
    for name, cfg, raw, d in datasets(args.only.split(","), Path(args.data)):
        path = influential_metric(cfg)
        print(f"{name}: NOW, {args.edits} edits of {path}.good, {load()}", flush=True)
        ds = (cfg, path, edit_plan(raw, cfg, path))
        profile_now(checkouts["now"], cache / "now", d, browser, ds, args.edits)


def main(argv=None) -> int:
    args = parse(argv)
    checkouts = {"before": Path(args.before).resolve(), "now": Path(args.now).resolve()}
    cache = Path(args.data) / "pycache"
    t_start = time.perf_counter()
    print(f"start: {load()}; Chromium {CHROMIUM_ARGS}; "
          + "; ".join(f"{t}={c} ({commit_of(c)})" for t, c in checkouts.items()), flush=True)  # fmt: skip
    for tag, c in checkouts.items():
        check_checkout(c, cache / tag)
    with chromium() as browser:
        (profile if args.profile else compare)(browser, args, checkouts, cache)
    print(f"end: {load()}; {time.perf_counter() - t_start:.0f} s in all", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
