"""What the browser sends to the edit callback, checked for type and size (ValueError or "")
before anything reaches the engine."""

from __future__ import annotations

from typing import Any

from ... import ids


def text(value: Any, limit: int = 2000) -> str:
    """A short string from a client value (anything else: "")."""
    return value if isinstance(value, str) and len(value) <= limit else ""


def boxes_of(group: Any, limit: int) -> list[tuple[str, str, Any]]:
    """(path, field, value) of every box in the request; ValueError when it is malformed or
    holds more than ``limit`` boxes."""
    if not isinstance(group, list) or len(group) > limit:
        raise ValueError("boxes")
    out = []
    for b in group:
        bid = b.get("id") if isinstance(b, dict) else None
        if not isinstance(bid, dict):
            raise ValueError("box id")
        path, field, value = bid.get(ids.KEY_PATH), bid.get(ids.KEY_FIELD), b.get("value")
        if not isinstance(path, str) or not isinstance(field, str):
            raise ValueError("box id")
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, str | int | float)
        ):
            raise ValueError("box value")
        out.append((path, field, value))
    return out


def same_as_shown(
    values: list, outputs: list, shown: Any, keys: tuple[str, ...], limit: int
) -> list[bool]:
    """For each output of a pattern (``outputs``: its ``outputs_grouping``) whether its new
    text in ``values`` is the text the page shows already (``shown``: the ``args_grouping`` of
    a State of the same pattern; anything but strings is never the same)."""
    texts = {}
    for g in shown if isinstance(shown, list) and len(shown) <= limit else []:
        gid = g.get("id") if isinstance(g, dict) else None
        if isinstance(gid, dict) and isinstance(g.get("value"), str):
            texts[tuple(gid.get(k) for k in keys)] = g["value"]
    return [
        isinstance(v, str) and texts.get(tuple(o["id"][k] for k in keys)) == v
        for v, o in zip(values, outputs, strict=True)
    ]


def attr_selection(group: Any) -> dict[str, Any]:
    """``{attribute: selected values}`` of the attribute dropdowns in the request."""
    if not isinstance(group, list):
        return {}
    out = {}
    for a in group:
        aid = a.get("id") if isinstance(a, dict) else None
        if isinstance(aid, dict) and isinstance(aid.get(ids.KEY_NAME), str):
            out[aid[ids.KEY_NAME]] = a.get("value")
    return out
