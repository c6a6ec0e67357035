"""The curve an edit patches (components/board/curve.py ``update``): after any chain of edits the figure
the browser holds (the first full figure, then each answer applied: nothing, a Patch of the
parts that changed, or a whole figure) equals the figure built from scratch for the last state,
points and hover text included; and an edit of a threshold resends far less than the figure."""

from __future__ import annotations

import pytest
from browser_utils import small_dataset
from dash import Patch, no_update
from patch_utils import apply, size

from ml_peg_like import score
from ml_peg_like.dashboard.components.board import curve
from ml_peg_like.dashboard.figures import curve_figure

IRIS_ACC = "Classification/Iris/Accuracy"
TL = "Classification/Wine/Accuracy"  # traffic light: a step curve


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return small_dataset(tmp_path_factory.mktemp("small"))


EDITS = [  # (path, field, value): cumulative changes of the state the curve shows
    (IRIS_ACC, "good", 0.95),  # the line, the points' y, a threshold's line and label
    (IRIS_ACC, "bad", 0.3),
    ("Classification/Iris/F1", "weight", 0.0),  # another metric: this curve does not change
    (IRIS_ACC, "bad", 0.7),
    (IRIS_ACC, "good", 5.0),  # far right: the axis widens, points may be pinned
    (IRIS_ACC, "good", 1.0),
]


@pytest.mark.parametrize("digits", [3, 2])  # 2: the hover text carries the scores (no patch of y)
def test_a_patched_curve_equals_the_figure_built_from_scratch(data, digits):
    cfg, raw = data
    changes: dict = {}
    held = curve_figure(score(raw, cfg), IRIS_ACC, digits=digits)
    sig = curve.signature(held)
    kinds = []
    for path, field, value in EDITS:
        changes.setdefault(path, {})[field] = value
        fresh = curve_figure(score(raw, cfg.apply_changes(changes)), IRIS_ACC, digits=digits)
        answer, new_sig = curve.update(fresh, sig)
        held = apply(held, answer)
        assert held == fresh  # every point, its hover text, the line, the marks
        if answer is not no_update:
            assert new_sig == curve.signature(fresh)
            sig = new_sig
        kinds.append("none" if answer is no_update else type(answer).__name__)
        if isinstance(answer, Patch):
            assert size(answer) < size(fresh) / 2
    assert kinds[2] == "none"  # an edit of another metric sends no curve at all
    if digits >= 3:
        assert kinds.count("Patch") >= 3
    else:  # the scores are in the hover text: each change of them sends the whole figure
        assert "Patch" not in kinds


def test_the_hover_takes_the_score_from_y_and_a_threshold_edit_patches_only_what_moved(data):
    cfg, raw = data
    before = curve_figure(score(raw, cfg), IRIS_ACC)
    after = curve_figure(score(raw, cfg.apply_changes({IRIS_ACC: {"good": 0.95}})), IRIS_ACC)
    pts = after["data"][-1]
    assert pts["hovertemplate"] == "%{text}<br>score %{y:.3r}<extra></extra>"
    assert pts["text"] == before["data"][-1]["text"]  # the hover text holds no score
    answer, _sig = curve.update(after, curve.signature(before))
    ops = {tuple(op["location"]) for op in answer.to_plotly_json()["operations"]}
    # good moved: the line, the points' y, good's dashed line and its label
    assert ("data", 1, "y") in ops and ("data", 0, "x") in ops
    assert ("layout", "shapes", 1) in ops and ("layout", "annotations", 1) in ops
    assert ("layout", "shapes", 0) not in ops  # bad's line did not move
    assert not any(op[:2] == ("layout", "title") for op in ops)


def test_a_forged_or_foreign_signature_gets_the_whole_figure(data):
    cfg, raw = data
    fig = curve_figure(score(raw, cfg), IRIS_ACC)
    other = curve_figure(score(raw, cfg), TL)
    for held in (None, 7, "", "x:y", curve.signature(other), curve.signature(fig) + ",zz"):
        answer, sig = curve.update(fig, held)
        assert answer is fig and sig == curve.signature(fig)


def test_the_line_keeps_only_its_corners_where_it_is_straight(data):
    cfg, raw = data
    s = score(raw, cfg.apply_changes({IRIS_ACC: {"good": 0.9, "bad": 0.6}}))
    line = curve_figure(s, IRIS_ACC)["data"][0]
    # linear normaliser: flat at 0 up to bad, a ramp to good, flat at 1 (axis ends included)
    xs, ys = line["x"], line["y"]
    assert len(xs) == 4 and ys == [0.0, 0.0, 1.0, 1.0]
    assert xs[1:3] == [0.6, 0.9]
    # a traffic light's steps stay steps: both sides of each threshold are kept
    tl = curve_figure(score(raw, cfg), TL)["data"][0]
    assert sorted(set(tl["y"])) == [0.0, 0.5, 1.0] and len(tl["x"]) <= 10
