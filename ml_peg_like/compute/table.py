"""The predictions table made ready for the kernels: validated flat arrays and segment ids.

:func:`prepare_table` checks the columns the SPEC needs, reports every bad row with its
``file:line``, numbers models (first appearance), benchmarks (SPEC order), samples and
instances, marks the usable predictions and computes each (model, benchmark)'s missing fraction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DataError, Problem
from .segments import compress, dense_ok
from .spec import (
    CONTROL_CHARS,
    FNS,
    KINDS,
    MAX_REPORTED,
    VECTOR_COLS,
    BenchmarkSpec,
    Spec,
    short_repr,
)

_NUMERIC = (
    "reference",
    "prediction",
    "n_atoms",
    "weight",
    *(f"reference_{c}" for c in VECTOR_COLS),
    *(f"prediction_{c}" for c in VECTOR_COLS),
)


def _where(source: str, first_line: int | None, pos: int) -> str:
    if source and first_line:
        return f"{source}:{pos + first_line}"
    if source:
        return f"{source} row {pos}"
    return f"row {pos}"


def _codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) of a column in first-appearance order; code -1 for a missing cell.

    A categorical column is cheap: its codes are reused (renumbered only when the categories
    are not already in first-appearance order or some are unused).
    """
    if isinstance(col.dtype, pd.CategoricalDtype):
        raw = col.cat.codes.to_numpy()
        cats = np.asarray(col.cat.categories.astype(str), dtype=object)
        has_na = bool((raw < 0).any())
        first = pd.unique(raw[raw >= 0] if has_na else raw).astype(np.int64)
        if first.size == len(cats) and (first == np.arange(first.size)).all():
            return raw.astype(np.int64), cats
        remap = np.full(len(cats) + 1, -1, dtype=np.int64)  # remap[-1] = -1 for missing cells
        remap[first] = np.arange(first.size)
        return remap[raw], cats[first]
    codes, uniques = pd.factorize(col, sort=False, use_na_sentinel=True)
    return codes.astype(np.int64), np.asarray([str(u) for u in uniques], dtype=object)


def _first_appearance(codes: np.ndarray, used: np.ndarray) -> np.ndarray:
    """The codes marked ``used``, in order of first appearance in ``codes``.

    Looks only at the starts of runs of equal codes when the table is grouped (the usual
    layout), else at growing prefixes (a shuffled table shows every code early).
    """
    want = int(used.sum())
    starts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    if starts.size < codes.size // 8:
        first = pd.unique(np.concatenate((codes[:1], codes[starts])))
        return first[used[first]].astype(np.int64)
    k = 1 << 16
    while True:
        first = pd.unique(codes[:k])
        first = first[used[first]]
        if first.size == want or k >= codes.size:
            return first.astype(np.int64)
        k *= 4


def _segment_ids(mcodes: np.ndarray, n_bench: int, bench: np.ndarray) -> np.ndarray:
    g = mcodes * n_bench
    g += bench
    return g


@dataclass
class Table:
    """The predictions as flat arrays; ``g`` numbers the (model, benchmark) segments."""

    models: np.ndarray  # model names (first appearance)
    n_models: int
    n_bench: int  # benchmarks of the spec
    g: np.ndarray  # segment id per row: model * n_bench + benchmark
    bench: np.ndarray  # benchmark index (spec order) per row
    sample: np.ndarray  # sample code per row, in [0, n_samples)
    n_samples: int
    cols: dict[str, np.ndarray] = field(default_factory=dict)
    valid: np.ndarray | None = None  # row has a usable prediction
    missing: np.ndarray | None = None  # (n_groups,) missing fraction
    rows_g: np.ndarray | None = None  # (n_groups,) rows per segment
    model_order: np.ndarray | None = None  # models with rows, in order of first appearance
    # per-instance metrics only: (model, benchmark, instance) segments, see `_instances`
    instance_names: np.ndarray | None = None  # instance id (text) per instance code
    n_instances: int = 0
    inst_g: np.ndarray | None = None  # segment id per row, in [0, inst_keys.size)
    inst_keys: np.ndarray | None = None  # sorted keys (model * n_bench + bench) * n_inst + inst
    inst_rows: np.ndarray | None = None  # rows per instance segment

    @property
    def n_groups(self) -> int:
        return self.n_models * self.n_bench


