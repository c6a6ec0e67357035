"""The server's side of the first page: the app made (``create_app``), then the page and each
file it preloads asked for through Flask's test client, in-process: wall time, bytes, the
process's RSS after each, and the functions with the most own time (cProfile) of the app's
making and of the page's second request.

    python -m benchmarks.profile_page DATA [--tree CHECKOUT] [--requests 3] [--top 12]

``--tree``: profile another checkout's package (e.g. ``/work/main``; default this one). No
browser: the transfer to a browser is not in it.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import sys
import time
from pathlib import Path

from .harness import ROOT, Row, median, print_table


def rss_mib() -> float:
    """This process's resident memory (Linux ``/proc``; NaN elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return float("nan")
    return pages * 4096 / 2**20


def top(prof: cProfile.Profile, n: int) -> str:
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(n)
    return out.getvalue()


def preloads(html: str) -> list[str]:
    """The paths the page's head preloads (``<link rel="preload" ... href=...>``)."""
    import re

    links = re.findall(r'<link rel="preload" href="([^"]+)"', html)
    return [h for h in links if not h.endswith(".js")]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", type=Path)
    p.add_argument("--tree", default=str(ROOT), help="the checkout whose package is profiled")
    p.add_argument("--requests", type=int, default=3, help="requests for the page")
    p.add_argument("--top", type=int, default=12, help="functions listed per profile")
    args = p.parse_args(argv)
    sys.path.insert(0, str(Path(args.tree).resolve()))  # before the package's first import
    import ml_peg_like
    from ml_peg_like.dashboard import create_app
    from ml_peg_like.raw import load_dataset

    print(f"package: {Path(ml_peg_like.__file__).parent}")
    cfg, raw = load_dataset(args.data)
    base = rss_mib()
    gc.disable()  # as ``serve`` makes the app
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    app = create_app(cfg, raw)
    prof.disable()
    made = prof
    rows = [Row("create_app", [time.perf_counter() - t], "s")]
    gc.enable()
    rows.append(Row("RSS after create_app, above the data's", [rss_mib() - base], "MiB"))
    client = app.server.test_client()
    times, second = [], None
    for k in range(args.requests):
        prof = cProfile.Profile()
        t = time.perf_counter()
        prof.enable()
        html = client.get("/").get_data(as_text=True)
        prof.disable()
        times.append(time.perf_counter() - t)  # s
        second = prof if k == 1 or second is None else second
    rows.append(Row("GET /", [1000 * x for x in times]))
    rows.append(Row("the page", [len(html.encode()) / 2**20], "MiB"))
    for path in preloads(html):
        t = time.perf_counter()
        size = len(client.get(path).get_data())
        rows.append(Row(f"GET {path}", [1000 * (time.perf_counter() - t)]))
        rows.append(Row(path, [size / 2**20], "MiB"))
    rows.append(Row("RSS after the requests, above the data's", [rss_mib() - base], "MiB"))
    print_table(rows)
    print("create_app: own time by function")
    print(top(made, args.top))
    print(f"median GET /: {median(times):.3f} s; its own time by function (request 2):")
    print(top(second, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
