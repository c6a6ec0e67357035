/* The normalisation curve and the benchmark figure, built in the browser: pure functions that
 * turn plain data into a Plotly figure ({data, layout}) for a dcc.Graph's `figure` prop or
 * Plotly.react. No DOM, no Dash, no Plotly internals.
 *
 * The reference is Python: ml_peg_like/dashboard/figures.py (curve_figure), curve_axis.py (the
 * axis), curve_parts.py (threshold lines, default thresholds, bands, subtitle) and
 * components/explore/compare.py (bench_figure). tests/test_curve_js.py compares the two on many cases;
 * docs/CURVE.md says what the curve shows.
 *
 *   mplCurve.figure(input)      -> the curve's figure, or null for a per-instance metric
 *   mplCurve.grid(input)        -> the raw values at which the curve is evaluated
 *   mplCurve.axis(points, marks, xscale, logHint) -> {log, lo, hi, autoLog, decades}
 *   mplCurve.benchFigure(input) -> the benchmark view's figure (metric scores per model)
 */
(function (root) {
  "use strict";

  var GOOD = "#1a7f37";
  var BAD = "#cf222e";
  var CURVE = "#0969da";
  var MARK_COLOURS = { good: GOOD, bad: BAD };
  var CURVE_POINTS = 121;
  var PINNED = "#bf8700";
  var MAX_HOVER_NAMES = 12;
  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  var LINE_TOLERANCE = 2e-4;
  var LINE_DIGITS = 7;
  var GL_POINTS = 300;
  var TABLE_DIGITS = 9;
  var GROUP_DIGITS = 9;
  var LOG_SPAN_HINT = 50;
  var FENCE = 3;
  var MISSING = "\u2014";
  var BAND_COLOURS = { good: "rgba(26,127,55,0.10)", bad: "rgba(207,34,46,0.10)" };
  var DEFAULT_OPACITY = 0.45;
  var MIDDLE = 0.5 + 1e-9; // a label's line beyond the middle of the plot: anchored right
  var LOG_TICKFORMAT = "~r";
  //: the curve's colours by page theme (light: those of figures.py)
  var CURVE_THEMES = {
    light: { fg: "#1f2328", bg: "#ffffff", grid: "#eaeef2", line: "#d0d7de", muted: "#57606a",
             note: "rgba(255,255,255,0.85)", fill: "#ffffff" },
    dark: { fg: "#e6edf3", bg: "#0d1117", grid: "#21262d", line: "#30363d", muted: "#9198a1",
            note: "rgba(13,17,23,0.85)", fill: "#0d1117" }
  };
  //: the other plots' themes (components/explore/plots.py)
  var THEMES = {
    light: { fg: "#1f2328", bg: "#ffffff", grid: "#eaeef2", line: "#d0d7de", muted: "#59636e" },
    dark: { fg: "#e6edf3", bg: "#0d1117", grid: "#21262d", line: "#30363d", muted: "#9198a1" }
  };
  var PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
                 "#999999"];
  var FRONT = "#d62728";
  var BENCH_MAX_MODELS = 40;

  // ---- numbers as Python writes them ------------------------------------------------------

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function cleanDigits(d) {
    var n = typeof d === "number" && isFinite(d) ? Math.trunc(d) : 3;
    return Math.min(8, Math.max(1, n));
  }

  // the significant digits of a number's text (no sign, point, exponent or leading zeros)
  function sigDigits(text) {
    return text.split("e")[0].replace(/[-.]/g, "").replace(/^0+/, "");
  }

  // `longer` is v written with one digit more than a rounding of it: is v exactly halfway
  // between the two candidates of that rounding (a last digit 5, then only zeros)?
  function isTie(v, longer) {
    var mant = longer.split("e")[0];
    if (mant.charAt(mant.length - 1) !== "5" || Number(longer) !== v) return false;
    var exact = sigDigits(Math.abs(v).toPrecision(100));
    var want = sigDigits(longer);
    return exact.slice(0, want.length) === want && /^0*$/.test(exact.slice(want.length));
  }

  // at a tie JS rounds away from zero (`text`), Python to the even last digit: the candidate
  // toward zero is `longer` without its final 5
  function evenTie(text, longer) {
    var parts = longer.split("e");
    var lower = parts[0].slice(0, -1).replace(/\.$/, "");
    var last = lower.charCodeAt(lower.length - 1) - 48;
    if (last % 2) return text;
    return lower + (parts.length > 1 ? "e" + parts[1] : "");
  }

  var P10 = [];
  for (var k10 = 0; k10 <= 22; k10++) P10.push(Math.pow(10, k10)); // exact

  // |v| over 10^unitExp as the integer it rounds to, when v is certainly not halfway between
  // two multiples of 10^unitExp (then that integer is the correct rounding: one product or
  // quotient by an exact power errs far below the margin); else NaN (the exact rule decides)
  function roundedUnits(v, unitExp) {
    if (unitExp < -22 || unitExp > 22) return NaN;
    var a = Math.abs(v);
    var t = unitExp <= 0 ? a * P10[-unitExp] : a / P10[unitExp];
    if (!(t < 1e9)) return NaN;
    var f = t - Math.floor(t);
    return Math.abs(f - 0.5) > 1e-6 ? Math.round(t) : NaN;
  }

  // n units of 10^unitExp, with v's sign, as the float nearest that decimal
  function fromUnits(n, unitExp, v) {
    var x = unitExp <= 0 ? n / P10[-unitExp] : n * P10[unitExp];
    return v < 0 || Object.is(v, -0) ? -x : x;
  }

  // can v lie exactly halfway between two multiples of 10^unitExp? Only if v is a multiple of
  // 2^(unitExp - 1) (a multiple of 5 * 10^(unitExp - 1), odd: 5^|unitExp| divides it)
  function maybeTie(v, unitExp) {
    return Number.isInteger(v * Math.pow(2, unitExp < 0 ? 1 - unitExp : 1));
  }

  // Python's round(v, nd) (the exact binary value, half to even)
  function pyRound(v, nd) {
    if (!isNum(v) || Math.abs(v) >= 1e21) return v;
    var n = roundedUnits(v, -nd);
    if (n === n) return fromUnits(n, -nd, v);
    var text = v.toFixed(nd);
    if (!maybeTie(v, -nd)) return Number(text);
    var longer = v.toFixed(nd + 1);
    return Number(isTie(v, longer) ? evenTie(text, longer) : text);
  }

  // Python's float(f"{v:.{p}g}")
  function pySig(v, p) {
    if (v === 0) return v;
    var l = Math.log10(Math.abs(v));
    var sure = Math.abs(l - Math.round(l)) > 1e-9; // the exponent is certain
    var unitExp = Math.floor(l) - p + 1;
    if (sure) {
      var n = roundedUnits(v, unitExp);
      if (n === n) return fromUnits(n, unitExp, v);
    }
    var text = v.toPrecision(p);
    if (sure && !maybeTie(v, unitExp)) return Number(text);
    var longer = v.toPrecision(p + 1);
    return Number(isTie(v, longer) ? evenTie(text, longer) : text);
  }

  // figures._floats: each value rounded to 12 decimals (NaN, inf: null)
  function floats(a) {
    var out = new Array(a.length);
    for (var i = 0; i < a.length; i++) {
      var v = a[i];
      if (!isNum(v)) out[i] = null;
      else if (Math.abs(v) < 1e3 && Math.round(v * 1e12) / 1e12 === v) out[i] = v;
      else out[i] = pyRound(v, 12);
    }
    return out;
  }

  function sigFloats(a) {
    var out = new Array(a.length);
    for (var i = 0; i < a.length; i++) out[i] = isNum(a[i]) ? pySig(a[i], LINE_DIGITS) : null;
    return out;
  }

  function sciParts(a, p) {
    var t = a.toExponential(p - 1).split("e");
    return [t[0], parseInt(t[1], 10)];
  }

  function trimZeros(t) {
    return t.indexOf(".") >= 0 ? t.replace(/0+$/, "").replace(/\.$/, "") : t;
  }

  // numfmt.fmt_score
  function fmtScore(v, scale, digits) {
    if (!isNum(v)) return MISSING;
    var p = cleanDigits(digits);
    var x = v * scale;
    var sign = x < 0 ? "-" : "";
    var a = Math.abs(x);
    if (a === 0) return p > 1 ? "0." + "0".repeat(p - 1) : "0";
    if (sciParts(a, p)[1] >= p) return sign + String(Math.round(a));
    return sign + a.toPrecision(p);
  }

  // numfmt.fmt_raw
  function fmtRaw(v) {
    if (!isNum(v)) return MISSING;
    if (v === 0) return "0";
    var sign = v < 0 ? "-" : "";
    var a = Math.abs(v);
    var parts = sciParts(a, 4);
    var e = parts[1];
    if (e < -3 || e >= 5) return sign + trimZeros(parts[0]) + "e" + e;
    if (e >= 3) return sign + String(Math.round(a));
    return sign + trimZeros(a.toFixed(3 - e));
  }

  // ---- the axis (curve_axis.py) -------------------------------------------------------------

  function finiteOf(a) {
    var out = [];
    for (var i = 0; i < (a ? a.length : 0); i++) if (isNum(a[i])) out.push(a[i]);
    return out;
  }

  function decadesOf(values) {
    var lo = Infinity, hi = -Infinity, n = 0;
    values.forEach(function (v) {
      if (v > 0) { n++; lo = Math.min(lo, v); hi = Math.max(hi, v); }
    });
    return n < 2 ? 0 : Math.log10(hi / lo);
  }

  // numpy's percentile (method "linear") of sorted values
  function percentile(sorted, q) {
    var n = sorted.length;
    var at = (n - 1) * q;
    var i = Math.floor(at);
    var t = at - i;
    var a = sorted[i], b = sorted[Math.min(i + 1, n - 1)];
    var d = b - a;
    return t >= 0.5 ? b - d * (1 - t) : a + d * t;
  }

  function core(t) {
    var s = Float64Array.from(t).sort();
    var q1 = percentile(s, 0.25), q3 = percentile(s, 0.75);
    var iqr = q3 - q1;
    if (iqr === 0) return [s[0], s[s.length - 1]];
    var lo = Infinity, hi = -Infinity;
    for (var i = 0; i < s.length; i++) {
      if (s[i] >= q1 - FENCE * iqr && s[i] <= q3 + FENCE * iqr) {
        lo = Math.min(lo, s[i]); hi = Math.max(hi, s[i]);
      }
    }
    return [lo, hi];
  }

  // The automatic axis is log only for a log-hinted normaliser whose positive values
  // (models' and marks') span more than LOG_SPAN_HINT, with at most a quarter of the models'
  // values <= 0 (see curve_axis.choose_axis)
  function autoLog(p, allv, decades, logHint) {
    var nonpos = p.filter(function (v) { return v <= 0; }).length;
    return !!(logHint && decades > Math.log10(LOG_SPAN_HINT) &&
              nonpos * 4 <= Math.max(p.length, 1) && allv.some(function (v) { return v > 0; }));
  }

  function spanOf(tp, tm) {
    var lo = Infinity, hi = -Infinity;
    if (tp.length >= 4) { var c = core(tp); lo = c[0]; hi = c[1]; }
    else if (tp.length) { lo = Math.min.apply(null, tp); hi = Math.max.apply(null, tp); }
    tm.forEach(function (v) { lo = Math.min(lo, v); hi = Math.max(hi, v); });
    return [lo, hi];
  }

  function positiveLogs(a) {
    return a.filter(function (v) { return v > 0; }).map(Math.log10);
  }

  function chooseAxis(points, marks, xscale, logHint) {
    var p = finiteOf(points), m = finiteOf(marks);
    var allv = p.concat(m);
    var decades = decadesOf(allv);
    var auto = autoLog(p, allv, decades, logHint);
    var log = xscale === "linear" || xscale === "log" ? xscale === "log" : auto;
    if (log && !allv.some(function (v) { return v > 0; })) log = false;
    if (!allv.length) return makeAxis(false, 0, 1, false, 0);
    if (log) {
      var ls = spanOf(positiveLogs(p), positiveLogs(m));
      var pad = Math.max(0.08 * (ls[1] - ls[0]), 0.15);
      return makeAxis(true, Math.pow(10, ls[0] - pad), Math.pow(10, ls[1] + pad), auto, decades);
    }
    var s = spanOf(p, m);
    var span = s[1] - s[0] || Math.max(Math.abs(s[1]), 1);
    return makeAxis(false, s[0] - 0.12 * span, s[1] + 0.12 * span, auto, decades);
  }

  function makeAxis(log, lo, hi, auto, decades) {
    return {
      log: log, lo: lo, hi: hi, autoLog: auto, decades: decades,
      plotRange: log ? [Math.log10(lo), Math.log10(hi)] : [lo, hi],
      // where x is drawn and whether it is pinned: [x shown, -1 left / 0 / +1 right]
      place: function (x) {
        if (!isNum(x)) return [x, 0];
        if ((log && x <= 0) || x < lo) return [lo, -1];
        if (x > hi) return [hi, 1];
        return [x, 0];
      }
    };
  }

  // ---- the grid and the line (figures.py) ------------------------------------------------

  function linspace(a, b, n) {
    var out = new Float64Array(n);
    var step = (b - a) / (n - 1);
    for (var i = 0; i < n; i++) out[i] = step === 0 ? (i / (n - 1)) * (b - a) + a : i * step + a;
    out[n - 1] = b;
    return out;
  }

  var F64 = new Float64Array(1);
  var I64 = new BigInt64Array(F64.buffer);

  // numpy's nextafter(x, +-inf) of a finite x
  function nextAfter(x, up) {
    if (x === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
    F64[0] = x;
    I64[0] += (x > 0) === up ? 1n : -1n;
    return F64[0];
  }

  function makeGrid(lo, hi, log, marks) {
    var g;
    if (log) {
      g = linspace(Math.log10(lo), Math.log10(hi), CURVE_POINTS).map(function (t) {
        return Math.pow(10, t);
      });
      g[0] = lo;
      g[CURVE_POINTS - 1] = hi;
    } else {
      g = linspace(lo, hi, CURVE_POINTS);
    }
    var all = Array.from(g);
    marks.forEach(function (m) {
      if (isNum(m) && lo <= m && m <= hi) all.push(nextAfter(m, false), m, nextAfter(m, true));
    });
    var s = Float64Array.from(all).sort();
    return s.filter(function (v, i) { return i === 0 || v !== s[i - 1]; });
  }

  // Ramer-Douglas-Peucker in the plot box, per run of finite values: the indices kept (a gap
  // where the curve is undefined stays a gap)
  function linePoints(x, y, log, lo, hi) {
    var n = x.length;
    var t0 = log ? Math.log10(lo) : lo, t1 = log ? Math.log10(hi) : hi;
    var w = (t1 - t0) || 1;
    var u = new Float64Array(n), v = new Float64Array(n);
    var finite = new Uint8Array(n), keep = new Uint8Array(n);
    for (var i = 0; i < n; i++) {
      u[i] = ((log ? Math.log10(x[i]) : x[i]) - t0) / w;
      v[i] = y[i] / 1.16;
      finite[i] = isFinite(u[i]) && isFinite(v[i]) ? 1 : 0;
      keep[i] = 1 - finite[i];
    }
    for (var k = 0; k < n; k++) {
      if (!finite[k]) continue;
      var end = k;
      while (end + 1 < n && finite[end + 1]) end++;
      simplify(u, v, keep, k, end);
      k = end;
    }
    var out = [];
    for (i = 0; i < n; i++) if (keep[i]) out.push(i);
    return out;
  }

  function simplify(u, v, keep, first, last) {
    keep[first] = keep[last] = 1;
    var stack = [[first, last]];
    while (stack.length) {
      var ab = stack.pop(), a = ab[0], b = ab[1];
      if (b - a < 2) continue;
      var m = farthest(u, v, a, b);
      if (m[1] > LINE_TOLERANCE) {
        keep[m[0]] = 1;
        stack.push([a, m[0]], [m[0], b]);
      }
    }
  }

  // [index, distance] of the point between a and b farthest from the chord a-b
  function farthest(u, v, a, b) {
    var du = u[b] - u[a], dv = v[b] - v[a];
    var norm = Math.hypot(du, dv);
    var best = -1, at = a + 1;
    for (var i = a + 1; i < b; i++) {
      var su = u[i] - u[a], sv = v[i] - v[a];
      var d = norm ? Math.abs(du * sv - dv * su) / norm : Math.hypot(su, sv);
      if (d > best) { best = d; at = i; }
    }
    return [at, best];
  }

  // ---- the models' points ------------------------------------------------------------------

  // a score's y when its text is plain: [y, plain] (figures._score_y)
  function scoreY(g, scale, digits) {
    if (!isNum(g)) return [NaN, true];
    var x = g * scale;
    if (x < 0) return [NaN, false];
    if (x === 0) return [0, true];
    var l = Math.log10(x);
    if (Math.abs(l - Math.round(l)) > 1e-9) { // the exponent is certain: no text to write
      var e = Math.floor(l), unitExp = e - digits + 1;
      var n = roundedUnits(x, unitExp);
      if (n === n) {
        if (n >= P10[digits]) e += 1; // rounded up to the next power of ten
        var ok = e < digits && e >= -6;
        return [ok ? fromUnits(n, unitExp, x) : NaN, ok];
      }
    }
    var text = fmtScore(g, scale, digits);
    var y = Number(text);
    var plain = text.indexOf("e") < 0 && y < Math.pow(10, digits);
    return [plain ? y : NaN, plain];
  }

  // figures._hover_scores: {y, texts (null: the hover formats y)}
  function hoverScores(values, scale, digits) {
    digits = cleanDigits(digits);
    var grid = values.map(function (v) { return isNum(v) ? pyRound(v, TABLE_DIGITS) : v; });
    if (digits >= 3) {
      var memo = new Map(), ys = new Array(values.length), plain = true;
      for (var i = 0; i < grid.length && plain; i++) {
        var hit = memo.get(grid[i]);
        if (!hit) { hit = scoreY(grid[i], scale, digits); memo.set(grid[i], hit); }
        ys[i] = hit[0];
        plain = hit[1];
      }
      if (plain) return { y: ys, texts: null };
    }
    return {
      y: values.map(function (v) { return v * scale; }),
      texts: grid.map(function (g) { return "<br>score " + fmtScore(g, scale, digits); })
    };
  }

  function placeKey(v) {
    return isNum(v) ? String(pySig(v, GROUP_DIGITS)) : "N";
  }

  // which of the values (at `idx`) lie within 10^(2 - GROUP_DIGITS) (relative) of another of
  // them, or are missing: only those can share a place (curve_axis._near)
  function nearOf(v, idx, near) {
    var finite = [];
    idx.forEach(function (i) { if (isNum(v[i])) finite.push(v[i]); });
    var s = Float64Array.from(finite).sort();
    var close = new Set(), tol = Math.pow(10, 2 - GROUP_DIGITS);
    for (var k = 1; k < s.length; k++) {
      if (Math.abs(s[k] - s[k - 1]) <= tol * Math.max(Math.abs(s[k]), Math.abs(s[k - 1]))) {
        close.add(s[k]);
        close.add(s[k - 1]);
      }
    }
    var out = [];
    idx.forEach(function (i) { if (near[i] && (!isNum(v[i]) || close.has(v[i]))) out.push(i); });
    return out;
  }

  // the points drawn at one place (x and y equal to 9 significant figures): groups of indices
  // in order of first appearance (curve_axis.point_groups); a point near no other in x or in
  // y is alone without writing its figures
  function pointGroups(xs, ys) {
    var n = xs.length, all = [], near = new Uint8Array(n).fill(1);
    for (var i = 0; i < n; i++) all.push(i);
    var cand = nearOf(xs, all, near);
    near.fill(0);
    cand.forEach(function (j) { near[j] = 1; });
    cand = nearOf(ys, cand, near);
    near.fill(0);
    cand.forEach(function (j) { near[j] = 1; });
    var byKey = new Map(), groups = [];
    for (i = 0; i < n; i++) {
      if (!near[i]) { groups.push([i]); continue; }
      var key = placeKey(xs[i]) + "|" + placeKey(ys[i]);
      var g = byKey.get(key);
      if (!g) { g = []; byKey.set(key, g); groups.push(g); }
      g.push(i);
    }
    return groups;
  }

  function groupText(group, lines) {
    if (group.length === 1) return lines[group[0]];
    var shown = group.slice(0, MAX_HOVER_NAMES).map(function (i) { return lines[i]; });
    if (group.length > MAX_HOVER_NAMES) {
      shown.push("\u2026 and " + (group.length - MAX_HOVER_NAMES) + " more");
    }
    return group.length + " models<br>" + shown.join("<br>");
  }

  function groupSize(side, n) {
    var base = side ? 12 : 9;
    return n === 1 ? base : pyRound(base + Math.min(6, 2 * Math.log2(n)), 2);
  }

  function pointsTrace(pts, scale, digits, colours) {
    var groups = pointGroups(pts.px, pts.ys);
    var firsts = groups.map(function (g) { return g[0]; });
    var hs = hoverScores(firsts.map(function (i) { return pts.s[i]; }), scale, digits);
    if (hs.texts && !hs.texts.length) hs.texts = null; // no point: the template formats y
    var text = groups.map(function (g, k) {
      return groupText(g, pts.lines) + (hs.texts ? hs.texts[k] : "");
    });
    var sides = firsts.map(function (i) { return pts.sides[i]; });
    var d = cleanDigits(digits);
    return {
      type: firsts.length > GL_POINTS ? "scattergl" : "scatter",
      x: floats(firsts.map(function (i) { return pts.px[i]; })),
      y: floats(hs.y),
      mode: "markers",
      marker: {
        size: groups.map(function (g, k) { return groupSize(sides[k], g.length); }),
        color: sides.map(function (s) { return s ? PINNED : colours.fill; }),
        symbol: sides.map(function (s) {
          return s > 0 ? "triangle-right" : s < 0 ? "triangle-left" : "circle";
        }),
        line: { color: colours.fg, width: 1.5 }
      },
      name: "models",
      text: text,
      hoverlabel: { align: "left" },
      hovertemplate: hs.texts ? "%{text}<extra></extra>"
        : "%{text}<br>score %{y:." + d + "r}<extra></extra>"
    };
  }

  // the models with a value: their place, side, score, y and hover line
  // the hover line of each model ("<b>name</b>: raw VALUE", without the pinned note), kept for
  // the last models, names and raw values seen: an edit of a threshold moves the points, not
  // their names and values (kept while the models and raw values are equal, element by
  // element, and the names the same object)
  var kept = { models: null, names: null, raw: null, heads: null };

  function sameItems(a, b) {
    if (!a || !b || a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
    return true;
  }

  function pointHeads(input) {
    var names = input.names || {};
    if (kept.names === names && sameItems(kept.models, input.models) &&
        sameItems(kept.raw, input.raw)) return kept.heads;
    var heads = new Array(input.models.length);
    for (var i = 0; i < input.models.length; i++) {
      var key = input.models[i], x = input.raw[i];
      if (x !== x) continue;
      var name = Object.prototype.hasOwnProperty.call(names, key) ? names[key] : key;
      heads[i] = "<b>" + esc(name) + "</b>: raw " + fmtRaw(x);
    }
    kept = { models: Array.from(input.models), names: names, raw: Float64Array.from(input.raw),
             heads: heads };
    return heads;
  }

  // the models with a value: their place, side, score, y and hover line
  function modelPoints(input, axis) {
    var scale = input.scale;
    var heads = pointHeads(input);
    var out = { px: [], sides: [], s: [], ys: [], lines: [] };
    for (var i = 0; i < input.models.length; i++) {
      var x = input.raw[i];
      if (x !== x) continue; // NaN: no value
      var at = axis.place(x);
      var s = input.score[i];
      out.px.push(at[0]);
      out.sides.push(at[1]);
      out.s.push(s);
      out.ys.push(s !== s ? NaN : s * scale);
      out.lines.push(at[1] ? heads[i] + " (beyond the axis)" : heads[i]);
    }
    return out;
  }

  // ---- lines, labels, bands, titles (curve_parts.py) -------------------------------------

  function fraction(axis, x) {
    if (axis.hi === axis.lo) return 0.5;
    if (axis.log) {
      var l0 = Math.log10(axis.lo);
      return (Math.log10(x) - l0) / (Math.log10(axis.hi) - l0);
    }
    return (x - axis.lo) / (axis.hi - axis.lo);
  }

  function vline(x, colour, dash, width) {
    return { type: "line", x0: x, x1: x, y0: 0, y1: 1, yref: "paper",
             line: { color: colour, width: width, dash: dash } };
  }

  function label(axis, x, y, text, colour, note, top) {
    var anchor = fraction(axis, x) > MIDDLE ? "right" : "left";
    return {
      x: axis.log ? Math.log10(x) : x, y: y, yref: "paper", text: text, showarrow: false,
      font: { color: colour, size: 12 }, bgcolor: note, yanchor: top ? "top" : "bottom",
      xanchor: anchor, xshift: anchor === "left" ? 4 : -4
    };
  }

  function markLines(marks, axis, colours) {
    var shapes = [], notes = [];
    var lines = marks.filter(function (m) { return MARK_COLOURS[m.kind] && isNum(m.x); });
    lines.sort(function (a, b) { return a.x - b.x; });
    lines.forEach(function (mark, row) {
      var colour = MARK_COLOURS[mark.kind];
      var at = axis.place(mark.x);
      shapes.push(vline(at[0], colour, at[1] ? "dot" : "dash", 2));
      notes.push(label(axis, at[0], 0.99 - 0.085 * row,
                       esc(mark.label) + " " + fmtRaw(mark.x) + (at[1] ? " (off axis)" : ""),
                       colour, colours.note, true));
    });
    return [shapes, notes];
  }

  // the default thresholds that differ from the current ones: faint dotted lines, labelled
  // "default good" / "default bad" from the bottom of the plot
  function defaultLines(defaults, params, axis, colours) {
    var shapes = [], notes = [];
    ["good", "bad"].filter(function (f) {
      return defaults && isNum(defaults[f]) && defaults[f] !== params[f];
    }).sort(function (a, b) { return defaults[a] - defaults[b]; }).forEach(function (f, row) {
      var x = defaults[f];
      var at = axis.place(x);
      var line = vline(at[0], MARK_COLOURS[f], "dot", 1.5);
      line.opacity = DEFAULT_OPACITY;
      line.name = "default " + f;
      shapes.push(line);
      var note = label(axis, at[0], 0.01 + 0.085 * row,
                       "default " + f + " " + fmtRaw(x) + (at[1] ? " (off axis)" : ""),
                       MARK_COLOURS[f], colours.note, false);
      note.opacity = 0.75;
      notes.push(note);
    });
    return [shapes, notes];
  }

  function bands(band, lo, hi) {
    var out = [];
    Object.keys(band || {}).forEach(function (f) {
      var b = band[f];
      if (!BAND_COLOURS[f] || !(b[0] <= b[1])) return;
      var x0 = Math.max(b[0], lo), x1 = Math.min(b[1], hi);
      if (x0 > x1) return;
      out.push({ type: "rect", x0: x0, x1: x1, y0: 0, y1: 1, yref: "paper",
                 fillcolor: BAND_COLOURS[f], line: { width: 0 }, layer: "below",
                 name: f + ": leader holds" });
    });
    return out;
  }

  function subtitle(input, params, missing, log, pinned) {
    var ptxt = Object.keys(params).filter(function (k) { return k !== "good" && k !== "bad"; })
      .map(function (k) { return k + " = " + fmtRaw(params[k]); }).join(", ");
    var sub = input.normaliser + (ptxt ? " (" + ptxt + ")" : "");
    if (missing) sub += " \u00b7 " + missing + " model" + (missing > 1 ? "s" : "") +
      " without a value";
    if (log) sub += " \u00b7 log x";
    if (pinned) sub += " \u00b7 " + pinned + " beyond the axis (\u25b8 at its edge)";
    Object.keys(input.unresolved || {}).forEach(function (f) {
      sub += " \u00b7 not scored: " + input.unresolved[f];
    });
    return sub;
  }

  // ---- layouts ---------------------------------------------------------------------------

  function curveAxis(colours, extra) {
    var out = { gridcolor: colours.grid, linecolor: colours.line, zeroline: false,
                ticks: "outside", tickcolor: colours.line, automargin: false };
    Object.keys(extra).forEach(function (k) { out[k] = extra[k]; });
    return out;
  }

  function baseLayout(colours, extra) {
    var out = {
      height: 320, margin: { l: 60, r: 24, t: 58, b: 50 },
      font: { family: FONT, size: 12, color: colours.fg },
      paper_bgcolor: colours.bg, plot_bgcolor: colours.bg, showlegend: false,
      hovermode: "closest", hoverlabel: { bgcolor: colours.bg, font: { family: FONT, size: 12 } }
    };
    Object.keys(extra).forEach(function (k) { out[k] = extra[k]; });
    return out;
  }

  function emptyFigure(message, colours) {
    var notes = message ? [{ text: esc(message), showarrow: false, x: 0.5, y: 0.5,
                             xref: "paper", yref: "paper" }] : [];
    return { data: [], layout: baseLayout(colours || CURVE_THEMES.light, {
      xaxis: { visible: false }, yaxis: { visible: false }, annotations: notes
    }) };
  }

  // the x axis: ticks written in full (a log axis labels 0.02 and 0.2 as such, not "2")
  function xAxisOf(axis, unit, colours) {
    var extra = { title: { text: "raw value" + unit }, type: axis.log ? "log" : "linear",
                  range: axis.plotRange, exponentformat: "none" };
    if (axis.log) extra.tickformat = LOG_TICKFORMAT;
    return curveAxis(colours, extra);
  }

  // ---- the curve -------------------------------------------------------------------------

  function marksOf(input) {
    return (input.marks || []).filter(function (m) { return m && isNum(m.x); });
  }

  // the normaliser on the grid (all NaN when a threshold is unresolved: no threshold, no
  // curve); an `evaluate` that throws or answers another length leaves no line either, and the
  // subtitle says so (input.curveProblem)
  function curveValues(input, grid) {
    var none = new Float64Array(grid.length).fill(NaN);
    if (Object.keys(input.unresolved || {}).length) return none;
    if (typeof input.evaluate !== "function") {
      input.curveProblem = "no evaluate function";
      return none;
    }
    var ys;
    try {
      ys = input.evaluate(Float64Array.from(grid));
    } catch (e) {
      input.curveProblem = "evaluate failed: " + (e && e.message ? e.message : String(e));
      return none;
    }
    if (!ys || ys.length !== grid.length) {
      input.curveProblem = "evaluate gave " + (ys ? ys.length : 0) + " values for " +
        grid.length + " points";
      return none;
    }
    return numbers(ys);
  }

  function lineTrace(input, axis, grid) {
    var curve = curveValues(input, grid);
    var keep = linePoints(grid, curve, axis.log, axis.lo, axis.hi);
    return {
      type: "scatter",
      x: sigFloats(keep.map(function (i) { return grid[i]; })),
      y: sigFloats(keep.map(function (i) { return curve[i] * input.scale; })),
      mode: "lines", line: { color: CURVE, width: 2 }, name: "score curve", hoverinfo: "skip"
    };
  }

  function axisOf(input, marks) {
    var xs = finiteOrInf(input.raw);
    return chooseAxis(xs, marks.map(function (m) { return m.x; }), input.xscale || "auto",
                      !!input.logHint);
  }

  function finiteOrInf(raw) {
    var out = [];
    for (var i = 0; i < raw.length; i++) if (raw[i] === raw[i]) out.push(raw[i]);
    return out;
  }

  // the raw values at which the curve is evaluated (null: no curve to draw)
  function grid(input) {
    if (!input || !input.path || input.perInstance || problemOf(input)) return null;
    input = prepared(input);
    var marks = marksOf(input);
    var axis = axisOf(input, marks);
    return makeGrid(axis.lo, axis.hi, axis.log, marks.map(function (m) { return m.x; }));
  }

  function titleOf(input, sub, unit, colours) {
    return { text: esc(input.name) + unit + "<br><span style='font-size:12px;color:" +
      colours.muted + "'>" + esc(sub) + "</span>", x: 0.01, xanchor: "left", y: 0.97,
      font: { size: 14 } };
  }

  // values as floats: a missing one (null, undefined, not a number) is NaN
  function numbers(a) {
    var out = new Float64Array(a.length);
    for (var i = 0; i < a.length; i++) out[i] = typeof a[i] === "number" ? a[i] : NaN;
    return out;
  }

  function lengthOf(a) {
    return a && typeof a.length === "number" ? a.length : 0;
  }

  // what is wrong with the input's lists, or "" (the figure says it instead of throwing)
  function problemOf(input) {
    if (!Array.isArray(input.models)) return "models is not a list";
    var n = input.models.length;
    if (lengthOf(input.raw) !== n) return "raw has " + lengthOf(input.raw) + " values for " +
      n + " models";
    if (lengthOf(input.score) !== n) return "score has " + lengthOf(input.score) +
      " values for " + n + " models";
    return "";
  }

  // the input with its per-model values as floats and a positive scale (a copy)
  function prepared(input) {
    return Object.assign({}, input, {
      raw: numbers(input.raw), score: numbers(input.score),
      scale: isNum(input.scale) && input.scale > 0 ? input.scale : 1
    });
  }

  function figure(input) {
    var colours = CURVE_THEMES[input && input.theme] || CURVE_THEMES.light;
    if (!input || !input.path) return emptyFigure("Pick a metric", colours);
    if (input.perInstance) return null;
    var problem = problemOf(input);
    if (problem) return emptyFigure("Cannot draw the curve of " + input.path + ": " + problem,
                                    colours);
    input = prepared(input);
    var marks = marksOf(input);
    var nValues = finiteOrInf(input.raw).length;
    if (!nValues && !marks.length) return emptyFigure("No data for this metric", colours);
    var axis = axisOf(input, marks);
    var g = makeGrid(axis.lo, axis.hi, axis.log, marks.map(function (m) { return m.x; }));
    var pts = modelPoints(input, axis);
    var data = [lineTrace(input, axis, g), pointsTrace(pts, input.scale, input.digits, colours)];
    return { data: data, layout: curveLayout(input, axis, marks, pts, nValues, colours) };
  }

  // the title, threshold lines and labels, default thresholds, bands and axes
  function curveLayout(input, axis, marks, pts, nValues, colours) {
    var scale = input.scale;
    var params = input.params || {};
    var ml = markLines(marks, axis, colours);
    var dl = defaultLines(input.defaults, params, axis, colours);
    var pinned = pts.sides.filter(function (s) { return s !== 0; }).length;
    var unit = input.unit ? " [" + esc(input.unit) + "]" : "";
    var sub = subtitle(input, params, input.models.length - nValues, axis.log, pinned);
    if (input.curveProblem) sub += " \u00b7 curve not drawn: " + input.curveProblem;
    return baseLayout(colours, {
      title: titleOf(input, sub, unit, colours),
      shapes: ml[0].concat(dl[0], input.band ? bands(input.band, axis.lo, axis.hi) : []),
      annotations: ml[1].concat(dl[1]),
      xaxis: xAxisOf(axis, unit, colours),
      yaxis: curveAxis(colours, { title: { text: "score" }, range: [-0.06 * scale, 1.1 * scale] })
    });
  }

  // ---- the benchmark figure (components/explore/compare.py) -------------------------------------

  function plotAxis(theme, extra) {
    var t = THEMES[theme] || THEMES.light;
    var out = { gridcolor: t.grid, linecolor: t.line, zeroline: false, ticks: "outside",
                tickcolor: t.line, automargin: true, ticklabeloverflow: "allow" };
    Object.keys(extra || {}).forEach(function (k) { out[k] = extra[k]; });
    return out;
  }

  function plotLayout(theme, extra) {
    var t = THEMES[theme] || THEMES.light;
    var out = { height: 460, margin: { l: 70, r: 24, t: 48, b: 60 },
                font: { family: FONT, size: 13, color: t.fg }, paper_bgcolor: t.bg,
                plot_bgcolor: t.bg, hovermode: "closest",
                hoverlabel: { font: { family: FONT, size: 12 } },
                legend: { bgcolor: "rgba(0,0,0,0)" } };
    Object.keys(extra).forEach(function (k) { out[k] = extra[k]; });
    return out;
  }

  function orNull(v) {
    return isNum(v) ? v : null;
  }

  // the shown models' board positions, best benchmark score first, missing last, ties in
  // board order
  function benchOrder(input) {
    var pos = new Map(input.models.map(function (m, i) { return [m, i]; }));
    var ix = input.shown.filter(function (m) { return pos.has(m); })
      .map(function (m) { return pos.get(m); });
    var key = function (i) {
      var b = input.benchScores[i];
      return isNum(b) ? -b : Infinity;
    };
    return ix.slice().sort(function (a, b) { return key(a) - key(b) || a - b; });
  }

  // input: {bench, metrics: [names], models: [keys, board order], shown: [keys], names,
  // metricScores: [per metric: scores by model], benchScores: by model, theme}
  function benchFigure(input) {
    var ix = benchOrder(input);
    var note = "";
    if (ix.length > BENCH_MAX_MODELS) {
      note = " (best " + BENCH_MAX_MODELS + " of " + ix.length + " shown models)";
      ix = ix.slice(0, BENCH_MAX_MODELS);
    }
    var names = input.names || {};
    var xs = ix.map(function (i) {
      var m = input.models[i];
      return esc(Object.prototype.hasOwnProperty.call(names, m) ? names[m] : m);
    });
    var traces = input.metrics.map(function (name, n) {
      var col = input.metricScores[n];
      return { type: "bar", x: xs, y: ix.map(function (i) { return orNull(col[i]); }),
               name: esc(name), marker: { color: PALETTE[n % PALETTE.length] },
               hovertemplate: "%{x}<br>" + esc(name) + ": %{y:.3f}<extra></extra>" };
    });
    traces.push({ type: "scatter", mode: "markers", x: xs,
                  y: ix.map(function (i) { return orNull(input.benchScores[i]); }),
                  name: "benchmark score", marker: { symbol: "diamond", size: 10, color: FRONT },
                  hovertemplate: "%{x}<br>benchmark: %{y:.3f}<extra></extra>" });
    var theme = input.theme;
    return { data: traces, layout: plotLayout(theme, {
      height: 360, barmode: "group", showlegend: true,
      // the title at the very top, the legend between it and the plot (compare.py TITLE_TOP,
      // LEGEND_ABOVE, BENCH_TOP: room for four rows of legend on a phone)
      title: { text: esc(input.bench + ": metric scores per model" + note), x: 0.01,
               xanchor: "left", y: 1, yref: "container", yanchor: "top", pad: { t: 8 },
               font: { size: 13 } },
      xaxis: plotAxis(theme, { tickangle: -40 }),
      yaxis: plotAxis(theme, { range: [0, 1.05], title: { text: "score" } }),
      legend: { orientation: "h", yanchor: "bottom", y: 1.02, x: 0, xanchor: "left" },
      margin: { l: 60, r: 20, t: 130, b: 110 }
    }) };
  }

  var api = {
    figure: figure,
    grid: grid,
    axis: function (points, marks, xscale, logHint) {
      return chooseAxis(points, marks, xscale || "auto", !!logHint);
    },
    benchFigure: benchFigure,
    emptyFigure: emptyFigure,
    // the other plots' colours (explorefig.js draws with them too): written here once
    plotStyle: { themes: THEMES, palette: PALETTE, front: FRONT },
    fmtRaw: fmtRaw,
    fmtScore: fmtScore,
    pyRound: pyRound,
    pySig: pySig,
    scoreY: scoreY
  };
  root.mplCurve = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
