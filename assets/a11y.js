/* What screen readers need from the controls Dash draws without a way to name them
 * (ml_peg_like/dashboard/a11y.py makes the names):
 * - dcc.Checklist / dcc.RadioItems (Dash 4) draw a "listbox" of "option" labels, each holding
 *   a real checkbox or radio button: an option may not hold a control, and the list has no
 *   name. The list becomes a named group (radio group) of plain labels: each control is then
 *   read as what it is, named by its label's text, inside the group named by the
 *   data-group-label of the element around it.
 * - dcc.Upload's file input takes no attributes: it is named by the data-file-label of the
 *   element around it.
 * The markup is checked again after Dash draws (a mutation observer, at most once a frame). */
(function () {
  "use strict";
  var LISTS = ".dash-checklist[role='listbox'], .dash-radioitems[role='listbox']";
  var OPTIONS = ".dash-checklist > [role='option'], .dash-radioitems > [role='option'], " +
    ".dash-checklist > [aria-selected], .dash-radioitems > [aria-selected]";
  var GROUP_ATTR = "data-group-label";
  var FILE_ATTR = "data-file-label";

  function nameFrom(el, attr) {
    var holder = el.closest("[" + attr + "]");
    return holder ? holder.getAttribute(attr) : null;
  }

  function fixLists(root) {
    root.querySelectorAll(LISTS).forEach(function (list) {
      var radio = list.classList.contains("dash-radioitems");
      list.setAttribute("role", radio ? "radiogroup" : "group");
      var name = nameFrom(list, GROUP_ATTR);
      if (name && list.getAttribute("aria-label") !== name) list.setAttribute("aria-label", name);
    });
    root.querySelectorAll(OPTIONS).forEach(function (label) {
      label.removeAttribute("role");
      label.removeAttribute("aria-selected");
    });
  }

  function fixFiles(root) {
    root.querySelectorAll("[" + FILE_ATTR + "] input[type='file']").forEach(function (input) {
      var name = nameFrom(input, FILE_ATTR);
      if (name && input.getAttribute("aria-label") !== name) input.setAttribute("aria-label", name);
    });
  }

  function fix() {
    fixLists(document);
    fixFiles(document);
  }

  var queued = false;
  function later() {
    if (queued) return;
    queued = true;
    window.requestAnimationFrame(function () {
      queued = false;
      fix();
    });
  }

  function start() {
    fix();
    new MutationObserver(later).observe(document.body, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ["role", "aria-selected"],
    });
  }

  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start);
})();
