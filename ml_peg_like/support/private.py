"""Private state on disk: directories only this user can read or plant files in (no dash here).

Everything the project keeps for a user (parsed raw matrices, kept pages, the job cache when
none is named, the key that signs cache entries) lives under **the user's cache directory**,
:func:`user_cache_dir`: ``$ML_PEG_LIKE_CACHE_DIR`` when set, else the platform's per-user cache
directory (``platformdirs``: ``~/.cache/ml-peg-like`` on Linux). Never beside the data, nor at a
name anyone can predict in a shared temporary directory.

Rules:

* :func:`open_private_dir` gives a :class:`PrivateDir`: the directory opened as a handle
  (``O_DIRECTORY|O_NOFOLLOW``) and checked with ``fstat`` on that handle — a real directory
  (not a symlink), owned by this process's user, no group/other permission bits — before
  anything in it is read. Subdirectories and files are opened *relative to that handle*
  (``dir_fd=``), files with ``O_NOFOLLOW`` and checked with ``fstat`` too (owner, regular file,
  no group/other bits). Anything else is refused with :class:`PrivateStateError` naming the
  path and what is wrong; it is never "fixed" (a directory someone else could write to may
  already hold planted files).
* Every directory the project creates is made mode 0700, missing parents included; every file
  0600 (created with that mode: never readable in between).
* :func:`seal` / :func:`unseal`: the one signing helper (HMAC-SHA256) of every cache: an entry
  whose tag does not verify is refused before it is decoded.
* :func:`user_secret`: the per-user signing key, ``secret.key`` (0600) in the user's cache
  directory, made once. :func:`secret_from_env`: the job cache's signing secret,
  ``$ML_PEG_LIKE_SECRET`` when set (at least 32 characters: the same value on every server
  behind one load balancer), else fresh random bytes per start, kept in memory only.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from ..errors import MlPegLikeError

__all__ = [
    "SECRET_ENV",
    "PrivateDir",
    "PrivateStateError",
    "check_private_dir",
    "open_private_dir",
    "open_user_dir",
    "private_dir",
    "seal",
    "secret_from_env",
    "unseal",
    "user_cache_dir",
    "user_secret",
    "write_private",
]

SECRET_ENV = "ML_PEG_LIKE_SECRET"
#: where the user's private cache directory is, when set (else the platform's user cache dir)
CACHE_ENV = "ML_PEG_LIKE_CACHE_DIR"
APP_NAME = "ml-peg-like"
MIN_SECRET_CHARS = 32
#: the per-user signing key, in the user's cache directory
SECRET_FILE = "secret.key"
SECRET_BYTES = 32

_O_DIR = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a planted FIFO never blocks the open
_O_BINARY = getattr(os, "O_BINARY", 0)
#: directory handles (POSIX); elsewhere paths, checked with lstat (no other users to fear there)
HANDLES = bool(_O_DIR and _O_NOFOLLOW) and os.open in os.supports_dir_fd


class PrivateStateError(MlPegLikeError):
    """A directory, file or secret meant to be private is not (refused, never trusted)."""


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


# -- checks on what an open handle (or lstat) says --------------------------------------------
def _dir_problem(st: os.stat_result) -> str | None:
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link (remove it or choose another directory)"
    if not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    uid = _uid()
    if uid is not None and st.st_uid != uid:
        return (
            f"owned by uid {st.st_uid}, not by this user (uid {uid}); someone else may have "
            "planted it"
        )
    mode = stat.S_IMODE(st.st_mode)
    if uid is not None and mode & 0o077:
        return (
            f"mode {mode:04o} lets group/other users in (it must be 0700; files in it cannot "
            "be trusted: remove it or choose another directory)"
        )
    return None


def _file_problem(st: os.stat_result) -> str | None:
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    uid = _uid()
    if uid is not None and st.st_uid != uid:
        return f"owned by uid {st.st_uid}, not by this user (uid {uid})"
    mode = stat.S_IMODE(st.st_mode)
    if uid is not None and mode & 0o077:
        return f"mode {mode:04o} lets group/other users in (it must be 0600)"
    return None


def _refuse_dir(path: Path, why: str) -> PrivateStateError:
    return PrivateStateError(f"{path}: refused as a private directory: {why}")


# -- opening directories as checked handles ---------------------------------------------------
def _why_not_opened(exc: OSError, name: str, dir_fd: int | None) -> str:
    """What an ``O_NOFOLLOW|O_DIRECTORY`` open that failed found at ``name``."""
    try:
        st = os.lstat(name, dir_fd=dir_fd) if dir_fd is not None else os.lstat(name)
    except OSError:
        return exc.strerror or str(exc)
    return _dir_problem(st) or (exc.strerror or str(exc))


def _mkdir(name: str, path: Path, dir_fd: int | None) -> None:
    try:
        if dir_fd is None:
            os.mkdir(name, 0o700)  # the umask can only remove bits: 0700 or stricter
        else:
            os.mkdir(name, 0o700, dir_fd=dir_fd)
    except FileExistsError:
        pass
    except OSError as exc:
        raise PrivateStateError(
            f"{path}: cannot create the private directory: {exc.strerror}"
        ) from None


def _open_dir_at(dir_fd: int, name: str, path: Path, create: bool) -> int:
    """A checked handle of the directory ``name`` in the directory ``dir_fd``."""
    if create:
        _mkdir(name, path, dir_fd)
    flags = os.O_RDONLY | _O_DIR | _O_NOFOLLOW | _O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        raise PrivateStateError(f"{path}: private directory does not exist") from None
    except OSError as exc:
        raise _refuse_dir(path, _why_not_opened(exc, name, dir_fd)) from None
    why = _dir_problem(os.fstat(fd))
    if why:
        os.close(fd)
        raise _refuse_dir(path, why)
    return fd


def _make_parents(parent: Path) -> None:
    """Create the missing ancestors of a private directory, each 0700."""
    missing = []
    while parent.parent != parent and not os.path.lexists(parent):
        missing.append(parent)
        parent = parent.parent
    for d in reversed(missing):
        _mkdir(str(d), d, None)


class PrivateDir:
    """A private directory opened as a checked handle; names in it are opened relative to the
    handle. A context manager (closes the handle). Without handles (not POSIX) it checks paths
    with ``lstat`` instead."""

    def __init__(self, path: Path, fd: int | None):
        self.path = path
        self.fd = fd

    def __enter__(self) -> PrivateDir:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _at(self, name: str) -> tuple[str, dict]:
        if "/" in name or os.sep in name or name in ("", ".", ".."):
            raise PrivateStateError(f"{self.path}: {name!r} is not a plain file name")
        if self.fd is None:
            return str(self.path / name), {}
        return name, {"dir_fd": self.fd}

    def sub(self, name: str, *, create: bool = True) -> PrivateDir:
        """The subdirectory ``name`` (made 0700 when ``create``), checked like this one."""
        target, _kw = self._at(name)
        if self.fd is None:
            return _open_by_path(self.path / name, create)
        return PrivateDir(self.path / name, _open_dir_at(self.fd, target, self.path / name, create))

    def names(self) -> list[str]:
        return sorted(os.listdir(self.fd if self.fd is not None else self.path))

    def read(self, name: str, limit: int | None = None) -> bytes | None:
        """The bytes of the file ``name`` (None when there is none); a symlink, a non-regular
        file, a file of another user or with group/other bits is refused (PrivateStateError)."""
        target, kw = self._at(name)
        flags = os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC | _O_BINARY
        try:
            fd = os.open(target, flags, **kw)
        except FileNotFoundError:
            return None
        except OSError as exc:
            why = "a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
            raise PrivateStateError(f"{self.path / name}: refused: {why}") from None
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fd)
            why = _file_problem(st)
            if why is None and limit is not None and st.st_size > limit:
                why = f"{st.st_size} bytes, more than the {limit} expected"
            if why:
                raise PrivateStateError(f"{self.path / name}: refused: {why}")
            return fh.read() if limit is None else fh.read(limit + 1)

    def _write_tmp(self, data: bytes) -> str:
        tmp = f".tmp-{secrets.token_hex(8)}"
        target, kw = self._at(tmp)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY
        fd = os.open(target, flags, 0o600, **kw)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        except OSError:
            self.remove(tmp)  # a full disk leaves no partial file behind
            raise
        return tmp

    def write(self, name: str, data: bytes) -> Path:
        """Write ``name`` (new or replaced) as a 0600 file, atomically."""
        tmp = self._write_tmp(data)
        src, kw = self._at(tmp)
        dst, _ = self._at(name)
        try:
            if kw:
                os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            else:
                os.replace(src, dst)
        except OSError:
            self.remove(tmp)
            raise
        return self.path / name

    def write_new(self, name: str, data: bytes) -> bool:
        """Write ``name`` only if there is none (True), complete or not at all."""
        tmp = self._write_tmp(data)
        src, kw = self._at(tmp)
        dst, _ = self._at(name)
        try:
            if kw:
                os.link(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            else:
                os.link(src, dst)
            return True
        except FileExistsError:
            return False
        finally:
            self.remove(tmp)

    def remove(self, name: str) -> None:
        target, kw = self._at(name)
        try:
            os.unlink(target, **kw)
        except FileNotFoundError:
            pass

    def mtime_ns(self, name: str) -> int:
        target, kw = self._at(name)
        return os.stat(target, follow_symlinks=False, **kw).st_mtime_ns


def _open_by_path(path: Path, create: bool) -> PrivateDir:
    if create:
        _mkdir(str(path), path, None)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise PrivateStateError(f"{path}: private directory does not exist") from None
    why = _dir_problem(st)
    if why:
        raise _refuse_dir(path, why)
    return PrivateDir(path, None)


def open_private_dir(path: str | os.PathLike, *, create: bool = True) -> PrivateDir:
    """``path`` as a checked :class:`PrivateDir`, created 0700 (missing parents too) when
    ``create``. Raises :class:`PrivateStateError` naming the path and the problem."""
    p = Path(os.path.abspath(path))
    if create and p.parent != p:
        _make_parents(p.parent)
    if not HANDLES:
        return _open_by_path(p, create)
    try:
        parent = os.open(p.parent, os.O_RDONLY | _O_DIR | _O_CLOEXEC)
    except OSError as exc:
        raise PrivateStateError(f"{p.parent}: cannot open the directory: {exc.strerror}") from None
    try:
        return PrivateDir(p, _open_dir_at(parent, p.name, p, create))
    finally:
        os.close(parent)


def user_cache_dir() -> Path:
    """The user's cache directory: ``$ML_PEG_LIKE_CACHE_DIR``, else the platform's per-user
    cache directory for ``ml-peg-like`` (opened and checked with :func:`open_user_dir`)."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen)
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def open_user_dir(*subdirs: str, create: bool = True) -> PrivateDir:
    """The user's cache directory (or a subdirectory of it), as a checked handle."""
    d = open_private_dir(user_cache_dir(), create=create)
    for name in subdirs:
        try:
            nxt = d.sub(name, create=create)
        finally:
            d.close()
        d = nxt
    return d


