/* The Explore, Compare and benchmark plots (ml_peg_like/dashboard/components/plots.py).
 * mplPlots.draw: an edit sends only the figures of the plots that exist, in the plot-figs store
 * ({plot name: figure}); each graph gets its figure after the browser has painted the updated
 * table (dcc.Graph then calls Plotly.react; the same uirevision keeps the zoom). An edit may
 * instead patch a figure in the store (a Dash Patch of the parts that changed, figpatch.py): the
 * store's new value still arrives here whole and its patched figure is a new object.
 * The Explore scatter follows an edit differently: the server's response sets an attribute of
 * a hidden element (ids.EXPLORE_NEXT, ids.ATTR_FIG: JSON {rev, data, title, showlegend, types});
 * a MutationObserver on that attribute hands it to Plotly.react (Plotly's documented update: it
 * redraws what changed) on the existing graph, with no Dash callback and no Graph re-render,
 * after the browser has painted the table (requestAnimationFrame, then a task). Only the
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
          after(function () {  // the table first (navigation.js)
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

  var pending = null; // an update waiting for its redraw (after the table's paint)

  function scatterDiv() {
    var wrap = document.getElementById(N().exploreGraph);
    return wrap ? wrap.querySelector(".js-plotly-plot") : null;
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
    if (!gd || !gd.layout || !Array.isArray(gd.data) || !window.Plotly) {
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
