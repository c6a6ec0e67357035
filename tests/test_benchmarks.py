"""The benchmarks package: every module imports without side effects, every script has a
``main`` and a ``--help`` that exits 0 when run as ``python -m benchmarks.NAME``, and the
harness's medians, ratios, interleaved order and table give the numbers worked out by hand.
No browser, no server: the benchmarks themselves are run by hand (docs/PERFORMANCE.md)."""

from __future__ import annotations

import importlib
import json
import math
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
#: the modules the scripts share (no ``main`` of their own)
LIBRARIES = {"harness", "page"}
MODULES = sorted(m.name for m in pkgutil.iter_modules([str(BENCH)]))
SCRIPTS = [m for m in MODULES if m not in LIBRARIES]


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.fixture(autouse=True)
def _importable(monkeypatch):
    """``benchmarks`` importable here as from the repository root (``python -m``)."""
    monkeypatch.syspath_prepend(str(ROOT))


def test_the_package_holds_the_scripts_and_the_shared_modules():
    assert (BENCH / "__init__.py").is_file()
    assert LIBRARIES <= set(MODULES)
    assert {"datasets", "bench_edit", "bench_scoring"} <= set(SCRIPTS)


def test_every_module_imports_without_side_effects(tmp_path):
    """Imported in a fresh interpreter: nothing printed, sys.path untouched, no file written
    in the working directory, no child process left."""
    code = f"""
import importlib, json, os, sys
before = list(sys.path)
for name in {MODULES!r}:
    importlib.import_module("benchmarks." + name)
kids = open(f"/proc/{{os.getpid()}}/task/{{os.getpid()}}/children").read().split()
print(json.dumps({{"path_same": sys.path == before, "children": kids}}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    lines = out.stdout.splitlines()
    assert len(lines) == 1, out.stdout  # only the report: the imports printed nothing
    report = json.loads(lines[0])
    assert report == {"path_same": True, "children": []}
    assert list(tmp_path.iterdir()) == []


def test_no_script_edits_sys_path():
    for f in BENCH.glob("*.py"):
        text = f.read_text(encoding="utf-8")
        assert "sys.path" not in text, f.name


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_has_main_and_help(name):
    module = importlib.import_module(f"benchmarks.{name}")
    assert callable(getattr(module, "main", None)), name
    out = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}", "--help"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage:"), out.stdout[:200]


# ------------------------------------------------------------------------------------------------
# the harness's numbers, worked out by hand
# ------------------------------------------------------------------------------------------------


def test_median_of_odd_and_even_counts_and_missing_values():
    from benchmarks.harness import median

    assert median([3.0, 1.0, 2.0]) == 2.0  # sorted 1 2 3: the middle one
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5  # sorted 1 2 3 4: (2 + 3) / 2
    assert median([1.0, math.nan, None, 5.0]) == 3.0  # NaN and None left out: (1 + 5) / 2
    assert math.isnan(median([]))
    assert math.isnan(median([math.nan, None]))


def test_ratio_and_its_undefined_cases():
    from benchmarks.harness import ratio

    assert ratio(3.0, 2.0) == 1.5
    assert ratio(13.8, 1000.0) == pytest.approx(0.0138)
    assert math.isnan(ratio(1.0, 0.0))
    assert math.isnan(ratio(math.nan, 2.0))
    assert math.isnan(ratio(2.0, math.nan))


def test_interleaved_rounds_alternate_the_order():
    from benchmarks.harness import interleave

    got = list(interleave(["before", "now"], 3))
    assert got == [
        (0, "before"),
        (0, "now"),
        (1, "now"),
        (1, "before"),
        (2, "before"),
        (2, "now"),
    ]


def test_timed_counts_calls_and_keeps_the_last_result():
    from benchmarks.harness import timed

    calls = []
    times, out = timed(lambda: calls.append(1) or len(calls), repeat=3, warmup=2)
    assert len(calls) == 5  # 2 untimed + 3 timed
    assert len(times) == 3 and all(t >= 0 for t in times)
    assert out == 5


def test_table_medians_extremes_counts_and_ratio():
    from benchmarks.harness import Row, table_lines

    lines = table_lines(
        [
            Row("reference", [10.0, 30.0, 20.0]),  # median 20, min 10, max 30
            Row("fast", [5.0, 5.0, math.nan], vs="reference"),  # median 5: 5 / 20 = 0.25
            Row("big", [1234.6], unit="KiB", vs="none such"),  # no such row: n/a
            Row("count", [], unit=""),
        ]
    )
    assert lines[0] == "| what | median | min | max | n | ratio |"
    assert lines[2] == "| reference (ms) | 20 | 10 | 30 | 3 |  |"
    assert lines[3] == "| fast (ms) | 5 | 5 | 5 | 2 | 0.25x reference |"
    assert lines[4] == "| big (KiB) | 1,235 | 1,235 | 1,235 | 1 | n/a |"
    assert lines[5] == "| count | n/a | n/a | n/a | 0 |  |"


def test_tree_rss_counts_this_process():
    """The RSS of this process tree is at least this process's own VmRSS (from /proc)."""
    from benchmarks.harness import tree_rss_mib

    own = next(
        int(line.split()[1]) / 1024
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmRSS:")
    )
    assert tree_rss_mib(os.getpid()) >= 0.9 * own > 0


# ------------------------------------------------------------------------------------------------
# the commands the docs cite
# ------------------------------------------------------------------------------------------------

#: ``python -m benchmarks.NAME ARGS`` inside one pair of backticks
CITED = re.compile(r"`python -m benchmarks\.([a-z][a-z0-9_]*)([^`]*)`")


def _cited() -> list[tuple[str, str, str]]:
    out = []
    for f in sorted((ROOT / "docs").glob("**/*.md")):
        text = f.read_text(encoding="utf-8")
        out += [(f.name, name, args) for name, args in CITED.findall(text)]
    return out


def test_the_docs_cite_benchmarks_in_the_package_form_only():
    old = [
        f.name
        for f in (ROOT / "docs").glob("**/*.md")
        if re.search(r"python benchmarks/", f.read_text(encoding="utf-8"))
    ]
    assert old == []
    assert len(_cited()) >= 15  # PERFORMANCE.md cites ~15, the other pages ~7


def test_every_cited_benchmark_and_option_exists(capsys):
    helps: dict[str, str] = {}
    wrong = []
    for page, name, args in _cited():
        if name not in SCRIPTS:
            wrong.append(f"{page}: benchmarks.{name}")
            continue
        if name not in helps:
            with pytest.raises(SystemExit) as stop:
                importlib.import_module(f"benchmarks.{name}").main(["--help"])
            assert stop.value.code == 0
            helps[name] = capsys.readouterr().out
        options = re.findall(r"(?<![\w-])(--[a-z][\w-]*)", args)
        wrong += [f"{page}: benchmarks.{name} {o}" for o in options if o not in helps[name]]
    assert wrong == []
