"""The settings boxes of a view: category weights (overview), benchmark weights (a category),
the thresholds / parameters and weight of every metric (a benchmark). The boxes are inputs and
outputs of the edit callback (one round trip per edit); this module builds them and says how
each box looks after an action (:func:`box_states`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dash import dcc, html, no_update

from .... import aggregation as agg
from ....config import Benchmark, Category, Config
from ... import a11y, ids
from ...state import Changes, display_value, metric_fields, node_value, parse_box, same_value

#: a box's classes: as the defaults, changed, holding a refused value or a value with a problem
BOX = "box"
BOX_MODIFIED = "box modified"
BOX_INVALID = "box invalid"

Problems = Mapping[tuple[str, str], str]  # {(path, field): message}


def _input(
    cfg: Config, defaults: Config, path: str, field: str, changed: bool, problem: str | None
) -> dcc.Input:
    default = display_value(node_value(defaults, path, field))
    return dcc.Input(
        id=ids.box(path, field),
        type="text",
        value=display_value(node_value(cfg, path, field)),
        debounce=True,
        autoComplete="off",
        spellCheck=False,
        className=box_class(changed, problem),
        placeholder=default,
        name=ids.box_name(path, field),
    )


def _policy_box(
    cfg: Config, defaults: Config, name: str, changed: bool, problem: str | None
) -> html.Td:
    """A category's missing-data policy: a box like the others (same id pattern, same edit),
    holding the category's effective policy (its override or the config's)."""
    own = defaults.node(name).missing
    return html.Td(
        dcc.Dropdown(
            id=ids.box(name, "missing"),
            options=[{"label": p, "value": p} for p in agg.POLICIES],
            value=node_value(cfg, name, "missing"),
            clearable=False,
            searchable=False,
            className=box_class(changed, problem),
        ),
        className="policy-cell",
        title=f"Missing data in {name} (default: {own or defaults.missing}"
        + (", its own override)" if own else ", the config's policy)"),
    )


def box_class(changed: bool, problem: str | None = None) -> str:
    """The classes of a box: red when its value has a problem, marked when changed."""
    if problem:
        return BOX_INVALID
    return BOX_MODIFIED if changed else BOX


def _reset_button(path: str, name: str) -> html.Button:
    return html.Button(
        "↺",
        id=ids.by_path(ids.T_RESET, path),
        className="reset-one",
        title="Reset this row to the defaults",
        n_clicks=0,
        **{"aria-label": f"Reset {name} to the defaults"},
    )


def _named(spoken: str, box: Any) -> html.Label:
    """A box inside a label that gives it ``spoken`` as its name (read, not shown): the box
    keeps its ``name`` attribute (``PATH.FIELD``)."""
    return html.Label([a11y.hidden_text(spoken), box], className="box-label")


def row_message(path: str, problems: Problems) -> str:
    """The message of a row: the problems of its boxes ("" when none)."""
    return "; ".join(m for (p, _f), m in problems.items() if p == path)


def _msg(path: str, problems: Problems) -> html.Div:
    return html.Div(row_message(path, problems), id=ids.by_path(ids.T_MSG, path), className="msg")


def panel(
    defaults: Config,
    cfg: Config,
    changes: Changes,
    view: str,
    problems: Problems | None = None,
    intervals: Mapping[tuple[str, str], str] | None = None,
) -> list:
    """The boxes of ``view`` holding ``cfg``'s values; ``problems`` ``{(path, field): text}``
    are shown in red with their message. ``intervals`` ``{(path, field): text}``: a text beside
    every box (its stability interval; components/board/sensitivity.py), None: no text."""
    node = cfg.node(view) if view else None
    problems = problems or {}

    def box(path: str, field: str, spoken: str) -> Any:
        changed = field in changes.get(path, {})
        inp = _named(
            spoken, _input(cfg, defaults, path, field, changed, problems.get((path, field)))
        )
        if intervals is None:
            return inp
        text = intervals.get((path, field), "")
        # its text follows each edit through the SENS_TEXTS store (assets/sensitivity.js finds
        # it by its box's name; no id: a dict id would add to what the box pattern scans)
        iv = html.Span(
            text,
            className=ids.CLASS_INTERVAL,
            **{ids.ATTR_BOX: ids.box_name(path, field)},
        )
        return html.Span([inp, iv], className="box-iv")

    def weight_row(path: str, name: str, where: list[str], policy: bool = False) -> html.Tr:
        extra = []
        if policy:
            changed = "missing" in changes.get(path, {})
            problem = problems.get((path, "missing"))
            extra = [_policy_box(cfg, defaults, path, changed, problem)]
        return html.Tr(
            [
                html.Td(
                    [
                        html.Button(
                            name,
                            id=ids.link(ids.T_CRUMB, path),
                            className="link",
                            n_clicks=0,
                        ),
                        _msg(path, problems),
                    ],
                    className="name",
                ),
                html.Td(box(path, "weight", a11y.box_name("weight", "weight", where))),
                *extra,
                html.Td(_reset_button(path, name)),
            ]
        )

    rows: list = []
    if node is None:
        title = "Category weights"
        head = ["Category", "Weight", "Missing data", ""]
        rows = [weight_row(c.name, c.name, [c.name], policy=True) for c in cfg.categories]
    elif isinstance(node, Category):
        title = f"Benchmark weights in {node.name}"
        head = ["Benchmark", "Weight", ""]
        rows = [
            weight_row(f"{node.name}/{b.name}", b.name, [b.name, node.name])
            for b in node.benchmarks
        ]
    else:
        assert isinstance(node, Benchmark)
        full = cfg.full_path(view)
        title = f"Metric settings of {node.name}"
        head = ["Metric", "Thresholds / parameters", "Weight", ""]
        for m in node.metrics:
            p = f"{full}/{m.name}"
            where = [m.name, node.name]
            params = [
                html.Span(
                    [
                        html.Span(m.norm.label(f), className="plabel", **{"aria-hidden": "true"}),
                        box(p, f, a11y.box_name(f, m.norm.label(f), where)),
                    ],
                    className="param",
                )
                for f in metric_fields(m)
                if f != "weight"
            ]
            rows.append(
                html.Tr(
                    [
                        html.Td(
                            [
                                html.Button(
                                    m.name,
                                    id=ids.link(ids.T_PICK, p),
                                    className="link",
                                    title="Plot this metric's normalisation curve",
                                    n_clicks=0,
                                ),
                                html.Div(
                                    m.normaliser.replace("_", " ")
                                    + (f" · {m.unit}" if m.unit else ""),
                                    className="norm",
                                    title=m.norm.description,
                                ),
                                _msg(p, problems),
                            ],
                            className="name",
                        ),
                        html.Td(params, className="params"),
                        html.Td(box(p, "weight", a11y.box_name("weight", "weight", where))),
                        html.Td(_reset_button(p, m.name)),
                    ]
                )
            )
    return [
        html.Div(
            [
                html.H3(title),
                html.Button(
                    "Reset this table",
                    id=ids.RESET_TABLE,
                    className="btn small",
                    n_clicks=0,
                    title="Reset every box of this table to the defaults",
                ),
            ],
            className="panel-head",
        ),
        html.Table(
            [html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(rows)],
            className="settings",
        ),
    ]


def layout(defaults: Config, intervals: Mapping[tuple[str, str], str] | None = None) -> html.Div:
    """The panel of the overview (the edit callback replaces its children on navigation)."""
    return html.Div(
        panel(defaults, defaults, {}, "", intervals=intervals),
        id=ids.SETTINGS,
        className="settings-panel",
    )


def box_states(
    boxes: list[tuple[str, str, Any]],
    defaults: Config,
    before: Changes,
    after: Changes,
    *,
    rewrite: bool,
    pending: set[tuple[str, str]],
    problems: Problems,
    cfg: Config | None = None,
) -> tuple[list, list]:
    """(values, classes) of the boxes of the same view after an action, ``no_update`` where a
    box stays as it is (its focus and typing are never disturbed).

    ``rewrite``: every box shows the state (a reset, a preset, an upload, a link); ``pending``:
    the boxes just edited (their text stays); ``problems``: boxes whose value has a problem;
    ``cfg``: the config of ``after`` (a category's policy box follows the config's policy).
    """

    def value_of(path: str, field: str) -> Any:
        if field == "missing" and cfg is not None:
            return node_value(cfg, path, field)
        if field in after.get(path, {}):
            return after[path][field]
        return node_value(defaults, path, field)

    values, classes = [], []
    for bp, bf, text in boxes:
        value = value_of(bp, bf)
        was = bf in before.get(bp, {})
        now = bf in after.get(bp, {})
        problem = problems.get((bp, bf))
        klass = box_class(now, problem)
        same = same_value(parse_box(text), value)
        if rewrite:
            values.append(no_update if same else display_value(value))
            classes.append(klass)
        elif (bp, bf) in pending:
            values.append(no_update)
            classes.append(klass)
        elif same:
            values.append(no_update)
            classes.append(klass if was != now or problem else no_update)
        else:
            values.append(no_update)
            classes.append(no_update)  # still holds a refused value: stays red
    return values, classes
