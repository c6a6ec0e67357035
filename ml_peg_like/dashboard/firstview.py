"""The first view in the page's own HTML (issue 15, "fast start"). No Dash.

Before this, the first page showed "Loading..." until the browser had fetched and run ~3 MB of
scripts (React, Dash's renderer, AG Grid), asked for the layout and rendered it: ~2 s after the
HTML arrived, even on an idle machine. The page's HTML now holds the overview as plain HTML --
the title, the summary, the sidebar's entries and the table's first :data:`FIRST_ROWS` rows
ranked by the default settings, formatted and coloured as the grid formats and colours them --
so the ranking can be read as soon as the HTML is parsed, before any script ran (and without
JavaScript at all).

It is shown only where the page would show exactly that: the address holds no query (a link's
settings, view, filter, sort or digits are applied by the app, which the HTML cannot know
without scoring). ``assets/firstview.js`` removes it once the grid shows its first rows; until
then the app renders underneath, laid out but invisible (``style.css``), so the grid measures
its real size and the swap does not move anything that both show alike.

One rule, one place: the columns are the grid's own (``tables.column_defs``), the rows its own
(``tables.row_table`` in the grid's default order, ``rowblock.order``), the numbers formatted by
``numfmt`` (the twin of the grid's JS formatters) and the colour scale's stops are
:data:`SCORE_STOPS`, which the grid's JS reads too (``window.mplNames.scoreStops``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from .. import numfmt
from . import ids
from .rowblock import RowTable, grid_sort, order
from .tables import fmt_coverage

#: rows drawn in the HTML: a screen shows ~15-40 of the grid's 30 px rows
FIRST_ROWS = 40
#: the grid's colour scale of a score in [0, 1] (light theme): 0 red, 0.5 orange, 1 green
#: (traffic lights land exactly on the stops); read by ``assets/dashAgGridFunctions.js``
SCORE_STOPS: tuple[tuple[float, tuple[int, int, int]], ...] = (
    (0.0, (243, 168, 160)),
    (0.5, (252, 212, 150)),
    (1.0, (160, 214, 165)),
)
#: the grid's selection column (its tick boxes; ``components/compare.py``)
TICK_WIDTH = 40
#: AG Grid's width of a column that gives none
DEFAULT_WIDTH = 200


def score_colour(score: float) -> str:
    """The grid's cell colour of ``score`` (light theme): ``scoreColor`` in
    ``assets/dashAgGridFunctions.js`` (linear between :data:`SCORE_STOPS`, clipped to [0, 1],
    rounded per channel half up as JS's ``Math.round``)."""
    x = min(1.0, max(0.0, float(score)))
    colour = SCORE_STOPS[-1][1]
    for (a, ca), (b, cb) in zip(SCORE_STOPS, SCORE_STOPS[1:], strict=False):
        if x <= b:
            t = (x - a) / (b - a)
            colour = tuple(u + t * (v - u) for u, v in zip(ca, cb, strict=True))
            break
    return "rgb(" + ",".join(str(int(c + 0.5)) for c in colour) + ")"


def _formatter(col: Mapping[str, Any]) -> str:
    """The name of a column's JS value formatter ("" when it has none)."""
    fmt = col.get("valueFormatter")
    text = fmt.get("function", "") if isinstance(fmt, dict) else ""
    return text.split("(", 1)[0]


def _classes(*names: Any) -> str:
    out: list[str] = []
    for n in names:
        if isinstance(n, str):
            out.extend(n.split())
        elif isinstance(n, list | tuple):
            out.extend(x for x in n if isinstance(x, str))
    return " ".join(dict.fromkeys(out))


def _cell(col: Mapping[str, Any], row: Mapping[str, Any], scale: float) -> str:
    """One ``<td>`` as the grid draws the cell (text, classes, colour)."""
    field = col["field"]
    value = row.get(field)
    klass = _classes(col.get("cellClass"))
    style = ""
    fmt = _formatter(col)
    if field == ids.COL_MODEL:
        text = row.get(ids.COL_NAME) or row.get(ids.COL_MODEL, "")
    elif field == ids.COL_DELTA:
        # the first view is the defaults against themselves: no arrows, only the words
        # ("new", "no score") of the grid's fmtDelta
        text = value if isinstance(value, str) else ""
    elif fmt == "fmtScore":
        text = numfmt.fmt_score(value, scale)
        if numfmt.is_missing(value):
            klass = _classes(klass, "miss")
        else:  # the colour of the light theme; the dark one is mixed from it (style.css)
            klass = _classes(klass, "s")
            style = f"--c:{score_colour(value)}"
    elif fmt == "fmtCoverage":
        text = fmt_coverage(value)
    elif value is None:
        text = numfmt.MISSING_TEXT
    else:
        text = str(value)
    attrs = f' class="{escape(klass)}"' if klass else ""
    if style:
        attrs += f' style="{style}"'
    return f"<td{attrs}>{escape(str(text))}</td>"


def table_html(
    cols: Sequence[Mapping[str, Any]], rows: Iterable[Mapping[str, Any]], scale: float
) -> str:
    """The grid's columns and rows as a plain ``<table>`` (widths, classes, texts, colours)."""
    head = [f'<th class="tick" style="width:{TICK_WIDTH}px"></th>']
    total = TICK_WIDTH
    for c in cols:
        klass = _classes(f"c-{c.get('colId', c['field'])}", c.get("headerClass"))
        tip = c.get("headerTooltip") or ""
        width = int(c.get("width", DEFAULT_WIDTH))
        total += width
        head.append(
            f'<th class="{escape(klass)}" style="width:{width}px"'
            f' title="{escape(str(tip))}">{escape(str(c.get("headerName", "")))}</th>'
        )
    body = []
    for r in rows:
        cells = "".join(_cell(c, r, scale) for c in cols)
        body.append(f'<tr><td class="tick"></td>{cells}</tr>')
    return (
        f'<table class="first-table" style="width:{total}px"><thead><tr>'
        + "".join(head)
        + "</tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )


def first_rows(table: RowTable, n: int = FIRST_ROWS) -> list[dict]:
    """The first ``n`` rows of ``table`` in the grid's default order (by rank)."""
    positions = order(table, grid_sort("", table))[:n]
    return table.rows(positions)


def page_html(
    *,
    title: str,
    summary: str,
    help_text: str,
    nav: Sequence[Sequence[str]],
    categories: Iterable[str],
    meta: str,
    cols: Sequence[Mapping[str, Any]],
    rows: Iterable[Mapping[str, Any]],
    scale: float,
    n_models: int,
) -> str:
    """The first view: the page's header, the sidebar's top entries and categories (``nav``:
    ``navigation.sidebar_items``), the overview's heading (``meta``) and its table.
    ``n_models``: how many rows the grid will hold (the table says how many it shows)."""
    cats = set(categories)
    items = []
    for path, label, tip in nav:
        if path and path not in cats and "/" in path:
            continue  # a benchmark: shown under an open category only
        klass = "nav-item " + ("cat" if path in cats else "top") + (" active" if not path else "")
        items.append(f'<div class="{klass}" title="{escape(tip)}">{escape(label)}</div>')
    shown = min(n_models, FIRST_ROWS)
    more = (
        f'<p class="first-more">The first {shown} of {n_models} models; the others follow '
        "with the interactive table.</p>"
        if n_models > shown
        else ""
    )
    return (
        f'<div id="{ids.FIRST_VIEW}" class="app first-view" aria-busy="true">'
        '<header class="app-header"><div class="title-row">'
        f'<h1>{escape(title)}</h1><span class="summary">{escape(summary)}</span>'
        '<div class="head-tools"></div></div>'
        f'<p class="help">{escape(help_text)}</p></header>'
        '<div class="toolbar first-toolbar"><span class="first-note">Loading the controls'
        "\u2026</span></div>"
        f'<div class="body"><nav class="sidebar">{"".join(items)}</nav>'
        '<main class="main"><div class="view-head"><div class="crumbs">'
        '<span class="here">Overview</span></div>'
        f'<div class="view-info"><span class="meta">{escape(meta)}</span></div></div>'
        f'<div class="first-grid">{table_html(cols, rows, scale)}</div>{more}'
        "</main></div></div>"
    )
