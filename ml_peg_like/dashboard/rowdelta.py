"""Row deltas: an edit sends the grid only the cells whose values changed (no Dash).

The server keeps no per-user state. The browser holds, beside the grid, the key of the state its
rows show (:func:`row_key`: the encoded changes, the view and the encoded model filter). On an
edit the server rebuilds the rows of that state (a bounded cache usually holds them: they were the
previous answer) and of the new state with the same builder, and sends :func:`diff_columns` of the
two (``components/rowsync.py``; :func:`diff_rows` is the same on row dicts): any field a row
carries (today's or one added later) is compared, so new columns pass through.

A delta is ``{"n": rows, "c": {field: {"i": [row positions], "v": [values]}}, "x": {field:
[row positions]}}``: positions index the rows of the last full ``rowData`` (the grid's insertion
order; sorting and filtering do not change it); ``"i"`` is omitted when most rows changed (then
``"v"`` holds the whole column and ``"u"`` the rows without the field), and is the NAME of an
earlier field when the positions are the same as that field's (columns of one edit change on the
same rows); ``"e": 9`` says the values are integers times 10**9 (floats of at most 9
decimals: shorter) and ``"r": 1`` that they are steps from the row's current value (a
score that moves a little: fewer digits); ``x`` lists fields a row no longer has.
``assets/rowdelta.js`` merges it into the grid's rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import orjson

Rows = list[dict]


def row_key(changes_key: str, view: str, filters_key: str) -> str:
    """The key of the rows a state shows (what the browser stores beside the grid)."""
    return json.dumps([changes_key, view, filters_key], separators=(",", ":"))


def parse_row_key(key: object) -> tuple[str, str, str] | None:
    """(changes key, view, filters key) of :func:`row_key` text; None for anything else."""
    if not isinstance(key, str) or len(key) > 500_000:
        return None
    try:
        parts = json.loads(key)
    except ValueError:
        return None
    if not (isinstance(parts, list) and len(parts) == 3 and all(isinstance(p, str) for p in parts)):
        return None
    return parts[0], parts[1], parts[2]


#: a cell a row does not have
ABSENT = object()


def diff_rows(old: Rows, new: Rows, id_field: str) -> dict | None:
    """The delta turning ``old`` into ``new`` (see module doc); None when the two do not hold
    the same row ids in the same order (then the whole table must be sent)."""
    if len(old) != len(new):
        return None
    changed: dict[str, tuple[list[int], list]] = {}
    dropped: dict[str, list[int]] = {}
    for k, (a, b) in enumerate(zip(old, new, strict=True)):
        if a.get(id_field) != b.get(id_field):
            return None
        if a == b:
            continue
        for f, v in b.items():
            if f not in a or a[f] != v:  # 1 == 1.0: the same number in the browser
                pos, vals = changed.setdefault(f, ([], []))
                pos.append(k)
                vals.append(v)
        for f in a.keys() - b.keys():
            dropped.setdefault(f, []).append(k)
    return _pack(
        changed,
        dropped,
        len(new),
        lambda f: [b.get(f, ABSENT) for b in new],
        lambda f: [a.get(f, ABSENT) for a in old],
    )


def diff_columns(old: dict[str, list], new: dict[str, list], n: int) -> dict:
    """:func:`diff_rows` of two tables of ``n`` rows (the same row ids, in the same order) held
    as columns: ``{field: each row's value, or ABSENT}`` in the rows' field order (the same delta,
    without building and comparing one dict per row: ``rowblock.RowTable.columns``)."""
    changed: dict[str, tuple[list[int], list]] = {}
    dropped: dict[str, list[int]] = {}
    for f, b in new.items():
        a = old.get(f)
        if a == b:  # one C comparison for the columns an edit leaves alone
            continue
        if a is None:
            a = [ABSENT] * n
        pos = [k for k, (x, y) in enumerate(zip(a, b, strict=True)) if x != y and y is not ABSENT]
        if pos:
            changed[f] = (pos, [b[k] for k in pos])
    for f, a in old.items():
        b = new.get(f)
        if b is not None and ABSENT not in b:  # one scan in C: no row lost the field
            continue
        gone = [k for k, x in enumerate(a) if x is not ABSENT and (b is None or b[k] is ABSENT)]
        if gone:
            dropped[f] = gone
    return _pack(changed, dropped, n, new.__getitem__, lambda f: old.get(f) or [ABSENT] * n)


def _pack(
    changed: dict[str, tuple[list[int], list]],
    dropped: dict[str, list[int]],
    n: int,
    column: Callable[[str], list],
    old_column: Callable[[str], list],
) -> dict:
    """The delta of the changed cells (positions, values per field) and the dropped fields;
    ``column(field)``, ``old_column(field)``: the field's value in every new / old row (ABSENT
    where a row lacks it)."""
    cols: dict = {}
    seen: dict[tuple, str] = {}  # a position list already sent -> the field that carries it
    for f, (pos, vals) in changed.items():
        if 2 * len(pos) > n:  # most rows changed: the whole column is shorter
            whole = column(f)
            absent = [k for k, v in enumerate(whole) if v is ABSENT]
            cols[f] = {"v": [None if v is ABSENT else v for v in whole] if absent else whole}
            if absent:
                cols[f]["u"] = absent
            continue
        tpos = tuple(pos)
        cols[f] = {"i": seen.get(tpos, pos), "v": vals}
        seen.setdefault(tpos, f)
    for f, spec in cols.items():
        scaled = _scaled(spec["v"])
        if scaled is None:
            continue
        spec["v"], spec["e"] = scaled, SCALE_DIGITS
        pos = spec.get("i", range(n))
        olds = old_column(f)
        steps = _steps(scaled, [olds[k] for k in (cols[pos]["i"] if isinstance(pos, str) else pos)])
        if steps is not None:
            spec["v"], spec["r"] = steps, 1
    out: dict = {"n": n, "c": cols}
    if dropped:
        out["x"] = dropped
    return out


#: a column of floats with at most this many decimals travels as integers times 10**this
#: (``"e"``): "912367662" for 0.912367662, 2 bytes less per score (scores have 9 decimals:
#: ``tables.DIGITS``); the browser divides, which gives the same double (both divisions are
#: correctly rounded and every such integer is exact)
SCALE_DIGITS = 9
_SCALE = 10**SCALE_DIGITS


def _scaled(vals: list) -> list | None:
    """``vals`` (floats or None) as integers times ``10**SCALE_DIGITS`` when each one comes
    back exactly by the division and the JSON is shorter; None otherwise."""
    out = []
    for v in vals:
        if v is None:
            out.append(None)
            continue
        if type(v) is not float or not abs(v) < 2**53 / _SCALE:
            return None
        d = round(v * _SCALE)
        if d / _SCALE != v:
            return None
        out.append(d)
    return out if len(orjson.dumps(out)) < len(orjson.dumps(vals)) else None


def _steps(scaled: list, olds: list) -> list | None:
    """``scaled`` (``_scaled`` integers of the new values) as steps from the browser's values
    ``olds`` (``"r"``: new = (round(old * 10**9) + step) / 10**9): a score that moves a little
    needs fewer digits. None unless every old value of a new number is a number that both
    Python and JS round to the same integer (never a half) and the JSON is shorter."""
    out = []
    for d, o in zip(scaled, olds, strict=True):
        if d is None:
            out.append(None)
            continue
        if type(o) is not float and type(o) is not int or isinstance(o, bool):
            return None
        x = o * _SCALE
        if not abs(x) < 2**50:
            return None
        do = round(x)
        if abs(x - do) > 0.25 or do / _SCALE != o:
            return None
        out.append(d - do)
    return out if len(orjson.dumps(out)) < len(orjson.dumps(scaled)) else None


def unscaled(spec: dict, olds: list | None = None) -> list:
    """The values of one column of a delta (``"e"``: sent as integers, see ``_scaled``;
    ``"r"``: as steps from ``olds``, the rows' values at the column's positions)."""
    if "e" not in spec:
        return spec["v"]
    scale = 10 ** spec["e"]
    if spec.get("r"):
        return [
            None if d is None else (round(o * scale) + d) / scale
            for d, o in zip(spec["v"], olds or [], strict=True)
        ]
    return [None if d is None else d / scale for d in spec["v"]]


def apply_delta(rows: Rows, delta: dict) -> Rows:
    """``rows`` with ``delta`` applied (the Python twin of ``assets/rowdelta.js``; tests)."""
    out = [dict(r) for r in rows]
    cols = delta.get("c", {})
    for f, spec in cols.items():
        pos = spec.get("i", range(len(out)))
        if isinstance(pos, str):
            pos = cols[pos]["i"]
        absent = set(spec.get("u", ()))
        olds = [out[k].get(f) for k in pos] if spec.get("r") else None
        for k, v in zip(pos, unscaled(spec, olds), strict=True):
            if k not in absent:
                out[k][f] = v
    for f, pos in delta.get("x", {}).items():
        for k in pos:
            out[k].pop(f, None)
    return out
