"""The pinned baseline without a browser: the score change rule, reading ``b=``, the actions
that pin and unpin, the tau line and the exports compared with a pinned view.

The board (worked by hand): one category C, benchmarks B1 (metric M1) and B2 (metric M2),
both linear with good 1, bad 0, so a metric's score is its raw value.

    model   M1    M2
    a       0.9   0.2
    b       0.2   0.6
    c       0.5   0.45

- baseline ``C/B2`` weight 3: overall = (M1 + 3 M2) / 4 -> a 0.375, b 0.5, c 0.4625
  (ranks b 1, c 2, a 3);
- now ``C/B1`` weight 3: overall = (3 M1 + M2) / 4 -> a 0.725, b 0.3, c 0.4875
  (ranks a 1, c 2, b 3).

Against the baseline: rank change a +2, b -2, c 0; score change a +0.35, b -0.2, c +0.025;
every pair of models swaps order, so Kendall tau = -1 and Spearman rho = -1.
"""

from __future__ import annotations

import io
import json
import math
import zipfile

import numpy as np
import pandas as pd
import pytest
from dash import no_update

from ml_peg_like import load_dataset
from ml_peg_like.dashboard.cache import ScoreCache
from ml_peg_like.dashboard.components.controls.toolbar import ExportRequest
from ml_peg_like.dashboard.components.editing import actions
from ml_peg_like.dashboard.components.robustness import callbacks as rcb
from ml_peg_like.dashboard.state import (
    Q_BASE,
    encode_changes,
    make_query,
    read_baseline,
)
from ml_peg_like.io.export import tables_csv_zip
from ml_peg_like.scoring import score_change

