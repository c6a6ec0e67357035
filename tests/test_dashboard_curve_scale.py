"""The curve at many points (issue 15): places are grouped without writing out every point's
figures, and the raw value texts kept between edits are those of the values drawn (never
stale: kept by the values themselves)."""

from __future__ import annotations

import dataclasses

import numpy as np
from browser_utils import small_dataset

from ml_peg_like import score
from ml_peg_like.dashboard import figures
from ml_peg_like.dashboard.curve_axis import choose_axis, group_points
from ml_peg_like.numfmt import fmt_raw

IRIS_ACC = "Classification/Iris/Accuracy"
IRIS_F1 = "Classification/Iris/F1"


def by_figures(xs, ys, digits=9):
    """Every point's place written out to ``digits`` figures (the definition)."""
    groups: dict = {}
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        key = tuple(None if not np.isfinite(v) else float(f"{v:.{digits}g}") for v in (x, y))
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def test_points_share_a_place_exactly_when_their_figures_agree():
    rng = np.random.default_rng(3)
    base = rng.lognormal(0, 3, 400)
    xs = np.concatenate(
        [
            base,
            base[:50] * (1 + 4e-10),  # equal to 9 figures (mostly)
            base[50:100] * (1 + 3e-8),  # near but not equal
            [0.0, -0.0, np.nan, np.inf, np.nan, 1.0, 0.9999999996, 1.000000004, 9.9999999996],
            [10.0, 1e-300, 0.0],
        ]
    )
    ys = rng.choice([0.0, 0.5, 1.0, np.nan], size=xs.size)
    ys[:100] = ys[400:500] = 1.0  # the copies at the same height as their originals
    rng.shuffle(order := np.arange(xs.size))
    xs, ys = xs[order], ys[order]
    for digits in (9, 6, 3):
        got = group_points(xs, ys, digits)
        assert got == by_figures(xs, ys, digits)
    shared = [g for g in group_points(xs, ys) if len(g) > 1]
    assert len(shared) >= 40  # the test has ties to find
    assert group_points([], []) == []


def test_place_all_is_place_of_each_value():
    axis = choose_axis(np.r_[0.001, 0.01, 0.1, 1, 10, 1e4, 1e5], [0.5, 2.0], xscale="log")
    xs = np.r_[-1.0, 0.0, 1e-9, 0.01, 3.0, 1e9, np.inf, -np.inf, np.nan]
    px, side = axis.place_all(xs)
    for x, p, s in zip(xs, px.tolist(), side.tolist(), strict=True):
        want = axis.place(float(x))
        assert s == want[1] and (p == want[0] or (np.isnan(p) and np.isnan(want[0])))


def test_the_raw_texts_kept_are_those_of_the_values_drawn(tmp_path):
    cfg, raw = small_dataset(tmp_path)
    figures.curve_figure(score(raw, cfg), IRIS_F1)  # the old F1 texts are kept
    before = figures.curve_figure(score(raw, cfg), IRIS_ACC)
    # another metric's raw values change: the accuracy curve is unchanged, the F1 curve shows
    # its new values, each equal to the figure built with no texts kept
    c = raw.metric_ids.index(cfg.metric_ids()[cfg.metric_paths().index(cfg.full_path(IRIS_F1))])
    values = raw.values.copy()
    values[:, c] = values[:, c] * 0.5 + 0.123456
    s2 = score(dataclasses.replace(raw, values=values), cfg)
    after_acc = figures.curve_figure(s2, IRIS_ACC)
    after_f1 = figures.curve_figure(s2, IRIS_F1)
    figures._raw_texts.clear()
    assert after_acc == figures.curve_figure(s2, IRIS_ACC) == before
    assert after_f1 == figures.curve_figure(s2, IRIS_F1)
    shown = [v for v in values[:, c].tolist() if not np.isnan(v)]
    assert len(shown) >= 3
    texts = [t for t in after_f1["data"][-1]["text"] if "raw " in t]
    assert {fmt_raw(v) for v in shown} <= {t.split("raw ")[1].split("<")[0] for t in texts}
    assert figures.raw_texts_of(np.asarray(shown)) == [fmt_raw(v) for v in shown]


def test_the_hover_y_is_the_float_of_the_score_text():
    """figures._score_y (no text written) is float(fmt_score(...)) wherever that text is
    plain, None where it is not (negative, an exponent, an integer longer than the digits),
    NaN for a missing score: on random scores, scores on the grid's 9 decimals, exact binary
    ties (0.125 at 2 decimals: half up, where Python's format rounds half to even) and the
    edges of fmt_score's forms."""
    import math

    from ml_peg_like.numfmt import fmt_score

    def plain_y(v, scale, digits):
        if not math.isfinite(v):
            return math.nan
        t = fmt_score(v, scale, digits)
        y = float(t)
        return y if y >= 0 and "e" not in t and y < 10**digits else None

    rng = np.random.default_rng(4)
    ties = [k / 2**p for p in range(1, 11) for k in range(2**p + 1)]
    edges = [0.0, -0.0, 1.0, 0.9995, 0.99949999, 9.9999e-7, 1e-6, 5e-7, 4.99999e-7, 999.5]
    values = [
        *rng.random(3000).tolist(),
        *np.round(rng.random(3000), 9).tolist(),
        *np.round(rng.random(1000) * 1e-5, 9).tolist(),
        *ties,
        *edges,
        -0.2,
        float("nan"),
    ]
    for scale in (1.0, 100.0, 3.0):
        for digits in (3, 4, 8):
            for v in values:
                want, got = plain_y(v, scale, digits), figures._score_y(v, scale, digits)
                if want is None or math.isnan(want):
                    assert got is want or (got is not None and math.isnan(got)), (v, got)
                else:
                    assert got == want and math.copysign(1, got) == 1, (v, scale, digits)
    # an exact tie: fmt_score's half up, where Python's format rounds half to even
    assert f"{0.125:.1e}" == "1.2e-01" and f"{0.0625:.2e}" == "6.25e-02"
    assert figures._score_y(0.125, 1.0, 2) == 0.13
    assert figures._score_y(0.03125, 1.0, 3) == 0.0313  # 3.125e-2: half even says 0.0312
    assert figures._score_y(0.0625, 1.0, 3) == 0.0625
