"""Dashboard scale benchmark: ``ml-peg-like serve DIR`` spawned per run and measured in headless
Chromium, on up to six data sets (``datasets.dashboard_sets``):

  ml-peg      30 models x the 77 benchmarks / 339 metrics / 18 categories of
              ../shared/anchors/ml-peg/configs, seeded synthetic raw values (3 % missing, 'skip')
  300x339, 1000x339, 10000x339   the same metrics, more models
  1000x1000   1,000 models x 1,000 metrics (10 categories x 10 benchmarks x 10 metrics)
  demo        the demo data set

    python -m benchmarks.bench_dashboard [--edits 10] [--rounds 2] [--only ml-peg,1000x1000]
        [--data DIR] [--before DIR]

Per run: the browser opens the address as soon as the spawned server accepts a connection
(``serve`` listens from its first moment, ``earlypage.py``); then the overview's first rows
readable from spawn (when the browser painted the first view's best overall score,
``dashboard/firstview.py``, by its Element Timing entry; the grid's first cells where the page
has none; "kept pages" counts the runs whose page was the server's kept copy, answered before
its app was up), the grid's first overall cells from spawn, HTTP ready (``/health`` answered),
edit -> all responses (N threshold edits in the benchmark view of the most influential metric:
a capture-phase keydown stamps the Enter; done = the later of the first DOM mutation after which
every rendered Overall cell shows the engine's value and the end of the last callback response),
the server's time per edit (its ``Server-Timing`` header: the server runs with
``ML_PEG_LIKE_SERVER_TIMING=1``), the bytes of one edit's responses (uncompressed JSON bodies),
the layout's size and the server's RSS (its process tree) after the edits.

``--before DIR``: that checkout too, interleaved round by round (B N, N B, ...), each row of
this checkout ("now") with its ratio to the same row of DIR ("before").
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from ml_peg_like.dashboard.state import make_query
from ml_peg_like.serving.servertiming import server_ms

from .datasets import dashboard_sets, write_dataset
from .harness import (
    SERVER_TIMING_ENV,
    Row,
    Server,
    add_before,
    checkouts,
    chromium,
    interleave,
    load_average,
    new_page,
    print_table,
)
from .page import (
    ALL_DONE,
    EDIT_URLS,
    FIRST_ROWS,
    INSTALL,
    KEPT,
    PAINTED,
    influential_metric,
    threshold_edit,
)

FRACTIONS = (0.0, 0.45, 0.2, 0.6, 0.1, 0.35)  # of the way from good to bad: the values typed


@dataclass
class Run:
    """One run's figures (seconds, ms, KiB, MiB)."""

    first_seen_s: float = float("nan")
    first_cells_s: float = float("nan")
    http_ready_s: float = float("nan")
    kept_page: bool = False
    layout_kib: float = float("nan")
    edit_ms: list = field(default_factory=list)
    server_ms: list = field(default_factory=list)
    edit_kib: list = field(default_factory=list)
    rss_mib: float = float("nan")


def first_page(page, server: Server, run: Run) -> None:
    """Open the overview the moment the server listens; the first rows' times."""
    server.wait_listening()
    ready: list[float] = []
    health = threading.Thread(
        target=lambda: ready.append(server.wait_health(request_timeout=120)), daemon=True
    )
    health.start()
    t_goto = time.perf_counter()
    page.goto(server.url, wait_until="commit")
    page.wait_for_function(FIRST_ROWS, timeout=120_000)
    run.kept_page = page.evaluate(KEPT)
    run.first_cells_s = time.perf_counter() - server.t_spawn
    health.join(120)
    run.http_ready_s = ready[0] if ready else float("nan")
    painted = page.evaluate(PAINTED)  # ms from navigation; NaN: no first view
    run.first_seen_s = (
        t_goto - server.t_spawn + painted / 1000 if painted == painted else run.first_cells_s
    )
    run.layout_kib = len(urllib.request.urlopen(server.url + "/_dash-layout").read()) / 1024


class Responses:
    """The edit's callback responses: (bytes, the server's ms) as they arrive."""

    def __init__(self, page):
        self.sizes: list[int] = []
        self.served: list[float] = []
        page.on("response", self._on)

    def _on(self, r) -> None:
        if not any(u in r.url for u in EDIT_URLS):
            return
        ms = server_ms(r.headers)
        if ms is not None:
            self.served.append(ms)
        try:
            self.sizes.append(len(r.body()))
        except Exception:  # noqa: BLE001 (a 204 has no body)
            self.sizes.append(0)


