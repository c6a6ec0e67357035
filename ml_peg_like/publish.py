"""The leaderboard as a static site: ``publish(config, raw, out_dir)`` writes a folder that works
from files alone (GitHub Pages, a CDN, ``python -m http.server``), with no Python process of the
project behind it.

The site is its own small page in plain JavaScript (``assets/site/``) that reuses the project's
browser modules: ``engine.js`` scores the board and every change in the browser, ``curve.js``
draws the normalisation curve, ``edit.js`` parses the boxes and writes the links' settings, and
``dashAgGridFunctions.js`` formats and colours the numbers. The board is
:func:`ml_peg_like.bundle.make_bundle` plus what the page shows besides the scores (display
names, model cards, box labels, descriptions, the config for the settings export), written as
``board.json`` and fetched by the page (or, with ``embed``, into ``index.html`` as a
``type="application/json"`` script element; docs/PUBLISH.md gives the measured times).

Engine level: no Dash. Plotly.js is the installed plotly package's own file
(``plotly.offline.get_plotlyjs``), written as ``plotly.min.js`` and loaded by the page only when
a view draws a plot.
"""

from __future__ import annotations

import html
import json
import math
import shutil
from pathlib import Path
from typing import Any

from . import aggregation as agg
from . import explore as ex
from . import normalisers as nz
from .bundle import make_bundle
from .config import Config
from .config.yamlio import config_to_dict
from .errors import DataError, Problem
from .models import DISPLAY_COLUMN, card_items, display_names
from .raw import RawData
from .support.resources import assets_dir

#: the file that marks a folder as a site this function wrote (a later publish may overwrite it)
MARKER = "ml-peg-like-site.json"
SITE_VERSION = 1
#: the project's browser modules the site reuses, copied as they are from ``assets/``
SHARED_JS = ("engine.js", "curve.js", "edit.js", "dashAgGridFunctions.js", "explorefig.js")
#: the site's own files (``assets/site/``); index.html is written from its template
SITE_FILES = (
    "site.js",
    "sitetable.js",
    "siteexport.js",
    "siteviews.js",
    "siteexplore.js",
    "sitecompare.js",
    "site.css",
)
TEMPLATE = "index.html"
PLOTLY_FILE = "plotly.min.js"
BOARD_ID = "mpl-board"
BOARD_FILE = "board.json"


def site_dir() -> Path:
    """The folder of the site's own files (the Dash app does not load it: ``assets_path_ignore``)."""
    return assets_dir() / "site"


def _box_labels(cfg: Config) -> dict[str, dict[str, str]]:
    """``{normaliser: {field: box label}}`` of the normalisers the config uses."""
    out: dict[str, dict[str, str]] = {}
    for _c, _b, m in cfg.iter_metrics():
        if m.normaliser not in out:
            norm = nz.get_normaliser(m.normaliser)
            out[m.normaliser] = {f: norm.label(f) for f in (*norm.editable, "weight")}
    return out


def _descriptions(cfg: Config) -> dict[str, str]:
    """``{key path: description}`` of the nodes that have one (the headers' tooltips)."""
    out = {}
    for c in cfg.categories:
        if c.description:
            out[c.name] = c.description
        for b in c.benchmarks:
            if b.description:
                out[f"{c.name}/{b.name}"] = b.description
            for m in b.metrics:
                if m.description:
                    out[f"{c.name}/{b.name}/{m.name}"] = m.description
    return out


def _cards(raw: RawData) -> dict[str, list[list[Any]]]:
    """``{model: [[attribute, text, link or None], ...]}`` (``models.card_items``: only
    http(s) addresses are links)."""
    if raw.attributes is None:
        return {}
    out = {}
    for m in raw.models:
        items = card_items(raw.attributes, m)
        if items:
            out[str(m)] = [[a, t, link] for a, t, link in items]
    return out


def _attributes(raw: RawData) -> list[dict[str, Any]]:
    """Every ``models.csv`` column as Explore plots it (``explore.attribute_column``): its name,
    kind (number, date, category) and value per model (board order; None missing)."""
    if raw.attributes is None:
        return []
    out = []
    for name in raw.attributes.columns:
        kind, values = ex.attribute_column(raw.attributes, name, raw.models)
        if kind == ex.NUMBER:
            values = [v if v is not None and math.isfinite(v) else None for v in values]
        out.append({"name": str(name), "kind": kind, "values": values})
    return out


def _directions(config: Config) -> dict[str, str | None]:
    """``{metric key path: higher, lower or None}``: the direction of a metric's raw value (an
    Explore axis of raw values has a Pareto front only with one)."""
    return {f"{c.name}/{b.name}/{m.name}": m.direction for c, b, m in config.iter_metrics()}


