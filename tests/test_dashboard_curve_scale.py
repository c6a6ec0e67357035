"""The curve at many points: places are grouped without writing out every point's
figures, and the raw value texts kept between edits are those of the values drawn (never
stale: kept by the values themselves)."""

from __future__ import annotations

import dataclasses

import numpy as np
from browser_utils import small_dataset

from ml_peg_like import score
from ml_peg_like.dashboard import figures
from ml_peg_like.dashboard.curve_axis import choose_axis, group_points, point_groups
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


# ------------------------------------------------------------------------------------------------
# The vectorised points against the straightforward per-point rules
# ------------------------------------------------------------------------------------------------


def _awkward_values() -> list[float]:
    rng = np.random.default_rng(11)
    ties = [k / 2**p for p in range(1, 9) for k in range(2**p + 1)]
    near_tens = [np.nextafter(10.0**e, d) for e in range(-8, 4) for d in (0.0, np.inf)]
    return [
        *rng.random(2000).tolist(),
        *np.round(rng.random(1000), 9).tolist(),
        *np.round(rng.random(500) * 1e-5, 9).tolist(),
        *(rng.lognormal(0, 6, 500)).tolist(),
        *ties,
        *near_tens,
        *[9.995, 0.9995, 0.09995, 99.95, 0.0012345, 1e-6, 9.9999e-7, 5e-7, 999.5, 1e21],
        0.0,
        -0.0,
        -0.2,
        -1e-9,
        float("nan"),
        float("inf"),
        float("-inf"),
        5e-324,
    ]


def test_the_hover_ys_at_once_are_those_of_each_value():
    """``_score_ys`` (vectorised) is ``_score_y`` of each value: NaN and not plain where that
    gives None, NaN for a missing value, else the same float."""
    values = np.asarray(_awkward_values())
    for scale in (1.0, 100.0, 3.0, 0.001):
        for digits in (1, 2, 3, 4, 8):
            ys, plain = figures._score_ys(values, scale, digits)
            for v, y, p in zip(values.tolist(), ys.tolist(), plain.tolist(), strict=True):
                want = figures._score_y(v, scale, digits)
                if want is None:
                    assert not p and np.isnan(y), (v, scale, digits)
                elif np.isnan(want):
                    assert p and np.isnan(y), (v, scale, digits)
                else:
                    assert p and y == want and np.copysign(1, y) == 1, (v, y, want, scale, digits)


def test_floats_are_rounded_to_12_decimals_as_python_rounds():
    values = _awkward_values()
    rng = np.random.default_rng(5)
    values += (rng.random(500) * 1e3).tolist() + np.round(rng.random(500), 12).tolist()
    values += [999.9999999999999, 1000.0, -999.5, 0.1 + 0.2, 1 / 3, -0.0]
    got = figures._floats(values)
    want = [None if not np.isfinite(v) else round(float(v), 12) for v in values]
    assert got == want
    assert [np.copysign(1, g) for g in got if g == 0] == [np.copysign(1, w) for w in want if w == 0]


def test_points_near_in_x_but_not_in_y_are_alone():
    xs = [1.0, 1.0, 1.0, 2.0, 2.0, 3.0]
    ys = [0.5, 0.5000001, 0.5, 0.1, 0.2, np.nan]
    firsts, shared = point_groups(xs, ys)
    assert firsts.tolist() == [0, 1, 3, 4, 5]
    assert shared == {0: [0, 2]}
    assert group_points(xs, ys) == by_figures(xs, ys) == [[0, 2], [1], [3], [4], [5]]


