/* The page's scripts, started after the first paint (ml_peg_like/dashboard/firstpage.py,
 * deferred_scripts). The page's HTML holds the first view (firstview.py); with ~3 MB of
 * scripts after it in the body, the browser compiled and ran them before painting anything
 * (~0.2 s at ML-PEG scale on a 2-core machine). Here they are added once the first frame is
 * painted, in the page's order: the files of a run are fetched together and run in order
 * (async = false), an inline script waits for the files before it. A failed file is passed
 * over as the page itself would. A page in a background tab (no frames) starts them at once.
 * The scripts wait, inert, in the <template> the argument names (names: firstpage.py).
 *
 * A page kept from the server's last start (earlypage.py: the template has names.early) is
 * shown while the server starts; before its scripts run, the app's own page is asked for
 * (names.boot: the server answers it once the app is up) and its scripts, Dash's config and
 * its first view take the kept ones' place. */
(function (names) {
  "use strict";
  var kept = document.getElementById(names.holder);
  var list = kept ? kept.content.querySelectorAll("script") : [];
  var i = 0;
  var started = false;

  function make(s) {
    // a new element: one from the template, moved, would not run
    var el = document.createElement("script");
    for (var k = 0; k < s.attributes.length; k++) {
      el.setAttribute(s.attributes[k].name, s.attributes[k].value);
    }
    return el;
  }

  function next() {
    var last = null; // the last file added and not yet run
    while (i < list.length) {
      var s = list[i];
      if (s.hasAttribute("src")) {
        last = make(s);
        last.async = false;
        document.body.appendChild(last);
        i++;
        continue;
      }
      if (last) {
        last.onload = last.onerror = next; // the files before this inline script run first
        return;
      }
      var el = make(s);
      el.text = s.textContent;
      document.body.appendChild(el);
      i++;
    }
  }

  // the files after the first inline script wait for it to run; fetched now, together with
  // the first run's, they are there when their turn comes (the same request as the element's).
  // all: every file (a kept page's, asked for while the app's own page is awaited)
  function prefetch(all) {
    var inline = false;
    for (var k = 0; k < list.length; k++) {
      var s = list[k];
      if (!s.hasAttribute("src")) inline = true;
      else if (inline || all) {
        var link = document.createElement("link");
        link.rel = "preload";
        link.as = "script";
        link.href = s.getAttribute("src");
        document.head.appendChild(link);
      }
    }
  }

  function run(fetched) {
    if (!fetched) prefetch(false);
    next();
  }

  // the app's own page in place of a kept one: its scripts, its config, its first view
  function fresh(text) {
    var doc = new DOMParser().parseFromString(text, "text/html");
    var scripts = doc.getElementById(names.holder);
    if (scripts) list = scripts.content.querySelectorAll("script");
    [names.config, names.first].forEach(function (id) {
      var now = document.getElementById(id);
      var got = doc.getElementById(id);
      if (now && got && now.outerHTML !== got.outerHTML) {
        now.replaceWith(document.importNode(got, true));
      }
    });
  }

  function boot() {
    prefetch(true); // the server answers them with the app's page, once the app is up
    var headers = {};
    headers[names.boot] = "1";
    fetch(location.pathname + location.search, { headers: headers, credentials: "same-origin" })
      .then(function (r) {
        return r.ok ? r.text() : "";
      })
      .then(function (text) {
        if (text) fresh(text);
      })
      .catch(function () {}) // the kept scripts then: the page still starts
      .then(function () {
        run(true);
      });
  }

  function start() {
    if (started) return;
    started = true;
    setTimeout(function () {
      // after the frame this callback belongs to is painted
      if (kept && kept.hasAttribute(names.early)) boot();
      else run(false);
    }, 0);
  }

  if (document.visibilityState === "hidden" || !window.requestAnimationFrame) start();
  else requestAnimationFrame(start);
  document.addEventListener("visibilitychange", start); // hidden before its first frame
})(MPL_NAMES);
