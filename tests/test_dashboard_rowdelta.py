"""Row deltas (issue 15): only changed cells travel; the delta rebuilds the new rows exactly;
the row cache is bounded in entries and cells."""

from __future__ import annotations

from ml_peg_like.dashboard.rowdelta import RowCache, apply_delta, diff_rows, parse_row_key, row_key

OLD = [
    {"model": "A", "rank": 1, "o": 0.9, "_w": {"c1": "n"}},
    {"model": "B", "rank": 2, "o": 0.5},
    {"model": "C", "rank": 3, "o": None},
]
NEW = [
    {"model": "A", "rank": 2, "o": 0.6},  # rank and score changed, reason gone
    {"model": "B", "rank": 1, "o": 0.7},
    {"model": "C", "rank": 3, "o": None},  # unchanged
]


def test_delta_holds_only_the_changed_cells():
    d = diff_rows(OLD, NEW, "model")
    assert d == {
        "n": 3,
        "c": {"rank": {"i": [0, 1], "v": [2, 1]}, "o": {"i": [0, 1], "v": [0.6, 0.7]}},
        "x": {"_w": [0]},
    }
    assert apply_delta(OLD, d) == NEW


def test_a_column_changed_in_every_row_omits_positions():
    old = [{"model": "A", "d": 0, "o": 1.0}, {"model": "B", "d": 1, "o": 0.5}]
    new = [{"model": "A", "d": 3, "o": 1}, {"model": "B", "d": 2, "o": 0.5}]  # 1.0 == 1 in JS
    assert diff_rows(old, new, "model") == {"n": 2, "c": {"d": {"v": [3, 2]}}}


def test_other_rows_or_order_need_the_whole_table():
    assert diff_rows(OLD, NEW[:2], "model") is None
    assert diff_rows(OLD, [NEW[1], NEW[0], NEW[2]], "model") is None


def test_row_key_round_trip_and_refusal():
    assert parse_row_key(row_key("jabc", "Cat/B", "")) == ("jabc", "Cat/B", "")
    for bad in (None, 3, "not json", '["a", "b"]', "[1, 2, 3]", "x" * 600_000):
        assert parse_row_key(bad) is None


def test_row_cache_is_bounded_in_entries_and_cells():
    c = RowCache(entries=2, cells=10)
    rows3 = [{"a": 1, "b": 2}] * 3  # 6 cells
    c.put("k1", rows3)
    c.put("k2", [{"a": 1}] * 4)  # 4 cells: 10 in all
    assert len(c) == 2 and c.n_cells == 10
    c.put("k3", [{"a": 1}])  # over both bounds: the oldest goes
    assert len(c) == 2 and c.n_cells == 5
    c.put("big", [{"a": 1}] * 11)  # larger than the whole cache: not kept
    assert len(c) == 2
    built = []
    assert c.get("k3", lambda: built.append(1) or []) == [{"a": 1}] and not built
