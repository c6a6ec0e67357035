/*
 * The scoring engine in JavaScript: a board bundle (ml_peg_like/bundle.py) + changes ->
 * metric, benchmark, category and overall scores, coverage, reasons, vetoes and ranks.
 *
 * The Python engine (ml_peg_like.scoring, ml_peg_like.aggregation, ml_peg_like.normalisers)
 * is the reference: this file computes the same numbers (tests/test_engine_js.py holds them
 * equal in Chromium). Pure: no DOM, no Dash, no side effect but defining window.mplEngine in a
 * browser (module.exports in Node). See docs/ENGINE-JS.md.
 *
 * Matrices are Float64Arrays in column-major order: cell (model i, column j) of an n-model
 * matrix is at i + j * n. NaN = missing.
 */
(function (root, factory) {
  "use strict";
  // a page: only window.mplEngine (even if a script of the page defines a global ``module``)
  if (typeof window !== "undefined") window.mplEngine = factory();
  else if (typeof module === "object" && module && module.exports) module.exports = factory();
  else root.mplEngine = factory(); // a worker
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  /** Two overall scores tie when |a - b| <= RANK_RTOL * max(|a|, |b|). */
  var RANK_RTOL = 1e-9;
  /** Why a score is missing (ml_peg_like.aggregation): 0 = present. */
  var REASON = { PRESENT: 0, NO_DATA: 1, NO_THRESHOLD: 2, EXCLUDED: 3, INVALIDATED: 4 };
  var SKIP = "skip";
  var DATA_THRESHOLDS = ["best", "worst"];
  var NEW = "new";
  var NO_SCORE = "no score";
  var LN_09 = -Math.log(0.9);

  // ---------------------------------------------------------------------------------------
  // Python-like texts (the messages are the Python engine's)
  // ---------------------------------------------------------------------------------------

  var ESCAPES = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

  /** One character of a str's repr() (``q``: the quote in use). */
  function reprChar(ch, q) {
    if (ESCAPES[ch]) return ESCAPES[ch];
    if (ch === q) return "\\" + q;
    var code = ch.charCodeAt(0);
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) {
      return "\\x" + (code < 16 ? "0" : "") + code.toString(16);
    }
    return ch;
  }

  /** Python's repr() of a str. */
  function pyStrRepr(s) {
    var q = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'";
    var out = q;
    for (var k = 0; k < s.length; k++) out += reprChar(s[k], q);
    return out + q;
  }

  /** Digits and decimal exponent of |x| as toExponential gives them. */
  function expParts(x, digits) {
    var t = Math.abs(x).toExponential(digits);
    var at = t.indexOf("e");
    return { mant: t.slice(0, at).replace(".", ""), exp: parseInt(t.slice(at + 1), 10) };
  }

  function pyExp(e) {
    var a = Math.abs(e);
    return (e < 0 ? "e-" : "e+") + (a < 10 ? "0" : "") + a;
  }

  function nonFinite(x) {
    if (x !== x) return "nan";
    return x > 0 ? "inf" : "-inf";
  }

  /** Python's repr() of a float (shortest round-trip digits). */
  function pyFloatRepr(x) {
    if (!isFinite(x)) return nonFinite(x);
    if (x === 0) return 1 / x < 0 ? "-0.0" : "0.0";
    var p = expParts(x, undefined);
    var sign = x < 0 ? "-" : "";
    var d = p.mant;
    if (p.exp < -4 || p.exp >= 16) {
      return sign + d[0] + (d.length > 1 ? "." + d.slice(1) : "") + pyExp(p.exp);
    }
    return sign + fixedFrom(d, p.exp, true);
  }

  /** Digits d (d[0] at 10^e) as a fixed-point text; ``point``: always keep ".0". */
  function fixedFrom(d, e, point) {
    var s;
    if (e < 0) s = "0." + "0".repeat(-e - 1) + d;
    else if (d.length <= e + 1) s = d + "0".repeat(e + 1 - d.length) + (point ? ".0" : "");
    else s = d.slice(0, e + 1) + "." + d.slice(e + 1);
    return s;
  }

  /** Python's format(x, "g"): 6 significant digits, trailing zeros dropped. */
  function fmtG(x) {
    if (!isFinite(x)) return nonFinite(x);
    if (x === 0) return 1 / x < 0 ? "-0" : "0";
    var p = expParts(x, 5);
    var d = p.mant.replace(/0+$/, "");
    var sign = x < 0 ? "-" : "";
    if (p.exp < -4 || p.exp >= 6) {
      return sign + d[0] + (d.length > 1 ? "." + d.slice(1) : "") + pyExp(p.exp);
    }
    return sign + fixedFrom(d, p.exp, false);
  }

  /** Python's repr() of a JSON value (a whole number reads as a Python int). */
  function pyRepr(v) {
    if (v === null || v === undefined) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    if (typeof v === "number") {
      return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : pyFloatRepr(v);
    }
    if (typeof v === "string") return pyStrRepr(v);
    if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
    return (
      "{" +
      Object.keys(v)
        .map(function (k) {
          return pyStrRepr(k) + ": " + pyRepr(v[k]);
        })
        .join(", ") +
      "}"
    );
  }

  /** A value for a message, at most 60 characters (ml_peg_like.config.fields.fmt). */
  function fmt(v) {
    var t = pyRepr(v);
    return t.length <= 60 ? t : t.slice(0, 57) + "...";
  }

  // ---------------------------------------------------------------------------------------
  // One field of the config (ml_peg_like.config.fields): a problem names where it is
  // ---------------------------------------------------------------------------------------

  var FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
  var SPECIAL_TEXT = /^([+-]?)(inf|infinity|nan)$/i;

  /** Python's float(text): a number (NaN for "nan", +-Infinity for "inf"), null if refused. */
  function pyFloat(text) {
    var s = text.trim();
    var sp = SPECIAL_TEXT.exec(s);
    if (sp) {
      if (sp[2].toLowerCase() === "nan") return NaN;
      return sp[1] === "-" ? -Infinity : Infinity;
    }
    if (!FLOAT_TEXT.test(s)) return null;
    return Number(s.replace(/_/g, ""));
  }

  function isMapping(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  function parseNumber(value, where, problems) {
    var v = value;
    if (typeof v === "string") {
      v = pyFloat(v);
      if (v === null) {
        problems.push({ where: where, message: "expected a number, got " + fmt(value) });
        return null;
      }
    } else if (typeof v !== "number") {
      problems.push({ where: where, message: "expected a number, got " + fmt(value) });
      return null;
    }
    if (!isFinite(v)) {
      problems.push({ where: where, message: "expected a finite number, got " + pyFloatRepr(v) });
      return null;
    }
    return v;
  }

  function parseWeight(value, where, problems) {
    var n = problems.length;
    var w = parseNumber(value, where, problems);
    if (problems.length > n || w === null) return null;
    if (w < 0) {
      problems.push({ where: where, message: "weight must be >= 0, got " + fmtG(w) });
      return null;
    }
    return w;
  }

  /** A number, {model: NAME}, or (when dataOk) "best"/"worst". */
  function parseThreshold(value, where, problems, dataOk) {
    if (isMapping(value)) {
      var keys = Object.keys(value);
      var name = value.model;
      var ok = typeof name === "string" || typeof name === "number" || typeof name === "boolean";
      if (keys.length !== 1 || keys[0] !== "model" || !ok) {
        problems.push({
          where: where,
          message: "expected a number or {model: NAME}, got " + fmt(value),
        });
        return null;
      }
      var text = typeof name === "string" ? name : pyRepr(name);
      if (!text.trim()) {
        problems.push({ where: where, message: "model name is empty" });
        return null;
      }
      return { model: text };
    }
    if (typeof value === "string" && DATA_THRESHOLDS.indexOf(value.trim().toLowerCase()) >= 0) {
      if (!dataOk) {
        problems.push({ where: where, message: "'" + value + "' is allowed only for good and bad" });
        return null;
      }
      return value.trim().toLowerCase();
    }
    return parseNumber(value, where, problems);
  }

  function parseMissing(value, where, problems, policies) {
    if (value === null || value === undefined) return null;
    var v = (typeof value === "string" ? value : pyRepr(value)).trim().toLowerCase();
    if (policies.indexOf(v) < 0) {
      var names = policies.map(pyStrRepr).join(" or ");
      problems.push({ where: where, message: "expected " + names + ", got " + fmt(value) });
      return null;
    }
    return v;
  }

  function parseText(value, where, problems) {
    if (value === null || value === undefined) return;
    if (typeof value !== "string" && typeof value !== "number") {
      problems.push({ where: where, message: "expected text, got " + fmt(value) });
    }
  }

  function parseMeta(value, where, problems) {
    if (value === null || value === undefined) return;
    if (!isMapping(value)) {
      problems.push({ where: where, message: "expected a mapping of names to values" });
      return;
    }
    Object.keys(value).forEach(function (k) {
      var v = value[k];
      if (v !== null && typeof v === "object") {
        problems.push({ where: where + "." + k, message: "expected a plain value, got " + fmt(v) });
      }
    });
  }

  function checkKeys(raw, allowed, where, problems, what) {
    var names = allowed.slice().sort().join(", ");
    Object.keys(raw).forEach(function (k) {
      if (allowed.indexOf(k) < 0) {
        problems.push({
          where: where + "." + k,
          message: "unknown key for a " + what + " (allowed: " + names + ")",
        });
      }
    });
  }

  function has(raw, key) {
    return Object.prototype.hasOwnProperty.call(raw, key) && raw[key] !== null && raw[key] !== undefined;
  }

  function sameThreshold(a, b) {
    if (isMapping(a) && isMapping(b)) return a.model === b.model;
    return a === b;
  }

  /** Two numeric thresholds: they differ, and agree with ``better`` when it is given. */
  function checkNumberPair(good, bad, better, where, problems) {
    if (good === bad) {
      problems.push({ where: where + ".good", message: "good and bad must differ (both " + fmtG(good) + ")" });
    } else if (better && better !== (good < bad ? "lower" : "higher")) {
      problems.push({
        where: where + ".better",
        message: "says " + better + " is better but good=" + fmtG(good) + ", bad=" + fmtG(bad),
      });
    }
  }

  /** good/bad of a threshold normaliser (problems appended); [good, bad]. */
  function parseThresholds(raw, where, problems, norm, better) {
    var good = null;
    var bad = null;
    ["good", "bad"].forEach(function (key) {
      if (!has(raw, key)) {
        problems.push({ where: where + "." + key, message: "missing: '" + norm.name + "' needs good and bad" });
      }
    });
    if (has(raw, "good")) good = parseThreshold(raw.good, where + ".good", problems, true);
    if (has(raw, "bad")) bad = parseThreshold(raw.bad, where + ".bad", problems, true);
    if (typeof good === "number" && typeof bad === "number") {
      checkNumberPair(good, bad, better, where, problems);
    }
    var data = DATA_THRESHOLDS.indexOf(good) >= 0 || DATA_THRESHOLDS.indexOf(bad) >= 0;
    if (data && better === null) {
      problems.push({ where: where + ".better", message: "'best'/'worst' thresholds need better: lower|higher" });
    }
    if (good !== null && typeof good !== "number" && sameThreshold(good, bad)) {
      problems.push({ where: where + ".good", message: "good and bad must differ" });
    }
    return [good, bad];
  }

  function noThresholds(raw, where, problems, norm) {
    ["good", "bad"].forEach(function (key) {
      if (has(raw, key)) {
        var names = norm.params.map(function (p) { return p.name; }).join(", ");
        problems.push({
          where: where + "." + key,
          message: "'" + norm.name + "' takes no " + key + " threshold (its parameters: " + names + ")",
        });
      }
    });
  }

  function parseParam(spec, raw, where, problems, norm) {
    var pw = where + "." + spec.name;
    if (!has(raw, spec.name)) {
      if (spec["default"] === null && !spec.optional) {
        problems.push({ where: pw, message: "missing: '" + norm.name + "' needs " + spec.name });
      }
      return null;
    }
    var v = spec.model_ref
      ? parseThreshold(raw[spec.name], pw, problems, false)
      : parseNumber(raw[spec.name], pw, problems);
    if (typeof v === "number") {
      if (spec.positive && v <= 0) {
        problems.push({ where: pw, message: "must be > 0, got " + fmtG(v) });
        return null;
      }
      if (spec.greater_than !== null && v <= spec.greater_than) {
        problems.push({ where: pw, message: "must be > " + fmtG(spec.greater_than) + ", got " + fmtG(v) });
        return null;
      }
    }
    return v;
  }

  function parseBetter(raw, where, problems) {
    if (!has(raw, "better")) return null;
    var b = (typeof raw.better === "string" ? raw.better : pyRepr(raw.better)).trim().toLowerCase();
    if (b !== "lower" && b !== "higher") {
      problems.push({ where: where + ".better", message: "expected 'lower' or 'higher', got " + fmt(raw.better) });
      return null;
    }
    return b;
  }

  function lookupNormaliser(board, raw, where, problems) {
    var name = has(raw, "normaliser") ? raw.normaliser : "linear";
    var text = typeof name === "string" ? name : pyRepr(name);
    var norm = board.normalisers[text];
    if (!norm) {
      problems.push({
        where: where + ".normaliser",
        message: "unknown normaliser " + fmt(name) + " (known: " + board.normaliserNames.join(", ") + ")",
      });
      return null;
    }
    if (!norm.js) {
      problems.push({
        where: where + ".normaliser",
        message: "normaliser '" + text + "' is registered in Python only: scored on the server only",
      });
      return null;
    }
    return norm;
  }

  /** A metric's settings (its config entry ``raw``) validated as parse_metric does. */
  function parseMetric(board, raw, where, problems) {
    var n0 = problems.length;
    var norm = lookupNormaliser(board, raw, where, problems);
    if (norm === null) return null;
    var allowed = board.metricKeys.concat(norm.params.map(function (p) { return p.name; }));
    checkKeys(raw, allowed, where, problems, "'" + norm.name + "' metric");
    var better = parseBetter(raw, where, problems);
    var gb = [null, null];
    if (norm.uses_thresholds) gb = parseThresholds(raw, where, problems, norm, better);
    else noThresholds(raw, where, problems, norm);
    var params = {};
    norm.params.forEach(function (spec) {
      var v = parseParam(spec, raw, where, problems, norm);
      if (v !== null) params[spec.name] = v;
    });
    var wv = Object.prototype.hasOwnProperty.call(raw, "weight") ? raw.weight : 1.0;
    var weight = parseWeight(wv, where + ".weight", problems);
    parseText(raw.unit, where + ".unit", problems);
    parseText(raw.description, where + ".description", problems);
    parseMeta(raw.meta, where + ".meta", problems);
    if (problems.length > n0) return null;
    return { norm: norm, good: gb[0], bad: gb[1], weight: weight, better: better, params: params };
  }

  /** A metric's value of field ``name`` (a parameter's default when it is not set). */
  function metricValue(pm, name) {
    if (name === "good") return pm.good;
    if (name === "bad") return pm.bad;
    if (Object.prototype.hasOwnProperty.call(pm.params, name)) return pm.params[name];
    for (var k = 0; k < pm.norm.params.length; k++) {
      if (pm.norm.params[k].name === name) return pm.norm.params[k]["default"];
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------
  // prepare: the bundle decoded and compiled once
  // ---------------------------------------------------------------------------------------

  function decodeBase64(b64) {
    if (typeof Uint8Array.fromBase64 === "function") {
      var arr = Uint8Array.fromBase64(b64); // native (Chromium 140+, Firefox 133+)
      return arr.byteOffset === 0 && arr.byteLength === arr.buffer.byteLength
        ? arr.buffer
        : arr.slice().buffer;
    }
    if (typeof atob === "function") {
      var bin = atob(b64);
      var bytes = new Uint8Array(bin.length);
      for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
      return bytes.buffer;
    }
    var buf = Buffer.from(b64, "base64"); // Node
    return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  }

  function littleEndian() {
    return new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
  }

  // the bytes of the bundle's ``raw``: ``bytes`` (an ArrayBuffer: fetched from ``href``, the
  // page's board) or ``b64`` (base64 in the bundle)
  function matrixBytes(enc) {
    if (enc.bytes instanceof ArrayBuffer) return { buf: enc.bytes, where: "bundle.raw.bytes" };
    if (typeof enc.b64 !== "string") {
      throw new Error("engine: bundle.raw: no b64 and no bytes" + (enc.href ? " (not fetched from " + enc.href + ")" : ""));
    }
    try {
      return { buf: decodeBase64(enc.b64), where: "bundle.raw.b64" };
    } catch (err) {
      throw new Error("engine: bundle.raw.b64: not base64 (" + err.message + ")");
    }
  }

  /** The raw matrix (column-major Float64Array) of the bundle's ``raw``. */
  function decodeMatrix(enc) {
    if (enc.dtype !== "<f8" || enc.order !== "F") {
      throw new Error("engine: bundle.raw: expected dtype '<f8' and order 'F' (little-endian float64, column-major)");
    }
    var got = matrixBytes(enc);
    var buf = got.buf;
    var n = enc.shape[0] * enc.shape[1];
    if (buf.byteLength !== 8 * n) {
      throw new Error("engine: " + got.where + ": " + buf.byteLength + " bytes, expected " + 8 * n + " (8 per value)");
    }
    if (littleEndian()) return new Float64Array(buf);
    var view = new DataView(buf);
    var out = new Float64Array(n);
    for (var k = 0; k < n; k++) out[k] = view.getFloat64(8 * k, true);
    return out;
  }

  function flattenTree(board, cats) {
    cats.forEach(function (c, ci) {
      board.cats.push({ name: c.name, path: c.path, weight: c.weight, missing: c.missing });
      board.benchStarts.push(board.benches.length);
      c.benchmarks.forEach(function (b) {
        board.benches.push({ name: b.name, path: b.path, weight: b.weight, cat: ci });
        board.metricStarts.push(board.metrics.length);
        b.metrics.forEach(function (m) {
          board.metrics.push({ name: m.name, path: m.path, column: m.column, fields: m.fields, bench: board.benches.length - 1 });
        });
      });
    });
  }

  /** Full key paths, then the short forms Benchmark and Benchmark/Metric (full paths win). */
  function buildIndex(board) {
    var idx = new Map();
    board.cats.forEach(function (c, k) { idx.set(c.path, { kind: "cat", i: k }); });
    board.benches.forEach(function (b, k) { idx.set(b.path, { kind: "bench", i: k }); });
    board.metrics.forEach(function (m, k) { idx.set(m.path, { kind: "metric", i: k }); });
    var setDefault = function (key, node) {
      if (!idx.has(key)) idx.set(key, node);
    };
    var j = 0;
    board.benches.forEach(function (b, k) {
      setDefault(b.name, { kind: "bench", i: k });
      for (; j < board.metrics.length && board.metrics[j].bench === k; j++) {
        setDefault(b.name + "/" + board.metrics[j].name, { kind: "metric", i: j });
      }
    });
    return idx;
  }

  function defaultState(board) {
    var problems = [];
    var metric = board.metrics.map(function (m) {
      return parseMetric(board, m.fields, m.path, problems);
    });
    return {
      metric: metric,
      benchW: board.benches.map(function (b) { return b.weight; }),
      catW: board.cats.map(function (c) { return c.weight; }),
      catMissing: board.cats.map(function (c) { return c.missing; }),
      missing: board.missing,
      problems: problems,
    };
  }

  var BUNDLE_ARRAYS = ["models", "metric_columns", "categories", "vetoes", "unsupported", "policies", "metric_keys"];

  /** A bundle's shape checked before use: Error("engine: bundle.KEY: ...") names what is wrong. */
  function checkBundle(bundle) {
    if (!isMapping(bundle) || bundle.version !== 1) {
      throw new Error("engine: bundle.version: expected 1, got " + fmt(isMapping(bundle) ? bundle.version : bundle));
    }
    BUNDLE_ARRAYS.forEach(function (k) {
      if (!Array.isArray(bundle[k])) throw new Error("engine: bundle." + k + ": expected a list");
    });
    if (!isMapping(bundle.normalisers)) throw new Error("engine: bundle.normalisers: expected a mapping");
    var raw = bundle.raw;
    var data = isMapping(raw) && (typeof raw.b64 === "string" || raw.bytes instanceof ArrayBuffer);
    if (!isMapping(raw) || !Array.isArray(raw.shape) || !data) {
      throw new Error("engine: bundle.raw: expected {dtype, shape, order, b64} (or the bytes fetched from its href)");
    }
    if (raw.shape[0] !== bundle.models.length || raw.shape[1] !== bundle.metric_columns.length) {
      throw new Error(
        "engine: bundle.raw.shape: " + JSON.stringify(raw.shape) + " for " + bundle.models.length +
          " models and " + bundle.metric_columns.length + " metrics"
      );
    }
  }

  /** The bundle decoded once: the raw matrix, the tree as arrays, the default settings. */
  function prepare(bundle) {
    checkBundle(bundle);
    var board = {
      n: bundle.models.length,
      m: bundle.metric_columns.length,
      models: bundle.models.slice(),
      modelIndex: new Map(),
      raw: decodeMatrix(bundle.raw),
      cats: [],
      benches: [],
      metrics: [],
      metricStarts: [],
      benchStarts: [],
      normalisers: Object.create(null), // no inherited names ("constructor" is unknown)
      normaliserNames: Object.keys(bundle.normalisers).sort(),
      metricKeys: bundle.metric_keys.slice(),
      policies: bundle.policies.slice(),
      missing: bundle.missing,
      unsupported: bundle.unsupported.slice(),
    };
    board.models.forEach(function (name, i) {
      board.modelIndex.set(name, i); // the last of equal names, as a Python dict keeps it
    });
    Object.keys(bundle.normalisers).forEach(function (name) {
      var d = bundle.normalisers[name];
      board.normalisers[name] = { name: name, uses_thresholds: d.uses_thresholds, params: d.params, js: d.js };
    });
    flattenTree(board, bundle.categories);
    board.metricStarts = Int32Array.from(board.metricStarts);
    board.benchStarts = Int32Array.from(board.benchStarts);
    board.index = buildIndex(board);
    var col = new Map();
    board.metrics.forEach(function (m, j) { col.set(m.path, j); });
    board.vetoes = bundle.vetoes.map(function (v) {
      return { metric: v.metric, side: v.side, limit: v.limit, col: col.get(v.metric) };
    });
    // a board scored on the server only (``unsupported``) still has its changes checked here
    board.defaults = defaultState(board);
    var bad = board.defaults.problems[0];
    if (bad && board.unsupported.length === 0) {
      throw new Error("engine: bundle.categories: " + bad.where + ": " + bad.message);
    }
    board.defaultZero = new Set(zeroWeightProblems(board, board.defaults).map(function (p) { return p.where; }));
    return board;
  }

  // ---------------------------------------------------------------------------------------
  // Changes: {key path: {field: value}} onto the defaults (Config.apply_changes)
  // ---------------------------------------------------------------------------------------

  function applyRoot(board, fields, st, problems) {
    Object.keys(fields).forEach(function (k) {
      if (k !== "missing") {
        problems.push({ where: k.slice(0, 80), message: "only 'missing' can be changed here" });
        return;
      }
      var v = parseMissing(fields[k], "missing", problems, board.policies);
      if (v) st.missing = v;
    });
  }

  /** ``from``'s own fields onto ``into`` as plain data (a key such as "__proto__" is a field
   * like any other: it is reported as unknown, never taken as the object's prototype). */
  function copyFields(into, from) {
    Object.keys(from).forEach(function (k) {
      Object.defineProperty(into, k, { value: from[k], enumerable: true, writable: true, configurable: true });
    });
    return into;
  }

  /** Changes grouped by full key path, in the order the paths first appear. */
  function mergeChanges(board, changes, st, problems) {
    var merged = new Map();
    Object.keys(changes).forEach(function (path) {
      var fields = changes[path];
      if (path === "" && isMapping(fields)) {
        applyRoot(board, fields, st, problems);
        return;
      }
      var node = board.index.get(path);
      if (!node) {
        problems.push({ where: path.slice(0, 200), message: "no such category, benchmark or metric" });
        return;
      }
      if (!isMapping(fields)) {
        problems.push({ where: path.slice(0, 200), message: "expected a mapping of field to value" });
        return;
      }
      var key = node.kind + ":" + node.i;
      if (!merged.has(key)) merged.set(key, { node: node, fields: {} });
      copyFields(merged.get(key).fields, fields);
    });
    return merged;
  }

  function applyGroup(board, node, fields, st, problems) {
    var isCat = node.kind === "cat";
    var full = isCat ? board.cats[node.i].path : board.benches[node.i].path;
    Object.keys(fields).forEach(function (k) {
      if (k === "missing" && isCat) {
        st.catMissing[node.i] = parseMissing(fields[k], full + ".missing", problems, board.policies);
        return;
      }
      if (k !== "weight") {
        var allowed = isCat ? "'weight' or 'missing'" : "'weight'";
        problems.push({ where: (full + "." + k).slice(0, 300), message: "only " + allowed + " can be changed here" });
        return;
      }
      var w = parseWeight(fields[k], full + ".weight", problems);
      if (isCat) st.catW[node.i] = w;
      else st.benchW[node.i] = w;
    });
  }

  function copyState(d) {
    return {
      metric: d.metric.slice(),
      benchW: d.benchW.slice(),
      catW: d.catW.slice(),
      catMissing: d.catMissing.slice(),
      missing: d.missing,
    };
  }

  /** Metric k's weight; a metric the engine cannot score (a board scored on the server) has
   * no parsed state: its config's weight (absent: 1). */
  function metricWeight(board, st, k) {
    if (st.metric[k]) return st.metric[k].weight;
    var w = board.metrics[k].fields.weight;
    return w === undefined ? 1 : w;
  }

  /** Groups whose children all have weight 0 (the dashboard refuses them). */
  function zeroWeightProblems(board, st) {
    var out = [];
    var allZero = function (lo, hi, get) {
      for (var k = lo; k < hi; k++) if (get(k) !== 0) return false;
      return true;
    };
    var nc = board.cats.length;
    if (nc && allZero(0, nc, function (k) { return st.catW[k]; })) {
      board.cats.forEach(function (c) { out.push({ where: c.path + ".weight", message: "every category has weight 0" }); });
    }
    var bEnds = ends(board.benchStarts, board.benches.length);
    var mEnds = ends(board.metricStarts, board.metrics.length);
    board.cats.forEach(function (c, ci) {
      var lo = board.benchStarts[ci];
      if (allZero(lo, bEnds[ci], function (k) { return st.benchW[k]; })) {
        for (var k = lo; k < bEnds[ci]; k++) {
          out.push({ where: board.benches[k].path + ".weight", message: "every benchmark of " + c.name + " has weight 0" });
        }
      }
      for (var b = lo; b < bEnds[ci]; b++) {
        var ml = board.metricStarts[b];
        if (!allZero(ml, mEnds[b], function (k) { return metricWeight(board, st, k); })) continue;
        for (var j = ml; j < mEnds[b]; j++) {
          out.push({ where: board.metrics[j].path + ".weight", message: "every metric of " + board.benches[b].name + " has weight 0" });
        }
      }
    });
    return out;
  }

  /** The settings of defaults + ``changes``, or {errors} naming every bad PATH.FIELD. */
  function applyChanges(board, changes) {
    var st = copyState(board.defaults);
    var problems = [];
    if (!isMapping(changes)) {
      return { errors: [{ where: "changes", message: "expected a mapping of key path to fields" }] };
    }
    var merged = mergeChanges(board, changes, st, problems);
    merged.forEach(function (entry) {
      var node = entry.node;
      if (node.kind !== "metric") {
        applyGroup(board, node, entry.fields, st, problems);
        return;
      }
      var m = board.metrics[node.i];
      var raw = copyFields(copyFields({}, m.fields), entry.fields);
      st.metric[node.i] = parseMetric(board, raw, m.path, problems);
    });
    if (problems.length) return { errors: problems };
    var zero = zeroWeightProblems(board, st).filter(function (p) { return !board.defaultZero.has(p.where); });
    if (zero.length) return { errors: zero };
    return { state: st };
  }

  // ---------------------------------------------------------------------------------------
  // Normalisers (ml_peg_like.normalisers): one column at a time, NaN stays NaN
  // ---------------------------------------------------------------------------------------

  function clip01(s) {
    return s < 0 ? 0 : s > 1 ? 1 : s + 0; // NaN stays NaN; -0 -> 0
  }

  /** linear on the extended reals, for a span good - bad that is 0, +-inf or NaN. */
  function linearExtended(x, good, bad) {
    if (x !== x || good !== good || bad !== bad) return NaN;
    if (good === bad) return x === good ? 1 : 0;
    return good < bad ? linearHigher(-x, -good, -bad) : linearHigher(x, good, bad);
  }

  /** linearExtended oriented so that higher is better (g > b): at or beyond g 1, at or beyond
   * b 0; strictly between, (u - b) / (g - b), whose limit is 1 when only b is infinite, 0 when
   * only g is, 1/2 when both are (halves: g - b of two finite values may overflow). */
  function linearHigher(u, g, b) {
    if (u >= g) return 1;
    if (u <= b) return 0;
    var gInf = !isFinite(g);
    if (!isFinite(b)) return gInf ? 0.5 : 1;
    if (gInf) return 0;
    return (0.5 * u - 0.5 * b) / (0.5 * g - 0.5 * b);
  }

  function linearColumn(x, out, off, n, good, bad) {
    var span = good - bad;
    var k;
    if (!isFinite(span) || span === 0) {
      for (k = 0; k < n; k++) out[off + k] = linearExtended(x[off + k], good, bad) + 0;
      return;
    }
    for (k = 0; k < n; k++) {
      var s = (x[off + k] - bad) / span;
      out[off + k] = s < 0 ? 0 : s > 1 ? 1 : s + 0;
    }
  }

  function trafficColumn(x, out, off, n, good, bad) {
    var lower = good <= bad;
    var nanParam = good !== good || bad !== bad;
    for (var k = 0; k < n; k++) {
      var v = x[off + k];
      if (v !== v || nanParam) {
        out[off + k] = NaN;
        continue;
      }
      var great = lower ? v <= good : v >= good;
      var red = lower ? v > bad : v < bad;
      out[off + k] = great ? 1 : red ? 0 : 0.5;
    }
  }

  /** s = reference / x (x a run time) or s = x without reference; negative -> NaN. */
  function speedup(v, ref) {
    var s = ref !== ref ? v : v === ref ? 1 : ref / v;
    return s < 0 ? NaN : s;
  }

  function weibullColumn(x, out, off, n, b, c, ref) {
    var a = c * Math.pow(LN_09, -1.0 / b);
    for (var k = 0; k < n; k++) {
      var s = speedup(x[off + k], ref);
      out[off + k] = clip01(1.0 - Math.exp(-Math.pow(s / a, b)));
    }
  }

  function logColumn(x, out, off, n, maxSpeedup, ref) {
    var denom = Math.log10(maxSpeedup);
    for (var k = 0; k < n; k++) {
      var s = speedup(x[off + k], ref);
      out[off + k] = clip01(Math.log10(s) / denom);
    }
  }

  function normaliseColumn(name, x, out, off, n, p) {
    if (name === "linear") linearColumn(x, out, off, n, p.good, p.bad);
    else if (name === "traffic_light") trafficColumn(x, out, off, n, p.good, p.bad);
    else if (name === "weibull_speedup") weibullColumn(x, out, off, n, p.b, p.c, p.reference);
    else if (name === "log_speedup") logColumn(x, out, off, n, p.max_speedup, p.reference);
    else throw new Error("engine: no normaliser " + name);
  }

  var PARAM_NAMES = ["good", "bad", "b", "c", "reference", "max_speedup"];

  function numericParams(params) {
    var p = {};
    PARAM_NAMES.forEach(function (k) {
      var v = params ? params[k] : undefined;
      p[k] = typeof v === "number" ? v : NaN;
    });
    return p;
  }

  /** The normaliser ``name`` with resolved numeric ``params`` ({good, bad, b, c, reference,
   * max_speedup}; absent or NaN = not set) on any raw values ``xs`` (e.g. a curve's x grid):
   * a Float64Array of scores. */
  function evaluate(name, params, xs) {
    var x = Float64Array.from(xs);
    var out = new Float64Array(x.length);
    normaliseColumn(name, x, out, 0, x.length, numericParams(params));
    return out;
  }

  /** The raw value at speed-up s: a run time reference / s, or s itself without reference. */
  function atSpeedup(p, s) {
    return isFinite(p.reference) ? p.reference / s : s;
  }

  /** The raw values worth marking on a normaliser's curve (Normaliser.curve_marks):
   * [{label, x, kind: "good" | "bad" | "other"}], finite x only. */
  function curveMarks(name, params) {
    var p = numericParams(params);
    var out;
    if (name === "weibull_speedup") out = [{ label: "score 0.1", x: atSpeedup(p, p.c), kind: "other" }];
    else if (name === "log_speedup") {
      out = [
        { label: "score 1", x: atSpeedup(p, p.max_speedup), kind: "good" },
        { label: "score 0", x: atSpeedup(p, 1.0), kind: "bad" },
      ];
    } else {
      out = [
        { label: "good", x: p.good, kind: "good" },
        { label: "bad", x: p.bad, kind: "bad" },
      ];
    }
    return out.filter(function (m) { return isFinite(m.x); });
  }

  /** Metric column ``j``'s resolved parameters from a result ({name: number}, NaN = none). */
  function metricParams(result, j) {
    var p = {};
    Object.keys(result.resolved).forEach(function (k) { p[k] = result.resolved[k][j]; });
    return p;
  }

  // ---------------------------------------------------------------------------------------
  // Data-driven thresholds (scoring.plan.resolve_threshold) and their warnings
  // ---------------------------------------------------------------------------------------

  function resolveThreshold(board, spec, j, better) {
    var n = board.n;
    var raw = board.raw;
    if (isMapping(spec)) {
      var i = board.modelIndex.get(spec.model);
      return i === undefined ? NaN : raw[i + j * n];
    }
    var lower = better === "lower";
    var wantMin = (spec === "best") === lower;
    var r = NaN;
    for (var k = j * n, end = k + n; k < end; k++) {
      var v = raw[k];
      if (v !== v) continue;
      if (r !== r || (wantMin ? v < r : v > r)) r = v;
    }
    return r;
  }

  function unresolvedWarning(board, spec, path, param) {
    if (isMapping(spec)) {
      var why = board.modelIndex.has(spec.model) ? "has no value" : "is not a model of the data";
      return path + "." + param + ": model '" + spec.model + "' " + why + "; metric left unscored for every model";
    }
    return path + "." + param + ": " + spec + " has no value; metric left unscored for every model";
  }

  function paramNames(norm) {
    var names = norm.uses_thresholds ? ["good", "bad"] : [];
    return names.concat(norm.params.map(function (p) { return p.name; }));
  }

  /** Every metric's parameters as numbers: {resolved: {param: Float64Array(m)}, unscored:
   * Uint8Array(m), warnings} (warnings in the Python engine's order: normaliser groups in order
   * of first use, then parameter, then column). */
  function resolveParams(board, st) {
    var m = board.m;
    var resolved = {};
    var unscored = new Uint8Array(m);
    var warnings = [];
    var groups = new Map();
    st.metric.forEach(function (pm, j) {
      if (!groups.has(pm.norm.name)) groups.set(pm.norm.name, []);
      groups.get(pm.norm.name).push(j);
    });
    groups.forEach(function (cols, name) {
      paramNames(board.normalisers[name]).forEach(function (pn) {
        if (!resolved[pn]) resolved[pn] = new Float64Array(m).fill(NaN);
        var arr = resolved[pn];
        cols.forEach(function (j) {
          var pm = st.metric[j];
          var v = metricValue(pm, pn);
          if (typeof v === "number") arr[j] = v;
          else if (v !== null && v !== undefined) {
            arr[j] = resolveThreshold(board, v, j, pm.better);
            if (arr[j] !== arr[j]) {
              warnings.push(unresolvedWarning(board, v, board.metrics[j].path, pn));
              unscored[j] = 1;
            }
          }
        });
      });
    });
    return { resolved: resolved, unscored: unscored, warnings: warnings };
  }

  /** What a column's scores depend on besides its raw values: the normaliser, the resolved
   * parameters and whether a threshold was left unresolved (one row of ``key.vals`` each). */
  function columnKeys(board, st, rp) {
    var names = Object.keys(rp.resolved).sort();
    var width = names.length + 2;
    var vals = new Float64Array(board.m * width);
    for (var j = 0; j < board.m; j++) {
      var row = j * width;
      vals[row] = board.normaliserNames.indexOf(st.metric[j].norm.name);
      vals[row + 1] = rp.unscored[j];
      for (var k = 0; k < names.length; k++) vals[row + 2 + k] = rp.resolved[names[k]][j];
    }
    return { names: names.join("\n"), width: width, vals: vals };
  }

  function sameColumn(a, b, j) {
    for (var k = j * a.width, end = k + a.width; k < end; k++) {
      var x = a.vals[k];
      var y = b.vals[k];
      if (x !== y && (x === x || y === y)) return false;
    }
    return true;
  }

  /** Every metric column normalised: {scores, dirty (1 for each column computed again), base
   * (the last matrix, which ``dirty`` is relative to; null the first time)}. The
   * board keeps the last result: the columns whose normaliser and parameters are unchanged
   * are copied, not computed again. */
  function normaliseAll(board, st, rp) {
    var n = board.n;
    var key = columnKeys(board, st, rp);
    var last = board.lastNormalised;
    var reuse = last && last.key.names === key.names;
    var changed = [];
    var dirty = new Uint8Array(board.m);
    for (var c = 0; c < board.m; c++) {
      if (!reuse || !sameColumn(key, last.key, c)) {
        changed.push(c);
        dirty[c] = 1;
      }
    }
    var base = reuse ? last.scores : null; // the matrix ``dirty`` is relative to
    board.lastNormalised = { key: key, scores: base };
    // no change: the matrix is shared with the last result (read-only)
    if (reuse && changed.length === 0) return { scores: base, dirty: dirty, base: base };
    var out = reuse ? last.scores.slice() : new Float64Array(n * board.m);
    var names = Object.keys(rp.resolved);
    var p = {};
    for (var t = 0; t < changed.length; t++) {
      var j = changed[t];
      var off = j * n;
      if (rp.unscored[j]) {
        out.fill(NaN, off, off + n);
        continue;
      }
      for (var k = 0; k < names.length; k++) p[names[k]] = rp.resolved[names[k]][j];
      normaliseColumn(st.metric[j].norm.name, board.raw, out, off, n, p);
    }
    board.lastNormalised.scores = out;
    return { scores: out, dirty: dirty, base: base };
  }

  // ---------------------------------------------------------------------------------------
  // Aggregation (ml_peg_like.aggregation.weighted_mean, shown_weights, reasons)
  // ---------------------------------------------------------------------------------------

  function ends(starts, total) {
    var e = new Int32Array(starts.length);
    for (var g = 0; g < starts.length; g++) e[g] = g + 1 < starts.length ? starts[g + 1] : total;
    return e;
  }

  /** Children's weights with which each group is scored for its own sake: a group of weight 0
   * whose children all have weight 0 is scored with equal weights. */
  function shownWeights(w, starts, groupW) {
    var e = ends(starts, w.length);
    var out = null;
    for (var g = 0; g < starts.length; g++) {
      var sum = 0;
      for (var k = starts[g]; k < e[g]; k++) sum += w[k];
      if (sum === 0 && groupW[g] === 0) {
        out = out || Float64Array.from(w);
        out.fill(1, starts[g], e[g]);
      }
    }
    return out || w;
  }

  /** One group's weighted mean for every model; writes out/cov at column g. Under
   * ``invalidate`` a missing child with weight > 0 makes the sum NaN (as in Python). */
  function groupMean(a, g, lo, hi) {
    var n = a.n;
    var wts = a.w;
    var num = a.num.fill(0);
    var wp = a.wp;
    var scores = a.scores;
    var cover = a.childCov && a.cov ? a.cs.fill(0) : null;
    var skip = a.skip[g];
    var wTotal = 0;
    for (var j = lo; j < hi; j++) wTotal += wts[j];
    if (skip) wp.fill(0);
    for (j = lo; j < hi; j++) {
      var w = wts[j];
      if (w === 0) continue;
      if (skip) addPresent(num, wp, scores, j * n, n, w);
      else addAll(num, scores, j * n, n, w);
      if (cover) addCoverage(cover, a.childCov, j * n, n, w);
    }
    finishGroup(a, g, wTotal);
  }

  function addAll(num, scores, off, n, w) {
    for (var i = 0; i < n; i++) num[i] += scores[off + i] * w;
  }

  function addPresent(num, wp, scores, off, n, w) {
    for (var i = 0; i < n; i++) {
      var s = scores[off + i];
      if (s === s) {
        num[i] += s * w;
        wp[i] += w;
      }
    }
  }

  function addCoverage(cs, childCov, off, n, w) {
    for (var i = 0; i < n; i++) {
      var c = childCov[off + i] * w;
      if (c === c) cs[i] += c;
    }
  }

  /** The means (and coverage: the share of the group's weight used) from the sums. */
  function finishGroup(a, g, wTotal) {
    var n = a.n;
    var off = g * n;
    var skip = a.skip[g];
    var out = a.out;
    var num = a.num;
    var wp = a.wp;
    var i;
    if (wTotal === 0) out.fill(NaN, off, off + n);
    else if (skip) for (i = 0; i < n; i++) out[off + i] = wp[i] === 0 ? NaN : num[i] / wp[i];
    else for (i = 0; i < n; i++) out[off + i] = num[i] / wTotal;
    if (a.cov) groupCoverage(a, off, wTotal, skip);
  }

  /** The share of the group's weight used (0 for a missing mean, NaN for an empty group). */
  function groupCoverage(a, off, wTotal, skip) {
    var n = a.n;
    var out = a.out;
    var cov = a.cov;
    var part = a.childCov ? a.cs : skip ? a.wp : null; // null: every weight present
    for (var i = 0; i < n; i++) {
      var v = out[off + i];
      if (wTotal === 0) cov[off + i] = NaN;
      else if (v !== v) cov[off + i] = 0;
      else cov[off + i] = part ? part[i] / wTotal : 1;
    }
  }

  /** Weighted means of contiguous groups of children (column-major n x k scores). */
  function weightedMean(n, scores, w, starts, skip, childCov, needCov) {
    var a = meanState(n, scores, w, skip, childCov, needCov, starts.length, null);
    var e = ends(starts, w.length);
    for (var g = 0; g < starts.length; g++) groupMean(a, g, starts[g], e[g]);
    return a;
  }

  /** The work arrays of weightedMean; the means (and coverage) start as a copy of ``last``'s
   * when given (the groups that need it are computed again). */
  function meanState(n, scores, w, skip, childCov, needCov, groups, last) {
    return {
      n: n,
      scores: scores,
      w: w,
      skip: skip,
      childCov: childCov,
      out: last ? last.out.slice() : new Float64Array(n * groups),
      cov: needCov ? (last ? last.cov.slice() : new Float64Array(n * groups)) : null,
      num: new Float64Array(n),
      wp: new Float64Array(n),
      cs: new Float64Array(n),
    };
  }

  /** Benchmark ``g`` scores as in the last scoring: same policy, same (shown) weights, none of
   * its metric columns normalised again. */
  function sameBench(last, wm, skip, dirty, g, lo, hi) {
    if (last.skip[g] !== skip[g]) return false;
    for (var j = lo; j < hi; j++) if (dirty[j] || last.w[j] !== wm[j]) return false;
    return true;
  }

  /** The benchmark level (the largest mean: every metric cell). The board keeps the last one:
   * only the benchmarks whose policy, weights or metric columns changed are averaged again. */
  function benchLevel(board, plan, norm) {
    var starts = board.metricStarts;
    var wm = shownWeights(plan.wMetric, starts, plan.wBench);
    var last = board.lastBench;
    if (!last || last.needCov !== plan.needCov || last.scores !== norm.base) last = null;
    var a = meanState(board.n, norm.scores, wm, plan.benchSkip, null, plan.needCov, starts.length, last);
    var e = ends(starts, wm.length);
    for (var g = 0; g < starts.length; g++) {
      if (last && sameBench(last, wm, plan.benchSkip, norm.dirty, g, starts[g], e[g])) continue;
      groupMean(a, g, starts[g], e[g]);
    }
    board.lastBench = {
      w: Float64Array.from(wm),
      skip: plan.benchSkip,
      needCov: plan.needCov,
      scores: norm.scores,
      out: a.out,
      cov: a.cov,
    };
    return a;
  }

  /** Why each parent score is missing (uint8 codes), as aggregation.reasons. */
  function reasons(n, child, w, starts, parent, childCodes) {
    var groups = starts.length;
    var e = ends(starts, w.length);
    var codes = new Uint8Array(n * groups);
    for (var g = 0; g < groups; g++) {
      var wTotal = 0;
      for (var j = starts[g]; j < e[g]; j++) wTotal += w[j];
      for (var i = 0; i < n; i++) {
        var miss = parent[i + g * n] !== parent[i + g * n];
        if (!miss) continue;
        if (wTotal === 0) {
          codes[i + g * n] = REASON.EXCLUDED;
          continue;
        }
        codes[i + g * n] = noData(n, child, w, starts[g], e[g], i, childCodes)
          ? REASON.NO_DATA
          : REASON.INVALIDATED;
      }
    }
    return codes;
  }

  /** No positive-weight child of the group has a score, and none was invalidated. */
  function noData(n, child, w, lo, hi, i, childCodes) {
    for (var j = lo; j < hi; j++) {
      if (!(w[j] > 0)) continue;
      var s = child[i + j * n];
      if (s === s) return false;
      if (childCodes && childCodes[i + j * n] === REASON.INVALIDATED) return false;
    }
    return true;
  }

  /** Why each metric score (models x metrics, column-major) is missing: NO_DATA (no raw
   * value) or NO_THRESHOLD (a threshold could not be resolved); computed on demand. */
  function metricReasons(board, ms) {
    var raw = board.raw;
    var size = ms.length;
    var codes = new Uint8Array(size);
    for (var k = 0; k < size; k++) {
      if (ms[k] !== ms[k]) codes[k] = raw[k] !== raw[k] ? REASON.NO_DATA : REASON.NO_THRESHOLD;
    }
    return codes;
  }

  // ---------------------------------------------------------------------------------------
  // Vetoes (scoring.vetoes) and ranks
  // ---------------------------------------------------------------------------------------

  function vetoReason(path, side, limit, value) {
    return "vetoed: " + path + " = " + fmtG(value) + " is " + side + " the limit " + fmtG(limit) + " (overall score 0)";
  }

  function findVetoes(board) {
    var n = board.n;
    var vetoed = new Uint8Array(n);
    var why = new Array(n).fill("");
    var warnings = [];
    board.vetoes.forEach(function (v) {
      var off = v.col * n;
      var missing = [];
      var hits = [];
      for (var i = 0; i < n; i++) {
        var x = board.raw[off + i];
        if (x !== x) missing.push(i);
        else if (v.side === "above" ? x > v.limit : x < v.limit) hits.push(i);
      }
      hits.forEach(function (i) {
        if (vetoed[i]) return;
        why[i] = vetoReason(v.metric, v.side, v.limit, board.raw[off + i]);
        warnings.push("model " + pyStrRepr(board.models[i]) + " " + why[i]);
      });
      hits.forEach(function (i) { vetoed[i] = 1; });
      if (missing.length) warnings.push(vetoMissingWarning(board, v, missing));
    });
    return { vetoed: vetoed, why: why, warnings: warnings };
  }

  function vetoMissingWarning(board, v, missing) {
    var names = missing.slice(0, 5).map(function (i) { return pyStrRepr(board.models[i]); }).join(", ");
    if (missing.length > 5) names += " and " + (missing.length - 5) + " more";
    return "vetoes: " + v.metric + " has no value for " + names + ": not vetoed (" + v.side + " " + fmtG(v.limit) + " cannot be checked)";
  }

  function tie(a, b) {
    return Math.abs(a - b) <= RANK_RTOL * Math.max(Math.abs(a), Math.abs(b));
  }

  /**
   * THE ranking rule. A model with no overall score (NaN) has no rank (null). The scored models
   * are sorted by score, highest first; two scores tie when |a - b| <= RANK_RTOL * max(|a|, |b|)
   * (equal zeros tie). To stay transitive a model joins the tie group of the model above it only
   * if it ties with the FIRST (highest) member of that group, else it starts a new group. A
   * group's rank is 1 + the number of scored models strictly above it (1, 2, 2, 4); ``tied`` is
   * true for every member of a group of two or more.
   */
  function rankScores(scores) {
    var n = scores.length;
    var ranks = new Array(n).fill(null);
    var tied = new Array(n).fill(false);
    var order = [];
    for (var i = 0; i < n; i++) if (scores[i] === scores[i]) order.push(i);
    order.sort(function (p, q) { return scores[q] - scores[p] || p - q; });
    var pos = 0;
    while (pos < order.length) {
      var head = scores[order[pos]];
      var end = pos + 1;
      while (end < order.length && tie(head, scores[order[end]])) end++;
      for (var k = pos; k < end; k++) {
        ranks[order[k]] = pos + 1;
        tied[order[k]] = end - pos > 1;
      }
      pos = end;
    }
    return { ranks: ranks, tied: tied };
  }

  /** Rank change between two scorings (scoring.ranks.rank_change): delta = rank before - rank
   * after for models ranked in both; word "new" (ranked only after) or "no score" (no rank
   * after), delta 0 where a word is set. */
  function rankChange(before, after) {
    if (before.length !== after.length) {
      throw new Error("rankChange: " + before.length + " and " + after.length + " models");
    }
    var rb = rankScores(before).ranks;
    var ra = rankScores(after).ranks;
    var delta = new Int32Array(after.length);
    var word = new Array(after.length).fill("");
    for (var i = 0; i < after.length; i++) {
      if (ra[i] === null) word[i] = NO_SCORE;
      else if (rb[i] === null) word[i] = NEW;
      else delta[i] = rb[i] - ra[i];
    }
    return { delta: delta, word: word };
  }

  /** Score change between two scorings (scoring.ranks.score_change): after - before, NaN
   * where either has no score, exactly 0 where the two tie by the ranking rule. */
  function scoreChange(before, after) {
    if (before.length !== after.length) {
      throw new Error("scoreChange: " + before.length + " and " + after.length + " models");
    }
    var out = new Float64Array(after.length);
    for (var i = 0; i < after.length; i++) {
      var a = after[i], b = before[i];
      out[i] = a === b || tie(a, b) ? 0 : a - b; // NaN - x is NaN, and NaN ties nothing
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------
  // Contributions (ml_peg_like.scoring.contributions): each child's share of a node's score
  // ---------------------------------------------------------------------------------------

  /** The node at ``path`` ("" the overall score): its children's range, weights as used, the
   * result's matrix of their scores and its policy; null for no category or benchmark. */
  function contribNode(board, plan, path) {
    if (!path) {
      return { path: "", level: "overall", lo: 0, hi: board.cats.length, w: plan.wCat, key: "cat",
               nodes: board.cats, skip: plan.overallSkip[0] };
    }
    var hit = board.index.get(path);
    if (!hit || hit.kind === "metric") return hit ? { metric: board.metrics[hit.i].path } : null;
    if (hit.kind === "cat") {
      return { path: board.cats[hit.i].path, level: "category", lo: board.benchStarts[hit.i],
               hi: ends(board.benchStarts, board.benches.length)[hit.i], key: "bench",
               w: shownWeights(plan.wBench, board.benchStarts, plan.wCat),
               nodes: board.benches, skip: plan.catSkip[hit.i] };
    }
    return { path: board.benches[hit.i].path, level: "benchmark", lo: board.metricStarts[hit.i],
             hi: ends(board.metricStarts, board.metrics.length)[hit.i], key: "metric",
             w: shownWeights(plan.wMetric, board.metricStarts, plan.wBench),
             nodes: board.metrics, skip: plan.benchSkip[hit.i] };
  }

  /** The plan of ``st`` for contributions: a metric the browser cannot parse (a normaliser
   * registered in Python only: such a board is scored on the server) keeps its weight as the
   * defaults or the changes give it. */
  function contribPlan(board, st, changes) {
    var own = Object.prototype.hasOwnProperty;
    var metric = st.metric.map(function (pm, j) {
      if (pm) return pm;
      var m = board.metrics[j];
      var ch = own.call(changes, m.path) && isMapping(changes[m.path]) ? changes[m.path] : {};
      var w = Number(own.call(ch, "weight") ? ch.weight : own.call(m.fields, "weight") ? m.fields.weight : 1);
      return { weight: isFinite(w) && w >= 0 ? w : 1 };
    });
    return compile(board, Object.assign({}, st, { metric: metric }));
  }

  /** One model's parts (weight x score / weight used) into ``out`` at row i. */
  function contribRow(out, i, n, child, kids, skip) {
    var used = 0;
    var all = true;
    kids.forEach(function (c) {
      var s = child[c.index * n + i];
      if (s === s) used += c.weight;
      else all = false;
    });
    if (!skip) used = all ? out.wSum : 0;
    if (!(used > 0)) return;
    var total = 0;
    kids.forEach(function (c, k) {
      var s = child[c.index * n + i];
      if (s !== s) return;
      var p = (s * c.weight) / used;
      out.parts[k * n + i] = p;
      total += p;
    });
    out.used[i] = used;
    out.score[i] = total;
  }

  /** Each child's contribution to the node at ``path`` ("" or null: the overall score; a
   * category: its benchmarks; a benchmark: its metrics) in ``result`` (the scores of the
   * defaults + ``changes``, from score() or the server): {path, level, policy, children:
   * [{name, path, index, weight}] (weight > 0 only; index: in the result's matrix, first: the
   * node's first child there), parts (models x children, column-major;
   * NaN: not used), used, score (the node's score the parts sum to: before the veto for a
   * vetoed model), vetoed (Uint8Array; the overall only), errors: []}. */
  function contributions(board, result, changes, path) {
    var applied = applyChanges(board, changes || {});
    if (applied.errors) return { errors: applied.errors };
    var plan = contribPlan(board, applied.state, changes || {});
    var node = contribNode(board, plan, path || "");
    if (!node || node.metric) {
      var where = node ? node.metric : String(path).slice(0, 200);
      var reason = node ? "a metric has no parts: give a category or a benchmark" : "no category or benchmark at this path";
      return { errors: [{ where: where, message: reason }] };
    }
    var n = board.n;
    var kids = [];
    for (var k = node.lo; k < node.hi; k++) {
      if (node.w[k] > 0) kids.push({ name: node.nodes[k].name, path: node.nodes[k].path, index: k, weight: node.w[k] });
    }
    var out = { parts: new Float64Array(n * kids.length).fill(NaN), used: new Float64Array(n).fill(NaN),
                score: new Float64Array(n).fill(NaN), wSum: 0 };
    kids.forEach(function (c) { out.wSum += c.weight; });
    for (var i = 0; i < n; i++) contribRow(out, i, n, result[node.key], kids, node.skip);
    var vetoed = new Uint8Array(n);
    var why = result.vetoReasons || [];
    if (node.level === "overall") for (i = 0; i < n; i++) vetoed[i] = why[i] ? 1 : 0;
    return { path: node.path, level: node.level, policy: node.skip ? SKIP : "invalidate", first: node.lo, children: kids,
             parts: out.parts, used: out.used, score: out.score, vetoed: vetoed, errors: [] };
  }

  /** Whether metric j counts in the node (every weight on the way down to it is > 0). */
  function countsIn(board, w, j, node) {
    var b = board.metrics[j].bench;
    if (!(w.metric[j] > 0)) return false;
    if (node.level === "benchmark") return true;
    if (!(w.bench[b] > 0)) return false;
    return node.level === "category" || w.cat[board.benches[b].cat] > 0;
  }

  /** The metrics (``Benchmark/Metric`` columns) that model ``i`` has no score for under the node
   * at ``path`` ("" the overall score), among those that count in it (weight > 0 all the way
   * down), with the node's policy: what a missing cell's tooltip names. ``{errors}`` as
   * contributions() for a bad path. */
  function missingParts(board, result, changes, path, i) {
    var applied = applyChanges(board, changes || {});
    if (applied.errors) return { errors: applied.errors };
    var plan = contribPlan(board, applied.state, changes || {});
    var node = contribNode(board, plan, path || "");
    if (!node || node.metric) return { errors: [{ where: String(path).slice(0, 200), message: "no category or benchmark at this path" }] };
    var w = { metric: shownWeights(plan.wMetric, board.metricStarts, plan.wBench),
              bench: shownWeights(plan.wBench, board.benchStarts, plan.wCat), cat: plan.wCat };
    var lo = 0;
    var hi = board.metrics.length;
    if (node.level === "category") {
      lo = board.metricStarts[node.lo];
      hi = node.hi < board.benches.length ? board.metricStarts[node.hi] : board.metrics.length;
    } else if (node.level === "benchmark") {
      lo = node.lo;
      hi = node.hi;
    }
    var out = [];
    for (var j = lo; j < hi; j++) {
      var s = result.metric[j * board.n + i];
      if (s !== s && countsIn(board, w, j, node)) out.push(board.metrics[j].column);
    }
    return { missing: out, policy: node.skip ? SKIP : "invalidate", errors: [] };
  }

  // ---------------------------------------------------------------------------------------
  // score
  // ---------------------------------------------------------------------------------------

  function compile(board, st) {
    var nb = board.benches.length;
    var nc = board.cats.length;
    var benchSkip = new Uint8Array(nb);
    var catSkip = new Uint8Array(nc);
    var usesSkip = st.missing === SKIP;
    for (var c = 0; c < nc; c++) {
      var policy = st.catMissing[c] || st.missing;
      catSkip[c] = policy === SKIP ? 1 : 0;
      if (st.catMissing[c] === SKIP) usesSkip = true;
    }
    for (var b = 0; b < nb; b++) benchSkip[b] = catSkip[board.benches[b].cat];
    return {
      wMetric: Float64Array.from(st.metric, function (pm) { return pm.weight; }),
      wBench: Float64Array.from(st.benchW),
      wCat: Float64Array.from(st.catW),
      benchSkip: benchSkip,
      catSkip: catSkip,
      overallSkip: Uint8Array.of(st.missing === SKIP ? 1 : 0),
      needCov: usesSkip,
    };
  }

  function aggregate(board, plan, norm) {
    var n = board.n;
    var wb = shownWeights(plan.wBench, board.benchStarts, plan.wCat);
    var bench = benchLevel(board, plan, norm);
    var cat = weightedMean(n, bench.out, wb, board.benchStarts, plan.catSkip, bench.cov, plan.needCov);
    var all = weightedMean(n, cat.out, plan.wCat, Int32Array.of(0), plan.overallSkip, cat.cov, plan.needCov);
    return { bench: bench, cat: cat, all: all };
  }

  function unsupportedResult(board) {
    return {
      errors: board.unsupported.map(function (u) { return { where: u.path, message: u.why }; }),
      unsupported: true,
    };
  }

  /** Scores of the defaults + ``changes`` (see the module comment for the layout). */
  function score(board, changes) {
    if (board.unsupported.length) return unsupportedResult(board);
    var applied = applyChanges(board, changes || {});
    if (applied.errors) return { errors: applied.errors };
    var st = applied.state;
    var n = board.n;
    var plan = compile(board, st);
    var rp = resolveParams(board, st);
    var norm = normaliseAll(board, st, rp);
    var ms = norm.scores;
    var agg = aggregate(board, plan, norm);
    var vet = findVetoes(board);
    var overall = agg.all.out;
    for (var i = 0; i < n; i++) if (vet.vetoed[i]) overall[i] = 0;
    var bcodes = reasons(n, ms, plan.wMetric, board.metricStarts, agg.bench.out, null);
    var ccodes = reasons(n, agg.bench.out, plan.wBench, board.benchStarts, agg.cat.out, bcodes);
    var ocodes = reasons(n, agg.cat.out, plan.wCat, Int32Array.of(0), overall, ccodes);
    var rk = rankScores(overall);
    return {
      layout: "column-major",
      metric: ms,
      bench: agg.bench.out,
      cat: agg.cat.out,
      overall: overall,
      coverage: plan.needCov
        ? { bench: agg.bench.cov, cat: agg.cat.cov, overall: agg.all.cov }
        : null,
      ranks: rk.ranks,
      tied: rk.tied,
      vetoed: vet.vetoed,
      vetoReasons: vet.why,
      reasons: { bench: bcodes, cat: ccodes, overall: ocodes },
      resolved: rp.resolved,
      warnings: rp.warnings.concat(vet.warnings),
      errors: [],
    };
  }

  return {
    RANK_RTOL: RANK_RTOL,
    REASON: REASON,
    NEW: NEW,
    NO_SCORE: NO_SCORE,
    prepare: prepare,
    score: score,
    rankChange: rankChange,
    scoreChange: scoreChange,
    rankScores: rankScores,
    metricReasons: metricReasons,
    contributions: contributions,
    missingParts: missingParts,
    evaluate: evaluate,
    curveMarks: curveMarks,
    metricParams: metricParams,
    applyChanges: applyChanges,
    decodeMatrix: decodeMatrix,
    fmtG: fmtG,
    pyRepr: pyRepr,
  };
});
