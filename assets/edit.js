/* A box edit, answered in the browser (a Dash clientside callback: components/editing/liveedit.py).
 *
 * Enter (or leaving the box) in a threshold, parameter or weight box: the box's text becomes a
 * value (parseBox, the twin of dashboard/state.py parse_box), the new changes are scored by the
 * engine (mplLive.setChanges), the grid redraws its cells and its order, and the changes, the
 * URL and the boxes' marks are returned to Dash. A refused value (the engine names the problem
 * as PATH.FIELD: message) turns the box red with the message beside its row; the scores, the
 * changes and the URL keep their last good values. The server hears of the new changes through
 * the changes store afterwards (stability intervals, dominance, Explore: what needs Python).
 * Names come from Python: window.mplNames. */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});
  var own = Object.prototype.hasOwnProperty;

  function N() {
    return window.mplNames || {};
  }

  // ---------------------------------------------------------------- values (state.py's twins)
  function parseBox(text) {
    if (text === null || text === undefined) return "";
    if (typeof text === "number" || typeof text === "boolean") return text;
    var s = String(text).trim();
    var low = s.toLowerCase();
    if (low.indexOf("model:") === 0) return { model: s.slice(6).trim() };
    if (/^[+-]?(inf|infinity)$/.test(low)) return low.charAt(0) === "-" ? -Infinity : Infinity;
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(low)) return Number(s);
    return s;
  }

  function sameValue(a, b) {
    if (typeof a === "number" && typeof b === "number") return a === b;
    if (a && b && typeof a === "object" && typeof b === "object") return a.model === b.model;
    return a === b;
  }

  function clone(changes) {
    var out = {};
    for (var p in changes || {}) {
      if (own.call(changes, p)) out[p] = Object.assign({}, changes[p]);
    }
    return out;
  }

  // the value a field has now (the changes', else the defaults')
  function current(changes, path, field) {
    return window.mplLive.current(path, field, changes);
  }

  // the changes with the edits applied, fields equal to the defaults dropped
  function applyEdits(changes, edits) {
    var out = clone(changes);
    var problems = [];
    edits.forEach(function (e) {
      var v = parseBox(e.text);
      if (v === "") {
        problems.push({ where: e.path + "." + e.field, message: "empty: type a number" });
        return;
      }
      if (sameValue(v, current(changes, e.path, e.field))) return; // as it is: no change
      var dflt = window.mplLive.defaultValue(e.path, e.field);
      out[e.path] = out[e.path] || {};
      if (sameValue(v, dflt)) delete out[e.path][e.field];
      else out[e.path][e.field] = v;
      if (!Object.keys(out[e.path]).length) delete out[e.path];
    });
    return { changes: out, problems: problems };
  }

  // ---------------------------------------------------------------- the URL's state (?s=)
  // "j" + base64url of the compact JSON with sorted keys (state.py encode_changes; the server
  // reads it, and its own deflated "z" form, alike)
  function sortedJson(v) {
    if (Array.isArray(v)) return "[" + v.map(sortedJson).join(",") + "]";
    if (v && typeof v === "object") {
      return "{" + Object.keys(v).sort().map(function (k) {
        return JSON.stringify(k) + ":" + sortedJson(v[k]);
      }).join(",") + "}";
    }
    if (typeof v === "number" && !isFinite(v)) return v > 0 ? '"inf"' : '"-inf"';
    return JSON.stringify(v);
  }

  function encodeChanges(changes) {
    if (!Object.keys(changes).length) return "";
    var bytes = new TextEncoder().encode(sortedJson(changes));
    var bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return "j" + btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function withState(qs, encoded) {
    var params = new URLSearchParams(qs || "");
    if (encoded) params.set(N().qState, encoded);
    else params.delete(N().qState);
    var text = params.toString();
    return text ? "?" + text : "";
  }

  // a link longer than what common servers and proxies accept on a request line (gunicorn's
  // largest limit is 8190 bytes; docs/DEPLOY.md): said, with what to do instead
  var LINK_WARN = 8000;

  function linkWarning(query) {
    var n = location.pathname.length + query.length;
    if (n <= LINK_WARN) return null;
    return "The link to these settings is " + (n / 1024).toFixed(1) + " KB: servers and " +
      "proxies may refuse links over 8 KB. To share them, export the settings (Config YAML) " +
      "and upload them on the other side.";
  }

  // ---------------------------------------------------------------- problems per box
  // {"PATH.FIELD": message} of the metrics left unscored by a {model: NAME} threshold (the
  // engine's warnings name them as "PATH.FIELD: ...")
  function thresholdProblems(res) {
    var out = {};
    (res.warnings || []).forEach(function (w) {
      var cut = w.indexOf(": ");
      if (cut > 0) out[w.slice(0, cut)] = w.slice(cut + 2);
    });
    return out;
  }

  function rowMessage(path, problems) {
    var msgs = [];
    for (var where in problems) {
      if (own.call(problems, where) && where.slice(0, path.length + 1) === path + ".") {
        msgs.push(problems[where]);
      }
    }
    return msgs.join("; ");
  }

  function boxClass(changed, problem) {
    if (problem) return N().boxInvalid;
    return changed ? N().boxModified : N().boxPlain;
  }

  function countChanges(changes) {
    var n = 0;
    for (var p in changes) if (own.call(changes, p)) n += Object.keys(changes[p]).length;
    return n;
  }

  // ---------------------------------------------------------------- the callback
  function edits(trig, boxes, changes) {
    var out = [];
    boxes.forEach(function (b) {
      if (b.id.path !== trig.path) return;
      if (b.id.field === trig.field) {
        out.unshift({ path: b.id.path, field: b.id.field, text: b.value });
        return;
      }
      // another box of the same row still holding a refused value is retried with it
      if (!sameValue(parseBox(b.value), current(changes, b.id.path, b.id.field))) {
        out.push({ path: b.id.path, field: b.id.field, text: b.value });
      }
    });
    return out;
  }

  function marks(boxes, msgIds, pending, path, classOf, message) {
    var classes = boxes.map(function (b) {
      var key = b.id.path + "." + b.id.field;
      return own.call(pending, key) ? classOf(b.id.path, b.id.field) : dc.no_update;
    });
    var msgs = msgIds.map(function (m) {
      return m.path === path ? message : dc.no_update;
    });
    return [classes, msgs];
  }

  function refused(boxes, msgIds, pending, path, problems) {
    var message = problems.filter(function (p) {
      return p.where.slice(0, path.length + 1) === path + "." || p.where === path;
    }).map(function (p) { return p.message; });
    var text = Array.from(new Set(message.length ? message : problems.map(function (p) {
      return p.where ? p.where + ": " + p.message : p.message;
    }))).join("; ");
    var m = marks(boxes, msgIds, pending, path, function () { return N().boxInvalid; }, text);
    var nu = dc.no_update;
    return [nu, nu, nu, m[0], m[1], nu, nu, nu, nu];
  }

  function unchanged(boxes, msgIds, pending, path, changes) {
    var tp = thresholdProblems(window.mplLive.res);
    var m = marks(boxes, msgIds, pending, path, function (p, f) {
      return boxClass(!!(changes[p] && own.call(changes[p], f)), tp[p + "." + f]);
    }, rowMessage(path, tp));
    var nu = dc.no_update;
    return [nu, nu, nu, m[0], m[1], nu, nu, nu, nu];
  }

  dc.mplEdit = {
    box: function (values, changes, qs, status, boxIds, msgIds) {
      var ctx = dc.callback_context;
      var trig = ctx && ctx.triggered_id;
      if (!trig || typeof trig !== "object" || !window.mplLive.boot()) {
        throw dc.PreventUpdate;
      }
      changes = changes || {};
      window.mplLive.edits += 1; // edits answered (a test waits for the next one)
      var boxes = boxIds.map(function (id, k) { return { id: id, value: values[k] }; });
      var list = edits(trig, boxes, changes);
      var pending = {};
      list.forEach(function (e) { pending[e.path + "." + e.field] = true; });
      var applied = applyEdits(changes, list);
      if (!applied.problems.length && sortedJson(applied.changes) === sortedJson(changes)) {
        // nothing changes (the server wrote the boxes: a link, a reset; or the same value
        // typed again): only the edited row's marks follow the state
        return unchanged(boxes, msgIds, pending, trig.path, changes);
      }
      var problems = applied.problems.length
        ? applied.problems
        : window.mplLive.setChanges(applied.changes);
      if (problems.length) return refused(boxes, msgIds, pending, trig.path, problems);

      window.mplLive.refreshGrid(); // the table: now, in this task
      window.mplLive.pending(true); // what needs Python follows the server's answer
      var now = applied.changes;
      var tp = thresholdProblems(window.mplLive.res);
      var m = marks(boxes, msgIds, pending, trig.path, function (p, f) {
        return boxClass(!!(now[p] && own.call(now[p], f)), tp[p + "." + f]);
      }, rowMessage(trig.path, tp));
      var n = countChanges(now);
      var query = withState(qs, encodeChanges(now));
      var outputs = [
        now,
        query,
        query,
        m[0],
        m[1],
        linkWarning(query) || (status ? null : dc.no_update), // a message lasts one action
        n ? "Reset all (" + n + ")" : "Reset all",
        n === 0,
        window.mplLive.edits,
      ];
      return afterPaint(outputs);
    },
  };

  // The table is drawn first: Dash's handling of the outputs (the stores, the URL, the boxes'
  // marks: ~20 ms of renderer and React work) and the curve's redraw (Plotly, 5-15 ms) wait
  // until the browser has painted the grid's new cells (a clientside callback may answer with
  // a Promise: Dash applies its outputs when it resolves).
  function afterPaint(outputs) {
    return new Promise(function (resolve) {
      requestAnimationFrame(function () {
        setTimeout(function () {
          window.mplLive.redraw();
          resolve(outputs);
        }, 0);
      });
    });
  }

  // for tests and the publishing page: the same rules
  window.mplEditRules = {
    parseBox: parseBox,
    encodeChanges: encodeChanges,
    sortedJson: sortedJson,
    linkWarning: linkWarning,
  };
})();
