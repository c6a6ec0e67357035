"""What the browser holds after a callback's answer: Dash's ``Patch`` applied to a copy of the
held value (the tests of the patched figures compare it with a figure built from scratch)."""

from __future__ import annotations

import copy
import json

from dash import Patch, no_update


def apply(held, answer):
    """What the browser's store holds after ``answer`` (Dash applies a Patch's operations)."""
    if answer is no_update:
        return held
    if not isinstance(answer, Patch):
        return copy.deepcopy(answer)
    out = copy.deepcopy(held)
    for op in answer.to_plotly_json()["operations"]:
        assert op["operation"] == "Assign"
        *where, last = op["location"]
        at = out
        for key in where:
            at = at[key]
        at[last] = op["params"]["value"]
    return out


def size(value) -> int:
    """The JSON size of an answer (a Patch's operations or the value)."""
    return len(json.dumps(value.to_plotly_json() if isinstance(value, Patch) else value))
