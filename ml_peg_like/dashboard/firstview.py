"""The first view in the page's own HTML ("fast start"). No Dash.

Before this, the first page showed "Loading..." until the browser had fetched and run ~3 MB of
scripts (React, Dash's renderer, AG Grid), asked for the layout and rendered it: ~2 s after the
HTML arrived, even on an idle machine. The page's HTML now holds the page itself as plain HTML
(:func:`static_html` of the app's own layout: the header, the toolbar's controls as disabled
look-alikes, the overview's heading and policy bar, the settings below) with the grid's first
:data:`FIRST_ROWS` rows ranked by the default settings, formatted and coloured as the grid
formats and colours them: the ranking can be read as soon as the HTML is parsed, before any
script ran (and without JavaScript at all), and the page does not move when the app replaces it.

It is shown only where the page would show exactly that: the address holds no query (a link's
settings, view, filter, sort or digits are applied by the app, which the HTML cannot know
without scoring). It is ``inert`` (nothing in it can be clicked or focused) and carries no id
but its own. ``assets/firstview.js`` removes it once the grid shows its first rows; until then
the app renders underneath, laid out but invisible (``style.css``), so the grid measures its
real size.

One rule, one place: the page is the app's layout, the columns the grid's own
(``tables.column_defs``), the rows its own (``tables.row_table`` in the grid's default order,
``rowblock.order``), the numbers formatted by ``numfmt`` (the twin of the grid's JS formatters)
and the colour scale's stops are :data:`SCORE_STOPS`, which the grid's JS reads too
(``window.mplNames.scoreStops``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from html import escape
from typing import Any

from .. import numfmt
from ..scoring.ranks import rank_text
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
#: the ``elementtiming`` name of the best model's overall score: the browser's Element Timing
#: entry of that name says when the first view's ranking was painted (the benchmarks read it)
PAINT_MARK = "mpl-first-rows"
#: the grid's selection column (its tick boxes; ``components/explore/compare.py``)
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


def _change_text(field: str, value: Any, row: Mapping[str, Any]) -> str:
    """A change cell of the first view, the defaults against themselves: no arrows, only the
    words ("new", "no score") of the grid's fmtDelta; a score change of 0 (""), or "—"
    without an overall score (the grid's fmtScoreChange)."""
    if field == ids.COL_DELTA:
        return value if isinstance(value, str) else ""
    return numfmt.MISSING_TEXT if numfmt.is_missing(row.get(ids.COL_OVERALL)) else ""


def _cell(col: Mapping[str, Any], row: Mapping[str, Any], scale: float, mark: str = "") -> str:
    """One ``<td>`` as the grid draws the cell (text, classes, colour)."""
    field = col.get("colId") or col["field"]
    value = row.get(field)
    klass = _classes(col.get("cellClass"))
    style = ""
    fmt = _formatter(col)
    if field == ids.COL_MODEL:
        text = row.get(ids.COL_NAME) or row.get(ids.COL_MODEL, "")
        if row.get(ids.ROW_DOMINATED):  # the grid's cellClassRules: a mark after the name
            klass = _classes(klass, "dominated")
    elif fmt == "fmtRank":  # the grid's fmtRank: "=2" when shared, "—" without a rank
        text = rank_text(value, row.get(ids.ROW_TIED))
    elif field in (ids.COL_DELTA, ids.COL_SCORE_DELTA):
        text = _change_text(field, value, row)
    elif fmt == "fmtScore":
        text = numfmt.fmt_score(value, scale)
        if numfmt.is_missing(value):
            klass = _classes(klass, "miss")
        else:  # the colour of the light theme; the dark one is mixed from it (style.css)
            klass = _classes(klass, "s")
            style = f"--c:{score_colour(value)}"
    elif fmt == "fmtCoverage":
        text = fmt_coverage(value)
    elif value is None:  # (the breakdown bar: drawn by the grid alone)
        text = "" if field == ids.COL_CONTRIB else numfmt.MISSING_TEXT
    else:
        text = str(value)
    attrs = f' class="{escape(klass)}"' if klass else ""
    if mark:  # the browser reports when this cell's text is painted (Element Timing)
        attrs += f' elementtiming="{mark}"'
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
        klass = _classes(f"c-{c.get('colId') or c['field']}", c.get("headerClass"))
        tip = c.get("headerTooltip") or ""
        width = int(c.get("width", DEFAULT_WIDTH))
        total += width
        head.append(
            f'<th class="{escape(klass)}" style="width:{width}px"'
            f' title="{escape(str(tip))}">{escape(str(c.get("headerName", "")))}</th>'
        )
    body = []
    for i, r in enumerate(rows):
        cells = "".join(
            _cell(c, r, scale, PAINT_MARK if i == 0 and c.get("colId") == ids.COL_OVERALL else "")
            for c in cols
        )
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


#: the HTML of a component of these namespaces (``dash.html`` elements, ``dash.dcc`` controls)
HTML_NS, DCC_NS = "dash_html_components", "dash_core_components"
#: elements without children
VOID = {"br", "hr", "img", "input", "wbr", "col", "area", "source"}
#: ``dash.html`` props written as attributes (besides ``data-*`` and ``aria-*``)
ATTRS = {
    "className": "class",
    "title": "title",
    "role": "role",
    "htmlFor": "for",
    "colSpan": "colspan",
    "rowSpan": "rowspan",
    "href": "href",
    "target": "target",
    "rel": "rel",
}
#: the links written (an anchor in the page, a path, the web)
SAFE_HREF = re.compile(r"^(#|/(?!/)|https?://)", re.IGNORECASE)
#: CSS properties React writes without a unit when given a number
UNITLESS = {
    "opacity",
    "zIndex",
    "flex",
    "flexGrow",
    "flexShrink",
    "fontWeight",
    "lineHeight",
    "order",
}


def _css(style: Mapping[str, Any]) -> str:
    out = []
    for k, v in style.items():
        name = re.sub(r"([A-Z])", lambda m: "-" + m.group(1).lower(), str(k))
        if isinstance(v, int | float) and not isinstance(v, bool) and k not in UNITLESS:
            v = f"{v}px"
        out.append(f"{name}:{v}")
    return ";".join(out)


def _attrs(props: Mapping[str, Any]) -> str:
    out = []
    # by name: a component keeps its data-* / aria-* props in a hash order, and the page is
    # the same from one start to the next (a kept page, earlypage.py, is then the app's own)
    for k, v in sorted(props.items()):
        name = ATTRS.get(k) or (k if k.startswith(("data-", "aria-")) else None)
        if name == "href" and not SAFE_HREF.match(str(v)):
            continue  # a link goes to the page, a path or the web, never runs a script
        if name and isinstance(v, str | int | float) and not isinstance(v, bool):
            out.append(f' {name}="{escape(str(v))}"')
    if props.get("disabled") is True:
        out.append(" disabled")
    style = props.get("style")
    if isinstance(style, dict) and style:
        out.append(f' style="{escape(_css(style))}"')
    return "".join(out)


def _options(options: Any) -> list[tuple[str, Any]]:
    """(label, value) of a dcc control's options (a list of dicts or values, or a dict)."""
    if isinstance(options, dict):
        return [(str(v), k) for k, v in options.items()]
    out = []
    for o in options if isinstance(options, list) else []:
        if isinstance(o, dict):
            out.append((str(o.get("label", o.get("value", ""))), o.get("value")))
        else:
            out.append((str(o), o))
    return out


def _control(kind: str, props: Mapping[str, Any]) -> str:
    """A ``dash.dcc`` control as it looks before its script ran (nothing to click)."""
    klass = _classes(props.get("className"))
    value = props.get("value")
    if kind == "Input":
        v = "" if value is None else str(value)
        ph = str(props.get("placeholder") or "")
        return (
            f'<input type="text" value="{escape(v)}" placeholder="{escape(ph)}"'
            f' class="{escape(klass)}" disabled>'
        )
    if kind == "Dropdown":
        picked = value if isinstance(value, list) else ([] if value is None else [value])
        labels = [lab for lab, v in _options(props.get("options")) if v in picked]
        text = ", ".join(labels) or str(props.get("placeholder") or "Select...")
        shown = "first-dd-value" if labels else "first-dd-placeholder"
        return (
            f'<div class="first-dd {escape(klass)}"><span class="{shown}">{escape(text)}</span>'
            "</div>"
        )
    if kind in ("RadioItems", "Checklist"):
        radio = kind == "RadioItems"
        picked = value if isinstance(value, list) else [value]
        inline = ' style="display:inline-block"' if props.get("inline") else ""
        items = "".join(
            f'<label{inline}><input type="{"radio" if radio else "checkbox"}" disabled'
            f"{' checked' if v in picked else ''}>{escape(lab)}</label>"
            for lab, v in _options(props.get("options"))
        )
        return f'<div class="{escape(klass)}">{items}</div>'
    if kind == "Upload":
        return static_html(props.get("children"))
    return ""  # stores, the location, graphs, downloads: nothing to see


def _element(data: Mapping[str, Any], walk: Callable[[Any], None], out: list[str]) -> None:
    """One component (its ``to_plotly_json``) as HTML in ``out``: nothing when its style hides
    it, a ``dash.dcc`` control's look-alike, or a ``dash.html`` element and its children
    (``walk``); anything else is left out."""
    props = data.get("props", {})
    style = props.get("style")
    ns, kind = data.get("namespace"), data.get("type", "")
    if isinstance(style, dict) and style.get("display") == "none":
        return
    if ns == DCC_NS:
        out.append(_control(kind, props))
    elif ns == HTML_NS:
        tag = kind.lower()
        out.append(f"<{tag}{_attrs(props)}>")
        if tag not in VOID:
            walk(props.get("children"))
            out.append(f"</{tag}>")


def static_html(node: Any, replace: Mapping[str, str] | None = None, last: str = "") -> str:
    """A Dash layout as plain HTML, as it looks before its scripts ran: ``dash.html``
    elements with their classes, styles, titles, ``data-*`` and ``aria-*`` attributes and
    text; ``dash.dcc`` controls as disabled look-alikes; anything else (the grid, stores,
    graphs) left out, unless ``replace`` gives the HTML of its id. No ids are written (the
    app's own elements keep them), and a part hidden by its style is left out. ``last``: the
    id of the last component written; what follows it in the page is left out."""
    out: list[str] = []
    done = [False]  # ``last`` was written

    def walk(node: Any) -> None:
        if done[0] or node is None or isinstance(node, bool):
            return
        if isinstance(node, str | int | float):
            out.append(escape(str(node)))
            return
        if isinstance(node, list | tuple):
            for n in node:
                walk(n)
            return
        to_json = getattr(node, "to_plotly_json", None)
        if to_json is None:
            return
        data = to_json()
        props = data.get("props", {})
        pid = props.get("id")
        if isinstance(pid, str) and pid in (replace or {}):
            out.append(replace[pid])
        else:
            _element(data, walk, out)
        if last and pid == last:
            done[0] = True

    walk(node)
    return "".join(out)


def nav_html(nav: Sequence[Sequence[str]], categories: Iterable[str]) -> str:
    """The sidebar's top entries and categories as ``navigation.js`` draws them at the start
    (``nav``: ``navigation.sidebar_items``; a benchmark shows under an open category only)."""
    cats = set(categories)
    items = []
    for path, label, tip in nav:
        if any(path.startswith(c + "/") for c in cats):
            continue  # a benchmark
        klass = "nav-item " + ("cat" if path in cats else "top") + (" active" if not path else "")
        items.append(f'<div class="{klass}" title="{escape(tip)}">{escape(label)}</div>')
    return "".join(items)


def page_html(
    layout: Any,
    *,
    grid_id: str,
    sidebar_id: str,
    nav: Sequence[Sequence[str]],
    categories: Iterable[str],
    cols: Sequence[Mapping[str, Any]],
    rows: Sequence[Mapping[str, Any]],
    scale: float,
    n_models: int,
) -> str:
    """The first view: the page's ``layout`` down to its grid as plain HTML
    (:func:`static_html`; what is below the grid, mostly below the first screen, is left out:
    the first paint lays out and paints less), its grid (``grid_id``) as the table of ``rows``
    (:func:`table_html`) and its sidebar (``sidebar_id``, whose entries its script makes) as
    :func:`nav_html`. ``n_models``: how many rows the grid
    will hold (the table's tooltip says how many it shows)."""
    tip = f"The first {len(rows)} of {n_models} models" if n_models > len(rows) else ""
    table = f'<div class="first-grid" title="{tip}">{table_html(cols, rows, scale)}</div>'
    sidebar = f'<nav class="sidebar">{nav_html(nav, categories)}</nav>'
    body = static_html(layout, {grid_id: table, sidebar_id: sidebar}, last=grid_id)
    return f'<div id="{ids.FIRST_VIEW}" class="first-view" inert aria-busy="true">{body}</div>'
