"""One error family for everything the user can get wrong: each problem names where it is."""

from __future__ import annotations

from dataclasses import dataclass


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
        super().__init__("\n".join(str(p) for p in self.problems))

    def lines(self) -> list[str]:
        return [str(p) for p in self.problems]


class ConfigError(MlPegLikeError):
    """The scoring config (or a change to it) is invalid."""


class DataError(MlPegLikeError):
    """A raw-metrics (or other input) file is malformed."""
