"""Wide and odd inputs: a raw CSV with thousands of unknown columns lists the first ones and
counts the rest; a table wider than the project reads is refused from its header before pandas
parses it (a 0.9 MB models.csv of 100,000 columns cost ~20 s and ~400 MB); a models.csv that is
a FIFO, a directory or a broken link is named, not skipped silently; any error lists at most
``MAX_LINES`` problems."""

from __future__ import annotations

import os
import time

import pytest

from ml_peg_like.cli import main
from ml_peg_like.errors import MAX_LINES, DataError, Problem
from ml_peg_like.raw import MAX_MODEL_COLUMNS, MAX_REPORTED, load_dataset

CONFIG = "title: t\ncategories:\n  C:\n    benchmarks:\n      B:\n        metrics:\n" + "".join(
    f"          M{k}: {{good: 1, bad: 0}}\n" for k in range(3)
)


def dataset(d, extra_columns: int = 0):
    d.mkdir(exist_ok=True)
    (d / "config.yml").write_text(CONFIG)
    head = ["model", "B/M0", "B/M1", "B/M2"] + [f"x{k}" for k in range(extra_columns)]
    rows = [",".join(head)]
    for i, name in enumerate(["A", "Z"]):
        rows.append(",".join([name, "0.5", "0.25", str(i)] + ["1"] * extra_columns))
    (d / "raw_metrics.csv").write_text("\n".join(rows) + "\n")
    return d


def test_thousands_of_unknown_columns_list_the_first_and_count_the_rest(tmp_path, capsys):
    d = dataset(tmp_path / "d", extra_columns=1500)
    with pytest.raises(DataError) as err:
        load_dataset(d)
    lines = err.value.lines()
    assert len(lines) == MAX_REPORTED + 1
    assert lines[0].endswith("unknown column 'x0' (expected Benchmark/Metric)")
    assert lines[-1].endswith(f"... and {1500 - MAX_REPORTED:,} more unknown columns")
    assert main(["validate", str(d)]) == 2
    printed = capsys.readouterr().err.strip().splitlines()
    assert len(printed) == MAX_REPORTED + 1, printed[:3]
    _cfg, raw = load_dataset(d, ignore_unknown=True)  # skipped: warned the same way
    assert len(raw.warnings) == MAX_REPORTED + 1 and "1,475 more" in raw.warnings[-1]
    assert raw.values[1, 2] == 1.0


def test_a_raw_csv_wider_than_read_is_refused_from_its_header(tmp_path):
    d = dataset(tmp_path / "d", extra_columns=100_000)
    with pytest.raises(DataError, match=r"raw_metrics.csv:1: 100,004 columns, more than the "):
        load_dataset(d, ignore_unknown=True)


def test_a_100000_column_models_csv_is_refused_at_once(tmp_path):
    d = dataset(tmp_path / "d")
    head = "model," + ",".join(f"a{k}" for k in range(100_000))
    (d / "models.csv").write_text(head + "\nA," + ",".join("v" * 1 for _ in range(100_000)) + "\n")
    assert 0.8e6 < (d / "models.csv").stat().st_size < 1.2e6
    t = time.perf_counter()
    with pytest.raises(DataError) as err:
        load_dataset(d)
    took = time.perf_counter() - t
    assert str(err.value) == (
        f"{d / 'models.csv'}:1: 100,001 columns, more than the {MAX_MODEL_COLUMNS:,} read: refused"
    )
    assert took < 2.0, took


@pytest.mark.parametrize("kind", ["a FIFO (named pipe)", "a directory", "a broken symbolic link"])
def test_a_models_csv_that_is_not_a_file_is_named(tmp_path, kind):
    d = dataset(tmp_path / "d")
    m = d / "models.csv"
    if kind.startswith("a FIFO"):
        os.mkfifo(m)
    elif kind == "a directory":
        m.mkdir()
    else:
        m.symlink_to(tmp_path / "gone.csv")
    _cfg, raw = load_dataset(d)
    assert raw.attributes is None
    assert raw.warnings == [f"{m}: {kind}, not a regular file: model attributes not read"]


def test_an_error_lists_at_most_max_lines_problems():
    err = DataError([Problem(f"f.csv:{k}", "bad") for k in range(500)])
    lines = err.lines()
    assert len(lines) == MAX_LINES + 1 and lines[0] == "f.csv:0: bad"
    assert lines[-1] == f"... and {500 - MAX_LINES} more problems"
    assert str(err).count("\n") == MAX_LINES
