"""A :class:`~ml_peg_like.io.report.Report` as one Excel workbook (openpyxl, write-only mode:
rows are streamed to the file, so 10,000 models x 360 metrics fit in well under a GiB): sheets
Overall, Categories, Benchmarks, Metrics, Settings and Provenance; a bold, frozen header row (and
the Rank / Model / Key columns); column widths from the contents (of the first
:data:`WIDTH_ROWS` rows); number formats (scores to the report's digits, coverage as a
percentage, raw values as General: full precision in the cells; a sheet above
:data:`STYLED_CELLS` cells is all General). A model without a rank has an
empty Rank cell; the Overall sheet's Tied column is TRUE where the rank is shared."""

from __future__ import annotations

import io
import math

from ..numfmt import fmt_raw, fmt_score
from .provenance import provenance_rows
from .report import ID_COLUMNS, Report, neutralise_text

MAX_WIDTH = 48
MIN_WIDTH = 6
#: rows whose texts set the column widths (a width needs no more: the numbers' formats are fixed)
WIDTH_ROWS = 200
#: a sheet of more cells than this is written without number formats (General: full
#: precision shown): a styled cell costs openpyxl ~70% more time than a plain one, and the
#: Metrics sheet of 10,000 models x 360 metrics has 7.2 million
STYLED_CELLS = 1_000_000


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


def _set_widths(ws, df, fmt_of) -> None:
    from openpyxl.utils import get_column_letter

    for j, col in enumerate(df.columns, start=1):
        _fmt, shown = fmt_of(col)
        values = df[col].iloc[:WIDTH_ROWS].tolist()
        texts = [shown(v) if _cell(v) is not None else "" for v in values]
        # the header wraps: its longest word counts, and at most ~2 lines of it
        head = str(col)
        head_need = max(max((len(w) for w in head.split()), default=0), len(head) / 2)
        width = max(_width(texts), min(MAX_WIDTH, head_need + 2))
        ws.column_dimensions[get_column_letter(j)].width = width


def _header(ws, names) -> list:
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font

    bold, wrap = Font(bold=True), Alignment(wrap_text=True, vertical="top")
    out = []
    for name in names:
        c = WriteOnlyCell(ws, value=neutralise_text(str(name)))
        c.font, c.alignment = bold, wrap
        out.append(c)
    return out


def _write_sheet(ws, df, fmt_of) -> None:
    """Widths and frozen panes first (write-only sheets take them before any row), then the
    header and the rows; a formatted column's cells share one styled cell, its value set per
    row (the row is written when appended)."""
    from openpyxl.cell import WriteOnlyCell

    _set_widths(ws, df, fmt_of)
    n_id = sum(1 for c in df.columns if c in ID_COLUMNS)
    ws.freeze_panes = f"{chr(ord('A') + n_id)}2"
    ws.append(_header(ws, df.columns))
    styled = df.shape[0] * df.shape[1] <= STYLED_CELLS
    templates = []
    for col in df.columns:
        number_format, _shown = fmt_of(col)
        template = None
        if number_format and styled:
            template = WriteOnlyCell(ws)
            template.number_format = number_format
        templates.append(template)
    columns = [_column_values(df[col].tolist(), fmt_of(col)[0]) for col in df.columns]
    for i in range(len(df)):
        ws.append([_styled(col[i], tpl) for col, tpl in zip(columns, templates, strict=True)])


def _column_values(values: list, number_format) -> list:
    """A column's cell values: a number column's floats (None where missing) as they are,
    any other column's cells through :func:`_cell` (text neutralised)."""
    if number_format:  # scores, coverage, raw values: floats or None (report._floats)
        return values
    return [_cell(v) for v in values]


def _styled(v, template):
    """A cell's value, through ``template`` (the column's styled cell) when it has one and a
    value."""
    if template is None or v is None:
        return v
    template.value = v
    return template


def _key_value_sheet(wb, title: str, head: tuple[str, str], rows) -> None:
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment

    ws = wb.create_sheet(title)
    ws.column_dimensions["A"].width = _width([k for k, _ in rows])
    ws.column_dimensions["B"].width = 80
    ws.freeze_panes = "A2"
    ws.append(_header(ws, head))
    wrap = Alignment(wrap_text=True, vertical="top")
    for key, value in rows:
        cell = WriteOnlyCell(ws, value=neutralise_text(value))
        cell.alignment = wrap
        ws.append([neutralise_text(key), cell])


def report_xlsx(report: Report) -> bytes:
    """The workbook's bytes."""
    # openpyxl is imported on the first export only (~50 ms and ~6 MiB: not on the dashboard's
    # start, which never writes a workbook before a click)
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
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

        _write_sheet(wb.create_sheet(name[:31]), df, fmt_of)
    _key_value_sheet(wb, "Settings", ("Setting", "Value"), report.settings)
    _key_value_sheet(wb, "Provenance", ("Field", "Value"), provenance_rows(report.provenance))
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
