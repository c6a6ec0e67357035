"""rank_change: arrows only for models ranked before and after; words otherwise."""

import math

import numpy as np
import pytest

from ml_peg_like.scoring import NEW, NO_SCORE, largest_change, rank_change

nan = math.nan


def test_ranked_in_both_get_the_rank_difference():
    # before: a 0.9 (#1), b 0.5 (#2), c 0.1 (#3); after: c 0.95 (#1), a 0.8 (#2), b 0.2 (#3)
    delta, word = rank_change([0.9, 0.5, 0.1], [0.8, 0.2, 0.95])
    assert delta.tolist() == [-1, -1, 2]
    assert word.tolist() == ["", "", ""]


def test_lost_and_gained_scores_get_words_not_numbers():
    # before: a #1, b #2, c no score (rank 3 by the engine), d no score
    # after:  a no score, b #2, c #1, d no score
    delta, word = rank_change([0.9, 0.5, nan, nan], [nan, 0.4, 0.7, nan])
    assert word.tolist() == ["no score", "", "new", "no score"]
    # b: rank 2 before (a above it), rank 2 after (c above it): 0, not an artefact of the others
    assert delta.tolist() == [0, 0, 0, 0]
    assert NEW == "new" and NO_SCORE == "no score"


def test_batched_after_one_row_per_sample():
    before = np.array([0.9, 0.5, 0.1])
    after = np.array([[0.1, 0.5, 0.9], [nan, 0.5, 0.1]])
    delta, word = rank_change(before, after)
    # row 2: a has no score; b #2 -> #1, c #3 -> #2
    assert delta.tolist() == [[-2, 0, 2], [0, 1, 1]]
    assert word.tolist() == [["", "", ""], ["no score", "", ""]]


def test_largest_change_counts_only_models_ranked_in_both():
    # d jumps from no score to #1 (would be "25" in a naive difference): not counted
    delta, word = rank_change([0.9, 0.8, 0.7, nan], [0.7, 0.8, 0.9, 1.0])
    assert word.tolist() == ["", "", "", "new"]
    # after: d 1.0 #1, c 0.9 #2, b 0.8 #3, a 0.7 #4 -> a 1-4, b 2-3, c 3-2
    assert delta.tolist() == [-3, -1, 1, 0]
    assert largest_change(delta, word) == (3, 0)
    assert largest_change(np.zeros(2, int), np.array(["new", ""], dtype=object)) == (0, -1)


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="rank_change"):
        rank_change([0.1, 0.2], [0.1, 0.2, 0.3])
