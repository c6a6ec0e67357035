"""The first view in the page's HTML (fast start; dashboard/firstview.py): the
overview's ranking drawn by the server before any script runs, exactly as the grid then shows
it, and only where the page shows exactly that (no query)."""

from __future__ import annotations

import html as htmllib
import re

import pandas as pd
import pytest
from browser_utils import (
    GRID_READY,
    VIEWPORT,
    chromium,
    live_server,
    open_dashboard,
    require_browser,
    small_dataset,
)

from ml_peg_like import score
from ml_peg_like.dashboard import create_app, ids
from ml_peg_like.dashboard.firstpage import deferred_scripts
from ml_peg_like.dashboard.firstview import FIRST_ROWS, score_colour
from ml_peg_like.numfmt import fmt_score
from ml_peg_like.serving.earlypage import BOOT_HEADER, EARLY_ATTR, SCRIPTS_HOLDER

FIRST = f"#{ids.FIRST_VIEW}"


def test_score_colour_by_hand():
    # the stops themselves (traffic lights land on them), halfway between two stops, clipping
    assert score_colour(0.0) == "rgb(243,168,160)"
    assert score_colour(0.5) == "rgb(252,212,150)"
    assert score_colour(1.0) == "rgb(160,214,165)"
    # 0.25: (243+252)/2 = 247.5 -> 248 (JS Math.round), (168+212)/2 = 190, (160+150)/2 = 155
    assert score_colour(0.25) == "rgb(248,190,155)"
    # 0.75: (252+160)/2 = 206, (212+214)/2 = 213, (150+165)/2 = 157.5 -> 158
    assert score_colour(0.75) == "rgb(206,213,158)"
    assert score_colour(-3) == score_colour(0.0) and score_colour(7) == score_colour(1.0)


def _rows(page_html: str) -> list[list[str]]:
    """The first view's table as texts, one list per row (the tick column left out)."""
    body = page_html[page_html.index('<table class="first-table"') :]
    body = body[: body.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1])
    return [[htmllib.unescape(t) for t in re.findall(r"<td[^>]*>(.*?)</td>", r)][1:] for r in rows]


def _heads(page_html: str) -> list[str]:
    """The first view's column names (the tick column left out)."""
    head = page_html[page_html.index('<table class="first-table"') :]
    head = head[: head.index("</thead>")]
    return [htmllib.unescape(t) for t in re.findall(r"<th[^>]*>(.*?)</th>", head)][1:]


def test_the_page_html_holds_the_overview_ranking(tmp_path):
    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    client = app.server.test_client()
    page = client.get("/").get_data(as_text=True)
    # before the app's own element, after the header's template
    assert page.index(f'id="{ids.FIRST_VIEW}"') < page.index('id="react-entry-point"')
    s = score(raw, cfg)
    ranked = s.overall.sort_values("rank", kind="stable")  # no rank (<NA>): last
    rows = _rows(page)
    assert len(rows) == min(FIRST_ROWS, len(raw.models))
    # columns: rank, change, model, overall, then one per category (this config: invalidate);
    # a rank shows as the grid's fmtRank does: "=2" when shared, "—" without a score
    want_ranks = [
        "\u2014" if pd.isna(v) else ("=" if t else "") + str(int(v))
        for v, t in zip(ranked["rank"], ranked["tied"], strict=True)
    ]
    assert "\u2014" in want_ranks  # this board has a model without an overall score
    assert [r[0] for r in rows] == want_ranks
    assert [r[2] for r in rows] == list(ranked.index)
    assert [r[3] for r in rows] == [fmt_score(v, cfg.scale) for v in ranked["score"]]
    heads = _heads(page)
    for c in cfg.categories:
        want = [fmt_score(v, cfg.scale) for v in s.categories[c.name].loc[ranked.index]]
        assert [r[heads.index(c.name)] for r in rows] == want
    # the page's own layout before its scripts ran: the header, the toolbar's labels and the
    # sidebar's entries, without a second copy of any id (the app's elements keep theirs)
    first = page[page.index(f'<div id="{ids.FIRST_VIEW}"') : page.index('id="react-entry-point"')]
    assert re.findall(r'\sid="([^"]+)"', first) == [ids.FIRST_VIEW]
    for text in (cfg.title, "Models", "Export", "Overview", "Explore", "Compare"):
        assert f">{text}<" in first, text
    assert "Iris" not in first  # a benchmark's entry shows under an open category only
    # names are text, never markup (a category is called "Speed <b>&amp;</b> <script>x</script>")
    first = page[page.index(f'id="{ids.FIRST_VIEW}"') : page.index('id="react-entry-point"')]
    assert "<script>" not in first and "<b>" not in first
    assert "&lt;script&gt;x&lt;/script&gt;" in first
    # a link (any query) or another path: the app decides what it shows, no first view
    for url in ("/?v=Classification", "/?s=x", "/anything"):
        assert f'id="{ids.FIRST_VIEW}"' not in client.get(url).get_data(as_text=True)


