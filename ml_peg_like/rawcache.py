"""A binary cache of parsed raw matrices: parsing a large raw CSV costs seconds, loading the
same matrix from ``.npz`` milliseconds.

The cache file is named by a hash of everything the parse depends on (the raw file's bytes, the
config's metric ids, ``ignore_unknown``, the format version), so it is never stale: changed data
gives another name. It lives beside the data in ``.ml-peg-like-cache/`` when that directory is
writable, else in the user's private cache directory (``private.py``). It holds only arrays and
JSON text, read with ``allow_pickle=False``; a damaged or mismatching file is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from .private import PrivateStateError, private_dir, user_cache_dir

VERSION = 1
DIR_NAME = ".ml-peg-like-cache"
MIN_BYTES = 256 * 1024  # smaller raw files parse in milliseconds: no cache


def cache_key(data: bytes, metric_ids, ignore_unknown: bool) -> str:
    """The cache file's name. SHA-256 (OpenSSL's, with the CPU's SHA instructions where it
    has them: x86 since ~2017, ARMv8): 226 MB of raw CSV (10,000 models x 339 metrics) hash in
    0.16 s where BLAKE2b took 0.71 s, on the start's critical path."""
    h = hashlib.sha256()
    h.update(f"v{VERSION}:{int(bool(ignore_unknown))}:".encode())
    h.update(json.dumps([list(m) for m in metric_ids]).encode())
    h.update(b"\0")
    h.update(data)
    return h.hexdigest()[:32]


def _dirs(source: Path) -> list[Path]:
    return [source.parent / DIR_NAME, user_cache_dir() / "raw"]


def load(source: Path, key: str):
    """``(models, metric_ids, values, warnings)`` of the cache entry ``key``, or None."""
    for d in _dirs(source):
        f = d / f"raw-{key}.npz"
        if not f.is_file():
            continue
        try:
            with np.load(f, allow_pickle=False) as z:
                meta = json.loads(bytes(z["meta"]).decode("utf-8"))
                values = np.array(z["values"], dtype=float)
            if meta.get("key") != key:
                continue
            models = tuple(meta["models"])
            ids = tuple((b, m) for b, m in meta["metric_ids"])
            if values.shape != (len(models), len(ids)):
                continue
            return models, ids, values, list(meta["warnings"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def store(source: Path, key: str, models, metric_ids, values, warnings) -> Path | None:
    """Write the entry (beside the data, else in the private cache); None when neither can."""
    meta = {
        "key": key,
        "models": list(models),
        "metric_ids": [list(m) for m in metric_ids],
        "warnings": list(warnings),
    }
    blob = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    for k, d in enumerate(_dirs(source)):
        try:
            if k == 0:
                d.mkdir(exist_ok=True)
            else:
                private_dir(d)
            fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, values=np.asarray(values, dtype=float), meta=blob)
            os.replace(tmp, d / f"raw-{key}.npz")
            return d / f"raw-{key}.npz"
        except (OSError, PrivateStateError):
            continue
    return None
