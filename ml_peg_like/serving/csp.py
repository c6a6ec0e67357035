"""The ``Content-Security-Policy`` of the pages the project serves.

A page may run only the scripts of its own origin (``script-src 'self'``) and its own inline
scripts, each named by the SHA-256 hash of its exact text (:func:`inline_hashes`): no
``'unsafe-inline'``, no ``'unsafe-eval'``. A script injected into the page (through markup in
a name, a planted result...) has no allowed hash and does not run. The hashes are taken from
the HTML of each response itself (:func:`page_policy`), so a page whose inline scripts change
(another config, another version of the code) is never served with stale hashes.

Data elements (``<script type="application/json">``: Dash's ``_dash-config``, the board's
``mpl-bundle``) are not run by the browser and need no hash. Style is looser:
``style-src 'self' 'unsafe-inline'``, because Plotly.js writes ``<style>`` rules and style
attributes for every figure it draws and the page writes its style sheets into its head; an
injected style cannot run code. Images may be ``data:`` and ``blob:`` URLs (Plotly's figure
export and its icons). Everything else the page loads or fetches comes from its own origin.

Any other answer (JSON, scripts, files, errors) gets :data:`BASE_POLICY`, which allows nothing.
"""

from __future__ import annotations

import base64
import hashlib
import re

__all__ = ["BASE_POLICY", "inline_hashes", "page_policy"]

#: the policy of every answer that is not a page: nothing may load, nothing may frame it
BASE_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

#: the page's directives besides ``script-src`` (see the module docstring)
PAGE_DIRECTIVES = (
    "default-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SCRIPT = re.compile(r"<script(\s[^>]*)?>(.*?)</script\s*>", re.S | re.I)
_SRC = re.compile(r"""\ssrc\s*=""", re.I)
_TYPE = re.compile(r"""\stype\s*=\s*["']?([^"'\s>]+)""", re.I)
#: the ``type`` values of a script element the browser runs (HTML: a JavaScript MIME type,
#: ``module``, or none)
_RUN_TYPES = ("", "module", "text/javascript", "application/javascript", "text/ecmascript")


def _runs(attrs: str) -> bool:
    if _SRC.search(attrs):
        return False
    m = _TYPE.search(attrs)
    return (m.group(1).lower() if m else "") in _RUN_TYPES


def inline_hashes(html: str | bytes) -> list[str]:
    """``'sha256-...'`` of each inline script the browser would run in ``html`` (in order,
    without repeats; scripts inside HTML comments are not run and left out). The text is
    hashed as the browser does: UTF-8, line ends normalised to ``\\n``."""
    text = html.decode("utf-8", "replace") if isinstance(html, bytes) else html
    out: list[str] = []
    for m in _SCRIPT.finditer(_COMMENT.sub("", text)):
        if not _runs(m.group(1) or ""):
            continue
        body = m.group(2).replace("\r\n", "\n").replace("\r", "\n")
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        token = f"'sha256-{digest}'"
        if token not in out:
            out.append(token)
    return out


def page_policy(html: str | bytes) -> str:
    """The policy of a page: its own origin's scripts and the hashes of its inline scripts."""
    script = " ".join(["script-src 'self'", *inline_hashes(html)])
    return "; ".join([script, *PAGE_DIRECTIVES])
