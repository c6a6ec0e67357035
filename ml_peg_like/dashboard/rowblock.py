"""A table's rows held as columns, and their order as the grid sorts them (no Dash).

The page's first view (``firstview.py``: the first rows as HTML, shown before the grid is drawn)
lists the rows in the order AG Grid's client-side row model gives (its default comparator, which
the grid's columns use): missing values (``None``) first when ascending and so last when
descending, numbers by value, text by code point, and rows that tie keep the table's own order
(the models' order) in both directions; a column sorted on its display name (the model column)
by the name shown. The rank column is the exception (its comparator, ``rankCompare`` in
assets/dashAgGridFunctions.js): a model without a rank is last in both directions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import ids

Rows = list[dict]  # or a RowTable (its dicts built for the block only)
SortModel = list[tuple[str, str]]  # (column id, "asc" | "desc"), the first the main sort


def clean_sort(value: object) -> SortModel:
    """AG Grid's ``sortModel`` (``[{"colId": .., "sort": "asc"|"desc"}]``) as a list of pairs;
    anything else is dropped (bad input never fails a request)."""
    out: SortModel = []
    if not isinstance(value, list):
        return out
    for s in value[:8]:
        if not isinstance(s, dict):
            continue
        col, direction = s.get("colId"), s.get("sort")
        if isinstance(col, str) and len(col) <= 64 and direction in ("asc", "desc"):
            out.append((col, direction))
    return out


def grid_sort(sort: str, rows: Rows | RowTable) -> SortModel:
    """The grid's sort model for a sort text of the URL (``viewstate.sort_text``: "" by rank,
    else ``"<column>.<asc|desc>"``) on these rows: a column the rows do not have is the rank
    (as ``viewstate.apply_sort`` falls back for the grid's column definitions)."""
    col, _, direction = sort.partition(".")
    if col and direction in ("asc", "desc") and _has(rows, col):
        return [(col, direction)]
    return [(ids.COL_RANK, "asc")]


def _has(rows, col: str) -> bool:
    if col in (ids.COL_MODEL, ids.COL_RANK, ids.COL_DELTA):
        return True
    if isinstance(rows, RowTable):
        return col in rows.fields
    return bool(rows) and col in rows[0]


def _shown(name, key):
    """The model column's value: its display name (tables: valueGetter modelName)."""
    return name or key


def _value(row: dict, col: str):
    if col == ids.COL_MODEL:
        return _shown(row.get(ids.COL_NAME), row.get(ids.COL_MODEL))
    return row.get(col)


def _rank(v) -> int | None:
    """A rank as the row holds it: an int, ``None`` for no rank (no overall score)."""
    return None if v is None or v != v else int(v)


def _delta(v) -> int | str:
    return v if isinstance(v, str) else int(v)


class RowTable:
    """A table's rows held as columns (``tables.row_table``): the dict of a row is built only
    when asked for (a large table's block: 100 of 10,000 rows). ``ranks``: the ranking rule's
    ranks (NaN: no rank, ``None`` in the row) and ``tied``: whether each is shared (the row's
    :data:`ids.ROW_TIED`, absent when not). ``names``: the display name
    of each row where it differs from the model key, else None; ``reasons``: (column, reason
    letter of each row) of the columns with a missing cell; ``veto``: each row's veto reasons
    (or None); ``dominated``: ``{model: models dominating it}``."""

    def __init__(self, models, ranks, delta, names, fields, reasons, veto, dominated, tied=None):
        self.models = models
        self._ranks, self._delta = ranks, delta
        self._tied = np.zeros(len(models), dtype=bool) if tied is None else np.asarray(tied)
        self.names = names
        self.fields = fields
        self.reasons = reasons
        self.veto = veto
        self.dominated = dominated

    def __len__(self) -> int:
        return len(self.models)

    def row(self, r: int) -> dict:
        key = self.models[r]
        row = {
            ids.COL_MODEL: key,
            ids.COL_RANK: _rank(self._ranks[r]),
            ids.COL_DELTA: _delta(self._delta[r]),
        }
        if self._tied[r]:
            row[ids.ROW_TIED] = True
        if self.names[r]:
            row[ids.COL_NAME] = self.names[r]
        for k, vals in self.fields.items():
            row[k] = vals[r]
        why = {k: v[r] for k, v in self.reasons if v[r]}
        if why:
            row[ids.ROW_REASONS] = why
        if self.veto and self.veto[r]:
            row[ids.ROW_VETO] = self.veto[r]  # the overall cell's tooltip
        if self.dominated and self.dominated.get(key):
            row[ids.ROW_DOMINATED] = ", ".join(self.dominated[key])
        return row

    def rows(self, positions: Sequence[int] | None = None) -> Rows:
        """The dicts of the rows at ``positions`` (None: every row, in order)."""
        return [self.row(r) for r in (range(len(self)) if positions is None else positions)]

    def column(self, col: str) -> list:
        """What each row holds at ``col`` (the model column: its display name), as
        :func:`order` reads it from the row dicts."""
        if col == ids.COL_MODEL:
            return [_shown(nm, k) for nm, k in zip(self.names, self.models, strict=True)]
        if col in self.fields:
            return self.fields[col]
        if col == ids.COL_RANK:
            return [_rank(v) for v in self._ranks]
        if col == ids.COL_DELTA:
            return [_delta(v) for v in self._delta]
        return [_value(r, col) for r in self.rows()]  # other keys: as the rows hold them


def sort_key(value) -> tuple:
    """The ascending order of one cell's value (AG Grid's default comparator): missing first,
    then numbers, then text (a column mixing both, the rank change: numbers, then the words)."""
    if value is None or isinstance(value, bool):
        return (0, 0)
    if isinstance(value, int | float):
        if value != value:  # NaN: missing
            return (0, 0)
        return (1, value)
    return (2, str(value))


def _numbers(values: list) -> np.ndarray | None:
    """``values`` as floats (missing: NaN) when they are numbers or missing only (no text, no
    bool), else None: then :func:`sort_key` orders them."""
    types = set(map(type, values))  # one pass in C (10,000 rows: the checks below skip theirs)
    if bool in types:
        return None
    try:
        arr = np.array(values, dtype=float)
    except (TypeError, ValueError):
        return None
    if arr.ndim != 1 or (int in types and any(type(v) is int and abs(v) > 2**53 for v in values)):
        return None
    return arr


def order(rows: Sequence[dict] | RowTable, sort: SortModel) -> list[int]:
    """Row positions in the order of ``sort`` (``[]``: the table's own order). A column of
    numbers (and missing values) is sorted with numpy in :func:`sort_key`'s order: missing
    first ascending and last descending (the rank column: missing last both ways), ties in the
    order before (both directions)."""
    idx = np.arange(len(rows))
    for col, direction in reversed(sort):  # stable sorts: the first column decides last
        if isinstance(rows, RowTable):
            values = rows.column(col)
        else:
            values = [_value(r, col) for r in rows]
        arr = _numbers(values)
        if arr is None:
            keys = [sort_key(values[i]) for i in idx.tolist()]
            perm = sorted(range(len(keys)), key=keys.__getitem__, reverse=direction == "desc")
            idx = idx[np.asarray(perm, dtype=np.intp)]
            continue
        v = arr[idx]
        present = ~np.isnan(v)
        v = np.where(present, v, 0.0)
        flag = present.astype(np.int8)
        if direction == "desc":
            perm = np.lexsort((-v, -flag))
        else:
            # no rank: last ascending too (the rank column's rankCompare)
            perm = np.lexsort((v, 1 - flag if col == ids.COL_RANK else flag))
        idx = idx[perm]
    return idx.tolist()
