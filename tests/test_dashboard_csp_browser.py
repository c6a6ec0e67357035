"""The page's strict Content-Security-Policy in a real browser: the dashboard works under it
(an edit, a benchmark view with its curve, Explore, Compare: Plotly.js and AG Grid) without a
single CSP violation, and a script injected into the page does not run."""

from __future__ import annotations

import pytest
from browser_utils import GRID_READY, VIEWPORT, chromium, live_server, require_browser
from browser_utils import small_dataset as small_dataset
from test_dashboard_browser import IRIS_ACC, commit, goto_view

from ml_peg_like.dashboard import create_app
from ml_peg_like.serving.csp import inline_hashes

pytestmark = pytest.mark.browser

#: collects every CSP violation of the page (an init script: it runs before the page's own)
WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push([e.violatedDirective, e.blockedURI, e.sample].join(' | '));
});
"""

PLOT = "(sel) => { const g = document.querySelector(sel + ' .js-plotly-plot');" \
    " return !!(g && g.data && g.data.length); }"  # fmt: skip


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    require_browser()
    cfg, raw = small_dataset(tmp_path_factory.mktemp("small"))
    app = create_app(cfg, raw, robustness=False)
    with live_server(app) as url, chromium() as browser:
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(WATCH)
        page = context.new_page()
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        try:
            yield dict(url=url, page=page, problems=problems, app=app)
        finally:
            context.close()


def _violations(page) -> list[str]:
    return page.evaluate("() => window.__csp.slice()")


def test_the_page_policy_is_strict_and_names_the_pages_inline_scripts(env):
    r = env["page"].goto(env["url"] + "/")
    policy = r.headers["content-security-policy"]
    script_src = next(d for d in policy.split("; ") if d.startswith("script-src "))
    assert "unsafe-inline" not in script_src and "unsafe-eval" not in policy
    html = r.body().decode()
    hashes = inline_hashes(html)
    # the theme, the names, Dash's clientside functions, the renderer's start, the loader
    assert len(hashes) == 5
    assert script_src == " ".join(["script-src 'self'", *hashes])
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy


def test_edit_curve_explore_and_compare_raise_no_violation(env):
    page, url = env["page"], env["url"]
    page.goto(url + "/")
    page.wait_for_selector(GRID_READY)
    goto_view(page, "Classification/Iris")
    page.wait_for_function(PLOT, arg="#curve")
    commit(page, IRIS_ACC, "bad", "0.6")  # an edit: the JS engine, then the server
    page.wait_for_function(
        "() => document.querySelector('#curve .js-plotly-plot').layout.shapes"
        ".filter(s => s.type === 'line')[0].x0 === 0.6"
    )
    page.wait_for_function(PLOT, arg="#bench-fig")
    page.goto(url + "/?v=explore&x=Classification&y=overall")
    page.wait_for_function(PLOT, arg="#explore-graph")
    page.goto(url + "/?v=compare&models=Ridge,RandomForest")
    page.wait_for_selector("#compare-table")
    page.wait_for_function(PLOT, arg="#compare-graph")
    page.wait_for_timeout(300)
    assert _violations(page) == []
    assert not [p for p in env["problems"] if "Content Security Policy" in p], env["problems"]


def test_every_view_of_the_sidebar_raises_no_violation(env):
    page, url = env["page"], env["url"]
    page.goto(url + "/")
    page.wait_for_selector(GRID_READY)
    paths = page.evaluate(
        "() => [...document.querySelectorAll('#sidebar .nav-item')].map(b => b.dataset.path)"
    )
    assert len(paths) >= 8  # the overview, 3 categories, 4 benchmarks, Explore, Compare...
    for path in paths:
        goto_view(page, path)
        page.wait_for_timeout(150)
    page.wait_for_timeout(300)
    assert _violations(page) == []


def test_an_injected_script_does_not_run(env):
    page, url = env["page"], env["url"]
    page.goto(url + "/")
    page.wait_for_selector(GRID_READY)
    ran = page.evaluate(
        """() => {
          window.__ran = [];
          const s = document.createElement('script');
          s.text = 'window.__ran.push("inline")';
          document.body.appendChild(s);
          const d = document.createElement('div');
          d.innerHTML = '<img src="data:," onerror="window.__ran.push(\\'handler\\')">';
          document.body.appendChild(d);
          return new Promise((ok) => setTimeout(() => ok(window.__ran), 300));
        }"""
    )
    assert ran == []
    seen = _violations(page)
    assert len(seen) == 2, seen
    assert seen[0].startswith("script-src-elem | inline")
    assert seen[1].startswith("script-src-attr | inline")
