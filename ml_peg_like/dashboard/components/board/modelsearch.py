"""The model pickers of a large board search on the server.

A ``dcc.Dropdown`` given every model of a 10,000-model board indexes every name for its search
when the page starts (~1.4 s of the browser's main thread in a profile) and draws a long list.
Above :data:`LARGE_BOARD` models the model filter and the what-if picker hold only the first
:data:`SEARCH_LIMIT` models; what is typed is answered by a small server callback on the
dropdown's documented ``search_value`` prop (:func:`model_options`: the matches of the key or
the display name, after the models already picked, which a dropdown must keep as options)."""

from __future__ import annotations

from dash import Input, Output
from dash.exceptions import PreventUpdate

from ... import ids

#: above this many models a board's pickers search on the server
LARGE_BOARD = 2000
#: the options offered while searching (plus the models already picked)
SEARCH_LIMIT = 50
#: the dropdowns of models that search (those a page has)
SEARCHED = (ids.MODEL_FILTER, ids.WHATIF_MODEL)


def is_large(n_models: int) -> bool:
    return n_models > LARGE_BOARD


def model_options(models, names, search, picked, limit: int = SEARCH_LIMIT) -> list[dict]:
    """The options of a model picker: the ``picked`` models (always, so the box shows them),
    then the models whose key or display name contains ``search`` (case-insensitive; the first
    ``limit``)."""
    names = names or {}
    known = set(models)
    picked = [m for m in (picked if isinstance(picked, list) else [])[:1000] if m in known]
    out = [{"label": names.get(m, m), "value": m} for m in picked]
    seen = set(picked)
    q = search.strip().lower()[:200] if isinstance(search, str) else ""
    for m in models:
        if len(out) - len(picked) >= limit:
            break
        if m not in seen and (not q or q in m.lower() or q in names.get(m, m).lower()):
            out.append({"label": names.get(m, m), "value": m})
    return out


def first_options(cache) -> list[dict]:
    """A searched picker's options before anything is typed."""
    return model_options(cache.models, cache.display, "", [])


def register(app, cache) -> None:
    """The search of each :data:`SEARCHED` picker (its typed text, or its value set by a link:
    the picked models stay offered)."""
    for dropdown in SEARCHED:
        _register_one(app, cache, dropdown)


def _register_one(app, cache, dropdown: str) -> None:
    @app.callback(
        Output(dropdown, "options"),
        Input(dropdown, "search_value"),
        Input(dropdown, "value"),
        prevent_initial_call=True,
    )
    def search_models(search, picked):
        if search is not None and not isinstance(search, str):
            raise PreventUpdate
        picked = [picked] if isinstance(picked, str) else picked
        return model_options(cache.models, cache.display, search, picked)
