"""The grid's sort as part of the URL (``sort=<column id>.<asc|desc>``; absent: by rank).

:func:`sort_of` reads AG Grid's ``columnState``, :func:`sort_text` checks a link's text and
:func:`apply_sort` puts the sort into column definitions (AG Grid applies a column
definition's ``sort`` when the definitions change)."""

from __future__ import annotations

import re
from typing import Any

from .. import ids

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


def apply_sort(cols: list[dict], sort: str) -> list[dict]:
    """``cols`` sorted by ``sort`` (``""``: by rank, as ``tables.column_defs`` builds them).
    A sort on a column the view does not have falls back to the rank."""
    if not sort:
        return cols
    col, _, direction = sort.partition(".")
    if not any(c.get("colId") == col for c in cols):
        return cols
    out = []
    for c in cols:
        c = {k: v for k, v in c.items() if k != "sort"}
        if c.get("colId") == col:
            c["sort"] = direction
        elif c.get("colId") == ids.COL_RANK:
            c["sort"] = None
        out.append(c)
    return out
