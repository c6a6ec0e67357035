"""The entry points: :func:`rank_robustness`, :func:`leave_one_out`, :func:`compare_settings`."""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..aggregation import weighted_mean
from ..config import Config
from ..errors import MlPegLikeError, Problem
from ..raw import RawData
from ..scoring import (
    Scores,
    apply_vetoes,
    largest_change,
    rank_change,
    score_values,
)
from ..support.lazy import lazy_module
from .montecarlo import BatchScorer
from .results import RobustnessResult, SettingsComparison
from .sampling import WEIGHT_FLOOR, weight_spread
from .statistics import (
    CHUNK_ELEMENTS,
    average_ranks,
    kendall_tau,
    pearson_rows,
    rank_samples,
    row_ranks,
    spearman_rho,
)

pd = lazy_module("pandas")  # imported on first use: the first page needs none

DEFAULT_SAMPLES = 1000
DEFAULT_CONCENTRATION = 50.0
DEFAULT_THRESHOLD_JITTER = 0.1
DEFAULT_TOP_K = 5
DEFAULT_MAX_THRESHOLD_CELLS = 2.5e8
JITTER_SCALES = ("value", "span")
WEIGHT_BLOCK = 64  # samples per random block when no parameter is perturbed
DEFAULT_WORKERS = min(2, os.cpu_count() or 1)


def concentration_help(concentration: float = DEFAULT_CONCENTRATION) -> str:
    """The Dirichlet concentration in words, with how far ``concentration`` moves a weight
    (:func:`~.sampling.weight_spread`, one standard deviation, groups of two and three)."""
    two, three = (round(100 * weight_spread(concentration, n)) for n in (2, 3))
    return (
        "How close the sampled weights stay to the current ones: larger = closer, inf = fixed. "
        f"With {concentration:g}, a weight moves by about ±{two} % (one standard deviation) in a "
        f"group of two equal weights, ±{three} % in a group of three."
    )


ProgressFn = Callable[[int, int], Any]


def _blas_limit(n: int | None):
    """threadpoolctl's BLAS thread limit when installed, else nothing."""
    if n is None:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        return contextlib.nullcontext()
    return threadpool_limits(limits=int(n), user_api="blas")


def aggregate_batch(X: np.ndarray, W: np.ndarray, starts, skip) -> np.ndarray:
    """The kernel's weighted means (scores only) for R weight vectors at once.

    X: children scores, (models, n) shared by every weight vector or (R, models, n); NaN
    missing. W: (R, n) weights. Returns (R, models, groups).
    """
    W = np.atleast_2d(np.asarray(W, dtype=float))
    return weighted_mean(X, W, starts, skip, need_coverage=False)[0]


def _values(raw: RawData, cfg: Config) -> tuple[np.ndarray, tuple[str, ...]]:
    return raw.aligned(cfg), tuple(raw.models)


def _scores(raw: RawData, cfg: Config) -> Scores:
    """The scores of ``raw`` under ``cfg`` (per-instance metrics scored per instance)."""
    return score_values(raw.aligned(cfg), tuple(raw.models), cfg, raw.aligned_instances(cfg))


def _top(ranks: np.ndarray, models, valid: np.ndarray | None = None) -> list[str]:
    if valid is not None and not valid.any():
        return []
    return [m for m, r in zip(models, ranks, strict=True) if r == 1]


def compare_settings(
    raw: RawData, config_a: Config, config_b: Config | Mapping[str, Mapping[str, Any]]
) -> SettingsComparison:
    """Kendall tau-b and Spearman rho between the rankings of two settings of the same data.

    ``config_b`` may be a Config or a changes mapping applied to ``config_a``. Rankings are the
    engine's ranks (the ranking rule); a model without an overall score in either setting has
    no rank there and is left out of tau and rho.
    """
    if isinstance(config_b, Mapping):
        config_b = config_a.apply_changes(config_b)
    models = tuple(raw.models)
    sa = _scores(raw, config_a)
    sb = _scores(raw, config_b)
    ra, rb = sa.ranks, sb.ranks
    delta, word = rank_change(sa.overall_scores, sb.overall_scores)
    ta = _top(ra, models, ~np.isnan(sa.overall_scores))
    tb = _top(rb, models, ~np.isnan(sb.overall_scores))
    table = pd.DataFrame(
        {
            "model": list(models),
            "score_a": sa.overall_scores,
            "rank_a": pd.array(ra, dtype="Int64"),  # empty: no score, no rank
            "score_b": sb.overall_scores,
            "rank_b": pd.array(rb, dtype="Int64"),
            "change": -delta,  # positive: moved down; 0 where ``note`` has a word
            "note": word,
        }
    ).sort_values(["rank_b", "model"], kind="stable", ignore_index=True)
    return SettingsComparison(
        kendall_tau=kendall_tau(ra, rb),
        spearman_rho=spearman_rho(ra, rb),
        top_a=ta,
        top_b=tb,
        top_changed=set(ta) != set(tb),
        max_rank_change=largest_change(delta, word)[0],
        table=table,
    )


