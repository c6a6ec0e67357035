"""Every name the page is built from, named once: component ids, pattern-matching id types,
store keys and grid column ids.

Python reads these constants; the browser reads the same names from :func:`js_names`, which the
app writes into the page as ``window.mplNames`` before the assets run
(``assets/navigation.js`` and ``assets/dashAgGridFunctions.js`` never spell a name themselves).
"""

from __future__ import annotations

import json
from typing import Any

from ..numfmt import SCORE_DIGITS

# ------------------------------------------------------------------------------------------------
# component ids
# ------------------------------------------------------------------------------------------------

URL = "url"
TITLE = "title"
SUMMARY = "summary"
STATUS = "status"
SIDEBAR = "sidebar"
#: the first view drawn in the page's HTML until the grid shows its rows (firstview.py)
FIRST_VIEW = "mpl-first"
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
CURVE_XSCALE = "curve-xscale"  # the curve's x axis: auto / linear / log
SHOWN_COUNT = "shown-count"  # "17 of 51 models shown" beside the filters
RANK_SHOWN = "rank-shown"  # rank within the shown models (a checklist)
MODEL_CARD = "model-card"  # the model card (filled when a model's cell is clicked)
MODEL_CARD_BODY = "model-card-body"
MODEL_CARD_CLOSE = "model-card-close"
CONTRIB_LEGEND = "contrib-legend"  # the legend of the breakdown bars (components/board/contrib.py)
#: the model card's breakdown, filled in the browser (assets/contrib.js) from the live result
CLASS_CONTRIB_CARD = "contrib-card"
ATTR_CONTRIB_MODEL = "data-model"
THEME_TOGGLE = "theme-toggle"  # light / dark (the browser keeps the choice)
MENU_TOGGLE = "menu-toggle"  # the sidebar's menu button on narrow screens
TOOLS_TOGGLE = "tools-toggle"  # the toolbar's button on narrow screens (folds it away)
TOOLBAR = "toolbar"  # the toolbar (folded away on narrow screens until its button opens it)
MISSING_POLICY = "missing-policy"  # the missing-data policy switch (invalidate / skip)
MISSING_SKIP = "missing-skip"  # the no-score line's button that applies skip
POLICY_OVERRIDES = "policy-overrides"  # the categories that override the policy
NO_SCORE = "no-score"  # the line above the table: how many models have no overall score, why
#: the robustness view's tau line (the main callback fills it in the same response)
ROB_TAU = "rob-tau"
#: the pinned baseline (components/board/baseline.py): the store ``{changes, n, pinned[, result]}`` or
#: None (the published settings), its buttons, the line that names it and the readable list of
#: the changes shown
BASE = "baseline"
BASE_PIN = "baseline-pin"
BASE_UNPIN = "baseline-unpin"
BASE_TEXT = "baseline-text"
CHANGES_LIST = "changes-list"
CHANGES_LABEL = "changes-label"
#: the sensitivity panel: "what would put this model first?" (components/board/sensitivity.py)
SENS_PANEL = "sens-panel"
#: store {box name: stability interval text} of the view's boxes, written into their holders
#: by assets/sensitivity.js (one output per edit, not one per box)
SENS_TEXTS = "sens-texts"
WHATIF_MODEL = "whatif-model"  # its model dropdown
WHATIF_ASK = "whatif-ask"  # its "recompute" button
WHATIF_LIST = "whatif-list"  # the single changes found
#: the robustness view (components/robustness_*); ``assets/robustness.js`` takes no ids: Dash
#: passes it the values
ROB_SECTION = "robustness"  # the panel; also the tau line's link target (#robustness)
ROB_SAMPLES = "rob-samples"
ROB_CONCENTRATION = "rob-concentration"
ROB_JITTER = "rob-jitter"
ROB_TOP_K = "rob-topk"
ROB_SEED = "rob-seed"
ROB_RUN = "rob-run"
ROB_CANCEL = "rob-cancel"
ROB_PROGRESS = "rob-progress"
ROB_PROGRESS_TEXT = "rob-progress-text"
ROB_PROGRESS_WRAP = "rob-progress-wrap"
ROB_STALE = "rob-stale"
ROB_MESSAGE = "rob-message"
ROB_RESULTS = "rob-results"
ROB_P_TOP = "rob-p-top"  # in the results: P(the top model stays first)
ROB_RANK_FIG = "rob-rank-fig"
ROB_HEAT_FIG = "rob-heat-fig"
ROB_REQUEST = "rob-request"  # store: the Run request {"n": clicks, "r": nonce}
ROB_META = "rob-meta"  # store: what the shown analysis ran on
ROB_TOKEN = "rob-token"  # store: the name of the page's data (callbacks.engine_token)
ROB_TEXTS = "rob-texts"  # store: texts the browser-side callbacks show
#: "come back to your work" (components/controls/restore.py, assets/restore.js): the line offering the
#: settings the browser remembers, its text and its two buttons
RESTORE = "restore"
RESTORE_TEXT = "restore-text"
RESTORE_YES = "restore-yes"
RESTORE_NO = "restore-no"

