/* The settings upload's size limit, in the browser. dcc.Upload (max_size) neither reads nor sends a
 * file above the limit, and says nothing: this says why in the status line at once. The limit, the
 * text and the ids come from window.mplNames (ml_peg_like/dashboard/ids.py, server.py); this file
 * spells none of them. */
(function () {
  "use strict";

  function N() {
    return window.mplNames || {};
  }

  function check(target, files) {
    var holder = target && target.closest ? target.closest("#" + N().upload) : null;
    var file = files && files.length ? files[0] : null;
    if (!holder || !file || !(file.size > N().uploadMax)) {
      return;
    }
    var dc = window.dash_clientside;
    if (!dc || !dc.set_props) {
      return;
    }
    dc.set_props(N().status, {
      children: {
        type: "Div",
        namespace: "dash_html_components",
        props: {
          children: file.name + " was not applied: " + N().uploadTooBig,
          className: "status-msg err",
        },
      },
    });
  }

  // capture phase: seen before the upload's own handlers (which are left to run)
  document.addEventListener(
    "change",
    function (e) {
      check(e.target, e.target && e.target.files);
    },
    true
  );
  document.addEventListener(
    "drop",
    function (e) {
      check(e.target, e.dataTransfer && e.dataTransfer.files);
    },
    true
  );
})();
