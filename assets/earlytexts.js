/* Texts an edit writes outside its Dash outputs (ml_peg_like/dashboard/ids.py EARLY_TEXTS: the
 * robustness tau line below the grid), as {element id: text} in the edit's response. Dash's
 * request_post hook (components/rowsync.py EARLY_HOOK) writes each into its element's text node
 * the moment the response is parsed and takes the holder out of the response: no store update,
 * no re-render and no re-indexing of the page's paths (a server-side set_props of a `children`
 * costs all three, before the response's outputs are drawn). The element's own text
 * node is changed (nodeValue), so React's node stays in place. An element that is missing or
 * does not hold exactly one text node is left as it is (the holder is then set as Dash does, unused).
 * Names come from Python: window.mplNames. */
(function () {
  "use strict";
  var own = Object.prototype.hasOwnProperty;

  function N() {
    return window.mplNames || {};
  }

  function write(id, text) {
    var el = document.getElementById(id);
    if (!el || typeof text !== "string") return false;
    var node = el.firstChild;
    if (node === null || node.nodeType !== 3 || node.nextSibling !== null) return false;
    if (node.nodeValue !== text) node.nodeValue = text;
    return true;
  }

  (window.mplEarly = window.mplEarly || []).push(function (payload, response) {
    var out = response && response[N().earlyTexts];
    var texts = out && out[N().held];
    if (!texts || typeof texts !== "object") return;
    var all = true;
    for (var id in texts) {
      if (own.call(texts, id) && !write(id, texts[id])) all = false;
    }
    if (all) delete response[N().earlyTexts];
  });
})();