LOO_COLUMNS = [
    "level",
    "removed",
    "also_removed",
    "new_top",
    "top_changed",
    "kendall_tau",
    "spearman_rho",
    "max_rank_change",
    "max_change_model",
]


def _leave_one_out(scores: Scores, cfg: Config) -> pd.DataFrame:
    plan = scores.plan
    models = scores.models
    w_b, w_c = plan.w_bench, plan.w_cat
    nb, nc = w_b.size, w_c.size
    cat_of_bench = np.repeat(np.arange(nc), np.diff(np.r_[plan.bench_starts, nb]))
    zero = np.zeros(1, dtype=np.intp)
    over = np.array([plan.overall_skip])
    rows: list[dict] = []
    overall_parts = []

    cat_removed = [c for c in range(nc) if w_c[c] > 0]
    if cat_removed:
        Wc = np.tile(w_c, (len(cat_removed), 1))
        Wc[np.arange(len(cat_removed)), cat_removed] = 0.0
        overall_parts.append(aggregate_batch(scores.cat_scores, Wc, zero, over)[:, :, 0])
        for c in cat_removed:
            rows.append({"level": "category", "removed": plan.categories[c], "also_removed": ""})

    bench_removed = [b for b in range(nb) if w_b[b] > 0 and w_c[cat_of_bench[b]] > 0]
    if bench_removed:
        R = len(bench_removed)
        Wb = np.tile(w_b, (R, 1))
        Wb[np.arange(R), bench_removed] = 0.0
        Wc = np.tile(w_c, (R, 1))
        for r, b in enumerate(bench_removed):
            c = cat_of_bench[b]
            s = plan.bench_starts[c]
            e = plan.bench_starts[c + 1] if c + 1 < nc else nb
            also = ""
            if not (Wb[r, s:e] > 0).any():
                Wc[r, c] = 0.0
                also = plan.categories[c]
            rows.append(
                {
                    "level": "benchmark",
                    "removed": f"{plan.categories[c]}/{plan.benchmarks[b]}",
                    "also_removed": also,
                }
            )
        cats = aggregate_batch(scores.bench_scores, Wb, plan.bench_starts, plan.cat_skip)
        overall_parts.append(aggregate_batch(cats, Wc, zero, over)[:, :, 0])
    if not rows:
        return pd.DataFrame(columns=LOO_COLUMNS)
    overall = apply_vetoes(np.concatenate(overall_parts, axis=0), scores.vetoed)
    ranks = rank_samples(overall)
    base = scores.ranks
    taus = kendall_tau(ranks, base)
    rhos = spearman_rho(ranks, base[None, :])
    base_top = set(_top(base, models, ~np.isnan(scores.overall_scores)))
    # the largest change counts only the models ranked with and without the removal
    delta, word = rank_change(scores.overall_scores, overall)
    for r, row in enumerate(rows):
        top = _top(ranks[r], models, ~np.isnan(overall[r]))
        size, k = largest_change(delta[r], word[r])
        row.update(
            new_top=" = ".join(top),
            top_changed=set(top) != base_top,
            kendall_tau=float(taus[r]),
            spearman_rho=float(rhos[r]),
            max_rank_change=size,
            max_change_model=models[k] if k >= 0 else "",
        )
    return pd.DataFrame(rows, columns=LOO_COLUMNS)


