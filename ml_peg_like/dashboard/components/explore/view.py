"""The Explore view (``?v=explore&x=..&y=..&c=..&axes=..``): a scatter of one quantity against
another, one point per shown model, coloured by a model attribute, with the Pareto front; and
what the Explore and Compare views share with the edit callback (their controls are inputs of
that ONE callback, their contents extra outputs computed only while the view is open).

The quantities, their values and the front come from :mod:`ml_peg_like.explore` (no Dash)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import numpy as np
from dash import ClientsideFunction, Input, Output, ctx, dcc, html, no_update

from .... import explore as ex
from ....errors import ConfigError
from ....scoring import rank_text
from ....support.lazy import lazy_module
from ... import a11y, ids
from ...figures import point_trace_type
from ...tables import fmt_raw, fmt_score
from ..board import modelcard
from . import compare, plots

pd = lazy_module("pandas")  # imported on first use: the first page needs none

PAGES = (ids.PAGE_EXPLORE, ids.PAGE_COMPARE)
Q_X, Q_Y, Q_C, Q_AXES, Q_IMG, Q_MODELS = "x", "y", "c", "axes", "img", "models"
AXES = ("auto", "linear", "log")
WIDE = 1e3  # log axis (auto) when max / min exceeds this (three decades)
MAX_COLOURS = 8  # category colours; the rest are "other"
SCORE_RANGE = (-0.04, 1.04)  # a linear score axis: [0, 1] and room for the markers
HIDDEN = {"display": "none"}

#: the edit callback's extra inputs and outputs (components/editing/edit.py merges them)
INPUTS = dict(
    ex_x=Input(ids.EXPLORE_X, "value"),
    ex_y=Input(ids.EXPLORE_Y, "value"),
    ex_c=Input(ids.EXPLORE_C, "value"),
    ex_axes=Input(ids.EXPLORE_AXES, "value"),
    cmp_models=Input(ids.COMPARE_MODELS, "value"),
)
CONTROLS = (ids.EXPLORE_X, ids.EXPLORE_Y, ids.EXPLORE_C, ids.EXPLORE_AXES, ids.COMPARE_MODELS)
OUTPUTS = dict(
    ex_fig=Output(ids.EXPLORE_HOLDER, "children"),
    ex_style=Output(ids.EXPLORE_WRAP, "style"),
    cmp_fig=Output(ids.COMPARE_HOLDER, "children"),
    cmp_table=Output(ids.COMPARE_TABLE_HOLDER, "children"),
    cmp_style=Output(ids.COMPARE_WRAP, "style"),
    bench_fig=Output(ids.BENCH_FIG_HOLDER, "children"),
    plot_figs=plots.FIGS,
    plot_sig=plots.SIG,
    # the scatter's selection as the browser draws it after an edit (assets/liveexplore.js)
    ex_spec=Output(ids.EXPLORE_SPEC, ids.HELD),
    # the quantities (~800 at ML-PEG scale, 190 KB): sent when the view opens, not in the page
    opts_x=Output(ids.EXPLORE_X, "options"),
    opts_y=Output(ids.EXPLORE_Y, "options"),
    set_x=Output(ids.EXPLORE_X, "value"),
    set_y=Output(ids.EXPLORE_Y, "value"),
    set_c=Output(ids.EXPLORE_C, "value"),
    set_axes=Output(ids.EXPLORE_AXES, "value"),
    set_models=Output(ids.COMPARE_MODELS, "value"),
)
#: the wildcard outputs among OUTPUTS (the edit callback answers them with a list)
WILDCARD_OUTPUTS: tuple[str, ...] = ()
SEL_KEYS = (("x", "set_x"), ("y", "set_y"), ("c", "set_c"), ("axes", "set_axes"))


def page_of(text: Any) -> str:
    """``explore`` or ``compare`` when ``text`` names one of these views, else ""."""
    return text if isinstance(text, str) and text in PAGES else ""


# ------------------------------------------------------------------------------------------------
# the selection (controls <-> URL)
# ------------------------------------------------------------------------------------------------


def defaults(cache) -> dict[str, Any]:
    """x: the first numeric attribute (else the first category), y: overall, no colour."""
    attrs = cache.raw.attributes
    x = cache.defaults.categories[0].name
    if attrs is not None:
        for name in attrs.columns:
            if name != plots.NAME_COLUMN and ex.attribute_kind(attrs[name]) == ex.NUMBER:
                x = ex.ATTR_PREFIX + str(name)
                break
    return {"x": x, "y": ex.OVERALL, "c": "", "axes": "auto", "models": []}


def _clean(cache, sel: dict[str, Any]) -> dict[str, Any]:
    d = defaults(cache)
    out = dict(d)
    for k in ("x", "y"):
        v = sel.get(k)
        if isinstance(v, str) and v and len(v) < 400:
            try:
                out[k] = ex.parse_quantity(cache.defaults, v, cache.raw.attributes).text
            except ConfigError:
                pass
    c = sel.get("c")
    attrs = cache.raw.attributes
    if isinstance(c, str) and c:
        name = c[len(ex.ATTR_PREFIX) :] if c.startswith(ex.ATTR_PREFIX) else c
        if attrs is not None and name in attrs.columns:
            out["c"] = name
    if sel.get("axes") in AXES:
        out["axes"] = sel["axes"]
    ms = sel.get("models")
    if isinstance(ms, str):
        ms = ms.split(",")
    if isinstance(ms, list):
        known = set(cache.models)
        out["models"] = list(dict.fromkeys(m for m in ms if isinstance(m, str) and m in known))[
            : compare.MAX_MODELS
        ]
    return out


def selection(cache, kw: dict[str, Any]) -> dict[str, Any]:
    """The selection from the controls' values (edit callback inputs)."""
    return _clean(
        cache,
        {
            "x": kw.get("ex_x"),
            "y": kw.get("ex_y"),
            "c": kw.get("ex_c"),
            "axes": kw.get("ex_axes"),
            "models": kw.get("cmp_models"),
        },
    )