def edits(page, cfg, raw, n_edits: int, run: Run, responses: Responses) -> None:
    """``n_edits`` timed threshold edits of the most influential metric (values that would
    not change a rendered cell are passed over)."""
    path = influential_metric(cfg)
    m = cfg.node(path)
    values = [m.good + f * (m.bad - m.good) for f in FRACTIONS]
    for k in range(n_edits + 40):
        if len(run.edit_ms) >= n_edits:
            return
        n_sizes, n_served = len(responses.sizes), len(responses.served)
        t_cells = threshold_edit(page, raw, cfg, path, values[(k + 1) % len(values)])
        if t_cells is None:
            continue
        page.wait_for_timeout(250)
        t_resp = page.evaluate(ALL_DONE, page.evaluate("() => window.__t0"))
        run.edit_ms.append(max(t_cells, t_resp))
        run.edit_kib.append(sum(responses.sizes[n_sizes:]) / 1024)
        run.server_ms.append(sum(responses.served[n_served:]))


def measure(checkout: Path, data_dir: Path, cfg, raw, n_edits: int, browser) -> Run:
    """One run: spawn ``checkout``'s ``serve DIR`` (Server-Timing on), the first page, the
    edits in the benchmark view of the most influential metric, the RSS."""
    run = Run()
    path = influential_metric(cfg)
    page = new_page(browser)
    try:
        with Server(data_dir, checkout, env={SERVER_TIMING_ENV: "1"}) as server:
            first_page(page, server, run)
            responses = Responses(page)
            page.goto(server.url + "/" + make_query({}, path.rsplit("/", 1)[0]))
            page.wait_for_selector(f"input[name='{path}.good']", timeout=120_000)
            page.wait_for_selector("#grid .ag-cell[col-id='o']")
            page.wait_for_timeout(500)
            page.evaluate(INSTALL)
            edits(page, cfg, raw, n_edits, run, responses)
            run.rss_mib = server.rss_mib()
    finally:
        page.context.close()
    return run


#: (row name, unit, the values of a run)
MEASURES = (
    ("first rows readable from spawn", "s", lambda r: [r.first_seen_s]),
    ("first grid cells from spawn", "s", lambda r: [r.first_cells_s]),
    ("HTTP ready from spawn", "s", lambda r: [r.http_ready_s]),
    ("kept pages", "runs", lambda r: [float(r.kept_page)]),
    ("edit -> all responses", "ms", lambda r: r.edit_ms),
    ("server time per edit", "ms", lambda r: r.server_ms),
    ("responses per edit", "KiB", lambda r: r.edit_kib),
    ("layout", "KiB", lambda r: [r.layout_kib]),
    ("server RSS after the edits", "MiB", lambda r: [r.rss_mib]),
)


def rows(name: str, runs: dict[str, list[Run]]) -> list[Row]:
    """Per measure, a row per checkout ("now" compared with "before" when both ran)."""
    out = []
    for what, unit, get in MEASURES:
        for tag, rs in runs.items():
            vs = f"{name} before: {what}" if tag == "now" and "before" in runs else None
            out.append(Row(f"{name} {tag}: {what}", [v for r in rs for v in get(r)], unit, vs))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edits", type=int, default=10)
    p.add_argument("--only", default="ml-peg,300x339,1000x339,1000x1000,10000x339")
    p.add_argument("--rounds", type=int, default=2, help="runs per checkout (interleaved)")
    p.add_argument("--data", default=None, help="where the data sets are written (default: tmp)")
    add_before(p)
    args = p.parse_args(argv)
    trees = checkouts(args.before)
    root = Path(args.data or tempfile.mkdtemp(prefix="bench-dashboard-"))
    print(f"start: {load_average()}; " + "; ".join(f"{t}={c}" for t, c in trees.items()))
    with chromium() as browser:
        for name, cfg, raw in dashboard_sets(args.only.split(",")):
            d = write_dataset(name, cfg, raw, root)
            runs: dict[str, list[Run]] = {tag: [] for tag in trees}
            for _r, tag in interleave(list(trees), args.rounds):
                runs[tag].append(measure(trees[tag], d, cfg, raw, args.edits, browser))
            print_table(rows(name, runs), f"{name}: {len(raw.models)} models x "
                        f"{len(cfg.metric_paths())} metrics; {load_average()}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
