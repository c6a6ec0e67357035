/* The published page's table, settings boxes, model card and curve (site.js holds the state).
 * The table is a plain <table>: every header and cell carries the dashboard's column id as
 * `col-id`, the headers sort (buttons, aria-sort); every box is an <input name="PATH.FIELD">
 * named for screen readers as the dashboard's boxes are. Names are text (textContent). */
(function () {
  "use strict";
  var S = window.mplSite;
  var el = S.el;
  var own = Object.prototype.hasOwnProperty;
  var THRESHOLDS = { good: true, bad: true };
  var POLICIES = ["invalidate", "skip"];

  function $(id) { return document.getElementById(id); }

  // ------------------------------------------------------------------ columns
  // the columns every board view starts with: rank, rank change, model, overall (+ coverage)
  S.leadColumns = function () {
    var cols = [
      { id: "rank", header: "#", kind: "rank", title: "Rank by overall score (1 = best; " +
        "'=2': a shared rank, scores within 1e-9 of each other; '\u2014': no overall score)" },
      { id: "d", header: "\u00b1", kind: "d", title: "Rank change against the default " +
        "settings (\u25b2 up, \u25bc down; 'new': ranked now, not before; 'no score')" },
      { id: "model", header: "Model", kind: "model", title: "Model (click for its card)" },
      { id: "o", header: "Overall", kind: "o", j: 0,
        title: "Overall score: weighted mean of the category scores" }
    ];
    if (S.res.coverage && !S.view) {
      cols.push({ id: "cov", header: "Coverage", kind: "cov", j: 0,
                  title: "Share of the overall weight with data (policy 'skip')" });
    }
    return cols;
  };

  function sortKey(col, i) {
    if (col.kind === "model") return S.displayName(i).toLowerCase();
    if (col.kind === "d") return S.delta.word[i] ? null : S.delta.delta[i];
    return S.value(i, col.kind, col.j);
  }

  // the models in the column's order (keys computed once; no key: last either way)
  function sorted(models, col, dir) {
    var keys = {};
    models.forEach(function (i) { keys[i] = sortKey(col, i); });
    var sign = dir === "desc" ? -1 : 1;
    return models.sort(function (a, b) {
      var x = keys[a], y = keys[b];
      if (x === null || y === null) return x === y ? a - b : (x === null ? 1 : -1);
      if (x < y) return -sign;
      if (x > y) return sign;
      return a - b;
    });
  }

  function sortState(cols) {
    var st = S.sort;
    var col = st && cols.filter(function (c) { return c.id === st.col; })[0];
    return col ? { col: col, dir: st.dir } : { col: cols[0], dir: "asc" };
  }

  // ------------------------------------------------------------------ cells
  function scoreCell(td, col, i) {
    var v = S.value(i, col.kind, col.j);
    if (v === null) {
      td.textContent = "\u2014";
      td.className += " missing";
      td.title = col.kind === "r" ? "no data" : S.reasonText(i, col.kind, col.j);
      return;
    }
    td.setAttribute("data-value", String(v));
    var cov = col.kind === "cov" || col.kind === "ccov";
    td.textContent = col.kind === "r" ? S.fmtRaw(v) : cov ? S.fmtCoverage(v) : S.fmtScore(v);
    var s = col.kind === "r" ? S.value(i, "s", col.j) : v;
    if (!cov && s !== null) td.style.backgroundColor = S.colour(s);
  }

  function modelCell(i) {
    var th = document.createElement("th");
    th.setAttribute("col-id", "model");
    th.setAttribute("scope", "row");
    th.className = "model";
    var b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.title = S.bundle.models[i] + " \u2014 open its card";
    b.textContent = S.displayName(i);
    th.appendChild(b);
    return th;
  }

  function cell(col, i) {
    if (col.kind === "model") return modelCell(i);
    var td = document.createElement("td");
    td.setAttribute("col-id", col.id);
    td.className = "num " + col.kind;
    if (col.kind === "rank") td.textContent = S.fmtRank(i);
    else if (col.kind === "d") deltaCell(td, i);
    else scoreCell(td, col, i);
    if (col.kind === "o" && S.res.vetoed[i]) td.title = S.res.vetoReasons[i];
    return td;
  }

  function deltaCell(td, i) {
    td.textContent = S.fmtDelta(i);
    var d = S.delta.delta[i];
    if (S.delta.word[i]) td.className += " word";
    else if (d) td.className += d > 0 ? " up" : " down";
  }

  // ------------------------------------------------------------------ the table
  function headerCell(col, st) {
    var dir = st.col === col ? (st.dir === "asc" ? "ascending" : "descending") : "none";
    var th = el("th", { "col-id": col.id, scope: "col", "aria-sort": dir, title: col.title,
                        class: col.klass || null });
    var b = el("button", { type: "button", class: "sort" }, col.header);
    b.addEventListener("click", function () { sortBy(col, st); });
    th.appendChild(b);
    if (col.open) {
      th.appendChild(S.link({ view: col.open, metric: "" }, "\u203a",
                            { class: "open", "aria-label": "Open " + col.header }));
    }
    if (col.pick) {
      var p = el("button", { type: "button", class: "pick", title: "Plot its curve",
                             "aria-label": "Plot the curve of " + col.header }, "\u223f");
      p.addEventListener("click", function () { S.go({ metric: col.pick }); });
      th.appendChild(p);
    }
    return th;
  }

  function sortBy(col, st) {
    var first = col.kind === "rank" || col.kind === "model" ? "asc" : "desc";
    var dir = st.col === col ? (st.dir === "asc" ? "desc" : "asc") : first;
    S.sort = col.id === "rank" && dir === "asc" ? null : { col: col.id, dir: dir };
    S.writeUrl(false);
    S.render();
  }

  //: rows drawn at once; the others follow in chunks, a task each (the first rows are read
  //: first: a 1,000-model board paints its top rows without waiting for the last ones)
  var FIRST_ROWS = 100;
  var CHUNK_ROWS = 300;
  var drawn = 0; // the table being drawn (a newer one stops the chunks of an older one)

  function appendRows(body, cols, rows, from, to) {
    var frag = document.createDocumentFragment();
    for (var r = from; r < to; r++) {
      var i = rows[r];
      var row = document.createElement("tr");
      row.setAttribute("data-model", S.bundle.models[i]);
      for (var c = 0; c < cols.length; c++) row.appendChild(cell(cols[c], i));
      frag.appendChild(row);
    }
    body.appendChild(frag);
  }

  function drawRest(body, cols, rows, from, me) {
    if (me !== drawn || from >= rows.length) {
      if (me === drawn) S.rowsDone = true;
      return;
    }
    var to = Math.min(rows.length, from + CHUNK_ROWS);
    appendRows(body, cols, rows, from, to);
    setTimeout(function () { drawRest(body, cols, rows, to, me); }, 0);
  }

  S.drawTable = function (view, kind) {
    var cols = S.leadColumns().concat(view.columns(S, kind));
    var st = sortState(cols);
    var rows = sorted(S.shownModels(), st.col, st.dir);
    var table = el("table", { class: "scores" });
    table.appendChild(el("caption", { class: "sr-only" }, view.caption(S)));
    var tr = el("tr");
    cols.forEach(function (c) { tr.appendChild(headerCell(c, st)); });
    table.appendChild(el("thead")).appendChild(tr);
    var body = el("tbody");
    body.addEventListener("click", openCardOf);
    var me = (drawn += 1);
    S.rowsDone = false;
    appendRows(body, cols, rows, 0, Math.min(rows.length, FIRST_ROWS));
    table.appendChild(body);
    var wrap = el("div", { class: "table-wrap", tabindex: "0", role: "region",
                           "aria-label": view.caption(S) });
    wrap.appendChild(table);
    filterNote($("board"), rows.length);
    $("board").appendChild(wrap);
    // the rest after the first rows were painted: the frame that paints them, the next one,
    // then a task (what waits for that paint runs first)
    requestAnimationFrame(function () {
      requestAnimationFrame(function () {
        setTimeout(function () { drawRest(body, cols, rows, FIRST_ROWS, me); }, 0);
      });
    });
  };

  // a click on a model's name opens its card (one listener for the table)
  function openCardOf(ev) {
    var b = ev.target.closest("th[col-id='model'] button");
    if (!b) return;
    S.openCard(S.bundle.models.indexOf(b.closest("tr").getAttribute("data-model")));
  }

  function filterNote(box, shown) {
    var n = S.bundle.models.length;
    if (shown === n) return;
    var p = el("p", { class: "filter-note" }, "Showing " + shown + " of " + n +
               " models (the model filter). ");
    var all = S.link({ filter: null, filterText: "" }, "Show all");
    all.addEventListener("click", function () { $("model-filter").value = ""; });
    p.appendChild(all);
    box.appendChild(p);
  }

  // ------------------------------------------------------------------ the boxes
  S.displayValue = function (v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "object") return "model:" + v.model;
    if (typeof v === "number") {
      return Number.isInteger(v) && Math.abs(v) < 1e15 ? String(v) : window.mplEngine.pyRepr(v);
    }
    return String(v);
  };

  function changed(path, field) {
    return !!(S.changes[path] && own.call(S.changes[path], field));
  }

  // the problems of the live result's warnings: {"PATH.FIELD": message}
  function warned() {
    var out = {};
    (S.res.warnings || []).forEach(function (w) {
      var cut = w.indexOf(": ");
      if (cut > 0) out[w.slice(0, cut)] = w.slice(cut + 2);
    });
    return out;
  }

  function spokenName(field, label, where) {
    return [THRESHOLDS[field] ? label + " threshold" : label].concat(where).join(", ");
  }

  function boxClass(path, field, problem) {
    if (problem) return "box invalid";
    return changed(path, field) ? "box modified" : "box";
  }

  function textBox(row, box, problems) {
    var name = row.path + "." + box.field;
    var input = el("input", {
      type: "text", name: name, autocomplete: "off", spellcheck: "false",
      value: S.displayValue(S.current(row.path, box.field)),
      placeholder: S.displayValue(S.defaultValue(row.path, box.field)),
      class: boxClass(row.path, box.field, problems[name]),
      "aria-invalid": problems[name] ? "true" : null
    });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") commit(input, row.path, box.field);
    });
    input.addEventListener("change", function () { commit(input, row.path, box.field); });
    return input;
  }

  function policyBox(row, box) {
    var sel = el("select", { name: row.path + "." + box.field,
                             class: changed(row.path, box.field) ? "box modified" : "box" });
    var now = S.current(row.path, "missing");
    POLICIES.forEach(function (p) {
      sel.appendChild(el("option", { value: p, selected: p === now }, p));
    });
    sel.addEventListener("change", function () { commit(sel, row.path, box.field); });
    return sel;
  }

  function labelled(row, box, problems) {
    var label = el("label", { class: "box-label" });
    label.appendChild(el("span", { class: "sr-only" }, spokenName(box.field, box.label, row.where)));
    label.appendChild(box.policy ? policyBox(row, box) : textBox(row, box, problems));
    if (box.shown) {
      var span = el("span", { class: "param" });
      span.appendChild(el("span", { class: "plabel", "aria-hidden": "true" }, box.shown));
      span.appendChild(label);
      return span;
    }
    return label;
  }

  // a box committed: scored, or its problem shown beside its row (the last good state kept)
  function commit(input, path, field) {
    var focused = input.name;
    var problems = S.commit(path, field, input.value);
    if (!problems.length) {
      var again = document.querySelector("[name='" + CSS.escape(focused) + "']");
      if (again && again !== input) again.focus();
      return;
    }
    input.className = "box invalid";
    input.setAttribute("aria-invalid", "true");
    var mine = problems.filter(function (p) { return p.where.indexOf(path + ".") === 0; });
    var text = (mine.length ? mine : problems).map(function (p) {
      return mine.length ? p.message : p.where + ": " + p.message;
    });
    var msg = document.querySelector(".msg[data-path='" + CSS.escape(path) + "']");
    if (msg) msg.textContent = Array.from(new Set(text)).join("; ");
  }

  function nameCell(row, problems) {
    var td = el("td", { class: "name" });
    if (row.open) td.appendChild(S.link({ view: row.open, metric: "" }, row.name));
    else if (row.pick) {
      var b = el("button", { type: "button", class: "link", title: "Plot its normalisation curve",
                             "aria-pressed": S.metric === row.pick ? "true" : "false" }, row.name);
      b.addEventListener("click", function () { S.go({ metric: row.pick }); });
      td.appendChild(b);
    } else td.appendChild(el("span", {}, row.name));
    if (row.note) td.appendChild(el("div", { class: "norm", title: row.noteTitle || null }, row.note));
    var mine = Object.keys(problems).filter(function (w) { return w.indexOf(row.path + ".") === 0; });
    td.appendChild(el("div", { class: "msg", "data-path": row.path, role: "status" },
                      mine.map(function (w) { return problems[w]; }).join("; ")));
    return td;
  }

  function resetCell(row) {
    var td = el("td");
    var b = el("button", { type: "button", class: "reset-one", title: "Reset this row",
                           "aria-label": "Reset " + row.name + " to the defaults" }, "\u21ba");
    b.addEventListener("click", function () { S.resetPaths([row.path]); });
    td.appendChild(b);
    return td;
  }

  function settingsRow(row, problems) {
    var tr = el("tr");
    tr.appendChild(nameCell(row, problems));
    row.groups.forEach(function (group) {
      var td = el("td", { class: group.klass || null });
      group.boxes.forEach(function (box) { td.appendChild(labelled(row, box, problems)); });
      tr.appendChild(td);
    });
    tr.appendChild(resetCell(row));
    return tr;
  }

  S.drawSettings = function (view) {
    var panel = view.settings(S);
    var box = $("settings");
    var problems = warned();
    var head = el("div", { class: "panel-head" });
    head.appendChild(el("h2", {}, panel.title));
    box.appendChild(head);
    var table = el("table", { class: "settings" });
    var tr = el("tr");
    panel.head.forEach(function (h) { tr.appendChild(el("th", { scope: "col" }, h)); });
    table.appendChild(el("thead")).appendChild(tr);
    var body = el("tbody");
    panel.rows.forEach(function (row) { body.appendChild(settingsRow(row, problems)); });
    table.appendChild(body);
    var wrap = el("div", { class: "table-wrap" });
    wrap.appendChild(table);
    box.appendChild(wrap);
    S.viewPaths = function () { return panel.rows.map(function (r) { return r.path; }); };
  };

  // ------------------------------------------------------------------ the model card
  function safeLink(text) {
    try {
      var u = new URL(text);
      return (u.protocol === "http:" || u.protocol === "https:") && u.host ? u.href : null;
    } catch (e) {
      return null;
    }
  }

  S.openCard = function (i) {
    var key = S.bundle.models[i];
    var body = $("card-body");
    body.textContent = "";
    body.appendChild(el("h2", { class: "card-name" }, S.displayName(i)));
    if (S.displayName(i) !== key) {
      var k = el("div", { class: "card-key" }, "key ");
      k.appendChild(el("code", {}, key));
      body.appendChild(k);
    }
    var items = S.site.cards[key] || [];
    if (!items.length) body.appendChild(el("p", {}, "models.csv gives no attributes for this model."));
    var dl = el("dl", { class: "card-attrs" });
    items.forEach(function (it) {
      dl.appendChild(el("dt", {}, String(it[0]).replace(/_/g, " ")));
      var dd = el("dd");
      var href = it[2] ? safeLink(it[2]) : null;
      dd.appendChild(href ? el("a", { href: href, target: "_blank", rel: "noopener noreferrer" },
                               it[1]) : document.createTextNode(it[1]));
      dl.appendChild(dd);
    });
    if (items.length) body.appendChild(dl);
    $("card").hidden = false;
    $("card-close").focus();
  };

  // ------------------------------------------------------------------ the curve
  var plotly = null; // a Promise once asked for

  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (!plotly) {
      plotly = new Promise(function (resolve, reject) {
        var s = el("script", { src: "plotly.min.js" });
        s.onload = function () { resolve(window.Plotly); };
        s.onerror = function () { plotly = null; reject(new Error("plotly.min.js did not load")); };
        document.head.appendChild(s);
      });
    }
    return plotly;
  }
  S.loadPlotly = loadPlotly; // the views that draw a plot share the one file

  function paramsAt(res, j) {
    var out = {};
    Object.keys(res.resolved || {}).forEach(function (name) {
      var v = res.resolved[name][j];
      if (v === v) out[name] = v;
    });
    return out;
  }

  function curveInput(j) {
    var b = S.bundle, m = S.index.metrics[j], n = b.models.length;
    var name = m.fields.normaliser || "linear";
    var params = paramsAt(S.res, j), dflt = paramsAt(S.base, j), E = window.mplEngine;
    var names = {};
    b.models.forEach(function (k, i) { names[k] = S.displayName(i); });
    return {
      path: m.path, name: m.name, unit: m.unit || "", better: m.fields.better || "",
      normaliser: name, logHint: !!(b.normalisers[name] || {}).log_x, params: params,
      marks: E.curveMarks(name, params), unresolved: {}, models: b.models, names: names,
      raw: S.board.raw.subarray(j * n, (j + 1) * n), score: S.res.metric.subarray(j * n, (j + 1) * n),
      scale: b.scale || 1, xscale: "auto", digits: null, band: null,
      evaluate: function (xs) { return E.evaluate(name, params, xs); },
      theme: S.isDark() ? "dark" : "light", defaults: { good: dflt.good, bad: dflt.bad }
    };
  }

  S.drawCurve = function () {
    var entry = S.node(S.metric);
    var view = S.node(S.view);
    var show = entry && entry.kind === "metric" && view && entry.bench === view.node;
    $("curve").hidden = !show;
    if (!show) return;
    var fig = window.mplCurve.figure(curveInput(entry.i));
    loadPlotly().then(function (P) {
      return P.react($("curve-plot"), fig.data, fig.layout, { displaylogo: false, responsive: true });
    }).then(function () { S.curveDrawn = (S.curveDrawn || 0) + 1; }, function (e) {
      S.status("The curve cannot be drawn: " + e.message);
    });
  };
})();
