"""Parsing one field of the config (a number, weight, threshold, name, metric...).

Every function appends a :class:`~ml_peg_like.errors.Problem` naming the key path to
``problems`` instead of raising, so that a whole config is checked in one pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ..aggregation import POLICIES
from ..errors import Problem
from ..normalisers import get_normaliser, normaliser_names
from .nodes import DATA_THRESHOLDS, Metric, ModelRef

CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


def fmt(value: Any) -> str:
    """A value for a message, at most 60 characters (huge integers included)."""
    if isinstance(value, int) and value.bit_length() > 160:  # repr may be refused (> 4300 digits)
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_number(
    value: Any, where: str, problems: list[Problem], *, allow_none: bool = False
) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        problems.append(Problem(where, f"expected a number, got {fmt(value)}"))
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            problems.append(Problem(where, f"expected a number, got {fmt(value)}"))
            return None
    try:
        value = float(value)
    except OverflowError:  # an integer beyond the float range (1 followed by 400 zeros)
        problems.append(Problem(where, f"expected a finite number, got {fmt(value)}"))
        return None
    if not math.isfinite(value):
        problems.append(Problem(where, f"expected a finite number, got {fmt(value)}"))
        return None
    return value


def parse_weight(value: Any, where: str, problems: list[Problem]) -> float | None:
    n = len(problems)
    w = parse_number(value, where, problems)
    if len(problems) > n or w is None:
        return None
    if w < 0:
        problems.append(Problem(where, f"weight must be >= 0, got {w:g}"))
        return None
    return w


def parse_threshold(value: Any, where: str, problems: list[Problem], *, data_ok: bool) -> Any:
    """A number, ``{model: NAME}``, or (when ``data_ok``) ``best``/``worst``."""
    if isinstance(value, Mapping):
        if set(value) != {"model"} or not isinstance(value.get("model"), str | int | float):
            problems.append(
                Problem(where, f"expected a number or {{model: NAME}}, got {fmt(value)}")
            )
            return None
        name = str(value["model"])
        if not name.strip():
            problems.append(Problem(where, "model name is empty"))
            return None
        return ModelRef(name)
    if isinstance(value, str) and value.strip().lower() in DATA_THRESHOLDS:
        if not data_ok:
            problems.append(Problem(where, f"'{value}' is allowed only for good and bad"))
            return None
        return value.strip().lower()
    return parse_number(value, where, problems)


def parse_name(key: Any, where: str, problems: list[Problem]) -> str | None:
    if isinstance(key, bool) or not isinstance(key, str | int | float):
        problems.append(Problem(where, f"a name must be text, got {fmt(key)}"))
        return None
    name = str(key)
    if not name.strip():
        problems.append(Problem(where, "a name must not be empty"))
        return None
    if CONTROL_CHARS.search(name):
        problems.append(Problem(where, f"name {fmt(name)} contains control characters"))
        return None
    if len(name) > 200:
        problems.append(Problem(where, "a name must be at most 200 characters"))
        return None
    return name


def parse_text(value: Any, where: str, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        problems.append(Problem(where, f"expected text, got {fmt(value)}"))
        return None
    return str(value)


def parse_meta(value: Any, where: str, problems: list[Problem]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append(Problem(where, "expected a mapping of names to values"))
        return {}
    out = {}
    for k, v in value.items():
        if v is not None and not isinstance(v, str | int | float | bool):
            problems.append(Problem(f"{where}.{k}", f"expected a plain value, got {fmt(v)}"))
            continue
        out[str(k)] = v
    return out


def check_keys(
    raw: Mapping, allowed: set[str], where: str, problems: list[Problem], what: str
) -> None:
    for k in raw:
        if str(k) not in allowed:
            problems.append(
                Problem(
                    f"{where}.{k}",
                    f"unknown key for a {what} (allowed: {', '.join(sorted(allowed))})",
                )
            )


METRIC_KEYS = {"good", "bad", "weight", "normaliser", "better", "unit", "description", "meta"}


def _parse_normaliser(raw: Mapping, where: str, problems: list[Problem]):
    """The metric's normaliser (``linear`` when not given), or None (reported) when unknown."""
    norm_name = raw.get("normaliser", "linear")
    if norm_name is None:
        norm_name = "linear"
    try:
        return get_normaliser(str(norm_name))
    except KeyError:
        problems.append(
            Problem(
                f"{where}.normaliser",
                f"unknown normaliser {fmt(norm_name)} (known: {', '.join(normaliser_names())})",
            )
        )
        return None


def _parse_better(raw: Mapping, where: str, problems: list[Problem]) -> str | None:
    better = raw.get("better")
    if better is None:
        return None
    better = str(better).strip().lower()
    if better not in ("lower", "higher"):
        problems.append(
            Problem(
                f"{where}.better", f"expected 'lower' or 'higher', got {fmt(raw.get('better'))}"
            )
        )
        return None
    return better


