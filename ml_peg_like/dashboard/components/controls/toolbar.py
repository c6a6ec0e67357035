"""The toolbar: model and attribute filters, presets, reset all, the digits of the scores,
exports and the settings upload. Its own callbacks are the exports (one per button, run only on
a click; the paper exports come from :mod:`ml_peg_like.io.report`, as the CLI's) and the digits
(in the browser: ``assets/digits.js``)."""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
from collections.abc import Mapping

from dash import ALL, ClientsideFunction, Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from ....errors import ConfigError
from ....io.export import settings_yaml, tables_csv_zip
from ....io.latex import report_latex
from ....io.provenance import baseline_record, provenance_of_scores
from ....io.report import build_report, safe_file_stem
from ....io.xlsx import report_xlsx
from ....numfmt import MAX_DIGITS, SCORE_DIGITS, clean_digits
from ....serving.server import MAX_UPLOAD_BYTES, UPLOAD_LIMIT_TEXT
from ... import a11y, ids
from ...cache import ScoreCache
from ...state import (
    MAX_STATE_CHARS,
    Q_BASE,
    Changes,
    clean_changes,
    clean_filters,
    filtered_models,
    parse_query,
    read_baseline,
)
from .inputs import attr_selection

#: why a file above the limit is refused (by the server, and in the browser: ``assets/upload.js``)
UPLOAD_TOO_BIG = f"the file is larger than {UPLOAD_LIMIT_TEXT}, the limit of a settings upload"

_EXPORT_BUTTONS = {
    "csv": (
        "CSV",
        "Score tables of every level as CSV files in a zip, with settings.yml and provenance.json",
    ),
    "xlsx": (
        "Excel",
        "One workbook: Overall in rank order, Categories, Benchmarks, Metrics (raw values "
        "and units beside the scores) and the Settings that made them",
    ),
    "latex": (
        "LaTeX",
        "A booktabs table of rank, model, overall and the categories that count (best in "
        "bold), one number of decimals per column from the digits chosen; the provenance in "
        "a comment block",
    ),
    "yaml": (
        "Config YAML",
        "The current settings as a config file (ml-peg-like score accepts it)",
    ),
}


#: the digits the page offers
DIGIT_CHOICES = range(2, MAX_DIGITS - 1)


def shown_text(n_shown: int, n_all: int) -> str:
    """What the count beside the filters says."""
    if n_shown == n_all:
        return f"All {n_all} models shown"
    return f"{n_shown} of {n_all} models shown"


