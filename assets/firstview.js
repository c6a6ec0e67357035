/* The first view (ml_peg_like/dashboard/firstview.py): the page's HTML shows the overview's
 * ranking until the grid shows its first rows; then it goes and the app, rendered underneath
 * and laid out but invisible until then (style.css), is what the page shows.
 * Ids come from Python: window.mplNames (ml_peg_like/dashboard/ids.py). */
(function () {
  "use strict";
  var N = window.mplNames || {};
  var first = N.firstView ? document.getElementById(N.firstView) : null;
  if (!first || !window.MutationObserver) return;
  var cells = "#" + N.grid + ' .ag-cell[col-id="' + N.colModel + '"]';

  function drawn() {
    var found = document.querySelectorAll(cells);
    for (var i = 0; i < found.length; i++) {
      if (found[i].textContent.trim()) return true; // a large table's rows come empty first
    }
    return false;
  }

  // a grid with no rows to draw (an empty board): its overlay says so
  function empty() {
    return !!document.querySelector("#" + N.grid + " .ag-overlay-no-rows-center");
  }

  var watch = new MutationObserver(function () {
    if (!drawn() && !empty()) return;
    done();
  });

  function done() {
    watch.disconnect();
    if (first.parentNode) first.remove();
  }

  watch.observe(document.body, { childList: true, subtree: true, characterData: true });
  // whatever happens, the app is not kept hidden once the page has loaded for a while
  // (this script may run after the load event: firstpage.py starts the scripts after the paint)
  if (document.readyState === "complete") setTimeout(done, 20000);
  else {
    window.addEventListener("load", function () {
      setTimeout(done, 20000);
    });
  }
})();
