"""Reading a user's file safely: regular files only, the size checked before a byte is read.

A FIFO, a device (``/dev/zero``), a socket or a directory is refused at once (the open does not
block on a FIFO), and a file larger than the caller's limit is refused from its size alone.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from ..errors import MlPegLikeError, Problem

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(path: str | Path) -> str | None:
    """None for a regular file (through symlinks); else what ``path`` is instead."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "a broken symbolic link" if os.path.islink(path) else "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(st.st_mode):
        return None
    return next((k for test, k in _KINDS if test(st.st_mode)), "not a file")


#: how a file's SHA-256 in a provenance record was taken
FILE_BYTES = "file bytes as read"


def file_record(path: str | Path, data: bytes) -> dict[str, str]:
    """A provenance record of a file read as ``data``: its path and the SHA-256 of the bytes."""
    return {"path": str(path), "sha256": hashlib.sha256(data).hexdigest(), "hash_of": FILE_BYTES}


def megabytes(n: int) -> str:
    """``n`` bytes as a short figure in MB (2**20 bytes)."""
    mb = n / 2**20
    return (f"{mb:.3g}" if mb < 1000 else f"{mb:.0f}") + " MB"


def read_limited(
    path: str | Path, limit: int, *, error: type[MlPegLikeError] = MlPegLikeError
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; otherwise ``error``
    naming the file (cannot read, not a regular file, larger than the limit)."""
    where = str(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not hang (no effect on regular files)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        raise error(
            [Problem(where, f"cannot read: {getattr(exc, 'strerror', None) or exc}")]
        ) from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a file")
            raise error([Problem(where, f"cannot read: {kind}, not a regular file")])
        if st.st_size > limit:
            raise error(
                [
                    Problem(
                        where, f"larger than {megabytes(limit)} ({megabytes(st.st_size)}): refused"
                    )
                ]
            )
        try:
            data = f.read(limit + 1)
        except OSError as exc:
            raise error([Problem(where, f"cannot read: {exc.strerror or exc}")]) from None
    if len(data) > limit:  # it grew while being read
        raise error([Problem(where, f"larger than {megabytes(limit)}: refused")])
    return data