def leave_one_out(raw: RawData, cfg: Config) -> pd.DataFrame:
    """The ranking with each positive-weight category, and each benchmark, removed in turn.

    Columns: level, removed (key path), also_removed (the category, when its last positive
    benchmark was removed), new_top (rank-1 models joined by ' = '), top_changed, kendall_tau and
    spearman_rho vs the full ranking, max_rank_change and the model with that change.
    """
    return _leave_one_out(_scores(raw, cfg), cfg)


def _bad_int(v, low) -> bool:
    return isinstance(v, bool) or not isinstance(v, int | np.integer) or v < low


def _number_ok(value, ok) -> bool:
    """``value`` reads as a float for which ``ok`` holds."""
    try:
        return ok(float(value))
    except (TypeError, ValueError):
        return False


def _check_settings(
    samples, seed, concentration, threshold_jitter, jitter_scale, top_k, draws, cells, workers, blas
):
    at_least_1 = "expected an integer >= 1, got"
    checks = (
        ("samples", _bad_int(samples, 1), f"{at_least_1} {samples!r}"),
        ("seed", seed is not None and _bad_int(seed, 0), f"expected an integer >= 0, got {seed!r}"),
        (
            "concentration",
            not _number_ok(concentration, lambda v: not math.isnan(v) and v > 0),
            f"expected a number > 0 (or inf), got {concentration!r}",
        ),
        (
            "threshold_jitter",
            not _number_ok(threshold_jitter, lambda v: math.isfinite(v) and v >= 0),
            f"expected a number >= 0, got {threshold_jitter!r}",
        ),
        (
            "jitter_scale",
            jitter_scale not in JITTER_SCALES,
            f"expected 'value' or 'span', got {jitter_scale!r}",
        ),
        ("top_k", _bad_int(top_k, 1), f"{at_least_1} {top_k!r}"),
        ("threshold_draws", draws is not None and _bad_int(draws, 1), f"{at_least_1} {draws!r}"),
        (
            "max_threshold_cells",
            not _number_ok(cells, lambda v: v > 0),
            f"expected a number > 0, got {cells!r}",
        ),
        ("workers", _bad_int(workers, 1), f"{at_least_1} {workers!r}"),
        ("blas_threads", blas is not None and _bad_int(blas, 1), f"{at_least_1} {blas!r}"),
    )
    problems = [Problem(name, message) for name, bad, message in checks if bad]
    if problems:
        raise MlPegLikeError(problems)


