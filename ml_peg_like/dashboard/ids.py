"""Every name the page is built from, named once: component ids, pattern-matching id types,
store keys and grid column ids.

Python reads these constants; the browser reads the same names from :func:`js_names`, which the
app writes into the page as ``window.mplNames`` before the assets run
(``assets/navigation.js`` and ``assets/dashAgGridFunctions.js`` never spell a name themselves).
"""

from __future__ import annotations

import json
from typing import Any

# ------------------------------------------------------------------------------------------------
# component ids
# ------------------------------------------------------------------------------------------------

URL = "url"
TITLE = "title"
SUMMARY = "summary"
STATUS = "status"
SIDEBAR = "sidebar"
CRUMBS = "crumbs"
GRID = "grid"
GRID_WRAP = "grid-wrap"  # the grid's box; the robustness tau line goes right after it
SHOW = "show"  # raw values / normalised scores
SHOW_WRAP = "show-wrap"
SETTINGS = "settings"
PLOT_WRAP = "plot-wrap"
METRIC_PICK = "metric-pick"
CURVE_HOLDER = "curve-holder"
CURVE = "curve"  # the div around the graph (created on the first benchmark view)
MODEL_FILTER = "model-filter"
PRESET = "preset"
RESET_ALL = "reset-all"
RESET_TABLE = "reset-table"
UPLOAD = "upload"
#: the robustness view's tau line (the main callback fills it in the same response)
ROB_TAU = "rob-tau"

#: the exports: ``download(kind)`` is the dcc.Download, ``download_button(kind)`` its button
EXPORTS = ("csv", "xlsx", "yaml")


def download(kind: str) -> str:
    return f"dl-{kind}"


def download_button(kind: str) -> str:
    return f"dl-{kind}-btn"


# stores
CHANGES = "changes"  # the user's changes from the defaults {key path: {field: value}}
VIEW = "view"  # the view shown {VIEW_PATH: view, VIEW_METRIC: metric}
QS = "qs"  # the URL query the server last wrote
COLSIG = "colsig"  # a signature of the grid's column definitions
WANT = "want"  # a navigation request written in the browser
HDR = "hdr"  # a click on a column header's name
TREE = "tree"  # what the browser's navigation needs (see components/navigation.tree_store)
FIG = "fig"  # the curve's next figure
ROWKEY = "rowkey"  # the key of the state the grid's rows show (rowdelta.row_key)
ROWDELTA = "rowdelta"  # the next row delta the browser merges into the grid

# ------------------------------------------------------------------------------------------------
# pattern-matching ids: {"type": T_..., KEY: ...}
# ------------------------------------------------------------------------------------------------

KEY_TYPE = "type"
KEY_PATH = "path"
KEY_FIELD = "field"
KEY_NAME = "name"
KEY_INDEX = "i"

T_SETTING = "setting"  # a box: {type, path, field}
T_RESET = "reset"  # a row's reset button: {type, path}
T_MSG = "msg"  # a row's message: {type, path}
T_NAV = "nav"  # a sidebar button: {type, path}
T_CRUMB = "crumb"  # a breadcrumb or a settings row's name: {type, path}
T_PICK = "pick"  # a metric's name in the settings (plots its curve): {type, path}
T_ATTR = "attr"  # an attribute filter: {type, name}
T_CURVE = "curve"  # the curve graph: {type, i}


def box(path: str, field: str) -> dict[str, str]:
    return {KEY_TYPE: T_SETTING, KEY_PATH: path, KEY_FIELD: field}


def by_path(kind: str, path: str) -> dict[str, str]:
    """``{type: kind, path: path}`` (reset, msg, nav, crumb, pick)."""
    return {KEY_TYPE: kind, KEY_PATH: path}


def attr(name: str) -> dict[str, str]:
    return {KEY_TYPE: T_ATTR, KEY_NAME: name}


def curve_graph(i: int = 0) -> dict[str, Any]:
    return {KEY_TYPE: T_CURVE, KEY_INDEX: i}


# ------------------------------------------------------------------------------------------------
# store keys
# ------------------------------------------------------------------------------------------------

VIEW_PATH = "v"  # view and want stores, and the URL query
VIEW_METRIC = "m"
WANT_TIME = "t"  # want store: a time stamp (two clicks on one link are two requests)
FILTER_PICKS = "p"  # the model filter: picked models
FILTER_ATTRS = "a"  # the model filter: {attribute: values}
TREE_CAT = "cat"  # tree store: {view path: its category}
TREE_COL = "col"  # tree store: {drill-down column id: view path}
TREE_METRICS = "metrics"  # tree store: metric paths in column order
HDR_COL = "colId"  # hdr store: the clicked column

# ------------------------------------------------------------------------------------------------
# grid column ids (row fields)
# ------------------------------------------------------------------------------------------------

COL_RANK = "rank"
COL_DELTA = "d"
COL_MODEL = "model"
COL_OVERALL = "o"
COL_COVERAGE = "cov"
COL_CAT_SCORE = "cs"
COL_CAT_COVERAGE = "ccov"
COL_BENCH_SCORE = "bs"
#: header classes of the columns whose name opens a view (drill) or plots a curve (metric)
CLASS_DRILL = "drill"
CLASS_METRIC = "metric"
ROW_REASONS = "_w"  # a row's {column id: reason code} of its missing cells
CAT_PREFIX = "c"  # c<i>: category i (overview)
BENCH_PREFIX = "b"  # b<k>: benchmark k (category view)
RAW_PREFIX = "r"  # r<j>: raw values of metric j (benchmark view)
SCORE_PREFIX = "n"  # n<j>: normalised scores of metric j (benchmark view)


def cat_col(i: int) -> str:
    return f"{CAT_PREFIX}{i}"


def bench_col(k: int) -> str:
    return f"{BENCH_PREFIX}{k}"


def raw_col(j: int) -> str:
    return f"{RAW_PREFIX}{j}"


def score_col(j: int) -> str:
    return f"{SCORE_PREFIX}{j}"


# ------------------------------------------------------------------------------------------------
# the names the browser reads
# ------------------------------------------------------------------------------------------------


def js_names(reasons: dict[str, str] | None = None) -> dict[str, Any]:
    """The names ``assets/*.js`` use (``window.mplNames``); a test checks they use no other.
    ``reasons``: reason code of a missing cell -> its tooltip (``tables.REASON_TIPS``)."""
    return {
        "grid": GRID,
        "hdr": HDR,
        "hdrCol": HDR_COL,
        "metricPick": METRIC_PICK,
        "viewPath": VIEW_PATH,
        "viewMetric": VIEW_METRIC,
        "wantTime": WANT_TIME,
        "treeCat": TREE_CAT,
        "treeCol": TREE_COL,
        "treeMetrics": TREE_METRICS,
        "keyType": KEY_TYPE,
        "keyPath": KEY_PATH,
        "typePick": T_PICK,
        "drillClass": CLASS_DRILL,
        "metricClass": CLASS_METRIC,
        "rawPrefix": RAW_PREFIX,
        "scorePrefix": SCORE_PREFIX,
        "rowReasons": ROW_REASONS,
        "reasons": dict(reasons or {}),
    }


def js_names_script(reasons: dict[str, str] | None = None) -> str:
    """``window.mplNames = {...};`` safe inside a ``<script>`` element."""
    text = json.dumps(js_names(reasons), ensure_ascii=True, sort_keys=True)
    return "window.mplNames = " + text.replace("</", "<\\/") + ";"
