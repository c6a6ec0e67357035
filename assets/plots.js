/* The Explore, Compare and benchmark plots (ml_peg_like/dashboard/components/explore/plots.py).
 * mplPlots.draw: an edit sends only the figures of the plots that exist, in the plot-figs store
 * ({plot name: figure}); each graph gets its figure after the browser has painted the updated
 * table (dcc.Graph then calls Plotly.react; the same uirevision keeps the zoom). An edit may
 * instead patch a figure in the store (a Dash Patch of the parts that changed, figpatch.py): the
 * store's new value still arrives here whole and its patched figure is a new object.
 * The Explore scatter and the Compare radar follow an edit in the browser instead
 * (liveexplore.js): the server sends their figure only when their graph is made or their
 * selection changes.
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
