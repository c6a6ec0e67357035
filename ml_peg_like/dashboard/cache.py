"""The dashboard's score cache: the default config and raw values, and a small memo of the
scores of recent change sets (no Dash)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..config import Config
from ..models import display_name_map
from ..raw import RawData
from ..scoring import Scores, score_values
from ..scoring.incremental import rescore
from .state import Changes, attribute_options, attribute_values, encode_changes, try_changes

#: the memo of scores per change set, per worker process (bounded for the memory targets;
#: 4 MiB keeps ~10 states at ML-PEG scale and the minimum of 2 from 1,000 x 1,000 up)
CACHE_BYTES = 4 * 1024 * 1024
#: a missed change set is derived from the scores of the most recent entries (and the
#: defaults') when it differs from one of them in a few metrics' thresholds only
#: (:func:`~ml_peg_like.scoring.incremental.rescore`: an edit of one box re-scores one column)
BASES = 3


def entry_bytes(n_values: int, n_paths: int) -> int:
    """What one memo entry holds (measured with tracemalloc: 361 KiB at 30 x 339 with 434
    paths, 10 MiB at 1,000 x 1,000): the score matrices (~12 bytes per model x metric) and the
    edited config with its path indexes (~600 bytes per path)."""
    return 12 * max(1, n_values) + 600 * n_paths


class ScoreCache:
    """The default config and raw values, and a memo of scores per change set.

    The memo is an optimisation only (same input, same output): every request carries its whole
    state, so any worker process can answer any request.
    """

    def __init__(self, config: Config, raw: RawData, cache_size: int = 64):
        self.defaults = config
        self.raw = raw
        self.models = tuple(raw.models)
        self.display = display_name_map(raw.attributes, self.models)  # {key: display name}
        self.values = raw.aligned(config)
        self.instances = raw.aligned_instances(config)  # per-instance metrics
        self.default_scores = score_values(self.values, self.models, config, self.instances)
        self.paths = set(config._paths)
        self.attr_options = attribute_options(raw.attributes)  # the model filters offered
        self.attr_values = (
            attribute_values(raw.attributes, self.attr_options) if self.attr_options else {}
        )
        self._memo: OrderedDict[str, tuple[Config, Scores]] = OrderedDict()
        self._lock = threading.Lock()
        # bounded in bytes too: a client cycling through distinct states cannot hold more than
        # ~CACHE_BYTES of entries
        per_entry = entry_bytes(self.values.size, len(self.paths))
        self._size = max(2, min(cache_size, CACHE_BYTES // per_entry))

    def scores_for(
        self, changes: Changes, *, config: Config | None = None, key: str | None = None
    ) -> tuple[Config, Scores]:
        """(config, scores) of defaults + changes; ConfigError when the changes are invalid.

        ``config``: the config of these changes when the caller has already built (and
        validated) it; ``key``: ``encode_changes(changes)`` when the caller has it. Neither is
        then computed again.
        """
        if key is None:
            key = encode_changes(changes)
        if not key:
            return self.defaults, self.default_scores
        with self._lock:
            hit = self._memo.get(key)
            if hit is not None:
                self._memo.move_to_end(key)
                return hit
        cfg = config if config is not None else try_changes(self.defaults, changes)
        result = (cfg, self._score(cfg))
        with self._lock:
            self._memo[key] = result
            while len(self._memo) > self._size:
                self._memo.popitem(last=False)
        return result

    def _score(self, cfg: Config) -> Scores:
        """The scores of ``cfg``: derived from a recent entry's when the change is simple, else
        in full."""
        with self._lock:
            recent = [scores for _cfg, scores in reversed(self._memo.values())][:BASES]
        for base in (*recent, self.default_scores):
            scores = rescore(base, cfg)
            if scores is not None:
                return scores
        return score_values(self.values, self.models, cfg, self.instances)
