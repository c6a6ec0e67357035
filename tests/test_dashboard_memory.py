"""Bounded memory over many edits: 1,000 threshold edits, each a state never seen
before, go through the two per-edit caches of the edit callback (the scores memo and the rows
of the last states for the row deltas). Python's heap after the first 200 edits and after all
1,000 is the same up to a small slack, and each cache stays within its stated bound."""

from __future__ import annotations

import gc
import tracemalloc

from browser_utils import small_dataset

from ml_peg_like.dashboard.cache import ScoreCache
from ml_peg_like.dashboard.components.rowsync import TABLES, RowSync, default_key
from ml_peg_like.dashboard.state import encode_changes
from ml_peg_like.dashboard.tables import row_data, row_table

VIEW = "Classification/Iris"
PATH = f"{VIEW}/Accuracy"


def test_a_thousand_edits_do_not_grow_the_heap(tmp_path):
    cfg, raw = small_dataset(tmp_path)
    cache = ScoreCache(cfg, raw, cache_size=16)
    sync = RowSync(
        cache,
        lambda _key, sc, view, models, _rank_shown, table=False: (row_table if table else row_data)(
            sc, view, default_overall=cache.default_scores.overall_scores, models=models
        ),
        deltas=True,  # deltas even for 5 rows: the row tables' cache is exercised
    )
    shown = default_key()
    deltas = 0

    def edit(k: int) -> None:
        nonlocal shown, deltas
        changes = {PATH: {"good": 0.9 + k * 1e-5}}  # a new state every time
        key = encode_changes(changes)
        _cfg, scores = cache.scores_for(changes, key=key)
        out: dict = {}
        sync.output(out, shown, changes_key=key, scores=scores, view=VIEW, filters={}, models=None)
        shown = out["rowkey"]
        deltas += "rowdelta" in out and isinstance(out["rowdelta"], dict)

    tracemalloc.start()
    try:
        for k in range(200):
            edit(k)
        # a full collection empties CPython's free lists first: a freed tuple parked there
        # still counts as allocated for tracemalloc (bounded, not held by the app); how fast
        # they fill depends on how many small objects an edit makes (re-scored edits make fewer)
        gc.collect()
        warm, _ = tracemalloc.get_traced_memory()
        for k in range(200, 1000):
            edit(k)
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert deltas >= 999  # every edit after the first page's rows was answered by a delta
    assert len(cache._memo) <= 16
    assert len(sync._tables) <= TABLES
    assert after - warm < 256 * 1024, f"heap grew {(after - warm) / 1024:.0f} KiB over 800 edits"
