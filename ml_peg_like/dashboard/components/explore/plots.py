"""What every plot of the Explore, Compare and benchmark figures shares, chosen in ONE place:
the theme (light and dark Plotly layouts), the graph's config (PNG/SVG download through Plotly's
own modebar), the models' display names, and how a plot follows an edit.

A plot's graph is created once (when its view opens); later edits send only its figure, in the
``plot-figs`` holder ({name: figure}, ``holder``), which ``assets/plots.js`` applies (``Plotly.react``, the
same ``uirevision`` keeps zoom) after the browser has painted the updated table (the curve's
pattern: the table is what an edit is for). A figure given its changing parts (the benchmark
figure's) is sent as the curve's is (``figpatch``): nothing when it did not change, a Dash
``Patch`` of the holder's entry when only those parts did, told by the ``plot-sig`` holder."""

from __future__ import annotations

import html as _html
from typing import Any

from dash import ALL, ClientsideFunction, Input, Output, Patch, State, dcc, html, no_update

from ... import figpatch, ids
from ...figures import FONT

#: the themes: page colours of assets/style.css for a light and a dark page
THEMES: dict[str, dict[str, str]] = {
    "light": dict(fg="#1f2328", bg="#ffffff", grid="#eaeef2", line="#d0d7de", muted="#59636e"),
    "dark": dict(fg="#e6edf3", bg="#0d1117", grid="#21262d", line="#30363d", muted="#9198a1"),
}
#: the models' colours (Okabe-Ito, readable on both themes)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"]
FRONT = "#d62728"
IMAGE_FORMATS = ("png", "svg")
NAME_COLUMN = "display_name"
#: the plots' names (the graph's pattern id and the download's file name)
EXPLORE, COMPARE, BENCH = ids.PLOT_EXPLORE, ids.PLOT_COMPARE, "benchmark"
#: the edit callback's state: the names of the plots that exist in the page
EXISTING = State(ids.plot_graph(ALL), "id")
FIGS = Output(ids.PLOT_FIGS, ids.HELD)
#: the signatures of the figures the ``plot-figs`` holder holds (``figpatch``; edits patch them)
SIG = Output(ids.PLOT_SIG, ids.HELD)
HELD = State(ids.PLOT_SIG, ids.HELD)


def existing(graph_ids) -> set[str]:
    """The names of the plots in the page (from the ``EXISTING`` state)."""
    if not isinstance(graph_ids, list):
        return set()
    return {g.get(ids.KEY_INDEX) for g in graph_ids if isinstance(g, dict)} - {None}


def holder(id_: str) -> html.Div:
    """What an edit writes for the browser or the next request, as the ``ids.HELD`` prop of a
    hidden element instead of a ``dcc.Store``'s ``data``: the same callback input / state /
    output (a Dash ``Patch`` applies alike), without what a Store does on each new value -- a
    deep comparison with its last value (ramda ``equals``) and a ``modified_timestamp`` echo:
    one more store notification per holder written, which runs every component's selector
    (4 of an ML-PEG edit's 77 notifications)."""
    return html.Div(id=id_, hidden=True, **{ids.HELD: None})


def stores() -> list:
    return [holder(ids.PLOT_FIGS), holder(ids.PLOT_SIG)]


def esc(s: Any) -> str:
    """Data as text in Plotly's pseudo-HTML labels (``& < >`` escaped)."""
    return _html.escape(str(s), quote=False)


def axis(theme: str = "light", **kw) -> dict:
    t = THEMES.get(theme, THEMES["light"])
    out = dict(
        gridcolor=t["grid"],
        linecolor=t["line"],
        zeroline=False,
        ticks="outside",
        tickcolor=t["line"],
        automargin=True,
        # no check of tick labels running past the plot (a fifth of a redraw's time;
        # automargin makes room for them)
        ticklabeloverflow="allow",
    )
    out.update(kw)
    return out


