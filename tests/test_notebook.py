"""``ml_peg_like.show``: the dashboard inline in a Jupyter notebook. A real notebook runs in a
real kernel (nbclient); its cell output embeds a frame to a local address that answers with the
dashboard, framable by a local notebook only. The default server keeps refusing frames."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

import pytest
from browser_utils import small_dataset

from ml_peg_like.dashboard import notebook as nb_mod
from ml_peg_like.serving.earlypage import SECURITY_HEADERS

WORKTREE = Path(__file__).resolve().parents[1]
#: the demo's title and its number of models (data/demo/config.yml: "20 models")
DEMO_TITLE = "scikit-learn demo: 20 models on toy data sets"
LOCAL_POLICY = (
    "frame-ancestors http://localhost:* http://127.0.0.1:* https://localhost:* https://127.0.0.1:*"
)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return small_dataset(tmp_path_factory.mktemp("small"))


def test_default_server_refuses_frames_and_shows_app_allows_local_notebooks(small):
    from ml_peg_like.dashboard import create_app

    cfg, raw = small
    plain = create_app(cfg, raw, robustness=False)
    framed = create_app(cfg, raw, robustness=False)
    nb_mod.allow_frames(framed.server)
    r = plain.server.test_client().get("/")
    assert r.status_code == 200
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["Content-Security-Policy"].endswith("frame-ancestors 'none'")
    for path in ("/", "/health", "/_dash-layout"):
        r = framed.server.test_client().get(path)
        assert r.status_code == 200, path
        assert "X-Frame-Options" not in r.headers, path
        (csp,) = r.headers.get_all("Content-Security-Policy")
        assert csp.endswith(LOCAL_POLICY) and csp.count("frame-ancestors") == 1, path
        if path == "/":  # the page's strict script policy stays
            assert "script-src 'self' 'sha256-" in csp and "unsafe-inline'" not in csp.split(
                "style-src"
            )[0]
        # the other security headers stay
        assert r.headers["X-Content-Type-Options"] == SECURITY_HEADERS["X-Content-Type-Options"]


def test_frame_origins_are_checked():
    assert nb_mod.frame_policy(["https://hub.example.org"]) == (
        "frame-ancestors https://hub.example.org"
    )
    for bad in (["https://a.org; script-src *"], ["*"], ["http://a.org http://b.org"], []):
        with pytest.raises(ValueError, match="frame origin"):
            nb_mod.frame_policy(bad)


def test_show_outside_a_notebook_says_where_to_go(small):
    import ml_peg_like

    with pytest.raises(nb_mod.NotInNotebook, match="ml-peg-like serve"):
        ml_peg_like.show(small)
    with pytest.raises(TypeError, match="dataset directory"):
        ml_peg_like.show(42)
    with pytest.raises(ValueError, match="frame origin"):
        ml_peg_like.show(small, frame_origins=["x; y"])


NOTEBOOK_CELL = """\
import ml_peg_like
from ml_peg_like.support.resources import demo_dir

app = ml_peg_like.show(demo_dir(), robustness=False, height=520)
"""


def _get(url: str):
    with urllib.request.urlopen(url, timeout=30) as r:  # noqa: S310 (a local address)
        return r.status, dict(r.headers), r.read().decode("utf-8")


@pytest.mark.notebook
def test_a_notebook_cell_embeds_the_dashboard():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(NOTEBOOK_CELL)]
    client = nbclient.NotebookClient(
        book,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(WORKTREE)}},
    )
    with client.setup_kernel():
        client.execute_cell(book.cells[0], 0)
        outputs = book.cells[0].outputs
        assert not [o for o in outputs if o.output_type == "error"], outputs
        html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
        frame = re.search(r'<iframe[^>]*src="(http://127\.0\.0\.1:\d+/)"', html)
        assert frame, html
        assert 'height="520"' in html
        status, headers, body = _get(frame.group(1))
        assert status == 200
        assert f"<title>{DEMO_TITLE}</title>" in body
        assert '<html lang="en">' in body
        assert headers["Content-Security-Policy"].endswith(LOCAL_POLICY)
        assert "X-Frame-Options" not in headers
        status, _, health = _get(frame.group(1) + "health")
        assert status == 200 and '"models":20' in health.replace(" ", "")


def _parent_page(host: str, child: str):
    """A page on ``host`` (a random port) that frames ``child``: a notebook's page stand-in."""
    import http.server
    import threading

    body = f'<!doctype html><html lang="en"><title>nb</title><iframe src="{child}" width="1200" height="700"></iframe>'

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer((host, 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_port}/"


@pytest.mark.browser
def test_a_local_notebook_page_frames_the_dashboard_and_another_origin_cannot(small):
    """In Chromium: a page from localhost shows the framed dashboard (its grid draws); a page
    from another origin (127.0.0.2, not in the list) is refused, as is any page framing the
    default server."""
    from browser_utils import GRID_READY, chromium, live_server, require_browser

    from ml_peg_like.dashboard import create_app

    require_browser()
    cfg, raw = small
    framed = create_app(cfg, raw, robustness=False)
    nb_mod.allow_frames(framed.server)
    plain = create_app(cfg, raw, robustness=False)
    with live_server(framed) as app_url, live_server(plain) as plain_url, chromium() as browser:
        cases = [("localhost", app_url, True), ("127.0.0.2", app_url, False)]
        cases.append(("localhost", plain_url, False))
        for host, child, shown in cases:
            server, parent = _parent_page(host, child + "/")
            try:
                page = browser.new_context().new_page()
                page.goto(parent)
                frame = page.frame_locator("iframe")
                if shown:
                    frame.locator(GRID_READY).first.wait_for(timeout=20_000)
                else:
                    page.wait_for_timeout(1500)
                    assert frame.locator(GRID_READY).count() == 0, (host, child)
                    assert page.frames[1].url != child + "/", (host, child)
                page.context.close()
            finally:
                server.shutdown()
