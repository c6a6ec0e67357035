"""A :class:`~ml_peg_like.io.report.Report` as LaTeX for a paper.

One ``table`` with a booktabs ``tabular`` (``\\toprule``, ``\\midrule``, ``\\bottomrule``;
needs ``\\usepackage{booktabs}``, and ``graphicx`` for ``fit="resize"``): columns Rank (``=2``
when shared, ``--`` without a rank), Model (display name), Overall, Coverage (under a ``skip``
policy) and one per category that counts (weight > 0; ``zero_weight="mark"`` keeps the weight-0
ones, marked with a dagger and a note). Each score column has one number of decimals: enough
for ``digits`` significant digits of its largest value (``0.950``, ``0.625``; ``85.0`` on the
0-100 scale); coverage in whole percent. The best value of each score column is in bold among
the models that have an overall score (every model that prints the same). A ``%`` comment
block holds the provenance; the caption names the missing-data policy and the changes from the
defaults (or "published defaults"); ``\\label{label}``.

Wide tables (``fit``): ``none``; ``resize`` (``\\resizebox{\\linewidth}{!}{...}``);
``transpose`` (one column per model, one row per score); ``split`` (several tables of at most
``max_columns`` score columns each, Rank and Model repeated, labels ``label-1``, ``label-2``...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..numfmt import fixed_decimals
from ..scoring import rank_text
from .provenance import comment_block
from .report import COVERAGE, NAME, OVERALL, RANK, TIED, Report

FITS = ("none", "resize", "transpose", "split")
ZERO_WEIGHT = ("omit", "mark")
DEFAULT_LABEL = "tab:scores"
DEFAULT_SPLIT_COLUMNS = 6
DAGGER = r"$^\dagger$"
MISSING = "--"

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (line breaks become spaces)."""
    text = " ".join(str(text).split())
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


@dataclass(frozen=True)
class LatexOptions:
    """How the table is laid out (see the module docstring)."""

    fit: str = "none"
    zero_weight: str = "omit"
    label: str = DEFAULT_LABEL
    max_columns: int = DEFAULT_SPLIT_COLUMNS

    def problems(self) -> list[str]:
        out = []
        if self.fit not in FITS:
            out.append(f"latex fit: expected one of {', '.join(FITS)}, got {self.fit!r}")
        if self.zero_weight not in ZERO_WEIGHT:
            out.append(f"latex zero weight: expected omit or mark, got {self.zero_weight!r}")
        if not isinstance(self.max_columns, int) or self.max_columns < 1:
            out.append(f"latex split columns: expected an integer >= 1, got {self.max_columns!r}")
        if not self.label or any(ch in self.label for ch in "{}%\\#"):
            out.append(f"latex label: expected a label without {{}}%\\#, got {self.label!r}")
        return out


def column_decimals(values: list[float | None], digits: int) -> int:
    """The decimals that give the column's largest magnitude ``digits`` significant digits
    (none when it has no value: ``digits - 1``)."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    top = max(finite, default=0.0)
    if top == 0:
        return max(0, digits - 1)
    exp = math.floor(math.log10(top))
    if float(fixed_decimals(top, max(0, digits - 1 - exp))) >= 10 ** (exp + 1):
        exp += 1  # 0.9996 to 3 digits is 1.00: one integer digit more
    return max(0, digits - 1 - exp)


def _number(v: float, decimals: int) -> str:
    """``v`` to ``decimals`` places, half up (as the page's numbers: numfmt), no ``-0.00``."""
    text = fixed_decimals(abs(v), decimals)
    return "-" + text if v < 0 and float(text) != 0 else text


def _floats(col) -> list[float | None]:
    return [
        None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) for v in col
    ]


def _score_texts(values, decimals: int, candidates: list[bool]) -> list[str]:
    """The cells of one score column: its decimals, ``--`` when missing, the best shown value
    in bold among the ``candidates`` (the models with an overall score)."""
    shown = [MISSING if v is None else _number(v, decimals) for v in values]
    best_of = [
        float(t) for t, v, ok in zip(shown, values, candidates, strict=True) if ok and v is not None
    ]
    best = max(best_of) if best_of else None
    return [
        rf"\textbf{{{t}}}" if ok and v is not None and best is not None and float(t) == best else t
        for t, v, ok in zip(shown, values, candidates, strict=True)
    ]


def _columns(report: Report, opts: LatexOptions) -> list[str]:
    cats = [
        c for c in report.categories if report.weights.get(c, 1.0) > 0 or opts.zero_weight == "mark"
    ]
    cols = [OVERALL]
    if report.uses_skip and COVERAGE in report.sheets["Overall"].columns:
        cols.append(COVERAGE)
    return cols + cats