def rank_robustness(
    raw: RawData,
    cfg: Config,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = 0,
    top_k: int = DEFAULT_TOP_K,
    concentration: float = DEFAULT_CONCENTRATION,
    threshold_jitter: float = DEFAULT_THRESHOLD_JITTER,
    jitter_scale: str = "value",
    threshold_draws: int | None = None,
    max_threshold_cells: float = DEFAULT_MAX_THRESHOLD_CELLS,
    default: Config | None = None,
    loo: bool = True,
    keep_samples: int = 0,
    progress: ProgressFn | None = None,
    workers: int = DEFAULT_WORKERS,
    blas_threads: int | None = 1,
) -> RobustnessResult:
    """Monte Carlo rank robustness of ``cfg`` on ``raw`` (method: see the module docstring).

    ``default``: a config (same tree) whose ranking is compared with ``cfg``'s (Kendall tau,
    Spearman rho in ``scalars``). ``progress(done, total)`` is called after every batch with the
    number of samples done. ``keep_samples``: keep the first n samples (weights, thresholds,
    overall scores) in ``result.samples``. ``workers``: batches computed concurrently by threads
    (numpy releases the GIL; the result does not depend on it). ``blas_threads``: BLAS threads
    during the run when threadpoolctl is installed (the products are small, so 1 is fastest,
    above all on a busy machine; None leaves BLAS alone). Raises MlPegLikeError on bad settings.
    """
    _check_settings(
        samples,
        seed,
        concentration,
        threshold_jitter,
        jitter_scale,
        top_k,
        threshold_draws,
        max_threshold_cells,
        workers,
        blas_threads,
    )
    t_start = time.perf_counter()
    values, models = _values(raw, cfg)
    M = len(models)
    if M == 0:
        raise MlPegLikeError([Problem("raw", "no models to rank")])
    N = int(samples)
    concentration = float(concentration)
    jitter = float(threshold_jitter)
    eng = BatchScorer(
        values, models, cfg, concentration, jitter, jitter_scale, raw.aligned_instances(cfg)
    )
    n_jit = eng.jit_cols.size
    use_thr = n_jit > 0

    K, R, n_blocks, per_chunk = _blocking(eng, N, M, n_jit, threshold_draws, max_threshold_cells)
    children = np.random.SeedSequence(seed).spawn(n_blocks)

    valid = ~eng.omiss
    vidx = np.flatnonzero(valid)
    n_valid = vidx.size
    counts = np.zeros((M, M + 1), dtype=np.int64)  # ranks 1..M; column 0: no rank (not counted)
    base_avg = None
    if n_valid >= 2:
        base_avg = average_ranks(eng.scores.overall_scores[vidx][None])
    keep = max(0, min(int(keep_samples), N))
    model_of = np.arange(M)

    run_chunk = _chunk_runner(
        eng, children, n_blocks, per_chunk, R, N, M, use_thr, keep, vidx, n_valid, base_avg
    )
    starts = list(range(0, n_blocks, per_chunk))
    rhos, kept_parts = _run_chunks(
        run_chunk, starts, counts, model_of, M, N, workers, blas_threads, progress
    )
    t_mc = time.perf_counter() - t_start

    # ---- summaries ----------------------------------------------------------------------------
    acc, k_top, summary, acceptability = _rank_tables(counts, N, M, models, eng, top_k)
    rank_now = eng.scores.ranks
    t0 = time.perf_counter()
    loo_df = _leave_one_out(eng.scores, cfg) if loo else pd.DataFrame(columns=LOO_COLUMNS)
    t_loo = time.perf_counter() - t0

    scalars = _scalars(
        eng, models, valid, acc, rhos, loo_df, (M, n_valid, N, K, R, use_thr, n_jit), (t_mc, t_loo)
    )
    scalars.update(_vs_default(raw, default, rank_now))
    settings = {
        "samples": N,
        "seed": seed,
        "top_k": k_top,
        "concentration": concentration,
        "threshold_jitter": jitter,
        "jitter_scale": jitter_scale,
        "threshold_draws_requested": threshold_draws,
        "max_threshold_cells": float(max_threshold_cells),
        "weight_floor": WEIGHT_FLOOR,
        "method": (
            "Dirichlet(concentration * w / sum(w)) * sum(w) per group at every level; every "
            "jitterable normaliser parameter (good/bad, Weibull b/c, max_speedup, ...) moved by "
            "U(-x, x) * scale, invalid values redrawn; blocked Monte Carlo: "
            "threshold_draws distinct threshold draws, each shared by "
            "samples_per_threshold_draw weight draws; quantiles: smallest rank r with "
            "P(rank <= r) >= q"
        ),
    }
    samples_out = _kept_samples(eng, kept_parts, keep, values.shape[1], use_thr)
    return RobustnessResult(
        models=models,
        settings=settings,
        scalars=scalars,
        summary=summary,
        acceptability=acceptability,
        leave_one_out=loo_df,
        samples=samples_out,
        config=cfg,
    )


