"""Keeping the grid's rows in step with the state at the cost of the cells that changed.

The edit callback hands :func:`rows_output` the state it answers (its changes, view, model
filter) and the state the browser's rows show (the row-key store); this returns either a
``rowData`` (another view or filter: the whole table) or a row delta (``rowdelta.py``) that a
browser-side callback merges into the grid as an AG Grid row transaction (``update`` of the
changed rows only). No per-user state: the browser's key says which rows it holds.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import orjson
from dash import ClientsideFunction, Input, Output, dcc, no_update

from .. import ids
from ..cache import ScoreCache
from ..rowblock import Blocks, RowTable
from ..rowdelta import diff_columns, parse_row_key, row_key
from ..state import (
    clean_changes,
    decode_changes,
    decode_filters,
    encode_changes,
    encode_filters,
    filtered_models,
)
from .plots import holder

#: rows of (changes key, scores, view, models or None, rank among the shown) -- the grid's one
#: row builder (``tables.row_data`` with the edit callback's arguments); ``deltas=INFINITE``
#: calls it with ``table=True`` too, for the rows as columns (``tables.row_table``)
BuildRows = Callable[..., Any]

#: the view part of a row key when ranks are among the shown models (another row set)
RANK_SHOWN = "\x00r"


def _view_key(view: str, rank_shown: bool) -> str:
    return view + (RANK_SHOWN if rank_shown else "")


def stores(key: str) -> list:
    """The key of the rows the grid shows (initially the page's embedded default rows) and the
    next delta to merge."""
    return [
        dcc.Store(id=ids.ROWKEY, data=key),
        dcc.Store(id=ids.ROWDELTA, data=None),
        dcc.Store(id=ids.BIG_BLOCK, data=None),  # INFINITE: the new key's first block
        holder(ids.EARLY_TEXTS),  # the edit's texts outside its outputs (EARLY_HOOK)
    ]


def default_key() -> str:
    return row_key("", "", "")


#: Dash's renderer hook: each function in ``window.mplEarly`` sees a response as soon as it is
#: parsed and may apply an output itself and take it out of the response (no store update, no
#: render, no clientside callback hop): the row delta (rowdelta.js), the interval texts
#: (sensitivity.js), the texts of ``ids.EARLY_TEXTS`` (earlytexts.js)
EARLY_HOOK = "request_post: (p, r) => (window.mplEarly || []).forEach((f) => f(p, r))"


def register(app) -> None:
    """The browser merges each delta into the grid (``assets/rowdelta.js``): no request.
    Dash's ``request_post`` hook merges it before the response's other outputs are drawn;
    the clientside callback is the fallback (a delta that arrives before the grid)."""
    default = "new DashRenderer()"
    if default in app.renderer:
        app.renderer = app.renderer.replace(default, "new DashRenderer({" + EARLY_HOOK + "})")
    app.clientside_callback(
        ClientsideFunction("mplRows", "apply"),
        Output(ids.GRID, "rowTransaction"),
        Input(ids.ROWDELTA, "data"),
        prevent_initial_call=True,
    )


#: ``deltas="auto"``: a whole table up to this size (JSON) is sent as it is. Measured
#: (docs/PERFORMANCE-SCALE.md): merging a delta cost the browser one more Dash callback hop than
#: a rowData that arrives with the response; since the delta is merged in Dash's request_post
#: hook (``register``) that hop is gone and a small table costs the same either way (ML-PEG
#: scale, interleaved: 49 ms of browser work after the response both ways; 7.6 vs 5.2 KB)
FULL_TABLE_MAX_BYTES = 128 * 1024
#: ``deltas`` of a large table: the edit sends only the row key (see :class:`RowSync`)
INFINITE = "infinite"
#: row tables kept (``INFINITE``: the states whose blocks the browsers ask for; deltas: the
#: browsers' rows and the new ones)
TABLES = 4
#: views (x model filters) whose rows' JSON size is kept (``RowSync._json_bytes``)
SIZES = 64


class RowSync:
    """Builds and diffs the rows of two states for the edit callback (bounded cache).

    ``deltas``: True: always a delta when one applies; False: always the whole table; "auto":
    the whole table while it is at most ``full_max_bytes`` of JSON or not 4x the delta;
    ``INFINITE``: no rows at all, only the new row key (a large table's grid then fetches the
    rows it shows: ``components/bigrows.py``; the rows are then built as columns, a
    ``rowblock.RowTable``, whose blocks build the dicts of their rows only)."""

    def __init__(
        self,
        cache: ScoreCache,
        build: BuildRows,
        *,
        deltas: bool | str = "auto",
        full_max_bytes: int = FULL_TABLE_MAX_BYTES,
    ):
        self.full_max_bytes = full_max_bytes
        self.cache = cache
        self.build = build
        self.deltas = deltas
        self._lock = threading.Lock()
        self._tables: OrderedDict[str, Any] = OrderedDict()
        self._sizes: OrderedDict[str, int] = OrderedDict()  # row JSON bytes per view + filter
        self.blocks = Blocks()  # INFINITE: sorted blocks (the edit's first, the grid's fetches)

    def table_of(
        self, key: str, changes_key: str, scores, view: str, models, rank_shown: bool
    ) -> RowTable:
        """The rows of ``key`` as columns, the last :data:`TABLES` kept."""
        with self._lock:
            hit = self._tables.get(key)
            if hit is not None:
                self._tables.move_to_end(key)
                return hit
        table = self.build(changes_key, scores, view, models, rank_shown, table=True)
        self.remember(key, table)
        return table

    def remember(self, key: str, table: RowTable) -> None:
        """Keep ``table`` as the rows of ``key`` (the page's first rows, built for its
        layout: the grid's first request for them builds nothing)."""
        with self._lock:
            self._tables[key] = table
            while len(self._tables) > TABLES:
                self._tables.popitem(last=False)

    def rows_for(self, key: Any) -> RowTable | None:
        """The rows of a row key as columns (None when it is not readable)."""
        old = self._old_rows(key)
        return None if old is None else old[1]

    def _old_rows(self, shown: Any) -> tuple[str, RowTable] | None:
        """(view key, rows as columns) the browser shows, rebuilt from its key (None when it
        is not readable)."""
        parts = parse_row_key(shown)
        if parts is None:
            return None
        s, view_key, f = parts
        rank_shown = view_key.endswith(RANK_SHOWN)
        view = view_key[: -len(RANK_SHOWN)] if rank_shown else view_key
        c = self.cache
        try:
            changes = clean_changes(c.defaults, decode_changes(s))
            if encode_changes(changes) != s:
                return None
            _cfg, scores = c.scores_for(changes, key=s)
        except Exception:  # noqa: BLE001 (a forged or outdated key: send the whole table)
            return None
        filters = decode_filters(f, c.models, c.attr_options)
        if encode_filters(filters) != f:
            return None
        models = filtered_models(filters, c.models, c.attr_values)
        return view_key, self.table_of(shown, s, scores, view, models, rank_shown)

    def output(
        self,
        out: dict,
        shown: Any,
        *,
        changes_key: str,
        scores,
        view: str,
        filters: dict,
        models: list[str] | None,
        rank_shown: bool = False,
        sort: str = "",
    ) -> None:
        """Fill ``out["rows"]`` (the whole table) or ``out["rowdelta"]`` and ``out["rowkey"]``.
        ``INFINITE``: only ``out["rowkey"]`` and the new key's first block in the URL's
        ``sort`` text (``out["bigblock"]``: the grid then needs no fetch while it shows the
        top; the new rows are built here, so its fetches of other blocks find them built)."""
        view_key = _view_key(view, rank_shown)
        key = row_key(changes_key, view_key, encode_filters(filters))
        if self.deltas == INFINITE:  # the grid fetches the rows it shows itself
            if key != shown:
                out["rowkey"] = key
                table = self.table_of(key, changes_key, scores, view, models, rank_shown)
                out["bigblock"] = self.blocks.first(key, table, sort)
            return
        if not self.deltas:  # the whole table every time (the benchmark's "before")
            out["rows"] = self.build(changes_key, scores, view, models, rank_shown)
            out["rowkey"] = key
            return
        if key == shown:
            return  # the browser's rows are these already
        # as columns: the delta compares column lists, never one dict per row (the
        # dicts of 1,000 rows and their comparison were ~7 ms of a 1,000 x 1,000 edit)
        new = self.table_of(key, changes_key, scores, view, models, rank_shown)
        out["rowkey"] = key
        old = self._old_rows(shown)
        delta = None
        if old is not None and old[0] == view_key and old[1].models == new.models:
            full_size = None
            if self.deltas == "auto":
                full_size = self._json_bytes(row_key("", view_key, encode_filters(filters)), new)
            if full_size is None or full_size > self.full_max_bytes:
                delta = diff_columns(old[1].columns(), new.columns(), len(new))
                if full_size is not None and full_size < 4 * len(orjson.dumps(delta)):
                    delta = None  # not 4x smaller than the whole table: that is drawn as soon
        if delta is None:
            out["rows"] = new.rows()
            out["rowdelta"] = no_update
        else:
            delta["t"] = time.time_ns() % 1_000_000_007  # two equal deltas are two updates
            out["rowdelta"] = delta

    def _json_bytes(self, shape: str, table: RowTable) -> int:
        """The JSON size of ``table``'s rows, measured once per view and model filter
        (``shape``): another state of the same rows changes their values, not their number
        or fields, so the size moves by a few per cent and only near the "auto" bounds."""
        with self._lock:
            size = self._sizes.get(shape)
        if size is None:
            size = len(orjson.dumps(table.rows(), option=orjson.OPT_SERIALIZE_NUMPY))
            with self._lock:
                self._sizes[shape] = size
                while len(self._sizes) > SIZES:
                    self._sizes.popitem(last=False)
        return size
