/* The Explore scatter and the Compare radar redrawn in the browser (no server request) after
 * every new live result (an edit, a reset, a preset, a link's changes, the server's scores of
 * a board it scores) and every change of the shown models or of the compared models: the live
 * result's values go through mplExploreFig (explorefig.js, the twin of components/explore/view.py
 * scatter_figure and compare.py radar_figure) into the graph's `figure` prop
 * (dash_clientside.set_props, Dash's documented way for a script to set a prop).
 *
 * The server draws each plot when its graph is made or its selection changes, and sends the
 * scatter's selection with it (explore.scatter_spec: the quantities, the attributes' values):
 * the browser then draws the same figure from the live result. The Compare table still comes
 * from the server (it is made of Dash components). Names come from Python: window.mplNames. */
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

  function redraw(live) {
    if (!window.mplExploreFig || !live.res) return;
    if (st.page === N().pageExplore) drawScatter(live);
    else if (st.page === N().pageCompare) drawRadar(live);
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
      if (moved && st.page === N().pageCompare && graphShown(N().compareGraph) && live.boot()) {
        redraw(live);
      }
    },
  };
})();
