"""Vetoes: a raw value beyond a limit gives a model an overall score of 0 (LIPS, seeds 000/001:
"if the training time overcomes a given threshold, the proposed solution will be rejected. Thus,
it would be equivalent to a null global score").

```yaml
vetoes:
  - metric: Cost/Training/training_time   # key path of a metric (it may have weight 0)
    above: 86400                          # or below: (one of the two)
```

Parsed and validated here, written back by ``dump_config``; applied by
:mod:`ml_peg_like.scoring.vetoes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import Problem
from .fields import check_keys, fmt, parse_number


@dataclass(frozen=True)
class Veto:
    """A model whose raw value of ``metric`` (full key path) is above ``above`` (or below
    ``below``) gets an overall score of 0."""

    metric: str
    above: float | None = None
    below: float | None = None

    @property
    def limit(self) -> float:
        return self.above if self.above is not None else self.below  # type: ignore[return-value]

    @property
    def side(self) -> str:
        return "above" if self.above is not None else "below"

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, self.side: self.limit}


def parse_vetoes(raw: Any, cfg, problems: list[Problem]) -> tuple[Veto, ...]:
    """The ``vetoes`` list of a config (``cfg``: the parsed tree, to check the key paths)."""
    if raw is None:
        return ()
    if not isinstance(raw, list | tuple):
        problems.append(Problem("vetoes", "expected a list of {metric: PATH, above|below: N}"))
        return ()
    out = []
    for k, item in enumerate(raw):
        where = f"vetoes[{k}]"
        if not isinstance(item, Mapping):
            problems.append(Problem(where, f"expected {{metric: PATH, above: N}}, got {fmt(item)}"))
            continue
        n = len(problems)
        check_keys(item, {"metric", "above", "below"}, where, problems, "veto")
        path = item.get("metric")
        full = None
        try:
            full = cfg.full_path(path) if isinstance(path, str) else None
        except KeyError:
            full = None
        if full is None or full not in cfg.metric_paths():
            problems.append(Problem(f"{where}.metric", f"not a metric key path: {fmt(path)}"))
        sides = [s for s in ("above", "below") if s in item]
        if len(sides) != 1:
            problems.append(Problem(where, "give exactly one of 'above' and 'below'"))
            continue
        limit = parse_number(item[sides[0]], f"{where}.{sides[0]}", problems)
        if len(problems) == n and full is not None:
            out.append(Veto(full, **{sides[0]: limit}))
    return tuple(out)