def from_query(cache, q: dict[str, str], out: dict[str, Any]) -> dict[str, Any]:
    """The selection of a link; the controls are set to it (``out``)."""
    sel = _clean(
        cache,
        {
            "x": q.get(Q_X),
            "y": q.get(Q_Y),
            "c": q.get(Q_C),
            "axes": q.get(Q_AXES),
            "models": q.get(Q_MODELS),
        },
    )
    for k, o in SEL_KEYS:
        out[o] = sel[k] or None
    out["set_models"] = sel["models"]
    return sel


def idle(trig: Any, page: str) -> bool:
    """The request is a change of a closed view's control (e.g. a model ticked in the grid while
    the Compare view is closed): there is nothing to answer."""
    if trig == ids.COMPARE_MODELS:
        return page != ids.PAGE_COMPARE
    return trig in CONTROLS and page != ids.PAGE_EXPLORE


def query_tail(query: str, page: str, sel: dict[str, Any]) -> str:
    """The URL query plus the open view's selection (only what differs from the defaults)."""
    parts: list[tuple[str, str]] = []
    if page == ids.PAGE_EXPLORE:
        parts = [(Q_X, sel["x"]), (Q_Y, sel["y"])]
        parts += [
            (q, sel[k]) for q, k in ((Q_C, "c"), (Q_AXES, "axes")) if sel[k] not in ("", "auto")
        ]
    elif page == ids.PAGE_COMPARE and sel["models"]:
        parts = [(Q_MODELS, ",".join(sel["models"]))]
    if not parts:
        return query
    tail = urlencode(parts)
    return (query + "&" + tail) if query else "?" + tail


# ------------------------------------------------------------------------------------------------
# layout
# ------------------------------------------------------------------------------------------------


def options(cache) -> list[dict[str, str]]:
    """The x and y dropdowns' options: every quantity."""
    return [
        {"label": label, "value": v}
        for v, label in ex.quantity_options(cache.defaults, cache.raw.attributes)
    ]


