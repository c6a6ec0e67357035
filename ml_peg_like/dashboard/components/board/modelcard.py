"""The model card: every attribute ``models.csv`` gives a model, shown when its cell in the grid
is clicked (the cell's tooltip says so). Values are text (Dash escapes them); only http(s)
addresses become links, opened in a new tab without access to this page (``noopener``)."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, ctx, html, no_update
from dash.exceptions import PreventUpdate

from ....models import card_items, display_names
from ... import ids
from ...cache import ScoreCache
from . import contrib

HIDDEN = {"display": "none"}
LINK_REL = "noopener noreferrer"


def layout() -> html.Aside:
    """The (hidden) card: a close button and the body the callback fills."""
    return html.Aside(
        [
            html.Button(
                "×",
                id=ids.MODEL_CARD_CLOSE,
                className="card-close",
                n_clicks=0,
                title="Close",
                **{"aria-label": "Close the model card"},
            ),
            html.Div(id=ids.MODEL_CARD_BODY),
        ],
        id=ids.MODEL_CARD,
        className="model-card",
        style=HIDDEN,
        role="dialog",
        **{"aria-label": "Model card"},
    )


def _value(text: str, link: str | None) -> Any:
    if link is None:
        return text
    return html.A(text, href=link, target="_blank", rel=LINK_REL)


def card(attributes: Any, key: str) -> list:
    """The card's body for model ``key``: its display name, its key, and a row per attribute
    (see :func:`ml_peg_like.models.card_items`)."""
    (name,) = display_names(attributes, [key])
    items = card_items(attributes, key)
    rows: list = []
    for attr, text, link in items:
        rows += [html.Dt(attr.replace("_", " ")), html.Dd(_value(text, link))]
    body: list = [html.H3(name, className="card-name")]
    if name != key:
        body.append(html.Div(["key ", html.Code(key)], className="card-key"))
    body.append(
        html.Dl(rows, className="card-attrs")
        if rows
        else html.P("models.csv gives no attributes for this model.", className="card-none")
    )
    body.append(contrib.card_part(key))  # why its score: filled from the live result
    return body


def register(app, cache: ScoreCache) -> None:
    """A click on a model's cell opens its card; the close button hides it."""

    @app.callback(
        Output(ids.MODEL_CARD_BODY, "children"),
        Output(ids.MODEL_CARD, "style"),
        Input(ids.GRID, "cellClicked"),
        Input(ids.MODEL_CARD_CLOSE, "n_clicks"),
        prevent_initial_call=True,
    )
    def show(cell, _close):
        if ctx.triggered_id == ids.MODEL_CARD_CLOSE:
            return no_update, HIDDEN
        if not isinstance(cell, dict) or cell.get("colId") != ids.COL_MODEL:
            raise PreventUpdate
        key = cell.get("rowId")
        if not isinstance(key, str) or key not in cache.display:
            raise PreventUpdate
        return card(cache.raw.attributes, key), {}
