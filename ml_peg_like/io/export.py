"""Writers for score tables: CSV, JSON and Excel files, a CSV zip and an Excel workbook in memory.

Every table has the column ``model`` first. Text cells (names, never numbers) that a spreadsheet
would read as a formula (starting with = + - @, tab or carriage return) are prefixed with a single
quote in CSV and Excel exports.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import orjson
import pandas as pd

from ..scoring import Scores

LEVELS = ("metric_scores", "benchmark_scores", "category_scores", "overall_scores")
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
FORMATS = ("csv", "json", "xlsx")


def neutralise_text(value):
    """Prefix a text cell that a spreadsheet would execute as a formula with a quote."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy with formula-like text neutralised in text cells and in column names."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col].dtype):
            out[col] = out[col].map(neutralise_text)
    out.columns = [neutralise_text(str(c)) for c in out.columns]
    return out


def score_tables(scores: Scores, scale: float | None = None) -> dict[str, pd.DataFrame]:
    """The four tables (model first), scores multiplied by ``scale`` (default: the config's)."""
    return scores.tables(scale)


def _csv_bytes(df: pd.DataFrame) -> bytes:
    return safe_frame(df).to_csv(index=False, float_format="%.17g").encode("utf-8")


def _json_bytes(df: pd.DataFrame) -> bytes:
    records = df.astype(object).where(df.notna(), None).to_dict(orient="records")
    return orjson.dumps(records, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)


def tables_csv_zip(scores: Scores, scale: float | None = None) -> bytes:
    """A zip holding one CSV per level."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, df in score_tables(scores, scale).items():
            zf.writestr(f"{name}.csv", _csv_bytes(df))
    return buf.getvalue()


def _sheet_name(name: str) -> str:
    return name.replace("_scores", "")[:31]


def tables_xlsx(scores: Scores, scale: float | None = None) -> bytes:
    """An Excel workbook with one sheet per level."""
    buf = io.BytesIO()
    with pd.ExcelWriter(buf, engine="openpyxl") as xw:
        for name, df in score_tables(scores, scale).items():
            safe_frame(df).to_excel(xw, sheet_name=_sheet_name(name), index=False)
    return buf.getvalue()


def write_scores(
    scores: Scores, out_dir: str | Path, fmt: str = "csv", scale: float | None = None
) -> list[Path]:
    """Write metric/benchmark/category/overall score files into ``out_dir``; return the paths."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = score_tables(scores, scale)
    paths = []
    for name, df in tables.items():
        p = out / f"{name}.{fmt}"
        if fmt == "xlsx":
            safe_frame(df).to_excel(p, sheet_name=_sheet_name(name), index=False)
        else:
            p.write_bytes(_csv_bytes(df) if fmt == "csv" else _json_bytes(df))
        paths.append(p)
    return paths
