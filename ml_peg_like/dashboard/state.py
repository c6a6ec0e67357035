"""Dashboard state: the user's changes from the default config, and how a box edit updates them.

Pure functions (no Dash): the callbacks call these, the unit tests call them directly.

State = ``changes``: ``{key path: {field: value}}`` holding only values that differ from the
defaults (see docs/FORMATS.md). It travels in a ``dcc.Store`` and in the URL query (``?s=``: base64url
of compact JSON); the server recomputes defaults + changes on every request.
"""

from __future__ import annotations

import base64
import json
import math
import zlib
from collections.abc import Mapping
from typing import Any

from ..config import ROOT, Category, Config, Metric, ModelRef
from ..errors import ConfigError, Problem

#: the URL query parameters: changes and the view (a key path, "" = overview)
Q_STATE = "s"
Q_VIEW = "v"
Q_METRIC = "m"
Q_FILTER = "f"
Q_MISSING = "missing"  # the missing-data policy when it differs from the defaults
Q_SHOW = "show"  # the raw / normalised toggle when not the first option
Q_SORT = "sort"  # the grid's sort: ``<column id>.<asc|desc>`` when not the rank
Q_DIGITS = "digits"  # significant digits of the scores when not the default
Q_BASE = "b"  # the pinned baseline's changes (encoded as ``s``); absent: the published settings
MAX_STATE_CHARS = 200_000
#: the deepest nesting a link's settings or filter may have (theirs is 3 or 4 levels)
MAX_DEPTH = 16

Changes = dict[str, dict[str, Any]]


# ------------------------------------------------------------------------------------------------
# URL encoding
# ------------------------------------------------------------------------------------------------


def encode_changes(changes: Mapping[str, Mapping[str, Any]]) -> str:
    """Compact URL-safe text for ``changes`` ("" when there are none).

    Base64url (no padding) of compact JSON; long states are deflated first (prefix ``z``).
    """
    if not changes:
        return ""
    text = json.dumps(changes, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    data = text.encode("utf-8")
    packed = zlib.compress(data, 9)
    if len(packed) + 1 < len(data):
        return "z" + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")
    return "j" + base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _decode_json(text: str, what: str) -> Any:
    kind, body = text[0], text[1:]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        if kind == "z":
            d = zlib.decompressobj()
            raw = d.decompress(raw, 10 * MAX_STATE_CHARS)
            if d.unconsumed_tail:
                raise ValueError("too large")
        elif kind != "j":
            raise ValueError("unknown encoding")
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:  # the decoder's own bound (a 1 KB link can nest 10^5 levels)
        data = None
        exc = ValueError(f"nested deeper than {MAX_DEPTH} levels")
    except (ValueError, zlib.error, UnicodeDecodeError) as e:
        data, exc = None, e
    else:
        exc = (
            None
            if _depth_within(data, MAX_DEPTH)
            else ValueError(f"nested deeper than {MAX_DEPTH} levels")
        )
    if exc is not None:
        raise ValueError(f"the {what} in the link are not readable ({exc})") from None
    return data


def _depth_within(data: Any, limit: int) -> bool:
    """True when ``data`` (decoded JSON) nests lists and mappings ``limit`` levels at most
    (walked without recursion)."""
    level = [data]
    for _ in range(limit + 1):
        level = [
            v
            for x in level
            if isinstance(x, dict | list)
            for v in (x.values() if isinstance(x, dict) else x)
        ]
        if not level:
            return True
    return False


def decode_changes(text: str | None, what: str = "settings") -> Changes:
    """The changes encoded by :func:`encode_changes`; ValueError for anything else (its
    message names ``what`` the link holds: its settings, its baseline)."""
    if not text:
        return {}
    if len(text) > MAX_STATE_CHARS:
        raise ValueError(f"the {what} in the link are too long")
    data = _decode_json(text, what)
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, dict) for k, v in data.items()
    ):
        raise ValueError(f"the {what} in the link are not a mapping of key path to fields")
    return data


def read_baseline(defaults: Config, text: str | None) -> Changes | None:
    """The pinned baseline of a link's ``b=`` (encoded as ``s=``, the policy included): its
    changes from the defaults, None when there is none (or it equals the defaults). ValueError
    naming the problem when it cannot be read, holds an unknown field or is not a valid
    setting (then the page compares with the published settings)."""
    if not text:
        return None
    decoded = decode_changes(text, "baseline settings")
    try:
        changes = effective_changes(defaults, clean_changes(defaults, decoded))
        try_changes(defaults, changes)
    except ConfigError as exc:
        first = exc.problems[0] if exc.problems else exc
        raise ValueError(f"the baseline is not a valid setting ({first})") from None
    return changes or None


