/* The Explore, Compare and benchmark plots (ml_peg_like/dashboard/components/plots.py).
 * mplPlots.draw: an edit sends only the figures of the plots that exist, in the plot-figs store
 * ({plot name: figure}); each graph gets its figure after the browser has painted the updated
 * table (dcc.Graph then calls Plotly.react; the same uirevision keeps the zoom). An edit may
 * instead patch a figure in the store (a Dash Patch of the parts that changed, figpatch.py): the
 * store's new value still arrives here whole and its patched figure is a new object.
 * The Explore scatter follows an edit differently, so that it never delays the table: the edit's response sets an
 * attribute of a hidden element (ids.EXPLORE_NEXT, ids.ATTR_FIG: JSON {rev, data, title,
 * showlegend, types}); a MutationObserver on that attribute draws it on the existing graph, with
 * no Dash callback and no Graph re-render. When only the points move (same traces, title and
 * axis types; each axis fixed or spanning the same values) and they are the same points (same
 * customdata, markers, lines) movePoints moves their SVG nodes and the front's path itself, at
 * once (well under a millisecond; an edit's usual case); when the points differ, Plotly.animate
 * moves them without redrawing axes, title or legend (~10 ms in its next animation frame,
 * which delayed the table's cells); otherwise
 * Plotly.react redraws the whole figure after the browser has painted the table
 * (requestAnimationFrame, then a task), so its ~15 ms are not in the table's frame. Only the
 * newest update is drawn; one of another selection (rev, the figure's uirevision) is dropped:
 * that selection's whole figure came through the Graph instead.
 * A plot's PNG / SVG buttons: Plotly's own export of the graph above them (a PNG at twice the
 * size on screen, an SVG as drawn; both in the figure's light colours).
 * Names come from Python: window.mplNames (ml_peg_like/dashboard/ids.py). */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});

  function N() {
    return window.mplNames || {};
  }

  dc.mplPlots = {
    draw: function (figs) {
      var outs = (dc.callback_context && dc.callback_context.outputs_list) || [];
      if (!figs || !outs.length) return dc.no_update;
      var key = N().keyIndex;
      return new Promise(function (resolve) {
        requestAnimationFrame(function () {
          var after = dc.mplAfterGrid || function (fn) { setTimeout(fn, 0); };
          after(function () {  // a large table's rows first (navigation.js, bigrows.js)
            resolve(
              outs.map(function (o) {
                var name = o && o.id ? o.id[key] : null;
                return name && Object.prototype.hasOwnProperty.call(figs, name)
                  ? figs[name]
                  : dc.no_update;
              })
            );
          });
        });
      });
    },
  };

  var pending = null; // an update waiting for its full redraw (after the table's paint)
  var MOVE = { transition: { duration: 0 }, frame: { duration: 0, redraw: false }, mode: "immediate" };

  function scatterDiv() {
    var wrap = document.getElementById(N().exploreGraph);
    return wrap ? wrap.querySelector(".js-plotly-plot") : null;
  }

  function extent(traces, key) {
    var lo = Infinity;
    var hi = -Infinity;
    var other = {};
    traces.forEach(function (t) {
      (t[key] || []).forEach(function (v) {
        if (typeof v === "number") {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        } else other[String(v)] = 1;
      });
    });
    return JSON.stringify([lo, hi, Object.keys(other).sort()]);
  }

  // Plotly.animate can move the points of this update without redrawing anything else: the same
  // SVG traces, title, legend and axis types, and each axis either fixed (a score axis, a zoom)
  // or spanning the same values (then its automatic range stays the same)
  function movable(gd, u) {
    var lay = gd.layout || {};
    if (!Array.isArray(gd.data) || gd.data.length !== u.data.length) return false;
    for (var i = 0; i < u.data.length; i++) {
      var a = gd.data[i];
      var b = u.data[i];
      if (a.type !== "scatter" || b.type !== "scatter" || a.mode !== b.mode || a.name !== b.name)
        return false;
    }
    if (!lay.title || lay.title.text !== u.title || !!lay.showlegend !== !!u.showlegend) return false;
    var axes = ["xaxis", "yaxis"];
    for (var k = 0; k < 2; k++) {
      var ax = lay[axes[k]] || {};
      if (ax.type !== u.types[k]) return false;
      var key = axes[k].charAt(0);
      if (ax.autorange !== false && extent(gd.data, key) !== extent(u.data, key)) return false;
    }
    return true;
  }

  // what an update may change for movePoints: the positions and the hover texts
  var MOVED = { x: 1, y: 1, text: 1 };

  // movePoints: an update that moves the same points of a movable figure (the same traces with
  // the same points, customdata, markers and lines; only x, y and the hover texts differ) is
  // drawn here, synchronously and without Plotly's supplyDefaults / calc / redraw: each point's
  // SVG node moves to its new pixel position (the axis's own d2c / c2p, as Plotly's
  // Drawing.translatePoint), each line's path is redrawn through its points, and the data,
  // full data and calcdata (hover positions and texts) take the new values, so that hover,
  // click and a later Plotly redraw see them. A sub-millisecond instead of Plotly.animate's
  // ~10 ms frame (on an idle core) inside the table's update. false: not applicable.
  function movePoints(gd, u) {
    var fl = gd._fullLayout;
    var cd = gd.calcdata;
    var full = gd._fullData;
    if (!fl || !fl.xaxis || !fl.yaxis || !Array.isArray(cd) || !Array.isArray(full)) return false;
    if (cd.length !== u.data.length || full.length !== u.data.length) return false;
    var xa = fl.xaxis;
    var ya = fl.yaxis;
    var plan = [];
    for (var i = 0; i < u.data.length; i++) {
      var a = gd.data[i];
      var b = u.data[i];
      var n = (b.x || []).length;
      if (!Array.isArray(b.x) || !Array.isArray(b.y) || b.y.length !== n) return false;
      if (!Array.isArray(a.x) || a.x.length !== n || cd[i].length !== n) return false;
      for (var key in b) {
        if (Object.prototype.hasOwnProperty.call(b, key) && !MOVED[key]) {
          if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return false;
        }
      }
      // the trace's group (Plotly keeps its d3 selection on the first calcdata point)
      var g = n && cd[i][0].node3 && cd[i][0].node3.node ? cd[i][0].node3.node() : null;
      if (n && !g) return false;
      var px = new Array(n);
      for (var j = 0; j < n; j++) {
        var cx = xa.d2c(b.x[j]);
        var cy = ya.d2c(b.y[j]);
        px[j] = [xa.c2p(cx), ya.c2p(cy), cx, cy, null];
        if (!isFinite(px[j][0]) || !isFinite(px[j][1])) return false;
      }
      var path = null;
      if (full[i].mode === "lines") {
        path = g ? g.querySelector("path.js-line") : null;
        if (n > 1 && !path) return false;
      } else {
        var nodes = g ? g.querySelectorAll("path.point") : [];
        if (nodes.length !== n) return false;
        for (var k = 0; k < n; k++) {
          var dd = nodes[k].__data__; // the point's calcdata item
          if (!dd || cd[i][dd.i] !== dd || px[dd.i][4]) return false;
          px[dd.i][4] = nodes[k];
        }
      }
      plan.push({ i: i, px: px, path: path });
    }
    plan.forEach(function (t) {
      var b = u.data[t.i];
      var c = cd[t.i];
      var d = "";
      t.px.forEach(function (p, j) {
        c[j].x = p[2];
        c[j].y = p[3];
        if (Array.isArray(b.text)) c[j].tx = b.text[j];
        if (p[4]) p[4].setAttribute("transform", "translate(" + p[0] + "," + p[1] + ")");
        d += (j ? "L" : "M") + p[0] + "," + p[1];
      });
      if (t.path) t.path.setAttribute("d", d);
      Object.keys(MOVED).forEach(function (key) {
        if (key in b) {
          gd.data[t.i][key] = b[key];
          full[t.i][key] = b[key];
        }
      });
    });
    return true;
  }

  var waits = 0;

  function later(f) {
    requestAnimationFrame(function () {
      setTimeout(f, 0); // after this frame's paint (the table)
    });
  }

  function drawScatter() {
    var gd = scatterDiv();
    if (!pending) return;
    if (!gd || !gd.layout || !gd._fullLayout || !window.Plotly) {
      // a graph just created by the same page is not plotted yet: wait for it (~3 s at most)
      if (++waits < 200) later(drawScatter);
      else pending = null;
      return;
    }
    var u = pending;
    pending = null;
    waits = 0;
    if (gd.layout.uirevision !== u.rev) return;
    var lay = Object.assign({}, gd.layout);
    lay.title = Object.assign({}, lay.title, { text: u.title });
    lay.showlegend = u.showlegend;
    ["xaxis", "yaxis"].forEach(function (a, i) {
      var ax = Object.assign({}, lay[a]);
      if (ax.type !== u.types[i]) {
        ax.type = u.types[i]; // an automatic log / linear switch: the old range means nothing
        delete ax.range;
        ax.autorange = true;
      }
      lay[a] = ax;
    });
    window.Plotly.react(gd, u.data, lay);
  }

  function nextScatter(el) {
    var raw = el.getAttribute(N().figAttr);
    if (!raw) return;
    var u;
    try {
      u = JSON.parse(raw);
    } catch (e) {
      return;
    }
    var gd = scatterDiv();
    if (pending === null && gd && window.Plotly && gd.layout && gd.layout.uirevision === u.rev) {
      if (movable(gd, u)) {
        if (movePoints(gd, u)) return; // the same points: moved now, in this task
        // the points move in Plotly's next animation frame (~1 ms now, a few ms then)
        var traces = u.data.map(function (_t, i) {
          return i;
        });
        window.Plotly.animate(gd, { data: u.data, traces: traces }, MOVE);
        return;
      }
    }
    var first = pending === null;
    pending = u;
    if (first) later(drawScatter); // else a redraw is already scheduled: it takes the newest
  }

  if (typeof MutationObserver !== "undefined") {
    new MutationObserver(function (records) {
      for (var r = 0; r < records.length; r++) {
        if (records[r].target.id === N().exploreNext) nextScatter(records[r].target);
      }
    }).observe(document.documentElement, {
      subtree: true,
      attributes: true,
      attributeFilter: [N().figAttr],
    });
  }

  document.addEventListener("click", function (e) {
    var t = e.target;
    var cls = N().plotDownload;
    if (!t || typeof t.closest !== "function" || !cls) return;
    var btn = t.closest("." + cls);
    var wrap = btn && btn.parentNode ? btn.parentNode.parentNode : null;
    var gd = wrap ? wrap.querySelector(".js-plotly-plot") : null;
    if (!gd || !window.Plotly) return;
    var fmt = btn.getAttribute("data-format") === "svg" ? "svg" : "png";
    window.Plotly.downloadImage(gd, {
      format: fmt,
      filename: btn.getAttribute("data-name") || "figure",
      scale: fmt === "png" ? 2 : 1,
    });
  });
})();
