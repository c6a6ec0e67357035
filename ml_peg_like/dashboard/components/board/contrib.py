"""The legend of the breakdown bars (above the grid: the parts of the view and their colours)
and the model card's breakdown, filled in the browser from the live result
(``assets/contrib.js``). The bars' column is :mod:`ml_peg_like.dashboard.contrib`'s."""

from __future__ import annotations

from dash import ClientsideFunction, Input, html

from ... import ids
from ...contrib import legend_items, parts_of


def legend(cfg, view: str) -> list:
    """The legend of ``view``'s bars: a swatch and a name per part (nothing for a benchmark
    view, which has no bars)."""
    found = parts_of(cfg, view)
    items = legend_items(cfg, view)
    if found is None or not items:
        return []
    what = (
        "Breakdown: each category's share of the overall score"
        if not found[0]
        else f"Breakdown: each benchmark's share of the {found[0]} score"
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


def register(app) -> None:
    """The card's breakdown is filled once Dash has drawn the card (the legend follows the view
    in the edit callback's answer: ``edit._grid_part``)."""
    app.clientside_callback(
        ClientsideFunction("mplContrib", "card"),
        Input(ids.MODEL_CARD_BODY, "children"),
    )
