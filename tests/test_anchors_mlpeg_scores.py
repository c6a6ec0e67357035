"""ML-PEG's stored benchmark `Score` of every model, reproduced to 1e-9 by the engine.

The config is built here straight from each table's `thresholds` and `weights` (not through the
converter, which has its own tests), so this checks the engine's formulas against ML-PEG's.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import ml_peg_like as mpl


def _num(v):
    if isinstance(v, bool) or not isinstance(v, int | float):
        return np.nan
    return float(v)


def tables(anchors):
    found = sorted((anchors / "ml-peg" / "tables").glob("*/*/*_table.json"))
    assert found, "no ML-PEG tables found"
    return found


def test_every_stored_mlpeg_score_is_reproduced(anchors):
    checked = 0
    for path in tables(anchors):
        table = json.loads(path.read_text(encoding="utf-8"))
        bench = path.parent.name
        metrics = {
            name: {
                "good": float(t["good"]),
                "bad": float(t["bad"]),
                "weight": float(table["weights"].get(name, 1.0)),
            }
            for name, t in table["thresholds"].items()
        }
        cfg = mpl.config_from_dict(
            {"categories": {path.parent.parent.name: {"benchmarks": {bench: {"metrics": metrics}}}}}
        )
        models = [row["id"] for row in table["data"]]
        values = [[_num(row.get(m)) for b, m in cfg.metric_ids()] for row in table["data"]]
        s = mpl.score(mpl.RawData(tuple(models), tuple(cfg.metric_ids()), np.array(values)), cfg)
        for row in table["data"]:
            stored = row.get("Score")
            ours = s.benchmarks.loc[row["id"], bench]
            if stored is None or (isinstance(stored, float) and math.isnan(stored)):
                assert math.isnan(ours), f"{bench}/{row['id']}: ML-PEG has no score, we have {ours}"
            else:
                assert ours == pytest.approx(stored, abs=1e-9), f"{bench}/{row['id']}"
            checked += 1
    assert checked >= 50


def test_oxidation_states_worked_example(anchors):
    # anchors README: normalised 0, 1, 0.567 with weights 5, 1, 1 -> (0 + 1 + 0.567) / 7 = 0.2238
    path = (
        anchors
        / "ml-peg"
        / "tables"
        / "physicality"
        / "oxidation_states"
        / "oxidation_states_table.json"
    )
    table = json.loads(path.read_text(encoding="utf-8"))
    row = next(r for r in table["data"] if r["id"] == "mace-mp-0a")
    assert row["Score"] == pytest.approx(0.2238, abs=1e-4)
