"""How numbers are shown: one rule for the grid, the curve hover, the exports and the CLI.

* **Scores** (normalised, times the config's scale): ``digits`` significant digits (default
  :data:`SCORE_DIGITS` = 3), trailing zeros kept so that a column lines up: ``0.910``, ``0.929``,
  ``1.00``, ``0.00``; on the 0-100 scale ``91.0``, ``100``. This is JavaScript's
  ``x.toPrecision(digits)`` (exact decimal value, ties away from zero), except that a number with
  more integer digits than ``digits`` is rounded to an integer instead of written ``1e+2``.
* **Raw values**: :data:`RAW_DIGITS` = 4 significant digits, trailing zeros dropped (``0.0333``,
  ``10.13``, ``1235``); a value whose integer part has more digits keeps them (``12346``);
  scientific notation only outside [1e-3, 1e5) (after rounding): ``5e-4``, ``9.5e23``,
  ``-1.235e5``.
* **Files**: CSV and JSON keep full precision and write the shortest text that reads back as
  the same float (``repr``: ``0.9``, ``10.133``); only text formats meant for reading (LaTeX)
  round, with :func:`fmt_score`.

The browser's twins are ``fmtScore`` / ``fmtRaw`` in ``assets/dashAgGridFunctions.js``; a
browser test compares them on a list of values.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

MISSING_TEXT = "—"
SCORE_DIGITS = 3
RAW_DIGITS = 4
MIN_DIGITS, MAX_DIGITS = 1, 8
#: raw values are written plainly when 10**RAW_LOW <= |x| < 10**RAW_HIGH (after rounding)
RAW_LOW, RAW_HIGH = -3, 5


def clean_digits(digits, default: int = SCORE_DIGITS) -> int:
    """``digits`` as an int in [MIN_DIGITS, MAX_DIGITS]; ``default`` when it is not a number."""
    try:
        d = int(digits)
    except (TypeError, ValueError, OverflowError):
        return default
    return min(MAX_DIGITS, max(MIN_DIGITS, d))


def is_missing(value) -> bool:
    """No number to show: None, NaN, an infinity or not a number at all."""
    if value is None:
        return True
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError):
        return True


def _sci_parts(a: float, digits: int) -> tuple[Decimal, int]:
    """``a`` (> 0) rounded to ``digits`` significant digits as (mantissa in [1, 10), exponent):
    JavaScript's ``a.toExponential(digits - 1)``."""
    d = Decimal(a)
    e = d.adjusted()
    q = Decimal(1).scaleb(-(digits - 1))
    m = d.scaleb(-e).quantize(q, rounding=ROUND_HALF_UP)
    if m >= 10:
        e += 1
        m = d.scaleb(-e).quantize(q, rounding=ROUND_HALF_UP)
    return m, e


def _fixed(a: float, decimals: int) -> str:
    """JavaScript's ``a.toFixed(decimals)`` for a >= 0."""
    return f"{Decimal(a).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP):f}"


def fixed_decimals(a: float, decimals: int) -> str:
    """``a`` (>= 0) with exactly ``decimals`` decimals, half up (the LaTeX export's columns)."""
    return _fixed(a, decimals)


def _round_int(a: float) -> int:
    """JavaScript's ``Math.round`` for a >= 0."""
    return math.floor(a + 0.5)


def _trim(text: str) -> str:
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def fmt_score(value, scale: float = 1.0, digits: int = SCORE_DIGITS) -> str:
    """A score (0-1) times ``scale`` to ``digits`` significant digits (see the module)."""
    if is_missing(value):
        return MISSING_TEXT
    digits = clean_digits(digits)
    x = float(value) * float(scale)
    sign = "-" if x < 0 else ""
    a = abs(x)
    if a == 0:
        return "0" + ("." + "0" * (digits - 1) if digits > 1 else "")
    m, e = _sci_parts(a, digits)
    if e >= digits:  # JavaScript's String(Math.round(a)) (exponential from 1e21 on)
        return sign + (repr(a) if a >= 1e21 else str(_round_int(a)))
    if e < -6:
        return f"{sign}{m}e-{-e}"
    return sign + _fixed(a, digits - 1 - e)


def fmt_raw(value, digits: int = RAW_DIGITS) -> str:
    """A raw value to ``digits`` significant digits, trailing zeros dropped (see the module)."""
    if is_missing(value):
        return MISSING_TEXT
    digits = clean_digits(digits, RAW_DIGITS)
    x = float(value)
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    a = abs(x)
    m, e = _sci_parts(a, digits)
    if e < RAW_LOW or e >= RAW_HIGH:
        return f"{sign}{_trim(f'{m:f}')}e{e}"
    if e >= digits - 1:
        return sign + str(_round_int(a))
    return sign + _trim(_fixed(a, digits - 1 - e))


def shortest(value) -> str:
    """The shortest text that reads back as the same float (``repr``); integers without ``.0``;
    empty for missing."""
    if is_missing(value):
        return ""
    v = float(value)
    if v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return repr(v)
