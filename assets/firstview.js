/* The first view (ml_peg_like/dashboard/firstview.py): the page's HTML shows the overview's
 * ranking until the grid shows its first rows; then it goes and the app, rendered underneath
 * and laid out but invisible until then (style.css), is what the page shows.
 * When: the grid's "firstDataRendered" event ("Fired the first time data is rendered into the
 * grid", AG Grid's Grid Events reference; raised after "gridReady", AG Grid's Grid Lifecycle:
 * https://www.ag-grid.com/javascript-data-grid/grid-lifecycle/), which the grid's listener
 * (mplFirstRows, assets/dashAgGridFunctions.js, given through dash-ag-grid's documented
 * `eventListeners` prop: "Object of Eventlisteners to add upon grid ready") passes on to
 * window.mplFirstView. The listener is added once the grid is ready, and a grid may draw its
 * first rows before that (as it does here), or have none to draw (an empty board): so once the
 * grid's API answers (dash-ag-grid's dash_ag_grid.getApi), the first view goes at once when
 * the grid has no displayed row (getDisplayedRowCount) or has drawn rows (getRenderedNodes).
 * Ids come from Python: window.mplNames (ml_peg_like/dashboard/ids.py). */
(function () {
  "use strict";
  var N = window.mplNames || {};
  var first = N.firstView ? document.getElementById(N.firstView) : null;
  if (!first) return;
  var watch = null;
  var asked = false;

  function done() {
    if (watch) watch.disconnect();
    watch = null;
    if (first.parentNode) first.remove();
  }
  window.mplFirstView = { rows: done };

  // the grid's API once it answers, else null (not drawn yet)
  function api() {
    var dag = window.dash_ag_grid;
    try {
      return dag && dag.getApi ? dag.getApi(N.grid) : null;
    } catch (e) {
      return null;
    }
  }

  // at most once a frame while the page is drawn: does the grid answer yet? Then either it has
  // no row to draw, or it drew its first rows already (getRenderedNodes: the rows it drew), or
  // they come with the event
  function check() {
    asked = false;
    var a = api();
    if (!a) return;
    if (watch) watch.disconnect();
    watch = null;
    if (!a.getDisplayedRowCount() || a.getRenderedNodes().length) done();
  }

  if (window.MutationObserver) {
    watch = new MutationObserver(function () {
      if (asked) return;
      asked = true;
      requestAnimationFrame(check);
    });
    watch.observe(document.body, { childList: true, subtree: true });
  }
  // whatever happens, the app is not kept hidden once the page has loaded for a while
  // (this script may run after the load event: firstpage.py starts the scripts after the paint)
  if (document.readyState === "complete") setTimeout(done, 20000);
  else {
    window.addEventListener("load", function () {
      setTimeout(done, 20000);
    });
  }
})();