def layout(
    models,
    filters: Mapping[str, list[str]],
    presets,
    names: Mapping[str, str] | None = None,
    *,
    model_options: list[dict] | None = None,
) -> list:
    """The toolbar's children: ``models`` to pick from (shown by ``names``: ``{key: display
    name}``), attribute ``filters`` ``{name: values}``, the config's ``presets`` (names).
    ``model_options``: the model filter's first options when not every model (a large table's
    filter offers the matches of what is typed: ``bigrows``)."""
    parts: list = [
        html.Div(
            [
                html.Label("Models", htmlFor=ids.MODEL_FILTER, className="tlabel"),
                dcc.Dropdown(
                    id=ids.MODEL_FILTER,
                    options=model_options
                    if model_options is not None
                    else [{"label": (names or {}).get(m, m), "value": m} for m in models],
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
            **{a11y.ATTR_GROUP: "Rank"},
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
            [
                html.Label("Digits", htmlFor=ids.DIGITS, className="tlabel"),
                dcc.Dropdown(
                    id=ids.DIGITS,
                    options=[{"label": str(d), "value": d} for d in DIGIT_CHOICES],
                    value=SCORE_DIGITS,
                    clearable=False,
                    searchable=False,
                    className="digits",
                    style={"width": "64px"},
                ),
                dcc.Store(id=ids.DIGITS_SINK),
            ],
            className="tool",
            title="Significant digits of the scores (grid and LaTeX export; "
            "CSV keeps full precision)",
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
                a11y.file_input(
                    id=ids.UPLOAD,
                    name="Upload a YAML settings file",
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
                html.Span(
                    dcc.Checklist(
                        id=ids.EXPORT_ALL,
                        options=[{"label": "all models", "value": "all"}],
                        value=[],
                        className="export-all",
                        inputStyle={"marginRight": "4px"},
                    ),
                    title="Export every model (otherwise only the models the filter shows)",
                    **{a11y.ATTR_GROUP: "Export scope"},
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


class ExportRequest:
    """What an export needs: the settings, the models to export, the digits and the pinned
    baseline (``baseline``: its changes from the defaults, None when none is pinned)."""

    def __init__(
        self,
        cache: ScoreCache,
        changes: Changes,
        models,
        words: str,
        digits: int,
        baseline: Changes | None = None,
    ):
        self.cfg, self.scores = cache.scores_for(changes)
        self.cache = cache
        self.models = models  # None: every model
        self.words = words  # the filter in words ("" when none)
        self.digits = digits
        self.base_cfg, self.base_scores = cache.scores_for(baseline) if baseline else (None, None)

    @property
    def stem(self) -> str:
        return safe_file_stem(self.cfg.title, _dt.date.today())

    def provenance(self) -> dict:
        """The export's provenance: the files as read at the start, the changes made since."""
        cache = self.cache
        origin = getattr(cache.raw, "origin", None)
        prov = provenance_of_scores(self.scores, origin=origin, defaults=cache.defaults)
        if self.base_cfg is not None:
            prov["baseline"] = baseline_record(cache.defaults, self.base_cfg)
        return prov

    def report(self):
        cache = self.cache
        return build_report(
            self.scores,
            attributes=cache.raw.attributes,
            models=self.models,
            source=f"{cache.defaults.title} ({len(cache.models)} models; ml-peg-like dashboard)",
            defaults=cache.defaults,
            default_scores=cache.default_scores,
            model_filter=self.words or None,
            digits=self.digits,
            origin=getattr(cache.raw, "origin", None),
            baseline=self.base_cfg,
            baseline_scores=self.base_scores,
        )


def _csv(req: ExportRequest):
    data = tables_csv_zip(
        req.scores,
        attributes=req.cache.raw.attributes,
        models=req.models,
        provenance=req.provenance(),
        baseline_scores=req.base_scores,
    )
    return dcc.send_bytes(data, f"{req.stem}_scores.zip")


def _xlsx(req: ExportRequest):
    return dcc.send_bytes(report_xlsx(req.report()), f"{req.stem}.xlsx")


def _latex(req: ExportRequest):
    return dcc.send_string(report_latex(req.report()), f"{req.stem}.tex")


def _yaml(req: ExportRequest):
    return dcc.send_string(settings_yaml(req.cfg, req.provenance()), f"{req.stem}_config.yml")


_EXPORTS = {"csv": _csv, "xlsx": _xlsx, "latex": _latex, "yaml": _yaml}


def export_models(cache: ScoreCache, picks, attrs, export_all) -> tuple[list[str] | None, str]:
    """The models an export holds (None: all) and the filter in words."""
    if isinstance(export_all, list) and "all" in export_all:
        return None, ""
    filters = clean_filters(
        {ids.FILTER_PICKS: picks, ids.FILTER_ATTRS: attrs}, cache.models, cache.attr_options
    )
    shown = filtered_models(filters, cache.models, cache.attr_values)
    if shown is None:
        return None, ""
    parts = []
    if filters.get(ids.FILTER_PICKS):
        parts.append(f"{len(filters[ids.FILTER_PICKS])} picked")
    for name, vals in (filters.get(ids.FILTER_ATTRS) or {}).items():
        parts.append(f"{name}: {', '.join(vals)}")
    return shown, "filter " + "; ".join(parts)


def register(app, cache: ScoreCache) -> None:
    """The export callbacks (the current settings' tables or config, of the models the filter
    shows unless "all models" is ticked, on a button's click) and the digits control."""
    for kind in ids.EXPORTS:
        _register_download(app, cache, kind, _EXPORTS[kind])
    app.clientside_callback(
        ClientsideFunction("mplfmt", "setDigits"),
        Output(ids.DIGITS_SINK, "data"),
        Input(ids.DIGITS, "value"),
    )


#: the longest page query an export reads its baseline from (actions.MAX_QUERY_CHARS)
MAX_QS_CHARS = MAX_STATE_CHARS + 4000


def _register_download(app, cache: ScoreCache, kind: str, fn) -> None:
    @app.callback(
        Output(ids.download(kind), "data"),
        Input(ids.download_button(kind), "n_clicks"),
        State(ids.CHANGES, "data"),
        State(ids.MODEL_FILTER, "value"),
        State(ids.attr(ALL), "value"),
        State(ids.EXPORT_ALL, "value"),
        State(ids.DIGITS, "value"),
        State(ids.QS, "data"),  # the pinned baseline (b=) of the page's query
        prevent_initial_call=True,
    )
    def download(_n, changes, picks, _attrs, export_all, digits, qs):
        from dash import ctx

        try:
            attrs = attr_selection(ctx.args_grouping[3])
            models, words = export_models(cache, picks, attrs, export_all)
            changes = clean_changes(cache.defaults, changes)
            query = qs if isinstance(qs, str) and len(qs) <= MAX_QS_CHARS else ""
            baseline = read_baseline(cache.defaults, parse_query(query).get(Q_BASE))
            req = ExportRequest(cache, changes, models, words, clean_digits(digits), baseline)
            return fn(req)
        except (ConfigError, ValueError):
            raise PreventUpdate from None
