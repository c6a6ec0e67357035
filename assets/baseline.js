/* The pinned baseline and the readable list of the changes (components/board/baseline.py).
 *
 * mplBaseline.sync: the baseline store ({changes, n, pinned[, result]}, or null for the
 * published settings; written by the server on "Compare against this view", "Unpin" or a link
 * with b=) goes to the live result (mplLive.setBaseline: scored once per pin with the
 * JavaScript engine), the grid's rank change and score change cells are redrawn, and the line
 * says what the baseline is. An edit then needs no request: the baseline's scores are kept.
 * mplBaseline.list: the changes store as a list of readable items ("Iris / Accuracy: good 1 →
 * 0.9"), updated on every edit; each item is a button that opens the view holding its box
 * (a navigation request in the `want` store, as the sidebar's buttons write it).
 * fmtScoreChange: the score change column's text (signed, "—" without a score in either).
 * Names come from Python: window.mplNames. */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});
  var dagfuncs = (window.dashAgGridFunctions = window.dashAgGridFunctions || {});
  var own = Object.prototype.hasOwnProperty;
  var MISSING = "\u2014";
  var ARROW = " \u2192 ";
  var PATH_ATTR = "data-path";
  var FIELD_ATTR = "data-field";
  var ITEM_CLASS = "change-item"; // assets/baseline.css
  var UNSCORED = "Compared with: the published settings (the pinned view cannot be scored)";

  function N() {
    return window.mplNames || {};
  }

  function L() {
    return window.mplLive;
  }

  function count(changes) {
    var n = 0;
    for (var p in changes || {}) if (own.call(changes, p)) n += Object.keys(changes[p]).length;
    return n;
  }

  function plural(n) {
    return n + " change" + (n === 1 ? "" : "s");
  }

  function clock(d) {
    var pad = function (x) { return (x < 10 ? "0" : "") + x; };
    return pad(d.getHours()) + ":" + pad(d.getMinutes());
  }

  // the line that names the baseline
  function describe(base) {
    if (!base || !base.changes) return "Compared with: the published settings";
    var n = plural(typeof base.n === "number" ? base.n : count(base.changes));
    if (base.pinned) return "Compared with: your view of " + clock(new Date()) + ", " + n;
    return "Compared with: the pinned view of the link, " + n;
  }

  // ---------------------------------------------------------------- the grid's formatter
  dagfuncs.fmtScoreChange = function (v, scale) {
    if (typeof v !== "number" || !isFinite(v)) return MISSING;
    if (v === 0) return "";
    var text = dagfuncs.fmtScore ? dagfuncs.fmtScore(Math.abs(v), scale) : String(Math.abs(v));
    return (v > 0 ? "+" : "\u2212") + text;
  };

  // ---------------------------------------------------------------- the tree's nodes
  // {key path: {kind, label, view, metric}}: the item's words and the view that holds its box
  var nodes = null;

  function index() {
    if (nodes) return nodes;
    var b = L() && L().boot() ? L().bundle : null;
    if (!b) return {};
    nodes = { "": { label: "Missing data", view: "", metric: "" } };
    (b.categories || []).forEach(function (c) {
      nodes[c.path] = { label: c.name, view: "", metric: "" };
      c.benchmarks.forEach(function (bm) {
        nodes[bm.path] = { label: c.name + " / " + bm.name, view: c.path, metric: "" };
        bm.metrics.forEach(function (m) {
          nodes[m.path] = { label: bm.name + " / " + m.name, view: bm.path, metric: m.path };
        });
      });
    });
    return nodes;
  }

  function valueText(v) {
    if (v === null || v === undefined) return "(not set)";
    if (typeof v === "object" && own.call(v, "model")) return "model:" + v.model;
    return String(v);
  }

  function itemText(path, field, value) {
    var node = index()[path] || { label: path };
    var old = L().defaultValue(path, field);
    var name = path === "" ? "" : field + " ";
    return node.label + ": " + name + valueText(old) + ARROW + valueText(value);
  }

  function button(path, field, value) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = ITEM_CLASS;
    b.setAttribute(PATH_ATTR, path);
    b.setAttribute(FIELD_ATTR, field);
    b.textContent = itemText(path, field, value); // text, never HTML
    b.title = (path || "the board") + "." + field + ": open the view that holds this box";
    return b;
  }

  function fill(holder, changes) {
    while (holder.firstChild) holder.removeChild(holder.firstChild);
    var paths = Object.keys(changes || {}).sort();
    var frag = document.createDocumentFragment();
    paths.forEach(function (p) {
      Object.keys(changes[p]).sort().forEach(function (f) {
        frag.appendChild(button(p, f, changes[p][f]));
      });
    });
    holder.appendChild(frag);
  }

  function want(node) {
    var w = {};
    w[N().viewPath] = node.view;
    w[N().viewMetric] = node.metric;
    w[N().wantTime] = Date.now();
    return w;
  }

  // an item's click: open the view holding its box (the sidebar's kind of request)
  document.addEventListener("click", function (e) {
    var target = e.target;
    if (!target || typeof target.closest !== "function" || !dc.set_props) return;
    var b = target.closest("button." + ITEM_CLASS);
    if (!b || !b.parentElement || b.parentElement.id !== N().changesList) return;
    var node = index()[b.getAttribute(PATH_ATTR)];
    if (node) dc.set_props(N().want, { data: want(node) });
  });

  dc.mplBaseline = {
    // the baseline store -> the live result, the grid, the line naming it, Unpin's state
    sync: function (base) {
      var live = L();
      var ok = true;
      if (live && live.boot()) {
        ok = live.setBaseline(base && base.changes ? base.changes : null, base && base.result);
        live.refreshGrid();
      }
      if (!ok) return [UNSCORED, true];
      return [describe(base), !(base && base.changes)];
    },
    // the changes store -> the readable list (its items are drawn here: Dash sees one count)
    list: function (changes) {
      var holder = document.getElementById(N().changesList);
      if (!holder || !L() || !L().boot()) return dc.no_update;
      fill(holder, changes || {});
      var n = count(changes);
      return n ? "Your changes (" + n + "):" : "No changes from the published settings";
    },
  };
})();