@pytest.mark.browser
def test_the_first_view_is_what_the_grid_then_shows(tmp_path):
    require_browser()
    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    values = [0, 0.1, 0.25, 1 / 3, 0.5, 0.5000001, 0.75, 0.999, 1, -0.2, 1.4]
    with live_server(app) as url, chromium() as browser:
        # 1. without JavaScript: the ranking is there, in the page itself
        ctx = browser.new_context(viewport=VIEWPORT, java_script_enabled=False)
        page = ctx.new_page()
        page.goto(url)
        static = page.evaluate(
            """(sel) => [...document.querySelectorAll(sel + ' .first-table tbody tr')].map(tr =>
                [...tr.querySelectorAll('td')].slice(1, 5).map(td => td.textContent))""",
            FIRST,
        )
        assert page.locator(FIRST).is_visible()
        ctx.close()
        # 2. the app kept from removing it: its rows are the grid's first rows, cell for cell
        ctx = browser.new_context(viewport=VIEWPORT)
        page = ctx.new_page()
        page.route("**/firstview.js*", lambda r: r.fulfill(body="", content_type="text/javascript"))
        page.goto(url)
        page.wait_for_selector(f"#{ids.GRID} {GRID_READY}", state="attached")
        grid = page.evaluate(
            """(grid) => {
              const rows = [...document.querySelectorAll('#' + grid + ' .ag-center-cols-container'
                  + ' .ag-row, #' + grid + ' .ag-pinned-left-cols-container .ag-row')];
              const byIndex = {};
              for (const r of rows) {
                const i = +r.getAttribute('row-index');
                byIndex[i] = byIndex[i] || {};
                for (const c of r.querySelectorAll('.ag-cell'))
                  byIndex[i][c.getAttribute('col-id')] = c.textContent.trim();
              }
              return Object.keys(byIndex).sort((a, b) => a - b).map(i => byIndex[i]);
            }""",
            ids.GRID,
        )
        shown = [[r[ids.COL_RANK], r[ids.COL_DELTA], r[ids.COL_MODEL], r["o"]] for r in grid]
        assert static == shown[: len(static)]
        # the grid's colours are the first view's (one colour scale, its stops in Python)
        js = page.evaluate(
            "(vs) => vs.map(v => window.dashAgGridFunctions.scoreColor(v, false))", values
        )
        assert js == [score_colour(v) for v in values]
        ctx.close()
        # 3. as a person opens it: once the grid shows its rows, the first view is gone
        seen = open_dashboard(browser, url)
        page = seen.page
        page.wait_for_function(f"() => !document.querySelector('{FIRST}')")
        assert page.locator(f"#{ids.GRID} {GRID_READY}").first.is_visible()
        assert not seen.problems, seen.problems
        seen.page.context.close()


@pytest.mark.browser
def test_the_theme_is_set_before_the_first_paint(tmp_path):
    """theme.js runs in the page's head (inline, once): a reader whose system is dark gets the
    first view dark, before any of the page's script files arrived."""
    require_browser()
    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    page_html = app.server.test_client().get("/").get_data(as_text=True)
    head = page_html[: page_html.index("</head>")]
    assert "mpl-theme" in head  # theme.js's storage key: its text is in the head
    assert "/assets/theme.js" not in page_html  # and not loaded a second time after the body
    # the style sheets are in the head too (the first paint waits for no request)
    assert "<style>" in head and '<link rel="stylesheet"' not in page_html
    with live_server(app) as url, chromium() as browser:
        ctx = browser.new_context(viewport=VIEWPORT, color_scheme="dark")
        page = ctx.new_page()
        page.route("**/*.js*", lambda r: r.abort())  # no script file: only the inline ones
        page.goto(url)
        assert page.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"
        background = page.evaluate(
            "(sel) => getComputedStyle(document.querySelector(sel + ' td.s')).backgroundImage",
            FIRST,
        )
        assert "gradient" in background  # the dark mix over the light colour (style.css)
        ctx.close()


def test_the_scripts_wait_in_a_template_for_the_first_paint(tmp_path):
    """A page with the first view keeps every script of Dash's (its files, its inline ones and
    the renderer's start) inert in a ``<template>``, in Dash's order, followed by the loader; a
    link's page has them as Dash wrote them."""
    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    client = app.server.test_client()
    page = client.get("/").get_data(as_text=True)
    start = page.index(f'<template id="{SCRIPTS_HOLDER}">')
    end = page.index("</template>", start)
    srcs = [m.start() for m in re.finditer(r"<script[^>]*\ssrc=", page)]
    assert srcs and all(start < i < end for i in srcs)
    held = page[start:end]
    # the names (ids.py) at once, before; then Dash's order: the files, the renderer's start
    assert page.index("window.mplNames") < start
    assert held.index("dash_renderer") < held.index("new DashRenderer")
    assert held.index("async-community.js") < held.index("new DashRenderer")  # the eager chunks
    # after the template: one inline script (the loader), pointed at the template
    rest = page[end:]
    assert re.findall(r"<script[^>]*>", rest) == ["<script>"]
    assert f'"holder": "{SCRIPTS_HOLDER}"' in rest and "MPL_NAMES" not in rest
    # a link: Dash's own scripts, no template
    linked = client.get("/?v=Classification").get_data(as_text=True)
    assert SCRIPTS_HOLDER not in linked and 'src="/_dash-component-suites/' in linked