def _blocking(eng: BatchScorer, N: int, M: int, n_jit: int, threshold_draws, max_threshold_cells):
    """(K threshold draws, R weight draws per block, blocks, blocks per chunk). With moved
    parameters a block is one parameter draw shared by R weight draws; without, a block is
    :data:`WEIGHT_BLOCK` weight draws."""
    use_thr = n_jit > 0
    if use_thr:
        if threshold_draws is not None:
            K = min(int(threshold_draws), N)
        else:
            K = int(min(N, max(1, float(max_threshold_cells) // (M * n_jit))))
        R = -(-N // K)
        K = -(-N // R)
        n_blocks = K
        per_chunk = max(1, CHUNK_ELEMENTS // (M * eng.max_group_cols))
        per_chunk = max(1, min(per_chunk, CHUNK_ELEMENTS // (M * R * 4) or 1, n_blocks))
    else:
        K = 0
        R = WEIGHT_BLOCK
        n_blocks = -(-N // R)
        per_chunk = max(1, min(8, CHUNK_ELEMENTS // (M * R * 4) or 1, n_blocks))
    return K, R, n_blocks, per_chunk


def _chunk_runner(
    eng: BatchScorer, children, n_blocks, per_chunk, R, N, M, use_thr, keep, vidx, n_valid, base_avg
):
    """``run_chunk(start)``: the samples of blocks ``start .. start + per_chunk``, as (samples
    taken, their ranks, their Spearman rho vs the current ranking, the samples kept)."""

    def run_chunk(start: int):
        blocks = range(start, min(n_blocks, start + per_chunk))
        draws = [eng.draw_block(np.random.default_rng(children[k]), R, use_thr) for k in blocks]
        Wm = np.concatenate([d[1] for d in draws])
        Wb = np.concatenate([d[2] for d in draws])
        Wc = np.concatenate([d[3] for d in draws])
        D = {k: np.stack([d[0][k] for d in draws]) for k in draws[0][0]} if use_thr else None
        ov = eng.overall_batch(Wm, Wb, Wc, D)  # (len(blocks) * R, M)
        s0 = start * R
        n_take = min(ov.shape[0], N - s0)
        ov = ov[:n_take]
        ranks = np.zeros((n_take, M), dtype=np.int64)  # 0: no rank (no score)
        rho = None
        if n_valid:
            V = ov[:, vidx]
            rv, avg = row_ranks(V, average=base_avg is not None)
            ranks[:, vidx] = np.nan_to_num(rv, nan=0.0).astype(np.int64)
            if base_avg is not None:
                rho = pearson_rows(avg, np.broadcast_to(base_avg, V.shape))
        kept = None
        if s0 < keep:
            k = min(keep - s0, n_take)
            kept = {"mw": Wm[:k], "bw": Wb[:k], "cw": Wc[:k], "ov": ov[:k]}
            if use_thr:
                kept["d"] = {name: D[name][np.arange(k) // R] for name in eng.jitter.moved}
        return n_take, ranks, rho, kept

    return run_chunk


def _run_chunks(run_chunk, starts, counts, model_of, M, N, workers, blas_threads, progress):
    """Run every chunk, counting each model's ranks in ``counts``; (rhos, kept samples)."""
    n_workers = max(1, min(int(workers), len(starts)))
    rhos, kept_parts = [], []
    done = 0
    with _blas_limit(blas_threads), ThreadPoolExecutor(n_workers) as pool:
        # chunks run n_workers at a time; results are consumed in order (deterministic)
        results = pool.map(run_chunk, starts) if n_workers > 1 else map(run_chunk, starts)
        for n_take, ranks, rho, kept in results:
            flat = (model_of[None, :] * (M + 1) + ranks).ravel()
            counts += np.bincount(flat, minlength=M * (M + 1)).reshape(M, M + 1)
            if rho is not None:
                rhos.append(rho)
            if kept is not None:
                kept_parts.append(kept)
            done += n_take
            if progress is not None:
                progress(done, N)
    return rhos, kept_parts


def _rank_statistics(counts: np.ndarray, N: int, k_top: int, ranked: np.ndarray) -> dict:
    """The summary's rank statistics from ``counts`` (model x rank 0..M, column 0: no rank):
    median, 5% and 95% ranks (the smallest rank r with P(rank <= r) >= q), mean rank, P(rank 1)
    and P(top k); NaN for the models not ``ranked`` (no overall score: no rank)."""
    acc = counts[:, 1:] / N
    cum = np.cumsum(counts[:, 1:], axis=1)

    def quantile(q: float) -> np.ndarray:
        return np.argmax(cum >= q * N - 1e-9, axis=1) + 1.0

    cols = {
        "median_rank": quantile(0.5),
        "rank_5": quantile(0.05),
        "rank_95": quantile(0.95),
        "mean_rank": acc @ np.arange(1, acc.shape[1] + 1),
        "p_rank1": acc[:, 0],
        "p_topk": acc[:, :k_top].sum(axis=1),
    }
    out = {k: np.where(ranked, v, np.nan) for k, v in cols.items()}
    for k in ("median_rank", "rank_5", "rank_95"):  # whole ranks; empty without a rank
        out[k] = pd.array(out[k], dtype="Int64")
    return out


def _vs_default(raw: RawData, default: Config | None, rank_now: np.ndarray) -> dict[str, Any]:
    """Kendall tau and Spearman rho of the ranking against ``default``'s (None without one;
    models without a rank in either are left out)."""
    if default is None:
        return {"kendall_tau_vs_default": None, "spearman_rho_vs_default": None}
    d_ranks = _scores(raw, default).ranks
    return {
        "kendall_tau_vs_default": kendall_tau(rank_now, d_ranks),
        "spearman_rho_vs_default": spearman_rho(rank_now, d_ranks),
    }


def _rank_tables(counts: np.ndarray, N: int, M: int, models, eng: BatchScorer, top_k: int):
    """(rank acceptability, top k, summary per model, acceptability table) from the rank
    counts of the N samples."""
    acc = counts[:, 1:] / N  # model x rank 1..M
    valid = ~eng.omiss
    k_top = min(int(top_k), M)
    rank_now = eng.scores.ranks
    ranks_axis = np.arange(1, M + 1)
    summary = pd.DataFrame(
        {
            "model": list(models),
            "score_now": eng.scores.overall_scores,
            "rank_now": pd.array(rank_now, dtype="Int64"),
            **_rank_statistics(counts, N, k_top, valid),
        }
    )
    acc[~valid] = np.nan  # no score, no rank: no rank statistics
    order = np.lexsort((np.arange(M), rank_now))
    summary = summary.iloc[order].reset_index(drop=True)
    acceptability = pd.DataFrame(
        acc[order],
        index=pd.Index([models[i] for i in order], name="model"),
        columns=pd.Index(ranks_axis, name="rank"),
    )
    return acc, k_top, summary, acceptability


def _scalars(eng: BatchScorer, models, valid, acc, rhos, loo_df, sizes, seconds) -> dict[str, Any]:
    """The run's headline numbers (the comparison with the default config left empty)."""
    M, n_valid, N, K, R, use_thr, n_jit = sizes
    t_mc, t_loo = seconds
    rank_now = eng.scores.ranks
    top_now = _top(rank_now, models, valid)
    top_idx = [models.index(m) for m in top_now]
    rho_all = np.concatenate(rhos) if rhos else np.zeros(0)
    return {
        "models": M,
        "models_ranked": int(n_valid),
        "samples": N,
        "threshold_draws": K,
        "samples_per_threshold_draw": R if use_thr else None,
        "jittered_thresholds": int(n_jit),  # metrics with a moved parameter
        "jittered_parameters": eng.jitter.n_moved,
        "top_model": " = ".join(top_now),
        "p_top_model_stays_first": float(acc[top_idx, 0].min()) if top_idx else None,
        "spearman_vs_current_median": float(np.median(rho_all)) if rho_all.size else None,
        "spearman_vs_current_5": float(np.quantile(rho_all, 0.05)) if rho_all.size else None,
        "spearman_vs_current_mean": float(rho_all.mean()) if rho_all.size else None,
        "leave_one_out_top_changes": int(loo_df["top_changed"].sum()) if len(loo_df) else 0,
        "kendall_tau_vs_default": None,
        "spearman_rho_vs_default": None,
        "seconds_monte_carlo": round(t_mc, 4),
        "seconds_leave_one_out": round(t_loo, 4),
    }


def _kept_samples(eng: BatchScorer, kept_parts, keep: int, P: int, use_thr: bool) -> dict[str, Any]:
    """The first ``keep`` samples: weights at every level, moved parameters, overall scores."""
    samples_out: dict[str, Any] = {}
    if keep:
        moved = {}
        for name, mask in eng.jitter.moved.items():
            arr = np.full((keep, P), np.nan)
            if use_thr:
                got = np.concatenate([k["d"][name] for k in kept_parts])
                arr[:, eng.jit_cols[mask]] = got[:, mask]
            moved[name] = arr
        nan = np.full((keep, P), np.nan)
        samples_out = {
            "metric_weights": np.concatenate([k["mw"] for k in kept_parts]),
            "benchmark_weights": np.concatenate([k["bw"] for k in kept_parts]),
            "category_weights": np.concatenate([k["cw"] for k in kept_parts]),
            "good": moved.pop("good", nan),
            "bad": moved.pop("bad", nan.copy()),
            "parameters": moved,
            "threshold_columns": eng.jit_cols.copy(),
            "overall": np.concatenate([k["ov"] for k in kept_parts]),
        }
    return samples_out
