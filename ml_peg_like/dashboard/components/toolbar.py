"""The toolbar: model and attribute filters, presets, reset all, exports and the settings upload.
Its own callbacks are the exports (one per button, run only on a click)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

from dash import Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from ...config import dump_config
from ...errors import ConfigError
from ...io.export import tables_csv_zip, tables_xlsx
from .. import ids
from ..cache import ScoreCache
from ..server import MAX_UPLOAD_BYTES, UPLOAD_LIMIT_TEXT
from ..state import Changes, clean_changes

#: why a file above the limit is refused (by the server, and in the browser: ``assets/upload.js``)
UPLOAD_TOO_BIG = f"the file is larger than {UPLOAD_LIMIT_TEXT}, the limit of a settings upload"

_EXPORT_BUTTONS = {
    "csv": ("CSV", "Score tables of every level as CSV files in a zip"),
    "xlsx": ("Excel", "Score tables of every level, a sheet each"),
    "yaml": (
        "Config YAML",
        "The current settings as a config file (ml-peg-like score accepts it)",
    ),
}


def shown_text(n_shown: int, n_all: int) -> str:
    """What the count beside the filters says."""
    if n_shown == n_all:
        return f"All {n_all} models shown"
    return f"{n_shown} of {n_all} models shown"


def layout(
    models, filters: Mapping[str, list[str]], presets, names: Mapping[str, str] | None = None
) -> list:
    """The toolbar's children: ``models`` to pick from (shown by ``names``: ``{key: display
    name}``), attribute ``filters`` ``{name: values}``, the config's ``presets`` (names)."""
    parts: list = [
        html.Div(
            [
                html.Label("Models", htmlFor=ids.MODEL_FILTER, className="tlabel"),
                dcc.Dropdown(
                    id=ids.MODEL_FILTER,
                    options=[{"label": (names or {}).get(m, m), "value": m} for m in models],
                    multi=True,
                    placeholder="All models (type to search)",
                    className="model-filter",
                    maxHeight=320,
                ),
            ],
            className="tool grow",
        ),
    ]
    if filters:
        parts.append(
            html.Div(
                [
                    html.Span(
                        "Filter", className="tlabel", title="Show only models with these attributes"
                    )
                ]
                + [
                    html.Div(
                        dcc.Dropdown(
                            id=ids.attr(name),
                            options=[{"label": v, "value": v} for v in values],
                            multi=True,
                            searchable=False,
                            placeholder=name.replace("_", " "),
                        ),
                        className="attr-filter",
                        title=f"Show only the models whose {name} is one of these "
                        "(display only: scores unchanged)",
                    )
                    for name, values in filters.items()
                ],
                className="tool attrs",
            )
        )
    models = list(models)
    parts.append(
        html.Div(
            [
                html.Span(
                    shown_text(len(models), len(models)), id=ids.SHOWN_COUNT, className="count"
                ),
                dcc.Checklist(
                    id=ids.RANK_SHOWN,
                    options=[{"label": "rank within shown", "value": "on"}],
                    value=[],
                    className="rank-shown",
                    inputClassName="rank-shown-box",
                ),
            ],
            className="tool shown",
            title="Rank within shown: ranks among the shown models only (their scores do not "
            "change)",
        )
    )
    presets = list(presets)
    if presets:
        parts.append(
            html.Div(
                [
                    html.Label("Preset", htmlFor=ids.PRESET, className="tlabel"),
                    dcc.Dropdown(
                        id=ids.PRESET,
                        options=[{"label": p, "value": p} for p in presets],
                        placeholder="Choose a preset…",
                        clearable=True,
                        className="preset",
                    ),
                ],
                className="tool",
            )
        )
    else:
        parts.append(html.Div(dcc.Dropdown(id=ids.PRESET, options=[]), style={"display": "none"}))
    parts += [
        html.Div(
            [
                html.Button(
                    "Reset all",
                    id=ids.RESET_ALL,
                    className="btn",
                    n_clicks=0,
                    disabled=True,
                    title="Back to the default settings",
                ),
            ],
            className="tool",
        ),
        html.Div(
            [html.Span("Export", className="tlabel")]
            + [
                html.Button(
                    text, id=ids.download_button(kind), className="btn", n_clicks=0, title=tip
                )
                for kind, (text, tip) in _EXPORT_BUTTONS.items()
            ]
            + [
                dcc.Upload(
                    id=ids.UPLOAD,
                    children=html.Button(
                        "Upload YAML",
                        className="btn",
                        title=f"Apply a config file (same tree, up to {UPLOAD_LIMIT_TEXT})",
                    ),
                    # larger: never read nor sent; assets/upload.js says so in the status line
                    max_size=MAX_UPLOAD_BYTES,
                    accept=".yml,.yaml,text/yaml,application/x-yaml",
                    multiple=False,
                    className="upload",
                ),
            ],
            className="tool",
        ),
    ]
    parts += [dcc.Download(id=ids.download(kind)) for kind in ids.EXPORTS]
    return parts


def decode_upload(contents: str) -> bytes:
    """The bytes of an upload's data URL; ConfigError when it is unreadable, empty or too big."""
    head, _, body = contents.partition(",")
    if not body:
        raise ConfigError("the file could not be read")
    if len(body) > (MAX_UPLOAD_BYTES * 4) // 3 + 8:
        raise ConfigError(UPLOAD_TOO_BIG)
    try:
        data = base64.b64decode(body, validate=False)
    except (binascii.Error, ValueError):
        raise ConfigError("the file could not be decoded") from None
    if len(data) > MAX_UPLOAD_BYTES:
        raise ConfigError(UPLOAD_TOO_BIG)
    if not data.strip():
        raise ConfigError("the file is empty")
    return data


def _csv(cache: ScoreCache, changes: Changes):
    _cfg, scores = cache.scores_for(changes)
    return dcc.send_bytes(tables_csv_zip(scores), "scores.zip")


def _xlsx(cache: ScoreCache, changes: Changes):
    _cfg, scores = cache.scores_for(changes)
    return dcc.send_bytes(tables_xlsx(scores), "scores.xlsx")


def _yaml(cache: ScoreCache, changes: Changes):
    cfg, _scores = cache.scores_for(changes)
    return dcc.send_string(dump_config(cfg), "config.yml")


_EXPORTS = {"csv": _csv, "xlsx": _xlsx, "yaml": _yaml}


def register(app, cache: ScoreCache) -> None:
    """The export callbacks: the current settings' tables or config, on a button's click."""
    for kind in ids.EXPORTS:
        _register_download(app, cache, kind, _EXPORTS[kind])


def _register_download(app, cache: ScoreCache, kind: str, fn) -> None:
    @app.callback(
        Output(ids.download(kind), "data"),
        Input(ids.download_button(kind), "n_clicks"),
        State(ids.CHANGES, "data"),
        prevent_initial_call=True,
    )
    def download(_n, changes):
        try:
            return fn(cache, clean_changes(cache.defaults, changes))
        except (ConfigError, ValueError):
            raise PreventUpdate from None
