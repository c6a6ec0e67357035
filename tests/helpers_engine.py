"""Small builders shared by the engine tests."""

from __future__ import annotations

import io

import numpy as np

import ml_peg_like as mpl


def raw_csv(cfg: mpl.Config, rows: list[tuple[str, str, str, object]]) -> mpl.RawData:
    text = "model,benchmark,metric,value\n" + "".join(
        f"{m},{b},{k},{'' if v is None else v}\n" for m, b, k, v in rows
    )
    return mpl.load_raw(io.BytesIO(text.encode()), cfg)


def raw_matrix(cfg: mpl.Config, models: list[str], values) -> mpl.RawData:
    return mpl.RawData(tuple(models), tuple(cfg.metric_ids()), np.asarray(values, dtype=float))
