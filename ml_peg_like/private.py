"""Private state on disk: directories only this user can read or plant files in (no dash here).

Rules (so that no other local user can read this state or plant files in it):

* :func:`private_dir` creates a directory mode 0700, or accepts an existing one only when it is
  a real directory (not a symlink), owned by this process's user, with no group/other
  permission bits. Anything else is refused with :class:`PrivateStateError` naming the path and
  what is wrong; it is never "fixed" (a directory someone else could write to may already hold
  planted files).
* :func:`fresh_private_dir` makes a new 0700 directory with an unpredictable name (nobody can
  pre-create it).
* :func:`write_private` writes a file 0600 (created with that mode: never readable in between).
* :func:`secret_from_env` returns the signing secret: ``$ML_PEG_LIKE_SECRET`` when set (at least
  32 characters: the same value on every server behind one load balancer), else fresh random
  bytes per start. It is kept in memory only.
"""

from __future__ import annotations

import os
import secrets
import stat
import tempfile
from pathlib import Path

from .errors import MlPegLikeError

__all__ = [
    "SECRET_ENV",
    "PrivateStateError",
    "check_private_dir",
    "fresh_private_dir",
    "private_dir",
    "secret_from_env",
    "user_cache_dir",
    "write_private",
]

SECRET_ENV = "ML_PEG_LIKE_SECRET"
#: where the user's private cache directory is, when set (else one in the temporary directory)
CACHE_ENV = "ML_PEG_LIKE_CACHE_DIR"
MIN_SECRET_CHARS = 32


class PrivateStateError(MlPegLikeError):
    """A directory or secret meant to be private is not (refused, never trusted)."""


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def check_private_dir(path: str | os.PathLike) -> Path:
    """``path`` if it is a private directory of this user, else :class:`PrivateStateError`."""
    p = Path(path)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        raise PrivateStateError(f"{p}: private directory does not exist") from None
    if stat.S_ISLNK(st.st_mode):
        raise PrivateStateError(
            f"{p}: refused as a private directory: it is a symbolic link (remove it or choose "
            "another directory)"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise PrivateStateError(f"{p}: refused as a private directory: not a directory")
    uid = _uid()
    if uid is not None and st.st_uid != uid:
        raise PrivateStateError(
            f"{p}: refused as a private directory: owned by uid {st.st_uid}, not by this user "
            f"(uid {uid}); someone else may have planted it"
        )
    loose = stat.S_IMODE(st.st_mode) & 0o077
    if uid is not None and loose:
        raise PrivateStateError(
            f"{p}: refused as a private directory: mode {stat.S_IMODE(st.st_mode):04o} lets "
            "group/other users in (it must be 0700; files in it cannot be trusted: remove it "
            "or choose another directory)"
        )
    return p


def private_dir(path: str | os.PathLike) -> Path:
    """Create ``path`` mode 0700 (parents as needed), or check an existing one (see module)."""
    p = Path(path)
    if p.parent != p and not os.path.lexists(p.parent):
        p.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(p, 0o700)  # the umask can only remove bits: 0700 or stricter
    except FileExistsError:
        pass
    except OSError as exc:
        raise PrivateStateError(
            f"{p}: cannot create the private directory: {exc.strerror}"
        ) from None
    return check_private_dir(p)


def user_cache_dir() -> Path:
    """The user's cache directory: ``$ML_PEG_LIKE_CACHE_DIR``, else ``ml-peg-like-UID`` in the
    temporary directory (its subdirectories are made and checked with :func:`private_dir`)."""
    uid = _uid()
    base = os.environ.get(CACHE_ENV) or os.path.join(
        tempfile.gettempdir(), f"ml-peg-like-{uid if uid is not None else 'u'}"
    )
    return Path(base)


def fresh_private_dir(prefix: str = "ml-peg-like-") -> Path:
    """A new private directory with an unpredictable name in the temporary directory."""
    return check_private_dir(tempfile.mkdtemp(prefix=prefix))


def write_private(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` (in a private directory) as a new or replaced 0600 file."""
    p = Path(path)
    check_private_dir(p.parent)
    tmp = p.with_name(f".{p.name}.{secrets.token_hex(6)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(tmp, p)
    return p


def secret_from_env(environ: dict | None = None) -> bytes:
    """``$ML_PEG_LIKE_SECRET`` (checked for length) or 32 fresh random bytes per start."""
    env = os.environ if environ is None else environ
    value = env.get(SECRET_ENV)
    if value:
        if len(value) < MIN_SECRET_CHARS:
            raise PrivateStateError(
                f"{SECRET_ENV}: too short ({len(value)} characters); use at least "
                f"{MIN_SECRET_CHARS} random characters, e.g. python -c "
                '"import secrets; print(secrets.token_hex(32))"'
            )
        return value.encode("utf-8")
    return secrets.token_bytes(32)
