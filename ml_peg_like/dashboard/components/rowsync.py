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
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import orjson
from dash import ClientsideFunction, Input, Output, dcc, no_update

from .. import ids
from ..cache import ScoreCache
from ..rowblock import Blocks, RowTable
from ..rowdelta import RowCache, diff_rows, parse_row_key, row_key
from ..state import (
    clean_changes,
    decode_changes,
    decode_filters,
    encode_changes,
    encode_filters,
    filtered_models,
)

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
    ]


def default_key() -> str:
    return row_key("", "", "")


def register(app) -> None:
    """The browser merges each delta into the grid (``assets/rowdelta.js``): no request."""
    app.clientside_callback(
        ClientsideFunction("mplRows", "apply"),
        Output(ids.GRID, "rowTransaction"),
        Input(ids.ROWDELTA, "data"),
        prevent_initial_call=True,
    )


#: ``deltas="auto"``: a whole table up to this size (JSON) is sent as it is. Measured (issue 15,
#: docs/PERFORMANCE-SCALE.md): merging a delta costs the browser one more Dash callback hop
#: (40-60 ms on a loaded 2-core machine) than a rowData that arrives with the response, which on
#: a local network outweighs sending up to ~100-200 KB more; above this size the delta wins
FULL_TABLE_MAX_BYTES = 128 * 1024
#: ``deltas`` of a large table: the edit sends only the row key (see :class:`RowSync`)
INFINITE = "infinite"
#: row sets built ahead at most at a time (``RowSync.prebuild``)
PREBUILDS = 2
#: row tables kept (``INFINITE``: the states whose blocks the browsers ask for)
TABLES = 4


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
        self.rows = RowCache()
        # INFINITE: the rows of an edit's new key are built while its response travels and
        # the browser draws it, so that the grid's fetch of its blocks finds them built
        self._pool: ThreadPoolExecutor | None = None
        self._pending: dict[str, Future] = {}
        self._lock = threading.Lock()
        self._tables: OrderedDict[str, Any] = OrderedDict()
        self.blocks = Blocks()  # INFINITE: sorted blocks (the edit's first, the grid's fetches)

    def rows_of(
        self, key: str, changes_key: str, scores, view: str, models, rank_shown: bool
    ) -> list[dict]:
        return self.rows.get(key, lambda: self.build(changes_key, scores, view, models, rank_shown))

    def table_of(
        self, key: str, changes_key: str, scores, view: str, models, rank_shown: bool
    ) -> RowTable:
        """The rows of ``key`` as columns (``INFINITE``), the last :data:`TABLES` kept."""
        with self._lock:
            hit = self._tables.get(key)
            if hit is not None:
                self._tables.move_to_end(key)
                return hit
        table = self.build(changes_key, scores, view, models, rank_shown, table=True)
        with self._lock:
            self._tables[key] = table
            while len(self._tables) > TABLES:
                self._tables.popitem(last=False)
        return table

    def prebuild(self, key: str, *args) -> None:
        """Build the rows of ``key`` (``rows_of``'s arguments) in a background thread: at most
        ``PREBUILDS`` at a time, else not at all (the fetch builds them)."""
        with self._lock:
            if key in self._pending or len(self._pending) >= PREBUILDS:
                return
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rows")
            fut = self._pool.submit(self.table_of, key, *args)
            self._pending[key] = fut

        def done(_f, key=key):
            with self._lock:
                self._pending.pop(key, None)

        fut.add_done_callback(done)

    def rows_for(self, key: Any) -> RowTable | None:
        """The rows of a row key as columns (None when it is not readable)."""
        with self._lock:
            fut = self._pending.get(key) if isinstance(key, str) else None
        if fut is not None:
            try:
                return fut.result(timeout=60)
            except Exception:  # noqa: BLE001 (built again below, where errors are handled)
                pass
        old = self._old_rows(key, table=True)
        return None if old is None else old[1]

    def _old_rows(self, shown: Any, table: bool = False) -> tuple[str, Any] | None:
        """The rows the browser shows, rebuilt from its key (None when it is not readable);
        ``table``: as columns."""
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
        rows_of = self.table_of if table else self.rows_of
        return view_key, rows_of(shown, s, scores, view, models, rank_shown)

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
        sort: str | None = None,
    ) -> None:
        """Fill ``out["rows"]`` (the whole table) or ``out["rowdelta"]`` and ``out["rowkey"]``.
        ``INFINITE``: only ``out["rowkey"]`` and, given the URL's ``sort`` text, the new key's
        first block in that sort (``out["bigblock"]``: the grid then needs no fetch while it
        shows the top; without ``sort`` the rows are built in the background for the fetch)."""
        view_key = _view_key(view, rank_shown)
        key = row_key(changes_key, view_key, encode_filters(filters))
        if self.deltas == INFINITE:  # the grid fetches the rows it shows itself
            if key != shown:
                out["rowkey"] = key
                if sort is None:
                    self.prebuild(key, changes_key, scores, view, models, rank_shown)
                else:
                    table = self.table_of(key, changes_key, scores, view, models, rank_shown)
                    out["bigblock"] = self.blocks.first(key, table, sort)
            return
        if not self.deltas:  # the whole table every time (the benchmark's "before")
            out["rows"] = self.build(changes_key, scores, view, models, rank_shown)
            out["rowkey"] = key
            return
        if key == shown:
            return  # the browser's rows are these already
        new = self.rows_of(key, changes_key, scores, view, models, rank_shown)
        out["rowkey"] = key
        old = self._old_rows(shown) if self.deltas else None
        delta = None
        if old is not None and old[0] == view_key:
            delta = diff_rows(old[1], new, ids.COL_MODEL)
        if delta is not None and self.deltas == "auto":
            full_size = len(orjson.dumps(new, option=orjson.OPT_SERIALIZE_NUMPY))
            if full_size <= self.full_max_bytes or full_size < 4 * len(orjson.dumps(delta)):
                delta = None  # the whole table is small: it is drawn sooner than a merge
        if delta is None:
            out["rows"] = new
            out["rowdelta"] = no_update
        else:
            delta["t"] = time.time_ns() % 1_000_000_007  # two equal deltas are two updates
            out["rowdelta"] = delta
