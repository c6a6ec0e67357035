"""Rank robustness: how far does a ranking rest on the chosen weights and thresholds?

Pure numpy, no Dash. Modules: :mod:`.statistics` (Kendall tau, Spearman rho, ranks),
:mod:`.sampling` (Dirichlet weights, parameter draws), :mod:`.montecarlo` (:class:`BatchScorer`,
the batched scorer), :mod:`.results`, :mod:`.api` (the entry points). Three tools:

* :func:`rank_robustness` — Monte Carlo over the settings. Every sample draws

  - **weights** at every level (metric weights within each benchmark, benchmark weights within
    each category, category weights): per group ``w' = Dirichlet(c * w / sum(w)) * sum(w)`` with
    ``c`` = ``concentration`` (large = close to the current weights; ``inf`` = no weight
    perturbation). Children with weight 0 stay 0, a group with a single positive child is
    unchanged, and a sampled positive weight is floored at ``1e-12`` of its group's total so that a
    positive child never becomes 0 (a missing child then keeps invalidating its parent exactly as
    with the current settings). A group whose gamma draws all underflow to 0 (possible only for a
    tiny concentration) keeps its current weights in that sample.
  - **normaliser parameters** (``threshold_jitter`` = x, e.g. 0.1): every parameter a
    normaliser declares jitterable (``Normaliser.jitter_params()``: good and bad thresholds,
    Weibull ``b``/``c``, ``max_speedup``, a user-registered normaliser's own) of a metric that
    counts (positive weight along its path) is moved independently and uniformly by up to +-x
    times its scale (:mod:`.sampling`). ``jitter_scale="value"`` (default):
    the scale is the threshold's own magnitude ``|good|`` / ``|bad|`` (a threshold equal to 0 uses
    ``|good - bad|`` instead); ``"span"``: both use ``|good - bad|``. Data-driven thresholds
    (``{model: NAME}``, ``best``, ``worst``) are resolved from the data first and the resolved
    number is moved. A draw that would make ``good == bad`` or swap the direction is **redrawn**
    (rejection sampling, so each pair is uniform over the valid part of its box); after 64
    rejected redraws (a box almost entirely invalid) the pair keeps its current values; a
    degenerate resolved pair (``good == bad``) is not perturbed. Any other parameter uses its own
    magnitude as scale and is redrawn while it breaks its declared bounds (``positive``,
    ``greater_than``). A per-instance metric (``RawData.instances``: each instance normalised
    on its own, the instance scores averaged) is scored per instance and its weight is sampled,
    but its parameters are not moved.

  Scores are recomputed vectorised across samples by :class:`~.montecarlo.BatchScorer` (the
  aggregation kernel's rules as matrix products; see :mod:`.montecarlo`).

  Parameters change the metric scores per sample, which is the expensive part. It is a **blocked
  Monte Carlo**: K distinct parameter draws, each shared by R = ceil(N / K) consecutive weight
  draws. Every sample's marginal distribution is still the intended one (only samples of one
  block are correlated); K is chosen so that ``K * models * jittered metrics <=
  max_threshold_cells`` (default 2.5e8: K = 250 at 1,000 x 1,000, about 6 ms per draw there),
  capped at N, or set with ``threshold_draws``. The result reports the effective K and R. Each
  draw's scores are built per category and per group of benchmarks with the same number of
  jittered columns (models x columns, cache-sized), multiplied by the folded weights of its R
  samples, and the numerators of the ``skip`` benchmarks' irregular (row, benchmark) pairs are
  gathered at the same time, so that no array of samples x models x metrics is ever built.
  Batches of blocks run on ``workers`` threads (default 2; the result does not depend on it), with
  BLAS limited to 1 thread when threadpoolctl is installed (the products are small).

  Determinism: block k (one threshold draw and its R weight draws; without threshold jitter,
  blocks of 64 weight draws) uses its own generator ``default_rng(SeedSequence(seed).spawn(...)[k])``,
  so a seed gives the same result whatever the batch sizes.

  Per model: ranks (the ranking rule, ``scoring.rank_desc``: 1 = best, tied scores share the
  best rank, a model without an overall score has no rank and no rank statistics), the rank
  distribution (median, 5% and 95% quantiles: the
  smallest rank r with P(rank <= r) >= q), P(rank 1), P(top k) and the rank-acceptability matrix.

* :func:`kendall_tau` (tau-b, ties handled) and :func:`spearman_rho` (Pearson correlation of
  average ranks), vectorised over rows; :func:`compare_settings` between two saved settings.
* :func:`leave_one_out` — the ranking with each category, and each benchmark, removed in turn
  (weight 0), all removals at once. Removing the last positive benchmark of a category removes the
  category too (otherwise, under ``invalidate``, every overall score would be missing).
"""

from .api import (
    DEFAULT_CONCENTRATION,
    DEFAULT_MAX_THRESHOLD_CELLS,
    DEFAULT_SAMPLES,
    DEFAULT_THRESHOLD_JITTER,
    DEFAULT_TOP_K,
    DEFAULT_WORKERS,
    JITTER_SCALES,
    LOO_COLUMNS,
    aggregate_batch,
    compare_settings,
    concentration_help,
    leave_one_out,
    rank_robustness,
)
from .montecarlo import BatchScorer
from .results import RobustnessResult, SettingsComparison
from .sampling import WEIGHT_FLOOR, weight_spread
from .statistics import kendall_tau, rank_samples, spearman_rho

__all__ = [
    "DEFAULT_CONCENTRATION",
    "DEFAULT_MAX_THRESHOLD_CELLS",
    "DEFAULT_SAMPLES",
    "DEFAULT_THRESHOLD_JITTER",
    "DEFAULT_TOP_K",
    "DEFAULT_WORKERS",
    "JITTER_SCALES",
    "LOO_COLUMNS",
    "WEIGHT_FLOOR",
    "BatchScorer",
    "RobustnessResult",
    "SettingsComparison",
    "aggregate_batch",
    "compare_settings",
    "concentration_help",
    "kendall_tau",
    "leave_one_out",
    "rank_robustness",
    "rank_samples",
    "spearman_rho",
    "weight_spread",
]
