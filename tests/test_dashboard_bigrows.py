"""Large tables (components/bigrows.py, dashboard/rowblock.py): the server's blocks of rows,
sorted and filtered, against a pandas sort of the engine's own frames; the model filter's
search. A lowered ``large_rows`` makes a 120-model board "large"."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser_utils import COLUMNS, SMALL_CONFIG

from ml_peg_like import load_dataset, score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.components import bigrows
from ml_peg_like.dashboard.rowblock import MAX_BLOCK, clean_sort, order, sort_key
from ml_peg_like.dashboard.rowdelta import row_key
from ml_peg_like.dashboard.state import encode_changes, encode_filters

N_MODELS = 120
IRIS = "Classification/Iris"


def write_big_dataset(directory: Path, n: int = N_MODELS, seed: int = 3) -> Path:
    """The small test board with ``n`` seeded models: values near the thresholds, 10 % missing,
    every 7th model a copy of the one before (ties), display names for every 3rd model (some
    sorting before their keys), a ``family`` attribute."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.yml").write_text(SMALL_CONFIG, encoding="utf-8")
    lo = np.array([0.5, 0.5, 0.8, 70, 0.0, 0.001, 1.0])
    hi = np.array([1.0, 1.0, 0.95, 40, 0.6, 1.0, 100.0])
    values = lo + (hi - lo) * rng.uniform(-0.1, 1.1, size=(n, len(COLUMNS)))
    values[rng.random(values.shape) < 0.1] = np.nan
    for i in range(7, n, 7):
        values[i] = values[i - 1]
    models = [f"m{i:03d}" for i in range(n)]
    with open(directory / "raw_metrics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "benchmark", "metric", "value"])
        for m, row in zip(models, values, strict=True):
            for (b, k), v in zip(COLUMNS, row, strict=True):
                w.writerow([m, b, k, "" if np.isnan(v) else f"{v:.6g}"])
    with open(directory / "models.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "display_name", "family"])
        for i, m in enumerate(models):
            w.writerow([m, f"{'Az'[i % 2]}-model {n - i}" if i % 3 == 0 else "", "ab"[i % 2]])
    return directory


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    cfg, raw = load_dataset(write_big_dataset(tmp_path_factory.mktemp("big")))
    app = create_app(cfg, raw, robustness=False, large_rows=50)
    return cfg, raw, app, app.server.test_client()


def fetch(client, key: str, start: int, end: int, sort) -> dict:
    r = client.post(
        "/" + ids.ROWS_ROUTE, json={"key": key, "start": start, "end": end, "sort": sort}
    )
    assert r.status_code == 200, r.data
    return r.get_json()


def all_rows(client, key: str, sort) -> tuple[list[dict], int]:
    """Every row of a state in blocks of 50, as the grid asks for them."""
    rows, n = [], None
    start = 0
    while n is None or start < n:
        got = fetch(client, key, start, start + 50, sort)
        n = got["n"]
        rows += got["rows"]
        start += 50
    return rows, n


def pandas_order(frame: pd.DataFrame, col: str, direction: str) -> list[str]:
    """The models of ``frame`` (index: model) sorted by ``col`` as AG Grid's client-side model
    sorts a small table: missing first ascending (last descending), ties in board order; the
    rank column (its comparator): no rank last in both directions."""
    asc = direction == "asc"
    na = "first" if asc and col != "rank" else "last"
    s = frame.sort_values(col, ascending=asc, kind="stable", na_position=na)
    return list(s.index)


@pytest.mark.parametrize(
    "changes,filters",
    [
        ({}, {}),
        ({f"{IRIS}/Accuracy": {"good": 0.8}}, {}),
        ({f"{IRIS}/Accuracy": {"good": 0.8}}, {"a": {"family": ["b"]}}),
    ],
)
def test_blocks_are_the_engine_frame_sorted_by_pandas(board, changes, filters):
    cfg, raw, app, client = board
    cache = app.score_cache
    scores = score(raw, cfg.apply_changes(changes))
    frame = pd.DataFrame(
        {
            "o": scores.overall["score"].round(9),
            "rank": scores.overall["rank"],
            "c0": scores.categories.iloc[:, 0].round(9),
            "model": [cache.display.get(m, m) for m in scores.overall.index],
        }
    )
    frame.index.name = None
    if filters:
        keep = [m for m in frame.index if cache.attr_values["family"][m] == "b"]
        frame = frame.loc[keep]
    key = row_key(encode_changes(changes), "", encode_filters(filters))
    for col in ("o", "rank", "c0", "model"):
        for direction in ("asc", "desc"):
            rows, n = all_rows(client, key, [{"colId": col, "sort": direction}])
            assert n == len(frame)
            want_order = pandas_order(frame, col, direction)
            assert [r["model"] for r in rows] == want_order, (col, direction)
            # the cells are the engine's
            got = {r["model"]: r["o"] for r in rows}
            want = frame["o"].to_dict()
            assert all((got[m] is None and np.isnan(v)) or got[m] == v for m, v in want.items())
    # no sort: the board's order
    rows, _n = all_rows(client, key, [])
    assert [r["model"] for r in rows] == list(frame.index)
    # the missing overall scores (10 % of the values are missing) come first ascending
    assert frame["o"].isna().any()


def test_ties_keep_the_board_order_and_a_second_sort_breaks_them(board):
    _cfg, _raw, _app, client = board
    key = row_key("", IRIS, "")
    rows, _n = all_rows(
        client, key, [{"colId": "o", "sort": "desc"}, {"colId": "model", "sort": "asc"}]
    )
    pairs = [(r["o"], r.get(ids.COL_NAME) or r["model"]) for r in rows]
    scored = [p for p in pairs if p[0] is not None]
    # every 7th model copies the one before: ties on "o", ordered by name among them
    assert len({p[0] for p in scored}) < len(scored)
    assert scored == sorted(scored, key=lambda p: (-p[0], p[1]))
    assert all(p[0] is None for p in pairs[len(scored) :])


@pytest.mark.parametrize(
    "qs,sort",
    [
        ("", [{"colId": "rank", "sort": "asc"}]),
        ("?sort=o.desc", [{"colId": "o", "sort": "desc"}]),
        ("?sort=zz9.asc", [{"colId": "rank", "sort": "asc"}]),  # not a column: the rank
    ],
)
def test_an_edit_answers_with_the_first_block_the_grid_would_fetch(board, qs, sort):
    """The edit's response carries its new key's first block in the URL's sort (the grid
    takes it instead of fetching it): the very rows and count the block route gives."""
    from test_dashboard_server import _set, edit_payload, post

    cfg, _raw, _app, client = board
    payload = edit_payload(client, cfg, weights={"Regression": "2"})
    _set(payload, "qs.data", qs, where="state")
    got = post(client, payload).get_json()["response"]
    key = got[ids.ROWKEY]["data"]
    first = got[ids.BIG_BLOCK]["data"]
    assert key == row_key(encode_changes({"Regression": {"weight": 2.0}}), "", "")
    assert (first["key"], first["start"], first["end"], first["sort"]) == (key, 0, 100, sort)
    fetched = fetch(client, key, 0, 100, sort)
    assert first["n"] == fetched["n"] == N_MODELS
    assert first["rows"] == fetched["rows"] and len(first["rows"]) == 100
    # the same state again: the grid holds its rows, nothing is sent
    _set(payload, "rowkey.data", key, where="state")
    again = post(client, payload)
    assert again.status_code == 204 or ids.BIG_BLOCK not in again.get_json()["response"]


def test_sort_key_and_clean_sort():
    assert sorted([3, None, "new", 1.5, "no score", -2], key=sort_key) == [
        None,
        -2,
        1.5,
        3,
        "new",
        "no score",
    ]
    assert order([{"o": 2}, {"o": None}, {"o": 2}, {"o": 5}], [("o", "desc")]) == [3, 0, 2, 1]
    assert clean_sort([{"colId": "o", "sort": "desc"}, {"colId": 5}, "x", {"colId": "r"}]) == [
        ("o", "desc")
    ]
    assert clean_sort("rank") == []


def test_numeric_columns_sort_like_the_sort_key():
    """order() sorts numbers with numpy (rowblock._numbers): the order of sort_key's stable
    sorts, missing first ascending / last descending, ties kept, on columns of numbers,
    missing values (None, NaN), signed zeros and mixed text (then sort_key itself)."""
    rng = np.random.default_rng(11)
    pool = [None, float("nan"), 0.0, -0.0, 1, 2, 2.5, 3.0, -1e9, 1e300]

    def reference(rows, sort):
        idx = list(range(len(rows)))
        for col, direction in reversed(sort):
            keys = [sort_key(r[col]) for r in rows]
            idx.sort(key=keys.__getitem__, reverse=direction == "desc")
        return idx

    for trial in range(300):
        words = ["new", "no score"] if trial % 3 == 0 else []
        rows = [
            {
                "a": pool[rng.integers(len(pool))],
                "b": (pool + words)[rng.integers(len(pool) + len(words))],
                "c": int(rng.integers(1, 4)),
            }
            for _ in range(int(rng.integers(0, 60)))
        ]
        sort = [
            (str(rng.choice(["a", "b", "c"])), str(rng.choice(["asc", "desc"])))
            for _ in range(int(rng.integers(1, 4)))
        ]
        assert order(rows, sort) == reference(rows, sort), (sort, rows)
    # by hand: missing first ascending, last descending, the tie (2, rows 1 and 3) kept
    rows = [{"o": 5}, {"o": 2}, {"o": None}, {"o": 2.0}, {"o": float("nan")}]
    assert order(rows, [("o", "asc")]) == [2, 4, 1, 3, 0]
    assert order(rows, [("o", "desc")]) == [0, 1, 3, 2, 4]


def test_bad_block_requests_are_refused(board):
    _cfg, _raw, _app, client = board
    url = "/" + ids.ROWS_ROUTE
    key = row_key("", "", "")
    for body in (
        {"key": key, "start": -1, "end": 5},
        {"key": key, "start": 0, "end": MAX_BLOCK + 1},
        {"key": 5, "start": 0, "end": 5},
        {"key": "not a key", "start": 0, "end": 5},
        {"key": row_key("zz~~", "", ""), "start": 0, "end": 5},
        "rows",
    ):
        assert client.post(url, json=body).status_code == 400
    got = fetch(client, key, 110, 200, [])
    assert got["n"] == N_MODELS and len(got["rows"]) == N_MODELS - 110


def test_large_layout_has_no_rows_and_few_model_options(board):
    _cfg, _raw, app, client = board
    layout = client.get("/_dash-layout").get_data(as_text=True)
    assert '"rowModelType":"infinite"' in layout.replace(" ", "")
    assert '"rowData"' not in layout
    assert layout.count('"value":"m1') <= bigrows.SEARCH_LIMIT
    # every model picker of the page offers the models of an empty search, and searches
    pickers = {ids.MODEL_FILTER, *bigrows.SEARCHED}
    found = {}
    for comp in app.layout._traverse():
        if isinstance(getattr(comp, "id", None), str) and comp.id in pickers:
            found[comp.id] = comp.options
    assert set(found) == pickers
    for options in found.values():
        assert 0 < len(options) <= bigrows.SEARCH_LIMIT
    for picker in pickers:
        assert f"{picker}.options" in app.callback_map
    # a small board keeps every row and option in the page
    cfg, raw = _cfg, _raw
    small = create_app(cfg, raw, robustness=False, large_rows=N_MODELS)
    text = small.server.test_client().get("/_dash-layout").get_data(as_text=True)
    assert '"rowData"' in text and "infinite" not in text


def test_model_options_search():
    models = ("m1", "m2", "alpha", "m10")
    names = {"m1": "Zeta one", "m2": "m2", "alpha": "Alpha", "m10": "m10"}
    opt = bigrows.model_options
    assert [o["value"] for o in opt(models, names, "", [], limit=2)] == ["m1", "m2"]
    assert [o["value"] for o in opt(models, names, "ZETA", [])] == ["m1"]
    assert [o["value"] for o in opt(models, names, "m1", ["alpha"])] == ["alpha", "m1", "m10"]
    assert [o["label"] for o in opt(models, names, "al", ["gone", "m2"])] == ["m2", "Alpha"]
    assert opt(models, names, None, None, limit=0) == []