#: the Explore and Compare views (components/explore/view.py, compare.py) and the benchmark figure
PAGE_EXPLORE = "explore"  # their view names (``?v=explore``, ``?v=compare``)
PAGE_COMPARE = "compare"
PLOT_EXPLORE, PLOT_COMPARE = "explore", "compare"  # their plots' names (``plot_graph``)
EXPLORE_WRAP = "explore-wrap"
EXPLORE_X = "explore-x"
EXPLORE_Y = "explore-y"
EXPLORE_C = "explore-c"
EXPLORE_AXES = "explore-axes"
EXPLORE_HOLDER = "explore-holder"
EXPLORE_GRAPH = "explore-graph"
EXPLORE_CARD = "explore-card"
#: a holder (``HELD``) of the scatter's selection as the browser draws it after an edit
#: (``components/explore/view.py`` ``scatter_spec``, ``assets/liveexplore.js``)
EXPLORE_SPEC = "explore-spec"
COMPARE_WRAP = "compare-wrap"
COMPARE_MODELS = "compare-models"
COMPARE_OPEN = "compare-open"  # the "Compare (n)" button above the grid
COMPARE_NOTE = "compare-note"  # beside it: why a tick was refused
COMPARE_MAX = 6  # models in the Compare view (picker or grid ticks)
COMPARE_HOLDER = "compare-holder"
COMPARE_GRAPH = "compare-graph"
COMPARE_TABLE = "compare-table"
COMPARE_TABLE_HOLDER = "compare-table-holder"
BENCH_FIG_HOLDER = "bench-fig-holder"
BENCH_FIG = "bench-fig"
PLOT_FIGS = "plot-figs"  # holder: {plot name: figure} of the plots that exist (components/explore/plots.py)
PLOT_SIG = "plot-sig"  # holder: {plot name: signature} of what plot-figs holds (edits patch it)

#: the exports: ``download(kind)`` is the dcc.Download, ``download_button(kind)`` its button
EXPORTS = ("csv", "xlsx", "latex", "yaml")
DIGITS = "digits"  # significant digits of the scores shown (numfmt)
DIGITS_SINK = "digits-sink"  # the digits the browser applied (a clientside output)
EXPORT_ALL = "export-all"  # exports hold every model, not only the filtered ones


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
FIG = "fig"  # holder: the curve's next figure
CURVE_SIG = "curve-sig"  # holder: what FIG holds (components/board/curve.py: edits patch it)
SORT = "sort"  # the grid's sort as the URL writes it (components/editing/viewstate.py), set in the browser

# ------------------------------------------------------------------------------------------------
# pattern-matching ids: {"type": T_..., KEY: ...}
# ------------------------------------------------------------------------------------------------

KEY_TYPE = "type"
KEY_PATH = "path"
KEY_FIELD = "field"
KEY_NAME = "name"
KEY_INDEX = "i"
#: a link's target view path (crumb, pick): a key of their own, so the {type, path}
#: patterns of the edit callback (a row's reset and message) never scan them
#: (Dash matches a pattern against every component whose id has the same keys)
KEY_TO = "to"

T_SETTING = "setting"  # a box: {type, path, field}
T_RESET = "reset"  # a row's reset button: {type, path}
T_MSG = "msg"  # a row's message: {type, path}
T_CRUMB = "crumb"  # a breadcrumb or a settings row's name: {type, to}
T_PICK = "pick"  # a metric's name in the settings (plots its curve): {type, to}
T_ATTR = "attr"  # an attribute filter: {type, name}
T_CURVE = "curve"  # the curve graph: {type, i}
T_PLOT = "plot"  # an Explore / Compare / benchmark graph: {type, i: its name}
T_WHATIF = "whatif"  # a what-if change's apply/undo button: {type, path, field, value, prev}
KEY_VALUE = "value"
KEY_PREV = "prev"


