"""The binary cache of parsed raw matrices: same data as a parse, rebuilt when the
file changes (never stale), in the private cache when the data directory is not writable."""

from __future__ import annotations

import os

import numpy as np
import pytest

from ml_peg_like import rawcache
from ml_peg_like.raw import load_dataset

CONFIG = "title: t\ncategories:\n  C:\n    benchmarks:\n      B:\n        metrics:\n" + "".join(
    f"          M{k}: {{good: 1, bad: 0}}\n" for k in range(3)
)


def write(d, n_models: int, shift: float = 0.0):
    d.mkdir(exist_ok=True)
    (d / "config.yml").write_text(CONFIG)
    lines = ["model,benchmark,metric,value"]
    for i in range(n_models):
        for k in range(3):
            lines.append(f"model-{i:05d},B,M{k},{(i % 7) / 10 + k / 100 + shift:.3f}")
    (d / "raw_metrics.csv").write_text("\n".join(lines) + "\n")


@pytest.fixture
def small_min(monkeypatch, tmp_path):
    monkeypatch.setattr(rawcache, "MIN_BYTES", 0)
    monkeypatch.setenv("ML_PEG_LIKE_CACHE_DIR", str(tmp_path / "private"))


def test_cache_gives_the_parsed_values_and_follows_changes(tmp_path, small_min):
    d = tmp_path / "data"
    write(d, 50)
    _cfg, first = load_dataset(d)  # parsed, then cached
    files = list((d / rawcache.DIR_NAME).glob("raw-*.npz"))
    assert len(files) == 1
    _cfg, again = load_dataset(d)  # from the cache
    assert again.models == first.models and again.metric_ids == first.metric_ids
    np.testing.assert_array_equal(again.values, first.values)
    # model-00003 on M1: 3/10 + 1/100 = 0.31 (hand-computed from the file's formula)
    assert again.values[3, 1] == pytest.approx(0.31)
    write(d, 50, shift=0.5)  # new contents: a new entry, never the old values
    _cfg, changed = load_dataset(d)
    assert changed.values[3, 1] == pytest.approx(0.81)
    assert len(list((d / rawcache.DIR_NAME).glob("raw-*.npz"))) == 2


def test_damaged_entry_is_ignored(tmp_path, small_min):
    d = tmp_path / "data"
    write(d, 20)
    load_dataset(d)
    (f,) = (d / rawcache.DIR_NAME).glob("raw-*.npz")
    f.write_bytes(b"not an npz")
    _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)


@pytest.mark.skipif(os.getuid() == 0, reason="root writes anywhere")
def test_read_only_data_dir_uses_the_private_cache(tmp_path, small_min):
    d = tmp_path / "data"
    write(d, 20)
    d.chmod(0o555)
    try:
        load_dataset(d)
        assert list((tmp_path / "private" / "raw").glob("raw-*.npz"))
        assert not (d / rawcache.DIR_NAME).exists()
        _cfg, raw = load_dataset(d)
        assert raw.values[3, 1] == pytest.approx(0.31)
    finally:
        d.chmod(0o755)