def _straightforward_points(scores, path, names, digits, xscale="auto"):
    """The models' trace as the fifth session wrote it, one point and one group at a time
    (the reference of the vectorised ``curve_figure``)."""
    import math

    from ml_peg_like.numfmt import clean_digits, fmt_score

    cfg = scores.config
    j = scores.plan.metric_paths.index(cfg.full_path(path))
    x = scores.raw_values[:, j]
    s = scores.metric_scores[:, j]
    ok = ~np.isnan(x)
    xs = x[ok]
    marks = cfg.node(path).norm.curve_marks(figures.resolved_params(scores, j))
    axis = choose_axis(xs, [m.x for m in marks], xscale=xscale, log_hint=False)
    scale = cfg.scale
    keys = [m for m, keep in zip(scores.models, ok, strict=True) if keep]
    shown_names = [figures._text(names.get(k, k)) for k in keys]
    s_ok = s[ok]
    ys = np.where(np.isnan(s_ok), np.nan, s_ok * scale)
    px_arr, sides = axis.place_all(xs)
    side_of = sides.tolist()
    groups = by_figures(px_arr.tolist(), ys.tolist())
    groups.sort(key=lambda g: g[0])
    firsts = [g[0] for g in groups]
    values = s_ok[firsts]
    uniq, inverse = np.unique(values, return_inverse=True)
    grid = [v if not math.isfinite(v) else round(v, 9) for v in uniq.tolist()]
    inv = inverse.reshape(-1).tolist()
    d = clean_digits(digits)
    shown = None
    if d >= 3:
        uys = [figures._score_y(v, scale, d) for v in grid]
        if all(y is not None for y in uys):
            shown = [(uys[k], "") for k in inv]
    if shown is None:
        ut = [fmt_score(v, scale, d) for v in grid]
        shown = [
            (v * scale, f"<br>score {ut[k]}") for v, k in zip(values.tolist(), inv, strict=True)
        ]
    raw_texts = [fmt_raw(v) for v in xs.tolist()]
    gy, gtext, gsym, gsize, gcol = [], [], [], [], []
    for group, (y_shown, score_text) in zip(groups, shown, strict=True):
        side = side_of[group[0]]
        lines = []
        for i in group[:12]:
            beyond = " (beyond the axis)" if side_of[i] else ""
            lines.append(f"<b>{shown_names[i]}</b>: raw {raw_texts[i]}{beyond}")
        if len(group) > 12:
            lines.append(f"… and {len(group) - 12} more")
        head = f"{len(group)} models<br>" if len(group) > 1 else ""
        gy.append(y_shown)
        gtext.append(head + "<br>".join(lines) + score_text)
        gsym.append(("triangle-right" if side > 0 else "triangle-left") if side else "circle")
        gsize.append((12 if side else 9) + min(6, 2 * math.log2(len(group))))
        gcol.append(figures.PINNED if side else "#ffffff")
    return dict(
        x=[None if not math.isfinite(v) else round(v, 12) for v in px_arr[firsts].tolist()],
        y=[None if not math.isfinite(v) else round(float(v), 12) for v in gy],
        size=[round(v, 2) for v in gsize],
        color=gcol,
        symbol=gsym,
        text=gtext,
        scored=any(t for _y, t in shown),
    )


def test_the_curve_points_are_those_of_the_straightforward_rules(tmp_path):
    """Hand-made values: 20 models at one value (a group of more than 12), pairs, values near
    each other to 9 figures, outliers pinned on both sides, missing values, awkward names;
    scale 1 and 100, digits 2 (scores in the text), 3 and 8: the vectorised figure's points
    are those of the per-point rules."""
    from ml_peg_like.scoring import score_values

    cfg, raw = small_dataset(tmp_path)
    rng = np.random.default_rng(8)
    n = 80
    models = tuple(f"m{i}" for i in range(n))
    names = {f"m{i}": f"Model <{i}> & co" for i in range(0, n, 3)}
    col = np.round(rng.uniform(0.4, 1.0, n), 3)
    col[:20] = 0.8  # a group of 20
    col[20:24] = [0.75, 0.75, 0.9, 0.9]
    col[24:27] = [0.61, 0.61 * (1 + 3e-10), 0.61 * (1 + 3e-8)]
    col[27:31] = [40.0, 55.0, -30.0, -31.0]  # beyond the axis on both sides
    col[31:34] = np.nan
    values = np.tile(col[:, None], (1, len(cfg.metric_paths())))
    values[:, 1] = rng.uniform(0.4, 1.0, n)
    for scale in (1.0, 100.0):
        c = dataclasses.replace(cfg, scale=scale) if scale != cfg.scale else cfg
        sc = score_values(values, models, c)
        for digits in (2, 3, 8):
            fig = figures.curve_figure(sc, IRIS_ACC, names=names, digits=digits)
            pts = fig["data"][-1]
            want = _straightforward_points(sc, IRIS_ACC, names, digits)
            assert pts["x"] == want["x"]
            assert pts["y"] == want["y"]
            assert pts["text"] == want["text"]
            assert pts["marker"]["size"] == want["size"]
            assert pts["marker"]["color"] == want["color"]
            assert pts["marker"]["symbol"] == want["symbol"]
            assert ("<br>score %{y" not in pts["hovertemplate"]) == want["scored"]
            assert any("20 models<br>" in t and "… and 8 more" in t for t in pts["text"])
            assert "triangle-left" in pts["marker"]["symbol"]
            assert "triangle-right" in pts["marker"]["symbol"]


# ------------------------------------------------------------------------------------------------
# The axis a reader can trust: linear for a linear rule, ticks in full, default thresholds
# ------------------------------------------------------------------------------------------------


