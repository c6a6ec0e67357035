/* The published page's Explore view (?v=explore&x=X&y=Y&c=ATTR&axes=auto|linear|log, the
 * dashboard's keys and rules: components/explore/view.py): a scatter of two quantities, one point per
 * shown model, coloured by a models.csv column, with the Pareto front when both quantities have
 * a direction. The figure is explorefig.js's (the twin of explore.py scatter_figure); its values
 * come from the live result, so every edit redraws it. Names reach the hover as escaped text.
 *
 * A quantity is "overall", "rank", a key path (its score; the short forms Bench, Bench/Metric
 * too), "raw:Cat/Bench/Metric" or "attr:NAME" (ml_peg_like/explore.py parse_quantity). */
(function () {
  "use strict";
  var S = window.mplSite;
  var el = S.el;
  var AXES = ["auto", "linear", "log"];
  var RAW = "raw:";
  var ATTR = "attr:";
  var NAME_COLUMN = "display_name";
  var MAX_TEXT = 400;
  var NARROW = 560;
  var plotDiv = null;
  var refocus = "";
  var clickWired = false;

  function attributes(s) { return s.site.attributes || []; }

  function attribute(s, name) {
    return attributes(s).filter(function (a) { return a.name === name; })[0] || null;
  }

  // a (possibly short) key path as its full form (config.full_path), or null
  function fullPath(s, text) {
    if (s.node(text)) return text;
    var cut = text.indexOf("/");
    var bench = s.index.benchByName[cut < 0 ? text : text.slice(0, cut)];
    if (!bench) return null;
    var path = cut < 0 ? bench : bench + "/" + text.slice(cut + 1);
    return s.node(path) ? path : null;
  }

  function column(mat, j, n) { return Array.prototype.slice.call(mat, j * n, (j + 1) * n); }

  function rankValues(s) {
    return s.res.ranks.map(function (r, i) {
      var o = s.res.overall[i];
      return r === null || o !== o ? NaN : r;
    });
  }

  function scoreValues(s, entry) {
    var n = s.bundle.models.length;
    var mat = { metric: s.res.metric, benchmark: s.res.bench, category: s.res.cat }[entry.kind];
    return column(mat, entry.i, n);
  }

  function attrQuantity(s, text) {
    var a = attribute(s, text.slice(ATTR.length));
    if (!a) return null;
    return { text: text, kind: "attr", path: a.name, label: a.name, better: null, unit: null,
             vkind: a.kind, values: a.values };
  }

  function rawQuantity(s, text) {
    var path = fullPath(s, text.slice(RAW.length));
    var entry = path && s.node(path);
    if (!entry || entry.kind !== "metric") return null;
    var unit = entry.node.unit || null;
    return { text: RAW + path, kind: "raw", path: path,
             label: path + " (raw" + (unit ? ", " + unit : "") + ")",
             better: s.site.directions[path] || null, unit: unit, vkind: "number",
             values: column(s.board.raw, entry.i, s.bundle.models.length) };
  }

  // the quantity named by text with its values per model (explore.parse_quantity +
  // quantity_values), or null when there is none
  S.exploreQuantity = function (s, text) {
    var t = (text || "").trim();
    if (t === "overall") {
      return { text: t, kind: "overall", path: "", label: "Overall score", better: "higher",
               unit: null, vkind: "number", values: Array.prototype.slice.call(s.res.overall) };
    }
    if (t === "rank") {
      return { text: t, kind: "rank", path: "", label: "Rank", better: "lower", unit: null,
               vkind: "number", values: rankValues(s) };
    }
    if (t.indexOf(ATTR) === 0) return attrQuantity(s, t);
    if (t.indexOf(RAW) === 0) return rawQuantity(s, t);
    var path = fullPath(s, t);
    if (!path) return null;
    return { text: path, kind: "score", path: path, label: path + " score", better: "higher",
             unit: null, vkind: "number", values: scoreValues(s, s.node(path)) };
  };

  // every quantity (explore.quantity_options): [value, label]
  function options(s) {
    var out = [["overall", "Overall score"], ["rank", "Rank"]];
    s.index.cats.forEach(function (c) {
      out.push([c.path, c.path + " score"]);
      c.benchmarks.forEach(function (b) {
        out.push([b.path, b.path + " score"]);
        b.metrics.forEach(function (m) {
          out.push([m.path, m.path + " score"]);
          out.push([RAW + m.path, m.path + " (raw)"]);
        });
      });
    });
    attributes(s).forEach(function (a) { out.push([ATTR + a.name, a.name + " (attribute)"]); });
    return out;
  }

  // the first choices (explore.defaults): x the first numeric attribute, else the first
  // category; y the overall score; no colour; automatic axes
  function defaults(s) {
    var num = attributes(s).filter(function (a) {
      return a.name !== NAME_COLUMN && a.kind === "number";
    })[0];
    return { x: num ? ATTR + num.name : s.index.cats[0].path, y: "overall", c: "", axes: "auto" };
  }

  function cleanQuantity(s, text, fallback) {
    if (typeof text !== "string" || !text || text.length >= MAX_TEXT) return fallback;
    var q = S.exploreQuantity(s, text);
    return q ? q.text : fallback;
  }

  // a link's selection, unknown values replaced by the first choices (explore._clean)
  function selection(s, params) {
    var d = defaults(s);
    var c = params.c || "";
    if (c.indexOf(ATTR) === 0) c = c.slice(ATTR.length);
    return {
      x: cleanQuantity(s, params.x, d.x), y: cleanQuantity(s, params.y, d.y),
      c: c && attribute(s, c) ? c : "",
      axes: AXES.indexOf(params.axes) >= 0 ? params.axes : "auto"
    };
  }
  S.exploreSelection = function (params) { return selection(S, params || S.params); };

  // the link's keys as the dashboard writes them (explore.query_tail)
  function query(params, st) {
    var sel = selection(S, params);
    var out = [["x", sel.x], ["y", sel.y]];
    if (sel.c) out.push(["c", sel.c]);
    if (sel.axes !== "auto") out.push(["axes", sel.axes]);
    return st && st.view === "explore" ? out : [];
  }

  function choose(s, key, value, id) {
    var params = Object.assign({}, s.params);
    params[key] = value;
    refocus = id;
    s.go({ params: params });
  }

  function selectBox(s, id, label, opts, value, key) {
    var wrap = el("span", { class: "ex-field" });
    wrap.appendChild(el("label", { for: id }, label));
    var sel = el("select", { id: id, class: "box" });
    opts.forEach(function (o) {
      sel.appendChild(el("option", { value: o[0], selected: o[0] === value }, o[1]));
    });
    sel.value = value;
    sel.addEventListener("change", function () { choose(s, key, sel.value, id); });
    wrap.appendChild(sel);
    return wrap;
  }

  function axesBox(s, value) {
    var group = el("fieldset", { class: "ex-field ex-axes" });
    group.appendChild(el("legend", {}, "axes"));
    AXES.forEach(function (a) {
      var id = "ex-axes-" + a;
      var r = el("input", { type: "radio", name: "ex-axes", id: id, value: a,
                            checked: a === value });
      r.addEventListener("change", function () { choose(s, "axes", a, id); });
      group.appendChild(r);
      group.appendChild(el("label", { for: id }, a));
    });
    group.title = "auto: a log axis when the values span more than three decades";
    return group;
  }

  function controls(s, sel) {
    var opts = options(s);
    var box = el("div", { class: "ex-controls" });
    box.appendChild(selectBox(s, "ex-x", "x", opts, sel.x, "x"));
    box.appendChild(selectBox(s, "ex-y", "y", opts, sel.y, "y"));
    var colours = [["", "none"]].concat(attributes(s).map(function (a) {
      return [a.name, a.name];
    }));
    box.appendChild(selectBox(s, "ex-c", "colour", colours, sel.c, "c"));
    box.appendChild(axesBox(s, sel.axes));
    return box;
  }

  // the input of mplExploreFig.scatter from the live result (liveexplore.js scatterInput)
  S.exploreInput = function (s, sel) {
    var names = {};
    s.bundle.models.forEach(function (k, i) { names[k] = s.displayName(i); });
    var c = sel.c ? attribute(s, sel.c) : null;
    return {
      models: s.bundle.models, names: names, shown: s.shownModels(),
      x: S.exploreQuantity(s, sel.x), y: S.exploreQuantity(s, sel.y),
      ranks: s.res.ranks, tied: s.res.tied,
      colour: c ? { name: c.name, kind: c.kind, values: c.values } : "",
      colourText: sel.c, axes: sel.axes, theme: s.isDark() ? "dark" : "light"
    };
  };

  function plotBox() {
    if (plotDiv) return plotDiv;
    plotDiv = el("div", { id: "explore-plot", class: "ex-plot" });
    return plotDiv;
  }

  function onClick(s) {
    return function (ev) {
      var p = ev && ev.points && ev.points[0];
      var i = p ? s.bundle.models.indexOf(p.customdata) : -1;
      if (i >= 0) s.openCard(i);
    };
  }

  // on a phone the title's second part goes on a line of its own (Plotly does not wrap it) and
  // the legend under the plot (beside it, it leaves the points a sliver)
  function narrow(fig, width) {
    if (!width || width >= NARROW) return fig;
    var t = fig.layout.title;
    t.text = t.text.replace(" \u00b7 ", "<br>");
    fig.layout.margin = Object.assign({}, fig.layout.margin, { t: 64 });
    fig.layout.legend = Object.assign({}, fig.layout.legend, { orientation: "h", x: 0,
                                                               xanchor: "left", y: -0.2,
                                                               yanchor: "top" });
    if (fig.layout.showlegend) fig.layout.height = fig.layout.height + 80;
    return fig;
  }

  function draw(s, fig) {
    var div = plotBox();
    fig = narrow(fig, div.clientWidth);
    s.loadPlotly().then(function (P) {
      return P.react(div, fig.data, fig.layout, { displaylogo: false, responsive: true });
    }).then(function (gd) {
      if (!clickWired) {
        gd.on("plotly_click", onClick(s));
        clickWired = true;
      }
      s.exploreDrawn = (s.exploreDrawn || 0) + 1;
    }, function (e) {
      s.status("The scatter cannot be drawn: " + e.message);
    });
  }

  S.definePage("explore", {
    title: "Explore",
    keys: ["x", "y", "c", "axes"],
    query: query,
    settings: function (s) { return s.views.root.settings(s); },
    render: function (box, s) {
      var sel = selection(s, s.params);
      box.appendChild(el("h2", {}, "Explore"));
      box.appendChild(el("p", { class: "note" }, "One point per shown model; the red line is " +
        "the Pareto front (scores: higher is better; raw values: the metric's direction; rank: " +
        "lower). Click a point for the model's card."));
      box.appendChild(controls(s, sel));
      box.appendChild(plotBox());
      draw(s, window.mplExploreFig.scatter(S.exploreInput(s, sel)));
      if (refocus && document.getElementById(refocus)) document.getElementById(refocus).focus();
      refocus = "";
    }
  });
})();
