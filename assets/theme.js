/* The light / dark theme, and the sidebar's menu and the toolbar's tools buttons (narrow
 * screens: each folds its part away until pressed).
 * The theme follows the system setting (prefers-color-scheme) until the user picks one with the
 * header's button; the choice is remembered (localStorage). It sets data-theme (the page's CSS,
 * the plots' CSS) and data-ag-theme-mode on the root element and body: AG Grid's documented
 * theme modes ("Theming: Colours & Dark Mode", Theme Modes:
 * https://www.ag-grid.com/javascript-data-grid/theming-colors/#theme-modes), which switch the
 * grid's theme (components/board/grid.py GRID_THEME: withParams(..., 'light' / 'dark')).
 * Ids come from Python: window.mplNames (ml_peg_like/dashboard/ids.py). */
(function () {
  "use strict";
  var KEY = "mpl-theme";
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function N() {
    return window.mplNames || {};
  }

  var picked = null; // the choice when the browser keeps none (private mode)

  function chosen() {
    var v = picked;
    try {
      v = window.localStorage.getItem(KEY) || picked;
    } catch (e) {
      /* no storage: the choice of this page */
    }
    return v === "dark" || v === "light" ? v : null;
  }

  function current() {
    return chosen() || (media && media.matches ? "dark" : "light");
  }

  function apply() {
    var t = current();
    var root = document.documentElement;
    root.setAttribute("data-theme", t);
    root.setAttribute("data-ag-theme-mode", t);
    if (document.body) document.body.setAttribute("data-ag-theme-mode", t);
    root.style.colorScheme = t;
    // the plots drawn in the browser take the theme's colours when drawn (livecurve.js): draw
    // them again in the new one
    if (window.mplLive && typeof window.mplLive.redraw === "function") window.mplLive.redraw();
    // the grid colours its score cells for the theme (scoreStyle): draw them again
    // (dash-ag-grid's getApi, AG Grid's refreshCells)
    var dag = window.dash_ag_grid;
    if (!dag || !dag.getApi || !N().grid) return;
    try {
      dag.getApi(N().grid).refreshCells({ force: true });
    } catch (e) {
      /* not drawn yet: it is drawn with the theme */
    }
  }

  apply();
  if (media) {
    var follow = function () {
      if (!chosen()) apply();
    };
    if (media.addEventListener) media.addEventListener("change", follow);
    else if (media.addListener) media.addListener(follow);
  }
  document.addEventListener("DOMContentLoaded", apply);

  function closestId(target, id) {
    return target && typeof target.closest === "function" && id ? target.closest("#" + id) : null;
  }

  document.addEventListener("click", function (e) {
    if (closestId(e.target, N().themeToggle)) {
      var next = current() === "dark" ? "light" : "dark";
      picked = next;
      try {
        window.localStorage.setItem(KEY, next);
      } catch (err) {
        /* private mode: the choice lasts for this page only */
      }
      apply();
      return;
    }
    var menu = closestId(e.target, N().menuToggle);
    var tools = closestId(e.target, N().toolsToggle);
    var app = document.querySelector(".app");
    if (!app) return;
    if (menu || tools) {
      var cls = menu ? "menu-open" : "tools-open";
      var open = !app.classList.contains(cls);
      app.classList.toggle(cls, open);
      (menu || tools).setAttribute("aria-expanded", open ? "true" : "false");
    } else if (closestId(e.target, N().sidebar) && e.target.closest("button")) {
      app.classList.remove("menu-open"); // a choice in the menu closes it
    }
  });
})();
