"""The ranking rule (scoring.ranks): no rank without a score, a relative tolerance for ties,
tie groups anchored on their first member, shared ranks 1, 2, 2, 4; and its users."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from helpers_engine import raw_matrix

import ml_peg_like as mpl
from ml_peg_like.cli import main
from ml_peg_like.robustness import kendall_tau, leave_one_out
from ml_peg_like.scoring import RANK_RTOL, rank_desc, rank_text, rank_ties, scores_tie

nan = math.nan


def test_the_tolerance_is_one_in_a_billion():
    assert RANK_RTOL == 1e-9


def test_no_overall_score_means_no_rank():
    ranks, tied = rank_ties([nan, nan, nan])
    assert np.isnan(ranks).all() and not tied.any()
    ranks, tied = rank_ties([nan, 0.4, nan])
    assert ranks[1] == 1 and np.isnan(ranks[[0, 2]]).all()


def test_four_scores_that_differ_by_summation_noise_share_one_rank():
    # 0.612 + 2e-10 is the highest; the others differ from it by 1e-10..3e-10, all within
    # 1e-9 * 0.612 = 6.12e-10: one group, rank 1 for all four, each marked tied
    scores = [0.612 + 1e-10, 0.612, 0.612 - 1e-10, 0.612 + 2e-10, 0.5]
    ranks, tied = rank_ties(scores)
    assert ranks.tolist() == [1, 1, 1, 1, 5]
    assert tied.tolist() == [True, True, True, True, False]


def test_a_chain_of_small_steps_does_not_merge_past_the_first_member():
    a = 0.8
    b = a - 0.6e-9 * a  # |a - b| = 0.6e-9 a <= 1e-9 a: ties a
    c = a - 1.2e-9 * a  # ties b (0.6e-9 a apart) but not a (1.2e-9 a apart): a new group
    assert scores_tie(a, b) and scores_tie(b, c) and not scores_tie(a, c)
    ranks, tied = rank_ties([c, a, b])
    assert ranks.tolist() == [3, 1, 1]
    assert tied.tolist() == [False, True, True]


def test_zeros_tie_and_shared_ranks_skip_the_next_places():
    ranks, tied = rank_ties([0.0, 0.9, -0.0, 0.5, 0.5, 0.0])
    # 0.9 #1; the two 0.5 share #2; three zeros have three scored models above: #4 (1, 2, 2, 4)
    assert ranks.tolist() == [4, 1, 4, 2, 2, 4]
    assert tied.tolist() == [True, False, True, True, True, True]


def test_rank_desc_ranks_every_row_of_a_matrix():
    r = rank_desc([[0.1, 0.2], [nan, 0.3]])
    assert r[0].tolist() == [2, 1] and np.isnan(r[1, 0]) and r[1, 1] == 1


def test_rank_text_shows_shared_and_missing_ranks():
    assert rank_text(4, True) == "=4"
    assert rank_text(4.0, False) == "4"
    assert rank_text(nan, False) == "\u2014" and rank_text(None, False) == "\u2014"


def test_kendall_tau_leaves_unscored_models_out():
    # three scored models in the same order in both: tau 1, whatever the unscored ones would
    # add (the old rule ranked them last and counted them)
    before = rank_desc([0.9, 0.5, 0.1, nan])
    after = rank_desc([0.8, 0.4, 0.2, nan])
    assert kendall_tau(before, after) == 1.0
    # model 4 has no score before and the best after: left out, tau over the other three = 1
    after2 = rank_desc([0.8, 0.4, 0.2, 1.0])
    assert kendall_tau(before, after2) == 1.0


CFG = mpl.loads_config(
    """
missing: invalidate
categories:
  A:
    benchmarks:
      B1:
        metrics:
          m1: {good: 1, bad: 0}
  C:
    benchmarks:
      B2:
        metrics:
          m2: {good: 1, bad: 0}
