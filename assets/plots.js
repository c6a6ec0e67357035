/* The Explore, Compare and benchmark plots (ml_peg_like/dashboard/components/plots.py).
 * mplPlots.draw: an edit sends only the figures of the plots that exist, in the plot-figs store
 * ({plot name: figure}); each graph gets its figure after the browser has painted the updated
 * table (dcc.Graph then calls Plotly.react; the same uirevision keeps the zoom). An edit may
 * instead patch a figure in the store (a Dash Patch of the parts that changed, figpatch.py): the
 * store's new value still arrives here whole and its patched figure is a new object.
 * The Explore scatter follows an edit differently (issue 17): the edit's response sets an
 * attribute of a hidden element (ids.EXPLORE_NEXT, ids.ATTR_FIG: JSON {rev, data, title,
 * showlegend, types}); a MutationObserver on that attribute draws it with Plotly.react on the
 * existing graph after the browser has painted the table (requestAnimationFrame, then a task),
 * so Plotly's ~15 ms redraw is not in the table's frame and no Dash callback or Graph re-render
 * runs for it. Only the newest update is drawn; one of another selection (rev, the figure's
 * uirevision) is dropped: that selection's whole figure came through the Graph instead.
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
          setTimeout(function () {
            resolve(
              outs.map(function (o) {
                var name = o && o.id ? o.id[key] : null;
                return name && Object.prototype.hasOwnProperty.call(figs, name)
                  ? figs[name]
                  : dc.no_update;
              })
            );
          }, 0);
        });
      });
    },
  };

  var pending = null;

  function drawScatter() {
    var u = pending;
    pending = null;
    var wrap = document.getElementById(N().exploreGraph);
    var gd = wrap ? wrap.querySelector(".js-plotly-plot") : null;
    if (!u || !gd || !gd.layout || !window.Plotly) return;
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
    var first = pending === null;
    try {
      pending = JSON.parse(raw);
    } catch (e) {
      return;
    }
    if (!first) return; // a draw is already scheduled: it takes the newest
    requestAnimationFrame(function () {
      setTimeout(drawScatter, 0); // after this frame's paint (the table)
    });
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
