"""The normalisation-curve figure: raw value -> score for one metric, with every model on it."""

from __future__ import annotations

import functools
import html
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping

import numpy as np

from ..config import Metric
from ..normalisers import apply_normaliser
from ..numfmt import SCORE_DIGITS, clean_digits
from ..scoring import Scores
from .curve_axis import Axis, choose_axis, point_groups
from .curve_parts import bands, default_lines, mark_lines, subtitle, x_axis_parts
from .tables import DIGITS as TABLE_DIGITS
from .tables import fmt_raw, fmt_score, resolved_params, unresolved_thresholds

CURVE = "#0969da"
CURVE_POINTS = 121
PINNED = "#bf8700"  # the fill of a point pinned at the axis' edge
MAX_HOVER_NAMES = 12  # a point's hover lists this many models, then "and N more"
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'


@functools.lru_cache(maxsize=1 << 15)  # the curve's 10,000 model names on every edit
def _text(s: str) -> str:
    """Data as text in Plotly's pseudo-HTML labels: ``& < >`` escaped (Plotly decodes those three
    entities; it shows ``&quot;`` literally, and a quote outside a tag needs no escaping)."""
    return html.escape(s, quote=False)


AXIS = dict(
    gridcolor="#eaeef2",
    linecolor="#d0d7de",
    zeroline=False,
    ticks="outside",
    tickcolor="#d0d7de",
    automargin=False,  # fixed margins: automargin costs a second layout pass on every update
)


def _base_layout(**kw) -> dict:
    layout = dict(
        height=320,
        margin=dict(l=60, r=24, t=58, b=50),
        font=dict(family=FONT, size=12, color="#1f2328"),
        paper_bgcolor="#ffffff",
        plot_bgcolor="#ffffff",
        showlegend=False,
        hovermode="closest",
        hoverlabel=dict(bgcolor="#ffffff", font=dict(family=FONT, size=12)),
    )
    layout.update(kw)
    return layout


