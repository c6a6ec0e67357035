/* The published page's Compare view (?v=compare&models=a,b,c, the dashboard's key and rules:
 * components/explore/compare.py): up to six models side by side, the radar of their category scores
 * (bars beyond eight categories; explorefig.js, the twin of compare.py radar_figure) and a
 * table of every score with the difference to the first model and the raw values with units.
 * Without picked models: the three best ranked shown models (compare.default_models). Both come
 * from the live result, so every edit redraws them. Names are text. */
(function () {
  "use strict";
  var S = window.mplSite;
  var el = S.el;
  var MAX_MODELS = 6;
  var DEFAULT_MODELS = 3;
  var NARROW = 560;
  var plotDiv = null;
  var refocus = "";

  function F() { return window.mplExploreFig; }
  function C() { return window.mplCurve; }

  // a link's models: known, once each, at most six (explore._clean)
  function picked(s, params) {
    var text = typeof params.models === "string" ? params.models : "";
    var seen = {};
    return text.split(",").filter(function (m) {
      var ok = !!m && !seen[m] && s.bundle.models.indexOf(m) >= 0;
      seen[m] = true;
      return ok;
    }).slice(0, MAX_MODELS);
  }

  // the compared models: the picked ones, else the best ranked shown ones
  S.comparedModels = function (s) {
    var p = picked(s, s.params);
    if (p.length) return p;
    return F().defaultModels(s.bundle.models, s.res.ranks, s.shownModels(), DEFAULT_MODELS);
  };

  function query(params, st) {
    var p = picked(S, params);
    return st && st.view === "compare" && p.length ? [["models", p.join(",")]] : [];
  }

  function pick(s, models, id) {
    var params = Object.assign({}, s.params);
    if (models.length) params.models = models.join(",");
    else delete params.models;
    refocus = id;
    s.go({ params: params });
  }

  function nameOf(s, m) { return s.displayName(s.bundle.models.indexOf(m)); }

  function chips(s, models, own) {
    var list = el("ul", { class: "cmp-chips" });
    models.forEach(function (m, k) {
      var li = el("li", { class: "cmp-chip" }, nameOf(s, m));
      var b = el("button", { type: "button", class: "reset-one", id: "cmp-drop-" + k,
                             "aria-label": "Remove " + nameOf(s, m) + " from the comparison" },
                 "\u00d7");
      b.addEventListener("click", function () {
        pick(s, models.filter(function (x) { return x !== m; }), "cmp-add");
      });
      li.appendChild(b);
      list.appendChild(li);
    });
    var note = own ? "Differences are to the first." :
      "The " + models.length + " best ranked shown models; differences are to the first.";
    return [list, el("p", { class: "note" }, note)];
  }

  function adder(s, models) {
    var wrap = el("span", { class: "ex-field" });
    wrap.appendChild(el("label", { for: "cmp-add" }, "Add a model (up to " + MAX_MODELS + ")"));
    var sel = el("select", { id: "cmp-add", class: "box", disabled: models.length >= MAX_MODELS });
    sel.appendChild(el("option", { value: "" }, "choose\u2026"));
    s.bundle.models.forEach(function (m, i) {
      if (models.indexOf(m) < 0) sel.appendChild(el("option", { value: m }, s.displayName(i)));
    });
    sel.addEventListener("change", function () {
      if (sel.value) pick(s, models.concat([sel.value]), "cmp-add");
    });
    wrap.appendChild(sel);
    return wrap;
  }

  // the radar's input (liveexplore.js drawRadar): each model's category scores
  S.compareInput = function (s, models) {
    var n = s.bundle.models.length;
    var names = {};
    models.forEach(function (m) { names[m] = nameOf(s, m); });
    return {
      categories: s.index.cats.map(function (c) { return c.name; }), models: models,
      names: names, theme: s.isDark() ? "dark" : "light",
      scores: models.map(function (m) {
        var i = s.bundle.models.indexOf(m);
        return s.index.cats.map(function (c, k) { return s.res.cat[i + k * n]; });
      })
    };
  };

  // the table's rows (explore.compare_rows): overall, then each category, its benchmarks and
  // their metrics, with the column of scores (and raw values) they read
  function rows(s) {
    var out = [{ name: "Overall", path: "", level: 0,
                 score: function (i) { return s.res.overall[i]; } }];
    var n = s.bundle.models.length;
    function at(mat, j) { return function (i) { return mat[i + j * n]; }; }
    s.index.cats.forEach(function (c, ci) {
      out.push({ name: c.name, path: c.path, level: 1, score: at(s.res.cat, ci) });
      c.benchmarks.forEach(function (b) {
        out.push({ name: b.name, path: b.path, level: 2,
                   score: at(s.res.bench, s.node(b.path).i) });
        b.metrics.forEach(function (m) {
          var j = s.node(m.path).i;
          out.push({ name: m.name, path: m.path, level: 3, score: at(s.res.metric, j),
                     raw: at(s.board.raw, j), unit: m.unit || "" });
        });
      });
    });
    return out;
  }

  function cell(r, ix, k) {
    var v = r.score(ix[k]);
    var td = el("td", { class: "num" });
    td.appendChild(el("span", { class: "cmp-score" }, C().fmtScore(v, 1, 3)));
    if (k) {
      var d = F().compareDiff(v, r.score(ix[0]));
      td.appendChild(el("span", { class: d[1] }, d[0]));
    }
    if (r.raw) {
      var raw = r.raw(ix[k]);
      var text = C().fmtRaw(raw) + (r.unit && raw === raw ? " " + r.unit : "");
      td.appendChild(el("div", { class: "cmp-raw" }, text));
    }
    return td;
  }

  function table(s, models) {
    var ix = models.map(function (m) { return s.bundle.models.indexOf(m); });
    var t = el("table", { class: "scores cmp-table", id: "compare-table" });
    t.appendChild(el("caption", { class: "sr-only" }, "Scores of the compared models"));
    var head = el("tr");
    head.appendChild(el("th", { scope: "col" }, "Score"));
    models.forEach(function (m) {
      head.appendChild(el("th", { scope: "col", title: m }, nameOf(s, m)));
    });
    t.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    rows(s).forEach(function (r) {
      var tr = el("tr", { class: "l" + r.level, "data-path": r.path });
      tr.appendChild(el("th", { scope: "row", class: "cmp-name l" + r.level,
                                title: r.path || "Overall" }, r.name));
      ix.forEach(function (_, k) { tr.appendChild(cell(r, ix, k)); });
      body.appendChild(tr);
    });
    t.appendChild(body);
    var wrap = el("div", { class: "table-wrap", tabindex: "0", role: "region",
                           "aria-label": "Scores of the compared models" });
    wrap.appendChild(t);
    return wrap;
  }

  function plotBox() {
    if (!plotDiv) plotDiv = el("div", { id: "compare-plot", class: "cmp-plot" });
    return plotDiv;
  }

  // on a phone: smaller labels and more room beside the circle for them (Plotly clips them)
  function narrow(fig, width) {
    if (!width || width >= NARROW || !fig.layout.polar) return fig;
    fig.layout.font = Object.assign({}, fig.layout.font, { size: 11 });
    fig.layout.margin = Object.assign({}, fig.layout.margin, { l: 92, r: 92 });
    return fig;
  }

  function draw(s, fig) {
    var div = plotBox();
    fig = narrow(fig, div.clientWidth);
    s.loadPlotly().then(function (P) {
      return P.react(div, fig.data, fig.layout, { displaylogo: false, responsive: true });
    }).then(function () {
      s.compareDrawn = (s.compareDrawn || 0) + 1;
    }, function (e) {
      s.status("The radar cannot be drawn: " + e.message);
    });
  }

  S.definePage("compare", {
    title: "Compare",
    keys: ["models"],
    query: query,
    settings: function (s) { return s.views.root.settings(s); },
    render: function (box, s) {
      var models = S.comparedModels(s);
      box.appendChild(el("h2", {}, "Compare models"));
      var picker = el("div", { class: "ex-controls cmp-pick" });
      chips(s, models, picked(s, s.params).length > 0).forEach(function (e) {
        picker.appendChild(e);
      });
      picker.appendChild(adder(s, models));
      box.appendChild(picker);
      if (!models.length) {
        box.appendChild(el("p", { class: "note" }, "No model to compare: pick some above."));
        return;
      }
      box.appendChild(plotBox());
      draw(s, F().radar(S.compareInput(s, models)));
      box.appendChild(table(s, models));
      if (refocus && document.getElementById(refocus)) document.getElementById(refocus).focus();
      refocus = "";
    }
  });
})();
