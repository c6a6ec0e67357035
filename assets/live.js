/* The board's live scores in the browser: the JavaScript engine (engine.js, window.mplEngine)
 * scores the defaults + the user's changes, and the grid's cells read the result through
 * valueGetters (mplValue, dashAgGridFunctions.js). An edit is scored here and drawn at once; the
 * server is never asked for a table.
 *
 * The bundle (the tree, the normalisers' declarations and the raw matrix: ml_peg_like/bundle.py)
 * is written into the page as a JSON script element (id from window.mplNames.bundle), but for
 * the raw matrix's bytes: fetched from the URL it names (raw.href; liveedit.add_route), in
 * parallel with the page's scripts, and Dash's renderer starts once they are in (live.start:
 * liveedit.RENDERER), so that every callback finds the board whole. The grid
 * holds one small row per model ({model, mn, i}): every number is read from the live result, so
 * an edit is one scoring, AG Grid's refreshCells (change detection: only the cells whose value
 * changed are drawn) and a re-sort (refreshClientSideRowModel), all documented AG Grid APIs
 * reached through dash-ag-grid's getApi. */
(function () {
  "use strict";
  var own = Object.prototype.hasOwnProperty;

  function N() {
    return window.mplNames || {};
  }

  var live = {
    bundle: null, // the board as the page holds it (ml_peg_like/bundle.py)
    board: null, // mplEngine.prepare(bundle)
    base: null, // the defaults' result (rank change and the curve's default thresholds)
    ref: null, // the pinned baseline's result (null: the defaults': base), scored once per pin
    refKey: "", // JSON of the pinned baseline's changes ("" when none)
    res: null, // the result shown
    changes: {}, // the changes of res
    key: "", // JSON of the changes of res (the same changes are not scored twice)
    n: 0,
    shown: null, // Int32Array of the models shown (null: every model), in board order
    rankShown: false, // ranks among the shown models only
    ranks: null, // the ranks shown (null = no rank) and whether each is shared
    tied: null,
    delta: null, // rank change against the baseline: a number, or a word ("new", "no score")
    dscore: null, // overall score change against the baseline (NaN: no score in either)
    dominated: {}, // {model key: "A, B"}: the server's dominance marks (sensitivity)
    names: {}, // {model key: display name} of the models that have one (the grid's rows)
    failed: "", // why the engine could not start ("" when it runs)
    edits: 0, // box edits answered so far (edit.js)
  };
  window.mplLive = live;

  // ---------------------------------------------------------------- the engine's result layout
  // matrices are models x columns, column-major (column j of model i at j * n + i)
  function at(mat, i, j) {
    return mat ? mat[j * live.n + i] : NaN;
  }

  function bundleText() {
    var el = document.getElementById(N().bundle);
    return el ? el.textContent : "";
  }

  function readBundle() {
    if (!live.bundle) live.bundle = JSON.parse(bundleText());
    return live.bundle;
  }

  // the raw matrix's bytes, fetched from the URL the bundle names (the page's head preloads
  // it: firstpage.PRELOADS); null when there is nothing to fetch (no board, or its bytes in it)
  function fetchRaw() {
    var raw;
    try {
      raw = bundleText() ? readBundle().raw : null;
    } catch (err) {
      return null; // not JSON: boot says so
    }
    if (!raw || !raw.href || raw.bytes) return null;
    var why = function (err) {
      live.failed = "the board's raw values did not load from " + raw.href + " (" + String((err && err.message) || err) + ")";
    };
    if (typeof window.fetch !== "function") return Promise.resolve(why("no fetch in this browser"));
    return window
      .fetch(raw.href, { credentials: "same-origin" })
      .then(function (answer) {
        if (!answer.ok) throw new Error("HTTP " + answer.status);
        return answer.arrayBuffer();
      })
      .then(function (buf) {
        raw.bytes = buf;
      }, why);
  }
  var rawFetch = fetchRaw();

  // ``go`` once the raw matrix is in (or could not be had: boot then says why)
  live.start = function (go) {
    if (rawFetch) rawFetch.then(go, go);
    else go();
  };

  // ---------------------------------------------------------------- state
  function rankOf(overall, idx) {
    var E = window.mplEngine;
    var vals = idx ? Array.prototype.map.call(idx, function (i) { return overall[i]; }) : overall;
    return E.rankScores(vals);
  }

  function derive() {
    var E = window.mplEngine;
    var res = live.res;
    var n = live.n;
    var ranks = new Array(n).fill(null);
    var tied = new Array(n).fill(false);
    var delta = new Array(n).fill(0);
    var idx = live.rankShown && live.shown ? live.shown : null;
    var sub = function (a) {
      return idx ? Array.prototype.map.call(idx, function (i) { return a[i]; }) : a;
    };
    var now = rankOf(res.overall, idx);
    var base = live.ref || live.base; // the pinned baseline, else the defaults
    var ch = E.rankChange(sub(base.overall), sub(res.overall));
    live.dscore = E.scoreChange(base.overall, res.overall);
    var m = idx ? idx.length : n;
    for (var k = 0; k < m; k++) {
      var i = idx ? idx[k] : k;
      ranks[i] = now.ranks[k];
      tied[i] = now.tied[k];
      delta[i] = ch.word[k] ? ch.word[k] : ch.delta[k];
    }
    live.ranks = ranks;
    live.tied = tied;
    live.delta = delta;
  }

  live.boot = function () {
    if (live.board || live.failed) return !!live.board;
    var E = window.mplEngine;
    var text = bundleText();
    if (!E || !text) return false;
    try {
      readBundle();
      if (live.bundle.raw && live.bundle.raw.href && !live.bundle.raw.bytes) return false; // not in yet
      live.board = E.prepare(live.bundle);
      live.serverScored = !!live.bundle.result; // the server scores it (liveedit.page_bundle)
      live.base = live.serverScored ? fromServer(live.bundle.result) : E.score(live.board, {});
      if (live.base.errors && live.base.errors.length) throw new Error(live.base.errors[0].message);
    } catch (err) {
      live.board = null;
      live.failed = String((err && err.message) || err);
      return false;
    }
    live.n = live.bundle.models.length;
    nodeIndex();
    if (live.serverScored) document.documentElement.classList.add(N().serverScoredClass);
    live.res = live.base;
    live.changes = {};
    live.key = "{}";
    derive();
    return true;
  };

  // the server's scores (bundle.result_of: column-major lists, null for NaN) as the engine's
  function floats(list) {
    return Float64Array.from(list || [], function (v) { return v === null ? NaN : v; });
  }

  function fromServer(r) {
    var out = {};
    ["metric", "bench", "cat", "overall"].forEach(function (k) { out[k] = floats(r[k]); });
    out.coverage = r.coverage
      ? { overall: floats(r.coverage.overall), cat: floats(r.coverage.cat) }
      : null;
    out.reasons = {
      bench: Uint8Array.from(r.reasons.bench),
      cat: Uint8Array.from(r.reasons.cat),
      overall: Uint8Array.from(r.reasons.overall),
    };
    out.resolved = {};
    Object.keys(r.resolved || {}).forEach(function (k) { out.resolved[k] = floats(r.resolved[k]); });
    out.vetoReasons = r.vetoReasons || [];
    out.warnings = r.warnings || [];
    out.errors = [];
    return out;
  }

  // the pinned baseline (``changes``: null for the published settings; ``result``: the
  // server's scores of it on a board the browser cannot score): scored once per pin, then rank
  // and score changes compare with it
  live.setBaseline = function (changes, result) {
    if (!live.boot()) return false;
    var key = changes ? keyOf(changes) : "";
    if (key === live.refKey && (!live.serverScored || !result)) return true;
    var ref = null;
    if (changes && live.serverScored) ref = result ? fromServer(result) : null;
    else if (changes) ref = window.mplEngine.score(live.board, changes);
    if (ref && ref.errors && ref.errors.length) ref = null;
    live.ref = ref;
    live.refKey = ref ? key : "";
    derive();
    return !changes || !!ref;
  };

  // a board scored on the server: its scores of the changes shown
  live.setResult = function (r) {
    if (!live.boot() || !live.serverScored || !r) return;
    live.res = fromServer(r);
    live.metricCodes = null;
    derive();
    live.refreshGrid();
    live.redraw();
  };

  function keyOf(changes) {
    return JSON.stringify(changes || {});
  }

  // Score ``changes``: [] and the result shown, or the problems ([{where, message}]) and the
  // last good result kept.
  live.setChanges = function (changes) {
    if (!live.boot()) return [{ where: "", message: live.failed || "the scores are not loaded" }];
    var key = keyOf(changes);
    if (key === live.key) return [];
    if (live.serverScored) return acceptForServer(changes, key);
    var res = window.mplEngine.score(live.board, changes || {});
    if (res.errors && res.errors.length) return res.errors;
    live.res = res;
    live.metricCodes = null; // made when a tooltip asks
    live.changes = changes || {};
    live.key = key;
    derive();
    return [];
  };

  // ---------------------------------------------------------------- the tree
  // the metric column of a key path (-1: none)
  live.columnOf = function (path) {
    if (!live.boot()) return -1;
    nodeIndex();
    return own.call(columns, path) ? columns[path] : -1;
  };

  // a field's value in ``changes`` (default: the live ones): the changes', else the defaults';
  // a category's policy that is not its own follows the board's, changed or not
  live.current = function (path, field, changes) {
    changes = changes || live.changes;
    var ch = changes[path];
    if (ch && own.call(ch, field)) return ch[field];
    if (field === "missing" && path !== "") {
      var entry = live.boot() ? nodeIndex()[path] : null;
      if (entry && entry.kind === "category" && !entry.node.missing) {
        return live.current("", "missing", changes);
      }
    }
    return live.defaultValue(path, field);
  };

  // ---------------------------------------------------------------- the defaults of a box
  // {key path: node of the bundle's tree} ("" = the board itself), made once
  var nodes = null;
  var columns = {}; // {metric key path: column}

  function nodeIndex() {
    if (nodes) return nodes;
    var b = live.bundle;
    nodes = { "": { kind: "root", node: b } };
    b.metricsByIndex = [];
    (b.categories || []).forEach(function (c) {
      nodes[c.path] = { kind: "category", node: c };
      c.benchmarks.forEach(function (bm) {
        nodes[bm.path] = { kind: "benchmark", node: bm };
        bm.metrics.forEach(function (m) {
          nodes[m.path] = { kind: "metric", node: m };
          columns[m.path] = b.metricsByIndex.length;
          b.metricsByIndex.push(m);
        });
      });
    });
    return nodes;
  }

  function paramDefault(m, field) {
    var decl = live.bundle.normalisers[m.fields.normaliser || "linear"] || { params: [] };
    var p = decl.params.filter(function (q) { return q.name === field; })[0];
    return p ? p.default : null;
  }

  // the default value of a box (the config's, before any change): a number, {model: NAME},
  // "best" / "worst", a policy name; null when the field is not set
  live.defaultValue = function (path, field) {
    if (!live.boot()) return null;
    var entry = nodeIndex()[path];
    if (!entry) return null;
    var node = entry.node;
    if (entry.kind !== "metric") {
      if (field === "weight") return entry.kind === "root" ? null : node.weight;
      if (field === "missing") return node.missing || live.bundle.missing; // inherited
      return own.call(node, field) ? node[field] : null;
    }
    if (own.call(node.fields, field)) return node.fields[field];
    return field === "weight" ? 1 : paramDefault(node, field);
  };

  // a board scored on the server: the changes checked here (the same rules), their scores
  // follow the server's answer (setResult)
  function acceptForServer(changes, key) {
    var checked = window.mplEngine.applyChanges(live.board, changes || {});
    if (checked.errors) return checked.errors;
    live.changes = changes || {};
    live.key = key;
    return [];
  }

  live.setShown = function (indices, rankShown) {
    if (!live.boot()) return;
    live.shown = indices ? Int32Array.from(indices) : null;
    live.rankShown = !!rankShown;
    derive();
  };

  live.setDominated = function (dominated) {
    live.dominated = dominated && typeof dominated === "object" ? dominated : {};
  };

  // ---------------------------------------------------------------- what a cell shows
  // kinds: "rank", "d" (rank change), "ds" (score change), "o" overall, "cov" its coverage, "c" category i, "ccov"
  // its coverage, "b" benchmark k, "s" metric j's score, "r" metric j's raw value
  live.value = function (i, kind, j) {
    if (!live.boot() || typeof i !== "number") return null;
    var v = cellValue(live.res, i, kind, j);
    return typeof v === "number" && isNaN(v) ? null : v;
  };

  function cellValue(res, i, kind, j) {
    switch (kind) {
      case "rank":
        return live.ranks[i];
      case "d":
        return live.delta[i];
      case "ds":
        return live.dscore ? live.dscore[i] : NaN;
      case "o":
        return res.overall[i];
      case "cov":
        return res.coverage ? res.coverage.overall[i] : NaN;
      case "c":
        return at(res.cat, i, j);
      case "ccov":
        return res.coverage ? at(res.coverage.cat, i, j) : NaN;
      case "b":
        return at(res.bench, i, j);
      case "s":
        return at(res.metric, i, j);
      case "r":
        return at(live.board.raw, i, j);
      default:
        return NaN;
    }
  }

  // the reason code of a missing cell (aggregation.REASON_TEXT's codes): 0 = present
  live.reasonCode = function (i, kind, j) {
    if (!live.boot() || typeof i !== "number") return 0;
    var rs = live.res.reasons || {};
    switch (kind) {
      case "o":
        return rs.overall ? rs.overall[i] : 0;
      case "c":
        return rs.cat ? at(rs.cat, i, j) : 0;
      case "b":
        return rs.bench ? at(rs.bench, i, j) : 0;
      case "s":
      case "r":
        if (!live.metricCodes) live.metricCodes = window.mplEngine.metricReasons(live.board, live.res.metric);
        return at(live.metricCodes, i, j);
      default:
        return 0;
    }
  };

  live.vetoReason = function (i) {
    var r = live.res && live.res.vetoReasons;
    return r && r[i] ? r[i] : "";
  };

  live.isTied = function (i) {
    return !!(live.tied && live.tied[i]);
  };

  // ---------------------------------------------------------------- drawing
  live.refreshGrid = function () {
    var dag = window.dash_ag_grid;
    var api = null;
    try {
      api = dag && dag.getApi ? dag.getApi(N().grid) : null;
    } catch (err) {
      api = null; // the grid is not drawn yet: it reads the live result when it is
    }
    if (!api) return false;
    api.expireValueCache(); // the grid's cached values are the last result's
    api.refreshCells();
    api.refreshClientSideRowModel("sort");
    return true;
  };

  // ---------------------------------------------------------------- Dash's side (liveedit.py)
  var dc = (window.dash_clientside = window.dash_clientside || {});
  dc.mplLiveSync = {
    // the changes store: whoever wrote it (a link, a reset, a preset, an upload, an edit here)
    changes: function (changes) {
      var before = live.key;
      var problems = live.setChanges(changes || {});
      if (!problems.length && live.key !== before) {
        live.refreshGrid();
        live.redraw();
      }
    },
    // the rows the grid holds (the model filter) and whether ranks are among them only
    rows: function (rows, rankShown) {
      if (!live.boot()) return;
      (rows || []).forEach(function (r) {
        if (r[N().colName]) live.names[r[N().colModel]] = r[N().colName];
      });
      var all = !rows || rows.length === live.n;
      var idx = all ? null : rows.map(function (r) { return r[N().rowIndex]; });
      var on = Array.isArray(rankShown) ? rankShown.length > 0 : !!rankShown;
      live.setShown(idx, on);
      live.refreshGrid();
      live.redraw(); // the plots of the shown models (liveexplore.js)
    },
    // the server's scores of a board the browser cannot score
    result: function (r) {
      live.setResult(r);
    },
    // the server answered the edit counted ``n``: the parts that need Python are current
    answered: function (n) {
      if (typeof n === "number" && n >= live.edits) live.pending(false);
    },
    // the server's dominance marks ({model: "A, B"}): the model column's mark and tooltip
    dominated: function (dominated) {
      live.setDominated(dominated);
      var dag = window.dash_ag_grid;
      try {
        var api = dag.getApi(N().grid);
        api.refreshCells({ columns: [N().colModel], force: true });
      } catch (err) {
        return; // the grid reads them when it is drawn
      }
    },
  };

  // the parts that need Python (intervals, the tau line, the policy bar) are being
  // brought up to date: marked on the page (dimmed by the style sheet) and for assistive tools
  live.pending = function (on) {
    var root = document.documentElement;
    root.classList.toggle(N().pendingClass, !!on);
    if (on) root.setAttribute("aria-busy", "true");
    else root.removeAttribute("aria-busy");
  };

  // what else the page draws from the live result (the curve): called after every new result
  var listeners = [];
  live.listen = function (fn) {
    listeners.push(fn);
  };
  live.redraw = function () {
    listeners.forEach(function (fn) {
      try {
        fn(live);
      } catch (err) {
        if (window.console) window.console.error(err);
      }
    });
  };
})();