def _instances(t: Table, col: pd.Series | None, sample_names: np.ndarray | None) -> None:
    """Number the (model, benchmark, instance) segments of the per-instance metrics.

    An instance is a value of the optional ``instance`` column (e.g. a UAI problem whose
    variables are the samples of a distribution benchmark) or, without that column, a sample.
    Sets ``t.inst_g = -1`` on the rows with an empty instance id (reported by the caller).
    """
    if col is None:
        if sample_names is None:  # integer sample ids are their own codes
            sample_names = np.arange(t.n_samples).astype(str).astype(object)
        codes, t.instance_names = t.sample, sample_names
    else:
        codes, t.instance_names = _codes(col)
        t.instance_names = np.asarray([str(n).strip() for n in t.instance_names], dtype=object)
    n_inst = t.n_instances = max(len(t.instance_names), 1)
    if (codes < 0).any():
        t.inst_g = codes
        return
    t.inst_g, t.inst_keys = compress(t.g * n_inst + codes, t.n_groups * n_inst)
    t.inst_rows = np.bincount(t.inst_g, minlength=t.inst_keys.size)


def _float_column(df, col, source, first_line, problems) -> np.ndarray:
    s = df[col]
    if s.dtype.kind in "fiu":
        return (
            s.to_numpy(dtype=float, na_value=np.nan)
            if s.dtype.kind == "f"
            else s.to_numpy(dtype=float)
        )
    if s.dtype.kind == "b":
        problems.append(
            Problem(source or "predictions", f"column {col!r}: expected numbers, got booleans")
        )
        return np.full(len(s), np.nan)
    num = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = np.isnan(num) & s.notna().to_numpy()
    if bad.any():
        text = s.astype(str).str.strip()
        bad &= ~text.str.lower().isin({"", "nan", "na", "n/a", "null", "none"}).to_numpy()
    for k in np.flatnonzero(bad)[:MAX_REPORTED]:
        problems.append(
            Problem(
                _where(source, first_line, int(k)),
                f"column {col!r}: {short_repr(s.iloc[k])} is not a number",
            )
        )
    if bad.sum() > MAX_REPORTED:
        problems.append(
            Problem(
                source or "predictions",
                f"... and {bad.sum() - MAX_REPORTED} more non-numbers in {col!r}",
            )
        )
    return num


def _report_rows(mask, message, source, first_line, problems, rows=None) -> None:
    idx = np.flatnonzero(mask) if rows is None else rows[mask]
    for k in idx[:MAX_REPORTED]:
        problems.append(Problem(_where(source, first_line, int(k)), message))
    if idx.size > MAX_REPORTED:
        problems.append(
            Problem(
                source or "predictions", f"... and {idx.size - MAX_REPORTED} more rows: {message}"
            )
        )


@dataclass
class _Check:
    """Where the table came from (for ``file:line`` messages), its columns by lower-case name
    and the problems found so far."""

    df: pd.DataFrame
    spec: Spec
    source: str
    first_line: int | None
    lower: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def place(self) -> str:
        return self.source or "predictions"

    @property
    def header(self) -> str:
        return f"{self.source}:1" if self.source and self.first_line else self.place

    def rows(self, mask: np.ndarray, message: str) -> None:
        _report_rows(mask, message, self.source, self.first_line, self.problems)

    def stop(self) -> None:
        """Raise every problem found so far, if any."""
        if self.problems:
            raise DataError(self.problems)

    def column(self, name: str) -> pd.Series:
        return self.df[self.lower[name]]

    def no_rows(self, i: int) -> None:
        self.problems.append(
            Problem(
                self.spec.source or "spec",
                f"benchmark {self.spec.benchmarks[i].name!r} has no rows in the predictions",
            )
        )


def _check_columns(df: pd.DataFrame, spec: Spec) -> _Check:
    """A DataFrame with model, benchmark and sample columns (matched case-insensitively, each
    once) and at least one row."""
    if not isinstance(df, pd.DataFrame):
        raise DataError(
            [Problem("predictions", f"expected a pandas DataFrame, got {type(df).__name__}")]
        )
    ck = _Check(df, spec, str(df.attrs.get("source", "")), df.attrs.get("first_line", None))
    for c in df.columns:
        lc = str(c).strip().lower()
        if lc in ck.lower:
            ck.problems.append(Problem(ck.place, f"column {lc!r} appears twice"))
        ck.lower[lc] = c
    for need in ("model", "benchmark", "sample"):
        if need not in ck.lower:
            columns = ", ".join(map(str, df.columns))
            ck.problems.append(Problem(ck.header, f"missing column {need!r} (columns: {columns})"))
    ck.stop()
    if len(df) == 0:
        raise DataError([Problem(ck.place, "no rows")])
    return ck


