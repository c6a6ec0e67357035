"""``ml-peg-like robustness CONFIG [RAW] --samples N --seed S --out DIR``.

Monte Carlo rank robustness of a setting (see :mod:`ml_peg_like.robustness`): writes
``DIR/robustness_summary.csv`` (per model: rank now, median rank, 5%-95% ranks, P(rank 1),
P(top k)), ``DIR/rank_acceptability.csv`` (model x rank -> probability), ``DIR/leave_one_out.csv``
and ``DIR/robustness.json`` (settings and headline numbers). ``--preset`` / ``--changes`` score a
changed setting; its Kendall tau and Spearman rho against the config as loaded are reported.
Bad input: exit code 2 and one line per problem on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from ..errors import ConfigError, Problem
from ..models import display_name_map, shown_names
from ..raw import load_dataset
from ..robustness import (
    DEFAULT_CONCENTRATION,
    DEFAULT_SAMPLES,
    DEFAULT_THRESHOLD_JITTER,
    DEFAULT_TOP_K,
    JITTER_SCALES,
    concentration_help,
    rank_robustness,
)
from .common import add_data_args, number, warn


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``robustness`` sub-command to an argparse ``subparsers`` object."""

    p = subparsers.add_parser(
        "robustness",
        help="how far the ranking rests on the weights and thresholds (Monte Carlo, leave one out)",
        description=(
            "Sample weights (Dirichlet around the current ones, at every level) and thresholds "
            "(each good/bad moved by up to +-X), rank the models in every sample, and write the "
            "rank distribution per model, the rank-acceptability matrix and leave-one-out "
            "rankings."
        ),
    )
    add_data_args(p)
    p.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="Monte Carlo samples")
    p.add_argument("--seed", type=int, default=0, help="random seed (same seed, same result)")
    p.add_argument("--top-k", type=int, default=DEFAULT_TOP_K, help="k of P(top k)")
    p.add_argument(
        "--concentration",
        type=number,
        default=DEFAULT_CONCENTRATION,
        help="Dirichlet concentration of the weights. " + concentration_help().replace("%", "%%"),
    )
    p.add_argument(
        "--threshold-jitter",
        type=number,
        default=DEFAULT_THRESHOLD_JITTER,
        help="move each good/bad threshold by up to +-X (0.1 = 10%%; 0 = fixed thresholds)",
    )
    p.add_argument(
        "--jitter-scale",
        choices=JITTER_SCALES,
        default="value",
        help="X is relative to the threshold's own value (default) or to |good - bad|",
    )
    p.add_argument(
        "--threshold-draws",
        type=int,
        default=None,
        help="distinct threshold draws K (default: from a time budget); samples share them",
    )
    p.add_argument("--preset", default=None, help="apply this preset of the config first")
    p.add_argument(
        "--changes",
        default=None,
        help="changes to apply (JSON text or a .json file: {key path: {field: value}})",
    )
    p.add_argument("--no-leave-one-out", action="store_true", help="skip the leave-one-out pass")
    p.add_argument("--out", required=True, help="output directory")
    p.set_defaults(func=run)
    return p


def _load_changes(text: str) -> dict:
    path = Path(text)
    source = "--changes"
    if not text.lstrip().startswith("{"):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError([Problem(str(path), f"cannot read: {exc.strerror or exc}")]) from None
        source = str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            [Problem(source, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")]
        ) from None
    if not isinstance(data, dict):
        raise ConfigError([Problem(source, "expected a JSON object {key path: {field: value}}")])
    return data


def run(args) -> int:
    """Run ``robustness``; 0 on success, 2 (one line per problem on stderr) on bad input."""
    # bad input raises MlPegLikeError: ml_peg_like.cli.main prints one line per problem and exits 2
    base, raw = load_dataset(args.config, args.raw, ignore_unknown=args.ignore_unknown)
    warn(raw.warnings)
    cfg = base
    if args.preset is not None:
        if args.preset not in base.presets:
            known = ", ".join(sorted(base.presets)) or "none"
            raise ConfigError([Problem("--preset", f"no preset {args.preset!r} (known: {known})")])
        cfg = cfg.apply_changes(base.presets[args.preset])
    if args.changes is not None:
        cfg = cfg.apply_changes(_load_changes(args.changes))
    res = rank_robustness(
        raw,
        cfg,
        samples=args.samples,
        seed=args.seed,
        top_k=args.top_k,
        concentration=args.concentration,
        threshold_jitter=args.threshold_jitter,
        jitter_scale=args.jitter_scale,
        threshold_draws=args.threshold_draws,
        default=base,
        loo=not args.no_leave_one_out,
    )
    paths = res.write(args.out)
    sc = res.scalars
    p1 = sc["p_top_model_stays_first"]
    names = display_name_map(raw.attributes, raw.models)
    top = shown_names(sc["top_model"], names) or "(no model has an overall score)"
    stays = f"; P(it stays first) = {p1:.3f}" if p1 is not None and not math.isnan(p1) else ""
    k = sc["threshold_draws"]
    draws = f", {k} distinct threshold draws" if k else ""
    print(
        f"robustness: {sc['samples']} samples{draws} over {sc['models']} models; "
        f"top model {top}{stays}; wrote {', '.join(str(p) for p in paths)}"
    )
    return 0
