/* Navigation in the browser (clientside callbacks registered by ml_peg_like/dashboard/components/).
 *
 * mpl.navigate: a click on a breadcrumb, a metric link, a score cell or a column header's name,
 * or the metric picker, becomes a navigation request {v: view, m: metric, t} in the `want`
 * store; the server callback (one round trip) answers with the view's table and panels.
 * The sidebar is one Dash component holding its entries as JSON (navigation.sidebar): this file
 * makes them plain <button> elements (focusable, Enter clicks them); a click on one writes the
 * same request into `want` (set_props).
 * mpl.navClasses: makes the sidebar's buttons once; its highlight follows the `view` store.
 * mpl.drawCurve: the curve's figure (from the `fig` store) is applied after the next paint.
 * MplHeader: the header of a drill-down or metric column (AG Grid's header component
 * interface): its name is a button whose click becomes `hdr` store data (it opens / selects; it
 * does not sort), its sort another button.
 * Every id, store key and column prefix is read from window.mplNames (written into the page from
 * ml_peg_like/dashboard/ids.py); this file spells none of them. */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});

  function N() {
    return window.mplNames || {};
  }

  function want(v, m) {
    var w = {};
    w[N().viewPath] = v || "";
    w[N().viewMetric] = m || "";
    w[N().wantTime] = Date.now();
    return w;
  }

  function viewOf(view) {
    view = view || {};
    return { v: view[N().viewPath] || "", m: view[N().viewMetric] || "" };
  }

  // the metric index of a raw-value or score column id (prefix + index), else -1
  function metricIndex(colId) {
    var prefixes = [N().rawPrefix, N().scorePrefix];
    for (var i = 0; i < prefixes.length; i++) {
      var p = prefixes[i];
      if (p && colId.indexOf(p) === 0 && /^[0-9]+$/.test(colId.slice(p.length))) {
        return parseInt(colId.slice(p.length), 10);
      }
    }
    return -1;
  }

  function fromColumn(colId, view, tree) {
    if (typeof colId !== "string" || !tree) return dc.no_update;
    var cols = tree[N().treeCol];
    if (cols && Object.prototype.hasOwnProperty.call(cols, colId)) {
      return want(cols[colId], "");
    }
    var j = metricIndex(colId);
    if (j >= 0) {
      var m = (tree[N().treeMetrics] || [])[j];
      if (m && m !== view.m) return want(view.v, m);
    }
    return dc.no_update;
  }

  // run fn in a new task, once the browser has drawn what it has (the grid first)
  function afterGrid(fn) {
    setTimeout(fn, 0);
  }
  dc.mplAfterGrid = afterGrid;

  // the sidebar's <button> elements from its entries ([path, label, tooltip] as JSON in an
  // attribute: navigation.sidebar), once (highlight sets their classes); text goes in as
  // text, never as HTML
  function makeSidebar(nav) {
    if (nav.querySelector("button")) return;
    var items;
    try {
      items = JSON.parse(nav.getAttribute(N().navItemsAttr) || "[]");
    } catch (e) {
      return;
    }
    var frag = document.createDocumentFragment();
    items.forEach(function (it) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "nav-item";
      b.setAttribute(N().navPathAttr, it[0]);
      b.textContent = it[1];
      if (it[2]) b.title = it[2];
      frag.appendChild(b);
    });
    nav.appendChild(frag);
  }

  function highlight(nav, v, cats) {
    makeSidebar(nav);
    var vc = v ? cats[v] : "";
    var buttons = nav.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) {
      var b = buttons[i];
      var p = b.getAttribute(N().navPathAttr);
      var klass;
      if (!p || !Object.prototype.hasOwnProperty.call(cats, p)) klass = "nav-item top";
      else if (cats[p] === p) klass = "nav-item cat" + (p === vc ? " open" : "");
      else klass = "nav-item bench" + (cats[p] === vc ? " shown" : "");
      klass += p === v ? " active" : "";
      if (b.className !== klass) b.className = klass;
      if (p === v) b.setAttribute("aria-current", "page");
      else b.removeAttribute("aria-current");
    }
  }

  dc.mpl = {
    navigate: function (crumb, pick, cell, hdr, metric, view, tree) {
      var ctx = dc.callback_context;
      if (!ctx || !ctx.triggered || !ctx.triggered.length) return dc.no_update;
      var t = ctx.triggered[0];
      var k = t.prop_id.lastIndexOf(".");
      var id = t.prop_id.slice(0, k);
      view = viewOf(view);
      if (id.charAt(0) === "{") {
        if (!t.value) return dc.no_update; // a button that was just rendered (n_clicks 0)
        var o = JSON.parse(id);
        var path = o[N().keyTo];
        if (o[N().keyType] === N().typePick) {
          return path === view.m ? dc.no_update : want(view.v, path);
        }
        return want(path, "");
      }
      if (id === N().grid) return fromColumn(cell && cell.colId, view, tree);
      if (id === N().hdr) return fromColumn(hdr && hdr[N().hdrCol], view, tree);
      if (id === N().metricPick) {
        if (!metric || metric === view.m) return dc.no_update; // set by the server itself
        return want(view.v, metric);
      }
      return dc.no_update;
    },

    // the new figure of the curve, drawn after the browser has painted the updated table
    // (a Plotly redraw takes 30-70 ms; the table is what an edit is for)
    drawCurve: function (figure) {
      var n = (dc.callback_context.outputs_list || []).length;
      if (!figure || !n) return dc.no_update;
      return new Promise(function (resolve) {
        requestAnimationFrame(function () {
          afterGrid(function () {
            var out = [];
            for (var i = 0; i < n; i++) out.push(figure);
            resolve(out);
          });
        });
      });
    },

    // the sidebar's buttons (made on the first call) and their classes for the view; the
    // answer (the view's path) is the sidebar's attribute that tells which view it shows
    navClasses: function (view, tree) {
      var v = viewOf(view).v;
      var cats = (tree && tree[N().treeCat]) || {};
      var nav = document.getElementById(N().sidebar);
      if (nav) highlight(nav, v, cats);
      else requestAnimationFrame(function () {
        // the first render has not reached the page yet
        var later = document.getElementById(N().sidebar);
        if (later) highlight(later, v, cats);
      });
      return v;
    },
  };

  // a sidebar button: the view it names (Enter on a focused button clicks it too)
  document.addEventListener("click", function (e) {
    var target = e.target;
    if (!target || typeof target.closest !== "function" || !dc.set_props) return;
    var b = target.closest("button[" + N().navPathAttr + "]");
    if (!b || !b.parentElement || b.parentElement.id !== N().sidebar) return;
    dc.set_props(N().want, { data: want(b.getAttribute(N().navPathAttr), "") });
  });

  // ------------------------------------------------------------ the header of a drill / metric
  // column. AG Grid's header component interface ("Column Headers - Custom Components":
  // https://www.ag-grid.com/javascript-data-grid/column-headers-components/ , "Custom
  // Component - create a fully custom Header Component with complete control over rendering and
  // behaviour"), registered by name in dashAgGridComponentFunctions as dash-ag-grid's custom
  // components are (https://dash.plotly.com/dash-ag-grid/component-tooltip : "This JavaScript
  // function must be added to the dashAgGridComponentFunctions.js file in the assets folder";
  // a React component, React.createElement). The column's name is a <button> that opens the
  // view / selects the metric (the `hdr` store); the sort is a second <button> that asks the grid
  // for the next sort (IHeaderParams.progressSort(multiSort), Shift for a multi-sort) and shows
  // the column's sort (Column.getSort(), refreshed on the column's "sortChanged" event, as the
  // docs' example does). The grid keeps aria-sort on the header cell itself, and its keyboard
  // (AG Grid's Keyboard Interaction: Tab and the arrows move between header cells, Enter on one
  // sorts): so neither button is in the Tab order (tabIndex -1); a click or a screen reader
  // presses them.
  var ARROWS = { asc: "\u2191", desc: "\u2193" };
  var SORT_WORDS = { asc: "ascending", desc: "descending" };

  function openColumn(colId) {
    if (!dc.set_props) return;
    var data = {};
    data[N().hdrCol] = colId;
    data[N().wantTime] = Date.now();
    dc.set_props(N().hdr, { data: data });
  }

  function useSort(column) {
    var R = window.React;
    var state = R.useState(column.getSort() || "");
    R.useEffect(
      function () {
        var set = state[1];
        function changed() {
          set(column.getSort() || "");
        }
        column.addEventListener("sortChanged", changed);
        changed();
        return function () {
          column.removeEventListener("sortChanged", changed);
        };
      },
      [column]
    );
    return state[0];
  }

  // its name is short (the header cell is read with its buttons' names: "Iris, sort: none")
  function sortButton(props, sort) {
    return window.React.createElement(
      "button",
      {
        type: "button",
        className: "hdr-sort" + (sort ? " on" : ""),
        "aria-label": "sort: " + (SORT_WORDS[sort] || "none"),
        tabIndex: -1,
        onClick: function (e) {
          props.progressSort(e.shiftKey);
        },
      },
      ARROWS[sort] || "\u2195"
    );
  }

  function MplHeader(props) {
    var R = window.React;
    var column = props.column;
    var sort = useSort(column);
    var name = R.createElement(
      "button",
      {
        type: "button",
        className: "hdr-name",
        tabIndex: -1,
        onClick: function () {
          openColumn(column.getColId());
        },
      },
      props.displayName
    );
    return R.createElement(
      "span",
      { className: "hdr" },
      name,
      props.enableSorting ? sortButton(props, sort) : null
    );
  }

  var comps = (window.dashAgGridComponentFunctions = window.dashAgGridComponentFunctions || {});
  comps[N().headerComponent] = MplHeader;
})();