def layout(theme: str = "light", **kw) -> dict:
    """A figure's layout in the page's theme."""
    t = THEMES.get(theme, THEMES["light"])
    out = dict(
        height=460,
        margin=dict(l=70, r=24, t=48, b=60),
        font=dict(family=FONT, size=13, color=t["fg"]),
        paper_bgcolor=t["bg"],
        plot_bgcolor=t["bg"],
        hovermode="closest",
        hoverlabel=dict(font=dict(family=FONT, size=12)),
        legend=dict(bgcolor="rgba(0,0,0,0)"),
    )
    out.update(kw)
    return out


def graph(wrap_id: str, figure: dict, name: str, fmt: str = "png", height: int = 460) -> html.Div:
    """The plot ``name`` (its graph's id ``plot_graph(name)``, in a div ``wrap_id``) whose
    modebar's camera downloads the figure as ``fmt`` (PNG at twice the size, or SVG), with a
    PNG and an SVG button below it (Plotly's own export, ``assets/plots.js``)."""
    fmt = fmt if fmt in IMAGE_FORMATS else "png"
    buttons = [
        html.Button(
            f.upper(),
            className=f"btn small {ids.CLASS_PLOT_DL}",
            title=f"Download this plot as {f.upper()}",
            **{"data-format": f, "data-name": name},
        )
        for f in IMAGE_FORMATS
    ]
    return html.Div(
        [
            dcc.Graph(
                id=ids.plot_graph(name),
                figure=figure,
                config={
                    "displaylogo": False,
                    "responsive": True,
                    "toImageButtonOptions": {"format": fmt, "filename": name, "scale": 2},
                },
                style={"height": f"{height}px"},
            ),
            html.Div([html.Span("Download", className="muted"), *buttons], className="plot-tools"),
        ],
        id=wrap_id,
    )


def put(
    out: dict,
    key: str,
    wrap_id: str,
    name: str,
    figure: dict,
    exists: set,
    fresh: bool,
    held: Any = None,
    parts: list[tuple] | None = None,
    **kw,
) -> None:
    """The plot ``name`` into ``out``: when its graph exists and stays, what changed of its
    figure (``plot_figs``), else a new graph as ``out[key]`` (the holder's children).
    ``held``: the ``plot-sig`` store ({name: signature} of the figures ``plot-figs`` holds);
    ``parts``: the paths of the figure an edit may change (``figpatch``). With both, an edit
    sends nothing when the figure is the same, a Patch of the parts that changed when only they
    did, else the whole figure; without ``parts`` always the whole figure."""
    held = held if isinstance(held, dict) else {}
    figs = out.get("plot_figs")
    figs = None if figs is no_update else figs  # the edit callback starts with no_update
    if name not in exists or fresh:
        out[key] = graph(wrap_id, figure, name, **kw)
        if held and figs is None:
            out["plot_sig"] = None  # the graphs no longer show what the store holds
        return
    sig = None
    if parts is not None:
        answer, sig = figpatch.update(figure, held.get(name), parts, root=(name,))
        if figs is None and set(held) == {name}:  # the store holds this figure alone
            if answer is no_update:
                return
            if isinstance(answer, Patch):
                out["plot_figs"], out["plot_sig"] = answer, {name: sig}
                return
    sigs = out.get("plot_sig") if figs is not None else None
    sigs = dict(sigs if isinstance(sigs, dict) else {}, **({name: sig} if sig else {}))
    if isinstance(figs, Patch):  # another figure of this edit was patched: the store keeps it
        figs[name] = figure
    else:
        out["plot_figs"] = dict(figs if isinstance(figs, dict) else {}, **{name: figure})
    out["plot_sig"] = sigs or None


def register(app) -> None:
    """The figures in the store are drawn after the browser has painted the table."""
    app.clientside_callback(
        ClientsideFunction("mplPlots", "draw"),
        Output(ids.plot_graph(ALL), "figure"),
        Input(ids.PLOT_FIGS, ids.HELD),
        prevent_initial_call=True,
    )
