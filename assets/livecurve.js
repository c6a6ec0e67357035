/* The normalisation curve redrawn in the browser on an edit (no server request): the live
 * result's scores and resolved thresholds of the selected metric go through mplCurve.figure
 * (curve.js, the twin of dashboard/figures.py curve_figure) into the curve graph's `figure`
 * prop (dash_clientside.set_props, Dash's documented way for a clientside script to set a
 * prop). The server still draws the curve on navigation, and its answer to the new changes
 * adds what needs Python (the stability band of each threshold): the same figure otherwise.
 * Names come from Python: window.mplNames. */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});
  var own = Object.prototype.hasOwnProperty;

  function N() {
    return window.mplNames || {};
  }

  var opts = { metric: "", xscale: "auto", digits: null };

  function paramsAt(res, j) {
    var out = {};
    for (var name in res.resolved || {}) {
      if (own.call(res.resolved, name)) {
        var v = res.resolved[name][j];
        if (v === v) out[name] = v;
      }
    }
    return out;
  }

  // {field: why} of the {model: NAME} thresholds that did not resolve (tables.py
  // unresolved_thresholds says the same)
  function unresolved(live, metric, params, decl) {
    var out = {};
    var fields = (decl && decl.editable) || ["good", "bad"];
    var models = live.bundle.models;
    fields.forEach(function (f) {
      var spec = live.current(metric.path, f);
      if (!spec || typeof spec !== "object" || own.call(params, f)) return;
      var known = models.indexOf(spec.model) >= 0;
      out[f] = f + " is the value of model " + spec.model + ", " +
        (known ? "which has none for this metric" : "which is not on this board");
    });
    return out;
  }

  function column(mat, j, n) {
    return mat.subarray(j * n, (j + 1) * n);
  }

  function theme() {
    return document.documentElement.getAttribute("data-theme") === "dark" ? "dark" : "light";
  }

  function input(live, j) {
    var b = live.bundle;
    var metric = b.metricsByIndex[j];
    var name = metric.fields.normaliser || "linear";
    var decl = b.normalisers[name] || {};
    var params = paramsAt(live.res, j);
    var dflt = paramsAt(live.base, j);
    var E = window.mplEngine;
    return {
      path: metric.path,
      name: metric.name,
      unit: metric.unit || "",
      better: metric.fields.better || "",
      normaliser: name,
      logHint: !!decl.log_x,
      params: params,
      marks: E.curveMarks(name, params),
      unresolved: unresolved(live, metric, params, decl),
      models: b.models,
      names: live.names,
      raw: column(live.board.raw, j, live.n),
      score: column(live.res.metric, j, live.n),
      scale: b.scale || 1,
      xscale: opts.xscale,
      digits: opts.digits,
      band: null,
      evaluate: function (xs) { return E.evaluate(name, params, xs); },
      theme: theme(),
      defaults: { good: dflt.good, bad: dflt.bad },
    };
  }

  function redraw(live) {
    if (live.serverScored) return; // the server draws that board's curve with its scores
    if (!opts.metric || !window.mplCurve || !document.getElementById(N().curve)) return;
    var j = live.columnOf(opts.metric);
    if (j < 0) return;
    var fig = window.mplCurve.figure(input(live, j));
    if (fig) dc.set_props(N().curveGraph, { figure: fig });
  }

  window.mplLive.listen(redraw);

  // the view's metric, the x axis and the digits: what the next redraw draws
  dc.mplLiveCurve = {
    options: function (view, xscale, digits) {
      opts.metric = (view && view[N().viewMetric]) || "";
      opts.xscale = xscale || "auto";
      opts.digits = digits;
    },
  };
})();
