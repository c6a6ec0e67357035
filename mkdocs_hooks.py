"""MkDocs hooks of the documentation site (``mkdocs.yml`` ``hooks:``).

The CLI reference page holds the marker ``<!-- cli-reference -->``; at build time it is replaced
by the commands, usages and options of the real argparse parser
(:func:`ml_peg_like.cli.build_parser`), so the page cannot drift from the code.
"""

from __future__ import annotations

import argparse
import html
import re

MARKER = "<!-- cli-reference -->"
#: a Sphinx role before inline code in a rendered docstring (``:func:`score```): the API pages
#: show the code alone
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj):(?=<code)")


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """(name, parser) of each subcommand of ``parser``, in the parser's order."""
    found = []
    for action in parser._actions:  # argparse keeps no public list of its subparsers
        if isinstance(action, argparse._SubParsersAction):
            found.extend(action.choices.items())
    return found


def _cell(text: str) -> str:
    return html.escape(" ".join(text.split())).replace("|", "\\|")


def _argument_name(action: argparse.Action) -> str:
    """``--out DIR`` for an option that takes a value, ``--strict`` for a flag, ``config`` for
    a positional argument."""
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    value = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
    return ", ".join(f"`{o}{value}`" for o in action.option_strings)


def _argument_row(action: argparse.Action) -> str | None:
    if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
        return None
    notes = []
    if action.choices is not None:
        notes.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
    if action.required and action.option_strings:
        notes.append("required")
    if action.nargs == "?" and not action.option_strings:
        notes.append("optional")
    extra = f" ({'; '.join(notes)})" if notes else ""
    return f"| {_argument_name(action)} | {_cell(action.help or '')}{extra} |"


def _section(prog: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    lines = [f"{'#' * level} `{prog}`", ""]
    if parser.description:
        lines += [_cell(parser.description), ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    rows = [r for r in map(_argument_row, parser._actions) if r]
    if rows:
        lines += ["| argument | meaning |", "|---|---|", *rows, ""]
    for name, sub in _subcommands(parser):
        lines += _section(f"{prog} {name}", sub, min(level + 1, 4))
    return lines


def cli_reference() -> str:
    """The Markdown of every subcommand of ``ml-peg-like`` with its usage and arguments."""
    from ml_peg_like.cli import build_parser

    parser = build_parser()
    lines = []
    for name, sub in _subcommands(parser):
        lines += _section(f"ml-peg-like {name}", sub, 2)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs' hook signature)
    if MARKER in markdown:
        return markdown.replace(MARKER, cli_reference())
    return markdown


def on_page_content(html_text: str, page, config, files) -> str:  # noqa: ARG001
    return ROLE.sub("", html_text)