"""
)


def test_scores_overall_has_an_empty_rank_and_a_tied_column():
    # p: (0.5 + 0.7) / 2 = 0.6; q: (0.7 + 0.5) / 2 = 0.6 (tied); r: m2 missing -> no score
    raw = raw_matrix(CFG, ["p", "q", "r"], [[0.5, 0.7], [0.7, 0.5], [0.9, nan]])
    ov = mpl.score(raw, CFG).overall
    assert ov.loc["p", "rank"] == 1 and ov.loc["q", "rank"] == 1
    assert ov["rank"].isna().tolist() == [False, False, True]
    assert ov["tied"].tolist() == [True, True, False]


def test_leave_one_out_counts_only_scored_models():
    # without A, r (m2 missing, invalidated in C) still has no score; p 0.7 > q 0.5 in C alone
    raw = raw_matrix(CFG, ["p", "q", "r"], [[0.5, 0.7], [0.7, 0.5], [0.9, nan]])
    loo = leave_one_out(raw, CFG).set_index("removed")
    # full: p, q tied (#1, #1); without A: p #1, q #2 -> tau-b over p, q = 0 / sqrt(0 * 1): NaN
    # (a constant ranking); the top (p = q) changed to p
    assert loo.loc["A", "new_top"] == "p"
    assert loo.loc["A", "max_rank_change"] == 1  # q: #1 -> #2; r, unranked, counts nowhere
    # without C (B2 gone): r has m1 = 0.9 and is ranked now: r #1, q 0.7 #2, p 0.5 #3;
    # p moved #1 -> #3 (2 places); r had no rank before, so its move counts nowhere
    assert loo.loc["C", "new_top"] == "r"
    assert loo.loc["C", "max_rank_change"] == 2 and loo.loc["C", "max_change_model"] == "p"


def test_cli_writes_no_rank_for_every_unscored_model(tmp_path):
    # every model misses m2 under invalidate: no overall score for anyone, so no rank at all
    (tmp_path / "config.yml").write_text(
        "missing: invalidate\ncategories:\n  A:\n    benchmarks:\n      B1:\n        metrics:\n"
        "          m1: {good: 1, bad: 0}\n          m2: {good: 1, bad: 0}\n"
    )
    (tmp_path / "raw.csv").write_text(
        "model,benchmark,metric,value\n" + "".join(f"x{i},B1,m1,0.{i}\n" for i in range(1, 4))
    )
    out = tmp_path / "out"
    assert (
        main(["score", str(tmp_path / "config.yml"), str(tmp_path / "raw.csv"), "--out", str(out)])
        == 0
    )
    text = (out / "overall_scores.csv").read_text().splitlines()
    assert text[0] == "model,score,rank,tied"
    assert text[1:] == ["x1,,,False", "x2,,,False", "x3,,,False"]
    back = pd.read_csv(out / "overall_scores.csv")
    assert back["rank"].isna().all()


def test_grid_rows_carry_no_rank_and_the_tied_flag():
    from ml_peg_like.dashboard import ids
    from ml_peg_like.dashboard.rowblock import order
    from ml_peg_like.dashboard.tables import row_table

    raw = raw_matrix(CFG, ["r", "p", "q", "s"], [[0.9, nan], [0.5, 0.7], [0.7, 0.5], [0.1, 0.1]])
    table = row_table(mpl.score(raw, CFG), "")
    rows = {r[ids.COL_MODEL]: r for r in table.rows()}
    # p and q: 0.6 each, a shared #1 ("=1"); s: 0.1, two scored models above: #3; r: no score
    assert rows["p"][ids.COL_RANK] == 1 and rows["p"][ids.ROW_TIED] is True
    assert rows["s"][ids.COL_RANK] == 3 and ids.ROW_TIED not in rows["s"]
    assert rows["r"][ids.COL_RANK] is None
    # sorted by rank: the unranked model last in both directions, ties in board order
    by_rank = [table.models[i] for i in order(table, [(ids.COL_RANK, "asc")])]
    assert by_rank == ["p", "q", "s", "r"]
    by_rank_desc = [table.models[i] for i in order(table, [(ids.COL_RANK, "desc")])]
    assert by_rank_desc == ["s", "p", "q", "r"]


def test_cli_robustness_writes_no_rank_statistics_for_an_unscored_model(tmp_path):
    (tmp_path / "config.yml").write_text(
        "missing: invalidate\ncategories:\n  A:\n    benchmarks:\n      B1:\n        metrics:\n"
        "          m1: {good: 1, bad: 0}\n  C:\n    benchmarks:\n      B2:\n        metrics:\n"
        "          m2: {good: 1, bad: 0}\n"
    )
    (tmp_path / "raw.csv").write_text(
        "model,benchmark,metric,value\np,B1,m1,0.9\np,B2,m2,0.8\nq,B1,m1,0.1\nq,B2,m2,0.2\n"
        "r,B1,m1,0.5\n"
    )
    out = tmp_path / "rob"
    args = ["robustness", str(tmp_path / "config.yml"), str(tmp_path / "raw.csv")]
    assert main([*args, "--samples", "20", "--seed", "1", "--out", str(out)]) == 0
    summary = pd.read_csv(out / "robustness_summary.csv", keep_default_na=False)
    r = summary.set_index("model").loc["r"]
    # r has no overall score (m2 missing): no rank now, no median, no quantiles, no P(rank 1)
    assert (r[["rank_now", "median_rank", "rank_5", "rank_95", "p_rank1"]] == "").all()
    # p dominates q on both metrics: first in every sample
    p = summary.set_index("model").loc["p"]
    assert p["rank_now"] == "1" and p["median_rank"] == "1" and float(p["p_rank1"]) == 1.0


def test_compare_settings_leaves_unscored_models_out_of_tau():
    from ml_peg_like.robustness import compare_settings

    # defaults: p (0.6) = q (0.6) tied #1, r no score; with C weight 0: r (A only, 0.9) #1,
    # q 0.7 #2, p 0.5 #3. tau-b over p and q only (r unranked before): p, q tied before, so
    # the pair is tied in a and ordered in b: tau-b = 0 / sqrt(0 * 1) -> NaN
    raw = raw_matrix(CFG, ["p", "q", "r"], [[0.5, 0.7], [0.7, 0.5], [0.9, nan]])
    cmp = compare_settings(raw, CFG, {"C": {"weight": 0.0}})
    assert math.isnan(cmp.kendall_tau)
    table = cmp.table.set_index("model")
    assert pd.isna(table.loc["r", "rank_a"]) and table.loc["r", "rank_b"] == 1
    assert table.loc["r", "note"] == "new"
    assert table.loc["p", "change"] == 2  # #1 -> #3 (positive: moved down)