def test_deferred_scripts_takes_only_script_elements():
    loader = "(function (h) {})(MPL_NAMES);"
    tags = '<script src="/a.js"></script>\n<script>var x = "</b>";</script>'
    out = deferred_scripts(tags, loader)
    names = (
        f'{{"holder": "{SCRIPTS_HOLDER}", "early": "{EARLY_ATTR}", "boot": "{BOOT_HEADER}", '
        f'"config": "_dash-config", "first": "{ids.FIRST_VIEW}"}}'
    )
    assert out == f'<template id="{SCRIPTS_HOLDER}">{tags}</template>' + (
        f"<script>(function (h) {{}})({names});</script>"
    )
    # anything else (a comment, a style, text, nothing): the page is left as Dash wrote it
    for other in ("", "<!-- x -->" + tags, tags + "<style>p{}</style>", tags + " text"):
        assert deferred_scripts(other, loader) is None, other


@pytest.mark.browser
def test_the_first_view_is_painted_before_the_scripts_run(tmp_path):
    """The browser parses the whole page (and paints the first view) before the page's
    scripts run (loader.js), in their order: the app starts as before (its grid, no error)
    and removes the first view. (Dash's page runs its files while the page is being parsed;
    when the paint happens is timed by ``benchmarks/bench_firstview.py``, not here.)"""
    require_browser()
    cfg, raw = small_dataset(tmp_path)
    app = create_app(cfg, raw)
    # the first of the page's files, wrapped: was the page parsed, the first view there?
    probe = (
        "window.__firstRan = [document.readyState,"
        f" !!document.getElementById('{ids.FIRST_VIEW}')];\n"
    )

    def wrapped(route):
        answer = route.fetch()
        route.fulfill(response=answer, body=probe + answer.text())

    with live_server(app) as url, chromium() as browser:
        ctx = browser.new_context(viewport=VIEWPORT)
        ctx.route("**/polyfill@*.js", wrapped)
        page = ctx.new_page()
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(url)
        page.wait_for_selector(f"#{ids.GRID} {GRID_READY}")
        page.wait_for_function(f"() => !document.querySelector('{FIRST}')")
        assert page.evaluate("window.__firstRan") in (["interactive", True], ["complete", True])
        # the renderer started once, after the files it needs (the inline ones ran in order)
        assert page.evaluate("typeof window.dash_clientside._dashprivate_clientside_funcs") == (
            "object"
        )
        assert page.locator(f"#{ids.GRID} {GRID_READY}").first.is_visible()
        assert not problems, problems
        ctx.close()


def test_static_html_writes_only_what_is_safe():
    """The renderer's rules on a hand-made layout: text and attributes escaped, no ids, no
    script links, hidden parts and unknown components left out, dcc controls disabled."""
    from dash import dcc, html

    from ml_peg_like.dashboard.firstview import static_html

    layout = html.Div(
        [
            html.Span('a "b" <i>', id="x", className="c", title="<t>", **{"data-k": "v"}),
            html.A("bad", href="javascript:alert(1)"),
            html.A("ok", href="#robustness"),
            html.Div("hidden", style={"display": "none"}),
            html.Div(style={"marginTop": 4, "opacity": 0.5}),
            dcc.Store(id="s", data={"secret": 1}),
            dcc.Input(id="i", value='1"2', placeholder="p"),
            dcc.RadioItems(id="r", options=["u", "v"], value="v", inline=True),
            dcc.Dropdown(id="d", options=[{"label": "L<", "value": 1}], value=1),
            html.Button("go", disabled=True),
        ]
    )
    out = static_html(layout)
    assert ' id="' not in out and "secret" not in out and "hidden" not in out
    assert '<span class="c" data-k="v" title="&lt;t&gt;">a &quot;b&quot; &lt;i&gt;</span>' in out
    assert "<a>bad</a>" in out and '<a href="#robustness">ok</a>' in out
    assert 'style="margin-top:4px;opacity:0.5"' in out
    assert '<input type="text" value="1&quot;2" placeholder="p" class="" disabled>' in out
    assert '<input type="radio" disabled checked>v</label>' in out
    assert '<input type="radio" disabled>u</label>' in out
    assert '<span class="first-dd-value">L&lt;</span>' in out
    assert "<button disabled>go</button>" in out