def test_the_automatic_axis_is_linear_unless_the_rule_is_logarithmic():
    """A linear rule stays on a linear axis however many decades its values span (its straight
    line drawn on a log axis read as a curve); a log-hinted normaliser (speed-ups) gets a log
    axis once its values span more than 50x; the user's choice overrides both."""
    six_decades = [1e-3, 1e-2, 0.1, 1.0, 10.0, 1e3]
    assert not choose_axis(six_decades, [0.01, 100.0]).log
    assert choose_axis(six_decades, [0.01, 100.0], xscale="log").log
    assert choose_axis(six_decades, [0.01, 100.0], log_hint=True).log
    assert not choose_axis([1.0, 2.0, 5.0], [10.0], log_hint=True).log  # 10x: below 50x
    assert choose_axis([1.0, 2.0, 5.0], [60.0], log_hint=True).log  # 60x
    assert not choose_axis([1.0, 2.0, 5.0], [60.0], log_hint=True, xscale="linear").log
    # more than a quarter of the values <= 0: no automatic log axis
    assert not choose_axis([-1.0, 0.0, 1.0, 100.0], [1000.0], log_hint=True).log


def test_the_curve_axis_of_the_small_board(tmp_path):
    cfg, raw = small_dataset(tmp_path)
    scores = score(raw, cfg)
    # Predict time (Weibull speed-up, log-hinted): 0.001 .. 0.5 s, 500x -> log
    fig = figures.curve_figure(scores, "Speed <b>&amp;</b> <script>x</script>/Timing/Predict time")
    assert fig["layout"]["xaxis"]["type"] == "log"
    # a linear rule over values that span four decades: linear
    values = np.tile(np.r_[1e-3, 0.05, 0.3, 1.0, 4.0, 20.0][:, None], (1, len(cfg.metric_paths())))
    from ml_peg_like.scoring import score_values

    wide = score_values(values, tuple("abcdef"), cfg)
    fig = figures.curve_figure(wide, IRIS_ACC)
    assert fig["layout"]["xaxis"]["type"] == "linear"
    assert "log x" not in fig["layout"]["title"]["text"]


def test_tick_labels_are_written_in_full(tmp_path):
    """Plotly's log axis labels 0.02 and 0.2 both "2" unless given a tick format; its linear axis
    abbreviates (20μ, 1.5M) unless told not to: the curve sets both."""
    cfg, raw = small_dataset(tmp_path)
    scores = score(raw, cfg)
    log = figures.curve_figure(scores, IRIS_ACC, xscale="log")["layout"]["xaxis"]
    assert log["type"] == "log" and log["tickformat"] == "~r" and log["exponentformat"] == "none"
    lin = figures.curve_figure(scores, IRIS_ACC)["layout"]["xaxis"]
    assert lin["type"] == "linear" and lin["exponentformat"] == "none" and "tickformat" not in lin


def test_default_thresholds_are_drawn_faintly_where_they_differ(tmp_path):
    cfg, raw = small_dataset(tmp_path)
    scores = score(raw, cfg)  # Iris accuracy: good 1.0, bad 0.5
    plain = figures.curve_figure(scores, IRIS_ACC)
    same = figures.curve_figure(scores, IRIS_ACC, defaults={"good": 1.0, "bad": 0.5})
    assert same == plain  # nothing moved: nothing more drawn
    fig = figures.curve_figure(scores, IRIS_ACC, defaults={"good": 0.9, "bad": 0.5})
    lay = fig["layout"]
    assert len(lay["shapes"]) == len(plain["layout"]["shapes"]) + 1
    line = lay["shapes"][-1]
    assert (line["x0"], line["x1"], line["line"]["dash"]) == (0.9, 0.9, "dot")
    assert line["opacity"] < 0.5 and line["line"]["color"] == "#1a7f37"
    note = lay["annotations"][-1]
    assert note["text"] == "default good 0.9" and note["opacity"] < 1
    assert note["yanchor"] == "bottom"  # the current thresholds' labels stack from the top
    both = figures.curve_figure(scores, IRIS_ACC, defaults={"good": 0.95, "bad": 0.6})
    texts = [a["text"] for a in both["layout"]["annotations"][-2:]]
    assert texts == ["default bad 0.6", "default good 0.95"]  # by position, one row each
    # a default beyond the axis sits at its edge, said so
    far = figures.curve_figure(scores, IRIS_ACC, defaults={"good": 50.0, "bad": 0.5})
    hi = far["layout"]["xaxis"]["range"][1]
    assert far["layout"]["shapes"][-1]["x0"] == hi
    assert far["layout"]["annotations"][-1]["text"] == "default good 50 (off axis)"
