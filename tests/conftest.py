"""Shared fixtures. Tests that read ../shared/anchors take the ``anchors`` fixture (the one
definition of that path), which skips them cleanly when it is absent."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ANCHORS = ROOT.parent / "shared" / "anchors"
SEEDS = ROOT.parent / "shared" / "seeds"
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def anchors() -> Path:
    if not ANCHORS.is_dir():
        pytest.skip(f"../shared/anchors is absent ({ANCHORS}): real-data checks skipped")
    return ANCHORS