def count_changes(changes: Mapping[str, Mapping[str, Any]] | None) -> int:
    """How many fields ``changes`` sets (the number "Reset all" and the baseline line show)."""
    return sum(len(f) for f in (changes or {}).values())


#: the model filter: ``{"p": [picked models], "a": {attribute: [values]}}`` (empty parts omitted)
Filters = dict[str, Any]


def encode_filters(filters: Mapping[str, Any]) -> str:
    """Compact URL-safe text for the model filter ("" when it shows every model)."""
    return encode_changes({k: v for k, v in filters.items() if v})


def clean_filters(data: Any, models: tuple[str, ...], options: Mapping[str, list[str]]) -> Filters:
    """The model filter from the client or a link, keeping only known models, attributes and
    values (anything else is dropped: a filter never fails, it shows more)."""
    if not isinstance(data, Mapping):
        return {}
    out: Filters = {}
    known = set(models)
    picks = data.get("p")
    if isinstance(picks, list):
        p = [m for m in picks[: len(models)] if isinstance(m, str) and m in known]
        if p:
            out["p"] = list(dict.fromkeys(p))
    attrs = data.get("a")
    if isinstance(attrs, Mapping):
        a = {}
        for name, vals in attrs.items():
            if name in options and isinstance(vals, list):
                ok = set(options[name])
                kept = [v for v in vals[: len(ok)] if isinstance(v, str) and v in ok]
                if kept:
                    a[name] = list(dict.fromkeys(kept))
        if a:
            out["a"] = a
    return out


def decode_filters(
    text: str | None, models: tuple[str, ...], options: Mapping[str, list[str]]
) -> Filters:
    """The model filter of a link (unreadable or unknown parts are dropped)."""
    if not text or len(text) > MAX_STATE_CHARS:
        return {}
    try:
        return clean_filters(_decode_json(text, "filters"), models, options)
    except ValueError:
        return {}


def filter_problem(text: str | None) -> str:
    """Why the model filter of a link cannot be read ("" when it can, or when there is none)."""
    if not text:
        return ""
    if len(text) > MAX_STATE_CHARS:
        return "the filter in the link is too long"
    try:
        _decode_json(text, "filters")
    except ValueError as exc:
        return str(exc)
    return ""


def filtered_models(
    filters: Filters, models: tuple[str, ...], values: Mapping[str, Mapping[str, str]]
) -> list[str] | None:
    """The models a filter shows, in board order (None: every model). A model passes when it
    is picked (or nothing is picked) and its value of every filtered attribute is selected."""
    if not filters:
        return None
    picks = set(filters.get("p") or models)
    attrs = filters.get("a") or {}
    return [
        m
        for m in models
        if m in picks and all(values[a].get(m) in set(vs) for a, vs in attrs.items())
    ]


def attribute_options(attributes: Any, max_values: int = 12) -> dict[str, list[str]]:
    """Model attributes worth a filter (``models.csv`` columns with 2..max_values distinct
    values, fewer than the models): ``{attribute: sorted values}``."""
    if attributes is None or len(attributes) == 0:
        return {}
    out = {}
    n = len(attributes)
    for col in attributes.columns:
        vals = attributes[col].dropna().astype(str)
        vals = vals[vals.str.strip() != ""]
        distinct = sorted(set(vals), key=str.lower)
        if 2 <= len(distinct) <= max_values and len(distinct) < n:
            out[str(col)] = distinct
    return out


def attribute_values(attributes: Any, names) -> dict[str, dict[str, str]]:
    """``{attribute: {model: value as text}}`` of the filterable attributes."""
    out: dict[str, dict[str, str]] = {}
    for name in names:
        col = attributes[name]
        out[name] = {str(m): str(v) for m, v in col.items() if v == v and v is not None}
    return out


def parse_query(search: str | None) -> dict[str, str]:
    """``?a=1&b=2`` -> ``{"a": "1", "b": "2"}`` (last value wins)."""
    from urllib.parse import parse_qsl

    if not search:
        return {}
    return dict(parse_qsl(search.lstrip("?"), keep_blank_values=True))


