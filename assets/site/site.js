/* The published leaderboard (ml-peg-like publish): a static page that scores the board in the
 * browser with the project's engine (engine.js), draws the curve with curve.js, parses boxes and
 * writes links with edit.js's rules (window.mplEditRules) and formats numbers with the grid's
 * functions (dashAgGridFunctions.js). No server of the project: every file is static.
 *
 * The state is the dashboard's: the changes from the defaults ({key path: {field: value}}), the
 * view (a key path, "" = overview), the selected metric, the model filter, in the same URL query
 * (?v=&m=&missing=&s=&f=&show=&sort=). Views are modules (siteviews.js): mplSite.defineView(name,
 * {columns, settings}) for the board's views and mplSite.definePage(name, {title, render}) for a
 * view of its own (?v=NAME). Data are text: every name reaches the page through textContent. */
(function () {
  "use strict";
  var own = Object.prototype.hasOwnProperty;
  var Q = { view: "v", metric: "m", missing: "missing", state: "s", filter: "f", show: "show",
            sort: "sort" };
  var MISSING = "\u2014";
  //: the grid's colour stops (ml_peg_like/dashboard/firstview.py SCORE_STOPS; a test holds them)
  var SCORE_STOPS = [[0.0, [243, 168, 160]], [0.5, [252, 212, 150]], [1.0, [160, 214, 165]]];
  var ROOT = "";

  var S = {
    bundle: null, site: null, board: null, res: null, base: null, delta: null,
    changes: {}, view: "", metric: "", filter: null, filterText: "", show: "raw", sort: null,
    params: {},
    index: null, edits: 0, views: {}, pages: {}, listeners: [], problems: {}
  };
  window.mplSite = S;

  S.defineView = function (kind, mod) { S.views[kind] = mod; };
  S.definePage = function (name, mod) { S.pages[name] = mod; };
  S.listen = function (fn) { S.listeners.push(fn); };

  function $(id) { return document.getElementById(id); }
  function E() { return window.mplEngine; }
  function F() { return window.dashAgGridFunctions; }
  function R() { return window.mplEditRules; }

  S.el = function (tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) {
        e.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
      }
    });
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };

  function status(text) { $("status").textContent = text || ""; }
  S.status = status;

  // ------------------------------------------------------------------ the board's tree
  function indexTree(bundle) {
    var ix = { nodes: {}, column: {}, metrics: [], benches: [], cats: [], benchByName: {} };
    ix.nodes[ROOT] = { kind: "root", node: bundle };
    bundle.categories.forEach(function (c, ci) {
      ix.nodes[c.path] = { kind: "category", node: c, i: ci };
      ix.cats.push(c);
      c.benchmarks.forEach(function (b) {
        ix.nodes[b.path] = { kind: "benchmark", node: b, i: ix.benches.length, cat: c };
        ix.benchByName[b.name] = ix.benchByName[b.name] ? null : b.path;
        ix.benches.push(b);
        b.metrics.forEach(function (m) {
          ix.nodes[m.path] = { kind: "metric", node: m, i: ix.metrics.length, bench: b, cat: c };
          ix.column[m.path] = ix.metrics.length;
          ix.metrics.push(m);
        });
      });
    });
    return ix;
  }
  S.node = function (path) { return own.call(S.index.nodes, path) ? S.index.nodes[path] : null; };

  function paramDefault(m, field) {
    var decl = S.bundle.normalisers[m.fields.normaliser || "linear"] || { params: [] };
    var p = decl.params.filter(function (q) { return q.name === field; })[0];
    return p ? p.default : null;
  }

  // the default value of a box (live.js defaultValue's rule)
  S.defaultValue = function (path, field) {
    var entry = S.node(path);
    if (!entry) return null;
    var node = entry.node;
    if (entry.kind !== "metric") {
      if (field === "weight") return entry.kind === "root" ? null : node.weight;
      if (field === "missing") return node.missing || S.bundle.missing;
      return null;
    }
    if (own.call(node.fields, field)) return node.fields[field];
    return field === "weight" ? 1 : paramDefault(node, field);
  };

  // a field's value now: the changes', else the defaults' (a category without a policy of its
  // own follows the board's)
  S.current = function (path, field, changes) {
    changes = changes || S.changes;
    var ch = changes[path];
    if (ch && own.call(ch, field)) return ch[field];
    var entry = S.node(path);
    if (field === "missing" && entry && entry.kind === "category" && !entry.node.missing) {
      return S.current(ROOT, "missing", changes);
    }
    return S.defaultValue(path, field);
  };

  // ------------------------------------------------------------------ scoring
  function rescore(changes) {
    var res = E().score(S.board, changes);
    if (res.errors && res.errors.length) return res.errors;
    S.changes = changes;
    S.res = res;
    S.delta = E().rankChange(S.base, res);
    return [];
  }

  // what a column kind shows for model i of an n-model board: the engine's result
  var CELL = {
    o: function (res, i) { return res.overall[i]; },
    c: function (res, i, j, n) { return res.cat[i + j * n]; },
    b: function (res, i, j, n) { return res.bench[i + j * n]; },
    s: function (res, i, j, n) { return res.metric[i + j * n]; },
    r: function (res, i, j, n) { return S.board.raw[i + j * n]; },
    cov: function (res, i) { return res.coverage ? res.coverage.overall[i] : NaN; },
    ccov: function (res, i, j, n) { return res.coverage ? res.coverage.cat[i + j * n] : NaN; },
    rank: function (res, i) { return res.ranks[i]; }
  };

  // the value a column kind shows for model i (null: none)
  S.value = function (i, kind, j) {
    var f = CELL[kind];
    var v = f ? f(S.res, i, j, S.bundle.models.length) : NaN;
    return typeof v === "number" && v === v ? v : null;
  };

  S.reasonText = function (i, kind, j) {
    var n = S.bundle.models.length;
    var codes = { o: S.res.reasons.overall, c: S.res.reasons.cat, b: S.res.reasons.bench }[kind];
    var code = codes ? codes[kind === "o" ? i : i + j * n] : 0;
    return S.site.reasons[String(code)] || "no data";
  };

  // ------------------------------------------------------------------ numbers as shown
  S.fmtScore = function (v) { return F().fmtScore(v, S.bundle.scale || 1); };
  S.fmtRaw = function (v) { return F().fmtRaw(v); };
  S.fmtCoverage = function (v) { return F().fmtCoverage(v); };
  S.fmtRank = function (i) {
    var r = S.res.ranks[i];
    if (r === null || r === undefined) return MISSING;
    return (S.res.tied[i] ? "=" : "") + r;
  };
  S.fmtDelta = function (i) {
    var w = S.delta.word[i];
    return w ? w : F().fmtDelta(S.delta.delta[i]);
  };
  S.isDark = function () { return document.documentElement.getAttribute("data-theme") === "dark"; };
  S.colour = function (s) { return F().scoreColor(s, S.isDark()); };
  S.displayName = function (i) { return S.site.names[i] || S.bundle.models[i]; };

  // ------------------------------------------------------------------ the URL
  function b64bytes(body) {
    var b = body.replace(/-/g, "+").replace(/_/g, "/");
    var bin = atob(b + "===".slice((b.length + 3) % 4));
    var out = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) out[k] = bin.charCodeAt(k);
    return out;
  }

  function inflate(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).arrayBuffer().then(function (buf) { return new Uint8Array(buf); });
  }

  // the JSON of a link's "j..." (base64url) or "z..." (deflated) text (state.py encode_changes)
  function decodeJson(text) {
    if (!text) return Promise.resolve(null);
    var kind = text.charAt(0);
    return Promise.resolve().then(function () {
      var bytes = b64bytes(text.slice(1));
      if (kind === "z") return inflate(bytes);
      if (kind !== "j") throw new Error("unknown encoding");
      return bytes;
    }).then(function (bytes) {
      return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    });
  }

  function isMapping(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

  function linkChanges(data) {
    if (data === null) return {};
    if (!isMapping(data)) throw new Error("not a mapping of key path to fields");
    Object.keys(data).forEach(function (k) {
      if (!isMapping(data[k])) throw new Error("not a mapping of key path to fields");
    });
    return data;
  }

  // the state of a query: a Promise of {view, metric, changes, filter, show, sort, problem}
  S.readQuery = function (search) {
    var q = new URLSearchParams(search || "");
    var st = { view: canonicalView(q.get(Q.view) || ""), metric: q.get(Q.metric) || "",
               filterText: q.get(Q.filter) || "", show: q.get(Q.show) || "raw",
               sort: parseSort(q.get(Q.sort)), problem: "" };
    var policy = q.get(Q.missing);
    var known = Object.keys(Q).map(function (k) { return Q[k]; });
    var mine = pageKeys();
    // the views of their own's keys (Explore's x, y, c, axes; Compare's models)
    st.params = {};
    mine.forEach(function (k) { if (q.has(k)) st.params[k] = q.get(k); });
    // what the site does not show (the dashboard's pinned baseline, its digits): kept in links
    st.extra = Array.from(q.entries()).filter(function (kv) {
      return known.indexOf(kv[0]) < 0 && mine.indexOf(kv[0]) < 0;
    });
    return decodeJson(q.get(Q.state) || "").then(linkChanges, function (e) {
      st.problem = "the settings in the link are not readable (" + e.message + ")";
      return {};
    }).then(function (changes) {
      changes = changes || {};
      if (policy) changes[ROOT] = Object.assign({}, changes[ROOT] || {}, { missing: policy });
      st.changes = changes;
      return decodeJson(st.filterText).catch(function () { return null; });
    }).then(function (filter) {
      st.filter = filter;
      return st;
    }).catch(function (e) {
      st.problem = "the settings in the link are not readable (" + e.message + ")";
      st.changes = {};
      return st;
    });
  };

  // the query keys the views of their own read (module.keys)
  function pageKeys() {
    var out = [];
    Object.keys(S.pages).forEach(function (name) { out = out.concat(S.pages[name].keys || []); });
    return out;
  }

  function canonicalView(v) {
    if (!v || own.call(S.pages, v)) return v;
    var entry = S.node(v);
    if (entry && (entry.kind === "category" || entry.kind === "benchmark")) return v;
    var full = S.index.benchByName[v];
    return full || "";
  }

  function parseSort(text) {
    var m = /^(.+)\.(asc|desc)$/.exec(text || "");
    return m ? { col: m[1], dir: m[2] } : null;
  }

  // the query of a state (state.py make_query's order and encodings)
  S.query = function (st) {
    st = st || S;
    var q = new URLSearchParams();
    if (st.view) q.set(Q.view, st.view);
    if (st.metric) q.set(Q.metric, st.metric);
    var changes = Object.assign({}, st.changes);
    var policy = (changes[ROOT] || {}).missing;
    if (policy) {
      q.set(Q.missing, policy);
      delete changes[ROOT];
    }
    var enc = R().encodeChanges(changes);
    if (enc) q.set(Q.state, enc);
    if (st.filterText) q.set(Q.filter, st.filterText);
    if (st.show && st.show !== "raw") q.set(Q.show, st.show);
    if (st.sort) q.set(Q.sort, st.sort.col + "." + st.sort.dir);
    // the open view of its own adds its selection, as the dashboard does (after the rest)
    var page = own.call(S.pages, st.view || "") ? S.pages[st.view] : null;
    if (page && page.query) {
      page.query(st.params || {}, st).forEach(function (kv) { q.append(kv[0], kv[1]); });
    }
    (st.extra || []).forEach(function (kv) { q.append(kv[0], kv[1]); });
    var text = q.toString();
    return text ? "?" + text : "";
  };

  function writeUrl(push) {
    var url = location.pathname + S.query();
    if (url === location.pathname + location.search) return;
    if (push) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  }
  S.writeUrl = writeUrl;

  // ------------------------------------------------------------------ the model filter
  function cardValue(model, attr) {
    var items = S.site.cards[model] || [];
    for (var k = 0; k < items.length; k++) if (items[k][0] === attr) return items[k][1];
    return null;
  }

  function passes(model, f) {
    if (Array.isArray(f.p) && f.p.length && f.p.indexOf(model) < 0) return false;
    var a = isMapping(f.a) ? f.a : {};
    return Object.keys(a).every(function (attr) {
      return !Array.isArray(a[attr]) || a[attr].indexOf(cardValue(model, attr)) >= 0;
    });
  }

  // the models shown (indices, board order): the filter's, else all
  S.shownModels = function () {
    var models = S.bundle.models, out = [];
    for (var i = 0; i < models.length; i++) {
      if (!isMapping(S.filter) || passes(models[i], S.filter)) out.push(i);
    }
    return out;
  };

  // the filter box: the models whose name or key holds the text, as the dashboard's filter of
  // picked models ({p: [...]}, ?f=); no text, or no model matches: every model
  function findModels(text) {
    var t = text.trim().toLowerCase();
    if (!t) return null;
    var picks = S.bundle.models.filter(function (m, i) {
      return m.toLowerCase().indexOf(t) >= 0 || S.displayName(i).toLowerCase().indexOf(t) >= 0;
    });
    return picks.length ? { p: picks } : null;
  }

  function onFind() {
    var f = findModels($("model-filter").value);
    S.filter = f;
    S.filterText = f ? R().encodeChanges(f) : "";
    status(f ? "" : $("model-filter").value.trim() ? "No model matches: every model shown" : "");
    writeUrl(false);
    S.render();
  }

  // ------------------------------------------------------------------ drawing
  S.render = function () {
    var page = S.pages[S.view];
    $("board").textContent = "";
    $("settings").textContent = "";
    drawCrumbs();
    drawViews();
    if (page) {
      S.viewPaths = null; // a view of its own has boxes only when it says so (settings)
      page.render($("board"), S);
      if (page.settings) S.drawSettings(page);
      $("curve").hidden = true;
    } else {
      var kind = viewKind();
      S.drawTable(S.views[kind], kind);
      S.drawSettings(S.views[kind]);
      S.drawCurve();
    }
    drawResetAll();
    S.listeners.forEach(function (fn) { fn(S); });
    painted();
  };

  // when the rows just drawn were painted (performance.now(); the benchmark reads it): the
  // frame that shows them, then the task after it
  function painted() {
    var n = (S.renders = (S.renders || 0) + 1);
    requestAnimationFrame(function () {
      setTimeout(function () {
        if (S.renders === n) S.paintedAt = performance.now();
      }, 0);
    });
  }

  function viewKind() {
    var entry = S.node(S.view);
    return entry ? entry.kind : "root";
  }
  S.viewKind = viewKind;

  S.link = function (patch, text, attrs) {
    var st = Object.assign({}, S, patch);
    var a = S.el("a", Object.assign({ href: S.query(st) || "?" }, attrs || {}), text);
    a.addEventListener("click", function (ev) {
      if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
      ev.preventDefault();
      S.go(patch);
    });
    return a;
  };

  // navigate: a new view or metric (a history entry)
  S.go = function (patch) {
    Object.assign(S, patch);
    writeUrl(true);
    S.render();
  };

  function drawCrumbs() {
    var nav = $("crumbs");
    nav.textContent = "";
    nav.appendChild(S.link({ view: "", metric: "" }, "Overview"));
    var entry = S.node(S.view);
    var trail = [];
    if (entry && entry.kind === "benchmark") trail = [entry.cat, entry.node];
    else if (entry && entry.kind === "category") trail = [entry.node];
    else if (own.call(S.pages, S.view)) trail = [{ name: S.pages[S.view].title }];
    trail.forEach(function (n, k) {
      nav.appendChild(document.createTextNode(" \u203a "));
      if (k === trail.length - 1) nav.appendChild(S.el("span", { "aria-current": "page" }, n.name));
      else nav.appendChild(S.link({ view: n.path, metric: "" }, n.name));
    });
  }

  function drawViews() {
    var nav = $("views");
    nav.textContent = "";
    var list = S.el("ul");
    S.index.cats.forEach(function (c) {
      var li = S.el("li");
      li.appendChild(S.link({ view: c.path, metric: "" }, c.name,
                            { "aria-current": S.view === c.path ? "page" : null }));
      var entry = S.node(S.view);
      if (entry && (entry.node === c || entry.cat === c)) li.appendChild(benchList(c));
      list.appendChild(li);
    });
    Object.keys(S.pages).forEach(function (name) {
      if (S.pages[name].hidden) return;
      var li = S.el("li", { class: "page" });
      li.appendChild(S.link({ view: name, metric: "" }, S.pages[name].title,
                            { "aria-current": S.view === name ? "page" : null }));
      list.appendChild(li);
    });
    nav.appendChild(list);
  }

  function benchList(c) {
    var ul = S.el("ul");
    c.benchmarks.forEach(function (b) {
      var li = S.el("li");
      li.appendChild(S.link({ view: b.path, metric: "" }, b.name,
                            { "aria-current": S.view === b.path ? "page" : null }));
      ul.appendChild(li);
    });
    return ul;
  }

  function countChanges() {
    var n = 0;
    Object.keys(S.changes).forEach(function (p) { n += Object.keys(S.changes[p]).length; });
    return n;
  }

  function drawResetAll() {
    var n = countChanges();
    $("reset-all").textContent = n ? "Reset all (" + n + ")" : "Reset all";
    $("reset-all").disabled = n === 0;
  }

  // ------------------------------------------------------------------ edits
  function clone(changes) {
    var out = {};
    Object.keys(changes).forEach(function (p) { out[p] = Object.assign({}, changes[p]); });
    return out;
  }

  function same(a, b) {
    if (typeof a === "number" && typeof b === "number") return a === b;
    if (isMapping(a) && isMapping(b)) return a.model === b.model;
    return a === b;
  }

  // the default a change is compared with (state.py effective_changes): a category's own
  // policy (none when it follows the board's: then any policy chosen for it is a change)
  function ownDefault(path, field) {
    var entry = S.node(path);
    if (field === "missing" && entry && entry.kind === "category") return entry.node.missing;
    return S.defaultValue(path, field);
  }

  // changes + one field's new value (a value equal to the default is dropped)
  S.withValue = function (changes, path, field, value) {
    var out = clone(changes);
    out[path] = out[path] || {};
    if (same(value, ownDefault(path, field))) delete out[path][field];
    else out[path][field] = value;
    if (!Object.keys(out[path]).length) delete out[path];
    return out;
  };

  // try new changes: [] and everything redrawn, or the engine's problems (nothing changes)
  S.apply = function (changes, push) {
    var problems = rescore(changes);
    if (problems.length) return problems;
    S.edits += 1;
    writeUrl(push !== false);
    S.render();
    status(R().linkWarning(S.query()) || ""); // a link over 8 KB: said, with what to do
    return [];
  };

  // a box committed (Enter, a change, leaving it): its text parsed as the dashboard does
  S.commit = function (path, field, text) {
    var value = R().parseBox(text);
    if (value === "") return [{ where: path + "." + field, message: "empty: type a number" }];
    if (same(value, S.current(path, field))) return [];
    return S.apply(S.withValue(S.changes, path, field, value));
  };

  S.resetPaths = function (paths) {
    var out = clone(S.changes);
    paths.forEach(function (p) { delete out[p]; });
    return S.apply(out);
  };

  // ------------------------------------------------------------------ start
  function readBoard() {
    var el = $("mpl-board");
    if (el) return Promise.resolve(JSON.parse(el.textContent));
    return fetch("board.json").then(function (r) {
      if (!r.ok) throw new Error("board.json: HTTP " + r.status);
      return r.json();
    });
  }

  function applyTheme(dark) {
    document.documentElement.setAttribute("data-theme", dark ? "dark" : "light");
    $("theme").setAttribute("aria-pressed", dark ? "true" : "false");
    $("theme").textContent = dark ? "Light" : "Dark";
  }

  function fromQuery(st) {
    S.view = st.view;
    S.metric = st.metric;
    S.filter = st.filter;
    S.filterText = st.filterText;
    S.show = st.show === "score" ? "score" : "raw";
    S.sort = st.sort;
    S.extra = st.extra;
    S.params = st.params || {};
    var problems = rescore(st.changes);
    if (problems.length) {
      rescore({});
      status("The settings in the link were refused: " + problems.map(function (p) {
        return p.where + ": " + p.message;
      }).join("; "));
    } else {
      status(st.problem);
    }
  }

  function restore() {
    return S.readQuery(location.search).then(function (st) {
      fromQuery(st);
      S.render();
    });
  }

  function wire() {
    $("reset-all").addEventListener("click", function () { S.apply({}); });
    $("reset-view").addEventListener("click", function () {
      S.resetPaths(S.viewPaths ? S.viewPaths() : []);
    });
    $("csv").addEventListener("click", function () { S.downloadCsv($("csv-level").value); });
    $("yaml").addEventListener("click", function () { S.downloadYaml(); });
    $("theme").addEventListener("click", function () {
      applyTheme(!S.isDark());
      S.render();
    });
    $("card-close").addEventListener("click", function () { $("card").hidden = true; });
    var timer = null;
    $("model-filter").addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(onFind, 150);
    });
    window.addEventListener("popstate", restore);
  }

  function start(data) {
    S.bundle = data.bundle;
    S.site = data.site;
    window.mplNames = { scoreStops: SCORE_STOPS, digits: 3, reasons: data.site.reasons,
                        qState: Q.state };
    S.index = indexTree(S.bundle);
    S.board = E().prepare(S.bundle);
    S.base = E().score(S.board, {});
    S.res = S.base;
    S.delta = E().rankChange(S.base, S.base);
    wire();
    return restore();
  }

  function boot() {
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    applyTheme(!!dark);
    readBoard().then(start).catch(function (e) {
      $("board").textContent = "";
      $("board").appendChild(S.el("p", { class: "error" }, "The board cannot be shown: " +
                                  (e && e.message ? e.message : String(e))));
    });
  }

  S.SCORE_STOPS = SCORE_STOPS;
  document.addEventListener("DOMContentLoaded", boot);
})();
