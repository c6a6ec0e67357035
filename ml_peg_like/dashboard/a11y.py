"""What a screen reader needs from the page: the page's language, a spoken name for every
settings box, and the names the browser gives the controls Dash draws without a way to name
them (``assets/a11y.js`` reads the ``data-*`` attributes made here)."""

from __future__ import annotations

from typing import Any

from dash import dcc, html

#: the page's language (``<html lang>``): screen readers pick their voice from it
LANG = "en"
#: a text read by screen readers and not shown (the usual clip pattern, assets/looks.css)
SR_ONLY = "sr-only"
#: on an element around a ``dcc.Checklist`` / ``dcc.RadioItems``: the name of its group
ATTR_GROUP = "data-group-label"
#: on an element around a ``dcc.Upload``: the name of its file input
ATTR_FILE = "data-file-label"
#: the fields whose spoken name says "threshold"
THRESHOLDS = ("good", "bad")


def with_lang(index_string: str) -> str:
    """The page template with ``<html lang="en">`` (Dash's template has no ``lang``)."""
    if "<html lang=" in index_string:
        return index_string
    return index_string.replace("<html>", f'<html lang="{LANG}">', 1)


def box_name(field: str, label: str, where: list[str]) -> str:
    """The spoken name of a settings box: what it holds, then where, from the closest node out:
    ``box_name("good", "good", ["MAE", "S24"])`` is ``"good threshold, MAE, S24"``."""
    what = f"{label} threshold" if field in THRESHOLDS else label
    return ", ".join([what, *where])


def hidden_text(text: str) -> html.Span:
    """A text for screen readers only (inside a ``<label>``: part of its control's name)."""
    return html.Span(text, className=SR_ONLY)


def file_input(*, name: str, **props: Any) -> html.Span:
    """A ``dcc.Upload`` whose file input is read as ``name`` (its input takes no attributes:
    assets/a11y.js names it from the box around it)."""
    return html.Span(dcc.Upload(**props), **{ATTR_FILE: name}, className="upload-wrap")
