/* The Compare view's models ticked in the grid (ml_peg_like/dashboard/components/explore/compare.py).
 * The compare set is ONE state: the picker's value (compare-models, in the URL as models=).
 * mplCompare.ticked: the grid's ticks become that value (the models kept in their order, the
 *   newly ticked ones appended in the grid's order); a tick beyond the maximum is undone at once
 *   and a note says why. A model the grid does not show (filtered out) stays in the set.
 * mplCompare.sync: the value (picker, link, ticks) becomes the grid's ticks, also after the grid
 *   got new rows (the model filter); the "Compare (n)" button's label.
 * mplCompare.open: the button opens the Compare view (a navigation request, like the sidebar).
 * No request to the server: ticking is a view change (the server callback answers only when the
 * Compare view is open). Names come from window.mplNames (ml_peg_like/dashboard/ids.py).
 *
 * The Compare table's cells (compare.py grid: a row per node of the tree, a column per compared
 * model): mplCmpValue, the valueGetter, reads the row's score of the column's model from the live
 * result (assets/live.js); MplCmpCell, the cell renderer (dash-ag-grid's documented
 * dashAgGridComponentFunctions), writes it as compare.py table does: the score, the difference
 * to the first model (coloured) and a metric's raw value with its unit. An edit redraws them
 * (liveexplore.js: AG Grid's refreshCells). */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});

  function N() {
    return window.mplNames || {};
  }

  var lastLabel = null; // the label sync last wrote

  function gridApi() {
    try {
      return window.dash_ag_grid.getApi(N().grid);
    } catch (err) {
      return null;
    }
  }

  function sameList(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function fullNote(max) {
    return "At most " + max + " models can be compared: untick one first.";
  }

  // the grid's ticks as the value (unticked rows off, shown-but-unticked rows off)
  function applyTicks(api, value) {
    var want = {};
    value.forEach(function (m) {
      want[m] = true;
    });
    var on = [];
    var off = [];
    api.forEachNode(function (node) {
      var w = Object.prototype.hasOwnProperty.call(want, node.id);
      if (w !== !!node.isSelected()) (w ? on : off).push(node);
    });
    if (on.length) api.setNodesSelected({ nodes: on, newValue: true });
    if (off.length) api.setNodesSelected({ nodes: off, newValue: false });
  }

  dc.mplCompare = {
    ticked: function (rows, value) {
      var max = N().compareMax;
      var col = N().colModel;
      value = Array.isArray(value) ? value : [];
      var api = gridApi();
      if (!api) return [dc.no_update, dc.no_update];
      var shown = {};
      api.forEachNode(function (node) {
        shown[node.id] = true;
      });
      var ticked = {};
      var order = [];
      (rows || []).forEach(function (r) {
        var m = r ? r[col] : null;
        if (typeof m === "string" && !ticked[m]) {
          ticked[m] = true;
          order.push(m);
        }
      });
      var next = value.filter(function (m) {
        return ticked[m] || !shown[m];
      });
      var sorted = [];
      api.forEachNodeAfterFilterAndSort(function (node) {
        if (ticked[node.id] && next.indexOf(node.id) < 0) sorted.push(node.id);
      });
      order.forEach(function (m) {
        if (next.indexOf(m) < 0 && sorted.indexOf(m) < 0) sorted.push(m);
      });
      next = next.concat(sorted);
      var note = dc.no_update;
      if (next.length > max) {
        var refused = next.slice(max);
        next = next.slice(0, max);
        api.setNodesSelected({
          nodes: refused
            .map(function (m) {
              return api.getRowNode(m);
            })
            .filter(Boolean),
          newValue: false,
        });
        note = fullNote(max);
      } else if (next.length < max) {
        note = "";
      }
      return [sameList(next, value) ? dc.no_update : next, note];
    },

    sync: function (value, rowKey) {
      value = Array.isArray(value) ? value : [];
      var api = gridApi();
      if (api) {
        // after the grid has taken the rows of the same response
        requestAnimationFrame(function () {
          applyTicks(api, value);
        });
      }
      // the label only when it changes: every edit (a new row key) runs this, and a new
      // `children` makes Dash re-index the page (SET_PATHS) and notify every component
      var label = "Compare (" + value.length + ")";
      if (label === lastLabel) return dc.no_update;
      lastLabel = label;
      return label;
    },

    open: function (n) {
      if (!n) return dc.no_update;
      var w = {};
      w[N().viewPath] = N().pageCompare;
      w[N().viewMetric] = "";
      w[N().wantTime] = Date.now();
      return w;
    },
  };

  // ---------------------------------------------------------------- the Compare table's cells
  var dagfuncs = (window.dashAgGridFunctions = window.dashAgGridFunctions || {});
  var comps = (window.dashAgGridComponentFunctions = window.dashAgGridComponentFunctions || {});
  var SCORE_DIGITS = 3; // compare.py table: fmt_score's default digits, at scale 1

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  // the score of the row (its kind and index in the live result) of model i
  function cmpValue(i, data, kind) {
    var live = window.mplLive;
    if (!live || !data || typeof i !== "number") return null;
    return live.value(i, kind || data.k, data.j);
  }

  dagfuncs.mplCmpValue = function (params) {
    var p = (params.colDef && params.colDef.cellRendererParams) || {};
    return cmpValue(p.i, params.data);
  };

  // compare.py _diff (mplExploreFig.compareDiff); nothing when a score is missing
  function diffPart(h, v, v0) {
    var d = window.mplExploreFig.compareDiff(v, v0);
    return d[0] ? h("span", { className: d[1] }, d[0]) : null;
  }

  // a metric's raw value and unit (compare.py table: "cmp-raw")
  function rawPart(h, props) {
    var d = props.data;
    if (!d || d.k !== "s") return null;
    var F = window.dashAgGridFunctions;
    var raw = cmpValue(props.i, d, "r");
    var unit = d.unit && isNum(raw) ? " " + d.unit : "";
    return h("div", { className: "cmp-raw" }, F.fmtRaw(raw) + unit);
  }

  comps.MplCmpCell = function (props) {
    var h = window.React.createElement;
    var F = window.dashAgGridFunctions;
    var v = props.value;
    var diff = props.i === props.i0 ? null : diffPart(h, v, cmpValue(props.i0, props.data));
    return h("span", null, F.fmtScore(v, 1, SCORE_DIGITS), diff, rawPart(h, props));
  };
})();