CONFIG = """\
title: Hand board
missing: invalidate
scale: 1
categories:
  C:
    benchmarks:
      B1:
        metrics:
          M1: {good: 1.0, bad: 0.0}
      B2:
        metrics:
          M2: {good: 1.0, bad: 0.0}
"""
VALUES = {"a": (0.9, 0.2), "b": (0.2, 0.6), "c": (0.5, 0.45)}
BASE = {"C/B2": {"weight": 3.0}}
NOW = {"C/B1": {"weight": 3.0}}


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    d = tmp_path_factory.mktemp("hand")
    (d / "config.yml").write_text(CONFIG, encoding="utf-8")
    lines = ["model,benchmark,metric,value"]
    for m, (v1, v2) in VALUES.items():
        lines += [f"{m},B1,M1,{v1}", f"{m},B2,M2,{v2}"]
    (d / "raw_metrics.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    cfg, raw = load_dataset(d)
    return ScoreCache(cfg, raw)


# ------------------------------------------------------------------------------------------------
# the score change rule
# ------------------------------------------------------------------------------------------------


def test_score_change_is_after_minus_before_and_nan_without_a_score():
    nan = math.nan
    got = score_change([0.5, 0.4, nan, 0.3, 0.7], [0.75, 0.1, 0.2, nan, 0.7])
    assert got[0] == pytest.approx(0.25) and got[1] == pytest.approx(-0.3)
    assert np.isnan(got[2]) and np.isnan(got[3])  # no score before, or none now
    assert got[4] == 0.0


def test_score_change_of_scores_that_tie_is_exactly_zero():
    # 0.1 + 0.2 != 0.3 in floats (5.6e-17 apart): a tie by the ranking rule, so no change
    got = score_change([0.1 + 0.2], [0.3])
    assert got[0] == 0.0 and not np.signbit(got[0])
    with pytest.raises(ValueError, match="score_change"):
        score_change([0.1, 0.2], [0.1])


# ------------------------------------------------------------------------------------------------
# reading b=
# ------------------------------------------------------------------------------------------------


def test_read_baseline_reads_what_the_link_holds(board):
    defaults = board.defaults
    assert read_baseline(defaults, None) is None and read_baseline(defaults, "") is None
    assert read_baseline(defaults, encode_changes(BASE)) == BASE
    # equal to the defaults: the published settings, no baseline
    assert read_baseline(defaults, encode_changes({"C/B2": {"weight": 1.0}})) is None
    policy = {"": {"missing": "skip"}}
    assert read_baseline(defaults, encode_changes(policy)) == policy


@pytest.mark.parametrize(
    "text, words",
    [
        ("jbm90LWpzb24", "not readable"),
        (encode_changes({"Nope": {"weight": 1}}), "unknown key path"),
        (encode_changes({"C/B1/M1": {"unit": "s"}}), "has no box"),
        (encode_changes({"C/B1/M1": {"good": 0.0}}), "not a valid setting"),  # good == bad
        (encode_changes({"C/B1": {"weight": -1}}), "not a valid setting"),
    ],
)
def test_a_bad_baseline_is_named(board, text, words):
    with pytest.raises(ValueError, match=words):
        read_baseline(board.defaults, text)


# ------------------------------------------------------------------------------------------------
# the actions
# ------------------------------------------------------------------------------------------------


def _step(changes, baseline=None):
    return actions.Step(
        changes=changes,
        view="",
        metric="",
        page="",
        sel={},
        filters={},
        show="raw",
        sort="",
        digits=3,
        baseline=baseline,
    )


def test_pin_takes_the_changes_shown_and_unpin_drops_them(board):
    env = actions.Env(board)
    click = actions.Action(trig="baseline-pin", clicked=True)
    step = actions.pin(env, _step(BASE), click)
    assert step.baseline == BASE and step.pinned
    assert "1 change" in str(step.status.children)
    # drawn but not clicked: nothing to answer
    assert actions.pin(env, _step(BASE), actions.Action(trig="baseline-pin")) is None
    # pinning the published settings is no baseline
    assert actions.pin(env, _step({}, baseline=BASE), click).baseline is None
    out = actions.unpin(env, _step(NOW, baseline=BASE), click)
    assert out.baseline is None and out.changes == NOW
    assert actions.unpin(env, _step(NOW), click) is None  # nothing pinned


def test_a_link_brings_its_baseline_or_says_why_not(board):
    env = actions.Env(board)

    def follow(query):
        act = actions.Action(trig="url", kw={"search": query, "qs": ""})
        return actions.link(env, _step({}), act)

    step = follow(make_query(NOW) + f"&{Q_BASE}={encode_changes(BASE)}")
    assert step.changes == NOW and step.baseline == BASE and step.status is no_update
    step = follow(f"?{Q_BASE}=jbm90LWpzb24")
    assert step.baseline is None
    text = str(step.status.children)
    assert "The baseline in the link (b=) was ignored" in text and "published settings" in text
    # the page's own query: read quietly
    assert actions.page_baseline(board.defaults, f"?{Q_BASE}={encode_changes(BASE)}") == BASE
    assert actions.page_baseline(board.defaults, f"?{Q_BASE}=garbage") is None


# ------------------------------------------------------------------------------------------------
# tau against the baseline
# ------------------------------------------------------------------------------------------------


def test_tau_against_the_pinned_view_is_minus_one_by_hand(board):
    tau, rho = rcb.tau_for(board, NOW, BASE)
    assert tau == pytest.approx(-1.0) and rho == pytest.approx(-1.0)
    assert rcb.tau_for(board, BASE, BASE) == (1.0, 1.0)
    text = rcb.tau_line_text(board, NOW, BASE)
    assert text == "Kendall τ vs pinned view: -1.000 · Spearman ρ -1.000"
    assert rcb.tau_line_text(board, NOW).startswith("Kendall τ vs defaults: ")
    assert rcb.tau_line_text(board, NOW, {"Nope": {"weight": 1}}) is None


# ------------------------------------------------------------------------------------------------
# exports
# ------------------------------------------------------------------------------------------------


def test_the_report_compares_with_the_pinned_view(board):
    req = ExportRequest(board, NOW, None, "", 3, baseline=BASE)
    rep = req.report()
    ov = rep.sheets["Overall"].set_index("Key")
    assert ov["Rank change vs baseline"].to_dict() == {"a": 2, "b": -2, "c": 0}
    got = ov["Score change vs baseline"].astype(float)
    assert got["a"] == pytest.approx(0.35) and got["b"] == pytest.approx(-0.2)
    assert got["c"] == pytest.approx(0.025)
    assert "Rank change vs defaults" not in ov.columns
    settings = dict(rep.settings)
    assert settings["Baseline"] == "a pinned view: 1 change from the defaults"
    assert settings["Baseline: C/B2"] == "weight = 3"  # as the "Changed:" rows say it
    assert rep.provenance["baseline"]["changes_from_defaults"] == {"C/B2": {"weight": 3.0}}
    # without a pin: the defaults, as before
    plain = ExportRequest(board, NOW, None, "", 3).report()
    assert "baseline" not in plain.provenance
    assert "Rank change vs defaults" in plain.sheets["Overall"].columns


def test_the_csv_zip_carries_the_changes_against_the_baseline(board):
    req = ExportRequest(board, NOW, None, "", 3, baseline=BASE)
    data = tables_csv_zip(req.scores, provenance=req.provenance(), baseline_scores=req.base_scores)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        ov = pd.read_csv(zf.open("overall_scores.csv")).set_index("model")
        prov = json.loads(zf.read("provenance.json"))
    assert ov["rank_change_vs_baseline"].astype(int).to_dict() == {"a": 2, "b": -2, "c": 0}
    assert ov.loc["a", "score_change_vs_baseline"] == pytest.approx(0.35)
    assert ov.loc["b", "score_change_vs_baseline"] == pytest.approx(-0.2)
    assert prov["baseline"]["settings"] == "1 changed from defaults"
