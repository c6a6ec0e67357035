"""Make the dashboard's screenshots in this folder, in headless Chromium, at three screens
(1600x1000, 1280x800, 390x844) x light and dark:

- ``demo-*``: the demo, a benchmark view (its curve and figure);
- ``overview-*``: the demo's overview (the scores grid first on a phone: the toolbar folds away);
- ``compare-*``: the demo's Compare view (the three best models), scrolled to its radar;
- ``robustness-*``: the demo's robustness panel after a run (200 samples, seed 0);
- ``mbd-*``: Matbench Discovery converted with ``ml-peg-like convert matbench-discovery SRC --out
  DIR``, the overview with a model card (only with ``--mbd``).

``compare.png`` and ``robustness.png`` are the 1280 light ones.

    python docs/screenshots/take.py [--mbd DIR] [--out docs/screenshots] [--only SCENE]

PNGs are palette-quantised when Pillow is there (they are committed: keep them small).
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from ml_peg_like import load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from browser_utils import live_server  # noqa: E402

from ml_peg_like.dashboard import create_app
from ml_peg_like.support.resources import demo_dir

CHROMIUM = os.environ.get("MPL_CHROMIUM", "/usr/bin/chromium")
SCREENS = {"1600": (1600, 1000), "1280": (1280, 800), "390": (390, 844)}
THEMES = ("light", "dark")
#: what each scene shows: its data set, its address, what to wait for, then do
SCENES = {
    "demo": {
        "data": "demo",
        "query": "?v=Classification%2FIris",
        "wait": ".js-plotly-plot .scatterlayer",
    },
    "overview": {"data": "demo", "query": ""},
    "compare": {
        "data": "demo",
        "query": "?v=compare",
        "wait": "#compare-table .ag-row",
        "scroll": "#compare-wrap",
    },
    "robustness": {"data": "demo", "query": "", "run": True, "scroll": "#robustness"},
    "mbd": {"data": "mbd", "query": "", "card": True},
}
#: the single-file names kept for the README: (scene, screen, theme)
ALIASES = {
    "compare.png": ("compare", "1280", "light"),
    "robustness.png": ("robustness", "1280", "light"),
}


@contextmanager
def serving(app):
    """The tests' in-process server (tests/browser_utils.live_server), werkzeug's log quiet."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with live_server(app) as url:
        yield url + "/"


def _small_png(data: bytes) -> bytes:
    try:
        from PIL import Image
    except ImportError:
        return data
    img = Image.open(io.BytesIO(data)).convert("RGB")
    out = io.BytesIO()
    img.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(out, "PNG", optimize=True)
    return out.getvalue()


def _run_robustness(page) -> None:
    page.fill("#rob-samples", "200")
    page.fill("#rob-seed", "0")
    page.click("#rob-run")
    page.wait_for_selector(".rob-headline", timeout=60000)
    page.wait_for_selector("#rob-heat-fig .main-svg .ytick text", timeout=30000)


def shoot(browser, url: str, path: Path, size: tuple[int, int], theme: str, scene: dict) -> None:
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, color_scheme=theme, device_scale_factor=1
    )
    page = ctx.new_page()
    page.goto(url)
    page.wait_for_selector(".ag-cell[col-id='o']")
    if scene.get("wait"):
        page.wait_for_selector(scene["wait"], timeout=15000)
    if scene.get("run"):
        _run_robustness(page)
    if scene.get("card") and size[0] > 600:
        page.locator(".ag-cell[col-id='model']").first.click()
        page.wait_for_selector(".model-card .card-name")
    if scene.get("scroll"):
        page.evaluate("s => document.querySelector(s).scrollIntoView()", scene["scroll"])
    page.wait_for_timeout(400)
    path.write_bytes(_small_png(page.screenshot()))
    ctx.close()


def _app(directory: Path, robustness: bool):
    import tempfile

    cfg, raw = load_dataset(directory)
    return create_app(cfg, raw, robustness=robustness, cache_dir=tempfile.mkdtemp())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mbd", help="converted Matbench Discovery data (a dataset directory)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent))
    ap.add_argument("--only", choices=sorted(SCENES), help="one scene only")
    args = ap.parse_args(argv)
    out = Path(args.out)
    sets = {"demo": demo_dir(), "mbd": Path(args.mbd) if args.mbd else None}
    scenes = {k: v for k, v in SCENES.items() if sets[v["data"]] is not None}
    if args.only:
        scenes = {args.only: scenes[args.only]}
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        for name, scene in scenes.items():
            app = _app(sets[scene["data"]], robustness=bool(scene.get("run")))
            with serving(app) as base:
                for screen, size in SCREENS.items():
                    for theme in THEMES:
                        path = out / f"{name}-{screen}-{theme}.png"
                        shoot(browser, base + scene["query"], path, size, theme, scene)
                        print(f"{path} {path.stat().st_size // 1024} KB")
        browser.close()
    for alias, (name, screen, theme) in ALIASES.items():
        src = out / f"{name}-{screen}-{theme}.png"
        if src.exists():
            (out / alias).write_bytes(src.read_bytes())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
