/* Cell formatting and colouring for the score grids (dash-ag-grid functions).
 * Python is the source of truth of the number formats: fmtScore / fmtRaw are the twins of
 * ml_peg_like/numfmt.py (fmtCoverage: dashboard/tables.py), held equal by the tests. A row is one
 * model ({model, mn, i}); its numbers are read from the live result (assets/live.js) by
 * mplValue. Names (the reason texts, ids) come from Python: window.mplNames, written into the
 * page by ml_peg_like/dashboard/ids.py. */
var dagfuncs = (window.dashAgGridFunctions = window.dashAgGridFunctions || {});

(function () {
  "use strict";
  // 0 -> red, 0.5 -> orange, 1 -> green (traffic lights land exactly on the three stops);
  // light tints so that dark text stays readable on every colour. The stops are Python's
  // (ml_peg_like/dashboard/firstview.py SCORE_STOPS: the page's first view uses them too).
  function stops() {
    return N().scoreStops;
  }
  var MISSING = "\u2014";

  function N() {
    return window.mplNames || { reasons: {} };
  }

  function L() {
    return window.mplLive;
  }

  // the model a row stands for (its index on the board)
  function row(params) {
    var d = params && params.data;
    return d ? d[N().rowIndex] : null;
  }

  // the reason a cell is missing (the tooltip), from the live result's reason codes
  function reason(params, kind, j, fallback) {
    var i = row(params);
    var code = L() && i !== null ? L().reasonCode(i, kind, j) : 0;
    return N().reasons[code] || fallback;
  }

  // a cell's value: the live result (assets/live.js) of the row's model
  dagfuncs.mplValue = function (params, kind, j) {
    var i = row(params);
    return L() && i !== null ? L().value(i, kind, j) : null;
  };

  // a rank (the ranking rule: ml_peg_like/scoring/ranks.py, rank_text its Python twin): "—"
  // without one (no overall score), "=4" when shared (the live result's tied flag, or the
  // row's own where a row carries one)
  dagfuncs.fmtRank = function (params) {
    var v = params.value;
    if (!isNum(v)) return MISSING;
    var i = row(params);
    var tied = ((params.data || {})[N().rowTied]) || (L() && i !== null && L().isTied(i));
    return (tied ? "=" : "") + v;
  };

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  // the dark theme (assets/theme.js): the same tints mixed into the page's background, light text
  var DARK_BG = [13, 17, 23];
  var DARK_KEEP = 0.4;

  function isDark() {
    return document.documentElement.getAttribute("data-theme") === "dark";
  }

  dagfuncs.scoreColor = function (s, dark) {
    if (!isNum(s)) return null;
    var x = Math.max(0, Math.min(1, s));
    var STOPS = stops();
    var c = STOPS[STOPS.length - 1][1];
    for (var k = 1; k < STOPS.length; k++) {
      if (x <= STOPS[k][0]) {
        var a = STOPS[k - 1], b = STOPS[k];
        var t = (x - a[0]) / (b[0] - a[0]);
        c = a[1].map(function (v, i) { return v + t * (b[1][i] - v); });
        break;
      }
    }
    if (dark) c = c.map(function (v, i) { return DARK_BG[i] + DARK_KEEP * (v - DARK_BG[i]); });
    return "rgb(" + c.map(Math.round).join(",") + ")";
  };

  // A screen too narrow for the pinned columns (#, ±, model, overall): AG Grid unpins some.
  // Unpin from the inside (overall, then ±) so that the rank stays first. On a phone the scores
  // come first: only the model's name stays pinned (with less room), the rank-change column
  // and the tick column (Compare: its own view has a model picker) are left out.
  var NARROW = 600;
  var MODEL_NARROW = 128;
  function phoneColumns(api) {
    api.setColumnWidths([{ key: N().colModel, newWidth: MODEL_NARROW }]);
    api.setColumnsVisible([N().colDelta], false);
    var sel = api.getGridOption("rowSelection");
    if (sel && typeof sel === "object" && sel.checkboxes) {
      api.setGridOption("rowSelection", Object.assign({}, sel, { checkboxes: false }));
    }
  }
  dagfuncs.unpinInner = function (params) {
    var api = params.api;
    var left = api && api.getDisplayedLeftColumns ? api.getDisplayedLeftColumns() : null;
    if (!left) return params.columns;
    if (params.viewportWidth < NARROW) {
      setTimeout(function () { phoneColumns(api); }, 0);
      return left.filter(function (c) { return c.getColId() !== N().colModel; });
    }
    var room = params.viewportWidth - 50;
    var width = 0;
    left.forEach(function (c) { width += c.getActualWidth(); });
    var out = [];
    for (var i = left.length - 1; i > 0 && width > room; i--) {
      out.push(left[i]);
      width -= left[i].getActualWidth();
    }
    return out;
  };

  dagfuncs.scoreStyle = function (params, kind, j) {
    var s = dagfuncs.mplValue(params, kind, j);
    var v = params.value;
    var dark = isDark();
    if (v === null || v === undefined || !isNum(s)) {
      return { backgroundColor: "transparent", color: dark ? "#6e7681" : "#8c959f" };
    }
    return { backgroundColor: dagfuncs.scoreColor(s, dark), color: dark ? "#e6edf3" : "#1f2328" };
  };

  // The rule is ml_peg_like/numfmt.py's (its docstring says it in words); the digits of the
  // scores come from the page's digits control (window.mplNames.digits, default 3).
  function digitsOf(d) {
    var n = parseInt(d === undefined || d === null ? N().digits : d, 10);
    if (!isFinite(n)) n = 3;
    return Math.min(8, Math.max(1, n));
  }

  // "m.mmme+X" -> [mantissa text, exponent] of a >= 0 rounded to p significant digits
  function sciParts(a, p) {
    var t = a.toExponential(p - 1).split("e");
    return [t[0], parseInt(t[1], 10)];
  }

  function trimZeros(t) {
    return t.indexOf(".") >= 0 ? t.replace(/0+$/, "").replace(/\.$/, "") : t;
  }

  dagfuncs.fmtScore = function (v, scale, digits) {
    if (!isNum(v)) return MISSING;
    var p = digitsOf(digits);
    var x = v * scale;
    var sign = x < 0 ? "-" : "";
    var a = Math.abs(x);
    if (a === 0) return p > 1 ? "0." + "0".repeat(p - 1) : "0";
    var e = sciParts(a, p)[1];
    if (e >= p) return sign + String(Math.round(a));
    return sign + a.toPrecision(p);
  };

  dagfuncs.fmtRaw = function (v) {
    if (!isNum(v)) return MISSING;
    if (v === 0) return "0";
    var p = 4;
    var sign = v < 0 ? "-" : "";
    var a = Math.abs(v);
    var parts = sciParts(a, p);
    var e = parts[1];
    if (e < -3 || e >= 5) return sign + trimZeros(parts[0]) + "e" + e;
    if (e >= p - 1) return sign + String(Math.round(a));
    return sign + trimZeros(a.toFixed(p - 1 - e));
  };

  dagfuncs.fmtCoverage = function (v) {
    if (!isNum(v)) return MISSING;
    return Math.round(v * 100) + "%";
  };

  // the rank column's order: a model without a rank is last in both directions (the first view's
  // rows are in the same order: ml_peg_like/dashboard/rowblock.py order)
  dagfuncs.rankCompare = function (a, b, nodeA, nodeB, isDescending) {
    var hasA = isNum(a), hasB = isNum(b);
    if (hasA && hasB) return a - b;
    if (!hasA && !hasB) return 0;
    return (hasA ? -1 : 1) * (isDescending ? -1 : 1);
  };

  // the kind of a rank change: "up", "down", "word" ("new", "no score") or "" (the cell's class)
  dagfuncs.deltaKind = function (params) {
    var v = params.value;
    if (typeof v === "string") return v ? "word" : "";
    if (!isNum(v) || v === 0) return "";
    return v > 0 ? "up" : "down";
  };

  dagfuncs.fmtDelta = function (v) {
    if (typeof v === "string") return v; // "new" / "no score" (scoring.rank_change)
    if (!isNum(v) || v === 0) return "";
    return v > 0 ? "\u25B2" + v : "\u25BC" + -v;
  };

  dagfuncs.missingTip = function (params, kind, j) {
    var v = params.value;
    if (v !== null && v !== undefined) return null;
    // the missing parts named (assets/contrib.js), else the reason
    var named = window.mplContrib ? window.mplContrib.missingText(row(params), kind, j) : "";
    return named || reason(params, kind, j, "No data");
  };

  // the overall cell: a vetoed model's reason, else missingTip
  dagfuncs.overallTip = function (params) {
    var i = row(params);
    var veto = L() && i !== null ? L().vetoReason(i) : "";
    return veto || dagfuncs.missingTip(params, "o", 0);
  };

  // a model's display name (the key when it has none) and its tooltip (name, key, card hint)
  dagfuncs.modelName = function (params) {
    var d = params.data || {};
    return d[N().colName] || d[N().colModel];
  };

  // a drill / metric header's suppressHeaderKeyboardEvent (tables.py): Enter or Space on one of
  // its buttons (MplHeader, assets/navigation.js; focused once clicked) is the button's alone:
  // the grid, which sorts on Enter, takes no action of its own
  dagfuncs.headerOwnKey = function (params) {
    var e = params.event;
    var own = e && e.target && e.target.tagName === "BUTTON";
    return !!own && (e.key === "Enter" || e.key === " ");
  };

  // the grid's "firstDataRendered" listener (components/board/grid.py): the first view can go
  // (assets/firstview.js; absent when the page has none)
  dagfuncs.mplFirstRows = function () {
    var first = window.mplFirstView;
    if (first) first.rows();
  };

  // the model is dominated (the server's sensitivity marks, held by the live result)
  dagfuncs.isDominated = function (params) {
    var d = params.data;
    return !!(d && L() && L().dominated[d[N().colModel]]);
  };

  dagfuncs.modelTip = function (params) {
    var d = params.data || {};
    var key = d[N().colModel];
    var name = d[N().colName];
    var dom = L() ? L().dominated[key] : null;
    var tip = (name ? name + " (" + key + ")" : key) + " \u2014 click for the model card";
    return dom ? tip + " \u2014 dominated by " + dom + ": it can never lead" : tip;
  };

  dagfuncs.rawTip = function (params, j, scale) {
    if (params.value === null || params.value === undefined) {
      return reason(params, "r", j, "No data");
    }
    var s = dagfuncs.mplValue(params, "s", j);
    if (!isNum(s)) return "Raw " + dagfuncs.fmtRaw(params.value) + ": not scored (" +
      reason(params, "s", j, "no threshold") + ")";
    return "Raw " + dagfuncs.fmtRaw(params.value) + " \u2192 score " + dagfuncs.fmtScore(s, scale);
  };
})();