def layout(cache) -> list:
    """The Explore and Compare panels (hidden until their view opens)."""
    # the options and values come when the view opens (fill; a value without its option would
    # be cleared by the dropdown); until then the selection is the defaults
    opts: list = []
    attrs = cache.raw.attributes
    copts = [] if attrs is None else [{"label": str(a), "value": str(a)} for a in attrs.columns]
    controls = html.Div(
        [
            html.Label(
                ["x", dcc.Dropdown(id=ids.EXPLORE_X, options=opts, value=None, clearable=False)],
                className="ex-field",
            ),
            html.Label(
                ["y", dcc.Dropdown(id=ids.EXPLORE_Y, options=opts, value=None, clearable=False)],
                className="ex-field",
            ),
            html.Label(
                [
                    "colour",
                    dcc.Dropdown(id=ids.EXPLORE_C, options=copts, value=None, placeholder="none"),
                ],
                className="ex-field",
            ),
            html.Div(  # not a label: its radio buttons have their own
                [
                    "axes",
                    dcc.RadioItems(
                        id=ids.EXPLORE_AXES, options=list(AXES), value="auto", inline=True
                    ),
                ],
                className="ex-field ex-axes",
                **{a11y.ATTR_GROUP: "Explore axes"},
                title="auto: a log axis when the values span more than three decades",
            ),
        ],
        className="ex-controls",
    )
    explore = html.Section(
        [
            html.H3("Explore"),
            controls,
            html.Div(id=ids.EXPLORE_HOLDER, className="ex-holder"),
            plots.holder(ids.EXPLORE_SPEC),
            html.Div(id=ids.EXPLORE_CARD, className="ex-card"),
        ],
        id=ids.EXPLORE_WRAP,
        className="ex-panel",
        style=HIDDEN,
    )
    return [explore, compare.layout(cache), *plots.stores(), compare.bar()]


# ------------------------------------------------------------------------------------------------
# the scatter
# ------------------------------------------------------------------------------------------------


def _numeric_axis(vals: np.ndarray, mode: str) -> str:
    v = vals[np.isfinite(vals)]
    if mode == "linear" or v.size == 0 or (v <= 0).any():
        return "linear"
    if mode == "log":
        return "log"
    return "log" if v.max() / v.min() > WIDE else "linear"


