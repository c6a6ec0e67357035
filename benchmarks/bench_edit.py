"""A threshold edit of the dashboard, scored in the browser (NOW: this checkout, or ``--now``),
alone or against another checkout (``--before DIR``, e.g. the design where every edit was one
server callback answered with row deltas), in headless Chromium. Each run spawns ``python -m
ml_peg_like serve DIR --port P`` from its own checkout (``PYTHONPATH=<checkout>``), BEFORE and
NOW interleaved round by round (B N, N B, B N, ...) so load drift on a shared machine hits both
alike. Per data set and checkout, medians of:

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

    python -m benchmarks.bench_edit [--only ml-peg,1000x1000,10000x339] [--rounds 3] [--edits 8]
        [--before DIR] [--now DIR] [--data DIR]

BEFORE: e.g. a worktree of the previous design (``git -C /work/main worktree add --detach
/work/wt/before b3e7b62``). Data sets (``datasets.dashboard_sets``): ML-PEG scale 30 models x 339
metrics (needs ML-PEG's configs from ../shared/anchors), 1,000 x 1,000 and 10,000 x 339; written
once to ``--data`` (default: a directory in the system's temp). Each spawned server keeps its
bytecode and its output (``serve.log``) in the harness's work directory, never in the checkout.
A line after the table says when NOW's curve still waited for the server; another, which of
NOW's targets are met.

``--profile``: NOW alone, per data set: the first page's weight and timing, then per edit the
phases (the page's public hooks wrapped: the edit callback, ``mplEngine.score``,
``mplLive.refreshGrid``, ``mplLive.redraw``) and the main thread's CPU from Enter to the rows
right by script and by function (a CDP ``Profiler`` profile).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ml_peg_like import score
from ml_peg_like.dashboard.state import make_query
from ml_peg_like.numfmt import fmt_score

from .datasets import dashboard_sets, write_dataset
from .harness import (
    CHROMIUM_ARGS,
    ROOT,
    Row,
    Server,
    checkouts,
    chromium,
    finite,
    interleave,
    load_average,
    median,
    new_page,
    open_when_listening,
    print_table,
)
from .page import influential_metric

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


def edits(page, traffic, server, path, plan, scale, n: int, run: Run, cdp=None) -> None:
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
            run.rss_mib = server.rss_mib()


def first_rows(browser, server: Server):
    """Open the server's page as soon as it listens; (the page, seconds from spawn to the first
    overall cell with a number)."""
    page = new_page(browser, PAGE_JS)
    server.wait_listening()
    open_when_listening(page, server)
    page.wait_for_function("() => !isNaN(window.__mpl.first)", timeout=120_000, polling=100)
    return page, page.evaluate("() => window.__mpl.first") / 1000 - server.epoch_spawn


def bench_view(page, server: Server, path: str) -> Traffic:
    """Go to ``path``'s benchmark view (its threshold boxes, the curve open); the page's
    traffic, once it is quiet."""
    traffic = Traffic(page, server.url)
    page.goto(server.url + "/" + make_query({}, path.rsplit("/", 1)[0]))
    page.wait_for_selector(box_selector(path), timeout=120_000)
    page.wait_for_selector("#grid .ag-cell[col-id='o']")
    traffic.wait_idle(quiet_ms=500)
    return traffic


def measure(checkout: Path, data_dir: Path, browser, ds, n_edits: int) -> Run:
    """One run of ``checkout``'s server on ``data_dir``."""
    cfg, path, plan = ds
    run = Run()
    page = None
    with Server(data_dir, checkout) as server:
        try:
            page, run.first_s = first_rows(browser, server)
            traffic = bench_view(page, server, path)
            edits(page, traffic, server, path, plan, cfg.scale, n_edits, run)
        finally:
            if page is not None:
                page.context.close()
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


def profile_now(checkout: Path, data_dir: Path, browser, ds, n_edits: int) -> None:
    """NOW alone: phases of each edit (the wrapped hooks) and a CPU profile of the edits."""
    cfg, path, plan = ds
    page = None
    with Server(data_dir, checkout) as server:
        try:
            page, first = first_rows(browser, server)
            print(f"  first rows {first:.2f} s from spawn; " + page.evaluate(PAGE_LOAD), flush=True)
            traffic = bench_view(page, server, path)
            page.evaluate(PHASES_JS)
            cdp = page.context.new_cdp_session(page)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 100})
            run = Run()
            edits(page, traffic, server, path, plan, cfg.scale, n_edits, run, cdp)
            report_profile(run, page.evaluate("() => window.__mpl.phases"))
        finally:
            if page is not None:
                page.context.close()


def report_profile(run: Run, phases: list) -> None:
    rows = [Row("edit painted", [e["paint"] for e in run.edits]),
            Row("edit, rows right in the DOM", [e["dom"] for e in run.edits])]  # fmt: skip
    for tag in sorted({ph[0] for ph in phases}):
        rows.append(Row(f"{tag}: starts after Enter", [ph[1] for ph in phases if ph[0] == tag]))
        rows.append(Row(f"{tag}: lasts", [ph[2] for ph in phases if ph[0] == tag]))
    for key, what in (("cpu", "script"), ("cpu_fn", "function")):
        cpu = mean_cpu(run.edits, key)
        for k, v in sorted(cpu.items(), key=lambda kv: -kv[1])[:10]:
            rows.append(Row(f"main-thread CPU, Enter to rows right, by {what}: {k} (mean)", [v]))
    print_table(rows)


