"""A board the JavaScript engine cannot score (here: a normaliser registered only in Python) is
scored on the server: the page shows the Python engine's scores, an edit is checked in the
browser (a refused value turns the box red at once) and its scores arrive with the server's
answer. Scores worked out by hand: cube(x) = x**3 clipped to [0, 1]; linear e: good 0, bad 1."""

from __future__ import annotations

import numpy as np
import pytest
from browser_utils import GRID_READY, chromium, live_server, require_browser
from test_dashboard_browser import column, commit, wait_column

import ml_peg_like as mpl
from ml_peg_like import normalisers as nz
from ml_peg_like.dashboard import create_app
from ml_peg_like.numfmt import fmt_score

pytestmark = pytest.mark.browser

CONFIG = """
title: Cubes
categories:
  C:
    benchmarks:
      B:
        metrics:
          e: {good: 0, bad: 1}
          k: {good: 1, bad: 0, normaliser: cube}
"""


def _cube(x, good, bad):
    return np.clip(x**3, 0.0, 1.0)


@pytest.fixture
def board(monkeypatch):
    require_browser()
    monkeypatch.setitem(nz._REGISTRY, "cube", nz.Normaliser("cube", _cube))
    cfg = mpl.loads_config(CONFIG)
    # model: (e, k); overall = mean(1 - e, k**3)
    raw = mpl.RawData(("p", "q"), (("B", "e"), ("B", "k")), np.array([[0.2, 0.5], [0.6, 0.9]]))
    return cfg, raw


def test_a_board_the_browser_cannot_score_is_scored_by_the_server(board):
    cfg, raw = board
    app = create_app(cfg, raw, robustness=False)
    with live_server(app) as url, chromium() as browser:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.goto(url + "/?v=C/B")
        page.wait_for_selector(GRID_READY)
        # p: (0.8 + 0.125) / 2 = 0.4625; q: (0.4 + 0.729) / 2 = 0.5645
        wait_column(page, "o", {"p": fmt_score(0.4625), "q": fmt_score(0.5645)})
        assert page.evaluate("window.mplLive.serverScored") is True
        # e's bad threshold 2: p (1 - 0.1 + 0.125) / 2 = 0.5125; q (1 - 0.3 + 0.729) / 2 = 0.7145
        commit(page, "C/B/e", "bad", "2")
        wait_column(page, "o", {"p": fmt_score(0.5125), "q": fmt_score(0.7145)})
        assert column(page, "rank") == {"p": "2", "q": "1"}
        # a refused value: red at once, the scores stay
        commit(page, "C/B/e", "good", "abc")
        page.wait_for_selector(".box.invalid")
        assert column(page, "o") == {"p": fmt_score(0.5125), "q": fmt_score(0.7145)}


TWO_CATEGORIES = """
title: Cubes in two categories
categories:
  C:
    benchmarks:
      B:
        metrics:
          e: {good: 0, bad: 1}
  D:
    benchmarks:
      K:
        metrics:
          k: {good: 1, bad: 0, normaliser: cube}
"""

SCATTER = """() => { const g = document.querySelector('#explore-graph .js-plotly-plot');
  if (!g || !g.data) return null;
  const out = {};
  for (const t of g.data) if (t.customdata) t.customdata.forEach((m, i) => {
    out[m] = [t.x[i], t.y[i], t.text[i]]; });
  return out; }"""


def test_the_scatter_of_a_server_scored_board_follows_the_servers_scores(board):
    """The Explore scatter of such a board is redrawn in the browser from the scores the server
    sends. C's score: 1 - e (p 0.8, q 0.4); D's: k**3 (p 0.125, q 0.729). C's weight 3 makes
    the overall p (3 * 0.8 + 0.125) / 4 = 0.63125, q (3 * 0.4 + 0.729) / 4 = 0.48225: p first."""
    _cfg, raw = board
    cfg = mpl.loads_config(TWO_CATEGORIES)
    raw = mpl.RawData(("p", "q"), (("B", "e"), ("K", "k")), raw.values)
    app = create_app(cfg, raw, robustness=False)
    with live_server(app) as url, chromium() as browser:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.goto(url + "/?v=explore&x=C&y=overall")
        page.wait_for_selector(GRID_READY)
        page.wait_for_function(SCATTER.replace("return out; }", "return out.p ? out : null; }"))
        booted = page.evaluate("[window.mplLive.boot(), window.mplLive.serverScored]")
        assert booted == [True, True], booted  # the engine started; the server scores
        commit(page, "C", "weight", "3")
        want = {"p": (0.8, 0.63125, "rank: 1"), "q": (0.4, 0.48225, "rank: 2")}
        for _ in range(100):
            got = page.evaluate(SCATTER)
            if all(
                abs(got[m][0] - x) < 1e-12 and abs(got[m][1] - y) < 1e-12 and got[m][2].endswith(r)
                for m, (x, y, r) in want.items()
            ):
                break
            page.wait_for_timeout(100)
        else:
            raise AssertionError(got)