def box(path: str, field: str) -> dict[str, str]:
    return {KEY_TYPE: T_SETTING, KEY_PATH: path, KEY_FIELD: field}


def box_name(path: str, field: str) -> str:
    """A box's ``name`` attribute; also the key of its interval text in ``SENS_TEXTS``."""
    return f"{path}.{field}"


def whatif(path: str, field: str, value: str, prev: str) -> dict[str, str]:
    return {KEY_TYPE: T_WHATIF, KEY_PATH: path, KEY_FIELD: field, KEY_VALUE: value, KEY_PREV: prev}


def by_path(kind: str, path: str) -> dict[str, str]:
    """``{type: kind, path: path}`` (a row's reset, msg)."""
    return {KEY_TYPE: kind, KEY_PATH: path}


def link(kind: str, path: str) -> dict[str, str]:
    """``{type: kind, to: path}`` (crumb, pick): a click opens that view or metric."""
    return {KEY_TYPE: kind, KEY_TO: path}


def attr(name: str) -> dict[str, str]:
    return {KEY_TYPE: T_ATTR, KEY_NAME: name}


def curve_graph(i: int = 0) -> dict[str, Any]:
    return {KEY_TYPE: T_CURVE, KEY_INDEX: i}


def plot_graph(name: str) -> dict[str, Any]:
    return {KEY_TYPE: T_PLOT, KEY_INDEX: name}


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
COL_SCORE_DELTA = "ds"  # the overall score's change against the baseline
COL_MODEL = "model"
COL_NAME = "mn"  # a row's display name (only when it differs from the key)
COL_OVERALL = "o"
COL_COVERAGE = "cov"
COL_CAT_SCORE = "cs"
COL_CAT_COVERAGE = "ccov"
COL_BENCH_SCORE = "bs"
COL_CONTRIB = "parts"  # the breakdown bars (dashboard/contrib.py)
#: header classes of the columns whose name opens a view (drill) or plots a curve (metric)
CLASS_DRILL = "drill"
CLASS_METRIC = "metric"
#: the header component of those columns (``assets/navigation.js``: its name is a button, its
#: sort a second one), registered under this name in ``window.dashAgGridComponentFunctions``
HEADER_COMPONENT = "MplHeader"
#: the grid's listener of its first rows (``assets/dashAgGridFunctions.js``), given to the grid
#: as an event listener (``components/board/grid.py``)
FIRST_ROWS_LISTENER = "mplFirstRows(params)"
#: a plot's download buttons (PNG / SVG, ``components/explore/plots.py`` and ``assets/plots.js``)
CLASS_PLOT_DL = "plot-dl"
CLASS_INTERVAL = "sens-iv"  # the holder of a box's interval text
ATTR_BOX = "data-box"  # on an interval holder: its box's name (``box_name``)
#: the prop of a "holder" (``plots.holder``: a hidden element, not a dcc.Store) that holds what
#: an edit writes for the browser (a figure) or for the next request (a signature)
HELD = "data-held"
#: the sidebar (one component: navigation.sidebar): its entries (JSON), the view it highlights
#: (written by the clientside callback), and each of its buttons' view path
ATTR_NAV_ITEMS = "data-items"
ATTR_NAV_VIEW = "data-view"
ATTR_NAV_PATH = "data-path"
ROW_INDEX = "i"  # a row's model: its index on the board (the live result's row)
BUNDLE = "mpl-bundle"  # the page's JSON script element holding the board (ml_peg_like.bundle)
DOMINATED = "dominated"  # store: {model: "A, B"} the models dominating each (sensitivity)
PENDING = "pending"  # store: the browser's count of edits whose Python parts are awaited
LIVE_RESULT = "live-result"  # store: the server's scores of a board the browser cannot score
ANSWERED = "answered"  # store: the count the server's answer was for (liveedit.py)
PENDING_CLASS = "mpl-pending"  # on <html> while the parts that need Python are not yet in
ROW_REASONS = "_w"  # a row's {column id: reason code} of its missing cells
ROW_VETO = "_v"  # a vetoed model's reason (config vetoes): the overall cell's tooltip
ROW_DOMINATED = "_dom"  # a row's "dominated by X, Y" (absent when not dominated)
ROW_TIED = "_t"  # true when a row's rank is shared (shown "=2"; absent when not)
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


