"""Reading a predictions table from CSV or Parquet (:func:`load_predictions`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataError, Problem


def _read_parquet(p: Path) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise DataError(
            [
                Problem(
                    str(p),
                    "reading Parquet needs pyarrow: pip install 'ml-peg-like[parquet]' (or use CSV)",
                )
            ]
        ) from None
    try:
        df = pd.read_parquet(p)
    except Exception as exc:  # pyarrow raises many types for a bad file
        raise DataError([Problem(str(p), f"cannot read Parquet: {exc}")]) from None
    df.attrs["source"] = str(p)
    df.attrs["first_line"] = 0
    return df


def _csv_columns(p: Path) -> list[str]:
    """The header's column names; an unreadable, empty or malformed header is an error."""
    try:
        with p.open("r", encoding="utf-8-sig", newline="") as fh:
            header = fh.readline()
    except UnicodeDecodeError:
        raise DataError([Problem(f"{p}:1", "not UTF-8 text: save the file as UTF-8")]) from None
    except OSError as exc:
        raise DataError([Problem(str(p), f"cannot read: {exc.strerror or exc}")]) from None
    if not header.strip():
        raise DataError([Problem(str(p), "the file is empty (expected a header line)")])
    try:
        return [str(c).strip() for c in pd.read_csv(p, nrows=0, encoding="utf-8-sig").columns]
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError([Problem(f"{p}:1", f"malformed CSV header: {exc}")]) from None


def _csv_dtypes(cols: list[str]) -> dict[str, Any]:
    """``model`` and ``benchmark`` as categoricals, ``sample`` as text; the rest as pandas
    reads it."""
    dtypes: dict[str, Any] = {}
    for c in cols:
        lc = c.lower()
        if lc in ("model", "benchmark"):
            dtypes[c] = "category"
        elif lc == "sample":
            dtypes[c] = str
    return dtypes


def _read_csv(p: Path) -> pd.DataFrame:
    dtypes = _csv_dtypes(_csv_columns(p))
    try:
        df = pd.read_csv(p, dtype=dtypes, encoding="utf-8-sig", skipinitialspace=True)
    except UnicodeDecodeError:
        raise DataError([Problem(str(p), "not UTF-8 text: save the file as UTF-8")]) from None
    except (pd.errors.ParserError, ValueError) as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        m = re.search(r"line (\d+)", msg)
        raise DataError(
            [Problem(f"{p}:{m.group(1)}" if m else str(p), f"malformed CSV: {msg}")]
        ) from None
    df.columns = [str(c).strip() for c in df.columns]
    df.attrs["source"] = str(p)
    df.attrs["first_line"] = 2
    return df


def load_predictions(path: str | Path) -> pd.DataFrame:
    """Read a predictions table from CSV, or Parquet (``.parquet``/``.pq``, needs pyarrow).

    ``model`` and ``benchmark`` are read as categoricals (fast grouping), ``sample`` as text
    (``001`` stays ``001``), the value columns as floats (empty cells and NaN are missing). The
    file name and first data line are kept in ``df.attrs`` so that errors name ``file:line``.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError([Problem(str(p), "no such file")])
    if p.suffix.lower() in (".parquet", ".pq"):
        return _read_parquet(p)
    return _read_csv(p)
