/* The Explore scatter and the Compare radar, built in the browser: pure functions that turn
 * plain data into a Plotly figure ({data, layout}) for a dcc.Graph's `figure` prop. No DOM, no
 * Dash, no Plotly internals.
 *
 * The reference is Python: ml_peg_like/dashboard/components/explore/view.py (scatter_figure),
 * components/explore/compare.py (radar_figure, default_models) and ml_peg_like/explore.py
 * (pareto_front). tests/test_explorefig_js.py compares the two; docs/ENGINE-JS.md says what.
 *
 *   mplExploreFig.scatter(input)   -> the Explore scatter
 *   mplExploreFig.radar(input)     -> the Compare radar (bars beyond eight categories)
 *   mplExploreFig.paretoFront(xs, ys, xBetter, yBetter) -> indices of the front, by x
 *   mplExploreFig.defaultModels(models, ranks, shown, n) -> the n best ranked shown models
 *   mplExploreFig.compareDiff(v, v0) -> [" (+0.100)", class]: a Compare cell's difference to
 *     the first model (compare.py _diff; ["", "cmp-diff"] when either score is missing)
 *
 * The scatter's input (values per model of `models`, board order):
 *   {models: [keys], names: {key: display name}, shown: [model indices] | null (every model),
 *    x: {text, kind, label, better, unit, vkind, values}, y: {same},
 *    ranks: [rank | null | NaN], tied: [bool],
 *    colour: "" | {name, kind, values} (a models.csv column; "" = none), colourText: the
 *    selection's colour name (the figure's uirevision), axes: "auto"|"linear"|"log", theme}
 * `kind` is the quantity's (overall, rank, score, raw, attr), `vkind` its values' (number,
 * date, category: ml_peg_like.explore); number values are numbers (NaN or null = missing), the
 * others text (null = missing); `better` "higher", "lower" or null.
 */