def _check_threshold_pair(good, bad, better: str | None, where: str, problems: list[Problem]):
    """good and bad differ, agree with ``better``, and data-driven ones ('best'/'worst') come
    with ``better``."""
    if isinstance(good, float) and isinstance(bad, float):
        if good == bad:
            problems.append(Problem(f"{where}.good", f"good and bad must differ (both {good:g})"))
        elif better and better != ("lower" if good < bad else "higher"):
            problems.append(
                Problem(
                    f"{where}.better", f"says {better} is better but good={good:g}, bad={bad:g}"
                )
            )
    if (good in DATA_THRESHOLDS or bad in DATA_THRESHOLDS) and better is None:
        problems.append(
            Problem(f"{where}.better", "'best'/'worst' thresholds need better: lower|higher")
        )
    if good is not None and good == bad and not isinstance(good, float):
        problems.append(Problem(f"{where}.good", "good and bad must differ"))


def _parse_thresholds(norm, raw: Mapping, better: str | None, where: str, problems: list[Problem]):
    """(good, bad): both required by a normaliser that uses thresholds, refused by the others."""
    if not norm.uses_thresholds:
        for key in ("good", "bad"):
            if raw.get(key) is not None:
                names = ", ".join(p.name for p in norm.params)
                problems.append(
                    Problem(
                        f"{where}.{key}",
                        f"'{norm.name}' takes no {key} threshold (its parameters: {names})",
                    )
                )
        return None, None
    for key in ("good", "bad"):
        if key not in raw or raw[key] is None:
            problems.append(Problem(f"{where}.{key}", f"missing: '{norm.name}' needs good and bad"))
    good = bad = None
    if "good" in raw and raw["good"] is not None:
        good = parse_threshold(raw["good"], f"{where}.good", problems, data_ok=True)
    if "bad" in raw and raw["bad"] is not None:
        bad = parse_threshold(raw["bad"], f"{where}.bad", problems, data_ok=True)
    _check_threshold_pair(good, bad, better, where, problems)
    return good, bad


def _parse_param(spec, raw: Mapping, norm, where: str, problems: list[Problem]):
    """One parameter of the normaliser: a number (or a ``{model: NAME}`` reference), within
    its bounds; None when absent or invalid (reported when it is required or invalid)."""
    pw = f"{where}.{spec.name}"
    if spec.name not in raw or raw[spec.name] is None:
        if spec.default is None and not spec.optional:
            problems.append(Problem(pw, f"missing: '{norm.name}' needs {spec.name}"))
        return None
    if spec.model_ref:
        v = parse_threshold(raw[spec.name], pw, problems, data_ok=False)
    else:
        v = parse_number(raw[spec.name], pw, problems)
    if isinstance(v, float):
        if spec.positive and v <= 0:
            problems.append(Problem(pw, f"must be > 0, got {v:g}"))
            return None
        if spec.greater_than is not None and v <= spec.greater_than:
            problems.append(Problem(pw, f"must be > {spec.greater_than:g}, got {v:g}"))
            return None
    return v


def parse_metric(name: str, raw: Any, where: str, problems: list[Problem]) -> Metric | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(where, f"expected a mapping of metric settings, got {fmt(raw)}"))
        return None
    n0 = len(problems)
    norm = _parse_normaliser(raw, where, problems)
    if norm is None:
        return None
    allowed = set(METRIC_KEYS) | {p.name for p in norm.params}
    check_keys(raw, allowed, where, problems, f"'{norm.name}' metric")
    better = _parse_better(raw, where, problems)
    good, bad = _parse_thresholds(norm, raw, better, where, problems)
    params: dict[str, float | ModelRef] = {}
    for spec in norm.params:
        v = _parse_param(spec, raw, norm, where, problems)
        if v is not None:
            params[spec.name] = v
    weight = parse_weight(raw.get("weight", 1.0), f"{where}.weight", problems)
    unit = parse_text(raw.get("unit"), f"{where}.unit", problems)
    description = parse_text(raw.get("description"), f"{where}.description", problems)
    meta = parse_meta(raw.get("meta"), f"{where}.meta", problems)
    if len(problems) > n0:
        return None
    return Metric(
        name=name,
        good=good,
        bad=bad,
        weight=weight,
        normaliser=norm.name,
        params=params,
        better=better,
        unit=unit,
        description=description,
        meta=meta,
    )


def parse_missing(value: Any, where: str, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    v = str(value).strip().lower()
    if v not in POLICIES:
        names = " or ".join(repr(p) for p in POLICIES)
        problems.append(Problem(where, f"expected {names}, got {fmt(value)}"))
        return None
    return v
