"""Where the files that ship with the package live: the dashboard's assets and the demo dataset.

One place answers "where is the demo data / where are the assets" for the CLI, ``app.py`` and the
dashboard, in a source checkout (top-level ``assets/`` and ``data/demo/``) and in an installed wheel
(copies inside the package).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent


def _first(*candidates: Path) -> Path:
    for p in candidates:
        if p.is_dir():
            return p
    return candidates[0]


def assets_dir() -> Path:
    """The folder of CSS and JavaScript that Dash serves."""
    return _first(_CHECKOUT / "assets", _PACKAGE / "_assets")


def demo_dir() -> Path:
    """The embedded demo dataset (``config.yml``, ``raw_metrics.csv``, ``models.csv``)."""
    return _first(_CHECKOUT / "data" / "demo", _PACKAGE / "_demo")
