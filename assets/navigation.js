/* Navigation in the browser (clientside callbacks registered by ml_peg_like/dashboard/components/).
 *
 * mpl.navigate: a click on the sidebar, a breadcrumb, a metric link, a score cell or a column
 * header's name, or the metric picker, becomes a navigation request {v: view, m: metric, t} in the
 * `want` store; the server callback (one round trip) answers with the view's table and panels.
 * mpl.navClasses: the sidebar's highlight follows the `view` store.
 * mpl.drawCurve: the curve's figure (from the `fig` store) is applied after the next paint.
 * A capture-phase click listener turns a click on a drill-down or metric column header's NAME
 * into `hdr` store data (so it opens / selects instead of sorting; the sort icon still sorts).
 * Every id, store key and column prefix is read from window.mplNames (written into the page from
 * ml_peg_like/dashboard/ids.py); this file spells none of them. */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});

  function N() {
    return window.mplNames || {};
  }

  function want(v, m) {
    var w = {};
    w[N().viewPath] = v || "";
    w[N().viewMetric] = m || "";
    w[N().wantTime] = Date.now();
    return w;
  }

  function viewOf(view) {
    view = view || {};
    return { v: view[N().viewPath] || "", m: view[N().viewMetric] || "" };
  }

  // the metric index of a raw-value or score column id (prefix + index), else -1
  function metricIndex(colId) {
    var prefixes = [N().rawPrefix, N().scorePrefix];
    for (var i = 0; i < prefixes.length; i++) {
      var p = prefixes[i];
      if (p && colId.indexOf(p) === 0 && /^[0-9]+$/.test(colId.slice(p.length))) {
        return parseInt(colId.slice(p.length), 10);
      }
    }
    return -1;
  }

  function fromColumn(colId, view, tree) {
    if (typeof colId !== "string" || !tree) return dc.no_update;
    var cols = tree[N().treeCol];
    if (cols && Object.prototype.hasOwnProperty.call(cols, colId)) {
      return want(cols[colId], "");
    }
    var j = metricIndex(colId);
    if (j >= 0) {
      var m = (tree[N().treeMetrics] || [])[j];
      if (m && m !== view.m) return want(view.v, m);
    }
    return dc.no_update;
  }

  // run fn once a large table's grid has drawn its new rows (bigrows.js), in a new task
  function afterGrid(fn) {
    var big = dc.mplBig;
    var wait = big && big.settled ? big.settled() : Promise.resolve();
    wait.then(function () {
      setTimeout(fn, 0);
    });
  }
  dc.mplAfterGrid = afterGrid;

  dc.mpl = {
    navigate: function (nav, crumb, pick, cell, hdr, metric, view, tree) {
      var ctx = dc.callback_context;
      if (!ctx || !ctx.triggered || !ctx.triggered.length) return dc.no_update;
      var t = ctx.triggered[0];
      var k = t.prop_id.lastIndexOf(".");
      var id = t.prop_id.slice(0, k);
      view = viewOf(view);
      if (id.charAt(0) === "{") {
        if (!t.value) return dc.no_update; // a button that was just rendered (n_clicks 0)
        var o = JSON.parse(id);
        var path = o[N().keyTo];
        if (o[N().keyType] === N().typePick) {
          return path === view.m ? dc.no_update : want(view.v, path);
        }
        return want(path, "");
      }
      if (id === N().grid) return fromColumn(cell && cell.colId, view, tree);
      if (id === N().hdr) return fromColumn(hdr && hdr[N().hdrCol], view, tree);
      if (id === N().metricPick) {
        if (!metric || metric === view.m) return dc.no_update; // set by the server itself
        return want(view.v, metric);
      }
      return dc.no_update;
    },

    // the new figure of the curve, drawn after the browser has painted the updated table
    // (a Plotly redraw takes 30-70 ms; the table is what an edit is for; a large table's
    // rows first: mplBig.settled, bigrows.js)
    drawCurve: function (figure) {
      var n = (dc.callback_context.outputs_list || []).length;
      if (!figure || !n) return dc.no_update;
      return new Promise(function (resolve) {
        requestAnimationFrame(function () {
          afterGrid(function () {
            var out = [];
            for (var i = 0; i < n; i++) out.push(figure);
            resolve(out);
          });
        });
      });
    },

    navClasses: function (view, tree) {
      var ctx = dc.callback_context;
      var v = viewOf(view).v;
      var cats = (tree && tree[N().treeCat]) || {};
      var vc = v ? cats[v] : "";
      return (ctx.outputs_list || []).map(function (o) {
        var p = o.id[N().keyTo];
        var klass;
        if (!p || !Object.prototype.hasOwnProperty.call(cats, p)) klass = "nav-item top";
        else if (cats[p] === p) klass = "nav-item cat" + (p === vc ? " open" : "");
        else klass = "nav-item bench" + (cats[p] === vc ? " shown" : "");
        return klass + (p === v ? " active" : "");
      });
    },
  };

  document.addEventListener(
    "click",
    function (e) {
      var target = e.target;
      if (!target || typeof target.closest !== "function") return;
      var text = target.closest(".ag-header-cell-text");
      if (!text) return;
      var cell = text.closest(
        ".ag-header-cell." + N().drillClass + ", .ag-header-cell." + N().metricClass
      );
      if (!cell || !cell.closest("#" + N().grid)) return;
      var colId = cell.getAttribute("col-id");
      if (!colId || !dc.set_props) return;
      e.stopPropagation();
      e.preventDefault();
      var data = {};
      data[N().hdrCol] = colId;
      data[N().wantTime] = Date.now();
      dc.set_props(N().hdr, { data: data });
    },
    true
  );
})();
