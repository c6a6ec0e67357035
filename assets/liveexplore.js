/* The Explore scatter, the Compare radar and table and a benchmark view's figure redrawn in the
 * browser (no server request) after every new live result (an edit, a reset, a preset, a link's
 * changes, the server's scores of a board it scores) and every change of the shown models or of
 * the compared models: the live result's values go through mplExploreFig (explorefig.js, the twin
 * of components/explore/view.py scatter_figure and compare.py radar_figure) or
 * mplCurve.benchFigure (curve.js, the twin of compare.py bench_figure) into the graph's `figure`
 * prop (dash_clientside.set_props, Dash's documented way for a script to set a prop).
 *
 * The Compare table is a dash-ag-grid grid whose cells read the live result (compare.js
 * mplCmpValue, MplCmpCell): a new result is AG Grid's refreshCells (dash-ag-grid's getApi); new
 * compared models are new columns (its columnDefs prop, set_props; modelColumn is the twin of
 * compare.py model_column).
 *
 * The server draws each plot and the table when its graph is made or (the scatter) its selection
 * changes, and sends the scatter's selection with it (explore.scatter_spec: the quantities, the
 * attributes' values): the browser then draws the same from the live result. Names come from
 * Python: window.mplNames. */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});

  function N() {
    return window.mplNames || {};
  }

  var st = { page: "", spec: null, picked: [] };

  function column(mat, j, n) {
    return mat.subarray(j * n, (j + 1) * n);
  }

  // {key path: [level, index]} of the categories and benchmarks (the result's column order)
  var groups = null;

  function groupIndex(bundle) {
    if (groups) return groups;
    groups = {};
    var k = 0;
    (bundle.categories || []).forEach(function (c, i) {
      groups[c.path] = ["cat", i];
      c.benchmarks.forEach(function (b) {
        groups[b.path] = ["bench", k++];
      });
    });
    return groups;
  }

  // the ranks of a result (a board the server scores sends its scores without them)
  function ranked(res) {
    return res.ranks ? res : window.mplEngine.rankScores(res.overall);
  }

  // a quantity's value per model (explore.quantity_values), from the live result
  function values(live, q) {
    var res = live.res;
    if (q.kind === "attr") return q.values;
    if (q.kind === "overall") return res.overall;
    if (q.kind === "rank") return ranked(res).ranks;
    if (q.kind === "raw") return column(live.board.raw, live.columnOf(q.path), live.n);
    var j = live.columnOf(q.path);
    if (j >= 0) return column(res.metric, j, live.n);
    var g = groupIndex(live.bundle)[q.path];
    return g ? column(res[g[0]], g[1], live.n) : null;
  }

  function shownIndices(live) {
    if (!live.shown) return null;
    return Array.prototype.slice.call(live.shown).sort(function (a, b) { return a - b; });
  }

  function withValues(live, q) {
    var out = Object.assign({}, q);
    out.values = values(live, q);
    return out;
  }

  function scatterInput(live, spec) {
    var r = ranked(live.res);
    return {
      models: live.bundle.models,
      names: live.names,
      shown: shownIndices(live),
      x: withValues(live, spec.x),
      y: withValues(live, spec.y),
      ranks: r.ranks,
      tied: r.tied,
      colour: spec.colour,
      colourText: spec.colourText,
      axes: spec.axes,
      theme: "light", // as the server draws it: the page's style sheet darkens the plots
    };
  }

  function drawScatter(live) {
    var spec = st.spec;
    if (!spec || !graphShown(N().exploreGraph)) return;
    var input = scatterInput(live, spec);
    if (!input.x.values || !input.y.values) return;
    dc.set_props(N().explorePlot, { figure: window.mplExploreFig.scatter(input) });
  }

  // the compared models: the picked ones (known, once each, at most compareMax), else the
  // best ranked shown ones (compare.default_models)
  function comparedModels(live) {
    var models = live.bundle.models;
    var seen = {};
    var picked = st.picked.filter(function (m) {
      var ok = typeof m === "string" && !seen[m] && models.indexOf(m) >= 0;
      seen[m] = true;
      return ok;
    }).slice(0, N().compareMax);
    if (picked.length) return picked;
    return window.mplExploreFig.defaultModels(models, ranked(live.res).ranks, shownIndices(live), 3);
  }

  function drawRadar(live) {
    if (!graphShown(N().compareGraph)) return;
    var models = comparedModels(live);
    if (!models.length) return;
    var cats = live.bundle.categories || [];
    var n = live.n;
    var pos = {};
    live.bundle.models.forEach(function (m, i) { pos[m] = i; });
    var input = {
      categories: cats.map(function (c) { return c.name; }),
      models: models,
      names: live.names,
      scores: models.map(function (m) {
        return cats.map(function (c, k) { return live.res.cat[pos[m] + k * n]; });
      }),
      theme: "light",
    };
    dc.set_props(N().comparePlot, { figure: window.mplExploreFig.radar(input) });
  }

  // ---- the Compare table (compare.py grid)
  var COL_PREFIX = "m:"; // compare.py CMP_COL_PREFIX
  // compare.py CMP_NAME_COLUMN
  var NAME_COLUMN = { colId: "node", headerName: "", field: "name", pinned: "left",
                      tooltipField: "tip", cellClass: "cmp-name", width: 190, minWidth: 120 };

  // compare.py model_column
  function modelColumn(key, name, i, i0) {
    return {
      colId: COL_PREFIX + key, headerName: name, headerTooltip: key,
      valueGetter: { "function": "mplCmpValue(params)" }, cellRenderer: "MplCmpCell",
      cellRendererParams: { i: i, i0: i0 }, cellClass: "num", flex: 1, minWidth: 130,
    };
  }

  function tableApi() {
    var dag = window.dash_ag_grid;
    try {
      return dag && dag.getApi ? dag.getApi(N().compareTable) : null;
    } catch (err) {
      return null; // not drawn: it reads the live result when it is
    }
  }

  function sameList(a, b) {
    return a.length === b.length && a.every(function (v, k) { return v === b[k]; });
  }

  function drawTable(live) {
    var api = document.getElementById(N().compareTable) ? tableApi() : null;
    var models = api ? comparedModels(live) : [];
    if (!models.length) return;
    var now = (api.getColumnDefs() || []).slice(1).map(function (c) { return c.colId; });
    var want = models.map(function (m) { return COL_PREFIX + m; });
    if (sameList(now, want)) {
      api.refreshCells({ force: true }); // a cell's difference follows the first model's score
      return;
    }
    var pos = {};
    live.bundle.models.forEach(function (m, i) { pos[m] = i; });
    var cols = models.map(function (m) {
      return modelColumn(m, live.names[m] || m, pos[m], pos[models[0]]);
    });
    dc.set_props(N().compareTable, { columnDefs: [NAME_COLUMN].concat(cols) });
  }

  // ---- a benchmark view's figure (compare.py bench_figure)
  function benchOf(bundle, path) {
    var found = null;
    (bundle.categories || []).forEach(function (c) {
      c.benchmarks.forEach(function (b) { if (b.path === path) found = b; });
    });
    return found;
  }

  function drawBench(live) {
    var g = groupIndex(live.bundle)[st.page];
    if (!g || g[0] !== "bench" || !window.mplCurve || !graphShown(N().benchFig)) return;
    var node = benchOf(live.bundle, st.page);
    var n = live.n;
    var idx = shownIndices(live);
    var models = live.bundle.models;
    var input = {
      bench: node.name,
      metrics: node.metrics.map(function (m) { return m.name; }),
      models: models,
      shown: idx ? idx.map(function (i) { return models[i]; }) : models.slice(),
      names: live.names,
      metricScores: node.metrics.map(function (m) {
        return column(live.res.metric, live.columnOf(m.path), n);
      }),
      benchScores: column(live.res.bench, g[1], n),
      theme: "light", // as the server draws it: the page's style sheet darkens the plots
    };
    dc.set_props(N().benchPlot, { figure: window.mplCurve.benchFigure(input) });
  }

  function redraw(live) {
    if (!window.mplExploreFig || !live.res) return;
    if (st.page === N().pageExplore) drawScatter(live);
    else if (st.page === N().pageCompare) {
      drawRadar(live);
      drawTable(live);
    } else if (st.page) {
      // after the curve (livecurve.js draws it in this task): a task of its own, so the rows
      // and the curve are on screen before this second Plotly redraw runs
      setTimeout(function () {
        if (live.res) drawBench(live);
      }, 0);
    }
  }

  function graphShown(id) {
    var wrap = document.getElementById(id);
    return !!(wrap && wrap.querySelector(".js-plotly-plot"));
  }

  window.mplLive.listen(redraw);

  dc.mplLiveExplore = {
    // the scatter's selection, sent with each figure the server draws
    spec: function (spec) {
      st.spec = spec && typeof spec === "object" ? spec : null;
    },
    // the open view and the compared models (a new pick redraws the radar)
    options: function (view, picked) {
      st.page = (view && view[N().viewPath]) || "";
      var next = Array.isArray(picked) ? picked : [];
      var moved = JSON.stringify(next) !== JSON.stringify(st.picked);
      st.picked = next;
      var live = window.mplLive;
      if (moved && st.page === N().pageCompare && live.boot()) redraw(live);
    },
  };
})();
