"""Writers for score tables: CSV and JSON (one file per level, full precision written as the
shortest text that reads back as the same float: ``0.9``, ``10.133``), a CSV zip, and the
paper-ready exports built by :mod:`.report`: one Excel workbook (:mod:`.xlsx`) and a LaTeX table
(:mod:`.latex`).

Every CSV/JSON table has the column ``model`` first. Text cells (names, never numbers) that a
spreadsheet would read as a formula (starting with = + - @, tab or carriage return) are prefixed
with a single quote in CSV and Excel exports.

Provenance (:mod:`.provenance`) goes with every export: the CSV zip and the CLI's csv output
hold ``provenance.json`` and ``settings.yml`` (the settings as a config file, with the
provenance as a ``#`` comment block); each JSON file is ``{"provenance": {...}, "rows":
[...]}``; the workbook has a Provenance sheet; the LaTeX table a ``%`` comment block.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import orjson

from ..config import dump_config
from ..models import display_names
from ..scoring import Scores, rank_change, score_change
from ..support.lazy import lazy_module
from .latex import LatexOptions, report_latex
from .provenance import comment_block, provenance_json, provenance_of_scores
from .report import Report, build_report, neutralise_text
from .xlsx import report_xlsx

pd = lazy_module("pandas")  # imported on first use: the first page needs none

__all__ = [
    "FORMATS",
    "build_report",
    "level_tables",
    "neutralise_text",
    "report_latex",
    "report_xlsx",
    "provenance_files",
    "safe_frame",
    "settings_yaml",
    "tables_csv_zip",
    "write_scores",
]

FORMATS = ("csv", "json", "xlsx", "latex")


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
    # no float_format: pandas writes repr(), the shortest text that round-trips
    return safe_frame(df).to_csv(index=False).encode("utf-8")


def _json_bytes(df: pd.DataFrame, provenance: dict) -> bytes:
    records = df.astype(object).where(df.notna(), None).to_dict(orient="records")
    return orjson.dumps(
        {"provenance": provenance, "rows": records},
        option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY,
    )


def settings_yaml(cfg, provenance: dict) -> str:
    """The settings as a config file (``ml-peg-like score`` accepts it), the provenance first
    as a ``#`` comment block."""
    return comment_block(provenance, "#") + dump_config(cfg)


def provenance_files(scores: Scores, provenance: dict) -> dict[str, bytes]:
    """``provenance.json`` and ``settings.yml`` of an export of ``scores``."""
    return {
        "provenance.json": provenance_json(provenance),
        "settings.yml": settings_yaml(scores.config, provenance).encode("utf-8"),
    }


def level_tables(
    scores: Scores,
    scale: float | None = None,
    *,
    attributes: pd.DataFrame | None = None,
    models=None,
    baseline_scores: Scores | None = None,
) -> dict[str, pd.DataFrame]:
    """:func:`score_tables` with a ``display_name`` column after ``model`` (when models.csv
    has one) and only ``models`` (default: all) as rows. ``baseline_scores``: a pinned view's
    scores (same models): the overall table adds ``rank_change_vs_baseline`` and
    ``score_change_vs_baseline`` (times the scale)."""
    tables = score_tables(scores, scale)
    if baseline_scores is not None:
        k = float(scale if scale is not None else scores.config.scale)
        _add_baseline(tables["overall_scores"], scores, baseline_scores, k)
    has_names = attributes is not None and "display_name" in getattr(attributes, "columns", ())
    keep = set(models) if models is not None else None
    for name, df in tables.items():
        if has_names:
            df.insert(1, "display_name", display_names(attributes, list(df["model"])))
        if keep is not None:
            df = df[df["model"].isin(keep)].reset_index(drop=True)
        tables[name] = df
    return tables


def _add_baseline(overall: pd.DataFrame, scores: Scores, baseline_scores: Scores, k: float):
    """The overall table's rank change (a number, or "new" / "no score") and score change
    against a pinned view's scores, by model (``scores.models`` order)."""
    if list(baseline_scores.models) != list(scores.models):
        raise ValueError("the baseline's scores are of other models")
    before, after = baseline_scores.overall_scores, scores.overall_scores
    delta, word = rank_change(before, after)
    change = score_change(before, after) * k
    by_model = {m: i for i, m in enumerate(scores.models)}
    rows = [by_model[m] for m in overall["model"]]
    overall["rank_change_vs_baseline"] = [word[i] or int(delta[i]) for i in rows]
    overall["score_change_vs_baseline"] = [
        None if np.isnan(change[i]) else float(change[i]) for i in rows
    ]


def tables_csv_zip(
    scores: Scores,
    scale: float | None = None,
    *,
    attributes: pd.DataFrame | None = None,
    models=None,
    provenance: dict | None = None,
    baseline_scores: Scores | None = None,
) -> bytes:
    """A zip holding one CSV per level (see :func:`level_tables`; ``baseline_scores``: the
    changes against a pinned view), ``provenance.json`` and ``settings.yml``
    (``provenance``: default :func:`~.provenance.provenance_of_scores`)."""
    prov = provenance if provenance is not None else provenance_of_scores(scores, scale=scale)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        tables = level_tables(
            scores, scale, attributes=attributes, models=models, baseline_scores=baseline_scores
        )
        for name, df in tables.items():
            zf.writestr(f"{name}.csv", _csv_bytes(df))
        for name, data in provenance_files(scores, prov).items():
            zf.writestr(name, data)
    return buf.getvalue()


def write_scores(
    scores: Scores,
    out_dir: str | Path,
    fmt: str = "csv",
    scale: float | None = None,
    *,
    report: Report | None = None,
    attributes: pd.DataFrame | None = None,
    provenance: dict | None = None,
    latex: LatexOptions | None = None,
) -> list[Path]:
    """Write the scores into ``out_dir``; return the paths. csv: one file per level
    (``metric_scores.csv`` ...) with ``provenance.json`` and ``settings.yml``; json: one file
    per level, each with its ``provenance``; xlsx: one workbook ``scores.xlsx``; latex:
    ``scores.tex`` laid out by ``latex`` (both from ``report``, default
    ``build_report(scores)``). ``provenance``: default
    :func:`~.provenance.provenance_of_scores`."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if fmt in ("xlsx", "latex"):
        rep = report if report is not None else build_report(scores, attributes=attributes)
        if fmt == "xlsx":
            p = out / "scores.xlsx"
            p.write_bytes(report_xlsx(rep))
        else:
            p = out / "scores.tex"
            p.write_text(report_latex(rep, latex), encoding="utf-8")
        return [p]
    prov = provenance if provenance is not None else provenance_of_scores(scores, scale=scale)
    files = {
        f"{name}.{fmt}": _csv_bytes(df) if fmt == "csv" else _json_bytes(df, prov)
        for name, df in level_tables(scores, scale, attributes=attributes).items()
    }
    if fmt == "csv":
        files.update(provenance_files(scores, prov))
    paths = []
    for name, data in files.items():
        p = out / name
        p.write_bytes(data)
        paths.append(p)
    return paths
