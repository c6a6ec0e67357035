"""Config loading: every problem reported at once with its key path; YAML round trip."""

from __future__ import annotations

import numpy as np
import pytest

import ml_peg_like as mpl
from ml_peg_like import ConfigError


def problems_of(text: str) -> list[str]:
    with pytest.raises(ConfigError) as exc:
        mpl.loads_config(text)
    return exc.value.lines()


def test_bad_threshold_named_by_key_path():
    lines = problems_of(
        """
categories:
  Physicality:
    benchmarks:
      Extensivity:
        metrics:
          ΔE: {good: 0, bad: abc}
"""
    )
    assert lines == ["Physicality/Extensivity/ΔE.bad: expected a number, got 'abc'"]


def test_all_problems_are_reported_together():
    lines = problems_of(
        """
missing: sometimes
categories:
  A:
    weight: -1
    benchmarks:
      B:
        metrics:
          m1: {good: 1, bad: 1}
          m2: {good: 0, bad: 1, weight: x, colour: red}
          m3: {good: 0, normaliser: nope}
          m4: {bad: 2}
  C:
    benchmarks:
      B:
        metrics:
          m: {good: 0, bad: 1}
"""
    )
    text = "\n".join(lines)
    assert "missing: expected 'invalidate' or 'skip'" in text
    assert "A.weight: weight must be >= 0" in text
    assert "A/B/m1.good: good and bad must differ" in text
    assert "A/B/m2.weight: expected a number, got 'x'" in text
    assert "A/B/m2.colour: unknown key" in text
    assert "A/B/m3.normaliser: unknown normaliser 'nope'" in text
    assert "A/B/m4.good: missing" in text
    assert "C/B: benchmark names must be unique" in text
    assert len(lines) == 8


def test_infinite_and_boolean_thresholds_are_refused():
    text = "\n".join(
        problems_of("categories: {A: {benchmarks: {B: {metrics: {m: {good: .inf, bad: true}}}}}}")
    )
    assert "A/B/m.good: expected a finite number" in text
    assert "A/B/m.bad: expected a number, got True" in text


def test_best_worst_need_a_direction_and_params_are_checked():
    text = "\n".join(
        problems_of(
            """
categories:
  A:
    benchmarks:
      B:
        metrics:
          m: {good: best, bad: worst}
          s: {normaliser: log_speedup, max_speedup: 1}
          w: {normaliser: weibull_speedup, good: 1}
"""
        )
    )
    assert "A/B/m.better: 'best'/'worst' thresholds need better" in text
    assert "A/B/s.max_speedup: must be > 1" in text
    assert "A/B/w.good: 'weibull_speedup' takes no good threshold" in text


def test_invalid_yaml_names_the_line_and_aliases_are_refused():
    lines = problems_of("categories:\n  A: [1, 2\n")
    assert lines[0].startswith("<text>:") and "invalid YAML" in lines[0]
    bomb = 'a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\ncategories: {}\n'
    assert "aliases" in "\n".join(problems_of(bomb))


def test_unicode_and_slash_names_are_kept_exactly():
    cfg = mpl.loads_config(
        """
categories:
  Phonons ω:
    benchmarks:
      κ_SRME bench:
        metrics:
          SR/MR MAE: {good: 0, bad: 50, unit: kcal/mol}
          R²: {good: 1, bad: 0}
"""
    )
    assert cfg.metric_paths() == ["Phonons ω/κ_SRME bench/SR/MR MAE", "Phonons ω/κ_SRME bench/R²"]
    assert cfg.node("Phonons ω/κ_SRME bench/SR/MR MAE").bad == 50.0
    assert mpl.loads_config(mpl.dump_config(cfg)) == cfg


def test_round_trip_with_every_feature():
    cfg = mpl.loads_config(
        """
title: Everything
description: all features
missing: skip
scale: 100
categories:
  A:
    weight: 0.5
    description: cat
    missing: invalidate
    meta: {source: paper}
    benchmarks:
      B:
        weight: 2
        metrics:
          lin: {good: 0, bad: 1, unit: eV, description: d, meta: {level_of_theory: CCSD(T)}}
          tl: {good: 1, bad: 5, normaliser: traffic_light, weight: 0}
          wb: {normaliser: weibull_speedup, b: 2, c: 4, reference: {model: solver}}
          lg: {normaliser: log_speedup, max_speedup: 100, reference: 1500}
          uai: {good: 0, bad: {model: trivial}}
          bw: {good: best, bad: worst, better: higher}
presets:
  No A: {A: {weight: 0}}
"""
    )
    text = mpl.dump_config(cfg)
    again = mpl.loads_config(text)
    assert again == cfg
    assert again.presets == {"No A": {"A": {"weight": 0}}}
    assert again.node("B/wb").params["reference"] == mpl.ModelRef("solver")


def test_apply_changes_reports_each_bad_field_and_keeps_the_config():
    cfg = mpl.loads_config("categories: {A: {benchmarks: {B: {metrics: {m: {good: 0, bad: 1}}}}}}")
    with pytest.raises(ConfigError) as exc:
        cfg.apply_changes(
            {"A/B/m": {"good": "1"}, "A/B": {"weight": -2}, "Nope": {"weight": 1}, "A": {"good": 1}}
        )
    text = "\n".join(exc.value.lines())
    assert "A/B/m.good: good and bad must differ" in text
    assert "A/B.weight: weight must be >= 0" in text
    assert "Nope: no such category" in text
    assert "A.good: only 'weight' or 'missing' can be changed here" in text
    assert cfg.node("A/B/m").good == 0.0
    ok = cfg.apply_changes({"A/B/m": {"good": "0.25", "weight": 2}})
    assert ok.node("A/B/m").good == 0.25 and ok.node("A/B/m").weight == 2.0


def test_apply_changes_sets_the_policy_at_the_root_and_per_category():
    # {"": {"missing": ...}} is the config's policy; a category takes its override
    cfg = mpl.loads_config(
        "categories: {A: {benchmarks: {B: {metrics: {m: {good: 0, bad: 1}, n: {good: 0, bad: 1}}}}}}"
    )
    values = np.array([[0.25, np.nan]])  # m, n of model x

    def score(c):
        return mpl.score_values(values, ["x"], c)

    assert np.isnan(score(cfg).overall_scores[0])  # invalidate: n is missing
    skip = cfg.apply_changes({"": {"missing": "skip"}})
    assert skip.missing == "skip" and cfg.diff(skip) == {"": {"missing": "skip"}}
    assert score(skip).overall_scores[0] == pytest.approx(0.75)  # 1 - 0.25, m only
    cat = cfg.apply_changes({"A": {"missing": "skip"}})
    assert cat.categories[0].missing == "skip" and cfg.diff(cat) == {"A": {"missing": "skip"}}
    assert score(cat).cat_scores[0, 0] == pytest.approx(0.75)
    with pytest.raises(ConfigError, match="missing: expected 'invalidate' or 'skip'"):
        cfg.apply_changes({"": {"missing": "sometimes"}})
    with pytest.raises(ConfigError, match="only 'missing' can be changed here"):
        cfg.apply_changes({"": {"title": "x"}})