def _benchmark_codes(ck: _Check) -> np.ndarray:
    """The benchmark of each row as its index in the SPEC; every row's benchmark must be there."""
    bcol = ck.column("benchmark")
    spec_index = {b.name: i for i, b in enumerate(ck.spec.benchmarks)}
    if isinstance(bcol.dtype, pd.CategoricalDtype):  # no need to renumber: mapped through lut
        bcodes = bcol.cat.codes.to_numpy()
        bnames = np.asarray(bcol.cat.categories.astype(str), dtype=object)
    else:
        bcodes, bnames = _codes(bcol)
    # lut[code] = spec index; lut[-1] (a missing cell) = -2
    lut = np.array([spec_index.get(str(n).strip(), -1) for n in bnames] + [-2], dtype=np.int64)
    bench = lut[bcodes]
    if (bench < 0).any():
        _report_bad_benchmarks(ck, bench, bcodes, bnames)
        raise DataError(ck.problems)
    return bench


def _report_bad_benchmarks(ck: _Check, bench, bcodes, bnames) -> None:
    """Rows without a benchmark, benchmarks not in the SPEC, SPEC benchmarks without rows."""
    if (bench == -2).any():
        ck.rows(bench == -2, "empty benchmark name")
    used = np.unique(bcodes[bench == -1])
    unknown = sorted({str(bnames[k]) for k in used})
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:10])
        shown += " ..." if len(unknown) > 10 else ""
        ck.problems.append(
            Problem(
                ck.place,
                f"benchmark(s) not in the spec: {shown} (add them to the spec or drop their rows)",
            )
        )
    known = np.unique(bench[bench >= 0])
    for i in sorted(set(range(len(ck.spec.benchmarks))) - set(known.tolist())):
        ck.no_rows(i)


def _model_codes(ck: _Check) -> tuple[np.ndarray, np.ndarray]:
    """(model code per row, model names); rows without a model are reported."""
    mcol = ck.column("model")
    if isinstance(mcol.dtype, pd.CategoricalDtype):  # keep the category numbering (no gather)
        mcodes = mcol.cat.codes.to_numpy().astype(np.int64)
        mnames = np.asarray(mcol.cat.categories.astype(str), dtype=object)
    else:
        mcodes, mnames = _codes(mcol)
    if (mcodes < 0).any():
        ck.rows(mcodes < 0, "empty model name")
    return mcodes, mnames


def _sample_codes(ck: _Check) -> tuple[np.ndarray, int, np.ndarray | None]:
    """(sample code per row, number of codes, sample names or None for integer ids, which are
    their own codes); rows without a sample id are reported."""
    scol = ck.column("sample")
    if (
        scol.dtype.kind in "iu"
        and len(scol)
        and int(scol.min()) >= 0
        and int(scol.max()) < 4 * len(scol) + 1024
    ):
        scodes = scol.to_numpy(dtype=np.int64)
        return scodes, int(scodes.max()) + 1, None  # their text, if needed, is made by `_instances`
    scodes, suniq = _codes(scol)
    if (scodes < 0).any():
        ck.rows(scodes < 0, "empty sample id")
    return scodes, len(suniq), suniq


def _check_models(ck: _Check, t: Table, mcodes: np.ndarray, mnames: np.ndarray) -> None:
    """Order the models by first appearance, check their names, and check that every SPEC
    benchmark has rows."""
    rows_g = t.rows_g = np.bincount(t.g, minlength=t.n_groups)
    per_model_bench = rows_g.reshape(t.n_models, t.n_bench)
    t.model_order = _first_appearance(mcodes, per_model_bench.sum(axis=1) > 0)
    names = [str(n).strip() for n in mnames[t.model_order]]
    t.models = np.asarray([str(n).strip() for n in mnames], dtype=object)
    for n in names:
        if not n or CONTROL_CHARS.search(n) or len(n) > 200:
            ck.problems.append(
                Problem(
                    ck.place,
                    f"bad model name {short_repr(n)}: 1-200 characters, no control characters",
                )
            )
    if len(set(names)) != len(names):
        ck.problems.append(Problem(ck.place, "model names differ only by surrounding spaces"))
    for i in np.flatnonzero(per_model_bench.sum(axis=0) == 0):
        ck.no_rows(i)
    ck.stop()


def _columns_of(b: BenchmarkSpec) -> list[str]:
    """The value columns benchmark ``b``'s metrics read."""
    if b.kind == "vector":
        cols = [f"prediction_{c}" for c in VECTOR_COLS]
        if any(m.needs_reference for m in b.metrics):
            cols += [f"reference_{c}" for c in VECTOR_COLS]
    else:
        cols = ["prediction"] + (["reference"] if any(m.needs_reference for m in b.metrics) else [])
    if any(m.per_atom != "none" for m in b.metrics if "per_atom" in FNS[m.fn].options):
        cols.append("n_atoms")
    if any(m.weighted for m in b.metrics):
        cols.append("weight")
    return cols


