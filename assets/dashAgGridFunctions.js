/* Cell formatting and colouring for the score grids (dash-ag-grid functions).
 * The Python twins of fmtScore / fmtRaw / fmtCoverage live in ml_peg_like/dashboard/tables.py;
 * keep them in step (tests compare the two). Names (the row's reason field, the reason texts)
 * come from Python: window.mplNames, written into the page by ml_peg_like/dashboard/ids.py. */
var dagfuncs = (window.dashAgGridFunctions = window.dashAgGridFunctions || {});

(function () {
  "use strict";
  // 0 -> red, 0.5 -> orange, 1 -> green (traffic lights land exactly on the three stops);
  // light tints so that dark text stays readable on every colour.
  var STOPS = [
    [0.0, [243, 168, 160]],
    [0.5, [252, 212, 150]],
    [1.0, [160, 214, 165]],
  ];
  var MISSING = "\u2014";

  function N() {
    return window.mplNames || { reasons: {} };
  }

  // the reason a cell is missing (the tooltip), from the row's reason codes
  function reason(data, key, fallback) {
    var codes = (data || {})[N().rowReasons] || {};
    return N().reasons[codes[key]] || fallback;
  }

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  dagfuncs.scoreColor = function (s) {
    if (!isNum(s)) return null;
    var x = Math.max(0, Math.min(1, s));
    for (var k = 1; k < STOPS.length; k++) {
      if (x <= STOPS[k][0]) {
        var a = STOPS[k - 1], b = STOPS[k];
        var t = (x - a[0]) / (b[0] - a[0]);
        var c = a[1].map(function (v, i) { return Math.round(v + t * (b[1][i] - v)); });
        return "rgb(" + c.join(",") + ")";
      }
    }
    return "rgb(" + STOPS[STOPS.length - 1][1].join(",") + ")";
  };

  dagfuncs.scoreStyle = function (params, key) {
    var s = params.data ? params.data[key] : null;
    var v = params.value;
    if (v === null || v === undefined || !isNum(s)) {
      return { backgroundColor: "transparent", color: "#8c959f" };
    }
    return { backgroundColor: dagfuncs.scoreColor(s), color: "#1f2328" };
  };

  dagfuncs.fmtScore = function (v, scale) {
    if (!isNum(v)) return MISSING;
    return (v * scale).toFixed(scale === 100 ? 1 : 3);
  };

  dagfuncs.fmtRaw = function (v) {
    if (!isNum(v)) return MISSING;
    if (v === 0) return "0";
    var a = Math.abs(v);
    if (a >= 1e6 || a < 1e-3) return v.toExponential(2);
    if (a >= 1e4) return String(Math.round(v));
    return String(parseFloat(v.toPrecision(4)));
  };

  dagfuncs.fmtCoverage = function (v) {
    if (!isNum(v)) return MISSING;
    return Math.round(v * 100) + "%";
  };

  dagfuncs.fmtDelta = function (v) {
    if (typeof v === "string") return v; // "new" / "no score" (scoring.rank_change)
    if (!isNum(v) || v === 0) return "";
    return v > 0 ? "\u25B2" + v : "\u25BC" + -v;
  };

  dagfuncs.missingTip = function (params, key) {
    var v = params.value;
    if (v !== null && v !== undefined) return null;
    return reason(params.data, key, "No data");
  };

  // the overall cell: a vetoed model's reason (the text comes from the server), else missingTip
  dagfuncs.overallTip = function (params, key) {
    var veto = (params.data || {})[N().rowVeto];
    return veto || dagfuncs.missingTip(params, key);
  };

  // a model's display name (the key when it has none) and its tooltip (name, key, card hint)
  dagfuncs.modelName = function (params) {
    var d = params.data || {};
    return d[N().colName] || d[N().colModel];
  };

  dagfuncs.modelTip = function (params) {
    var d = params.data || {};
    var key = d[N().colModel];
    var name = d[N().colName];
    var dom = d[N().rowDominated];
    var tip = (name ? name + " (" + key + ")" : key) + " \u2014 click for the model card";
    return dom ? tip + " \u2014 dominated by " + dom + ": it can never lead" : tip;
  };

  dagfuncs.rawTip = function (params, key, scale) {
    var d = params.data || {};
    if (params.value === null || params.value === undefined) {
      return reason(d, key, "No data");
    }
    var s = d[key];
    if (!isNum(s)) return "Raw " + dagfuncs.fmtRaw(params.value) + ": not scored (" +
      reason(d, key, "no threshold") + ")";
    return "Raw " + dagfuncs.fmtRaw(params.value) + " \u2192 score " + dagfuncs.fmtScore(s, scale);
  };
})();
