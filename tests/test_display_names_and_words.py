"""Models by their display names in the robustness texts and the command line's messages, the
Dirichlet concentration in words (its numbers checked against the Dirichlet's variance and the
project's sampler), and ``sensitivity --model`` when no single change puts the model first.

The board is the worked example of docs/SENSITIVITY.md: one category, benchmarks B1 and B2
(one linear metric each, good 1, bad 0), overall = the mean of the two raw values:
A (1, 0) = 0.5, B (0.4, 0.8) = 0.6, D (0.3, 0.3) = 0.3. B leads, A second, D third; B is at
least D's value on both metrics, so under any single change of a weight or threshold D stays
behind B (it never ranks first).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dash import html

from ml_peg_like import load_dataset
from ml_peg_like.cli import main
from ml_peg_like.dashboard.components.robustness import layout as robustness_layout
from ml_peg_like.dashboard.components.robustness import tables as rtab
from ml_peg_like.models import display_name_map, shown_names
from ml_peg_like.robustness import concentration_help, rank_robustness, weight_spread
from ml_peg_like.robustness.sampling import DirichletLevel

CONFIG = """
categories:
  C:
    benchmarks:
      B1: {metrics: {m: {good: 1, bad: 0}}}
      B2: {metrics: {m: {good: 1, bad: 0}}}
"""
RAW = "model,benchmark,metric,value\nA,B1,m,1\nA,B2,m,0\nB,B1,m,0.4\nB,B2,m,0.8\nD,B1,m,0.3\nD,B2,m,0.3\n"
MODELS = "model,display_name\nA,Ay\nB,Bee large\nD,Dee (distilled)\n"
NAMES = {"A": "Ay", "B": "Bee large", "D": "Dee (distilled)"}


@pytest.fixture
def dataset(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "config.yml").write_text(CONFIG)
    (d / "raw_metrics.csv").write_text(RAW)
    (d / "models.csv").write_text(MODELS)
    return d


@pytest.fixture
def result(dataset):
    cfg, raw = load_dataset(dataset)
    assert display_name_map(raw.attributes, raw.models) == NAMES
    return rank_robustness(raw, cfg, samples=50, seed=0)


# ------------------------------------------------------------------------------------------------
# display names
# ------------------------------------------------------------------------------------------------


def test_shown_names_maps_each_tied_key_and_keeps_unknown_keys():
    assert shown_names("B", NAMES) == "Bee large"
    assert shown_names("A = B", NAMES) == "Ay = Bee large"
    assert shown_names("A = X", NAMES) == "Ay = X"  # no display name: the key itself
    assert shown_names("K = 1", {"K = 1": "Kay"}) == "Kay"  # a key holding " = " is one key
    assert shown_names("B", None) == "B" and shown_names("", NAMES) == ""


def test_the_robustness_tables_name_models_by_their_display_names(result):
    rows = rtab.summary_rows(result.summary, NAMES)
    assert [r[:2] for r in rows] == [["1", "Bee large"], ["2", "Ay"], ["3", "Dee (distilled)"]]
    loo = {r[0]: r for r in rtab.loo_rows(result.leave_one_out, NAMES)}
    # without B1: B 0.8, D 0.3, A 0 (B stays first; A and D move one place)
    assert loo["C/B1"][2] == "Bee large"
    assert loo["C/B1"][5] in ("1 (Ay)", "1 (Dee (distilled))")
    # without B2: A 1, B 0.4, D 0.3 (A first; A and B swap)
    assert loo["C/B2"][2] == "Ay"
    assert loo["C/B2"][5] in ("1 (Ay)", "1 (Bee large)")


def test_the_robustness_headline_names_the_top_model_by_its_display_name(result):
    view = rtab.results_view(result, NAMES)
    strong = _find(
        view, lambda c: isinstance(c, html.Strong) and getattr(c, "className", None) == "rob-top"
    )
    assert [s.children for s in strong] == ["Bee large"]


def test_robustness_cli_prints_the_top_models_display_name(dataset, tmp_path, capsys):
    argv = ["robustness", str(dataset), "--samples", "20", "--no-leave-one-out"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "top model Bee large;" in out
    assert "top model B;" not in out


# ------------------------------------------------------------------------------------------------
# sensitivity --model when no single change puts the model first
# ------------------------------------------------------------------------------------------------


def test_sensitivity_says_when_no_single_change_puts_the_model_first(dataset, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["sensitivity", str(dataset), "--model", "D", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "sensitivity: no single change of a weight, threshold or parameter puts "
        "Dee (distilled) first; whatif.csv holds its header only"
    )
    assert (out / "whatif.csv").read_text().splitlines() == ["path,field,current,value"]


def test_sensitivity_writes_the_rows_and_no_note_when_a_change_works(dataset, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["sensitivity", str(dataset), "--model", "A", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "no single change" not in printed
    lines = (out / "whatif.csv").read_text().splitlines()
    assert lines[0] == "path,field,current,value"
    assert "C/B1,weight,1,1.33333333333" in lines  # 4/3: A ties B (docs/SENSITIVITY.md)


# ------------------------------------------------------------------------------------------------
# the concentration in words
# ------------------------------------------------------------------------------------------------


def test_weight_spread_is_the_dirichlets_standard_deviation():
    # Dirichlet(a): Var X_i = a_i (a_0 - a_i) / (a_0^2 (a_0 + 1)); a_i = c/n, a_0 = c, w_i = 1/n:
    # sd / w_i = sqrt((n - 1) / (c + 1)). c = 50: n = 2 -> sqrt(1/51) = 0.14003;
    # n = 3 -> sqrt(2/51) = 0.19803
    assert weight_spread(50, 2) == pytest.approx(0.14003, abs=1e-5)
    assert weight_spread(50, 3) == pytest.approx(0.19803, abs=1e-5)
    assert weight_spread(math.inf, 2) == 0 and weight_spread(50, 1) == 0


@pytest.mark.parametrize("n, want", [(2, 0.14003), (3, 0.19803)])
def test_the_samplers_weights_move_as_the_words_say(n, want):
    level = DirichletLevel(np.ones(n), np.zeros(1, dtype=np.intp), 50.0)
    w = level.draw(np.random.default_rng(0), 40_000)
    # the standard error of a standard deviation from 40,000 draws is about sd / 283
    assert w[:, 0].std() == pytest.approx(want, rel=0.02)


def test_the_words_give_the_default_spread():
    text = concentration_help()
    assert "larger = closer" in text
    assert "With 50, a weight moves by about ±14 %" in text and "±20 % in a group of three" in text
    assert "±7 %" in concentration_help(200)  # sqrt(1/201) = 0.0705


def test_the_panels_concentration_box_and_the_cli_help_carry_the_words(dataset, capsys):
    from ml_peg_like.dashboard import ScoreCache

    cfg, raw = load_dataset(dataset)
    panel = robustness_layout.layout(ScoreCache(cfg, raw))["panel"]
    labels = _find(panel, lambda c: isinstance(c, html.Label) and "Concentration" in str(c))
    assert any(concentration_help() in (getattr(lab, "title", None) or "") for lab in labels)
    with pytest.raises(SystemExit):
        main(["robustness", "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    assert "larger = closer" in helptext and "±14 % (one standard deviation)" in helptext


def _find(component, pred) -> list:
    found = [component] if pred(component) else []
    kids = getattr(component, "children", None)
    if kids is None or isinstance(kids, str | int | float):
        return found
    for kid in kids if isinstance(kids, list | tuple) else [kids]:
        found += _find(kid, pred)
    return found
