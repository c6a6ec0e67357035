"""The grid's sort as part of the URL (``sort=<column id>.<asc|desc>``; absent: by rank).

:func:`sort_of` reads AG Grid's ``columnState``, :func:`sort_text` checks a link's text and
:func:`apply_sort` puts the sort into column definitions (AG Grid applies a column
definition's ``sort`` when the definitions change)."""

from __future__ import annotations

import json
import re
from typing import Any

from dash import Input, Output, State, dcc

from ... import ids

DIRECTIONS = ("asc", "desc")
DEFAULT = (ids.COL_RANK, "asc")
_SORT = re.compile(r"^([A-Za-z0-9_]{1,24})\.(asc|desc)$")


def sort_text(value: Any) -> str:
    """``"<col>.<dir>"`` when ``value`` is a valid, non-default sort, else ``""``."""
    if not isinstance(value, str):
        return ""
    m = _SORT.match(value)
    if not m or (m.group(1), m.group(2)) == DEFAULT:
        return ""
    return value


def sort_of(column_state: Any) -> str:
    """The sort of AG Grid's ``columnState`` as :func:`sort_text` (the first sorted column)."""
    if not isinstance(column_state, list):
        return ""
    best = None
    for c in column_state[:5000]:
        if isinstance(c, dict) and c.get("sort") in DIRECTIONS and isinstance(c.get("colId"), str):
            idx = c.get("sortIndex")
            idx = idx if isinstance(idx, int) else 0
            if best is None or idx < best[0]:
                best = (idx, c["colId"], c["sort"])
    if best is None:
        return ""
    return sort_text(f"{best[1]}.{best[2]}")


def effective_sort(sort: str, show: str, raw_show: str) -> str:
    """The sort after the raw / normalised toggle: a metric's column follows the toggle (raw
    ``r<j>`` or score ``n<j>``: the same metric, so the sort stays on it)."""
    col, _, direction = sort.partition(".")
    m = re.match(rf"^[{ids.RAW_PREFIX}{ids.SCORE_PREFIX}](\d+)$", col)
    if not m:
        return sort
    j = int(m.group(1))
    return f"{ids.raw_col(j) if show == raw_show else ids.score_col(j)}.{direction}"


def apply_sort(cols: list[dict], sort: str) -> list[dict]:
    """``cols`` sorted by ``sort`` (``""``: by rank). A sort on a column the view does not
    have falls back to the rank. Every other column says ``sort: None``: AG Grid keeps a
    column's own sort when its new definition does not say one (a sort left over from another
    view would stay on screen while the URL says the rank)."""
    col, _, direction = sort.partition(".") if sort else ("", "", "")
    if not any(c.get("colId") == col for c in cols):
        col, direction = ids.COL_RANK, "asc"
    out = []
    for c in cols:
        c = {k: v for k, v in c.items() if k != "sort"}
        c["sort"] = direction if c.get("colId") == col else None
        out.append(c)
    return out


def store() -> dcc.Store:
    """The sort store (written in the browser when the user sorts, read by the edit callback)."""
    return dcc.Store(id=ids.SORT, data=None)


#: in the browser: the grid's sort as :func:`sort_of` computes it, written only when it differs
#: from the URL's (a sort the server itself applied from a link is not sent back). Until the
#: server has answered the page's link (``qs`` still its first "" while the address has a query)
#: the grid shows the first page's columns, not the link's: its sort is not the user's and would
#: overwrite the link's (a race seen under load), so it is not sent.
_JS = """
function (state, qs) {
  var nu = window.dash_clientside.no_update;
  if (!Array.isArray(state)) return nu;
  if (!qs && window.location.search.length > 1) return nu;
  var best = null;
  state.forEach(function (c) {
    if (c && (c.sort === "asc" || c.sort === "desc")) {
      var i = typeof c.sortIndex === "number" ? c.sortIndex : 0;
      if (best === null || i < best[0]) best = [i, c.colId + "." + c.sort];
    }
  });
  var s = best ? best[1] : "";
  if (s === DEFAULT) s = "";
  var cur = new URLSearchParams(window.location.search).get(PARAM) || "";
  return s === cur ? nu : s;
}
"""


def register(app, param: str) -> None:
    """The clientside callback: AG Grid's ``columnState`` -> the sort store."""
    js = _JS.replace("DEFAULT", json.dumps(".".join(DEFAULT))).replace("PARAM", json.dumps(param))
    app.clientside_callback(
        js,
        Output(ids.SORT, "data"),
        Input(ids.GRID, "columnState"),
        State(ids.QS, "data"),
        prevent_initial_call=True,
    )
