"""The wheel built from this checkout is complete: it carries the dashboard's JS/CSS and the demo
dataset, installs into a fresh virtual environment (not editable), and ``ml-peg-like serve`` with
no data serves the demo with every script, stylesheet and custom asset loading (HTTP 200).

Slow (a venv and the dependencies from the package index or pip's cache): ``-m "not wheel"``
leaves it out of a quick run. It skips only when pip cannot obtain the build backend or the
dependencies (no package index reachable); a broken build, install or page fails.
"""

from __future__ import annotations

import hashlib
import html.parser
import importlib.metadata
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest

from ml_peg_like.dashboard.firstpage import ASSETS_IGNORE, LOADER_SCRIPT, LOADER_SLOT

pytestmark = [pytest.mark.wheel]

ROOT = Path(__file__).resolve().parents[1]
ASSET_SUFFIXES = {".js", ".css"}
# copying the checkout leaves these out (the build needs none of them)
IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
    ".pytest_cache", ".ruff_cache", ".hypothesis", "cache", "out", "tmp", "node_modules",
)  # fmt: skip
# pip's words when no package index (or cache) can provide a requirement
OFFLINE = ("No matching distribution found", "Could not find a version", "NewConnectionError")


def _custom_assets() -> list[Path]:
    return sorted(p for p in (ROOT / "assets").iterdir() if p.suffix in ASSET_SUFFIXES)


def _site_files() -> list[Path]:
    """The published site's page (``ml-peg-like publish``): a folder of the assets."""
    return sorted(p for p in (ROOT / "assets" / "site").iterdir() if p.is_file())


def _demo_files() -> list[Path]:
    return sorted(p for p in (ROOT / "data" / "demo").iterdir() if p.is_file())


def _run(cmd: list[str], what: str, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        out = proc.stdout[-3000:] + proc.stderr[-3000:]
        if any(s in out for s in OFFLINE):
            pytest.skip(f"{what}: pip cannot reach a package index or cache (offline?):\n{out}")
        pytest.fail(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{out}")
    return proc


def _has_build_backend() -> bool:
    try:
        major = int(importlib.metadata.version("setuptools").split(".")[0])
        importlib.metadata.version("wheel")
    except importlib.metadata.PackageNotFoundError:
        return False
    return major >= 68


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def wheel_file(tmp_path_factory) -> Path:
    """The wheel built by pip from a copy of this checkout (the checkout stays untouched)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=IGNORED)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist")]
    if _has_build_backend():  # else pip downloads setuptools into an isolated build environment
        cmd.append("--no-build-isolation")
    _run(cmd + [str(src)], "building the wheel")
    (wheel,) = (tmp / "dist").glob("ml_peg_like-*.whl")
    return wheel


def test_wheel_holds_the_assets_and_the_demo(wheel_file):
    with zipfile.ZipFile(wheel_file) as zf:
        names = set(zf.namelist())
        for src, where in (
            [(p, "ml_peg_like/dashboard/assets") for p in _custom_assets()]
            + [(p, "ml_peg_like/dashboard/assets/site") for p in _site_files()]
            + [(p, "ml_peg_like/_demo") for p in _demo_files()]
        ):
            name = f"{where}/{src.name}"
            assert name in names, f"{name} is missing from {wheel_file.name}"
            assert _sha(zf.read(name)) == _sha(src.read_bytes()), f"{name} differs from {src}"
    assert {"dashAgGridFunctions.js", "navigation.js", "style.css"} <= {
        p.name for p in _custom_assets()
    }
    assert {"config.yml", "raw_metrics.csv"} <= {p.name for p in _demo_files()}
    assert {"index.html", "site.js", "site.css"} <= {p.name for p in _site_files()}


class _Refs(html.parser.HTMLParser):
    """``<script src>`` and ``<link rel=stylesheet href>`` of a page, in order."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"])
        elif tag == "link" and a.get("href") and "stylesheet" in (a.get("rel") or ""):
            self.urls.append(a["href"])
        self._in_title = tag == "title"

    def handle_data(self, data):
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag):
        self._in_title = False


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_installed_wheel_serves_the_demo_with_every_asset(wheel_file, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / "python"
    _run(
        [str(py), "-m", "pip", "install", "-q", str(wheel_file)],
        "installing the wheel (not editable) into a fresh virtual environment",
    )
    # the installed package, not the checkout: nothing of ROOT on the path
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["ML_PEG_LIKE_CACHE_DIR"] = str(tmp_path / "cache")
    where = subprocess.run(
        [str(py), "-c", "import ml_peg_like, sys; sys.stdout.write(ml_peg_like.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, env=env, check=True,
    ).stdout  # fmt: skip
    assert Path(where).resolve().is_relative_to(env_dir.resolve()), where

    port = _free_port()
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115 (read back on failure)
    server = subprocess.Popen(
        [str(bindir / "ml-peg-like"), "serve", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline, status, page = time.monotonic() + 120, None, b""
        while time.monotonic() < deadline and server.poll() is None:
            try:
                status, page = _get(base + "/")
                break
            except OSError:
                time.sleep(0.5)
        if status is None:
            log.seek(0)
            pytest.fail(f"`ml-peg-like serve` did not answer on {base}:\n{log.read()[-3000:]}")
        assert status == 200

        refs = _Refs()
        refs.feed(page.decode("utf-8"))
        assert refs.title == "scikit-learn demo: 20 models on toy data sets", refs.title
        urls = refs.urls
        assert any("/_dash-component-suites/dash/" in u for u in urls), urls
        assert any("/_dash-component-suites/dash_ag_grid/" in u for u in urls), urls
        for u in urls:
            status, _ = _get(u if u.startswith("http") else base + u)
            assert status == 200, f"{u}: HTTP {status}"

        # every custom asset is referenced by the page and served byte for byte from the wheel,
        # or written into the page's head (the style sheets and the theme: firstpage.py), or
        # after its scripts (the loader that starts them after the first paint)
        text = page.decode("utf-8")
        head = text[: text.index("</head>")]
        for asset in _custom_assets():
            if asset.name == LOADER_SCRIPT:  # written after the template of the page's scripts
                code = asset.read_text(encoding="utf-8").split(LOADER_SLOT)[0]
                assert code in text[text.index("</template>") :], "loader.js is not in the page"
                assert not [u for u in urls if u.split("?")[0] == f"/assets/{asset.name}"]
                continue
            if re.search(ASSETS_IGNORE, asset.name):
                inline = asset.read_text(encoding="utf-8").replace("</", "<\\/")
                assert inline in head, f"{asset.name} is not in the page's head"
                assert not [u for u in urls if u.split("?")[0] == f"/assets/{asset.name}"]
                continue
            (ref,) = [u for u in urls if u.split("?")[0] == f"/assets/{asset.name}"] or [None]
            assert ref, f"the page does not reference /assets/{asset.name}: {urls}"
            status, body = _get(base + ref)
            assert status == 200 and _sha(body) == _sha(asset.read_bytes()), ref

        # the app behind the page: its layout and callbacks load, and show the demo's categories
        status, layout = _get(base + "/_dash-layout")
        assert status == 200 and b"Physical consistency" in layout
        assert _get(base + "/_dash-dependencies")[0] == 200
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
