"""The binary cache of parsed raw matrices: same data as a parse, rebuilt when the file changes
(never stale), kept only in the user's private cache directory and signed with the user's key.

Another local user who can write beside the data, or who can read the data (and so compute the
entry's name), must not be able to make ``score``/``serve`` use planted values: a planted entry
beside the data is never read, a tampered entry in the private directory is refused and rebuilt,
and a private directory owned by someone else or open to group/other is refused."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from ml_peg_like.raw import load_dataset
from ml_peg_like.support import rawcache
from ml_peg_like.support.private import seal

CONFIG = "title: t\ncategories:\n  C:\n    benchmarks:\n      B:\n        metrics:\n" + "".join(
    f"          M{k}: {{good: 1, bad: 0}}\n" for k in range(3)
)
IDS = [("B", f"M{k}") for k in range(3)]
OTHER = "mplcacheplant"  # the second local account that plants files (root only)


def write(d, n_models: int, shift: float = 0.0):
    d.mkdir(exist_ok=True)
    (d / "config.yml").write_text(CONFIG)
    lines = ["model,benchmark,metric,value"]
    for i in range(n_models):
        for k in range(3):
            lines.append(f"model-{i:05d},B,M{k},{(i % 7) / 10 + k / 100 + shift:.3f}")
    (d / "raw_metrics.csv").write_text("\n".join(lines) + "\n")


def key_of(d) -> str:
    return rawcache.cache_key((d / "raw_metrics.csv").read_bytes(), IDS, False)


def npz(key: str, n_models: int, value: float) -> bytes:
    """An entry as the old format had it (no tag): every value ``value``."""
    meta = {"key": key, "models": [f"model-{i:05d}" for i in range(n_models)],
            "metric_ids": [list(m) for m in IDS], "warnings": []}  # fmt: skip
    buf = io.BytesIO()
    np.savez(buf, values=np.full((n_models, 3), value),
             meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))  # fmt: skip
    return buf.getvalue()


@pytest.fixture
def private(monkeypatch, tmp_path):
    monkeypatch.setattr(rawcache, "MIN_BYTES", 0)
    monkeypatch.setenv("ML_PEG_LIKE_CACHE_DIR", str(tmp_path / "private"))
    return tmp_path / "private"


def entries(private: Path) -> list[Path]:
    return sorted((private / "raw").glob("raw-*.npz"))


def test_cache_gives_the_parsed_values_and_follows_changes(tmp_path, private):
    d = tmp_path / "data"
    write(d, 50)
    _cfg, first = load_dataset(d)  # parsed, then cached
    assert len(entries(private)) == 1
    assert not (d / ".ml-peg-like-cache").exists()  # nothing is written beside the data
    _cfg, again = load_dataset(d)  # from the cache
    assert again.models == first.models and again.metric_ids == first.metric_ids
    np.testing.assert_array_equal(again.values, first.values)
    # model-00003 on M1: 3/10 + 1/100 = 0.31 (hand-computed from the file's formula)
    assert again.values[3, 1] == pytest.approx(0.31)
    write(d, 50, shift=0.5)  # new contents: a new entry, never the old values
    _cfg, changed = load_dataset(d)
    assert changed.values[3, 1] == pytest.approx(0.81)
    assert len(entries(private)) == 2


def test_private_state_is_0700_and_0600(tmp_path, monkeypatch):
    monkeypatch.setattr(rawcache, "MIN_BYTES", 0)
    base = tmp_path / "a" / "b" / "cache"  # the project makes a/, b/ and cache/ itself
    monkeypatch.setenv("ML_PEG_LIKE_CACHE_DIR", str(base))
    d = tmp_path / "data"
    write(d, 5)
    load_dataset(d)
    for p in (tmp_path / "a", tmp_path / "a" / "b", base, base / "raw"):
        assert p.stat().st_mode & 0o777 == 0o700, p
    (entry,) = entries(base)
    assert entry.stat().st_mode & 0o777 == 0o600
    assert (base / "secret.key").stat().st_mode & 0o777 == 0o600
    assert len((base / "secret.key").read_bytes()) == 32


def test_a_planted_entry_beside_the_data_is_ignored(tmp_path, private):
    d = tmp_path / "data"
    write(d, 20)
    (d / ".ml-peg-like-cache").mkdir()
    (d / ".ml-peg-like-cache" / f"raw-{key_of(d)}.npz").write_bytes(npz(key_of(d), 20, 99.0))
    _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)


def test_an_unsigned_or_tampered_entry_in_the_private_dir_is_refused_and_rebuilt(tmp_path, private):
    d = tmp_path / "data"
    write(d, 20)
    load_dataset(d)
    (f,) = entries(private)
    good = f.read_bytes()
    # an entry without the user's tag (what someone could compute from the data alone)
    f.write_bytes(npz(key_of(d), 20, 99.0))
    _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)
    assert f.read_bytes() == good  # rebuilt: the same signed entry as the first parse
    # the tag kept, the values after it changed
    n = len(rawcache.MAGIC) + 32
    f.write_bytes(good[:n] + npz(key_of(d), 20, 99.0))
    _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)
    assert f.read_bytes() == good
    # a damaged file
    f.write_bytes(b"not an npz")
    _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)


def test_an_entry_signed_with_another_key_is_refused(tmp_path, private):
    d = tmp_path / "data"
    write(d, 20)
    load_dataset(d)
    (private / "secret.key").write_bytes(b"k" * 32)  # the user's key changed: old entries die
    os.chmod(private / "secret.key", 0o600)
    (f,) = entries(private)
    payload = npz(key_of(d), 20, 99.0)
    f.write_bytes(seal(b"x" * 32, payload, rawcache.MAGIC, key_of(d).encode()))
    _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)
    # and one signed with the user's key but under another entry's name
    f.write_bytes(seal(b"k" * 32, payload, rawcache.MAGIC, b"0" * 32))
    _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o755])
def test_a_private_dir_open_to_others_is_refused(tmp_path, private, mode):
    d = tmp_path / "data"
    write(d, 20)
    load_dataset(d)
    (f,) = entries(private)
    f.write_bytes(npz(key_of(d), 20, 99.0))  # what another user could plant through the mode
    os.chmod(private / "raw", mode)
    with pytest.warns(RuntimeWarning, match=rf"{private / 'raw'}.*mode {mode:04o}"):
        _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)
    assert f.read_bytes() == npz(key_of(d), 20, 99.0)  # never "fixed", nor written into


def test_a_symlinked_private_dir_and_a_symlinked_entry_are_refused(tmp_path, private):
    d = tmp_path / "data"
    write(d, 20)
    load_dataset(d)
    (f,) = entries(private)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (elsewhere / f.name).write_bytes(f.read_bytes())
    f.unlink()
    f.symlink_to(elsewhere / f.name)
    with pytest.warns(RuntimeWarning, match="symbolic link"):
        load_dataset(d)
    shutil.rmtree(private / "raw")
    (private / "raw").symlink_to(elsewhere)
    with pytest.warns(RuntimeWarning, match="symbolic link"):
        _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)


def _other_user() -> str:
    if os.getuid() != 0:
        pytest.skip("planting as another local user needs root (to create that account)")
    if shutil.which("useradd") is None:
        pytest.skip("useradd is absent: cannot create a second local account")
    if subprocess.run(["id", "-u", OTHER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER],
                       check=True, capture_output=True)  # fmt: skip
    return OTHER


def test_a_private_dir_planted_by_another_user_is_refused(tmp_path, monkeypatch):
    """The other user creates the cache directory first (0700, theirs) with a key of their own
    and an entry signed with it; this user refuses the directory and parses the data."""
    other = _other_user()
    monkeypatch.setattr(rawcache, "MIN_BYTES", 0)
    d = tmp_path / "data"
    write(d, 20)
    their_key = b"o" * 32
    entry = seal(their_key, npz(key_of(d), 20, 99.0), rawcache.MAGIC, key_of(d).encode())
    shared = Path(tempfile.mkdtemp(prefix="mpl-shared-"))  # a shared sticky directory, like /tmp
    try:
        os.chmod(shared, 0o1777)
        target = shared / "cache"
        plant = (
            'umask 077; mkdir "$1" "$1/raw" && printf %s "$2" > "$1/secret.key" '
            '&& cat > "$1/raw/raw-$3.npz"'
        )
        subprocess.run(["/bin/sh", "-c", plant, "sh", str(target), their_key.decode(), key_of(d)],
                       input=entry, user=other, check=True, cwd="/")  # fmt: skip
        assert (target / "raw" / f"raw-{key_of(d)}.npz").read_bytes() == entry  # theirs
        assert (target / "raw").stat().st_uid != 0
        monkeypatch.setenv("ML_PEG_LIKE_CACHE_DIR", str(target))
        with pytest.warns(RuntimeWarning, match=rf"{target}.*owned by uid"):
            _cfg, raw = load_dataset(d)
        assert raw.values[3, 1] == pytest.approx(0.31)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_an_entry_that_is_a_fifo_or_not_ours_is_refused_without_blocking(tmp_path, private):
    d = tmp_path / "data"
    write(d, 20)
    load_dataset(d)
    (f,) = entries(private)
    good = f.read_bytes()
    f.unlink()
    os.mkfifo(f, 0o600)  # opening it for reading would wait for a writer
    with pytest.warns(RuntimeWarning, match=rf"{f}: refused: not a regular file"):
        _cfg, raw = load_dataset(d)
    assert raw.values[3, 1] == pytest.approx(0.31)
    f.unlink()
    f.write_bytes(good)
    os.chmod(f, 0o644)  # readable by others: not what this project writes
    with pytest.warns(RuntimeWarning, match=rf"{f}: refused: mode 0644"):
        load_dataset(d)
    if os.getuid() == 0:
        os.chmod(f, 0o600)
        os.chown(f, 65534, 65534)  # a file of another user in our directory
        with pytest.warns(RuntimeWarning, match=rf"{f}: refused: owned by uid 65534"):
            _cfg, raw = load_dataset(d)
        assert raw.values[3, 1] == pytest.approx(0.31)
