"""Where the files that ship with the package live: the dashboard's assets and the demo dataset.

One place answers "where is the demo data / where are the assets" for the CLI, ``app.py`` and the
dashboard. The project keeps them in the top-level ``assets/`` and ``data/demo/``; the wheel
carries copies as the data-only subpackages ``ml_peg_like/dashboard/assets`` and ``ml_peg_like/_demo``
(mapped in ``setup.py``). An installed wheel finds its copies; a source checkout and an editable
install (``pip install -e .``, where the package is the checkout's ``ml_peg_like/``) find the
top-level folders.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # ml_peg_like/
_CHECKOUT = _PACKAGE.parent


def _first(packaged: Path, checkout: Path) -> Path:
    """The wheel's copy if present, else the checkout's folder (named in any later error)."""
    # the packaged copy first: next to an installed package, _CHECKOUT is site-packages, where an
    # unrelated distribution may have put its own top-level ``assets/`` or ``data/``
    return packaged if packaged.is_dir() else checkout


def assets_dir() -> Path:
    """The folder of CSS and JavaScript that Dash serves."""
    return _first(_PACKAGE / "dashboard" / "assets", _CHECKOUT / "assets")


def demo_dir() -> Path:
    """The embedded demo dataset (``config.yml``, ``raw_metrics.csv``, ``models.csv``)."""
    return _first(_PACKAGE / "_demo", _CHECKOUT / "data" / "demo")
