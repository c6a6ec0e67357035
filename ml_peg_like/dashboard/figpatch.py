"""What an edit sends of a figure the browser already holds (the curve's ``fig`` store, the
``plot-figs`` store of the benchmark figure): nothing when it did not change, a Dash ``Patch`` of
the parts that changed when only those differ, else the whole figure. Which it is comes from a
signature of the held figure, kept in a store beside it: ``FIXED:PART,PART...``, a hash of the
figure with its changing parts (paths into it, chosen by the caller) blanked out, then a hash of
each part (``-`` when absent)."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from dash import Patch, no_update

__all__ = ["get", "signature", "update"]

_SLOT = "\x00part"  # what stands for a part in the figure whose hash says what is fixed


def get(obj: Any, path: tuple) -> Any:
    """The value at ``path`` in ``obj`` (``_SLOT`` when absent)."""
    for key in path:
        try:
            obj = obj[key]
        except (KeyError, IndexError, TypeError):
            return _SLOT
    return obj


def _hash(value: Any, size: int) -> str:
    blob = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY)
    return hashlib.blake2b(blob, digest_size=size).hexdigest()


def _blank(figure: Any, parts: list[tuple]) -> Any:
    """``figure`` with the value at each present path of ``parts`` replaced by a placeholder
    (containers along the paths copied once; the figure itself is not changed)."""
    copied: dict[int, Any] = {}

    def own(obj: Any) -> Any:
        if id(obj) not in copied:
            copied[id(obj)] = dict(obj) if isinstance(obj, dict) else list(obj)
            copied[id(copied[id(obj)])] = copied[id(obj)]  # a copy is its own
        return copied[id(obj)]

    if not isinstance(figure, (dict, list)):
        return figure
    root = own(figure)
    for path in parts:
        at = root
        for n, key in enumerate(path):
            try:
                child = at[key]
            except (KeyError, IndexError, TypeError):
                break
            if n == len(path) - 1:
                at[key] = _SLOT
            elif isinstance(child, (dict, list)):
                at[key] = at = own(child)
            else:
                break
    return root


def signature(figure: dict, parts: list[tuple]) -> str:
    """``FIXED:PART,PART...`` of ``figure`` whose changing parts are ``parts``."""
    hashes = [("-" if (v := get(figure, p)) is _SLOT else _hash(v, 4)) for p in parts]
    return _hash(_blank(figure, parts), 8) + ":" + ",".join(hashes)


def update(figure: dict, held: Any, parts: list[tuple], root: tuple = ()) -> tuple[Any, str]:
    """(what to send, the new signature) for ``figure`` (changing parts ``parts``) when the
    browser holds the figure of signature ``held``: ``no_update`` when they are the same, a Dash
    ``Patch`` (of the figure at ``root`` in its store) of the parts that differ when only parts
    differ, else ``figure`` itself."""
    sig = signature(figure, parts)
    if sig == held:
        return no_update, sig
    fixed, _, hashes = sig.partition(":")
    if not isinstance(held, str) or held.partition(":")[0] != fixed:
        return figure, sig
    old = held.partition(":")[2].split(",")
    if len(old) != len(parts):  # not a signature this wrote
        return figure, sig
    patch = Patch()
    base = patch
    for key in root:
        base = base[key]
    for path, new, was in zip(parts, hashes.split(","), old, strict=True):
        if new != was and new != "-":
            at = base
            for key in path[:-1]:
                at = at[key]
            at[path[-1]] = get(figure, path)
    return patch, sig
