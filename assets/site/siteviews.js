/* The published page's views. A board view (the overview, a category, a benchmark) is a module
 * {caption, columns, settings[, above]} registered with mplSite.defineView(kind, module): its
 * columns follow the lead columns (rank, rank change, model, overall) with the dashboard's column
 * ids (c<i> categories, b<k> benchmarks, r<j> raw values / n<j> scores of metrics, cs / bs the
 * view's own score, ccov its coverage). A view of its own (?v=NAME) is
 * mplSite.definePage(NAME, {title, render(container, site)}): Explore and Compare are added so. */
(function () {
  "use strict";
  var S = window.mplSite;

  function excluded(node) { return node.weight === 0 ? "excluded" : null; }

  function weightBox() { return { boxes: [{ field: "weight", label: "weight" }] }; }

  function policyBox() {
    return { boxes: [{ field: "missing", label: "missing data", policy: true }] };
  }

  S.defineView("root", {
    caption: function () { return "Overall and category scores"; },
    columns: function (s) {
      return s.index.cats.map(function (c, i) {
        return { id: "c" + i, header: c.name, kind: "c", j: i, open: c.path, klass: excluded(c),
                 title: s.site.descriptions[c.path] || c.name };
      });
    },
    settings: function (s) {
      var rows = s.index.cats.map(function (c) {
        return { path: c.path, name: c.name, open: c.path, where: [c.name],
                 groups: [weightBox(), policyBox()] };
      });
      rows.push({ path: "", name: "The board (categories without a policy of their own)",
                  where: ["the board"], groups: [{ boxes: [] }, policyBox()] });
      return { title: "Category weights", head: ["Category", "Weight", "Missing data", ""],
               rows: rows };
    }
  });

  S.defineView("category", {
    caption: function (s) { return "Scores in " + s.node(s.view).node.name; },
    columns: function (s) {
      var entry = s.node(s.view), c = entry.node;
      var cols = [{ id: "cs", header: c.name + " score", kind: "c", j: entry.i, klass: "level",
                    title: s.site.descriptions[c.path] || "category score" }];
      if (s.res.coverage && s.current(c.path, "missing") === "skip") {
        cols.push({ id: "ccov", header: "Coverage", kind: "ccov", j: entry.i,
                    title: "Share of the weight of " + c.name + " with data" });
      }
      c.benchmarks.forEach(function (b) {
        var k = s.node(b.path).i;
        cols.push({ id: "b" + k, header: b.name, kind: "b", j: k, open: b.path,
                    klass: excluded(b), title: s.site.descriptions[b.path] || b.name });
      });
      return cols;
    },
    settings: function (s) {
      var c = s.node(s.view).node;
      return {
        title: "Benchmark weights in " + c.name, head: ["Benchmark", "Weight", ""],
        rows: c.benchmarks.map(function (b) {
          return { path: b.path, name: b.name, open: b.path, where: [b.name, c.name],
                   groups: [weightBox()] };
        })
      };
    }
  });

  function metricHeader(m) { return m.name + (m.unit ? " [" + m.unit + "]" : ""); }

  function metricBoxes(s, m, b) {
    var norm = m.fields.normaliser || "linear";
    var labels = s.site.labels[norm] || {};
    var editable = (s.bundle.normalisers[norm] || {}).editable || ["good", "bad"];
    return {
      path: m.path, name: m.name, pick: m.path, where: [m.name, b.name],
      note: norm.replace(/_/g, " ") + (m.unit ? " \u00b7 " + m.unit : ""),
      groups: [
        { klass: "params", boxes: editable.map(function (f) {
          return { field: f, label: labels[f] || f, shown: labels[f] || f };
        }) },
        weightBox()
      ]
    };
  }

  S.defineView("benchmark", {
    caption: function (s) { return "Metrics of " + s.node(s.view).node.name; },
    columns: function (s) {
      var entry = s.node(s.view), b = entry.node;
      var cols = [{ id: "bs", header: b.name + " score", kind: "b", j: entry.i, klass: "level",
                    title: s.site.descriptions[b.path] || "benchmark score" }];
      b.metrics.forEach(function (m) {
        var j = s.node(m.path).i, raw = s.show !== "score";
        cols.push({ id: (raw ? "r" : "n") + j, header: metricHeader(m), kind: raw ? "r" : "s",
                    j: j, pick: m.path, klass: excluded(m),
                    title: (s.site.descriptions[m.path] || m.name) + " (" +
                      (raw ? "raw values" : "scores") + ")" });
      });
      return cols;
    },
    settings: function (s) {
      var b = s.node(s.view).node;
      return {
        title: "Metric settings of " + b.name,
        head: ["Metric", "Thresholds / parameters", "Weight", ""],
        rows: b.metrics.map(function (m) { return metricBoxes(s, m, b); })
      };
    }
  });

  // the raw values / scores toggle of a benchmark view (?show=score)
  S.listen(function (s) {
    if (s.viewKind() !== "benchmark") return;
    var raw = s.show !== "score";
    var b = s.el("button", { type: "button", id: "show", class: "btn small",
                             "aria-pressed": raw ? "false" : "true" },
                 raw ? "Show the metrics' scores" : "Show the raw values");
    b.addEventListener("click", function () { s.go({ show: raw ? "score" : "raw" }); });
    var board = document.getElementById("board");
    board.insertBefore(b, board.firstChild);
  });
})();
