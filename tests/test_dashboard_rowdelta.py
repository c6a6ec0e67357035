"""Row deltas: only changed cells travel; the delta rebuilds the new rows exactly;
the row tables are diffed as columns to the same delta; scores travel as short integers."""

from __future__ import annotations

from ml_peg_like.dashboard.rowdelta import apply_delta, diff_rows, parse_row_key, row_key

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
        # 2 of 3 rows changed: whole columns are shorter than positions + values
        "c": {"rank": {"v": [2, 1, 3]}, "o": {"v": [0.6, 0.7, None]}},
        "x": {"_w": [0]},
    }
    assert apply_delta(OLD, d) == NEW


def test_few_changed_rows_send_positions_once_per_set():
    old = [{"model": str(k), "rank": k, "o": 0.1 * k} for k in range(5)]
    new = [dict(r) for r in old]
    new[1].update(rank=3, o=0.9)
    new[3].update(rank=1, o=0.2)
    new[4]["s"] = 0.5  # a field only one row has, at another position
    d = diff_rows(old, new, "model")
    assert d == {
        "n": 5,
        "c": {
            "rank": {"i": [1, 3], "v": [3, 1]},
            "o": {"i": "rank", "v": [0.9, 0.2]},  # the same rows as rank: named, not repeated
            "s": {"i": [4], "v": [0.5]},
        },
    }
    assert apply_delta(old, d) == new


def test_whole_column_skips_rows_without_the_field():
    old = [{"model": str(k)} for k in range(3)]
    new = [{"model": "0", "s": 1}, {"model": "1", "s": 2}, {"model": "2"}]
    d = diff_rows(old, new, "model")
    assert d == {"n": 3, "c": {"s": {"v": [1, 2, None], "u": [2]}}}
    assert apply_delta(old, d) == new


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


def test_auto_sends_a_small_table_whole_and_a_large_one_as_a_delta(tmp_path):
    import orjson
    from browser_utils import small_dataset

    from ml_peg_like.dashboard.cache import ScoreCache
    from ml_peg_like.dashboard.components.rowsync import RowSync
    from ml_peg_like.dashboard.state import encode_changes
    from ml_peg_like.dashboard.tables import row_data, row_table

    cfg, raw = small_dataset(tmp_path)
    cache = ScoreCache(cfg, raw)
    view, path = "Classification/Iris", "Classification/Iris/Accuracy"
    changes = {path: {"good": 0.95}}
    key = encode_changes(changes)
    _c, scores = cache.scores_for(changes, key=key)

    shown = row_key("", view, "")  # the browser shows this view's default rows

    def answer(**kw) -> dict:
        def build(_k, sc, v, m, _r, table=False):
            return (row_table if table else row_data)(sc, v, models=m)

        sync = RowSync(cache, build, **kw)
        out: dict = {}
        sync.output(out, shown, changes_key=key, scores=scores, view=view, filters={}, models=None)
        return out

    small = answer()  # 5 rows: a few hundred bytes, under FULL_TABLE_MAX_BYTES
    assert isinstance(small["rows"], list) and len(small["rows"]) == len(raw.models)
    big = answer(full_max_bytes=0)  # every table "large": a delta when it is 4x smaller
    forced = answer(deltas=True)
    assert "rows" not in forced and forced["rowdelta"]["n"] == len(raw.models)
    delta = {k: v for k, v in forced["rowdelta"].items() if k != "t"}
    whole = len(orjson.dumps(small["rows"])) < 4 * len(orjson.dumps(delta))
    if whole:  # the delta is not 4x smaller than the table: the whole table
        assert big["rows"] == small["rows"]
    else:
        assert "rows" not in big and {k: v for k, v in big["rowdelta"].items() if k != "t"} == delta
    assert answer(deltas=False)["rows"] == small["rows"]


def _resolved(delta: dict) -> dict:
    """A delta with shared positions written out and dropped positions sorted (comparable)."""
    cols = {
        f: {
            **spec,
            "i": delta["c"][spec["i"]]["i"] if isinstance(spec.get("i"), str) else spec.get("i"),
        }
        for f, spec in delta["c"].items()
    }
    return {"n": delta["n"], "c": cols, "x": {f: sorted(p) for f, p in delta.get("x", {}).items()}}