def empty_figure(message: str = "") -> dict:
    """A blank figure (plain dict: Dash sends it without plotly.py's validation)."""
    notes = (
        [dict(text=_text(message), showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")]
        if message
        else []
    )
    return dict(
        data=[],
        layout=_base_layout(
            xaxis=dict(visible=False), yaxis=dict(visible=False), annotations=notes
        ),
    )


def _floats(a) -> list:
    """Each value rounded to 12 decimals as Python's ``round`` does (NaN, inf: None). A value
    of magnitude below 1e3 that is already the float nearest a 12-decimal number (its digits
    over 1e12, an exact integer, divided back give it again) is its own rounding (it lies
    within half a unit of the 12th decimal of that number): most values are taken as they
    are, the others rounded one by one."""
    arr = np.asarray(a, dtype=float).ravel()
    out = arr.tolist()
    with np.errstate(all="ignore"):
        own = (np.abs(arr) < 1e3) & (np.rint(arr * 1e12) / 1e12 == arr)
    for i in np.flatnonzero(~own).tolist():
        v = out[i]
        out[i] = None if not math.isfinite(v) else round(v, 12)
    return out


def _grid(lo: float, hi: float, log: bool, marks: list[float]) -> np.ndarray:
    if log:
        g = np.geomspace(lo, hi, CURVE_POINTS)
    else:
        g = np.linspace(lo, hi, CURVE_POINTS)
    extra = []
    for m in marks:
        if math.isfinite(m) and lo <= m <= hi:
            extra += [np.nextafter(m, -np.inf), m, np.nextafter(m, np.inf)]
    return np.unique(np.concatenate([g, np.asarray(extra, dtype=float)]))


#: the curve line is drawn to this fraction of the plot box (0.2 px of a 1,000 px plot): a point
#: of the grid within it of the straight line between its kept neighbours is dropped (a piecewise
#: linear normaliser keeps its corners only; an edit resends the line)
LINE_TOLERANCE = 2e-4
LINE_DIGITS = 7  # significant digits of the line's points (far below a pixel)


def _sig_floats(a) -> list:
    return [
        None if not math.isfinite(v) else float(f"{v:.{LINE_DIGITS}g}")
        for v in np.asarray(a, float).tolist()
    ]


def _line_points(x: np.ndarray, y: np.ndarray, log: bool, lo: float, hi: float) -> np.ndarray:
    """Indices of the points of the line (x, y) to draw: Ramer-Douglas-Peucker with
    :data:`LINE_TOLERANCE` in the plot box (x in the axis' own space, y over the score range),
    per run of finite values; a gap (NaN) stays a gap."""
    t = np.log10(x) if log else x
    t0, t1 = (math.log10(lo), math.log10(hi)) if log else (lo, hi)
    u = (t - t0) / ((t1 - t0) or 1.0)
    v = y / 1.16  # the y axis spans 1.16 x the scale (its range below); y is unscaled here
    finite = np.isfinite(u) & np.isfinite(v)
    keep = ~finite  # NaNs stay (they break the line where the curve is undefined)
    n = len(x)
    k = 0
    while k < n:
        if not finite[k]:
            k += 1
            continue
        end = k
        while end + 1 < n and finite[end + 1]:
            end += 1
        keep[k] = keep[end] = True
        stack = [(k, end)]
        while stack:
            a, b = stack.pop()
            if b - a < 2:
                continue
            du, dv = u[b] - u[a], v[b] - v[a]
            su, sv = u[a + 1 : b] - u[a], v[a + 1 : b] - v[a]
            norm = math.hypot(du, dv)
            d = np.abs(du * sv - dv * su) / norm if norm else np.hypot(su, sv)
            m = int(np.argmax(d))
            if d[m] > LINE_TOLERANCE:
                keep[a + 1 + m] = True
                stack += [(a, a + 1 + m), (a + 1 + m, b)]
        k = end + 1
    return np.flatnonzero(keep)


def _score_y(value: float, scale: float, digits: int) -> float | None:
    """``float(fmt_score(value, scale, digits))`` when that text is plain (a number >= 0 below
    ``10 ** digits`` and not written with an exponent), else None; NaN for a missing value.
    Python's ``e`` format rounds the exact binary value to ``digits`` significant digits like
    ``fmt_score`` (half up) except at an exact tie (half even): a value whose next digits are a
    5 and zeros is written by ``fmt_score`` itself (10,000 scores: ~10x faster)."""
    if not math.isfinite(value):
        return math.nan
    x = float(value) * float(scale)
    if x < 0:
        return None
    if x == 0:
        return 0.0
    rest = f"{x:.{digits + 19}e}".partition("e")[0].replace(".", "")[digits:]
    if rest[0] == "5" and rest.strip("0") == "5":  # maybe an exact tie: the exact rule
        text = fmt_score(value, scale, digits)
        y = float(text)
        return y if "e" not in text and y < 10**digits else None
    short = f"{x:.{digits - 1}e}"
    y = float(short)
    if y >= 10**digits or int(short.partition("e")[2]) < -6:
        return None  # an integer or an exponent (fmt_score's other forms): not plain
    return y


#: a value whose scaled digits lie this close to a rounding tie is written by :func:`_score_y`
#: (the vectorised rounding below is exact elsewhere: its one product errs by < 1e-8 there)
_TIE_MARGIN = 1e-6


def _score_ys(grid: np.ndarray, scale: float, digits: int) -> np.ndarray:
    """:func:`_score_y` of each value of ``grid`` (``digits`` >= 1) at once, as floats with NaN
    for a missing value and for one that is not plain (see ``plain`` below): returns
    ``(y, plain)``. Each value is scaled, its first ``digits`` digits taken by one product
    with a power of ten (exact to well under ``_TIE_MARGIN`` of a unit at up to 8 digits) and
    rounded half up; the digits over the same power of ten is the float nearest the decimal
    the text would hold (IEEE division and product are correctly rounded, the integer and
    the power are exact). A value near a tie, near a power of ten (the exponent may be off by
    one) or beyond exact powers is written by :func:`_score_y` itself (few or none)."""
    g = np.asarray(grid, dtype=float)
    y = np.full(g.shape, np.nan)
    plain = np.ones(g.shape, dtype=bool)
    finite = np.isfinite(g)
    with np.errstate(all="ignore"):
        x = g * float(scale)
        pos = finite & (x > 0)
        plain[finite & (x < 0)] = False
        y[finite & (x == 0)] = 0.0
        xp = x[pos]
        e = np.floor(np.log10(xp))
        k = (digits - 1) - e  # the power of ten that brings the first digits before the point
        ok = np.abs(k) <= 22  # 10 ** |k| exact
        kk = np.where(ok, k, 0.0)
        p10 = 10.0 ** np.abs(kk)
        t = np.where(kk >= 0, xp * p10, xp / p10)
        fl = np.floor(t)
        frac = t - fl
        m = fl + (frac > 0.5)
        ok &= np.abs(frac - 0.5) > _TIE_MARGIN
        ok &= (m >= 10.0 ** (digits - 1)) & (m < 10.0**digits)  # the exponent was right
        yp = np.where(kk >= 0, m / p10, m * p10)
        ok_plain = (e < digits) & (e >= -6)  # not an integer longer than digits, no exponent
    out_y = np.where(ok_plain, yp, np.nan)
    idx = np.flatnonzero(pos)
    y[idx[ok]] = out_y[ok]
    plain[idx[ok]] = ok_plain[ok]
    for i in idx[~ok].tolist():  # the exact rule, one value at a time
        v = _score_y(float(g[i]), scale, digits)
        y[i] = math.nan if v is None else v
        plain[i] = v is not None
    return y, plain


def _hover_scores(values, scale: float, digits: int) -> tuple[np.ndarray, list[str] | None]:
    """(y, score texts for the hover) of the points, from their scores (0-1): y is the score
    the grid shows (the grid's number, ``tables.DIGITS``, to ``digits`` significant digits as
    :func:`fmt_score` writes it) and the hover formats it with d3's ``.{digits}r`` (the texts
    are then None). Where that would not give :func:`fmt_score`'s text (fewer than 3 digits:
    the point would stray from the curve; a negative score, one below 1e-6 or an integer part
    longer than ``digits``), every point carries its score in its text instead (y unrounded).
    Each distinct score is written once (many points share 0 or 1)."""
    values = np.asarray(values, dtype=float)
    uniq, inverse = np.unique(values, return_inverse=True)
    grid = [v if not math.isfinite(v) else round(v, TABLE_DIGITS) for v in uniq.tolist()]
    inv = inverse.reshape(-1)
    digits = clean_digits(digits)
    if digits >= 3:  # y of each score without writing its text (the common, plain case)
        uys, plain = _score_ys(np.asarray(grid, dtype=float), scale, digits)
        if plain.all() or not len(plain):
            return uys[inv], None
    utexts = [fmt_score(v, scale, digits) for v in grid]
    return values * scale, [f"<br>score {utexts[k]}" for k in inv.tolist()]


#: what a curve's points show that follows from their values alone (the raw value texts, the
#: x positions as sent), kept for the last arrays by their bytes (never stale)
RAW_TEXT_CACHE = 32
RAW_TEXT_MAX_VALUES = 200_000  # larger arrays are written each time (memory)
_raw_texts: OrderedDict[tuple[str, bytes], list] = OrderedDict()
_raw_lock = threading.Lock()


def _kept(kind: str, values, make: Callable[[np.ndarray], list]) -> list:
    """``make(values)`` (a function of the values alone), kept for the last
    :data:`RAW_TEXT_CACHE` arrays by ``kind`` and the values' bytes."""
    arr = np.ascontiguousarray(values, dtype=float)
    key = (kind, arr.tobytes())
    with _raw_lock:
        hit = _raw_texts.get(key)
        if hit is not None:
            _raw_texts.move_to_end(key)
            return hit
    out = make(arr)
    if arr.size > RAW_TEXT_MAX_VALUES:
        return out
    with _raw_lock:
        _raw_texts[key] = out
        while len(_raw_texts) > RAW_TEXT_CACHE:
            _raw_texts.popitem(last=False)
    return out


def raw_texts_of(values: np.ndarray) -> list[str]:
    """:func:`fmt_raw` of each value, kept (:func:`_kept`): an edit of a threshold does not
    write the 10,000 raw values of the curve's points again."""
    return _kept("raw", values, lambda arr: [fmt_raw(v) for v in arr.tolist()])


#: above this many points a plot draws them with WebGL (``scattergl``): Plotly styles each SVG
#: marker separately (10,000 curve points: a 650-950 ms task after every edit)
GL_POINTS = 300


def point_trace_type(n: int) -> str:
    """The Plotly trace type for ``n`` points (the explore scatter and the curve's models)."""
    return "scattergl" if n > GL_POINTS else "scatter"


def _pinned_marker(side: int) -> str:
    return "triangle-right" if side > 0 else "triangle-left"


#: a curve point's marker symbol and fill by its side + 1 (left pinned, on the axis, right)
_SYMBOLS = np.array([_pinned_marker(-1), "circle", _pinned_marker(1)], dtype=object)
_FILLS = np.array([PINNED, "#ffffff", PINNED], dtype=object)
#: the points' own hover lines kept (``_point_lines``): a few metrics' curves
LINES_CACHE = 8
_lines: OrderedDict[tuple[bytes, bytes], tuple] = OrderedDict()


def _point_lines(models, names: Mapping[str, str] | None, x: np.ndarray, sides) -> list[str]:
    """The hover line of each model with a value in column ``x`` (``<b>name</b>: raw
    VALUE``, `` (beyond the axis)`` where pinned at its side), kept for the last
    :data:`LINES_CACHE` columns by the values' and sides' bytes and the identity of ``models``
    and ``names`` (the entry holds both: their ids are not reused while it lives; neither is
    changed in place): an edit of a threshold moves the points up and down, not their lines."""
    arr = np.ascontiguousarray(x, dtype=float)
    side = np.ascontiguousarray(sides, dtype=np.int64)
    key = (arr.tobytes(), side.tobytes())
    with _raw_lock:
        hit = _lines.get(key)
        if hit is not None and hit[0] is models and hit[1] is names:
            _lines.move_to_end(key)
            return hit[2]
    ok = ~np.isnan(arr)
    shown = names or {}
    keys = [m for m, keep in zip(models, ok.tolist(), strict=True) if keep]
    raw = raw_texts_of(arr[ok])
    out = [
        f"<b>{_text(shown.get(k, k))}</b>: raw {r}{' (beyond the axis)' if s else ''}"
        for k, r, s in zip(keys, raw, side.tolist(), strict=True)
    ]
    if arr.size <= RAW_TEXT_MAX_VALUES:
        with _raw_lock:
            _lines[key] = (models, names, out)
            while len(_lines) > LINES_CACHE:
                _lines.popitem(last=False)
    return out


def _metric_at(scores: Scores, path: str) -> Metric | None:
    try:
        metric = scores.config.node(path)
    except KeyError:
        return None
    return metric if isinstance(metric, Metric) else None


def _line_trace(grid: np.ndarray, curve: np.ndarray, axis: Axis, scale: float) -> dict:
    """The score curve: the grid's points that the line needs (:func:`_line_points`)."""
    keep = _line_points(grid, curve, axis.log, axis.lo, axis.hi)
    return dict(
        type="scatter",
        x=_sig_floats(grid[keep]),
        y=_sig_floats(curve[keep] * scale),
        mode="lines",
        line=dict(color=CURVE, width=2),
        name="score curve",
        hoverinfo="skip",
    )


def _group_texts(firsts, shared, lines, gside) -> tuple[list[str], list[float]]:
    """(hover text, marker size) of each point: a point where several models are lists them
    (the first :data:`MAX_HOVER_NAMES`) and is drawn larger."""
    gtext = [lines[i] for i in firsts]
    gsize = np.where(gside != 0, 12.0, 9.0).tolist()  # as below: + min(6, 0.0)
    for g, group in shared.items():  # models at one place: every name in its hover
        head = f"{len(group)} models<br>"
        names_at = [lines[i] for i in group[:MAX_HOVER_NAMES]]
        if len(group) > MAX_HOVER_NAMES:
            names_at.append(f"… and {len(group) - MAX_HOVER_NAMES} more")
        gtext[g] = head + "<br>".join(names_at)
        gsize[g] = round((12 if gside[g] else 9) + min(6, 2 * math.log2(len(group))), 2)
    return gtext, gsize


def _models_trace(
    scores: Scores, j: int, axis: Axis, names, scale: float, digits: int
) -> tuple[dict, int]:
    """(the trace of the models' points, how many are pinned at the axis' edges): one point per
    place, its hover listing every model there; pinned points keep their value. The hover text
    holds what the settings do not change (names, raw values): the score is the point's y (see
    ``_hover_scores``), so an edit resends y, not the text. ``digits``: as ``clean_digits``
    makes it (the hover's format too)."""
    digits = clean_digits(digits)
    x = scores.raw_values[:, j]
    ok = ~np.isnan(x)
    s_ok = scores.metric_scores[:, j][ok]  # once: a mask per point made the hover O(models^2)
    ys = np.where(np.isnan(s_ok), np.nan, s_ok * scale)
    px_arr, sides = axis.place_all(x[ok])
    firsts, shared = point_groups(px_arr, ys)
    fi = firsts.tolist()
    px_sent = _kept("x", px_arr, _floats)  # the points' x as sent (the same each edit)
    gy, score_texts = _hover_scores(s_ok[firsts], scale, digits)
    lines = _point_lines(scores.models, names, x, sides)  # a point's own line, kept
    gside = sides[firsts]
    gtext, gsize = _group_texts(fi, shared, lines, gside)
    if score_texts:
        gtext = [t + st for t, st in zip(gtext, score_texts, strict=True)]
    trace = dict(
        type=point_trace_type(len(fi)),
        x=[px_sent[i] for i in fi],
        y=_floats(gy),
        mode="markers",
        marker=dict(
            size=gsize,
            color=_FILLS[gside + 1].tolist(),
            symbol=_SYMBOLS[gside + 1].tolist(),
            line=dict(color="#1f2328", width=1.5),
        ),
        name="models",
        text=gtext,
        hoverlabel=dict(align="left"),  # the score's line under the names, not right-aligned
        hovertemplate=(
            "%{text}<extra></extra>"
            if score_texts
            else f"%{{text}}<br>score %{{y:.{digits}r}}<extra></extra>"
        ),
    )
    return trace, int(np.count_nonzero(sides))


def _curve_values(scores: Scores, j: int, metric: Metric, params, grid, unresolved) -> np.ndarray:
    """The normaliser on the grid with the resolved parameters; all NaN when a threshold is
    unresolved or resolved per instance (no threshold, no curve: the title says why)."""
    per_instance = j in scores.instances and any(f not in params for f in metric.norm.editable)
    if unresolved or per_instance:
        return np.full(grid.shape, np.nan)
    arr = {k: np.asarray([v]) for k, v in params.items()}
    with np.errstate(all="ignore"):
        return apply_normaliser(metric.norm, grid[:, None], arr)[:, 0]


def _add_instances(data: list[dict], scores: Scores, j: int, scale: float) -> None:
    inst_trace = _instance_points(scores, j) if j in scores.instances else None
    if inst_trace:
        inst_trace["y"] = _floats(np.asarray(inst_trace["y"], dtype=float) * scale)
        inst_trace["marker"]["size"] = 5 if len(inst_trace["x"]) < 2000 else 3
        data.insert(1, inst_trace)


def _instance_xs(scores: Scores, j: int) -> np.ndarray:
    if j not in scores.instances:
        return np.zeros(0)
    x = np.asarray(scores.instances[j].values, dtype=float)
    return x[~np.isnan(x)]


def curve_figure(
    scores: Scores,
    path: str,
    band: dict | None = None,
    *,
    names: Mapping[str, str] | None = None,
    xscale: str = "auto",
    digits: int = SCORE_DIGITS,
    defaults: Mapping[str, float] | None = None,
) -> dict:
    """The curve of the metric at ``path`` with its resolved parameters, the good/bad thresholds
    as vertical lines (speed-up normalisers: the parameters in the title) and a point per place
    (every model there in its hover). ``names``: ``{key: display name}``; ``xscale``: "auto",
    "linear" or "log" (see :mod:`.curve_axis`: range, pinned outliers); ``digits``: of the
    scores in the hover (the page's digits control); ``band``:
    ``{field: (low, high)}`` stability intervals of thresholds, drawn shaded; ``defaults``:
    the default thresholds ``{"good": x, "bad": x}``, drawn faintly where they differ from the
    current ones (:func:`.curve_parts.default_lines`)."""
    metric = _metric_at(scores, path)
    if metric is None:
        return empty_figure("Pick a metric")
    cfg = scores.config
    j = scores.plan.metric_paths.index(cfg.full_path(path))
    params = resolved_params(scores, j)
    x = scores.raw_values[:, j]
    xs = x[~np.isnan(x)]
    marks = metric.norm.curve_marks(params)
    inst_x = _instance_xs(scores, j)
    if xs.size == 0 and inst_x.size == 0 and not marks:
        return empty_figure("No data for this metric")
    axis = choose_axis(
        np.concatenate([xs, inst_x]),
        [m.x for m in marks],
        xscale=xscale,
        log_hint=bool(metric.norm.log_x),
    )
    grid = _grid(axis.lo, axis.hi, axis.log, [m.x for m in marks])
    unresolved = unresolved_thresholds(scores, j)
    curve = _curve_values(scores, j, metric, params, grid, unresolved)
    scale = cfg.scale
    points, n_pinned = _models_trace(scores, j, axis, names, scale, digits)
    data = [_line_trace(grid, curve, axis, scale), points]
    _add_instances(data, scores, j, scale)
    shapes, notes = mark_lines(marks, axis)
    d_shapes, d_notes = default_lines(defaults, params, axis)
    shapes += d_shapes + (bands(band, axis.lo, axis.hi) if band else [])
    unit = f" [{_text(metric.unit)}]" if metric.unit else ""
    sub = subtitle(
        metric.normaliser,
        params,
        missing=int(x.size - xs.size),
        log=axis.log,
        pinned=n_pinned,
        unresolved=unresolved,
    )
    if j in scores.instances:
        sub += " · per instance: small dots; a model's point is its mean raw value and score"
    layout = _base_layout(
        title=dict(
            text=f"{_text(metric.name)}{unit}<br><span style='font-size:12px;color:#57606a'>"
            f"{_text(sub)}</span>",
            x=0.01,
            xanchor="left",
            y=0.97,
            font=dict(size=14),
        ),
        shapes=shapes,
        annotations=notes + d_notes,
        xaxis=dict(AXIS, **x_axis_parts(axis, unit)),
        yaxis=dict(AXIS, title=dict(text="score"), range=[-0.06 * scale, 1.1 * scale]),
    )
    return dict(data=data, layout=layout)


def _instance_points(scores: Scores, j: int) -> dict | None:
    """The trace of the per-instance points of metric column ``j`` (raw value, instance score;
    y unscaled), or None when no instance has a value."""
    block = scores.instances[j]
    x = np.asarray(block.values, dtype=float)
    s = scores.instance_scores.get(j, np.full(x.shape, np.nan))
    i, k = np.nonzero(~np.isnan(x))
    if i.size == 0:
        return None
    text = [
        f"<b>{_text(scores.models[a])}</b> · {_text(block.names[b])}<br>raw: {fmt_raw(float(x[a, b]))}"
        for a, b in zip(i.tolist(), k.tolist(), strict=True)
    ]
    return dict(
        type="scatter",
        x=_floats(x[i, k]),
        y=s[i, k].tolist(),
        mode="markers",
        marker=dict(size=5, color=CURVE, opacity=0.55),
        name="instances",
        text=text,
        hovertemplate="%{text}<br>score: %{y}<extra></extra>",
    )
