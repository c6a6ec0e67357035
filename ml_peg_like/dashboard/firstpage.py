"""What the first page loads up front ("fast start").

Dash loads some component code in *async chunks*: the grid's AG Grid community build (~870 KB),
the dropdown and the upload of dash-core-components. A chunk is fetched only once React renders
the first component that needs it, i.e. after the page's scripts ran, the layout came back and
React rendered it once: a second wave of requests, then a second render. Every first page of
this app shows a grid, dropdowns and the upload, so their chunks are loaded as plain scripts
with the others (fetched in parallel, compiled off the main thread): measured at ML-PEG scale,
~0.2 s less main-thread time before the first cells and one round trip less.

Not the Plotly chunk (``dcc/async-graph.js`` + plotly.js, ~3.5 MB): the first page has no
graph; the curve and the explore plots load it when they are first shown.

A chunk loaded early registers itself in webpack's chunk list, so the component's own loader
finds it and requests nothing (the same mechanism as Dash's ``eager_loading=True``, which would
load every chunk, Plotly included).

Except for a link that holds a sort (``sort=``): the grid is then created only once the
chunk has come, as before, i.e. in practice with the link's columns (whose ``sort`` it applies
at creation). An existing grid given new column definitions keeps the rank's sort beside the
new one (AG Grid does not clear it through ``sort: null``), so an eagerly drawn grid would show
the link's rows by rank.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import flask

from ..serving.earlypage import BOOT_HEADER, EARLY_ATTR, SCRIPTS_HOLDER
from .components.editing.liveedit import RAW_ROUTE
from .ids import FIRST_VIEW

#: the id of Dash's config element in the page (Dash's ``_re_index_config_id``)
DASH_CONFIG = "_dash-config"

#: (namespace, path in the package) of the chunks every first page needs
EAGER_CHUNKS = (
    ("dash_ag_grid", "async-community.js"),
    ("dash", "dcc/async-dropdown.js"),
    ("dash", "dcc/async-upload.js"),
)


def eager_scripts(prefix: str = "/") -> str:
    """``<script>`` tags of :data:`EAGER_CHUNKS` (at the URLs the components' loaders use)."""
    return "".join(
        f'<script src="{prefix}_dash-component-suites/{ns}/{path}"></script>'
        for ns, path in EAGER_CHUNKS
    )


#: what Dash's renderer fetches once its scripts ran (the page's layout and its callbacks), and
#: the board's raw matrix, which ``assets/live.js`` fetches (``components/editing/liveedit.py``)
PRELOADS = ("_dash-layout", "_dash-dependencies", RAW_ROUTE)


def preload_links(prefix: str = "/") -> str:
    """``<link rel=preload>`` of :data:`PRELOADS`: the browser asks for them with the scripts
    and the server builds them while the scripts load (it has nothing else to do then), so the
    renderer's own requests find their answers in the browser's memory cache instead of waiting
    for the server once the ~3 MB of scripts ran. ``crossorigin`` makes the preload's request
    mode and credentials those of the renderer's ``fetch`` (same origin), so the two match."""
    return "".join(
        f'<link rel="preload" href="{prefix}{path}" as="fetch" crossorigin="anonymous">'
        for path in PRELOADS
    )


#: the assets written into the page's head instead of linked (Dash leaves them out of the
#: assets it adds: ``ASSETS_IGNORE``): the style sheets, which the first paint waits for (as
#: separate requests they queued behind the scripts and the layout the page asks for at the
#: same time, on a server busy building the layout), and the theme (light / dark), set before
#: the first paint so that the first view (firstview.py) and the page behind it are drawn once
#: in the reader's theme, without a light flash
HEAD_SCRIPT = "theme.js"
#: the page's script loader (:func:`deferred_scripts`), written into the page too, and the name
#: in its text that the list of scripts replaces
LOADER_SCRIPT, LOADER_SLOT = "loader.js", "MPL_NAMES"
ASSETS_IGNORE = r"(^|/)(theme\.js|loader\.js|[^/]+\.css)$"
#: the folder of ``assets/`` that holds the published site's own page (``ml-peg-like publish``,
#: ``ml_peg_like/publish.py``): the dashboard does not load it (Dash's ``assets_path_ignore``)
SITE_ASSETS = r"^site$"


def head_assets(assets: Path) -> str:
    """The style sheets (in Dash's order: by name) as ``<style>`` elements and
    :data:`HEAD_SCRIPT` as an inline ``<script>`` (the package's own files; no request)."""
    out = []
    for css in sorted(assets.glob("*.css")):
        out.append("<style>" + css.read_text(encoding="utf-8").replace("</", "<\\/") + "</style>")
    text = (assets / HEAD_SCRIPT).read_text(encoding="utf-8")
    out.append("<script>" + text.replace("</", "<\\/") + "</script>")
    return "".join(out)


#: a ``<script>`` element as Dash writes them into the page's end
SCRIPT_TAG = re.compile(r"<script(?:\s[^>]*)?>.*?</script>", re.S)


def deferred_scripts(tags: str, loader: str) -> str | None:
    """The ``<script>`` elements ``tags`` (Dash's scripts and its renderer's start) kept inert
    in a ``<template>`` and ``loader`` (:data:`LOADER_SCRIPT`'s text), which adds them once the
    first frame is painted, in the same order. Measured at ML-PEG scale (12 interleaved loads,
    idle): the first view painted 0.60 -> 0.36-0.40 s after navigation, nearly as early as
    the page without its scripts (0.32 s): the browser otherwise fetched, compiled and ran the
    ~3 MB of scripts at the end of the body before its first paint. Not preloaded: fetched
    during the first paint, they held it as before (0.58 -> 0.60 s with preloads, 0.44 s
    without, in one interleaved run). None when ``tags`` holds
    anything but script elements (the page is then served as Dash wrote it)."""
    if not SCRIPT_TAG.search(tags) or SCRIPT_TAG.sub("", tags).strip():
        return None
    names = {
        "holder": SCRIPTS_HOLDER,
        "early": EARLY_ATTR,
        "boot": BOOT_HEADER,
        "config": DASH_CONFIG,
        "first": FIRST_VIEW,
    }
    code = loader.replace(LOADER_SLOT, json.dumps(names), 1)
    return f'<template id="{SCRIPTS_HOLDER}">{tags}</template><script>{code}</script>'


def install(
    app,
    lazy_when: tuple[str, ...] = (),
    first_view: str = "",
    head: str = "",
    loader: str = "",
) -> None:
    """Serve ``app``'s page with the eager chunks right after its scripts (before the renderer
    starts: the first render finds them), unless the request's query has one of ``lazy_when``,
    and with the layout and callbacks preloaded (:func:`preload_links`). ``first_view``: HTML
    put before the app's own element when the address has no query (``firstview.py``);
    ``head``: HTML added at the end of the head's metas (:func:`head_assets`); ``loader``:
    :data:`LOADER_SCRIPT`'s text, which starts the scripts of a page with the first view after
    its first paint (:func:`deferred_scripts`)."""
    prefix = app.config.requests_pathname_prefix
    interpolate = app.interpolate_index

    def interpolate_index(**kw):
        kw["metas"] = kw.get("metas", "") + preload_links(prefix) + head
        if not any(flask.request.args.get(k) for k in lazy_when):
            kw["scripts"] = kw.get("scripts", "") + eager_scripts(prefix)
        if first_view and not flask.request.query_string and flask.request.path == prefix:
            kw["app_entry"] = first_view + kw.get("app_entry", "")
            late = loader and deferred_scripts(kw["scripts"] + kw.get("renderer", ""), loader)
            if late:
                kw["scripts"], kw["renderer"] = late, ""
        return interpolate(**kw)

    app.interpolate_index = interpolate_index
