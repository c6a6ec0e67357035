"""Per-frame energies and other scalar properties from extended-XYZ files.

:func:`read_extxyz_energies` returns one row per frame: ``file``, ``frame`` (0-based index in
the file), ``n_atoms`` and every *scalar* key of the frame's comment line (e.g. ``energy``,
``model_energy``, ``ref_int_energy``, ``charge``, ``spin``). ``Lattice``, ``Properties``,
``pbc`` and array-valued keys are left out. Frames lacking a key get NaN in that column.

It uses ASE (``pip install 'ml-peg-like[xyz]'``) when installed, and otherwise a small
pure-Python parser of the comment line. Both give the same table on well-formed files: values
are ints, floats, booleans (``T``/``F``/``True``/``False``) or text; a key without ``=`` is
``True``. ASE moves ``energy`` (and other per-frame calculator results) out of ``atoms.info``;
they are put back here so that both backends have the same columns.
"""

from __future__ import annotations

import glob
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataError, Problem

__all__ = ["read_extxyz_energies", "parse_comment_line"]

_SKIP = {"lattice", "properties", "pbc"}
_TRUE = {"T", "True", "true", "TRUE"}
_FALSE = {"F", "False", "false", "FALSE"}


def _files(path) -> list[Path]:
    if isinstance(path, str | Path):
        p = Path(path)
        if p.is_dir():
            files = sorted(q for q in p.iterdir() if q.suffix.lower() in (".xyz", ".extxyz"))
        elif p.is_file():
            files = [p]
        elif any(ch in str(path) for ch in "*?["):
            files = [Path(q) for q in sorted(glob.glob(str(path)))]
        else:
            raise DataError([Problem(str(path), "no such file or directory")])
    elif isinstance(path, Iterable):
        files = []
        for q in path:
            files.extend(_files(q))
    else:
        raise DataError([Problem(str(path), "expected a file, a directory, a glob or a list")])
    if not files:
        raise DataError([Problem(str(path), "no .xyz/.extxyz files found")])
    return files


def _tokens(line: str) -> list[str]:
    """Split on whitespace outside double quotes; quotes are kept on the value (removed later)."""
    out: list[str] = []
    cur: list[str] = []
    quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and quoted and i + 1 < len(line):
            cur.append(line[i + 1])
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
            cur.append(ch)
        elif ch.isspace() and not quoted:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
        i += 1
    if quoted:
        raise ValueError("unbalanced double quote")
    if cur:
        out.append("".join(cur))
    return out


def _scalar(text: str) -> Any:
    """int, float, bool or text; None for an array-like value (several numbers)."""
    s = text.strip()
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    parts = s.replace(",", " ").split()
    if len(parts) > 1:
        try:
            [float(x) for x in parts]
            return None  # a vector or matrix: not a scalar property
        except ValueError:
            pass
        if all(p in _TRUE | _FALSE for p in parts):
            return None
    return s


def parse_comment_line(line: str) -> dict[str, Any]:
    """Scalar ``key=value`` pairs of an extended-XYZ comment line (see the module docstring).

    A value runs to the next unquoted whitespace, so ``Energy=spin=1`` gives
    ``{"Energy": "spin=1"}`` (as ASE reads it). ``Lattice``, ``Properties`` and ``pbc`` are
    skipped, and so are array values such as ``stress="1 0 0 0 1 0 0 0 1"``.
    """
    out: dict[str, Any] = {}
    for tok in _tokens(line.strip()):
        key, eq, value = tok.partition("=")
        key = key.strip('"')
        if not key or key.lower() in _SKIP:
            continue
        if not eq:
            out[key] = True
            continue
        quoted = len(value) >= 2 and value[0] == '"' and value[-1] == '"'
        v = _scalar(value[1:-1] if quoted else value)
        if v is not None:
            out[key] = v
    return out


def _read_python(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError([Problem(str(path), f"cannot read: {exc}")]) from None
    lines = text.splitlines()
    rows: list[dict[str, Any]] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        try:
            n = int(lines[i].strip())
            if n < 0:
                raise ValueError
        except ValueError:
            raise DataError(
                [
                    Problem(
                        f"{path}:{i + 1}", f"expected an atom count, got {lines[i].strip()[:40]!r}"
                    )
                ]
            ) from None
        if i + 1 >= len(lines):
            raise DataError([Problem(f"{path}:{i + 2}", "missing comment line")])
        if i + 2 + n > len(lines):
            raise DataError(
                [Problem(f"{path}:{len(lines)}", f"truncated frame: expected {n} atom lines")]
            )
        try:
            info = parse_comment_line(lines[i + 1])
        except ValueError as exc:
            raise DataError([Problem(f"{path}:{i + 2}", f"bad comment line: {exc}")]) from None
        rows.append({"frame": len(rows), "n_atoms": n, **info})
        i += 2 + n
    return rows


def _read_ase(path: Path) -> list[dict[str, Any]]:
    from ase.io import read

    try:
        frames = read(str(path), index=":", format="extxyz")
    except Exception as exc:  # ASE raises many types on malformed files
        raise DataError([Problem(str(path), f"ASE cannot read it: {exc}")]) from None
    rows: list[dict[str, Any]] = []
    for k, atoms in enumerate(frames):
        row: dict[str, Any] = {"frame": k, "n_atoms": len(atoms)}
        values = dict(atoms.info)
        calc = getattr(atoms, "calc", None)
        if calc is not None:
            values.update(getattr(calc, "results", {}) or {})
        for key, v in values.items():
            if str(key).lower() in _SKIP:
                continue
            if hasattr(v, "item") and getattr(v, "ndim", 0) == 0:
                v = v.item()
            if isinstance(v, bool | int | float | str):
                row[str(key)] = v
        rows.append(row)
    return rows


def _have_ase() -> bool:
    try:
        import ase.io  # noqa: F401
    except ImportError:
        return False
    return True


def read_extxyz_energies(path, *, backend: str = "auto") -> pd.DataFrame:
    """One row per frame of one or more extended-XYZ files (file, directory, glob or list).

    ``backend``: ``"auto"`` (ASE when installed, else the built-in parser), ``"ase"`` or
    ``"python"``. Raises DataError naming the file (and line, for the built-in parser).
    """
    if backend not in ("auto", "ase", "python"):
        raise ValueError(f"backend: expected 'auto', 'ase' or 'python', got {backend!r}")
    if backend == "auto":
        backend = "ase" if _have_ase() else "python"
    elif backend == "ase" and not _have_ase():
        raise DataError([Problem("", "backend 'ase' needs ASE: pip install 'ml-peg-like[xyz]'")])
    reader = _read_ase if backend == "ase" else _read_python
    rows: list[dict[str, Any]] = []
    for f in _files(path):
        for row in reader(f):
            rows.append({"file": str(f), **row})
    return pd.DataFrame(rows)