def mean_cpu(edits: list[dict], key: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for e in edits:
        for k, v in e[key].items():
            out[k] = out.get(k, 0.0) + v / len(edits)
    return out


# ------------------------------------------------------------------------------------------------
# the table
# ------------------------------------------------------------------------------------------------


#: measure -> (unit, what of an edit or of a run, index into TARGETS' tuple or None)
MEASURES = {
    "edit": ("ms", lambda r: [e["paint"] for e in r.edits], 1),
    "edit DOM": ("ms", lambda r: [e["dom"] for e in r.edits], None),
    "requests waited": ("", lambda r: [e["req"] for e in r.edits], 2),
    "curve": ("ms", lambda r: [e["curve"] for e in r.edits], None),
    "requests before curve": ("", lambda r: [e["req_curve"] for e in r.edits], None),
    "first rows": ("s", lambda r: [r.first_s], 0),
    "RSS": ("MiB", lambda r: [r.rss_mib], 3),
}


def rows(name: str, runs: dict[str, list[Run]]) -> list[Row]:
    """Per measure a row per checkout (edits of every round; first rows and RSS: one value a
    round; the requests: read their max), NOW's ratio to BEFORE's."""
    out = []
    for m, (unit, get, _t) in MEASURES.items():
        for tag, rs in runs.items():
            vs = f"{name} before: {m}" if tag == "now" and "before" in runs else None
            out.append(Row(f"{name} {tag}: {m}", [v for r in rs for v in get(r)], unit, vs))
    return out


def targets_note(name: str, now: list[Run]) -> str | None:
    """Which of NOW's targets are met (the edit, first rows, RSS: medians; requests: most)."""
    if name not in TARGETS:
        return None
    parts = []
    for m, (unit, get, ti) in MEASURES.items():
        if ti is None:
            continue
        vals = [v for r in now for v in get(r)]
        v = max(finite(vals), default=math.nan) if m == "requests waited" else median(vals)
        t = TARGETS[name][ti]
        met = "n/a" if math.isnan(v) else ("met" if v <= t else "MISSED")
        parts.append(f"{m} <= {t}{unit}: {met}")
    return f"{name} targets (now): " + "; ".join(parts)


def curve_note(name: str, now: list[Run]) -> str | None:
    curve = median(e["curve"] for r in now for e in r.edits)
    waited = max(finite(e["req_curve"] for r in now for e in r.edits), default=math.nan)
    if math.isnan(curve):
        return f"{name}: curve not measured (no curve point changed or none drawn)"
    if waited > 0:
        return (
            f"{name}: the curve of NOW still waits for the server ({waited:.0f} request(s) before "
            "its points are right)"
        )
    return None


def run_dataset(name, cfg, raw, d, trees, browser, args) -> dict[str, list[Run]]:
    path = influential_metric(cfg)
    ds = (cfg, path, edit_plan(raw, cfg, path))
    runs: dict[str, list[Run]] = {tag: [] for tag in trees}
    for r, tag in interleave(list(trees), args.rounds):
        try:
            run = measure(trees[tag], d, browser, ds, args.edits)
        except Exception as err:  # noqa: BLE001 (one failed run: said, the others kept)
            print(f"  {name} round {r + 1} {tag} FAILED: {str(err)[:300]}", flush=True)
            continue
        runs[tag].append(run)
        print(f"  {name} round {r + 1} {tag}: first rows {run.first_s:.2f} s, edits "
              f"{[round(e['paint']) for e in run.edits]} ms, RSS {run.rss_mib:.0f} MiB, "
              f"{load_average()}", flush=True)  # fmt: skip
    return runs


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
    p.add_argument("--before", default=None, metavar="DIR", help="a checkout compared with NOW")
    p.add_argument(
        "--now", default=None, metavar="DIR", help="the checkout measured (default: this one)"
    )
    p.add_argument("--profile", action="store_true", help="NOW alone: phases and CPU profile")
    p.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "ml-peg-like-bench-edit"))
    return p.parse_args(argv)


def sets(args):
    for name, cfg, raw in dashboard_sets(args.only.split(",")):
        yield name, cfg, raw, write_dataset(name, cfg, raw, Path(args.data))


def compare(browser, args, trees) -> None:
    for name, cfg, raw, d in sets(args):
        runs = run_dataset(name, cfg, raw, d, trees, browser, args)
        size = f"{len(raw.models)} models x {len(cfg.metric_ids())} metrics"
        print_table(rows(name, runs), f"{name}: {size}")
        for note in (targets_note(name, runs["now"]), curve_note(name, runs["now"])):
            if note:
                print(note)


def profile(browser, args, trees) -> None:
    for name, cfg, raw, d in sets(args):
        path = influential_metric(cfg)
        print(f"{name}: NOW, {args.edits} edits of {path}.good, {load_average()}", flush=True)
        ds = (cfg, path, edit_plan(raw, cfg, path))
        profile_now(trees["now"], d, browser, ds, args.edits)


def main(argv=None) -> int:
    args = parse(argv)
    trees = checkouts(None if args.profile else args.before, args.now or ROOT)
    t_start = time.perf_counter()
    print(f"start: {load_average()}; Chromium {list(CHROMIUM_ARGS)}; "
          + "; ".join(f"{t}={c} ({commit_of(c)})" for t, c in trees.items()), flush=True)  # fmt: skip
    with chromium() as browser:
        (profile if args.profile else compare)(browser, args, trees)
    print(f"end: {load_average()}; {time.perf_counter() - t_start:.0f} s in all", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
