"""Model identity: the name a model is shown by and the attributes of its card (no Dash).

A model's *key* (the ``model`` column of the raw metrics) identifies it; ``models.csv`` may give
it a ``display_name``. :func:`display_names` is THE rule for the name a model is shown by (grid,
curve, robustness plots and texts, the command line's messages, exports); :func:`card_items`
the rows of its card, where only http(s) addresses count as links.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

DISPLAY_COLUMN = "display_name"
#: the longest text kept from one attribute (a card is not a document)
MAX_ATTR_CHARS = 500


def _text(value: Any) -> str:
    """An attribute as text ('' when missing: NaN, None or blank)."""
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return str(value).strip()


def _column(table: Any, name: str) -> Any:
    if table is None or len(getattr(table, "columns", ())) == 0:
        return None
    cols = {str(c).strip().lower(): c for c in table.columns}
    col = cols.get(name)
    return None if col is None else table[col]


def display_names(models_table: Any, keys: Sequence[str]) -> list[str]:
    """The name each of ``keys`` is shown by: its ``display_name`` in ``models_table`` (a frame
    indexed by model key, e.g. :attr:`RawData.attributes`) when present and not blank, else the
    key itself."""
    col = _column(models_table, DISPLAY_COLUMN)
    if col is None:
        return [str(k) for k in keys]
    lookup = {str(k): _text(v) for k, v in col.items()}
    return [lookup.get(str(k)) or str(k) for k in keys]


def display_name_map(models_table: Any, keys: Iterable[str]) -> dict[str, str]:
    """``{key: display name}`` (see :func:`display_names`)."""
    keys = [str(k) for k in keys]
    return dict(zip(keys, display_names(models_table, keys), strict=True))


def shown_names(models: Any, names: Mapping[str, str] | None, sep: str = " = ") -> str:
    """The display name of a model key, or of each of several keys joined by ``sep`` (tied
    models, as the robustness results write them), from ``names`` (``{key: display name}``,
    :func:`display_name_map`); a key without one is shown as it is."""
    text = "" if models is None else str(models)
    if not names or not text:
        return text
    if text in names:
        return str(names[text])
    return sep.join(str(names.get(k, k)) for k in text.split(sep))


def safe_url(value: Any) -> str | None:
    """``value`` when it is an absolute http(s) address with a host (a link may point there),
    else None (``javascript:``, ``data:``, relative paths and text stay text)."""
    s = _text(value)
    if not s or any(c.isspace() or ord(c) < 32 for c in s) or len(s) > 2048:
        return None
    try:
        parts = urlsplit(s)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return s


def card_items(models_table: Any, key: str) -> list[tuple[str, str, str | None]]:
    """The rows of model ``key``'s card: ``(attribute, value as text, link or None)`` for every
    non-blank attribute in ``models_table`` (in its column order); ``link`` only for
    :func:`safe_url` values. [] when the table has no row for ``key``."""
    if models_table is None or len(getattr(models_table, "columns", ())) == 0:
        return []
    try:
        row = models_table.loc[key]
    except (KeyError, TypeError):
        return []
    if getattr(row, "ndim", 1) != 1:  # duplicate index: the first row
        row = row.iloc[0]
    out = []
    for col, value in row.items():
        text = _text(value)
        if not text:
            continue
        if len(text) > MAX_ATTR_CHARS:
            text = text[: MAX_ATTR_CHARS - 1] + "…"
        out.append((str(col), text, safe_url(value)))
    return out
