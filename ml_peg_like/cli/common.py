"""What the subcommands share: the parser that reports a usage error on one line, the data
arguments (CONFIG [RAW] --ignore-unknown), argument types and warnings on stderr."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr with exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def add_data_args(p: argparse.ArgumentParser, *, config_optional: bool = False) -> None:
    """CONFIG (a YAML file or a dataset directory), optional RAW CSV, --ignore-unknown."""
    p.add_argument(
        "config",
        nargs="?" if config_optional else None,
        default=None,
        help="config YAML, or a dataset directory (config.yml + raw_metrics.csv)",
    )
    p.add_argument("raw", nargs="?", default=None, help="raw metrics CSV (long or wide)")
    p.add_argument(
        "--ignore-unknown",
        action="store_true",
        help="skip rows naming an unknown benchmark or metric (with a warning) instead of failing",
    )


def number(text: str) -> float:
    """An argparse type: a float, with a one-line message otherwise."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None


def integer_in(low: int, high: int | None = None):
    """An argparse type: an integer in [low, high] (no upper bound when ``high`` is None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"expected an integer {bound}, got {text[:40]!r}")
        return value

    return parse


def redis_url(text: str) -> str:
    """An argparse type: the Redis URL of ``--broker`` (``redis://`` or ``rediss://``)."""
    if not text.startswith(("redis://", "rediss://")) or len(text) > 2000:
        raise argparse.ArgumentTypeError(
            f"a redis:// URL (redis://HOST:PORT/DB), not {text[:40]!r}"
        )
    return text


BROKER_HELP = "Redis URL, broker and result store of the background jobs: redis://HOST:PORT/DB"


def broker_secret_missing(broker: str | None) -> int | None:
    """Exit code 2 and one line when ``--broker`` is given without ``$ML_PEG_LIKE_SECRET``:
    servers and workers sign and check the job results with it, so a secret made per start
    would make every worker's result refused; None when all is well."""
    import os

    from ..support.private import SECRET_ENV

    if not broker or os.environ.get(SECRET_ENV):
        return None
    print(
        f"error: --broker needs {SECRET_ENV}, the same on every server and worker (they sign "
        'and check the job results with it): export it, e.g. from python -c "import secrets; '
        'print(secrets.token_hex(32))"',
        file=sys.stderr,
    )
    return 2


def warn(lines: Iterable[str]) -> None:
    for line in lines:
        print(f"warning: {line}", file=sys.stderr)
