"""A large table's rows as columns (rowblock.RowTable, tables.row_table): a block holds the same
rows, in the same order, as the row dicts sorted by ``rowblock.order``, and builds the dicts of
its own rows only."""

from __future__ import annotations

import pytest
from test_dashboard_bigrows import write_big_dataset

from ml_peg_like import load_dataset, score
from ml_peg_like.dashboard import ids
from ml_peg_like.dashboard.rowblock import Blocks, RowTable, order
from ml_peg_like.dashboard.tables import row_data, row_table

IRIS = "Classification/Iris"


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    cfg, raw = load_dataset(write_big_dataset(tmp_path_factory.mktemp("big"), n=150))
    return cfg, raw


@pytest.mark.parametrize("view", ["", IRIS])
@pytest.mark.parametrize("rank_shown", [False, True])
def test_a_block_of_the_table_is_the_block_of_the_sorted_rows(board, view, rank_shown):
    cfg, raw = board
    s = score(raw, cfg.apply_changes({f"{IRIS}/Accuracy": {"good": 0.97}}))
    default = score(raw, cfg).overall_scores
    models = [m for i, m in enumerate(raw.models) if i % 5] if rank_shown else None
    names = {m: f"name {len(raw.models) - i}" for i, m in enumerate(raw.models) if i % 3 == 0}
    kw = dict(default_overall=default, models=models, names=names, rank_shown=rank_shown)
    rows = row_data(s, view, **kw)
    table = row_table(s, view, **kw)
    assert isinstance(table, RowTable) and table.rows() == rows and len(table) == len(rows)
    cols = [c for c in rows[0] if not c.startswith("_")] + [ids.COL_NAME, "no such column"]
    blocks = Blocks()
    for col in cols:
        for direction in ("asc", "desc"):
            sort = [(col, direction), (ids.COL_OVERALL, "desc")]
            want = order(rows, sort)
            assert order(table, sort) == want, sort
            for start in (0, 37, len(rows) - 10):
                got = blocks.block(f"k{view}{rank_shown}", table, sort, start, start + 25)
                assert got == [rows[i] for i in want[start : start + 25]]


def test_a_block_builds_the_dicts_of_its_rows_only(board, monkeypatch):
    cfg, raw = board
    table = row_table(score(raw, cfg), IRIS)
    built = []
    row = RowTable.row
    monkeypatch.setattr(RowTable, "row", lambda self, r: built.append(r) or row(self, r))
    got = Blocks().block("k", table, [(ids.score_col(0), "desc")], 20, 30)
    assert len(got) == 10 and len(built) == 10
    assert [g[ids.COL_MODEL] for g in got] == [table.models[r] for r in built]


def test_the_kept_reason_codes_follow_the_missing_scores(board):
    """``reasoncodes.level_reasons`` keeps the levels' codes by which scores are missing: a threshold
    moved (the same cells missing) gets the codes computed afresh for it, and a state where
    another cell is missing gets its own (never the kept ones)."""
    import numpy as np

    from ml_peg_like import aggregation as agg
    from ml_peg_like.dashboard import reasoncodes

    def fresh(s):
        p = s.plan
        b = agg.reasons(s.metric_scores, p.w_metric, p.metric_starts, s.bench_scores)
        c = agg.reasons(s.bench_scores, p.w_bench, p.bench_starts, s.cat_scores, b)
        one = np.zeros(1, dtype=np.intp)
        o = agg.reasons(s.cat_scores, p.w_cat, one, s.overall_scores[:, None], c)
        return b, c, o

    cfg, raw = board
    reasoncodes._reasons_kept.clear()
    states = [
        score(raw, cfg),
        score(raw, cfg.apply_changes({f"{IRIS}/Accuracy": {"good": 0.97}})),
        score(raw, cfg.apply_changes({f"{IRIS}/Accuracy": {"weight": 0}})),
    ]
    values = raw.values.copy()
    values[3, :] = np.nan  # a model without any value: missing at every level
    states.append(score(type(raw)(**{**raw.__dict__, "values": values}), cfg))
    for s in states + states[::-1]:
        got = reasoncodes.level_reasons(s)
        for g, w in zip(got, fresh(s), strict=True):
            assert np.array_equal(g, w) and not g.flags.writeable
    assert reasoncodes.level_reasons(states[0]) is reasoncodes.level_reasons(states[1])  # kept
    assert reasoncodes.level_reasons(states[3]) is not reasoncodes.level_reasons(states[0])
    assert (reasoncodes.level_reasons(states[3])[2][3] != agg.PRESENT).all()