def _needed_columns(ck: _Check) -> dict[str, list[str]]:
    """Value column -> the benchmarks that need it; every one must be in the table."""
    need_cols: dict[str, list[str]] = {}
    for b in ck.spec.benchmarks:
        for c in _columns_of(b):
            need_cols.setdefault(c, []).append(b.name)
    for c, benches in need_cols.items():
        if c not in ck.lower:
            shown = ", ".join(repr(b) for b in benches[:5]) + (" ..." if len(benches) > 5 else "")
            ck.problems.append(
                Problem(ck.header, f"missing column {c!r} (needed by benchmark(s) {shown})")
            )
    ck.stop()
    return need_cols


def _read_numbers(ck: _Check, t: Table) -> None:
    for c in _NUMERIC:
        if c in ck.lower:
            t.cols[c] = _float_column(ck.df, ck.lower[c], ck.source, ck.first_line, ck.problems)
    ck.stop()


def _rows_needing(spec: Spec, need_cols, col: str, bench: np.ndarray) -> np.ndarray | bool:
    """The rows of the benchmarks that need ``col`` (True: every row)."""
    sel = np.zeros(len(spec.benchmarks), dtype=bool)
    for i, b in enumerate(spec.benchmarks):
        if b.name in need_cols.get(col, ()):
            sel[i] = True
    return True if sel.all() else sel[bench]


def _check_inputs(ck: _Check, t: Table, need_cols, row_kind: np.ndarray) -> None:
    """References finite, n_atoms > 0, weights >= 0, reference probabilities >= 0, wherever a
    metric reads them."""

    def report(col: str, ok: np.ndarray, message: str) -> None:
        bad = _rows_needing(ck.spec, need_cols, col, t.bench) & ~ok
        if bad.any():
            ck.rows(bad, message)

    for c in ("reference", *(f"reference_{x}" for x in VECTOR_COLS)):
        if c in need_cols:
            report(
                c,
                np.isfinite(t.cols[c]),
                f"{c} is missing or not finite (references must be given)",
            )
    if "n_atoms" in need_cols:
        n = t.cols["n_atoms"]
        report(
            "n_atoms",
            np.isfinite(n) & (n > 0),
            "n_atoms must be a number > 0 (per_atom normalisation)",
        )
    if "weight" in need_cols:
        w = t.cols["weight"]
        report("weight", np.isfinite(w) & (w >= 0), "weight must be a finite number >= 0")
    if "distribution" in {b.kind for b in ck.spec.benchmarks}:
        bad = (row_kind == KINDS.index("distribution")) & np.isfinite(t.cols["reference"])
        bad &= t.cols["reference"] < 0
        if bad.any():
            ck.rows(bad, "reference probability < 0")
    ck.stop()


def _usable(t: Table, used_kinds: set[str], row_kind: np.ndarray, n_rows: int) -> np.ndarray:
    """Rows with a usable prediction: finite (every component of a vector), and not negative
    in a distribution."""
    if used_kinds == {"scalar"}:
        return np.isfinite(t.cols["prediction"])
    valid = np.ones(n_rows, dtype=bool)
    if "scalar" in used_kinds or "distribution" in used_kinds:
        p = t.cols["prediction"]
        ok = np.isfinite(p)
        if "distribution" in used_kinds:
            ok &= ~((row_kind == KINDS.index("distribution")) & (p < 0))
        sel = row_kind != KINDS.index("vector")
        valid &= ok | ~sel
    if "vector" in used_kinds:
        ok = np.ones(n_rows, dtype=bool)
        for c in VECTOR_COLS:
            ok &= np.isfinite(t.cols[f"prediction_{c}"])
        valid &= ok | (row_kind != KINDS.index("vector"))
    return valid


