"""Make the dashboard's screenshots in this folder: two data sets (the demo; Matbench Discovery
converted with ``ml-peg-like convert matbench-discovery SRC --out DIR``) x three screens
(1600x1000, 1280x800, 390x844) x light and dark, in headless Chromium.

    python docs/screenshots/take.py [--mbd DIR] [--out docs/screenshots]

Without ``--mbd`` only the demo's six are made. PNGs are palette-quantised when Pillow is there
(they are committed: keep them small).
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
from ml_peg_like.resources import demo_dir

CHROMIUM = os.environ.get("MPL_CHROMIUM", "/usr/bin/chromium")
SCREENS = {"1600": (1600, 1000), "1280": (1280, 800), "390": (390, 844)}
THEMES = ("light", "dark")
#: what each data set shows: a benchmark view (the curve) for the demo, the overview with a
#: model card for Matbench Discovery
SCENES = {
    "demo": {"query": "?v=Classification%2FIris", "card": False},
    "mbd": {"query": "", "card": True},
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


def shoot(browser, url: str, path: Path, size: tuple[int, int], theme: str, card: bool) -> None:
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, color_scheme=theme, device_scale_factor=1
    )
    page = ctx.new_page()
    page.goto(url)
    page.wait_for_selector(".ag-cell[col-id='o']")
    if "?v=" in url:
        page.wait_for_selector(".js-plotly-plot .scatterlayer", timeout=15000)
    if card and size[0] > 600:
        page.locator(".ag-cell[col-id='model']").first.click()
        page.wait_for_selector(".model-card .card-name")
    page.wait_for_timeout(400)
    path.write_bytes(_small_png(page.screenshot()))
    ctx.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mbd", help="converted Matbench Discovery data (a dataset directory)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent))
    ap.add_argument("--only", choices=sorted(SCENES), help="one data set only")
    args = ap.parse_args(argv)
    out = Path(args.out)
    sets = {"demo": demo_dir()}
    if args.mbd:
        sets["mbd"] = Path(args.mbd)
    if args.only:
        sets = {args.only: sets[args.only]}
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        for name, directory in sets.items():
            cfg, raw = load_dataset(directory)
            app = create_app(cfg, raw, robustness=False)
            scene = SCENES[name]
            with serving(app) as base:
                for screen, size in SCREENS.items():
                    for theme in THEMES:
                        path = out / f"{name}-{screen}-{theme}.png"
                        shoot(browser, base + scene["query"], path, size, theme, scene["card"])
                        print(f"{path} {path.stat().st_size // 1024} KB")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