def same_query(a: str | None, b: str | None) -> bool:
    """Whether two URL queries say the same: the same parameters, the settings (``?s=``)
    compared decoded (the browser writes them uncompressed, the server may deflate them)."""
    qa, qb = parse_query(a), parse_query(b)
    sa, sb = qa.pop(Q_STATE, ""), qb.pop(Q_STATE, "")
    if qa != qb:
        return False
    try:
        return decode_changes(sa) == decode_changes(sb)
    except (ValueError, RecursionError):
        return sa == sb


def make_query(
    changes: Mapping[str, Any],
    view: str = "",
    metric: str = "",
    filters: Mapping[str, Any] | None = None,
    *,
    encoded: str | None = None,
    view_extra: Mapping[str, str] | None = None,
) -> str:
    """The URL query for a state: ``?v=<view>&m=<metric>&missing=<policy>&s=<changes>&f=<model
    filter>`` then ``view_extra`` (``show``, ``sort``; empty parts omitted). The policy (changes'
    :data:`ROOT` entry) is its own parameter. ``encoded``: ``encode_changes(changes)`` when the
    caller has it."""
    from urllib.parse import urlencode

    parts = []
    if view:
        parts.append((Q_VIEW, view))
    if metric:
        parts.append((Q_METRIC, metric))
    policy = (changes.get(ROOT) or {}).get("missing")
    if policy:  # the policy has its own parameter; the rest of the changes stay in ``s``
        parts.append((Q_MISSING, str(policy)))
        changes = {p: f for p, f in changes.items() if p != ROOT}
        encoded = None
    enc = encode_changes(changes) if encoded is None else encoded
    if enc:
        parts.append((Q_STATE, enc))
    enc = encode_filters(filters or {})
    if enc:
        parts.append((Q_FILTER, enc))
    parts += [(k, v) for k, v in (view_extra or {}).items() if v]
    return "?" + urlencode(parts) if parts else ""


# ------------------------------------------------------------------------------------------------
# Box values
# ------------------------------------------------------------------------------------------------


def display_value(value: Any) -> str:
    """Text for a box: numbers as short as they round-trip, ``{model: X}`` as ``model:X``."""
    if value is None:
        return ""
    if isinstance(value, ModelRef):
        return f"model:{value.model}"
    if isinstance(value, Mapping) and set(value) == {"model"}:
        return f"model:{value['model']}"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        v = float(value)
        if math.isfinite(v) and v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    return str(value)


def parse_box(text: Any) -> Any:
    """A box's text as the value to hand to the engine (which validates it).

    Numbers become floats; ``best``/``worst`` stay text; ``model:NAME`` becomes ``{model: NAME}``;
    anything else is passed through unchanged so the engine names the problem.
    """
    if text is None:
        return ""
    if isinstance(text, bool):
        return text
    if isinstance(text, int | float):
        return float(text)
    s = str(text).strip()
    if s.lower().startswith("model:"):
        return {"model": s[6:].strip()}
    try:
        return float(s)
    except ValueError:
        return s


def same_value(a: Any, b: Any) -> bool:
    """Equality of two field values (numbers compared as floats, model refs by name)."""
    if isinstance(a, ModelRef):
        a = a.to_yaml()
    if isinstance(b, ModelRef):
        b = b.to_yaml()
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    return a == b


# ------------------------------------------------------------------------------------------------
# Fields of the tree
# ------------------------------------------------------------------------------------------------


def metric_fields(metric: Metric) -> list[str]:
    """The boxes of a metric: good and bad (or its normaliser's editable parameters), weight."""
    return [*metric.norm.editable, "weight"]


def editable_fields(node: Any) -> list[str]:
    """The fields of a node the client may change: those with a box (a category or benchmark:
    its weight; a metric: :func:`metric_fields`)."""
    if isinstance(node, Metric):
        return metric_fields(node)
    return ["weight", "missing"] if isinstance(node, Category) else ["weight"]


def _no_box(where: str, allowed: list[str]) -> str:
    return f"{where}: this field has no box (only {', '.join(allowed)} can be changed)"


def node_value(cfg: Config, path: str, field: str) -> Any:
    if path == ROOT:
        return cfg.missing
    node = cfg.node(path)
    if isinstance(node, Metric):
        return node.value(field)
    return cfg.policy(node) if field == "missing" else node.weight


