/* Come back to your work (ml_peg_like/dashboard/components/controls/restore.py): the browser keeps the
 * last URL query that holds settings (localStorage, keyed by the page's path; never the
 * server) and offers it back when the plain address is opened. The line's count is the number
 * of changed fields in the kept ?s= (base64url JSON "j...", or deflated JSON "z...", inflated
 * with the browser's DecompressionStream: the callback then returns a Promise), plus one for a
 * missing-data policy; a model filter is named. Names come from window.mplNames (ids.py). */
(function () {
  "use strict";
  var dc = (window.dash_clientside = window.dash_clientside || {});
  var PREFIX = "mpl-last-query:";
  var LEAD = "Restore your last settings";
  var hadSettings = false; // this page has shown settings since it opened

  function N() {
    return window.mplNames || {};
  }

  function key() {
    return PREFIX + window.location.pathname;
  }

  function recall() {
    try {
      return window.localStorage.getItem(key()) || "";
    } catch (e) {
      return ""; // no storage (private mode): nothing is kept
    }
  }

  function keep(query) {
    try {
      if (query) window.localStorage.setItem(key(), query);
      else window.localStorage.removeItem(key());
    } catch (e) {
      /* no storage: nothing is kept */
    }
  }

  function params(query) {
    return new URLSearchParams(query || "");
  }

  function holdsSettings(p) {
    return Boolean(p.get(N().qState) || p.get(N().qMissing) || p.get(N().qFilter));
  }

  function bytesOf(body) {
    var b64 = body.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var bin = window.atob(b64);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function countFields(changes) {
    var n = 0;
    if (!changes || typeof changes !== "object") return null;
    Object.keys(changes).forEach(function (path) {
      var fields = changes[path];
      if (fields && typeof fields === "object") n += Object.keys(fields).length;
    });
    return n;
  }

  /* The number of changed fields in an ?s= value: a number, a Promise of one ("z"), or null
   * when it cannot be read. */
  function settingsCount(text) {
    if (!text) return 0;
    try {
      var bytes = bytesOf(text.slice(1));
      if (text[0] === "j") return countFields(JSON.parse(new TextDecoder().decode(bytes)));
      if (text[0] !== "z" || typeof DecompressionStream === "undefined") return null;
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
      return new Response(stream)
        .text()
        .then(function (t) {
          return countFields(JSON.parse(t));
        })
        .catch(function () {
          return null;
        });
    } catch (e) {
      return null;
    }
  }

  function describe(p, count) {
    if (count === null) return LEAD;
    var n = count + (p.get(N().qMissing) ? 1 : 0);
    var parts = [];
    if (n) parts.push(n + (n === 1 ? " change" : " changes"));
    if (p.get(N().qFilter)) parts.push("a model filter");
    return parts.length ? LEAD + ": " + parts.join(" and ") : LEAD;
  }

  function offer(kept) {
    var p = params(kept);
    var count = settingsCount(p.get(N().qState));
    if (count && typeof count.then === "function") {
      return count.then(function (c) {
        return [false, describe(p, c)];
      });
    }
    return [false, describe(p, count)];
  }

  dc.mplRestore = {
    /* On every change of the URL's query: keep one with settings; offer the kept one on the
     * plain address; forget it when the page's settings are all undone. */
    remember: function (search) {
      var nu = dc.no_update;
      if (holdsSettings(params(search))) {
        hadSettings = true;
        keep(search);
        return [true, nu];
      }
      if (hadSettings) {
        hadSettings = false;
        keep("");
        return [true, nu];
      }
      var plain = !search && !window.location.search;
      var kept = recall();
      return plain && kept ? offer(kept) : [nu, nu];
    },
    restore: function (clicks) {
      var kept = recall();
      if (!clicks || !kept) return [dc.no_update, true];
      return [kept, true];
    },
    dismiss: function (clicks) {
      if (!clicks) return dc.no_update;
      keep("");
      return true;
    },
  };
})();
