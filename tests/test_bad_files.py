"""Malformed and hostile input files: every case ends in the project's own error with a location
(or a clear warning), never another exception; the CLI exits 2 with one line per problem."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ml_peg_like as mpl
from ml_peg_like import ConfigError, DataError

GOOD = "categories: {C: {benchmarks: {B: {metrics: {m: {good: 0, bad: 1}}}}}}\n"


def config_problem(text_or_bytes) -> str:
    with pytest.raises(ConfigError) as exc:
        mpl.loads_config(text_or_bytes)
    lines = exc.value.lines()
    assert lines and all(line.strip() for line in lines)
    return "\n".join(lines)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("", "expected a mapping with a 'categories' key"),
        ("- 1\n- 2\n", "expected a mapping with a 'categories' key"),
        ("categories: 3\n", "categories: expected a non-empty mapping"),
        ("categories: {C: []}\n", "C: expected a mapping with 'benchmarks'"),
        (
            "categories: {C: {benchmarks: {B: {metrics: {m: 5}}}}}\n",
            "C/B/m: expected a mapping of metric settings",
        ),
        ("categories: {C: {benchmarks: {B: {}}}}\n", "C/B.metrics: expected a non-empty mapping"),
        (
            "categories: {C: {benchmarks: {B: {metrics: {m: {good: [1], bad: 2}}}}}}\n",
            "C/B/m.good: expected a number",
        ),
        (
            "categories: {C: {benchmarks: {B: {metrics: {m: {good: .nan, bad: 2}}}}}}\n",
            "C/B/m.good: expected a finite number",
        ),
        (
            "categories: {C: {benchmarks: {B: {metrics: {m: {good: 'inf', bad: 2}}}}}}\n",
            "C/B/m.good: expected a finite number",
        ),
        (
            "categories: {C: {weight: '=1+1', benchmarks: {B: {metrics: {m: {good: 0, bad: 1}}}}}}\n",
            "C.weight: expected a number",
        ),
        ("categories: {? [a, b] : {}}\n", "unhashable key"),
        ("categories: {true: {}}\n", "a name must be text"),
        (
            "categories:\n  C: {benchmarks: {B: {metrics: {m: {good: 0, bad: 1}}}}}\n  C: {}\n",
            "duplicate key 'C'",
        ),
        ('categories: {"bad\\aname": {}}\n', "control characters"),
        ("a: !!python/object/apply:os.system ['echo pwned']\n", "invalid YAML"),
        (
            "categories: {C: {benchmarks: {B: {metrics: {m: {good: 0, bad: 1}}}}}}\npresets: {P: {Nope: {weight: 1}}}\n",
            "presets.P.Nope: no such category",
        ),
    ],
)
def test_malformed_configs_name_where_the_problem_is(text, expected):
    assert expected in config_problem(text)


def test_alias_bomb_and_deep_nesting_are_refused_quickly():
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n"
        for i in range(20)
    )
    assert "aliases" in config_problem(bomb)
    assert "nest" in config_problem("[" * 5000 + "]" * 5000)


def test_huge_and_non_utf8_configs():
    assert "larger than" in config_problem(b"#" * (21 * 1024 * 1024))
    assert "not UTF-8" in config_problem("title: caf\xe9\n".encode("latin-1") + GOOD.encode())
    assert mpl.loads_config(b"\xef\xbb\xbf" + GOOD.encode()).metric_paths() == ["C/B/m"]


def raw_problem(data: bytes) -> str:
    cfg = mpl.loads_config(GOOD)
    with pytest.raises(DataError) as exc:
        mpl.load_raw(io.BytesIO(data), cfg)
    return "\n".join(exc.value.lines())


@pytest.mark.parametrize(
    "data,expected",
    [
        (b"", "the file is empty"),
        (b"model,benchmark,metric\n", "<upload>:1: a long table needs a 'value' column"),
        (b"x,y\n1,2\n", "<upload>:1: expected a header"),
        (b"model,model,benchmark,metric,value\n", "<upload>:1: column 'model' appears twice"),
        (b"model,benchmark,metric,value\na,B,m,1,extra,cols\n", "malformed CSV"),
        (b'model,benchmark,metric,value\n"a,B,m,1\n', "malformed CSV"),
        (b"model,benchmark,metric,value\na,B,m,=1+1\n", "<upload>:2: value '=1+1' is not a number"),
        (b"model,benchmark,metric,value\na,B,m,1\xff\n", "not UTF-8"),
        (
            b"model,benchmark,metric,value\na\x01b,B,m,1\n",
            "<upload>:2: model name contains control characters",
        ),
    ],
)
def test_malformed_raw_files_name_file_and_line(data, expected):
    assert expected in raw_problem(data)


def test_nan_and_inf_strings_are_missing_or_kept_with_a_warning():
    cfg = mpl.loads_config(GOOD)
    raw = mpl.load_raw(
        io.BytesIO(
            b"model,benchmark,metric,value\na,B,m,NaN\nb,B,m,inf\nc,B,m,-Infinity\nd,B,m,nan\n"
        ),
        cfg,
    )
    assert np.isnan(raw.values[0, 0]) and np.isnan(raw.values[3, 0])
    assert raw.values[1, 0] == np.inf and raw.values[2, 0] == -np.inf
    assert len(raw.warnings) == 2 and "infinite value" in raw.warnings[0]
    s = mpl.score(raw, cfg)  # lower is better: +inf scores 0, -inf scores 1
    assert s.metrics["B/m"].tolist()[1:3] == [0.0, 1.0]


def test_a_50_mb_raw_file_is_read(tmp_path):
    cfg = mpl.loads_config(GOOD)
    row = b"a-model-with-a-long-name-to-fill-the-file-quickly,B,m,0.5\n"
    n = 50 * 1024 * 1024 // len(row)
    path = tmp_path / "big.csv"
    with path.open("wb") as fh:
        fh.write(b"model,benchmark,metric,value\n")
        fh.write(b"first,B,m,1\n")
        fh.write(row * n)
    with pytest.raises(DataError) as exc:
        mpl.load_raw(path, cfg)
    lines = exc.value.lines()
    assert lines[0].endswith(
        ":4: duplicate row for model 'a-model-with-a-long-name-to-fill-the-file-quickly', B/m (first at line 3)"
    )
    assert len(lines) <= 30  # capped, not 900,000 lines


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_bytes_never_escape_as_another_exception(data):
    cfg = mpl.loads_config(GOOD)
    try:
        mpl.loads_config(data)
    except ConfigError:
        pass
    try:
        mpl.load_raw(io.BytesIO(data), cfg)
    except DataError:
        pass


yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10))
yaml_values = st.recursive(
    yaml_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["title", "missing", "scale", "categories", "presets", "other"]),
        yaml_values,
    )
)
def test_random_config_structures_give_config_errors_only(data):
    try:
        mpl.config_from_dict(data)
    except ConfigError:
        pass


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "good",
                "bad",
                "weight",
                "normaliser",
                "better",
                "b",
                "c",
                "reference",
                "max_speedup",
                "unit",
                "meta",
            ]
        ),
        yaml_values,
    )
)
def test_random_metric_settings_give_config_errors_only(metric):
    try:
        mpl.config_from_dict(
            {"categories": {"C": {"benchmarks": {"B": {"metrics": {"m": metric}}}}}}
        )
    except ConfigError:
        pass


def test_cli_bad_raw_file_prints_one_line_per_problem_and_no_traceback(tmp_path):
    (tmp_path / "config.yml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "raw_metrics.csv").write_bytes(b"model,benchmark,metric,value\na,B,m,x\na,Q,m,1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "ml_peg_like", "score", str(tmp_path), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'raw_metrics.csv'}:3: unknown benchmark 'Q'",
        f"error: {tmp_path / 'raw_metrics.csv'}:2: value 'x' is not a number",
    ]
