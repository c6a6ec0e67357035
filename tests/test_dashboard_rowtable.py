"""The levels' reason codes kept between states (``reasoncodes.level_reasons``)."""

from __future__ import annotations

import pytest
from browser_utils import write_big_dataset

from ml_peg_like import load_dataset, score

IRIS = "Classification/Iris"


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    cfg, raw = load_dataset(write_big_dataset(tmp_path_factory.mktemp("big"), n=150))
    return cfg, raw


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