def check_private_dir(path: str | os.PathLike) -> Path:
    """``path`` if it is a private directory of this user, else :class:`PrivateStateError`."""
    open_private_dir(path, create=False).close()
    return Path(path)


def private_dir(path: str | os.PathLike) -> Path:
    """Create ``path`` mode 0700 (missing parents too, 0700), or check an existing one."""
    open_private_dir(path, create=True).close()
    return Path(path)


def write_private(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` (in a private directory) as a new or replaced 0600 file."""
    p = Path(path)
    with open_private_dir(p.parent, create=False) as d:
        d.write(p.name, data)
    return p


# -- signing ----------------------------------------------------------------------------------
TAG_BYTES = 32


def _tag(secret: bytes, label: bytes, payload: bytes) -> bytes:
    h = hmac.new(secret, len(label).to_bytes(4, "big") + label, hashlib.sha256)
    h.update(payload)
    return h.digest()


def seal(secret: bytes, payload: bytes, magic: bytes, label: bytes = b"") -> bytes:
    """``magic + HMAC-SHA256(secret, label, payload) + payload``: ``label`` binds the entry to
    its name (an entry moved under another name does not verify)."""
    return magic + _tag(secret, label, payload) + payload


def unseal(secret: bytes, blob: bytes, magic: bytes, label: bytes = b"") -> bytes | None:
    """The payload of a :func:`seal`-ed ``blob``, or None when its tag does not verify."""
    if not secret or not isinstance(blob, bytes) or not blob.startswith(magic):
        return None
    n = len(magic)
    tag, payload = blob[n : n + TAG_BYTES], blob[n + TAG_BYTES :]
    if not hmac.compare_digest(tag, _tag(secret, label, payload)):
        return None
    return payload


def user_secret(top: PrivateDir | None = None) -> bytes:
    """The per-user signing key (``secret.key``, 0600, in the user's cache directory ``top``),
    made on first use."""
    d = top if top is not None else open_user_dir()
    try:
        key = d.read(SECRET_FILE, SECRET_BYTES)
        if key is None:
            d.write_new(SECRET_FILE, secrets.token_bytes(SECRET_BYTES))
            key = d.read(SECRET_FILE, SECRET_BYTES)
        if key is None or len(key) != SECRET_BYTES:
            raise PrivateStateError(
                f"{d.path / SECRET_FILE}: not a signing key ({SECRET_BYTES} bytes expected): "
                "remove it (a new one is made)"
            )
        return key
    finally:
        if top is None:
            d.close()


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
