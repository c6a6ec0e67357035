"""The status line's messages of an edit (components/editing/edit.py): a short text with its kind
("ok", "warn", "err") as the class the page styles."""

from __future__ import annotations

from typing import Any

from dash import html, no_update

from ...errors import ConfigError
from ..state import Filters, decode_filters, filter_problem


def problem_text(exc: ConfigError, limit: int = 3) -> str:
    """The first ``limit`` problems of ``exc``, joined, and how many more there are."""
    lines = [str(p) for p in exc.problems[:limit]]
    if len(exc.problems) > limit:
        lines.append(f"… and {len(exc.problems) - limit} more")
    return "; ".join(lines)


def status(message: str, kind: str = "ok") -> html.Div:
    return html.Div(message, className=f"status-msg {kind}")


def threshold_status(problems: dict[tuple[str, str], str], what: str) -> html.Div:
    """The first threshold problem of a state (a metric without a score), and how many more."""
    (path, field), why = next(iter(problems.items()))
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return status(f"{what}: {path}.{field}: {why}; that metric has no score{more}.", "err")


def linked_filters(text: str | None, cache, shown: Any) -> tuple[Filters, Any]:
    """The model filter of a link (``?f=``) and the status to show: ``shown``, or, when it says
    nothing and the filter cannot be read, why it was ignored."""
    filters = decode_filters(text, cache.models, cache.attr_options)
    unread = filter_problem(text)
    if unread and shown is no_update:
        shown = status(f"The model filter in the link was ignored: {unread}", "err")
    return filters, shown
