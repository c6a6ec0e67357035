"""A :class:`~ml_peg_like.io.report.Report` as a LaTeX table for a paper: booktabs rules
(``\\toprule``, ``\\midrule``, ``\\bottomrule``), columns Rank, Model (display name), Overall
and one per category, scores to the report's significant digits (:func:`numfmt.fmt_score`), the
best value of each score column in bold (every model sharing it), missing scores ``--``, LaTeX's
special characters escaped. Needs ``\\usepackage{booktabs}``."""

from __future__ import annotations

import math

from ..numfmt import fmt_score
from .report import NAME, OVERALL, RANK, Report

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


def report_latex(report: Report) -> str:
    """The LaTeX source of a ``table`` with a booktabs ``tabular``."""
    df = report.sheets["Overall"]
    cols = [OVERALL, *report.categories]
    texts: dict[str, list[str]] = {}
    for c in cols:
        vals = [None if v is None or math.isnan(v) else float(v) for v in df[c].tolist()]
        shown = [fmt_score(v, 1.0, report.digits) if v is not None else "--" for v in vals]
        # bold: the best value as shown (two models that print the same are both best)
        numbers = [float(t) for t, v in zip(shown, vals, strict=True) if v is not None]
        best = max(numbers) if numbers else None
        texts[c] = [
            rf"\textbf{{{t}}}" if v is not None and best is not None and float(t) == best else t
            for t, v in zip(shown, vals, strict=True)
        ]
    head = [RANK, NAME, *cols]
    lines = [
        r"\begin{table}",
        r"\centering",
        rf"\caption{{{latex_escape(report.title)}: overall and category scores"
        + (" (0--100)" if report.scale == 100 else "")
        + r"; best per column in bold.}",
        r"\begin{tabular}{rl" + "r" * len(cols) + "}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in head) + r" \\",
        r"\midrule",
    ]
    for i in range(len(df)):
        rank = df[RANK].iloc[i]
        rank_text = (
            "--"
            if rank is None or (isinstance(rank, float) and math.isnan(rank))
            else str(int(rank))
        )
        cells = [rank_text, latex_escape(df[NAME].iloc[i])] + [texts[c][i] for c in cols]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)
