"""Config vetoes (LIPS seeds 000/001: a training time over the limit "would be
equivalent to a null global score"), through the CLI with hand-computed numbers."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from ml_peg_like.cli import main
from ml_peg_like.config import dump_config, loads_config
from ml_peg_like.dashboard.cache import ScoreCache
from ml_peg_like.dashboard.tables import row_data
from ml_peg_like.raw import load_raw
from ml_peg_like.sensitivity import stability_intervals

CONFIG = """
categories:
  ML:
    benchmarks:
      A1: {metrics: {m: {good: 1, bad: 0}}}
      A2: {metrics: {m: {good: 1, bad: 0}}}
  Cost:
    weight: 0
    benchmarks:
      Training: {metrics: {training_time: {good: 0, bad: 1, weight: 0}}}
vetoes:
  - metric: Training/training_time
    above: 86400
"""
# X would lead (1.0) but trained 90000 s > 86400 s; Z has no training time (no veto)
RAW = """model,benchmark,metric,value
X,A1,m,1
X,A2,m,1
X,Training,training_time,90000
Y,A1,m,0.9
Y,A2,m,0.2
Y,Training,training_time,100
Z,A1,m,0.3
Z,A2,m,0.7
"""


def _dataset(tmp_path, config=CONFIG):
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    (d / "config.yml").write_text(config)
    (d / "raw_metrics.csv").write_text(RAW)
    return d


def test_a_vetoed_model_scores_0_and_ranks_on_it(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["score", str(_dataset(tmp_path)), "--scale", "100", "--out", str(out)]) == 0
    ov = pd.read_csv(out / "overall_scores.csv").set_index("model")
    assert ov["score"].to_dict() == pytest.approx({"X": 0.0, "Y": 55.0, "Z": 50.0})
    assert ov["rank"].to_dict() == {"X": 3, "Y": 1, "Z": 2}
    assert ov["vetoed"].to_dict() == {"X": True, "Y": False, "Z": False}
    # lower levels unchanged: X's category score is still 100
    cats = pd.read_csv(out / "category_scores.csv").set_index("model")
    assert cats.loc["X", "ML"] == pytest.approx(100.0)
    err = capsys.readouterr().err
    assert (
        "model 'X' vetoed: Cost/Training/training_time = 90000 is above the limit 86400 "
        "(overall score 0)" in err
    )
    assert "Cost/Training/training_time has no value for 'Z': not vetoed" in err


def test_below_and_round_trip(tmp_path):
    cfg = loads_config(CONFIG.replace("above: 86400", "below: 1000"))
    assert loads_config(dump_config(cfg)) == cfg
    out = tmp_path / "out"
    (tmp_path / "c.yml").write_text(dump_config(cfg))
    (tmp_path / "r.csv").write_text(RAW)
    assert main(["score", str(tmp_path / "c.yml"), str(tmp_path / "r.csv"), "--out", str(out)]) == 0
    ov = pd.read_csv(out / "overall_scores.csv").set_index("model")
    # Y (100 s < 1000 s) is vetoed now: X 1, Z 0.5, Y 0
    assert ov["score"].to_dict() == pytest.approx({"X": 1.0, "Y": 0.0, "Z": 0.5})


@pytest.mark.parametrize(
    "vetoes, message",
    [
        ("[{metric: Training/nope, above: 1}]", "vetoes[0].metric: not a metric key path"),
        ("[{metric: Training/training_time}]", "vetoes[0]: give exactly one of"),
        ("[{metric: Training/training_time, above: 1, below: 0}]", "give exactly one of"),
        ("[{metric: Training/training_time, above: abc}]", "vetoes[0].above: expected a number"),
        ("{metric: Training/training_time}", "vetoes: expected a list"),
    ],
)
def test_bad_vetoes_exit_2(tmp_path, capsys, vetoes, message):
    config = CONFIG.split("vetoes:")[0] + f"vetoes: {vetoes}\n"
    assert main(["validate", str(_dataset(tmp_path, config))]) == 2
    assert message in capsys.readouterr().err


def test_robustness_and_sensitivity_keep_the_vetoed_model_at_0(tmp_path):
    d = _dataset(tmp_path)
    out = tmp_path / "rob"
    assert main(["robustness", str(d), "--samples", "200", "--out", str(out)]) == 0
    summary = pd.read_csv(out / "robustness_summary.csv").set_index("model")
    # X scores 0 in every sample: never first; it would lead every sample without the veto
    assert summary.loc["X", "p_rank1"] == 0.0 and summary.loc["X", "score_now"] == 0.0
    loo = pd.read_csv(out / "leave_one_out.csv")
    # without A1: X (vetoed) 0, Y 0.2, Z 0.7 (without the veto X would lead with 1)
    assert loo.set_index("removed").loc["ML/A1", "new_top"] == "Z"
    cfg = loads_config(CONFIG)
    raw = load_raw(io.StringIO(RAW), cfg)
    iv = stability_intervals(raw.aligned(cfg), raw.models, cfg).set_index(["path", "field"])
    # Y = (0.9 t + 0.2) / (t + 1) >= Z = (0.3 t + 0.7) / (t + 1) iff t >= 5/6 (A1's weight);
    # for A2's weight: 0.9 + 0.2 t >= 0.3 + 0.7 t iff t <= 1.2
    assert iv.loc[("ML/A1", "weight"), "low"] == pytest.approx(5 / 6)
    assert iv.loc[("ML/A2", "weight"), "high"] == pytest.approx(1.2)


def test_dashboard_overall_tooltip_names_the_veto(tmp_path):
    cfg = loads_config(CONFIG)
    raw = load_raw(io.StringIO(RAW), cfg)
    sc = ScoreCache(cfg, raw).default_scores
    assert np.array_equal(sc.vetoed, [True, False, False])
    rows = {r["model"]: r for r in row_data(sc, "")}
    assert rows["X"]["_v"].startswith("vetoed: Cost/Training/training_time = 90000 is above")
    assert "_v" not in rows["Y"]