def effective_changes(defaults: Config, changes: Mapping[str, Mapping[str, Any]]) -> Changes:
    """``changes`` without the fields equal to the defaults (and without empty paths)."""
    out: Changes = {}
    for path, fields in changes.items():
        if path == ROOT:
            kept = {f: v for f, v in fields.items() if f != "missing" or v != defaults.missing}
            if kept:
                out[ROOT] = dict(kept)
            continue
        try:
            node = defaults.node(path)
            path = defaults.full_path(path)
        except KeyError:
            out[path] = dict(fields)
            continue
        kept = {}
        for f, v in fields.items():
            if isinstance(node, Metric):
                base = node.value(f)
            else:
                base = getattr(node, f, None) if f in ("weight", "missing") else None
            if not same_value(parse_box(v) if isinstance(v, str) else v, base):
                kept[f] = v
        if kept:
            out.setdefault(path, {}).update(kept)
    return out


def zero_weight_problems(cfg: Config) -> list[Problem]:
    """Groups whose children all have weight 0 (allowed by the engine, refused in the dashboard)."""
    problems = []
    if cfg.categories and all(c.weight == 0 for c in cfg.categories):
        for c in cfg.categories:
            problems.append(Problem(f"{c.name}.weight", "every category has weight 0"))
    for c in cfg.categories:
        if all(b.weight == 0 for b in c.benchmarks):
            for b in c.benchmarks:
                problems.append(
                    Problem(
                        f"{c.name}/{b.name}.weight", f"every benchmark of {c.name} has weight 0"
                    )
                )
        for b in c.benchmarks:
            if all(m.weight == 0 for m in b.metrics):
                for m in b.metrics:
                    problems.append(
                        Problem(
                            f"{c.name}/{b.name}/{m.name}.weight",
                            f"every metric of {b.name} has weight 0",
                        )
                    )
    return problems


def split_where(where: str, paths: set[str]) -> tuple[str, str]:
    """``'Cat/Bench/Metric.good'`` -> (path, field), robust to dots in names."""
    head, _, tail = where.rpartition(".")
    if head in paths:
        return head, tail
    return where, ""


def try_changes(defaults: Config, changes: Mapping[str, Mapping[str, Any]]) -> Config:
    """The config defaults + changes, validated by the engine and the dashboard's own rule
    (no group with every weight 0). Raises ConfigError."""
    cfg = defaults.apply_changes(changes)
    problems = zero_weight_problems(cfg)
    if problems:
        # report only the groups this change set touches (a default config may already have them)
        base = {p.where for p in zero_weight_problems(defaults)}
        problems = [p for p in problems if p.where not in base]
        if problems:
            raise ConfigError(problems)
    return cfg


def apply_edit(
    defaults: Config,
    changes: Mapping[str, Mapping[str, Any]],
    edits: Mapping[tuple[str, str], Any],
) -> tuple[Changes, Config]:
    """Changes + the edited boxes ``{(path, field): text}`` -> (new changes, new config).

    Values equal to the defaults are dropped from the changes. Raises ConfigError (with the
    problems of the new state) when the result is invalid; the caller keeps the old state.
    """
    new: Changes = {p: dict(f) for p, f in changes.items()}
    for (path, field), text in edits.items():
        value = parse_box(text)
        if isinstance(value, str) and not value:
            raise ConfigError([Problem(f"{path}.{field}", "empty: type a number")])
        new.setdefault(path, {})[field] = value
    new = effective_changes(defaults, new)
    cfg = try_changes(defaults, new)
    return new, cfg


def reset_paths(changes: Mapping[str, Mapping[str, Any]], paths) -> Changes:
    """The changes without any field of ``paths``."""
    drop = set(paths)
    return {p: dict(f) for p, f in changes.items() if p not in drop}


#: fields of a metric / a category or benchmark that have no box (compared on upload)
_METRIC_FIXED = ("better", "unit", "description", "meta")
_GROUP_FIXED = ("description", "meta")


