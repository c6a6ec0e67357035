/* The page's digits control: the significant digits of the scores in the grid.
 * fmtScore (dashAgGridFunctions.js) reads window.mplNames.digits; after a change the grid's
 * cells are formatted again (no server round trip). */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});
  dc.mplfmt = {
    setDigits: function (digits) {
      var names = window.mplNames || {};
      var n = parseInt(digits, 10);
      if (!isFinite(n)) n = 3;
      names.digits = Math.min(8, Math.max(1, n));
      window.mplNames = names;
      var dag = window.dash_ag_grid;
      if (dag && dag.getApi && names.grid) {
        try {
          var api = dag.getApi(names.grid);
          if (api) api.refreshCells({ force: true });
        } catch (e) {
          /* the grid is not drawn yet: its first render uses the new digits */
        }
      }
      return names.digits;
    },
  };
})();
