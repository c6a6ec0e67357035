"""The XLSX export of a large board: CPU seconds and peak RSS of ``report_xlsx`` (the workbook
the CLI's ``--format xlsx`` and the dashboard's Excel button write).

    python -m benchmarks.bench_xlsx_export --models 10000 --metrics 360

Synthetic board: ``--metrics`` metrics in benchmarks of 6, categories of 10 benchmarks, values
uniform in [0, 1] (5% missing), skip policy. Prints one line: models, metrics, cells written,
seconds of CPU for scoring + report + workbook, the workbook's size and the peak RSS.
The synthetic board is made here: its shape (benchmarks of 6, categories of 10) is this
benchmark's own.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from .harness import Row, print_table


def board(n_models: int, n_metrics: int, seed: int = 0):
    import ml_peg_like as mpl

    cats: dict = {}
    for j in range(n_metrics):
        b, c = j // 6, j // 60
        bench = cats.setdefault(f"C{c}", {"benchmarks": {}})["benchmarks"]
        bench.setdefault(f"B{b}", {"metrics": {}})["metrics"][f"m{j}"] = {"good": 1, "bad": 0}
    cfg = mpl.config_from_dict({"title": "big", "missing": "skip", "categories": cats})
    rng = np.random.default_rng(seed)
    values = rng.random((n_models, n_metrics))
    values[rng.random(values.shape) < 0.05] = np.nan
    models = [f"model{i:05d}" for i in range(n_models)]
    return cfg, mpl.RawData(tuple(models), tuple(cfg.metric_ids()), values)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=10000)
    ap.add_argument("--metrics", type=int, default=360)
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    import ml_peg_like as mpl
    from ml_peg_like.io.report import build_report
    from ml_peg_like.io.xlsx import report_xlsx

    cfg, raw = board(args.models, args.metrics)
    t0 = time.process_time()
    w0 = time.perf_counter()
    s = mpl.score(raw, cfg)
    rep = build_report(s)
    t1 = time.process_time()
    data = report_xlsx(rep)
    t2 = time.process_time()
    wall = time.perf_counter() - w0
    if args.out:
        with open(args.out, "wb") as f:
            f.write(data)
    cells = sum(df.shape[0] * df.shape[1] for df in rep.sheets.values())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB (Linux)
    print(f"{args.models} models x {args.metrics} metrics, {cells:,} cells written")
    print_table(
        [
            Row("CPU, scoring + report", [t1 - t0], unit="s"),
            Row("CPU, workbook", [t2 - t1], unit="s"),
            Row("CPU, total", [t2 - t0], unit="s"),
            Row("wall, total", [wall], unit="s"),
            Row("workbook size", [len(data) / 2**20], unit="MiB"),
            Row("peak RSS", [peak], unit="MiB"),
        ]
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
