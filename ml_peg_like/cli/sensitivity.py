"""``ml-peg-like sensitivity CONFIG [RAW] [--model NAME] [--top-k K] --out DIR``.

Writes ``DIR/intervals.csv`` (``path,field,current,low,high``: how far each weight, threshold or
parameter can move, all else fixed, before the leader or the top-k set changes; ``inf``/``-inf``
for unbounded ends), with ``--model`` ``DIR/whatif.csv`` (``path,field,current,value``: the value
nearest the current one that puts the model first; empty when none) and ``DIR/dominance.csv``
(``model,dominated_by``, names joined by ``;``). When no single change puts the model first,
whatif.csv holds its header only and a line on stdout says so. Messages name models by their
display names (``models.csv``). Bad input: exit code 2, one line per problem.
"""

from __future__ import annotations

import csv
from pathlib import Path

from ..errors import ConfigError, Problem
from ..models import display_name_map
from .common import add_data_args, warn

WHATIF_COLUMNS = ["path", "field", "current", "value"]


def add_parser(subparsers):
    """Add the ``sensitivity`` sub-command to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "sensitivity",
        help="how far each weight and threshold can move before the ranking changes (exact)",
    )
    add_data_args(p)
    p.add_argument(
        "--model",
        default=None,
        help="also write whatif.csv for this model (its key): the single changes that put it "
        "first (header only when none does)",
    )
    p.add_argument("--top-k", type=int, default=1, help="intervals keep the top-k set (default 1)")
    p.add_argument("--out", required=True, help="output directory")
    p.set_defaults(func=run)
    return p


def write_whatif(wi, path: Path, name: str) -> str | None:
    """Write the what-if frame ``wi`` to ``path``: every row when one single change puts the
    model (shown as ``name``) first; else the header only, and the line saying so is returned."""
    if wi["value"].notna().any():
        wi.to_csv(path, index=False, float_format="%.12g", na_rep="")
        return None
    wi.iloc[0:0][WHATIF_COLUMNS].to_csv(path, index=False)
    return (
        f"sensitivity: no single change of a weight, threshold or parameter puts {name} first; "
        f"{path.name} holds its header only"
    )


def run(args) -> int:
    """Run ``sensitivity``; 0 on success, 2 (one line per problem on stderr) on bad input."""
    # bad input raises MlPegLikeError: ml_peg_like.cli.main prints one line per problem and exits 2
    from ..raw import load_dataset
    from ..sensitivity import dominance, stability_intervals, what_if

    cfg, raw = load_dataset(args.config, args.raw, ignore_unknown=args.ignore_unknown)
    warn(raw.warnings)
    if args.top_k is None or args.top_k < 1:
        raise ConfigError([Problem("--top-k", f"must be at least 1, got {args.top_k}")])
    models = tuple(raw.models)
    if args.model is not None and args.model not in models:
        known = ", ".join(models)
        raise ConfigError([Problem("--model", f"no model {args.model!r} (known: {known})")])
    values = raw.aligned(cfg)
    inst = raw.aligned_instances(cfg)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    iv = stability_intervals(values, models, cfg, top_k=args.top_k, instances=inst)
    iv.to_csv(out / "intervals.csv", index=False, float_format="%.12g", na_rep="")
    paths.append(out / "intervals.csv")
    if args.model is not None:
        wi = what_if(values, models, cfg, args.model, instances=inst)
        name = display_name_map(raw.attributes, models)[args.model]
        note = write_whatif(wi, out / "whatif.csv", name)
        if note:
            print(note)
        paths.append(out / "whatif.csv")
    dom = dominance(values, models, cfg, instances=inst)
    with open(out / "dominance.csv", "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "dominated_by"])
        for m in models:
            w.writerow([m, ";".join(dom[m])])
    paths.append(out / "dominance.csv")
    n_dom = sum(1 for m in models if dom[m])
    print(
        f"sensitivity: {len(iv)} values, {len(models)} models ({n_dom} dominated); "
        f"wrote {', '.join(str(p) for p in paths)}"
    )
    return 0