def test_columns_diff_equals_the_rows_diff(tmp_path):
    """``diff_columns`` of two ``RowTable``s is ``diff_rows`` of their dicts: the same cells,
    the same dropped fields, and it rebuilds the new rows (reasons, names, dominance marks)."""
    from browser_utils import small_dataset

    from ml_peg_like.dashboard.cache import ScoreCache
    from ml_peg_like.dashboard.rowdelta import diff_columns
    from ml_peg_like.dashboard.tables import row_table

    cfg, raw = small_dataset(tmp_path)
    cache = ScoreCache(cfg, raw)
    iris = "Classification/Iris"
    states = [
        {},
        {f"{iris}/Accuracy": {"good": 0.95}},
        {f"{iris}/Accuracy": {"bad": 0.85}},  # models fall below 'bad'
        {f"{iris}/F1": {"weight": 0.0}},  # a column's cells become excluded ('_w' changes)
        {f"{iris}/Accuracy": {"good": 0.95, "bad": 0.9}, f"{iris}/F1": {"weight": 0.0}},
    ]
    m0, m1 = raw.models[0], raw.models[1]
    doms = [None, {m0: [m1]}, {m1: [m0, m0]}, {}, None]
    names = {m0: "Zero", m1: m1}  # one display name, one equal to its key (not sent)
    n_checked = 0
    for view in ("", "Classification", iris):
        tables = [
            row_table(
                cache.scores_for(ch)[1],
                view,
                default_overall=cache.default_scores.overall_scores,
                dominated=dom,
                names=names if k % 2 else None,
            )
            for k, (ch, dom) in enumerate(zip(states, doms, strict=True))
        ]
        for a in tables:
            for b in tables:
                by_rows = diff_rows(a.rows(), b.rows(), "model")
                by_cols = diff_columns(a.columns(), b.columns(), len(b))
                assert _resolved(by_cols) == _resolved(by_rows)
                assert apply_delta(a.rows(), by_cols) == b.rows()
                n_checked += bool(by_cols["c"]) + bool(by_cols.get("x"))
    assert n_checked > 40  # most pairs differ in cells, and some drop fields


def test_scores_travel_as_scaled_integers_and_come_back_exactly():
    import random

    import orjson

    rng = random.Random(3)
    n = 400
    old = [{"model": str(k), "o": 0.5, "x": 0.5} for k in range(n)]
    new = [
        {
            "model": str(k),
            "o": None if k % 37 == 0 else round(rng.random() * rng.choice((1, 100, 1e-3)), 9),
            "x": rng.random(),  # 16-17 digits: no integer holds it exactly
        }
        for k in range(n)
    ]
    d = diff_rows(old, new, "model")
    assert d["c"]["o"]["e"] == 9 and "e" not in d["c"]["x"]
    assert d["c"]["o"]["v"][1] == round(new[1]["o"] * 10**9)  # e.g. 0.912367662 -> 912367662
    assert apply_delta(old, d) == new  # every value the same double
    plain = orjson.dumps([r["o"] for r in new])
    assert len(orjson.dumps(d["c"]["o"]["v"])) < len(plain)
    # a column of short floats stays as it is (1.0 is shorter than 1000000000)
    ones = [{"model": str(k), "o": 1.0} for k in range(n)]
    assert "e" not in diff_rows(old, ones, "model")["c"]["o"]


def test_scores_that_move_a_little_travel_as_steps_and_come_back_exactly():
    import random

    rng = random.Random(5)
    n = 300
    old = [{"model": str(k), "o": round(rng.random(), 9)} for k in range(n)]
    old[7]["o"] = None
    new = [dict(r) for r in old]
    for r in new:
        r["o"] = round((r["o"] or 0.25) + rng.uniform(-1e-3, 1e-3), 9)
    d = diff_rows(old, new, "model")
    assert d["c"]["o"]["e"] == 9 and "r" not in d["c"]["o"]  # row 7 had no number to step from
    assert apply_delta(old, d) == new
    new[7]["o"] = None  # now every new number steps from a number
    d = diff_rows(old, new, "model")
    spec = d["c"]["o"]
    assert spec["e"] == 9 and spec["r"] == 1
    k = 3
    assert spec["v"][k] == round(new[k]["o"] * 10**9) - round(old[k]["o"] * 10**9)
    assert max(abs(v) for v in spec["v"] if v is not None) <= 10**6  # 6-7 digits, not 9
    assert apply_delta(old, d) == new  # every value the same double