(function (root) {
  "use strict";

  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  // the plots' colours (components/explore/plots.py THEMES, PALETTE, FRONT): curve.js holds
  // them for every plot drawn in the browser
  function style() {
    return curve().plotStyle;
  }
  var GL_POINTS = 300;
  var WIDE = 1e3;
  var MAX_COLOURS = 8;
  var SCORE_RANGE = [-0.04, 1.04];
  var RADAR_MAX_AXES = 8;
  var RADAR_LABEL_LINE = 12;
  var MISSING = "\u2014";
  var NUMBER = "number";
  var DATE = "date";
  var own = Object.prototype.hasOwnProperty;

  // ---- shared with plots.py ---------------------------------------------------------------

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function theme(name) {
    var themes = style().themes;
    return own.call(themes, name) ? themes[name] : themes.light;
  }

  function assign(out, kw) {
    for (var k in kw) if (own.call(kw, k)) out[k] = kw[k];
    return out;
  }

  // plots.axis
  function plotAxis(name, kw) {
    var t = theme(name);
    return assign({ gridcolor: t.grid, linecolor: t.line, zeroline: false, ticks: "outside",
                    tickcolor: t.line, automargin: true, ticklabeloverflow: "allow" }, kw || {});
  }

  // plots.layout
  function plotLayout(name, kw) {
    var t = theme(name);
    return assign({
      height: 460, margin: { l: 70, r: 24, t: 48, b: 60 },
      font: { family: FONT, size: 13, color: t.fg }, paper_bgcolor: t.bg, plot_bgcolor: t.bg,
      hovermode: "closest", hoverlabel: { font: { family: FONT, size: 12 } },
      legend: { bgcolor: "rgba(0,0,0,0)" }
    }, kw || {});
  }

  function curve() {
    return root.mplCurve || (typeof require === "function" ? require("./curve.js") : null);
  }

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  function nameOf(names, m) {
    return names && own.call(names, m) ? names[m] : m;
  }

  // ---- the scatter (explore.py scatter_figure) ----------------------------------------------

  // explore._present
  function present(vkind, v) {
    return vkind === NUMBER ? isNum(v) : v !== null && v !== undefined;
  }

  // explore._fmt
  function fmt(q, v) {
    if (v === null || v === undefined || (typeof v === "number" && v !== v)) return MISSING;
    var C = curve();
    if (q.kind === "score" || q.kind === "overall") return C.fmtScore(v, 1, 3);
    if (q.kind === "rank") return String(Math.trunc(v));
    if (q.kind === "raw") return C.fmtRaw(v) + (q.unit ? " " + q.unit : "");
    return typeof v === "number" ? C.fmtRaw(v) : String(v);
  }

  // scoring.rank_text, "no score" without a rank
  function rankText(rank, tied) {
    if (rank === null || rank === undefined || rank !== rank) return "no score";
    return (tied ? "=" : "") + String(Math.trunc(rank));
  }

  // explore._numeric_axis
  function numericAxis(vals, mode) {
    var v = vals.filter(isNum);
    if (mode === "linear" || !v.length || v.some(function (x) { return x <= 0; })) return "linear";
    if (mode === "log") return "log";
    return Math.max.apply(null, v) / Math.min.apply(null, v) > WIDE ? "log" : "linear";
  }

  function isScore(q) {
    return q.kind === "score" || q.kind === "overall";
  }

  // explore._set_axis_type
  function setAxisType(a, q, vals, axes) {
    if (q.vkind === NUMBER) {
      var mode = axes === "auto" && isScore(q) ? "linear" : axes;
      a.type = numericAxis(vals, mode);
      if (a.type === "linear" && isScore(q)) {
        a.range = SCORE_RANGE.slice();
        a.autorange = false;
      }
    } else if (q.vkind === DATE) {
      a.type = "date";
    } else {
      a.type = "category";
      a.categoryorder = "category ascending";
    }
  }

  // explore._scatter_title
  function scatterTitle(nKept, nAll, nFront, directed) {
    var title = nKept + " of " + nAll + " models" +
      (nKept === nAll ? "" : " (the others lack a value)");
    if (nFront) title += " \u00b7 Pareto front (line): " + nFront;
    else if (nKept && !directed) title += " \u00b7 no Pareto front (an attribute has no direction)";
    return title;
  }

  // explore.pareto_front: indices no other point dominates, by x ascending (then y)
  function paretoFront(x, y, xBetter, yBetter) {
    var sx = xBetter === "higher" ? 1 : -1;
    var sy = yBetter === "higher" ? 1 : -1;
    var ok = [];
    for (var i = 0; i < x.length; i++) if (isNum(x[i]) && isNum(y[i])) ok.push(i);
    if (!ok.length) return [];
    var gx = ok.map(function (k) { return sx * x[k]; });
    var gy = ok.map(function (k) { return sy * y[k]; });
    var order = ok.map(function (_, n) { return n; });
    order.sort(function (a, b) { return gx[b] - gx[a] || gy[b] - gy[a] || a - b; });
    var front = [];
    var best = -Infinity;
    for (var s = 0; s < order.length;) {
      var e = s;
      while (e < order.length && gx[order[e]] === gx[order[s]]) e++;
      var top = gy[order[s]];
      if (top > best) {
        for (var k = s; k < e; k++) if (gy[order[k]] === top) front.push(ok[order[k]]);
        best = top;
      }
      s = e;
    }
    return front.map(function (k, n) { return [k, n]; }).sort(function (a, b) {
      return x[a[0]] - x[b[0]] || y[a[0]] - y[b[0]] || a[1] - b[1];
    }).map(function (p) { return p[0]; });
  }

  // pandas Timestamp(v).year + dayofyear / 366 of an ISO date text
  function dateNumber(v) {
    var y = parseInt(v.slice(0, 4), 10);
    var m = parseInt(v.slice(5, 7), 10);
    var d = v.length >= 10 ? parseInt(v.slice(8, 10), 10) : 1;
    var day = Math.round((Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 1)) / 86400000) + 1;
    return y + day / 366;
  }

  // pandas value_counts: counts, most frequent first, ties in order of first appearance
  function byCount(labels) {
    var counts = {};
    var order = [];
    labels.forEach(function (c) {
      if (!own.call(counts, c)) { counts[c] = 0; order.push(c); }
      counts[c]++;
    });
    return order.map(function (c, n) { return [c, n]; }).sort(function (a, b) {
      return counts[b[0]] - counts[a[0]] || a[1] - b[1];
    }).map(function (p) { return p[0]; });
  }

  function lowerCmp(a, b) {
    var x = a.toLowerCase();
    var y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }

  // explore._colour_traces: a colour scale for numbers and dates, else a trace per value
  function colourTraces(points, kind, cs, colour) {
    if (kind === NUMBER || kind === DATE) {
      var cnum = cs.map(function (v) {
        if (!present(kind, v)) return null;
        return kind === NUMBER ? v : dateNumber(v);
      });
      var every = cs.map(function (_, n) { return n; });
      return [points(every, "", { color: cnum, colorscale: "Viridis", showscale: true,
                                  colorbar: { title: { text: esc(colour) } } })];
    }
    var labels = cs.map(function (c) { return c === null || c === undefined ? MISSING : c; });
    var counts = byCount(labels);
    var top = counts.length > MAX_COLOURS ? counts.slice(0, MAX_COLOURS - 1) : counts;
    var groups = {};
    var keys = [];
    labels.forEach(function (c, n) {
      var g = top.indexOf(c) >= 0 ? c : "other";
      if (!own.call(groups, g)) { groups[g] = []; keys.push(g); }
      groups[g].push(n);
    });
    keys.sort(lowerCmp);
    return keys.map(function (label, g) {
      return points(groups[label], esc(label), { color: style().palette[g % style().palette.length] });
    });
  }

  function frontTrace(x, y) {
    return { type: "scatter", mode: "lines", x: x, y: y, name: "Pareto front",
             line: { color: style().front, width: 2 }, hoverinfo: "skip" };
  }

  function valueAt(q, i) {
    var v = q.values[i];
    return q.vkind === NUMBER && (v === null || v === undefined) ? NaN : v;
  }

  // the models shown that have both values: their indices, values, keys and hover texts
  function keptPoints(input) {
    var n = input.models.length;
    var ix = input.shown ? Array.prototype.slice.call(input.shown) : null;
    if (!ix) { ix = []; for (var i = 0; i < n; i++) ix.push(i); }
    var xq = input.x;
    var yq = input.y;
    var p = { ix: ix, keep: [], xs: [], ys: [], keys: [], hover: [] };
    ix.forEach(function (i) {
      var xv = valueAt(xq, i);
      var yv = valueAt(yq, i);
      if (!present(xq.vkind, xv) || !present(yq.vkind, yv)) return;
      var k = input.models[i];
      var r = input.ranks[i];
      p.keep.push(i);
      p.xs.push(xv);
      p.ys.push(yv);
      p.keys.push(k);
      p.hover.push("<b>" + esc(nameOf(input.names, k)) + "</b><br>" + esc(xq.label) + ": " +
                   esc(fmt(xq, xv)) + "<br>" + esc(yq.label) + ": " + esc(fmt(yq, yv)) +
                   "<br>rank: " + rankText(r, !!input.tied[i]));
    });
    return p;
  }

  function pointTraces(input, p) {
    var kind = p.keep.length > GL_POINTS ? "scattergl" : "scatter";
    var size = p.keep.length <= 200 ? 9 : 6;
    function points(members, name, extra) {
      return { type: kind, mode: "markers", hovertemplate: "%{text}<extra></extra>",
               x: members.map(function (n) { return p.xs[n]; }),
               y: members.map(function (n) { return p.ys[n]; }),
               text: members.map(function (n) { return p.hover[n]; }),
               customdata: members.map(function (n) { return p.keys[n]; }),
               name: name, marker: assign({ size: size }, extra) };
    }
    var c = input.colour;
    if (c && c.name) {
      var cs = p.keep.map(function (i) {
        var v = c.values[i];
        if (c.kind === NUMBER) return v === null || v === undefined ? NaN : v;
        return v === undefined ? null : v;
      });
      return colourTraces(points, c.kind, cs, c.name);
    }
    return [points(p.keep.map(function (_, n) { return n; }), "models", { color: style().palette[0] })];
  }

  function scatter(input) {
    var xq = input.x;
    var yq = input.y;
    var th = input.theme || "light";
    var axes = input.axes || "auto";
    var p = keptPoints(input);
    var traces = pointTraces(input, p);
    var front = [];
    var directed = !!(xq.better && yq.better);
    if (directed && p.keep.length) {
      front = paretoFront(p.xs, p.ys, xq.better, yq.better);
      traces.push(frontTrace(front.map(function (n) { return p.xs[n]; }),
                             front.map(function (n) { return p.ys[n]; })));
    }
    var xa = plotAxis(th, { title: { text: esc(xq.label) } });
    var ya = plotAxis(th, { title: { text: esc(yq.label) } });
    setAxisType(xa, xq, p.xs, axes);
    setAxisType(ya, yq, p.ys, axes);
    var colour = input.colourText || "";
    var title = scatterTitle(p.keep.length, p.ix.length, front.length, directed);
    return { data: traces, layout: plotLayout(th, {
      xaxis: xa, yaxis: ya, title: { text: esc(title), font: { size: 13 }, x: 0.01 },
      showlegend: !!colour && traces.length > 1,
      uirevision: xq.text + "|" + yq.text + "|" + colour + "|" + axes
    }) };
  }

  // ---- Compare (compare.py) ------------------------------------------------------------------

  // compare.wrap_label: lines of about `width` characters, broken at spaces and after hyphens
  function wrapLabel(text, width) {
    width = width || RADAR_LABEL_LINE;
    var words = text.match(/[^\s-]+-?|-/g) || [];
    var lines = [];
    var len = function (s) { return Array.from(s).length; };
    words.forEach(function (w) {
      var last = lines.length ? lines[lines.length - 1] : null;
      var hyph = last !== null && last.charAt(last.length - 1) === "-";
      if (last !== null && len(last) + len(w) + (hyph ? 0 : 1) <= width) {
        lines[lines.length - 1] = last + (hyph ? w : " " + w);
      } else {
        lines.push(w);
      }
    });
    return lines.length ? lines.join("<br>") : text;
  }

  // compare._radar_frame
  function radarFrame(th, bars) {
    if (bars) {
      return { barmode: "group", xaxis: plotAxis(th, { range: [0, 1] }),
               yaxis: plotAxis(th, { autorange: "reversed" }),
               legend: { orientation: "h", yanchor: "top", y: -0.15, x: 0.5, xanchor: "center" } };
    }
    var t = theme(th);
    return {
      polar: { bgcolor: t.bg, radialaxis: { range: [0, 1], gridcolor: t.grid, linecolor: t.line },
               angularaxis: { gridcolor: t.grid, linecolor: t.line } },
      legend: { orientation: "h", yanchor: "top", y: -0.1, x: 0.5, xanchor: "center" },
      margin: { l: 80, r: 80, t: 48, b: 40 }
    };
  }

  /* The radar of the category scores of the compared models:
   *   {categories: [names], models: [keys], names: {key: display name},
   *    scores: [[score per category] per model] (NaN or null = none), theme} */
  function radar(input) {
    var th = input.theme || "light";
    var cats = input.categories.map(esc);
    var bars = cats.length > RADAR_MAX_AXES;
    if (!bars) cats = cats.map(function (c) { return wrapLabel(c); });
    var traces = input.models.map(function (m, i) {
      var vals = input.scores[i].map(function (v) { return isNum(v) ? v : null; });
      var colour = style().palette[i % style().palette.length];
      var name = esc(nameOf(input.names, m));
      if (bars) {
        return { type: "bar", orientation: "h", y: cats, x: vals, name: name,
                 marker: { color: colour } };
      }
      return { type: "scatterpolar", r: vals.concat(vals.slice(0, 1)),
               theta: cats.concat(cats.slice(0, 1)), name: name, mode: "lines+markers",
               line: { color: colour }, fill: "toself", opacity: 0.75 };
    });
    return { data: traces, layout: plotLayout(th, assign({
      height: 420, showlegend: true, title: { text: "Category scores", x: 0.01 }
    }, radarFrame(th, bars))) };
  }

  // compare.default_models: the n best ranked of the shown models (board order breaks ties;
  // no rank: last). `shown`: model indices (null: every model)
  function defaultModels(models, ranks, shown, n) {
    var ix = shown ? Array.prototype.slice.call(shown) : models.map(function (_, i) { return i; });
    var r = function (i) { var v = ranks[i]; return v === null || v !== v ? Infinity : v; };
    ix.sort(function (a, b) { return r(a) - r(b) || a - b; });
    return ix.slice(0, n === undefined ? 3 : n).map(function (i) { return models[i]; });
  }

  // compare.py _diff: the difference to the first model's score, 3 digits, signed; its class
  // by its sign beyond 5e-4 (the dashboard's Compare grid and the published site both write it)
  function compareDiff(v, v0) {
    if (!isNum(v) || !isNum(v0)) return ["", "cmp-diff"];
    var d = v - v0;
    var text = curve().fmtScore(d, 1, 3);
    if (text.charAt(0) !== "-" && Number(text) !== 0) text = "+" + text;
    var klass = d > 5e-4 ? "cmp-diff up" : d < -5e-4 ? "cmp-diff down" : "cmp-diff";
    return [" (" + text + ")", klass];
  }

  var api = {
    compareDiff: compareDiff,
    scatter: scatter,
    radar: radar,
    paretoFront: paretoFront,
    defaultModels: defaultModels,
    wrapLabel: wrapLabel
  };
  root.mplExploreFig = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
