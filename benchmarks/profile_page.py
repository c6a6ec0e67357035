"""The server's side of the first page: the app made (``create_app``), then the page and each
file its head preloads asked for through Flask's test client: wall time, bytes, the RSS above
the data's after each, and the functions with the most own time (cProfile) of the app's making
and of the page's second request.

    python -m benchmarks.profile_page DATA [--tree CHECKOUT] [--requests 3] [--top 12]

``--tree``: profile another checkout's package (e.g. ``/work/main``; default this one). The
measure runs in a child process of that checkout (its package first on the path, as a spawned
server has it). No browser: the transfer to a browser is not in it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from .harness import ROOT, Row, median, print_table, server_env

#: what the child process runs (``python -c``, its package the checkout's); prints one JSON
#: object: {"package", "rows": [[what, values, unit]], "profiles": {name: text}}
CHILD = r"""
import cProfile, gc, io, json, pstats, re, sys, time
from pathlib import Path
data, requests, n_top = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def rss_mib():
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 2**20
    except (OSError, IndexError, ValueError):
        return float("nan")

def top(prof):
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(n_top)
    return out.getvalue()

import ml_peg_like
from ml_peg_like.dashboard import create_app
from ml_peg_like.raw import load_dataset

cfg, raw = load_dataset(data)
base = rss_mib()
gc.disable()  # as ``serve`` makes the app
prof = cProfile.Profile()
t = time.perf_counter()
prof.enable()
app = create_app(cfg, raw)
prof.disable()
rows = [["create_app", [time.perf_counter() - t], "s"]]
profiles = {"create_app": top(prof)}
gc.enable()
rows.append(["RSS after create_app, above the data's", [rss_mib() - base], "MiB"])
client = app.server.test_client()
times = []
for k in range(requests):
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    html = client.get("/").get_data(as_text=True)
    prof.disable()
    times.append(1000 * (time.perf_counter() - t))
    if k == min(1, requests - 1):
        profiles["GET / (request %d)" % (k + 1)] = top(prof)
rows.append(["GET /", times, "ms"])
rows.append(["the page", [len(html.encode()) / 2**20], "MiB"])
for path in re.findall(r'<link rel="preload" href="([^"]+)" as="fetch"', html):
    t = time.perf_counter()
    size = len(client.get(path).get_data())
    rows.append(["GET " + path, [1000 * (time.perf_counter() - t)], "ms"])
    rows.append([path, [size / 2**20], "MiB"])
rows.append(["RSS after the requests, above the data's", [rss_mib() - base], "MiB"])
print(json.dumps({"package": str(Path(ml_peg_like.__file__).parent), "rows": rows,
                  "profiles": profiles}))
"""


def measure(tree: Path, data: Path, requests: int, n_top: int) -> dict:
    """Run :data:`CHILD` with ``tree``'s package; its JSON answer."""
    cmd = [sys.executable, "-c", CHILD, str(data.resolve()), str(requests), str(n_top)]
    done = subprocess.run(
        cmd, cwd=tree, env=server_env(tree), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the measure failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", type=Path)
    p.add_argument("--tree", default=str(ROOT), help="the checkout whose package is profiled")
    p.add_argument("--requests", type=int, default=3, help="requests for the page")
    p.add_argument("--top", type=int, default=12, help="functions listed per profile")
    args = p.parse_args(argv)
    out = measure(Path(args.tree).resolve(), args.data, max(1, args.requests), args.top)
    print(f"package: {out['package']}")
    print_table([Row(what, values, unit) for what, values, unit in out["rows"]])
    times = next(values for what, values, _unit in out["rows"] if what == "GET /")
    print(f"median GET /: {median(times):.1f} ms")
    for name, text in out["profiles"].items():
        print(f"{name}: own time by function\n{text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
