"""The style rules, checked on the source: ruff passes on the package with the project's config,
and that config holds every function to a McCabe complexity of 12 (C901), 12 branches (PLR0912)
and 50 statements (PLR0915). A module may be long; its functions may not be.

There is no exception: no per-file-ignores entry of pyproject.toml lifts those rules, and no
``noqa`` comment silences them anywhere in the package.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ml_peg_like"
RULES = ("C901", "PLR0912", "PLR0915")
#: a noqa comment, with or without a list of codes, also in its file-wide form (``ruff:`` first)
NOQA = re.compile(r"#\s*(?:ruff\s*:\s*)?noqa\b(?P<codes>\s*:\s*[A-Z0-9,\s]+)?", re.IGNORECASE)


def _ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    try:
        import ruff  # noqa: F401  (only to give a clear message when it is absent)
    except ImportError:
        pytest.fail("ruff is a test dependency: pip install -e '.[test]'")
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def silenced_rules(text: str) -> list[tuple[int, str]]:
    """(line, comment) of every comment in ``text`` that silences C901, PLR0912 or PLR0915: a
    ``noqa`` without codes, or one whose codes name (or are a prefix of) one of them. Text in
    strings is not a comment."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT:
            continue
        for m in NOQA.finditer(tok.string):
            codes = re.findall(r"[A-Z]+[0-9]*", (m.group("codes") or "").upper())
            if not codes or any(rule.startswith(code) for code in codes for rule in RULES):
                found.append((tok.start[0], tok.string.strip()))
    return found


def test_ruff_check_passes_on_the_package():
    out = _ruff("check", "--output-format", "concise", "ml_peg_like")
    assert out.returncode == 0, out.stdout + out.stderr


def test_no_noqa_silences_the_complexity_rules():
    bad = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found = silenced_rules(path.read_text(encoding="utf-8"))
        if found:
            bad[str(path.relative_to(ROOT))] = found
    assert bad == {}


def test_no_file_is_excepted_from_the_complexity_rules():
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"][
        "lint"
    ]
    assert set(RULES) <= set(lint["select"])
    assert lint["mccabe"]["max-complexity"] == 12
    assert lint["pylint"]["max-branches"] == 12
    assert lint["pylint"]["max-statements"] == 50
    excepted = {
        pattern: sorted(set(rules) & set(RULES))
        for pattern, rules in lint.get("per-file-ignores", {}).items()
        if set(rules) & set(RULES)
    }
    assert excepted == {}


def _function_with_ifs(n: int) -> str:
    """A function of McCabe complexity 1 + n (n ``if`` statements: n branches, and far fewer
    than 50 statements)."""
    body = "".join(f"    if x == {i}:\n        x += 1\n" for i in range(n))
    return f"def f(x):\n{body}    return x\n"


def test_the_project_config_draws_the_line_at_12(tmp_path):
    """11 ifs: complexity 12, 11 branches: clean. 12 ifs: complexity 13 > 12 (C901) but 12
    branches (not > 12). 13 ifs: complexity 14 and 13 branches, both over. 50 statements:
    clean; 51: over (PLR0915)."""
    config = str(ROOT / "pyproject.toml")
    cases = {
        "eleven_ifs.py": (_function_with_ifs(11), set()),
        "twelve_ifs.py": (_function_with_ifs(12), {"C901"}),
        "thirteen_ifs.py": (_function_with_ifs(13), {"C901", "PLR0912"}),
        "fifty_statements.py": ("def f(x):\n" + "    x += 1\n" * 50, set()),
        "fifty_one_statements.py": ("def f(x):\n" + "    x += 1\n" * 51, {"PLR0915"}),
    }
    for name, (text, _) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    out = _ruff(
        "check",
        "--config",
        config,
        "--select",
        ",".join(RULES),
        "--output-format",
        "concise",
        ".",
        cwd=tmp_path,
    )
    got: dict[str, set[str]] = {name: set() for name in cases}
    for line in out.stdout.splitlines():
        m = re.match(r"(?:\./)?(\w+\.py):\d+:\d+: (\w+)", line)
        if m:
            got[m.group(1)].add(m.group(2))
    assert got == {name: rules for name, (_, rules) in cases.items()}, out.stdout + out.stderr


def test_the_noqa_finder_sees_what_silences_the_rules():
    text = (
        "def a():  # noqa: C901\n"
        "    pass\n"
        "def b():  # noqa\n"
        "    pass\n"
        "def c():  # noqa: PLR0912, E501\n"
        "    pass\n"
        "import os  # noqa: F401\n"
        "s = '# noqa: C901 inside a string is not a comment'\n"
        "def d():  # NOQA:plr0915\n"
        "    pass\n"
        "def e():  # noqa: PLR\n"
        "    pass\n"
        "# ruff: noqa: C90\n"
    )
    assert [line for line, _ in silenced_rules(text)] == [1, 3, 5, 9, 11, 13]