def js_names(
    reasons: dict[str, str] | None = None,
    upload_max: int = 0,
    upload_too_big: str = "",
    score_stops: Any = (),
    parts_palette: Any = (),
) -> dict[str, Any]:
    """The names ``assets/*.js`` use (``window.mplNames``); a test checks they use no other.
    ``reasons``: reason code of a missing cell -> its tooltip (``tables.REASON_BY_CODE``);
    ``upload_max``, ``upload_too_big``: the settings upload's limit in bytes and why a larger
    file is refused (``assets/upload.js``); ``score_stops``: the grid's colour scale
    (``firstview.SCORE_STOPS``); ``parts_palette``: the breakdown bars' colours
    (``contrib.PARTS_PALETTE``)."""
    return {
        "status": STATUS,
        "firstView": FIRST_VIEW,
        "scoreStops": [[s, list(c)] for s, c in score_stops],
        "upload": UPLOAD,
        "uploadMax": upload_max,
        "uploadTooBig": upload_too_big,
        "grid": GRID,
        "held": HELD,
        "hdr": HDR,
        "hdrCol": HDR_COL,
        "want": WANT,
        "metricPick": METRIC_PICK,
        "viewPath": VIEW_PATH,
        "viewMetric": VIEW_METRIC,
        "wantTime": WANT_TIME,
        "treeCat": TREE_CAT,
        "treeCol": TREE_COL,
        "treeMetrics": TREE_METRICS,
        "keyType": KEY_TYPE,
        "keyTo": KEY_TO,
        "keyIndex": KEY_INDEX,
        "plotDownload": CLASS_PLOT_DL,
        "exploreGraph": EXPLORE_GRAPH,
        "explorePlot": plot_graph(PLOT_EXPLORE),
        "comparePlot": plot_graph(PLOT_COMPARE),
        "compareGraph": COMPARE_GRAPH,
        "pageExplore": PAGE_EXPLORE,
        "navItemsAttr": ATTR_NAV_ITEMS,
        "navPathAttr": ATTR_NAV_PATH,
        "compareMax": COMPARE_MAX,
        "pageCompare": PAGE_COMPARE,
        "settings": SETTINGS,
        "sensTexts": SENS_TEXTS,
        "intervalClass": CLASS_INTERVAL,
        "boxAttr": ATTR_BOX,
        "typePick": T_PICK,
        "drillClass": CLASS_DRILL,
        "metricClass": CLASS_METRIC,
        "headerComponent": HEADER_COMPONENT,
        "rawPrefix": RAW_PREFIX,
        "scorePrefix": SCORE_PREFIX,
        "rowReasons": ROW_REASONS,
        "rowIndex": ROW_INDEX,
        "pendingClass": PENDING_CLASS,
        "serverScoredClass": "mpl-server-scored",
        "curve": CURVE,
        "curveGraph": curve_graph(0),
        "bundle": BUNDLE,
        "qState": "s",
        "qMissing": "missing",
        "qFilter": "f",
        "boxPlain": "box",
        "boxModified": "box modified",
        "boxInvalid": "box invalid",
        "rowVeto": ROW_VETO,
        "rowDominated": ROW_DOMINATED,
        "rowTied": ROW_TIED,
        "colModel": COL_MODEL,
        "colName": COL_NAME,
        "themeToggle": THEME_TOGGLE,
        "menuToggle": MENU_TOGGLE,
        "toolsToggle": TOOLS_TOGGLE,
        "colDelta": COL_DELTA,
        "changesList": CHANGES_LIST,
        "sidebar": SIDEBAR,
        "reasons": dict(reasons or {}),
        "digits": SCORE_DIGITS,
        "contribCard": CLASS_CONTRIB_CARD,
        "contribModelAttr": ATTR_CONTRIB_MODEL,
        "contribPalette": list(parts_palette),
    }


def js_names_script(reasons: dict[str, str] | None = None, **texts: Any) -> str:
    """``window.mplNames = {...};`` safe inside a ``<script>`` element (``texts``: the other
    arguments of :func:`js_names`)."""
    text = json.dumps(js_names(reasons, **texts), ensure_ascii=True, sort_keys=True)
    return "window.mplNames = " + text.replace("</", "<\\/") + ";"
