"""Per-instance metrics: each instance normalised on its own, the instance scores averaged.

Seed 002 (UAI): "a per-instance score by normalizing the errors on each problem instance ...
averaging the per-instance scores across all problems tested on". For a per-instance metric
(:attr:`ml_peg_like.raw.RawData.instances`), every parameter that is a number applies to every
instance; a data-driven one (``{model: NAME}``, ``best``, ``worst``) is resolved per instance
from that instance's values. The metric score of a model is the mean of its instance scores over
the scorable instances:

- an instance whose data-driven threshold cannot be resolved (e.g. the trivial solver has no
  value on it) is left out for every model, with a warning;
- a missing instance value of a model that has a value on some scorable instance scores 0
  (the seed averages over all problems tested on: no answer earns nothing, so a model gains
  nothing by skipping hard instances);
- a model without any value on the scorable instances has no score for the metric (then the
  config's missing-data policy applies as for any missing metric).

One normaliser call per per-instance metric on its (models x instances) block.
"""

from __future__ import annotations

import numpy as np

from ..config import ModelRef
from ..normalisers import apply_normaliser, get_normaliser
from .plan import Plan, _unresolved, resolve_threshold

MAX_NAMED = 5  # instances named in one warning


def normalise_instances(
    out: np.ndarray, plan: Plan, models: dict[str, int], blocks: dict, resolved: dict
) -> tuple[dict[int, np.ndarray], list[str]]:
    """Overwrite the metric scores ``out[:, j]`` of every per-instance column ``j`` of
    ``blocks`` ({column: InstanceBlock}) and return ({column: instance scores (models x
    instances), NaN where unscorable}, warnings). ``resolved[name][param][pos]`` of a
    data-driven parameter of such a column becomes NaN (it has one value per instance)."""
    inst_scores: dict[int, np.ndarray] = {}
    warnings: list[str] = []
    if not blocks:
        return inst_scores, warnings
    for name, cols, static, dynamic in plan.groups:
        norm = None
        for pos, j in enumerate(cols.tolist()):
            block = blocks.get(j)
            if block is None:
                continue
            norm = norm or get_normaliser(name)
            x = np.asarray(block.values, dtype=float)
            n = x.shape[1]
            params = {pn: np.full(n, arr[pos]) for pn, arr in static.items()}
            unscorable = np.zeros(n, dtype=bool)
            for i, pn, spec, metric in dynamic:
                if i != pos:
                    continue
                v = np.broadcast_to(resolve_threshold(spec, x, models, metric), (n,))
                params[pn] = np.array(v, dtype=float)
                bad = np.isnan(params[pn])
                if bad.any():
                    warnings.append(
                        _instance_warning(spec, plan.metric_paths[j], pn, models, block, bad)
                    )
                unscorable |= bad
                resolved[name][pn][pos] = np.nan
            s = apply_normaliser(norm, x, params) if n else np.zeros(x.shape)
            s[:, unscorable] = np.nan
            inst_scores[j] = s
            out[:, j] = _mean_of_instances(x, s, ~unscorable)
    return inst_scores, warnings


def _mean_of_instances(x: np.ndarray, s: np.ndarray, scorable: np.ndarray) -> np.ndarray:
    """The metric score: mean instance score over the scorable instances, a missing value
    counting 0; NaN for a model without any value on them (or when none is scorable)."""
    k = int(scorable.sum())
    if k == 0:
        return np.full(x.shape[0], np.nan)
    xs, ss = x[:, scorable], s[:, scorable]
    has = (~np.isnan(xs)).any(axis=1)
    total = np.where(np.isnan(ss), 0.0, ss).sum(axis=1)
    return np.where(has, total / k, np.nan)


def _instance_warning(spec, path, pn, models, block, bad: np.ndarray) -> str:
    if bad.all():
        return _unresolved(spec, path, pn, models)
    names = [block.names[k] for k in np.flatnonzero(bad)]
    shown = ", ".join(names[:MAX_NAMED])
    if len(names) > MAX_NAMED:
        shown += f" and {len(names) - MAX_NAMED} more"
    who = f"model '{spec.model}'" if isinstance(spec, ModelRef) else str(spec)
    return (
        f"{path}.{pn}: {who} has no value on instance(s) {shown}; "
        "those instances are left out for every model"
    )