def _fmt(q: ex.Quantity, v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if q.kind in ("score", ex.OVERALL):
        return fmt_score(v)
    if q.kind == ex.RANK:
        return str(int(v))
    if q.kind == "raw":
        return fmt_raw(v) + (f" {q.unit}" if q.unit else "")
    return fmt_raw(v) if isinstance(v, float) else str(v)


def _present(kind: str, v) -> bool:
    if kind == ex.NUMBER:
        return v is not None and math.isfinite(v)
    return v is not None


def _colour_traces(points: Callable[..., dict], kind: str, cs: list, colour: str) -> list[dict]:
    """The points coloured by an attribute (``cs``: its value at each point): one trace on a
    colour scale for a number or a date, else one trace per value (the most frequent
    :data:`MAX_COLOURS` - 1 values, the rest as "other")."""
    every = list(range(len(cs)))
    if kind == ex.NUMBER or kind == ex.DATE:
        cnum = [
            (v if kind == ex.NUMBER else pd.Timestamp(v).year + pd.Timestamp(v).day_of_year / 366)
            if _present(kind, v)
            else None
            for v in cs
        ]
        bar = dict(title=dict(text=plots.esc(colour)))
        return [points(every, "", color=cnum, colorscale="Viridis", showscale=True, colorbar=bar)]
    counts = pd.Series([c if c is not None else "—" for c in cs]).value_counts()
    top = list(counts.index[: MAX_COLOURS - 1]) if len(counts) > MAX_COLOURS else list(counts.index)
    groups: dict[str, list[int]] = {}
    for n, c in enumerate(cs):
        c = c if c is not None else "—"
        groups.setdefault(c if c in top else "other", []).append(n)
    ordered = sorted(groups.items(), key=lambda t: t[0].lower())
    return [
        points(members, plots.esc(label), color=plots.PALETTE[g % len(plots.PALETTE)])
        for g, (label, members) in enumerate(ordered)
    ]


def _front_trace(x: list, y: list) -> dict:
    """The Pareto front's line through the points ``(x, y)``."""
    return dict(
        type="scatter",
        mode="lines",
        x=x,
        y=y,
        name="Pareto front",
        line=dict(color=plots.FRONT, width=2),
        hoverinfo="skip",
    )


def _set_axis_type(a: dict, q: ex.Quantity, kind: str, vals: list, axes: str) -> None:
    """The type of axis ``a`` for the values ``vals`` of ``q``."""
    if kind == ex.NUMBER:
        # scores live in [0, 1]: a log axis only when asked; raw values, ranks and
        # attributes get one automatically beyond three decades
        mode = "linear" if axes == "auto" and q.kind in ("score", ex.OVERALL) else axes
        a["type"] = _numeric_axis(np.asarray(vals, float), mode)
        if a["type"] == "linear" and q.kind in ("score", ex.OVERALL):
            # the whole score range, fixed: an edit moves the points, not the axis (and
            # plots.js can then move them without redrawing the axes)
            a["range"] = list(SCORE_RANGE)
            a["autorange"] = False
    elif kind == ex.DATE:
        a["type"] = "date"
    else:
        a["type"] = "category"
        a["categoryorder"] = "category ascending"


def _scatter_title(n_kept: int, n_all: int, n_front: int, directed: bool) -> str:
    """How many models the scatter shows of how many, and its Pareto front's size (none
    when an axis has no direction)."""
    title = f"{n_kept} of {n_all} models" + (
        "" if n_kept == n_all else " (the others lack a value)"
    )
    if n_front:
        title += f" · Pareto front (line): {n_front}"
    elif n_kept and not directed:
        title += " · no Pareto front (an attribute has no direction)"
    return title


def scatter_figure(
    scores,
    xq: ex.Quantity,
    yq: ex.Quantity,
    models: list[str],
    names: dict[str, str],
    *,
    attributes=None,
    colour: str = "",
    axes: str = "auto",
    theme: str = "light",
) -> dict:
    """The scatter of ``yq`` against ``xq`` for ``models`` (plain dict figure)."""
    pos = {m: i for i, m in enumerate(scores.models)}
    ix = [pos[m] for m in models if m in pos]
    xk, xall = ex.quantity_values(scores, xq, attributes)
    yk, yall = ex.quantity_values(scores, yq, attributes)
    ranks, tied = np.asarray(scores.ranks), np.asarray(scores.tied)
    keep = [i for i in ix if _present(xk, xall[i]) and _present(yk, yall[i])]
    xs = [xall[i] for i in keep]
    ys = [yall[i] for i in keep]
    keys = [scores.models[i] for i in keep]
    rank_txt = ["no score" if np.isnan(ranks[i]) else rank_text(ranks[i], tied[i]) for i in keep]
    hover = [
        f"<b>{plots.esc(names.get(k, k))}</b><br>{plots.esc(xq.label)}: {plots.esc(_fmt(xq, x))}"
        f"<br>{plots.esc(yq.label)}: {plots.esc(_fmt(yq, y))}<br>rank: {r}"
        for k, x, y, r in zip(keys, xs, ys, rank_txt, strict=True)
    ]
    kind = point_trace_type(len(keep))
    # plain points: an outline (or a marker opacity) per point is a fifth of a redraw
    marker = dict(size=9 if len(keep) <= 200 else 6)
    traces: list[dict] = []

    def points(members: list[int], name: str, **marker_extra) -> dict:
        """One trace of the points at ``members`` (positions in ``keep``)."""
        return dict(
            type=kind,
            mode="markers",
            hovertemplate="%{text}<extra></extra>",
            x=[xs[n] for n in members],
            y=[ys[n] for n in members],
            text=[hover[n] for n in members],
            customdata=[keys[n] for n in members],
            name=name,
            marker=dict(marker, **marker_extra),
        )

    every = list(range(len(keep)))
    if colour and attributes is not None and colour in attributes.columns:
        ck, call = ex.attribute_column(attributes, colour, scores.models)
        traces += _colour_traces(points, ck, [call[i] for i in keep], colour)
    else:
        traces.append(points(every, "models", color=plots.PALETTE[0]))
    front: list[int] = []
    if xq.better and yq.better and keep:
        front = ex.pareto_front(xs, ys, xq.better, yq.better)
        traces.append(_front_trace([xs[n] for n in front], [ys[n] for n in front]))
    xa = plots.axis(theme, title=dict(text=plots.esc(xq.label)))
    ya = plots.axis(theme, title=dict(text=plots.esc(yq.label)))
    for a, q, k, vals in ((xa, xq, xk, xs), (ya, yq, yk, ys)):
        _set_axis_type(a, q, k, vals, axes)
    title = _scatter_title(len(keep), len(ix), len(front), bool(xq.better and yq.better))
    return dict(
        data=traces,
        layout=plots.layout(
            theme,
            xaxis=xa,
            yaxis=ya,
            title=dict(text=plots.esc(title), font=dict(size=13), x=0.01),
            # a legend for the colours only (drawing one costs a quarter of a redraw)
            showlegend=bool(colour) and len(traces) > 1,
            uirevision=f"{xq.text}|{yq.text}|{colour}|{axes}",
        ),
    )


def _json_values(kind: str, values: list) -> list:
    """An attribute's values for JSON: a number that is not finite is missing (None)."""
    if kind != ex.NUMBER:
        return list(values)
    return [float(v) if v is not None and math.isfinite(v) else None for v in values]


def _quantity_spec(q: ex.Quantity, attributes, models) -> dict:
    """What the browser needs of a quantity to draw it (``assets/explorefig.js``): its names,
    direction and kind; an attribute's values too (a score's come from the live result)."""
    out = dict(
        text=q.text,
        kind=q.kind,
        path=q.path,
        label=q.label,
        better=q.better,
        unit=q.unit,
        vkind=ex.NUMBER,
    )
    if q.kind == "attr":
        kind, values = ex.attribute_column(attributes, q.path, models)
        out["vkind"], out["values"] = kind, _json_values(kind, values)
    return out


def scatter_spec(cfg, attributes, models, sel: dict[str, Any]) -> dict:
    """The selection of the scatter as ``assets/liveexplore.js`` draws it after an edit: the
    quantities (:func:`_quantity_spec`), the colour attribute's values per model of ``models``
    (None when there is no such attribute), the axes and ``rev`` (the figure's uirevision)."""
    xq = ex.parse_quantity(cfg, sel["x"], attributes)
    yq = ex.parse_quantity(cfg, sel["y"], attributes)
    c = sel["c"] or ""
    colour = None
    if c and attributes is not None and c in attributes.columns:
        kind, values = ex.attribute_column(attributes, c, models)
        colour = dict(name=c, kind=kind, values=_json_values(kind, values))
    return dict(
        x=_quantity_spec(xq, attributes, models),
        y=_quantity_spec(yq, attributes, models),
        colour=colour,
        colourText=c,
        axes=sel["axes"],
        rev=f"{xq.text}|{yq.text}|{c}|{sel['axes']}",
    )


# ------------------------------------------------------------------------------------------------
# the edit callback's part
# ------------------------------------------------------------------------------------------------


def new_selection() -> bool:
    """The request (a Dash callback's) changes what the scatter shows (a control or a link):
    its whole figure."""
    return ctx.triggered_id in CONTROLS or any(
        t.startswith(ids.URL + ".") for t in ctx.triggered_prop_ids
    )


def _fill_explore(out: dict[str, Any], cache, scores, sel: dict, shown: list[str], **kw) -> None:
    """The scatter, drawn here only when its graph is made or its selection changes (then with
    the selection for the browser, ``scatter_spec``): the browser redraws it from the live
    result after every other change (an edit, a reset, a filter: ``assets/liveexplore.js``)."""
    graphs, view_changed = kw["graphs"], kw["view_changed"]
    if view_changed:
        out["opts_x"] = out["opts_y"] = options(cache)
        out["set_x"], out["set_y"] = sel["x"], sel["y"]
    if plots.EXPLORE in graphs and not view_changed and not kw["selection_changed"]:
        return
    attrs = cache.raw.attributes
    xq = ex.parse_quantity(cache.defaults, sel["x"], attrs)
    yq = ex.parse_quantity(cache.defaults, sel["y"], attrs)
    fig = scatter_figure(
        scores,
        xq,
        yq,
        shown,
        cache.display,
        attributes=attrs,
        colour=sel["c"],
        axes=sel["axes"],
        theme=kw["theme"],
    )
    plots.put(
        out, "ex_fig", ids.EXPLORE_GRAPH, plots.EXPLORE, fig, graphs, view_changed, kw["held"]
    )
    out["ex_spec"] = scatter_spec(cache.defaults, attrs, cache.models, sel)


def fill(
    out: dict[str, Any],
    *,
    cache,
    scores,
    page: str,
    view: str,
    is_bench: bool,
    sel: dict,
    models: list[str] | None,
    view_changed: bool,
    theme: str = "light",
    graphs: set[str] | frozenset[str] = frozenset(),
    held: Any = None,
    selection_changed: bool = False,
) -> None:
    """Set the extra outputs for the open view (nothing is computed for a closed one).
    ``graphs``: the plots that exist in the page (their figure alone is sent, ``plots.put``);
    ``held``: the signatures of the figures the ``plot-figs`` store holds (``plots.HELD``);
    ``selection_changed``: the request changes what the scatter shows (:func:`new_selection`).
    The scatter and the radar follow the live result in the browser (``_fill_explore``,
    ``compare.fill``)."""
    shown = list(models) if models is not None else list(cache.models)
    names = cache.display
    if view_changed:
        out["ex_style"] = {} if page == ids.PAGE_EXPLORE else HIDDEN
        out["cmp_style"] = {} if page == ids.PAGE_COMPARE else HIDDEN
    if page == ids.PAGE_EXPLORE:
        _fill_explore(
            out,
            cache,
            scores,
            sel,
            shown,
            graphs=graphs,
            view_changed=view_changed,
            selection_changed=selection_changed,
            held=held,
            theme=theme,
        )
    elif page == ids.PAGE_COMPARE:
        picked = sel["models"] or compare.default_models(scores, shown)
        compare.fill(out, scores, picked, names, graphs, view_changed, theme=theme, held=held)
    if is_bench and view:
        fig = compare.bench_figure(scores, view, shown, names, theme=theme)
        plots.put(
            out,
            "bench_fig",
            ids.BENCH_FIG,
            plots.BENCH,
            fig,
            graphs,
            view_changed,
            held,
            parts=compare.bench_parts(fig),
            height=360,
        )
    elif view_changed:
        out["bench_fig"] = None


def register(app, cache) -> None:
    """A click on a point opens its model's card; the plots follow edits (``plots.register``,
    ``assets/liveexplore.js``); the grid's ticks pick the compared models
    (``compare.register``)."""
    plots.register(app)
    compare.register(app)
    # the scatter and the radar redrawn in the browser from the live result (liveexplore.js):
    # the scatter's selection, the open view and the compared models it draws
    app.clientside_callback(
        ClientsideFunction("mplLiveExplore", "spec"),
        Input(ids.EXPLORE_SPEC, ids.HELD),
    )
    app.clientside_callback(
        ClientsideFunction("mplLiveExplore", "options"),
        Input(ids.VIEW, "data"),
        Input(ids.COMPARE_MODELS, "value"),
    )

    @app.callback(
        Output(ids.EXPLORE_CARD, "children"),
        Input(ids.plot_graph(plots.EXPLORE), "clickData"),
        prevent_initial_call=True,
    )
    def card(click):
        try:
            key = click["points"][0]["customdata"]
        except (TypeError, KeyError, IndexError):
            return no_update
        if not isinstance(key, str) or key not in set(cache.models):
            return no_update
        return html.Div(modelcard.card(cache.raw.attributes, key), className="model-card")
