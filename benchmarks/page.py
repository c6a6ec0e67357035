"""The page-side stamps the dashboard benchmarks share, and what the engine expects the page to
show after an edit.

An edit is timed in the page itself: :data:`INSTALL` adds a capture-phase ``keydown`` listener
that stamps the Enter (``performance.now()``) and ``__arm(expected)``, a MutationObserver on the
grid that resolves ``window.__done`` at the first DOM state where every rendered Overall cell
shows the engine's text for its model (``expected``: model -> text).
"""

from __future__ import annotations

import json

from ml_peg_like import score
from ml_peg_like.dashboard.firstview import PAINT_MARK
from ml_peg_like.numfmt import fmt_score
from ml_peg_like.serving.earlypage import EARLY_ATTR

INSTALL = """() => {
  window.__t0 = null;
  document.addEventListener('keydown', e => {
    if (e.key === 'Enter') window.__t0 = performance.now();
  }, true);
  window.__collect = () => {
    const names = {}, vals = {};
    document.querySelectorAll('#grid .ag-row').forEach(r => {
      const i = r.getAttribute('row-index');
      const m = r.querySelector('.ag-cell[col-id="model"]');
      if (m) names[i] = m.textContent;
      const c = r.querySelector('.ag-cell[col-id="o"]');
      if (c) vals[i] = c.textContent.trim();
    });
    return [names, vals];
  };
  window.__arm = (expected) => {
    window.__done = new Promise(resolve => {
      const ok = () => {
        const [names, vals] = window.__collect();
        let n = 0;
        for (const i in vals) {
          if (!(i in names)) continue;
          if (expected[names[i]] !== vals[i]) return false;
          n++;
        }
        return n > 0;
      };
      const obs = new MutationObserver(() => {
        if (ok()) { obs.disconnect(); resolve(performance.now()); }
      });
      obs.observe(document.querySelector('#grid'),
                  {subtree: true, childList: true, characterData: true, attributes: true});
    });
  };
}"""

#: the first rows are drawn (a model's name in the grid)
FIRST_ROWS = """() => [...document.querySelectorAll('#grid .ag-cell[col-id="model"]')]
  .some(c => c.textContent.trim())"""

#: when the first view's best overall score was painted (ms from navigation: the browser's
#: Element Timing entry of ``firstview.PAINT_MARK``); NaN where the page has no first view
PAINTED = (
    """() => new Promise((done) => {
  try {
    new PerformanceObserver((list) => {
      const e = list.getEntries().find((x) => x.identifier === "MARK");
      if (e) done(e.renderTime || e.loadTime);
    }).observe({ type: "element", buffered: true });
  } catch (err) { done(NaN); }
  setTimeout(() => done(NaN), 3000);
})"""
).replace("MARK", PAINT_MARK)

#: whether the page came from the server's kept copy (earlypage.py), before its app was up
KEPT = "() => !!document.querySelector('template[EARLY]')".replace("EARLY", EARLY_ATTR)

#: the responses of an edit: the server callbacks
EDIT_URLS = ("_dash-update-component",)

#: ms from ``t0`` (the Enter) to the end of the last callback response that started after it
ALL_DONE = """(t0) => Math.max(0, ...performance.getEntriesByType('resource')
  .filter(e => URLS.some(u => e.name.includes(u)) && e.startTime >= t0 - 1)
  .map(e => e.responseEnd - t0))""".replace("URLS", json.dumps(EDIT_URLS))


def influential_metric(cfg) -> str:
    """The metric with the largest share of the overall weight (its edits move the ranking)."""
    best, share = "", -1.0
    wc = sum(c.weight for c in cfg.categories)
    for c in cfg.categories:
        wb = sum(b.weight for b in c.benchmarks)
        for b in c.benchmarks:
            wm = sum(m.weight for m in b.metrics)
            for m in b.metrics:
                if not m.norm.uses_thresholds or not isinstance(m.good, float):
                    continue
                s = (c.weight / wc) * (b.weight / wb) * (m.weight / wm)
                if s > share:
                    best, share = f"{c.name}/{b.name}/{m.name}", s
    return best


def overall_texts(raw, cfg, changes: dict) -> dict[str, str]:
    """model -> the Overall cell's text the engine gives for ``changes``."""
    new = score(raw, cfg.apply_changes(changes))
    return {m: fmt_score(v, cfg.scale) for m, v in new.overall["score"].items()}


def typed_edit(page, box: str, text: str, expected: dict) -> float:
    """Arm :data:`INSTALL`'s stamps for ``expected`` (model -> Overall text), type ``text``
    into the input named ``box`` (``PATH.good``, ``CATEGORY.weight``) and press Enter; the ms
    from the Enter until the cells show it."""
    page.evaluate("(e) => window.__arm(e)", expected)
    loc = page.locator(f"input[name={json.dumps(box, ensure_ascii=False)}]")
    loc.fill(text)
    loc.press("Enter")
    return page.evaluate("async () => (await window.__done) - window.__t0")


def threshold_edit(page, raw, cfg, path: str, value: float) -> float | None:
    """Type ``value`` into ``path``'s good box; the ms until every rendered Overall cell shows
    the engine's text, or None (nothing typed) when no rendered cell would change."""
    expected = overall_texts(raw, cfg, {path: {"good": value}})
    names, vals = page.evaluate("() => window.__collect()")
    shown = {names[r]: vals[r] for r in vals if r in names}
    if all(expected.get(m) == t for m, t in shown.items()):
        return None
    text = f"{value:.6g}" if abs(value) < 1e6 else repr(value)
    return typed_edit(page, f"{path}.good", text, expected)