def prepare_table(df: pd.DataFrame, spec: Spec) -> Table:
    ck = _check_columns(df, spec)
    bench = _benchmark_codes(ck)
    mcodes, mnames = _model_codes(ck)
    scodes, n_samples, suniq = _sample_codes(ck)
    ck.stop()

    kinds = np.array([KINDS.index(b.kind) for b in spec.benchmarks], dtype=np.int8)
    row_kind = kinds[bench]
    t = Table(
        models=mnames,
        n_models=len(mnames),
        n_bench=len(spec.benchmarks),
        g=_segment_ids(mcodes, len(spec.benchmarks), bench),
        bench=bench,
        sample=scodes,
        n_samples=max(n_samples, 1),
    )
    if any(m.per_instance for b in spec.benchmarks for m in b.metrics):
        _instances(t, ck.column("instance") if "instance" in ck.lower else None, suniq)
        if "instance" in ck.lower and (t.inst_g < 0).any():
            ck.rows(t.inst_g < 0, "empty instance id")
            ck.stop()
    _check_models(ck, t, mcodes, mnames)
    need_cols = _needed_columns(ck)
    _read_numbers(ck, t)
    _check_inputs(ck, t, need_cols, row_kind)
    valid = _usable(t, {b.kind for b in spec.benchmarks}, row_kind, len(df))
    # duplicates, samples per benchmark, missing fraction
    is_dist_b = kinds == KINDS.index("distribution")
    t.missing, t.valid = _missing(t, valid, is_dist_b, row_kind, ck.source, ck.first_line)
    return t


def _missing(t: Table, valid, is_dist_b, row_kind, source, first_line):
    """Missing fraction per (model, benchmark) segment, and the row validity after it.

    A benchmark's samples are the distinct sample ids any model has for it; a model misses a
    sample it has no row for or whose prediction is not usable (in a distribution, any state).
    Also rejects duplicate (model, benchmark, sample) rows outside distribution benchmarks.
    """
    key3 = t.g * t.n_samples + t.sample
    is_dist_row = None
    if is_dist_b.any():
        is_dist_row = row_kind == KINDS.index("distribution")
    where = (source, first_line)
    if dense_ok(t.n_groups * t.n_samples, key3.size):
        expected, got, valid = _counts_dense(t, key3, valid, is_dist_b, is_dist_row, where)
    else:
        expected, got, valid = _counts_sparse(t, key3, valid, is_dist_row, where)
    exp = np.tile(expected, t.n_models).astype(float)
    missing = (exp - got) / exp  # exact for e.g. 1/50, unlike 1 - 49/50
    return missing, valid


def _counts_dense(t: Table, key3, valid, is_dist_b, is_dist_row, where):
    """(samples per benchmark, usable samples per segment, row validity) from dense tables
    indexed by (model, benchmark, sample)."""
    M, B, S = t.n_models, t.n_bench, t.n_samples
    G, K = t.n_groups, t.n_groups * t.n_samples
    counts = np.bincount(key3, minlength=K)
    c3 = counts.reshape(M, B, S)
    if is_dist_row is None:
        dup_max = counts.max()
    else:
        dup_max = c3[:, ~is_dist_b].max() if (~is_dist_b).any() else 0
    if dup_max > 1:
        dup = counts[key3] > 1
        _raise_dups(dup if is_dist_row is None else dup & ~is_dist_row, *where)
    expected = c3.any(axis=0).sum(axis=1)
    if is_dist_row is None:
        got = t.rows_g.copy()  # one row per sample
    else:
        got = (c3 > 0).sum(axis=2).reshape(-1)
    if not bool(valid.all()):
        bad_keys = np.unique(key3[~valid])  # few: one per missing sample
        got -= np.bincount(bad_keys // S, minlength=G)
        if is_dist_row is not None and (is_dist_row & ~valid).any():
            bad = np.zeros(K, dtype=bool)
            bad[bad_keys] = True
            valid = valid & ~(bad[key3] & is_dist_row)  # a variable is valid as a whole
    return expected, got, valid


def _counts_sparse(t: Table, key3, valid, is_dist_row, where):
    """As :func:`_counts_dense`, from the sorted keys (a sparse table)."""
    B, S = t.n_bench, t.n_samples
    uniq, ids, counts = np.unique(key3, return_inverse=True, return_counts=True)
    ids = ids.reshape(-1)
    dup = counts[ids] > 1
    if is_dist_row is not None:
        dup &= ~is_dist_row
    if dup.any():
        _raise_dups(dup, *where)
    ug = uniq // S
    bs = np.unique((ug % B) * S + uniq % S)
    expected = np.bincount(bs // S, minlength=B)
    bad = np.zeros(uniq.size, dtype=bool)
    if not bool(valid.all()):
        bad = np.bincount(ids[~valid], minlength=uniq.size) > 0
        if is_dist_row is not None and (is_dist_row & ~valid).any():
            valid = valid & ~(bad[ids] & is_dist_row)
    got = np.bincount(ug[~bad], minlength=t.n_groups)
    return expected, got, valid


def _raise_dups(dup: np.ndarray, source, first_line) -> None:
    problems: list[Problem] = []
    _report_rows(dup, "duplicate (model, benchmark, sample)", source, first_line, problems)
    if problems:
        raise DataError(problems)
