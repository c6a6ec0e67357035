"""The documentation site: it builds strictly, its Python examples run, the Design page names
only modules that exist, and the CLI pages name every subcommand and option of the real parser."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def python_blocks(markdown: str) -> list[str]:
    """The fenced ```python blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.S | re.M)


def test_python_blocks_are_found():
    text = "a\n```python\nx = 1\n```\n```bash\nls\n```\n```python\ny = 2\n```\n"
    assert python_blocks(text) == ["x = 1\n", "y = 2\n"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built with ``mkdocs build --strict`` (skips when the docs extra is missing)."""
    for module in ("mkdocs", "mkdocstrings", "material"):
        pytest.importorskip(
            module, reason="the docs extra is not installed: pip install -e '.[docs]'"
        )
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def page_text(site: Path, name: str) -> str:
    html = (site / name / "index.html").read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&amp;", "&")


def test_the_site_builds_strictly(site):
    # a broken link or a page outside the nav fails the build (strict); the pages are there
    for name in ("GETTING-STARTED", "PYTHON-API", "ARCHITECTURE", "PERFORMANCE", "reference/API"):
        assert (site / name / "index.html").is_file(), name


def test_the_api_reference_renders_the_docstrings(site):
    text = page_text(site, "reference/API")
    # first lines of docstrings of the public API, as the code has them
    for doc in (
        "Apply {path: {field: value}} and return the new, fully validated config",
        "All levels of scores for one config and one raw data set",
    ):
        assert doc in text, doc
    # Sphinx roles of the docstrings (:func:`x`) are shown as the code alone
    assert not re.search(r":(func|class|mod|data|meth|attr):", text)


def test_the_python_api_page_runs(monkeypatch):
    blocks = python_blocks((DOCS / "PYTHON-API.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "docs_python_api"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"PYTHON-API.md block {i + 1}", "exec"), namespace)  # noqa: S102


MODULE_PATH = re.compile(r"\bml_peg_like/[\w/]+\.py\b")
DOTTED = re.compile(r"\bml_peg_like(?:\.\w+)+")


def test_every_module_the_design_page_names_exists():
    text = (DOCS / "ARCHITECTURE.md").read_text(encoding="utf-8")
    paths = set(MODULE_PATH.findall(text))
    dotted = set(DOTTED.findall(text))
    assert len(paths) + len(dotted) >= 20  # the page names the modules it speaks of
    missing = [p for p in sorted(paths) if not (ROOT / p).is_file()]
    for name in sorted(dotted):
        # a dotted name is a module, or an attribute of one (ml_peg_like.numfmt.fmt_score)
        module, _, attr = name.rpartition(".")
        if importlib.util.find_spec(name) is not None:
            continue
        if module and importlib.util.find_spec(module) is not None:
            if hasattr(importlib.import_module(module), attr):
                continue
        missing.append(name)
    assert not missing, f"the Design page names what does not exist: {missing}"


OTHER_FILE = re.compile(r"\b((?:tests|assets|benchmarks)/[\w./-]+\.(?:py|js|css))(?:::(\w+))?")


def test_every_file_and_test_the_design_page_names_exists():
    text = (DOCS / "ARCHITECTURE.md").read_text(encoding="utf-8")
    named = OTHER_FILE.findall(text)
    assert any(test for _path, test in named)  # the page names the test that holds JS == Python
    missing = [path for path, _test in named if not (ROOT / path).is_file()]
    missing += [
        f"{path}::{test}"
        for path, test in named
        if test and (ROOT / path).is_file() and f"def {test}(" not in (ROOT / path).read_text()
    ]
    assert not missing, f"the Design page names what does not exist: {missing}"


def _parsers(parser: argparse.ArgumentParser, prog: str = "ml-peg-like"):
    """(command line, parser) of every subcommand, nested ones (convert ml-peg) included."""
    for action in parser._actions:  # argparse keeps no public list of its subparsers
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{prog} {name}", sub
                yield from _parsers(sub, f"{prog} {name}")


def _commands():
    from ml_peg_like.cli import build_parser

    return list(_parsers(build_parser()))


def test_the_cli_guide_shows_every_subcommand():
    text = (DOCS / "CLI.md").read_text(encoding="utf-8")
    commands = [c for c, _ in _commands()]
    assert "ml-peg-like convert lips" in commands and len(commands) >= 11
    missing = [c for c in commands if c not in text]
    assert not missing, f"docs/CLI.md does not show {missing}"


def test_the_cli_reference_has_every_subcommand_and_option(site):
    text = page_text(site, "reference/CLI")
    assert "<!-- cli-reference -->" not in text
    for command, parser in _commands():
        assert command in text, command
        for action in parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert option in text, f"{command} {option}"