def site_data(config: Config, raw: RawData) -> dict[str, Any]:
    """What the page needs besides the bundle: names, cards, labels, descriptions, the models'
    attributes and the metrics' directions (Explore), the config as a mapping (the settings
    export writes it with the changes applied)."""
    models = [str(m) for m in raw.models]
    names = display_names(raw.attributes, models)
    attrs = raw.attributes
    return {
        "version": SITE_VERSION,
        "names": [n if n != k else None for n, k in zip(names, models, strict=True)],
        "displayColumn": attrs is not None and DISPLAY_COLUMN in getattr(attrs, "columns", ()),
        "cards": _cards(raw),
        "labels": _box_labels(config),
        "descriptions": _descriptions(config),
        "reasons": {str(k): v for k, v in agg.REASON_TEXT.items()},
        "attributes": _attributes(raw),
        "directions": _directions(config),
        "config": config_to_dict(config),
    }


def board_json(config: Config, raw: RawData) -> str:
    """The page's board (bundle + site data) as JSON safe inside an HTML script element."""
    bundle = make_bundle(config, raw)
    if bundle["unsupported"]:
        first = bundle["unsupported"][0]
        raise DataError(
            [
                Problem(
                    first["path"],
                    f"{first['why']}: a static site scores in the browser only "
                    f"({len(bundle['unsupported'])} such metric(s)); use ml-peg-like serve",
                )
            ]
        )
    text = json.dumps({"bundle": bundle, "site": site_data(config, raw)}, allow_nan=False)
    # no "<" in the element's text: "</script>" or "<!--" in a name cannot end or bend it
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def index_html(title: str, board: str | None) -> str:
    """The page from its template: the title escaped, the board in its JSON element (``None``:
    no element; the page fetches ``board.json``)."""
    template = (site_dir() / TEMPLATE).read_text(encoding="utf-8")
    element = f'<script type="application/json" id="{BOARD_ID}">{board}</script>' if board else ""
    return template.replace("%TITLE%", html.escape(title)).replace("%BOARD%", element)


def _check_out_dir(out: Path, force: bool) -> None:
    """Refuse a path that is a file, or a non-empty folder that is not a previous site."""
    if out.exists() and not out.is_dir():
        raise DataError([Problem(str(out), "not a directory")])
    if not out.is_dir() or force or (out / MARKER).is_file():
        return
    if any(out.iterdir()):
        raise DataError(
            [
                Problem(
                    str(out),
                    "not empty and not a site written by ml-peg-like publish: "
                    "choose an empty directory or give --force",
                )
            ]
        )


def _drop_stale(out: Path, kept: set[str]) -> None:
    """Remove the files a previous site listed that this one does not write (a board.json left
    beside an index.html that now holds the board); nothing else is touched."""
    try:
        old = json.loads((out / MARKER).read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError):
        return
    for name in old:
        if isinstance(name, str) and name not in kept and "/" not in name and name != MARKER:
            p = out / name
            if p.is_file() and not p.is_symlink():
                p.unlink()


def plotly_js() -> str:
    """Plotly.js as the installed plotly package ships it."""
    from plotly.offline import get_plotlyjs  # its public function; only here (lazily)

    return get_plotlyjs()


def publish(
    config: Config,
    raw: RawData,
    out_dir: str | Path,
    *,
    force: bool = False,
    title: str | None = None,
    embed: bool = False,
) -> list[Path]:
    """Write the static site of ``config`` scored on ``raw`` into ``out_dir``; return the paths
    written. ``force``: write into a non-empty folder that is not a previous site. ``embed``:
    the board inside ``index.html``; default: ``board.json`` beside it, fetched by the page
    (the first rows came as soon or sooner: docs/PUBLISH.md). Raises DataError (naming the folder or the metric) for what
    cannot be published."""
    out = Path(out_dir)
    _check_out_dir(out, force)
    board = board_json(config, raw)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, str | Path] = {
        TEMPLATE: index_html(title or config.title, board if embed else None)
    }
    if not embed:
        files[BOARD_FILE] = board
    files.update({name: assets_dir() / name for name in SHARED_JS})
    files.update({name: site_dir() / name for name in SITE_FILES})
    files[PLOTLY_FILE] = plotly_js()
    paths = []
    for name, content in files.items():
        p = out / name
        if isinstance(content, Path):
            shutil.copyfile(content, p)
        else:
            p.write_text(content, encoding="utf-8")
        paths.append(p)
    _drop_stale(out, set(files))
    marker = out / MARKER
    marker.write_text(
        json.dumps({"site": SITE_VERSION, "files": sorted(files)}, indent=1), encoding="utf-8"
    )
    return [*paths, marker]
