"""One error family for everything the user can get wrong: each problem names where it is."""

from __future__ import annotations

import sys
from dataclasses import dataclass

#: the most problems listed one by one in a message (the rest are counted)
MAX_LINES = 50


@dataclass(frozen=True)
class Problem:
    """One problem: `where` is a key path (``Cat/Bench/Metric.good``) or ``file:line``."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class MlPegLikeError(Exception):
    """Base error: carries every problem found, one line each."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem("", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """One line per problem, the first :data:`MAX_LINES`, then how many more."""
        out = [str(p) for p in self.problems[:MAX_LINES]]
        if len(self.problems) > MAX_LINES:
            out.append(f"... and {len(self.problems) - MAX_LINES:,} more problems")
        return out


class ConfigError(MlPegLikeError):
    """The scoring config (or a change to it) is invalid."""


class DataError(MlPegLikeError):
    """A raw-metrics (or other input) file is malformed."""


#: what a command-line handler reports as bad input (exit code 2) rather than a crash
INPUT_ERRORS = (MlPegLikeError, OSError, ValueError, MemoryError)


def report(exc: BaseException) -> int:
    """Print one ``error: ...`` line per problem of ``exc`` on stderr; return exit code 2."""
    if isinstance(exc, MlPegLikeError):
        lines = exc.lines()
    else:
        lines = [f"{type(exc).__name__}: {exc}".splitlines()[0]]
    for line in lines:
        print(f"error: {line}", file=sys.stderr)
    return 2
