"""A :class:`~ml_peg_like.io.report.Report` as one Excel workbook (openpyxl): sheets Overall,
Categories, Benchmarks, Metrics and Settings; a bold, frozen header row (and the Rank / Model /
Key columns); column widths from the contents; number formats (scores to the report's digits,
coverage as a percentage, raw values as General: full precision in the cells)."""

from __future__ import annotations

import io
import math

from ..numfmt import fmt_raw, fmt_score
from .report import ID_COLUMNS, Report, neutralise_text

MAX_WIDTH = 48
MIN_WIDTH = 6


def score_format(scale: float, digits: int) -> str:
    """An Excel number format close to ``digits`` significant digits for scores in [0, scale]
    (Excel has no significant-digit format: decimals = digits - integer digits of the scale,
    e.g. 3 digits -> ``0.000`` on the 0-1 scale, ``0.0`` on the 0-100 scale)."""
    int_digits = 0 if scale <= 1 else len(str(int(scale))) - 1
    decimals = max(0, digits - int_digits)
    return "0" if decimals == 0 else "0." + "0" * decimals


def _width(texts) -> float:
    longest = max((len(t) for t in texts), default=0)
    return float(min(MAX_WIDTH, max(MIN_WIDTH, longest + 2)))


def _cell(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return neutralise_text(v)


def _write_sheet(ws, df, fmt_of) -> None:
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    header = [neutralise_text(str(c)) for c in df.columns]
    ws.append(header)
    for row in df.itertuples(index=False):
        ws.append([_cell(v) for v in row])
    bold = Font(bold=True)
    for cell in ws[1]:
        cell.font = bold
        cell.alignment = Alignment(wrap_text=True, vertical="top")
    n_id = sum(1 for c in df.columns if c in ID_COLUMNS)
    ws.freeze_panes = ws.cell(row=2, column=n_id + 1).coordinate
    for j, col in enumerate(df.columns, start=1):
        number_format, shown = fmt_of(col)
        letter = get_column_letter(j)
        values = df[col].tolist()
        if number_format:
            for i in range(2, len(values) + 2):
                ws.cell(row=i, column=j).number_format = number_format
        texts = [shown(v) if _cell(v) is not None else "" for v in values]
        # the header wraps: its longest word counts, and at most ~2 lines of it
        head = str(col)
        head_need = max(max((len(w) for w in head.split()), default=0), len(head) / 2)
        ws.column_dimensions[letter].width = max(_width(texts), min(MAX_WIDTH, head_need + 2))


def report_xlsx(report: Report) -> bytes:
    """The workbook's bytes."""
    # openpyxl is imported on the first export only (~50 ms and ~6 MiB: not on the dashboard's
    # start, which never writes a workbook before a click)
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    wb = Workbook()
    wb.remove(wb.active)
    sfmt = score_format(report.scale, report.digits)
    for name, df in report.sheets.items():
        scores = set(report.score_columns.get(name, ()))
        raws = set(report.raw_columns.get(name, ()))
        covs = set(report.coverage_columns.get(name, ()))

        def fmt_of(col, scores=scores, raws=raws, covs=covs):
            if col in scores:
                return sfmt, lambda v: fmt_score(v, 1.0, report.digits)
            if col in covs:
                return "0%", lambda v: f"{v * 100:.0f}%"
            if col in raws:
                return "General", fmt_raw
            return None, str

        ws = wb.create_sheet(name[:31])
        _write_sheet(ws, df, fmt_of)
    ws = wb.create_sheet("Settings")
    ws.append(["Setting", "Value"])
    for key, value in report.settings:
        ws.append([neutralise_text(key), neutralise_text(value)])
    ws["A1"].font = ws["B1"].font = Font(bold=True)
    ws.freeze_panes = "A2"
    ws.column_dimensions["A"].width = _width([k for k, _ in report.settings])
    ws.column_dimensions["B"].width = 80
    for row in ws.iter_rows(min_row=2, min_col=2, max_col=2):
        row[0].alignment = Alignment(wrap_text=True, vertical="top")
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