def no_box_problems(defaults: Config, uploaded: Config) -> list[Problem]:
    """One problem per field the uploaded config sets differently from the defaults although
    the dashboard has no box for it (``better``, ``unit``, descriptions, a parameter that is
    not editable, a category's missing-data override, the scale)."""
    problems = []
    if uploaded.scale != defaults.scale:
        problems.append(Problem("scale", _no_box("scale", ["thresholds", "parameters", "weights"])))
    for path, n0 in defaults._paths.items():
        try:
            n1 = uploaded.node(path)
        except KeyError:
            continue
        allowed = editable_fields(n0)
        fixed = _METRIC_FIXED if isinstance(n0, Metric) else _GROUP_FIXED
        names = [f for f in fixed if getattr(n0, f, None) != getattr(n1, f, None)]
        if isinstance(n0, Metric) and isinstance(n1, Metric) and n0.normaliser == n1.normaliser:
            keys = set(n0.params) | set(n1.params)
            names += sorted(k for k in keys if k not in allowed and n0.value(k) != n1.value(k))
        problems += [Problem(f"{path}.{f}", _no_box(f"{path}.{f}", allowed)) for f in names]
    return problems


def changes_from_upload(defaults: Config, uploaded: Config) -> Changes:
    """The changes that turn the defaults into an uploaded config with the same tree.

    Raises ConfigError when the tree (categories, benchmarks, metrics, normalisers) differs
    or a field without a box differs (:func:`no_box_problems`).
    """
    problems: list[Problem] = []
    a, b = defaults.metric_paths(), uploaded.metric_paths()
    if [c.name for c in defaults.categories] != [c.name for c in uploaded.categories] or set(
        a
    ) != set(b):
        missing = [p for p in a if p not in set(b)]
        extra = [p for p in b if p not in set(a)]
        msg = "this config describes a different tree"
        if missing:
            msg += f"; missing {missing[0]!r}" + (
                f" and {len(missing) - 1} more" if len(missing) > 1 else ""
            )
        if extra:
            msg += f"; unknown {extra[0]!r}" + (
                f" and {len(extra) - 1} more" if len(extra) > 1 else ""
            )
        raise ConfigError([Problem("upload", msg)])
    for p in a:
        m0, m1 = defaults.node(p), uploaded.node(p)
        if m0.normaliser != m1.normaliser:
            problems.append(
                Problem(p, f"normaliser {m1.normaliser!r} differs from {m0.normaliser!r}")
            )
    problems += no_box_problems(defaults, uploaded)
    if problems:
        raise ConfigError(problems)
    changes = defaults.diff(uploaded)
    try_changes(defaults, changes)
    return changes


# ------------------------------------------------------------------------------------------------
# Client data: what a browser (or a forged request) sends back
# ------------------------------------------------------------------------------------------------

MAX_TEXT = 200  # a box's text, a threshold given as text, a model name in ``{model: NAME}``
MAX_FIELDS = 16  # fields of one key path


def _clean_value(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("a value is a boolean")
    if isinstance(value, int | float):
        if not math.isfinite(float(value)):
            raise ValueError("a value is not finite")
        return value
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise ValueError("a value is too long")
        return value
    if isinstance(value, Mapping) and set(value) == {"model"} and isinstance(value["model"], str):
        if len(value["model"]) > MAX_TEXT:
            raise ValueError("a model name is too long")
        return {"model": value["model"]}
    raise ValueError("a value is neither a number nor text")


def clean_changes(defaults: Config, data: Any) -> Changes:
    """``data`` (the ``changes`` store or a link's state as the client sent it) checked for shape
    and size: a mapping of known key paths to at most MAX_FIELDS fields that have a box
    (:func:`editable_fields`), each a finite number, short text or ``{model: NAME}``. ValueError
    (naming the field) otherwise. The engine then checks the values themselves."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ValueError("the changes are not a mapping")
    known = defaults._paths
    if len(data) > len(known) + 1:  # (+ the config's own entry, ROOT)
        raise ValueError("more changes than key paths")
    out: Changes = {}
    for path, fields in data.items():
        if not isinstance(path, str) or (path not in known and path != ROOT):
            raise ValueError("an unknown key path")
        if not isinstance(fields, Mapping) or len(fields) > MAX_FIELDS:
            raise ValueError("the fields of a key path are not a small mapping")
        clean = {}
        allowed = ["missing"] if path == ROOT else editable_fields(known[path])
        for f, v in fields.items():
            if not isinstance(f, str) or not f or len(f) > 40:
                raise ValueError("a field name is not short text")
            if f not in allowed:
                raise ValueError(_no_box(f"{path[:200]}.{f}", allowed))
            clean[f] = _clean_value(v)
        out[path] = clean
    return out
