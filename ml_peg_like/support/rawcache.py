"""A binary cache of parsed raw matrices: parsing a large raw CSV costs seconds, loading the
same matrix from ``.npz`` milliseconds.

The entry is named by a hash of everything the parse depends on (the raw file's bytes, the
config's metric ids, ``ignore_unknown``, the format version), so it is never stale: changed data
gives another name. Entries live only in ``raw/`` of the user's private cache directory
(``private.py``: a 0700 directory of this user, opened as a checked handle) — never beside the
data, where anyone who can write there (or read the data and compute the name) could plant
one. Each entry is signed (HMAC-SHA256 with the user's key, :func:`~ml_peg_like.support.private.seal`,
bound to its name); one whose tag does not verify is refused and rebuilt. It holds only arrays
and JSON text, read with ``allow_pickle=False``; a damaged or mismatching entry is rebuilt too.
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings

import numpy as np

from .private import PrivateStateError, open_user_dir, seal, unseal, user_secret

VERSION = 2
SUBDIR = "raw"
MIN_BYTES = 256 * 1024  # smaller raw files parse in milliseconds: no cache
MAGIC = b"MPLR2"


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


def _name(key: str) -> str:
    return f"raw-{key}.npz"


def _unusable(exc: Exception) -> None:
    warnings.warn(f"raw cache not used: {exc}", RuntimeWarning, stacklevel=3)


def _decode(payload: bytes, key: str):
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as z:
            meta = json.loads(bytes(z["meta"]).decode("utf-8"))
            values = np.array(z["values"], dtype=float)
        if meta.get("key") != key:
            return None
        models = tuple(meta["models"])
        ids = tuple((b, m) for b, m in meta["metric_ids"])
        if values.shape != (len(models), len(ids)):
            return None
        return models, ids, values, list(meta["warnings"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load(key: str):
    """``(models, metric_ids, values, warnings)`` of the cache entry ``key``, or None (none,
    not signed with the user's key, damaged, or a private directory that is not private)."""
    try:
        with open_user_dir() as top, top.sub(SUBDIR) as d:
            blob = d.read(_name(key))
            secret = user_secret(top) if blob is not None else b""
    except (OSError, PrivateStateError) as exc:
        _unusable(exc)
        return None
    payload = unseal(secret, blob, MAGIC, key.encode()) if blob is not None else None
    return _decode(payload, key) if payload is not None else None


def store(key: str, models, metric_ids, values, warnings_) -> str | None:
    """Write the signed entry in the private cache; its path, or None when it cannot."""
    meta = {
        "key": key,
        "models": list(models),
        "metric_ids": [list(m) for m in metric_ids],
        "warnings": list(warnings_),
    }
    blob = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, values=np.asarray(values, dtype=float), meta=blob)
    try:
        with open_user_dir() as top, top.sub(SUBDIR) as d:
            sealed = seal(user_secret(top), buf.getvalue(), MAGIC, key.encode())
            return str(d.write(_name(key), sealed))
    except (OSError, PrivateStateError) as exc:
        _unusable(exc)
        return None
