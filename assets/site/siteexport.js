/* The published page's exports, made in the browser: the score tables of the current settings
 * as CSV (the columns and numbers of `ml-peg-like score`: model, display_name when models.csv
 * has one, then the level's columns; floats as Python writes them, shortest round-trip text;
 * formula-like names prefixed with a quote) and the settings as a config file that
 * `ml-peg-like score` accepts (the board's config with the changes written into it). */
(function () {
  "use strict";
  var S = window.mplSite;
  var FORMULA = /^[=+\-@\t\r]/;

  function E() { return window.mplEngine; }

  // ------------------------------------------------------------------ CSV
  function pyFloat(x) {
    if (x !== x) return "";
    var t = E().pyRepr(x);
    return Number.isInteger(x) && Math.abs(x) < 1e16 ? t + ".0" : t;
  }

  function csvText(v) {
    var t = FORMULA.test(v) ? "'" + v : v;
    return /[",\r\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  }

  function column(mat, j, n, k) {
    var out = [];
    for (var i = 0; i < n; i++) out.push(pyFloat(mat[i + j * n] * k));
    return out;
  }

  function levelColumns(level, res, k) {
    var b = S.bundle, n = b.models.length;
    var pick = {
      category_scores: [S.index.cats, res.cat],
      benchmark_scores: [S.index.benches, res.bench],
      metric_scores: [b.metric_columns, res.metric]
    }[level];
    return pick[0].map(function (node, j) {
      return [typeof node === "string" ? node : node.name, column(pick[1], j, n, k)];
    });
  }

  function overallColumns(res, k) {
    var n = S.bundle.models.length, idx = [];
    for (var i = 0; i < n; i++) idx.push(i);
    var cols = [
      ["score", column(res.overall, 0, n, k)],
      ["rank", idx.map(function (i) { return res.ranks[i] === null ? "" : String(res.ranks[i]); })],
      ["tied", idx.map(function (i) { return res.tied[i] ? "True" : "False"; })]
    ];
    if (res.coverage) cols.push(["coverage", column(res.coverage.overall, 0, n, 1)]);
    if (S.bundle.vetoes.length) {
      cols.push(["vetoed", idx.map(function (i) { return res.vetoed[i] ? "True" : "False"; })]);
    }
    return cols;
  }

  // the CSV of a level ("overall_scores", "category_scores", ...) of the current settings
  S.csv = function (level) {
    var b = S.bundle, res = S.res, k = b.scale || 1;
    var cols = [["model", b.models.slice()]];
    if (S.site.displayColumn) {
      cols.push(["display_name", b.models.map(function (m, i) { return S.displayName(i); })]);
    }
    cols = cols.concat(level === "overall_scores" ? overallColumns(res, k)
                                                  : levelColumns(level, res, k));
    var lines = [cols.map(function (c) { return csvText(c[0]); }).join(",")];
    b.models.forEach(function (m, i) {
      lines.push(cols.map(function (c, x) {
        return x < (S.site.displayColumn ? 2 : 1) ? csvText(c[1][i]) : c[1][i];
      }).join(","));
    });
    return lines.join("\n") + "\n";
  };

  function download(name, text, type) {
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    var a = S.el("a", { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  S.downloadCsv = function (level) {
    download(level + ".csv", S.csv(level), "text/csv;charset=utf-8");
  };

  // ------------------------------------------------------------------ the settings as YAML
  function target(config, entry) {
    if (entry.kind === "root") return config;
    if (entry.kind === "category") return config.categories[entry.node.name];
    var cat = config.categories[entry.cat.name];
    if (entry.kind === "benchmark") return cat.benchmarks[entry.node.name];
    return cat.benchmarks[entry.bench.name].metrics[entry.node.name];
  }

  // the board's config (its mapping, as config_to_dict writes it) with the changes written in
  S.changedConfig = function () {
    var config = JSON.parse(JSON.stringify(S.site.config));
    Object.keys(S.changes).forEach(function (path) {
      var entry = S.node(path);
      if (!entry) return;
      var node = target(config, entry);
      Object.keys(S.changes[path]).forEach(function (f) { node[f] = S.changes[path][f]; });
    });
    return config;
  };

  // a number YAML 1.1 reads as a float (or an int): "1e-05" is text to it, "1.0e-05" a float
  function yamlNumber(x) {
    if (Number.isInteger(x) && Math.abs(x) < 1e16) return String(x);
    var t = E().pyRepr(x);
    var at = t.indexOf("e");
    if (at > 0 && t.slice(0, at).indexOf(".") < 0) t = t.slice(0, at) + ".0" + t.slice(at);
    return t;
  }

  function scalar(v) {
    if (v === null || v === undefined) return "null";
    if (typeof v === "number") return yamlNumber(v);
    if (typeof v === "boolean") return v ? "true" : "false";
    return JSON.stringify(String(v));
  }

  function flow(v) {
    if (Array.isArray(v)) return "[" + v.map(flow).join(", ") + "]";
    if (v && typeof v === "object") {
      return "{" + Object.keys(v).map(function (k) {
        return JSON.stringify(k) + ": " + flow(v[k]);
      }).join(", ") + "}";
    }
    return scalar(v);
  }

  function isBlock(v) {
    return v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length &&
      Object.keys(v).some(function (k) { return v[k] && typeof v[k] === "object"; });
  }

  function block(map, pad) {
    return Object.keys(map).map(function (k) {
      var v = map[k], key = pad + JSON.stringify(k) + ":";
      if (Array.isArray(v) && v.length) {
        return key + "\n" + v.map(function (x) { return pad + "  - " + flow(x); }).join("\n");
      }
      return isBlock(v) ? key + "\n" + block(v, pad + "  ") : key + " " + flow(v);
    }).join("\n");
  }

  S.yaml = function () {
    var title = String(S.bundle.title || "").replace(/[\r\n]+/g, " ");
    return "# The settings of " + title + " as a config file (ml-peg-like score accepts it),\n" +
      "# written by its published leaderboard: the defaults with these changes:\n# " +
      (S.query() || "(none)").replace(/[\r\n]+/g, " ") + "\n" + block(S.changedConfig(), "") + "\n";
  };

  S.downloadYaml = function () { download("settings.yml", S.yaml(), "application/yaml"); };
})();
