"""The legend of the breakdown bars (above the grid: the parts of the view and their colours)
and the model card's breakdown, filled in the browser from the live result
(``assets/contrib.js``). The bars' column is :mod:`ml_peg_like.dashboard.contrib`'s."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, html

from .. import ids
from ..contrib import legend_items
from ..tables import canonical_view


def legend(cfg, view: str) -> list:
    """The legend of ``view``'s bars: a swatch and a name per part (nothing for a benchmark
    view, which has no bars)."""
    items = legend_items(cfg, view)
    if not items:
        return []
    what = "Breakdown: each category's share of the overall score" if not view else (
        f"Breakdown: each benchmark's share of the {view} score"
    )
    return [
        html.Span(what, className="contrib-legend-title"),
        html.Ul(
            [
                html.Li(
                    [
                        html.Span(
                            className="contrib-swatch",
                            style={"backgroundColor": colour},
                            **{"aria-hidden": "true"},
                        ),
                        name,
                    ]
                )
                for name, colour in items
            ]
        ),
    ]


def layout(cfg) -> html.Div:
    """The legend's place (the overview's legend first)."""
    return html.Div(legend(cfg, ""), id=ids.CONTRIB_LEGEND, className="contrib-legend")


def card_part(key: str) -> html.Div:
    """The model card's breakdown: filled by ``assets/contrib.js`` (the live result's numbers)."""
    return html.Div(className=ids.CLASS_CONTRIB_CARD, **{ids.ATTR_CONTRIB_MODEL: key})


def register(app, cache) -> None:
    """The legend follows the view; the card's breakdown is filled once Dash has drawn it."""

    @app.callback(
        Output(ids.CONTRIB_LEGEND, "children"),
        Input(ids.VIEW, "data"),
        prevent_initial_call=True,
    )
    def follow(view):
        path = view.get(ids.VIEW_PATH, "") if isinstance(view, dict) else ""
        cfg = cache.defaults
        return legend(cfg, canonical_view(cfg, path if isinstance(path, str) else ""))

    app.clientside_callback(
        ClientsideFunction("mplContrib", "card"),
        Input(ids.MODEL_CARD_BODY, "children"),
    )
