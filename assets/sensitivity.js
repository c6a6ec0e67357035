/* The stability intervals beside the weight and threshold boxes (components/board/sensitivity.py).
 * The edit callback sends them as ONE store, {box name: text} of every box of the view, instead
 * of one Dash output per box (each rendered as its own component: ~40 ms per edit at 30 boxes).
 * mplSens.texts (a clientside callback on that store, no server request) writes each text into
 * the holder beside its box, by textContent (a name may hold HTML-like text). The boxes of a view
 * are re-rendered on navigation: a MutationObserver on the settings panel writes the last texts
 * again once new holders are in the DOM. A store none of whose names is on screen belongs to
 * another view and is left alone; otherwise a holder whose name it lacks is emptied.
 * Names are read from window.mplNames (ml_peg_like/dashboard/ids.py). */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});
  var own = Object.prototype.hasOwnProperty;
  var last = null;
  var watched = null;

  function N() {
    return window.mplNames || {};
  }

  function write(texts) {
    if (!texts || typeof texts !== "object") return;
    var root = document.getElementById(N().settings);
    if (!root) return;
    var holders = root.getElementsByClassName(N().intervalClass);
    var mine = false;
    var i;
    for (i = 0; i < holders.length && !mine; i++) {
      mine = own.call(texts, holders[i].getAttribute(N().boxAttr));
    }
    if (!mine) return;
    for (i = 0; i < holders.length; i++) {
      var el = holders[i];
      var t = texts[el.getAttribute(N().boxAttr)];
      if (typeof t !== "string") t = "";
      if (el.textContent !== t) el.textContent = t;
    }
  }

  function watch() {
    var root = document.getElementById(N().settings);
    if (!root || root === watched || typeof MutationObserver === "undefined") return;
    watched = root;
    new MutationObserver(function (records) {
      for (var r = 0; r < records.length; r++) {
        var added = records[r].addedNodes;
        for (var k = 0; k < added.length; k++) {
          if (added[k].nodeType === 1) {
            write(last); // new elements (a re-rendered panel): our own text writes add none
            return;
          }
        }
      }
    }).observe(root, { childList: true, subtree: true });
  }

  dc.mplSens = {
    texts: function (texts) {
      last = texts;
      watch();
      write(texts);
    },
  };
})();
