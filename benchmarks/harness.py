"""What every benchmark shares: a spawned server, headless Chromium, timing and one table.

- :class:`Server`: ``python -m ml_peg_like serve DATA --port P [ARGS]`` of one checkout (its
  package first on the path, its bytecode written once to a cache outside the checkout), on a
  free loopback port; waits until it listens and until ``/health`` answers; the resident
  memory of its process tree; stops it.
- :func:`chromium` and :func:`new_page`: headless Chromium through Playwright, one set of
  launch options and one viewport for every benchmark.
- :func:`median`, :func:`ratio`, :func:`timed`, :func:`interleave`: medians that leave out
  missing values, ratios that say "n/a" rather than divide by zero, repeated timing, and the
  order of interleaved A/B rounds (``--before DIR``: A B, B A, A B, ...), so that a shared
  machine's load drift falls on both alike.
- :class:`Row` and :func:`print_table`: one table format, ``what | median | min | max | n |
  ratio``, the ratio of a row's median to another row's, measured in the same run.
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: the repository this harness belongs to (the checkout measured by default)
ROOT = Path(__file__).resolve().parents[1]
#: the Chromium driven (Debian's); ``MPL_CHROMIUM`` names another
CHROMIUM = os.environ.get("MPL_CHROMIUM", "/usr/bin/chromium")
#: the launch options of every benchmark's browser (those of the browser tests)
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
)
VIEWPORT = {"width": 1280, "height": 800}
#: where the spawned servers keep their bytecode and output, never in a checkout
WORK = Path(tempfile.gettempdir()) / "ml-peg-like-bench"
#: the environment variable that makes the server send its time per callback (Server-Timing)
SERVER_TIMING_ENV = "ML_PEG_LIKE_SERVER_TIMING"

# ------------------------------------------------------------------------------------------------
# timing
# ------------------------------------------------------------------------------------------------


def finite(xs: Iterable[float | None]) -> list[float]:
    """The numbers of ``xs``, None and NaN left out."""
    return [float(x) for x in xs if x is not None and not math.isnan(x)]


def median(xs: Iterable[float | None]) -> float:
    """The median of the numbers of ``xs`` (None and NaN left out); NaN when there is none."""
    f = finite(xs)
    return statistics.median(f) if f else math.nan


def ratio(a: float, b: float) -> float:
    """``a / b``; NaN when either is NaN or ``b`` is 0."""
    if math.isnan(a) or math.isnan(b) or b == 0:
        return math.nan
    return a / b


def timed(fn: Callable[[], object], repeat: int, warmup: int = 0) -> tuple[list[float], object]:
    """Call ``fn`` ``warmup`` times untimed, then ``repeat`` times: (seconds of each timed call,
    the last result)."""
    out = None
    for _ in range(warmup):
        out = fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return times, out


def interleave(names: Sequence[str], rounds: int) -> Iterator[tuple[int, str]]:
    """(round, name) of ``rounds`` interleaved rounds: ``names`` in order, then reversed, and so
    on (A B, B A, A B, ...)."""
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            yield r, name


def load_average() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


# ------------------------------------------------------------------------------------------------
# the table
# ------------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One measure: its values (in ``unit``) and, for the ratio column, the ``what`` of the row
    its median is divided by."""

    what: str
    values: list[float] = field(default_factory=list)
    unit: str = "ms"
    vs: str | None = None

    @property
    def label(self) -> str:
        return f"{self.what} ({self.unit})" if self.unit else self.what


def fmt(v: float) -> str:
    """A number for the table: "n/a" for NaN, thousands separated from 1,000 on, else 4
    significant digits."""
    if v is None or math.isnan(v):
        return "n/a"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def table_lines(rows: Sequence[Row]) -> list[str]:
    """The rows as a Markdown table: what | median | min | max | n | ratio (this row's median
    over the median of the row named by its ``vs``, as "2.5x VS")."""
    medians = {r.what: median(r.values) for r in rows}
    lines = ["| what | median | min | max | n | ratio |", "|---|---|---|---|---|---|"]
    for r in rows:
        f = finite(r.values)
        lo, hi = (min(f), max(f)) if f else (math.nan, math.nan)
        q = ""
        if r.vs is not None:
            x = ratio(medians[r.what], medians.get(r.vs, math.nan))
            q = "n/a" if math.isnan(x) else f"{fmt(x)}x {r.vs}"
        lines.append(
            f"| {r.label} | {fmt(medians[r.what])} | {fmt(lo)} | {fmt(hi)} | {len(f)} | {q} |"
        )
    return lines


def print_table(rows: Sequence[Row], title: str = "") -> None:
    if title:
        print(f"\n{title}")
    print("\n".join(table_lines(rows)), flush=True)


# ------------------------------------------------------------------------------------------------
# the server
# ------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def work_dir(checkout: Path) -> Path:
    """The directory of ``checkout``'s bytecode and server output (under :data:`WORK`)."""
    name = str(Path(checkout).resolve()).strip("/").replace("/", "_") or "root"
    d = WORK / name
    d.mkdir(parents=True, exist_ok=True)
    return d


def server_env(checkout: Path, extra: dict | None = None) -> dict:
    """The environment of a server of ``checkout``: its package first on the path, bytecode
    written to its work directory."""
    env = dict(os.environ, PYTHONPATH=str(checkout), PYTHONPYCACHEPREFIX=str(work_dir(checkout)))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra or {})
    return env