def _head(report: Report, col: str) -> str:
    text = latex_escape(col)
    return text + DAGGER if report.weights.get(col, 1.0) == 0 and col in report.weights else text


def _body(report: Report, opts: LatexOptions) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """(rank texts, model names, {column: cell texts}) in the report's row order."""
    df = report.sheets["Overall"]
    ranks = [rank_text(r, t) for r, t in zip(df[RANK].tolist(), df[TIED].tolist(), strict=True)]
    ranks = [MISSING if r == "\u2014" else r for r in ranks]
    names = [latex_escape(n) for n in df[NAME].tolist()]
    scored = [v is not None for v in _floats(df[OVERALL].tolist())]
    cells: dict[str, list[str]] = {}
    for c in _columns(report, opts):
        values = _floats(df[c].tolist())
        if c == COVERAGE:
            cells[c] = [MISSING if v is None else f"{v * 100:.0f}\\%" for v in values]
        else:
            cells[c] = _score_texts(values, column_decimals(values, report.digits), scored)
    return ranks, names, cells


def caption_text(report: Report, opts: LatexOptions) -> str:
    """The caption: title, scale, missing-data policy, the settings, bold and marks."""
    parts = [latex_escape(report.title) + ": overall and category scores"]
    if report.scale == 100:
        parts[0] += " (0--100)"
    parts.append(f"missing-data policy: {latex_escape(report.missing)}")
    if report.changes:
        changed = "; ".join(
            latex_escape(f"{path}: " + ", ".join(f"{k} = {v}" for k, v in ch.items()))
            for path, ch in report.changes.items()
        )
        parts.append(f"changed from the defaults: {changed}")
    else:
        parts.append("published defaults")
    parts.append("best per column in bold (models with an overall score)")
    parts.append("=n: a shared rank")
    zero = [c for c in report.categories if report.weights.get(c, 1.0) == 0]
    if zero and opts.zero_weight == "mark":
        parts.append(f"{DAGGER}: weight 0, not in the overall score")
    return "; ".join(parts) + "."


def _tabular(head: list[str], rows: list[list[str]], align: str) -> list[str]:
    lines = [rf"\begin{{tabular}}{{{align}}}", r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    lines += [" & ".join(r) + r" \\" for r in rows]
    return lines + [r"\bottomrule", r"\end{tabular}"]


def _table(caption: str, label: str, tabular: list[str], resize: bool) -> list[str]:
    if resize:
        tabular = [r"\resizebox{\linewidth}{!}{%", *tabular, "}"]
    return [
        r"\begin{table}",
        r"\centering",
        rf"\caption{{{caption}}}",
        rf"\label{{{label}}}",
        *tabular,
        r"\end{table}",
    ]


def _tables(report: Report, opts: LatexOptions) -> list[str]:
    ranks, names, cells = _body(report, opts)
    cols = list(cells)
    caption = caption_text(report, opts)
    heads = {c: _head(report, c) for c in cols}
    if opts.fit == "transpose":
        head = ["", *names]
        rows = [[RANK, *ranks]] + [[heads[c], *cells[c]] for c in cols]
        return _table(caption, opts.label, _tabular(head, rows, "l" + "r" * len(names)), False)
    groups = [cols]
    if opts.fit == "split":
        groups = [cols[i : i + opts.max_columns] for i in range(0, len(cols), opts.max_columns)]
    out: list[str] = []
    for g, group in enumerate(groups):
        head = [RANK, latex_escape(NAME), *(heads[c] for c in group)]
        rows = [[ranks[i], names[i], *(cells[c][i] for c in group)] for i in range(len(names))]
        tab = _tabular(head, rows, "rl" + "r" * len(group))
        label, cap = opts.label, caption
        if len(groups) > 1:
            label, cap = f"{opts.label}-{g + 1}", f"{caption} Part {g + 1} of {len(groups)}."
        out += _table(cap, label, tab, opts.fit == "resize")
        out.append("")
    return out[:-1]


def report_latex(report: Report, options: LatexOptions | None = None) -> str:
    """The LaTeX source: the provenance comment block, then the table(s)."""
    opts = options or LatexOptions()
    bad = opts.problems()
    if bad:
        raise ValueError("; ".join(bad))
    needs = r"% needs \usepackage{booktabs}" + (
        r" and \usepackage{graphicx}" if opts.fit == "resize" else ""
    )
    lines = [comment_block(report.provenance, "%").rstrip("\n"), needs, *_tables(report, opts), ""]
    return "\n".join(lines)
