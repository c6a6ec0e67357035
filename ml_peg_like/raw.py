"""Raw metric values: a models x metrics float matrix, read from long or wide CSV.

A raw-data column is identified by (benchmark, metric); benchmark names are unique in a config.
Every problem in a file is reported at once, with its line number.

Per-instance metrics (a long CSV with an ``instance`` column, written by ``compute`` for
``per_instance: true``): :attr:`RawData.instances` holds a (models x instances) block per such
metric, and :attr:`RawData.values` holds the mean of each model's present instance values (the
"raw value" shown in tables). Scoring normalises every instance on its own
(:mod:`ml_peg_like.scoring.instances`).
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .config import Config, ModelRef
from .config.yamlio import read_config
from .errors import DataError, Problem
from .support import rawcache
from .support.files import file_kind, file_record, megabytes, read_limited
from .support.lazy import lazy_module

pd = lazy_module("pandas")  # imported on first use: the first page needs none

MISSING_TOKENS = {"", "nan", "na", "n/a", "null", "none"}
MAX_REPORTED = 25
#: the most columns of a table read (models.csv: a model column and attribute columns)
MAX_COLUMNS = 10_000
MAX_MODEL_COLUMNS = 1_000
#: a raw CSV may have this many columns beyond one per metric of the config
MAX_EXTRA_COLUMNS = 2_000
#: the largest raw CSV (or models.csv) read, in MB, unless the environment variable
#: :data:`MAX_RAW_ENV` says otherwise (an ML-PEG-scale raw CSV is well under 1 MB)
MAX_RAW_MB = 256
MAX_RAW_ENV = "ML_PEG_LIKE_MAX_RAW_MB"
MAX_NAME = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class InstanceBlock:
    """The raw values of one per-instance metric: ``values[i, k]`` is model ``i`` on instance
    ``names[k]`` (NaN = missing)."""

    names: tuple[str, ...]
    values: np.ndarray


@dataclass
class RawData:
    """Raw values: ``values[i, j]`` is model ``models[i]`` on ``metric_ids[j]``; NaN = missing.

    ``instances[(benchmark, metric)]``: the per-instance values of a per-instance metric (its
    column of ``values`` is the mean of each model's present instance values)."""

    models: tuple[str, ...]
    metric_ids: tuple[tuple[str, str], ...]
    values: np.ndarray
    attributes: pd.DataFrame | None = None  # index: model; columns: attributes
    warnings: list[str] = field(default_factory=list)
    instances: dict[tuple[str, str], InstanceBlock] = field(default_factory=dict)
    #: provenance of the files read (``io.provenance``): ``raw`` (and, from
    #: :func:`load_dataset`, ``config`` and the converter's ``source``) records
    origin: dict = field(default_factory=dict)

    def aligned_instances(self, cfg: Config) -> dict[int, InstanceBlock]:
        """The per-instance blocks keyed by column index in ``cfg.metric_ids()`` order."""
        if not self.instances:
            return {}
        return {
            j: self.instances[mid]
            for j, mid in enumerate(cfg.metric_ids())
            if mid in self.instances
        }

    def aligned(self, cfg: Config) -> np.ndarray:
        """The values with columns in ``cfg.metric_ids()`` order (absent metrics are NaN)."""
        ids = cfg.metric_ids()
        if tuple(ids) == self.metric_ids:
            return self.values
        pos = {mid: j for j, mid in enumerate(self.metric_ids)}
        out = np.full((len(self.models), len(ids)), np.nan)
        for j, mid in enumerate(ids):
            k = pos.get(mid)
            if k is not None:
                out[:, j] = self.values[:, k]
        return out

    def to_long(self, cfg: Config | None = None) -> pd.DataFrame:
        """Long table ``model, benchmark, metric, value`` (missing values omitted)."""
        cat_of = {}
        if cfg is not None:
            for c in cfg.categories:
                for b in c.benchmarks:
                    cat_of[b.name] = c.name
        i, j = np.nonzero(~np.isnan(self.values))
        df = pd.DataFrame(
            {
                "model": np.asarray(self.models, dtype=object)[i],
                "benchmark": [self.metric_ids[k][0] for k in j],
                "metric": [self.metric_ids[k][1] for k in j],
                "value": self.values[i, j],
            }
        )
        if cat_of:
            df.insert(0, "category", df["benchmark"].map(cat_of))
        return df

    def subset(self, models) -> RawData:
        idx = [self.models.index(m) for m in models]
        blocks = {k: InstanceBlock(b.names, b.values[idx]) for k, b in self.instances.items()}
        return RawData(
            tuple(models),
            self.metric_ids,
            self.values[idx],
            self.attributes,
            list(self.warnings),
            blocks,
        )


def max_raw_bytes() -> int:
    """The size limit of a raw CSV: :data:`MAX_RAW_MB`, or ``$ML_PEG_LIKE_MAX_RAW_MB``."""
    text = os.environ.get(MAX_RAW_ENV, "").strip()
    if not text:
        return MAX_RAW_MB * 2**20
    try:
        mb = float(text)
    except ValueError:
        mb = math.nan
    if not (math.isfinite(mb) and mb > 0):
        raise DataError([Problem(MAX_RAW_ENV, f"expected a number of MB > 0, got {text[:40]!r}")])
    return int(mb * 2**20)


def _check_width(text: str, name: str, max_columns: int) -> None:
    """Refuse a table whose header has more than ``max_columns`` fields, before pandas parses
    it (a 1 MB file of 100,000 columns costs pandas ~20 s and ~400 MB)."""
    first = re.match(r"[^\r\n]*", text).group(0)  # the header line (any line ending)
    try:
        n = len(next(csv.reader([first]), []))
    except csv.Error:  # left to the parser, which names the line
        return
    if n > max_columns:
        raise DataError(
            [Problem(f"{name}:1", f"{n:,} columns, more than the {max_columns:,} read: refused")]
        )


def _read_table(source, what: str, max_columns: int = MAX_COLUMNS) -> pd.DataFrame:
    """Read a CSV as text cells (UTF-8, with or without BOM); errors name the file and line.

    A path must be a regular file of at most :func:`max_raw_bytes` (checked before reading);
    a table of more than ``max_columns`` columns is refused before it is parsed."""
    name = str(source) if not hasattr(source, "read") else what
    limit = max_raw_bytes()
    if hasattr(source, "read"):
        try:
            data = source.read(limit + 1)
        except OSError as exc:
            raise DataError([Problem(name, f"cannot read: {exc.strerror or exc}")]) from None
        if len(data) > limit:
            raise DataError([Problem(name, f"larger than {megabytes(limit)} ({MAX_RAW_ENV})")])
    else:
        data = read_limited(source, limit, error=DataError)
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise DataError(
                [Problem(f"{name}:{line}", "not UTF-8 text: save the file as UTF-8")]
            ) from None
    else:
        text = data.lstrip("\ufeff")
    if not text.strip():
        raise DataError([Problem(name, "the file is empty")])
    _check_width(text, name, max_columns)
    try:
        # header=None: a row with more fields than the header is an error with its line
        # (with a header, pandas would silently turn the extra fields into an index)
        df = pd.read_csv(
            io.StringIO(text),
            dtype=str,
            header=None,
            keep_default_na=False,
            skipinitialspace=True,
            skip_blank_lines=True,
        )
        df = df.fillna("")
        header = [str(c).strip() for c in df.iloc[0]]
        df = df.iloc[1:].reset_index(drop=True)
        seen = set()
        for h in header:
            if h.lower() in seen:
                raise DataError([Problem(f"{name}:1", f"column {h!r} appears twice")])
            seen.add(h.lower())
        df.columns = header
    except pd.errors.ParserError as exc:
        msg = str(exc).strip().splitlines()[-1]
        m = re.search(r"line (\d+)", msg)
        where = f"{name}:{m.group(1)}" if m else name
        raise DataError([Problem(where, f"malformed CSV: {msg}")]) from None
    except (pd.errors.EmptyDataError, ValueError) as exc:
        raise DataError([Problem(name, f"malformed CSV: {exc}")]) from None
    return df


def _check_name(value: str, where: str, what: str, problems: list[Problem]) -> bool:
    if not value:
        problems.append(Problem(where, f"empty {what} name"))
        return False
    if len(value) > MAX_NAME:
        problems.append(Problem(where, f"{what} name longer than {MAX_NAME} characters"))
        return False
    if _CONTROL.search(value):
        problems.append(Problem(where, f"{what} name contains control characters"))
        return False
    return True


def _check_names(names: pd.Series, lines: np.ndarray, source: str, problems) -> np.ndarray:
    """Vectorised model-name check; returns the mask of acceptable names."""
    n = names.str.len().to_numpy()
    bad = (n == 0) | (n > MAX_NAME) | names.str.contains(_CONTROL).to_numpy(dtype=bool)
    for k in np.flatnonzero(bad)[:MAX_REPORTED]:
        _check_name(names.iloc[k], f"{source}:{lines[k]}", "model", problems)
    return ~bad


def _parse_values(cells: pd.Series, lines: np.ndarray, name: str, problems, warnings) -> np.ndarray:
    text = cells.astype(str).str.strip()
    is_missing = text.str.lower().isin(MISSING_TOKENS).to_numpy()
    nums = pd.to_numeric(text.where(~is_missing, None), errors="coerce").to_numpy(dtype=float)
    bad = np.isnan(nums) & ~is_missing
    for k in np.flatnonzero(bad)[:MAX_REPORTED]:
        shown = text.iloc[k]
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        problems.append(Problem(f"{name}:{lines[k]}", f"value {shown!r} is not a number"))
    if bad.sum() > MAX_REPORTED:
        problems.append(
            Problem(name, f"... and {bad.sum() - MAX_REPORTED} more non-numeric values")
        )
    inf = np.isinf(nums)
    for k in np.flatnonzero(inf)[:MAX_REPORTED]:
        warnings.append(f"{name}:{lines[k]}: infinite value kept (scores as the worst or best)")
    return np.where(bad, np.nan, nums)


def raw_from_frame(
    df: pd.DataFrame, cfg: Config, *, ignore_unknown: bool = False, source: str = "<table>"
) -> RawData:
    """Build RawData from a long (model, benchmark, metric, value) or wide table of text cells."""
    cols = {c.lower(): c for c in df.columns}
    if {"model", "benchmark", "metric", "value"} <= set(cols):
        return _from_long(df, cols, cfg, ignore_unknown, source)
    if {"model", "benchmark", "metric"} <= set(cols):
        raise DataError([Problem(f"{source}:1", "a long table needs a 'value' column")])
    if "model" in cols:
        return _from_wide(df, cols["model"], cfg, ignore_unknown, source)
    raise DataError(
        [
            Problem(
                f"{source}:1",
                "expected a header 'model,benchmark,metric,value' (long) or 'model,<Benchmark/Metric>...' (wide)",
            )
        ]
    )


def _from_long(df, cols, cfg, ignore_unknown, source) -> RawData:
    problems: list[Problem] = []
    warnings: list[str] = []
    lines = np.arange(len(df)) + 2
    model = df[cols["model"]].astype(str).str.strip()
    bench = df[cols["benchmark"]].astype(str).str.strip()
    metric = df[cols["metric"]].astype(str).str.strip()
    ids = cfg.metric_ids()
    col_of = {mid: j for j, mid in enumerate(ids)}
    keys = list(zip(bench.tolist(), metric.tolist(), strict=True))
    j_idx = np.array([col_of.get(k, -1) for k in keys], dtype=np.intp)
    ok = _check_names(model, lines, source, problems)
    unknown = np.flatnonzero(j_idx < 0)
    _report_unknown(
        unknown, keys, lines, set(cfg.benchmark_names()), source, ignore_unknown, problems, warnings
    )
    ok &= j_idx >= 0
    values = _parse_values(df[cols["value"]], lines, source, problems, warnings)
    codes, models = pd.factorize(model.where(ok, None), use_na_sentinel=True)
    inst = df[cols["instance"]].astype(str).str.strip() if "instance" in cols else None
    if inst is not None:
        has_inst = (inst != "").to_numpy()
        inst_codes, _ = pd.factorize(inst)
        _check_instance_rows(has_inst, ok, j_idx, keys, lines, source, problems)
    else:
        has_inst = np.zeros(len(df), dtype=bool)
        inst_codes = np.zeros(len(df), dtype=np.int64)
    # duplicates of (model, benchmark, metric[, instance])
    n_inst = int(inst_codes.max()) + 2 if len(inst_codes) else 1
    pair = pd.Series(
        (codes.astype(np.int64) * (len(ids) + 1) + j_idx) * n_inst
        + np.where(has_inst, inst_codes + 1, 0)
    )
    dup = (pair.duplicated(keep=False) & pd.Series(ok)).to_numpy()
    if dup.any():
        _report_duplicates(dup, pair, model, keys, inst, has_inst, lines, source, problems)
    if problems:
        raise DataError(problems)
    mat = np.full((len(models), len(ids)), np.nan)
    sel = ok & (codes >= 0)
    plain = sel & ~has_inst
    mat[codes[plain], j_idx[plain]] = values[plain]
    blocks = _instance_blocks(mat, sel & has_inst, codes, j_idx, inst, values, ids)
    return RawData(tuple(str(m) for m in models), tuple(ids), mat, None, warnings, blocks)


def _report_unknown(
    unknown, keys, lines, known_bench, source, ignore_unknown, problems, warnings
) -> None:
    """Rows whose (benchmark, metric) the config lacks: problems, or warnings (rows skipped)
    with ``ignore_unknown``; the first :data:`MAX_REPORTED` one by one."""
    for n, k in enumerate(unknown):
        b, m = keys[k]
        msg = (
            f"unknown benchmark {b!r}"
            if b not in known_bench
            else f"unknown metric {m!r} of benchmark {b!r}"
        )
        if ignore_unknown:
            if n < MAX_REPORTED:
                warnings.append(f"{source}:{lines[k]}: {msg} (skipped)")
        elif n < MAX_REPORTED:
            problems.append(Problem(f"{source}:{lines[k]}", msg))
    if len(unknown) > MAX_REPORTED:
        extra = f"... and {len(unknown) - MAX_REPORTED} more rows with unknown benchmark or metric"
        if ignore_unknown:
            warnings.append(f"{source}: {extra}")
        else:
            problems.append(Problem(source, extra))


def _report_duplicates(dup, pair, model, keys, inst, has_inst, lines, source, problems) -> None:
    """Each repeat of a (model, benchmark, metric[, instance]) row, with the line of its first."""
    first: dict[int, int] = {}
    reported = 0
    for k in np.flatnonzero(dup):
        key = int(pair.iloc[k])
        if key not in first:
            first[key] = int(lines[k])
            continue
        if reported < MAX_REPORTED:
            problems.append(
                Problem(
                    f"{source}:{lines[k]}",
                    f"duplicate row for model {model.iloc[k]!r}, {keys[k][0]}/{keys[k][1]}"
                    + (f", instance {inst.iloc[k]!r}" if has_inst[k] else "")
                    + f" (first at line {first[key]})",
                )
            )
        reported += 1


def _check_instance_rows(has_inst, ok, j_idx, keys, lines, source, problems) -> None:
    """A metric has rows with an instance (per-instance) or without, never both."""
    sel = ok & (j_idx >= 0)
    with_inst = set(np.unique(j_idx[sel & has_inst]).tolist())
    for k in np.flatnonzero(sel & ~has_inst):
        if int(j_idx[k]) in with_inst:
            b, m = keys[k]
            problems.append(
                Problem(
                    f"{source}:{lines[k]}",
                    f"{b}/{m} has rows with an instance: this row needs one too",
                )
            )
            with_inst.discard(int(j_idx[k]))  # one message per metric


def _instance_blocks(mat, sel, codes, j_idx, inst, values, ids) -> dict:
    """One (models x instances) block per per-instance column; ``mat`` gets the mean of each
    model's present instance values (NaN when it has none)."""
    blocks: dict[tuple[str, str], InstanceBlock] = {}
    if not sel.any():
        return blocks
    rows = np.flatnonzero(sel)
    for j in np.unique(j_idx[rows]):
        r = rows[j_idx[rows] == j]
        k, names = pd.factorize(inst.iloc[r])
        block = np.full((mat.shape[0], len(names)), np.nan)
        block[codes[r], k] = values[r]
        present = ~np.isnan(block)
        n = present.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mat[:, j] = np.where(n > 0, np.where(present, block, 0.0).sum(axis=1) / n, np.nan)
        blocks[ids[j]] = InstanceBlock(tuple(str(x) for x in names), block)
    return blocks


def _unknown_columns(unknown, source, ignore_unknown, problems, warnings) -> None:
    """The first :data:`MAX_REPORTED` unknown columns named, then how many more."""
    for c in unknown[:MAX_REPORTED]:
        msg = f"unknown column {c!r} (expected Benchmark/Metric)"
        if ignore_unknown:
            warnings.append(f"{source}:1: {msg} (skipped)")
        else:
            problems.append(Problem(f"{source}:1", msg))
    if len(unknown) > MAX_REPORTED:
        extra = f"... and {len(unknown) - MAX_REPORTED:,} more unknown columns"
        if ignore_unknown:
            warnings.append(f"{source}:1: {extra} (skipped)")
        else:
            problems.append(Problem(f"{source}:1", extra))


def _from_wide(df, model_col, cfg, ignore_unknown, source) -> RawData:
    problems: list[Problem] = []
    warnings: list[str] = []
    ids = cfg.metric_ids()
    lookup = {f"{b}/{m}": (b, m) for b, m in ids}
    for c, b, m in cfg.iter_metrics():
        lookup.setdefault(f"{c.name}/{b.name}/{m.name}", (b.name, m.name))
    col_of = {mid: j for j, mid in enumerate(ids)}
    lines = np.arange(len(df)) + 2
    model = df[model_col].astype(str).str.strip()
    _check_names(model, lines, source, problems)
    dups = model[model.duplicated()]
    for k in dups.index[:MAX_REPORTED]:
        problems.append(
            Problem(f"{source}:{lines[k]}", f"duplicate row for model {model.iloc[k]!r}")
        )
    used = []
    unknown: list[str] = []
    seen_cols: set[tuple[str, str]] = set()
    for c in df.columns:
        if c == model_col or c.lower() == "category":
            continue
        mid = lookup.get(c)
        if mid is None:
            unknown.append(c)
            continue
        if mid in seen_cols:
            problems.append(Problem(f"{source}:1", f"duplicate column for {mid[0]}/{mid[1]}"))
            continue
        seen_cols.add(mid)
        used.append((c, col_of[mid]))
    _unknown_columns(unknown, source, ignore_unknown, problems, warnings)
    mat = np.full((len(df), len(ids)), np.nan)
    for c, j in used:
        mat[:, j] = _parse_values(df[c], lines, f"{source} column {c!r}", problems, warnings)
    if problems:
        raise DataError(problems)
    return RawData(tuple(model.tolist()), tuple(ids), mat, None, warnings)


def _raw_width(cfg: Config) -> int:
    """The most columns a raw CSV may have: one per metric (wide) and room for others."""
    return len(cfg.metric_ids()) + MAX_EXTRA_COLUMNS


def load_raw(source, cfg: Config, *, ignore_unknown: bool = False) -> RawData:
    """Read raw metrics (long or wide CSV, a path or a file object) for ``cfg``."""
    name = str(source) if not hasattr(source, "read") else getattr(source, "name", "<upload>")
    if isinstance(source, str | Path) and Path(source).is_dir():
        source = Path(source) / "raw_metrics.csv"
        name = str(source)
    if hasattr(source, "read"):
        return raw_from_frame(
            _read_table(source, name, _raw_width(cfg)),
            cfg,
            ignore_unknown=ignore_unknown,
            source=name,
        )
    data = read_limited(source, max_raw_bytes(), error=DataError)
    key = (
        rawcache.cache_key(data, cfg.metric_ids(), ignore_unknown)
        if len(data) >= rawcache.MIN_BYTES
        else None
    )
    hit = rawcache.load(key) if key else None
    if hit is not None:
        models, ids, values, warnings = hit
        return RawData(models, ids, values, None, warnings, origin={"raw": file_record(name, data)})
    raw = raw_from_frame(
        _read_table(io.BytesIO(data), name, _raw_width(cfg)),
        cfg,
        ignore_unknown=ignore_unknown,
        source=name,
    )
    raw.origin["raw"] = file_record(name, data)
    if key:
        rawcache.store(key, raw.models, raw.metric_ids, raw.values, raw.warnings)
    return raw


def load_models(source) -> pd.DataFrame:
    """Model attributes from CSV: a ``model`` column, then attribute columns (text)."""
    name = str(source)
    df = _read_table(source, name, MAX_MODEL_COLUMNS)
    cols = {c.lower(): c for c in df.columns}
    if "model" not in cols:
        raise DataError([Problem(f"{name}:1", "expected a 'model' column")])
    df = df.rename(columns={cols["model"]: "model"})
    df["model"] = df["model"].astype(str).str.strip()
    dup = df["model"].duplicated()
    if dup.any():
        k = int(np.flatnonzero(dup)[0])
        raise DataError([Problem(f"{name}:{k + 2}", f"duplicate model {df['model'].iloc[k]!r}")])
    return df.set_index("model")


def _dataset_paths(path, raw_path=None) -> tuple[Path, Path | None, Path | None]:
    """(config file, raw metrics, models.csv or None) that :func:`load_dataset` reads."""
    p = Path(path)
    if p.is_dir():
        return (
            p / "config.yml",
            Path(raw_path) if raw_path else p / "raw_metrics.csv",
            p / "models.csv",
        )
    if raw_path is None:
        return p, None, None
    raw_p = Path(raw_path)
    return p, raw_p, raw_p.parent / "models.csv" if raw_p.is_file() else None


def dataset_files(path, raw_path=None) -> list[Path]:
    """Every file :func:`load_dataset` reads for ``(path, raw_path)``, present or not yet (a
    models.csv that appears changes the data too): what a key of the loaded data must cover."""
    cfg, raw_p, models_csv = _dataset_paths(path, raw_path)
    if raw_p is not None and raw_p.is_dir():
        raw_p = raw_p / "raw_metrics.csv"  # as load_raw reads it
    return [f for f in (cfg, raw_p, models_csv) if f is not None]


def load_dataset(path, raw_path=None, *, ignore_unknown: bool = False) -> tuple[Config, RawData]:
    """(config, raw data) from ``CONFIG RAW`` or from a directory with config.yml and
    raw_metrics.csv (and optional models.csv, whose columns become model attributes)."""
    cfg_p, raw_p, models_csv = _dataset_paths(path, raw_path)
    cfg, cfg_path, cfg_bytes = read_config(cfg_p)
    if raw_p is None:
        raise DataError(
            [Problem(str(path), "give the raw metrics CSV too (or a dataset directory)")]
        )
    raw = load_raw(raw_p, cfg, ignore_unknown=ignore_unknown)
    raw.origin["config"] = file_record(cfg_path, cfg_bytes)
    source = _source_record(Path(path) if Path(path).is_dir() else Path(raw_p).parent)
    if source:
        raw.origin["source"] = source
    if models_csv is None or not os.path.lexists(models_csv):
        return cfg, raw
    kind = file_kind(models_csv)
    if kind is None:
        raw.attributes = load_models(models_csv).reindex(list(raw.models))
    else:
        raw.warnings.append(f"{models_csv}: {kind}, not a regular file: model attributes not read")
    return cfg, raw


def _source_record(directory: Path) -> dict | None:
    """The converter record of a dataset directory (``io.provenance.SOURCE_FILE``)."""
    from .io.provenance import read_source_record  # the io package imports this module

    return read_source_record(directory)


def model_ref_warnings(cfg: Config, raw: RawData) -> list[str]:
    """One line per ``{model: NAME}`` threshold or parameter whose model is not in ``raw`` or
    has no value for that metric (the metric then has no score for any model)."""
    models = {m: i for i, m in enumerate(raw.models)}
    values = raw.aligned(cfg)
    out = []
    for j, (c, b, m) in enumerate(cfg.iter_metrics()):
        refs = [("good", m.good), ("bad", m.bad), *m.params.items()]
        for field_name, ref in refs:
            if not isinstance(ref, ModelRef):
                continue
            where = f"{c.name}/{b.name}/{m.name}.{field_name}"
            i = models.get(ref.model)
            if i is None:
                why = f"no model {ref.model!r} in the raw data"
            elif np.isnan(values[i, j]):
                why = f"model {ref.model!r} has no value for {b.name}/{m.name}"
            else:
                continue
            out.append(f"{where}: {{model: {ref.model}}}: {why}; the metric is left unscored")
    return out
