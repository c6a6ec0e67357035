/* The stability intervals beside the weight and threshold boxes (components/sensitivity.py).
 * The edit callback sends them as ONE output, {box name: text} of every box of the view as JSON in
 * an attribute of a hidden element (ids.SENS_TEXTS, ids.ATTR_TEXTS), instead of one Dash output
 * per box (each rendered as its own component: ~40 ms per edit at 30 boxes). A MutationObserver
 * on that attribute (no Dash callback: a clientside callback's round of the renderer cost more
 * than the texts) writes each text into the holder beside its box, by textContent (a name may
 * hold HTML-like text). The boxes of a view are re-rendered on navigation: a MutationObserver on
 * the settings panel writes the last texts again once new holders are in the DOM. Texts none of
 * whose names are on screen belong to another view and are left alone; otherwise a holder whose
 * name they lack is emptied.
 * Names are read from window.mplNames (ml_peg_like/dashboard/ids.py). */
(function () {
  "use strict";
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
    if (!root || root === watched) return;
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

  function texts(el) {
    var raw = el.getAttribute(N().textsAttr);
    if (!raw) return;
    try {
      last = JSON.parse(raw);
    } catch (e) {
      return;
    }
    watch();
    write(last);
  }

  if (typeof MutationObserver === "undefined") return;
  // only this attribute's changes are reported (the holder element is found by the record)
  new MutationObserver(function (records) {
    for (var r = 0; r < records.length; r++) {
      var el = records[r].target;
      if (el.id === N().sensTexts) texts(el);
    }
  }).observe(document.documentElement, {
    subtree: true,
    attributes: true,
    attributeFilter: [N().textsAttr],
  });
})();