def prepare_checkout(checkout: Path) -> Path:
    """Write ``checkout``'s bytecode (as installing the wheel does: no run compiles ~80
    modules) and check that a server spawned from it imports its package; the resolved path."""
    checkout = Path(checkout).resolve()
    if not (checkout / "ml_peg_like").is_dir():
        raise SystemExit(f"{checkout}: no ml_peg_like package there")
    env = server_env(checkout)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(checkout / "ml_peg_like")],
        env=env, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c", "import ml_peg_like; print(ml_peg_like.__file__)"],
        env=env, cwd=checkout, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if not Path(out).resolve().is_relative_to(checkout):
        raise SystemExit(f"{checkout}: a server would import {out}")
    return checkout


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


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (/proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    """``python -m ml_peg_like serve DATA --port P [ARGS]`` of ``checkout`` (default: this
    repository), run from the checkout with its package first on the path; its output is
    appended to ``serve.log`` in the checkout's work directory. ``command``: another server
    (``python COMMAND --port P [ARGS]``, answering ``/health``). A context manager: started on
    entry (``t_spawn``: ``time.perf_counter()`` at the spawn, ``epoch_spawn``: ``time.time()``),
    stopped on exit."""

    def __init__(
        self, data, checkout: Path = ROOT, args: Sequence[str] = (), env=None, command=None
    ):
        self.data = Path(data).resolve() if data is not None else None
        self.checkout = Path(checkout).resolve()
        self.args = [str(a) for a in args]
        #: what runs instead of ``-m ml_peg_like serve DATA`` (``--port P`` and ``args`` follow)
        self.command = list(command) if command else ["-m", "ml_peg_like", "serve", str(self.data)]
        self.extra_env = dict(env or {})
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = work_dir(self.checkout) / "serve.log"
        self.proc: subprocess.Popen | None = None
        self.t_spawn = self.epoch_spawn = math.nan

    def start(self) -> Server:
        cmd = [sys.executable, *self.command, "--port", str(self.port), *self.args]
        with open(self.log, "ab") as log:
            self.epoch_spawn, self.t_spawn = time.time(), time.perf_counter()
            self.proc = subprocess.Popen(
                cmd, cwd=self.checkout, env=server_env(self.checkout, self.extra_env),
                stdout=log, stderr=log,
            )  # fmt: skip
        return self

    def check_alive(self, t0: float, timeout: float) -> None:
        """Raise, naming the checkout and its log, when the server has exited or ``timeout``
        seconds have passed since ``t0``."""
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.checkout}: the server exited (its output: {self.log})")
        if time.perf_counter() - t0 > timeout:
            raise RuntimeError(f"{self.checkout}: the server did not start in {timeout:g} s")

    def wait_listening(self, timeout: float = 120) -> None:
        """Return once the server accepts a connection."""
        t0 = time.perf_counter()
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                self.check_alive(t0, timeout)
                time.sleep(0.005)

    def wait_health(self, timeout: float = 120, request_timeout: float = 1) -> float:
        """Return once ``/health`` answers (the app is up): the seconds since the spawn."""
        t0 = time.perf_counter()
        while True:
            try:
                urllib.request.urlopen(self.url + "/health", timeout=request_timeout).read()
                return time.perf_counter() - self.t_spawn
            except OSError:
                self.check_alive(t0, timeout)
                time.sleep(0.01)

    def rss_mib(self) -> float:
        return tree_rss_mib(self.proc.pid)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=20)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def checkouts(before: str | None, now: str | Path = ROOT) -> dict[str, Path]:
    """{"now": ``now``} and, with ``before``, {"before": ``before``}, both prepared
    (:func:`prepare_checkout`); the order of an interleaved round."""
    out = {"before": before} if before else {}
    out["now"] = now
    return {tag: prepare_checkout(Path(c)) for tag, c in out.items()}


def add_before(parser, what: str = "") -> None:
    """The ``--before DIR`` option of an A/B benchmark."""
    parser.add_argument(
        "--before",
        metavar="DIR",
        default=None,
        help="another checkout (a directory holding ml_peg_like) measured in the same run, "
        "interleaved round by round" + (f": {what}" if what else ""),
    )


# ------------------------------------------------------------------------------------------------
# the browser
# ------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def chromium():
    """Headless :data:`CHROMIUM` through Playwright, launched with :data:`CHROMIUM_ARGS`."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=list(CHROMIUM_ARGS), headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser, init_script: str | None = None):
    """A page in a fresh context (:data:`VIEWPORT`), ``init_script`` run before the page's
    own scripts. Close it with ``page.context.close()``."""
    ctx = browser.new_context(viewport=VIEWPORT)
    if init_script:
        ctx.add_init_script(init_script)
    return ctx.new_page()


def open_when_listening(page, server: Server, path: str = "/", timeout: float = 30) -> None:
    """Navigate to ``path`` of ``server`` (up to the response's start); a refused connection is
    tried again for ``timeout`` s while the server runs (it may close its first socket as its
    app takes over)."""
    from playwright.sync_api import Error

    t_end = time.perf_counter() + timeout
    while True:
        try:
            page.goto(server.url + path, wait_until="commit", timeout=120_000)
            return
        except Error as err:
            if "ERR_CONNECTION_REFUSED" not in str(err) or time.perf_counter() > t_end:
                raise
            server.check_alive(time.perf_counter(), timeout)
            page.wait_for_timeout(50)
