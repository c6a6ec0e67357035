"""The breakdown bars: each child's share of the overall score (the overview) or of a category's
score (a category view), drawn in the browser from the live result by ``assets/contrib.js``
(``mplEngine.contributions``, the twin of :func:`ml_peg_like.scoring.contributions`).

Pure functions (no Dash): the grid column that holds the bars and the colour of each part. A part
keeps its colour whatever the weights (its place among its siblings in the config), so the
legend (``components/board/contrib.py``) and the bars agree after any edit.
"""

from __future__ import annotations

from ..config import Benchmark, Category, Config
from . import ids

#: the parts' colours (Okabe-Ito: told apart with the common colour-vision deficiencies), by the
#: part's place among its siblings; a ninth sibling takes the first colour again
PARTS_PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#999999",
)
HEADER = "Breakdown"


def parts_of(cfg: Config, view: str) -> tuple[str, list[tuple[str, str]]] | None:
    """``(node path, [(child name, child path)])`` of the bars a view shows: the categories in
    the overview (``""``), a category's benchmarks in its view; None for a benchmark view."""
    if not view:
        return "", [(c.name, c.name) for c in cfg.categories]
    try:
        node = cfg.node(view)
    except KeyError:
        return None
    if isinstance(node, Benchmark) or not isinstance(node, Category):
        return None
    path = cfg.full_path(view)
    return path, [(b.name, f"{path}/{b.name}") for b in node.benchmarks]


def colour(k: int) -> str:
    return PARTS_PALETTE[k % len(PARTS_PALETTE)]


def legend_items(cfg: Config, view: str) -> list[tuple[str, str]]:
    """``[(name, colour)]`` of the parts the view's bars show (none for a benchmark view)."""
    found = parts_of(cfg, view)
    if found is None:
        return []
    return [(name, colour(k)) for k, (name, _path) in enumerate(found[1])]


def column(cfg: Config, view: str) -> dict | None:
    """The grid column of the bars for ``view`` (None: a benchmark view has none). Its value is a
    signature of the row's parts (``contribKey``: a cell is drawn again when its parts change);
    the bar is drawn by the ``ContribBar`` cell renderer, registered in
    ``dashAgGridComponentFunctions``."""
    found = parts_of(cfg, view)
    if found is None:
        return None
    path = found[0]
    what = "each category's share of the overall score" if not path else (
        f"each benchmark's share of the {path} score"
    )
    return {
        "colId": ids.COL_CONTRIB,
        "headerName": HEADER,
        "headerTooltip": f"{HEADER}: {what} (the bar's length is the score; point at a part "
        "for its numbers)",
        "valueGetter": {"function": "contribKey(params)"},
        "cellRenderer": "ContribBar",
        "cellRendererParams": {"path": path, "scale": cfg.scale},
        "sortable": False,
        "filter": False,
        "width": 150,
        "cellClass": ["contrib"],
    }
