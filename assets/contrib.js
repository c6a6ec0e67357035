/* "Why does this model lead?": the breakdown bars of the overview (each category's share of the
 * overall score) and of a category view (each benchmark's share of its score), the model card's
 * breakdown, and the names of the missing parts in a missing cell's tooltip.
 *
 * Every number comes from the live result (assets/live.js) through the engine
 * (mplEngine.contributions, the twin of ml_peg_like.scoring.contributions), so an edit redraws
 * the bars with no request. The bars are drawn by a cell renderer registered in
 * dash-ag-grid's documented dashAgGridComponentFunctions; the column (dashboard/contrib.py)
 * passes the node's path in cellRendererParams. A part keeps its colour (its place among its
 * siblings in the config: window.mplNames.contribPalette) whatever the weights. */
(function () {
  "use strict";
  var dagfuncs = (window.dashAgGridFunctions = window.dashAgGridFunctions || {});
  var comps = (window.dashAgGridComponentFunctions = window.dashAgGridComponentFunctions || {});
  var MAX_NAMED = 6; // a tooltip names this many missing metrics, then counts the rest
  var MATRIX = { overall: "cat", category: "bench", benchmark: "metric" };
  var memo = { res: null, key: null, by: new Map() };

  function N() {
    return window.mplNames || {};
  }

  function L() {
    var live = window.mplLive;
    return live && window.mplEngine && live.boot() ? live : null;
  }

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  // the contributions of the node at ``path`` in the live result (once per result and path)
  function contributionsOf(path) {
    var live = L();
    if (!live) return null;
    if (memo.res !== live.res || memo.key !== live.key) {
      memo = { res: live.res, key: live.key, by: new Map() };
    }
    if (!memo.by.has(path)) {
      var c = null;
      try {
        c = window.mplEngine.contributions(live.board, live.res, live.changes, path);
      } catch (err) {
        if (window.console) window.console.error(err); // no bar; the grid draws the rest
      }
      memo.by.set(path, c && !c.errors.length ? c : null);
    }
    return memo.by.get(path);
  }

  function colourOf(k) {
    var pal = N().contribPalette;
    if (!pal || !pal.length) pal = ["#999999"];
    return pal[k % pal.length];
  }

  // one model's breakdown: {total, vetoed, segs: [{name, path, weight, score, part, colour}]}
  function rowParts(path, i) {
    var c = contributionsOf(path);
    var live = L();
    if (!c || typeof i !== "number" || i < 0 || i >= live.n) return null;
    var n = live.n;
    var mat = live.res[MATRIX[c.level]];
    var segs = c.children.map(function (k, m) {
      return {
        name: k.name,
        path: k.path,
        weight: k.weight,
        score: mat ? mat[k.index * n + i] : NaN,
        part: c.parts[m * n + i],
        colour: colourOf(k.index - c.first),
      };
    });
    return { total: c.score[i], vetoed: !!c.vetoed[i], segs: segs, level: c.level, path: c.path };
  }

  function fmt(v, scale) {
    return dagfuncs.fmtScore ? dagfuncs.fmtScore(v, scale) : String(v);
  }

  // "Surfaces: 0.21 of 0.74 (weight 2, score 0.63)"; a part not counted (policy skip) says so
  function segText(s, total, scale) {
    var w = window.mplEngine.fmtG(s.weight);
    if (!isNum(s.part)) return s.name + ": no score, not counted (weight " + w + ")";
    return s.name + ": " + fmt(s.part, scale) + " of " + fmt(total, scale) + " (weight " + w +
      ", score " + fmt(s.score, scale) + ")";
  }

  function whatOf(row) {
    return row.level === "overall" ? "Overall score" : row.path + " score";
  }

  function summary(row, scale) {
    var text = whatOf(row) + " " + fmt(row.total, scale);
    return row.vetoed ? text + " before the veto (vetoed: overall score 0)" : text;
  }

  function width(part) {
    return Math.max(0, Math.min(100, part * 100)) + "%";
  }

  // ---------------------------------------------------------------- the grid's column
  // the cell's value: a signature of its parts (AG Grid draws a cell again when it changes)
  dagfuncs.contribKey = function (params) {
    var p = (params.colDef && params.colDef.cellRendererParams) || {};
    var d = params.data || {};
    var row = rowParts(p.path || "", d[N().rowIndex]);
    if (!row || !isNum(row.total)) return "";
    return row.segs.map(function (s) { return s.part; }).join(",") + (row.vetoed ? ",v" : "");
  };

  comps.ContribBar = function (props) {
    var h = window.React.createElement;
    var d = props.data || {};
    var scale = isNum(props.scale) ? props.scale : 1;
    var row = rowParts(props.path || "", d[N().rowIndex]);
    if (!row || !isNum(row.total)) {
      var none = (props.path ? props.path + " score" : "Overall score") + ": no score, no breakdown";
      return h("span", { className: "contrib-none", title: none, "aria-label": none }, "\u2014");
    }
    var segs = row.segs.filter(function (s) { return isNum(s.part); }).map(function (s) {
      var text = segText(s, row.total, scale);
      return h("span", {
        key: s.path,
        className: "contrib-seg",
        role: "img",
        title: text,
        "aria-label": text,
        style: { width: width(s.part), backgroundColor: s.colour },
      });
    });
    var bar = h("span", { className: "contrib-bar", role: "group", "aria-label": summary(row, scale) }, segs);
    var mark = row.vetoed ? h("span", { className: "contrib-veto", "aria-hidden": "true" }, "vetoed") : null;
    return h("span", { className: "contrib-cell" + (row.vetoed ? " vetoed" : "") }, bar, mark);
  };

  // ---------------------------------------------------------------- a missing cell's tooltip
  function pathOf(live, kind, j) {
    if (kind === "o") return "";
    var list = kind === "c" ? live.board.cats : kind === "b" ? live.board.benches : null;
    return list && list[j] ? list[j].path : null;
  }

  // "No score: missing S24/MAE, S24/RMSE (policy: invalidate)" ("" when nothing is named)
  window.mplContrib = {
    missingText: function (i, kind, j) {
      var live = L();
      if (!live || typeof i !== "number") return "";
      var path = pathOf(live, kind, j);
      if (path === null) return "";
      var m = null;
      try {
        m = window.mplEngine.missingParts(live.board, live.res, live.changes, path, i);
      } catch (err) {
        return ""; // the reason code's text instead
      }
      if (m.errors.length || !m.missing.length) return "";
      var more = m.missing.length - MAX_NAMED;
      var names = m.missing.slice(0, MAX_NAMED).join(", ") + (more > 0 ? " and " + more + " more" : "");
      return "No score: missing " + names + " (policy: " + m.policy + ")";
    },
    rowParts: rowParts,
  };

  // ---------------------------------------------------------------- the model card
  function el(tag, klass, text) {
    var e = document.createElement(tag);
    if (klass) e.className = klass;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function cardBar(row, scale) {
    var bar = el("span", "contrib-bar");
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", summary(row, scale));
    row.segs.forEach(function (s) {
      if (!isNum(s.part)) return;
      var seg = el("span", "contrib-seg");
      var text = segText(s, row.total, scale);
      seg.setAttribute("role", "img");
      seg.setAttribute("aria-label", text);
      seg.title = text;
      seg.style.width = width(s.part);
      seg.style.backgroundColor = s.colour;
      bar.appendChild(seg);
    });
    var cell = el("span", "contrib-cell" + (row.vetoed ? " vetoed" : ""));
    cell.appendChild(bar);
    return cell;
  }

  function cardRow(tbody, cells, colour) {
    var tr = el("tr");
    cells.forEach(function (text, k) {
      var td = el(k === 0 ? "th" : "td", k === 0 ? "" : "num", text);
      if (k === 0) {
        td.setAttribute("scope", "row");
        var sw = el("span", "contrib-swatch");
        sw.setAttribute("aria-hidden", "true");
        sw.style.backgroundColor = colour;
        td.insertBefore(sw, td.firstChild);
      }
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  }

  function cardTable(row, scale) {
    var table = el("table", "contrib-table");
    var head = el("tr");
    ["Category", "Weight", "Score", "Contribution"].forEach(function (t) {
      var th = el("th", "", t);
      th.setAttribute("scope", "col");
      head.appendChild(th);
    });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    row.segs.forEach(function (s) {
      var part = isNum(s.part) ? fmt(s.part, scale) : "not counted";
      cardRow(tbody, [s.name, window.mplEngine.fmtG(s.weight), fmt(s.score, scale), part], s.colour);
    });
    table.appendChild(tbody);
    return table;
  }

  function fillCard(box, live) {
    var i = live.board.modelIndex.get(box.getAttribute(N().contribModelAttr));
    var scale = live.bundle.scale || 1;
    var row = typeof i === "number" ? rowParts("", i) : null;
    box.textContent = "";
    box.appendChild(el("h4", "contrib-title", "Why this overall score"));
    if (!row || !isNum(row.total)) {
      var why = typeof i === "number" ? window.mplContrib.missingText(i, "o", 0) : "";
      box.appendChild(el("p", "contrib-none", "No overall score" + (why ? " \u2014 " + why : "") + "."));
      return;
    }
    box.appendChild(el("p", "contrib-sum", summary(row, scale) + " = the sum of the contributions " +
      "(weight \u00d7 score \u00f7 the weight used)."));
    box.appendChild(cardBar(row, scale));
    box.appendChild(cardTable(row, scale));
  }

  function fillCards() {
    var live = L();
    var klass = N().contribCard;
    if (!live || !klass) return;
    Array.prototype.forEach.call(document.getElementsByClassName(klass), function (box) {
      fillCard(box, live);
    });
  }

  function whenLive() {
    var live = window.mplLive;
    if (live && live.listen) live.listen(fillCards); // every new result (an edit, the server's)
    else setTimeout(whenLive, 50);
  }
  whenLive();

  var dc = (window.dash_clientside = window.dash_clientside || {});
  dc.mplContrib = {
    // the card's body was drawn by Dash: fill its breakdown once it is in the page
    card: function () {
      window.requestAnimationFrame(fillCards);
    },
  };
})();
