"""The status line's messages of an edit (components/edit.py): a short text with its kind
("ok", "warn", "err") as the class the page styles."""

from __future__ import annotations

from dash import html

from ...errors import ConfigError


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
