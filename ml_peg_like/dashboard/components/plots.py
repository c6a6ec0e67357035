"""What every plot of the Explore, Compare and benchmark figures shares, chosen in ONE place:
the theme (light and dark Plotly layouts), the graph's config (PNG/SVG download through Plotly's
own modebar) and the models' display names."""

from __future__ import annotations

import html as _html
from typing import Any

from dash import dcc

from ..figures import FONT

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


def graph(id_: str, figure: dict, name: str, fmt: str = "png", height: int = 460) -> dcc.Graph:
    """A graph whose modebar downloads the figure as ``fmt`` (PNG at twice the size, or SVG)."""
    fmt = fmt if fmt in IMAGE_FORMATS else "png"
    return dcc.Graph(
        id=id_,
        figure=figure,
        config={
            "displaylogo": False,
            "responsive": True,
            "toImageButtonOptions": {"format": fmt, "filename": name, "scale": 2},
        },
        style={"height": f"{height}px"},
    )
