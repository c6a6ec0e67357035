"""``ml-peg-like publish``: the files a site holds, the out-dir rule, the CLI's errors, the board
in the page (what the browser scores is the bundle the dashboard uses) and what keeps the site
apart from the Dash page. The site in a browser: tests/test_publish_browser.py."""

from __future__ import annotations

import html.parser
import json
import re
from pathlib import Path

import pytest

import ml_peg_like as mpl
from ml_peg_like import publish as pub
from ml_peg_like.bundle import make_bundle
from ml_peg_like.cli import main
from ml_peg_like.errors import DataError
from ml_peg_like.support.resources import assets_dir, demo_dir

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "assets" / "site"

CONFIG = """\
title: "Board <b>bold</b> & </script>"
categories:
  Cat:
    benchmarks:
      B:
        metrics:
          M: {good: 1, bad: 0}
"""
RAW = "model,benchmark,metric,value\nx,B,M,0.5\n</script><img src=x onerror=alert(1)>,B,M,0.25\n"


def _dataset(tmp_path: Path, models_csv: str | None = None) -> Path:
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    (d / "config.yml").write_text(CONFIG, encoding="utf-8")
    (d / "raw_metrics.csv").write_text(RAW, encoding="utf-8")
    if models_csv:
        (d / "models.csv").write_text(models_csv, encoding="utf-8")
    return d


class _Page(html.parser.HTMLParser):
    """The page's scripts (src), style sheets, CSP and JSON elements."""

    def __init__(self):
        super().__init__()
        self.scripts, self.sheets, self.csp, self.json = [], [], None, {}
        self._json_id = None
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.scripts.append(a["src"])
        if tag == "script" and a.get("type") == "application/json":
            self._json_id = a.get("id")
            self.json[self._json_id] = ""
        if tag == "link" and a.get("rel") == "stylesheet":
            self.sheets.append(a["href"])
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a["content"]
        self._in_title = tag == "title"

    def handle_data(self, data):
        if self._json_id:
            self.json[self._json_id] += data
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag):
        self._json_id = None
        self._in_title = False


def _page(site: Path) -> _Page:
    p = _Page()
    p.feed((site / "index.html").read_text(encoding="utf-8"))
    return p


def test_publish_writes_every_file_the_page_loads(tmp_path):
    cfg, raw = mpl.load_dataset(_dataset(tmp_path))
    out = tmp_path / "site"
    paths = pub.publish(cfg, raw, out)
    names = {p.name for p in paths}
    assert names == {
        "index.html", "engine.js", "curve.js", "edit.js", "dashAgGridFunctions.js", "site.js",
        "sitetable.js", "siteexport.js", "siteviews.js", "siteexplore.js", "sitecompare.js",
        "explorefig.js", "site.css", "plotly.min.js", "board.json", pub.MARKER,
    }  # fmt: skip
    page = _page(out)
    # every script and style sheet the page names is a file of the site (nothing from elsewhere)
    for ref in page.scripts + page.sheets:
        assert (out / ref).is_file(), ref
    # the shared modules are the project's own, byte for byte
    for name in pub.SHARED_JS:
        assert (out / name).read_bytes() == (assets_dir() / name).read_bytes()
    # Plotly is not one of the page's scripts: the page loads it when a view draws a plot
    assert "plotly.min.js" not in page.scripts
    assert (out / "plotly.min.js").stat().st_size > 1_000_000
    # a policy that runs only the site's own files, no inline script
    assert "default-src 'self'" in page.csp and "script-src 'self'" in page.csp
    assert "unsafe-inline" not in page.csp.split("script-src")[1].split(";")[0]


def test_the_title_is_escaped_and_the_board_is_the_bundle(tmp_path):
    cfg, raw = mpl.load_dataset(_dataset(tmp_path))
    out = tmp_path / "site"
    pub.publish(cfg, raw, out, embed=True)
    text = (out / "index.html").read_text(encoding="utf-8")
    # the config's title is text: no element made of it, and "</script>" does not end the data
    assert "<b>bold</b>" not in text
    assert text.count("</script>") == len(_page(out).scripts) + 1
    page = _page(out)
    assert page.title == "Board <b>bold</b> & </script>"
    board = json.loads(page.json[pub.BOARD_ID])
    assert board["bundle"] == json.loads(json.dumps(make_bundle(cfg, raw)))
    assert board["bundle"]["models"] == ["x", "</script><img src=x onerror=alert(1)>"]
    assert board["site"]["config"]["categories"]["Cat"]["benchmarks"]["B"]["metrics"]["M"] == {
        "good": 1.0,
        "bad": 0.0,
        "weight": 1.0,
    }


def test_board_file_by_default(tmp_path):
    cfg, raw = mpl.load_dataset(_dataset(tmp_path))
    out = tmp_path / "site"
    pub.publish(cfg, raw, out)
    assert pub.BOARD_ID not in _page(out).json
    board = json.loads((out / "board.json").read_text(encoding="utf-8"))
    assert board["bundle"]["models"][0] == "x"


def test_model_cards_keep_only_http_links(tmp_path):
    models = (
        "model,display_name,paper,code\n"
        "x,Model X,https://example.org/x,javascript:alert(1)\n"
        '"</script><img src=x onerror=alert(1)>",,,\n'
    )
    cfg, raw = mpl.load_dataset(_dataset(tmp_path, models))
    data = pub.site_data(cfg, raw)
    assert data["names"] == ["Model X", None]
    assert data["displayColumn"] is True
    assert data["cards"]["x"] == [
        ["display_name", "Model X", None],
        ["paper", "https://example.org/x", "https://example.org/x"],
        ["code", "javascript:alert(1)", None],
    ]


def test_out_dir_refusal_force_and_republish(tmp_path):
    cfg, raw = mpl.load_dataset(_dataset(tmp_path))
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(DataError, match="not empty and not a site written by"):
        pub.publish(cfg, raw, busy)
    assert sorted(p.name for p in busy.iterdir()) == ["notes.txt"]  # nothing written
    pub.publish(cfg, raw, busy, force=True)
    assert (busy / "index.html").is_file() and (busy / "notes.txt").read_text() == "mine"
    # a previous site is written again without --force; what it no longer needs goes, and
    # only that (the board moved into index.html: board.json is removed, notes.txt stays)
    assert (busy / "board.json").is_file()
    pub.publish(cfg, raw, busy, embed=True)
    assert not (busy / "board.json").exists() and (busy / "notes.txt").is_file()
    afile = tmp_path / "a-file"
    afile.write_text("x")
    with pytest.raises(DataError, match="not a directory"):
        pub.publish(cfg, raw, afile)


def test_a_board_the_browser_cannot_score_is_refused(tmp_path):
    d = tmp_path / "inst"
    d.mkdir()
    (d / "config.yml").write_text(
        "categories:\n  U:\n    benchmarks:\n      PR:\n        metrics:\n"
        "          Err: {good: 0, bad: 1}\n"
    )
    (d / "raw_metrics.csv").write_text(
        "model,benchmark,metric,instance,value\nA,PR,Err,p1,0.5\nA,PR,Err,p2,0.2\n"
    )
    cfg, raw = mpl.load_dataset(d)
    with pytest.raises(DataError, match="U/PR/Err: per-instance metric.*use ml-peg-like serve"):
        pub.publish(cfg, raw, tmp_path / "site")
    assert not (tmp_path / "site").exists()


def test_cli_publishes_the_demo_by_default(tmp_path, capsys):
    out = tmp_path / "demo-site"
    assert main(["publish", "--out", str(out)]) == 0
    assert "published 20 models on 38 metrics" in capsys.readouterr().out
    cfg = mpl.load_config(demo_dir())
    assert _page(out).title == cfg.title
    # a dataset given as CONFIG RAW, with a title of its own
    d = _dataset(tmp_path)
    out2 = tmp_path / "s2"
    args = ["publish", str(d / "config.yml"), str(d / "raw_metrics.csv"), "--out", str(out2)]
    assert main([*args, "--title", "Mine"]) == 0
    assert _page(out2).title == "Mine"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["publish", "NOPE", "--out", "{tmp}/s"], "NOPE"),
        (["publish", "--out", "{tmp}/busy"], "not empty and not a site written by"),
        (["publish"], "the following arguments are required: --out"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(tmp_path, capsys, argv, message):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's usage errors
        code = e.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_site_colours_are_the_grids():
    from ml_peg_like.dashboard.firstview import SCORE_STOPS

    text = (SITE / "site.js").read_text(encoding="utf-8")
    m = re.search(r"var SCORE_STOPS = (\[.*?\]\]);", text)
    assert m, "site.js has no SCORE_STOPS"
    assert json.loads(m.group(1)) == [[s, list(c)] for s, c in SCORE_STOPS]


def test_the_dashboard_does_not_load_the_sites_files(tmp_path):
    from ml_peg_like.dashboard import create_app

    cfg, raw = mpl.load_dataset(_dataset(tmp_path))
    app = create_app(cfg, raw)
    page = app.server.test_client().get("/").get_data(as_text=True)
    assert "/assets/engine.js" in page  # the dashboard's own modules are there
    assert "/assets/site/" not in page and "siteviews" not in page
    # the files exist under the assets folder, so the scan had something to leave out
    assert (assets_dir() / "site" / "siteviews.js").is_file()


def test_the_board_holds_the_models_attributes_and_the_metrics_directions(tmp_path):
    # Explore plots a models.csv column by its kind: numbers (a missing one is null, JSON has
    # no NaN), ISO dates (as dates, written in full), else categories
    models_csv = (
        "model,params,released,family\n"
        "x,1.5e6,2024-05,linear\n"
        "</script><img src=x onerror=alert(1)>,,2023-11-02,\n"
    )
    cfg, raw = mpl.load_dataset(_dataset(tmp_path, models_csv))
    site = json.loads(pub.board_json(cfg, raw))["site"]
    assert site["attributes"] == [
        {"name": "params", "kind": "number", "values": [1.5e6, None]},
        {"name": "released", "kind": "date", "values": ["2024-05-01", "2023-11-02"]},
        {"name": "family", "kind": "category", "values": ["linear", None]},
    ]
    # a raw value's direction: good 1 above bad 0 is "higher"
    assert site["directions"] == {"Cat/B/M": "higher"}
    lower = CONFIG.replace("{good: 1, bad: 0}", "{good: 0, bad: 1}")
    (tmp_path / "data" / "config.yml").write_text(lower, encoding="utf-8")
    cfg, raw = mpl.load_dataset(tmp_path / "data")
    assert json.loads(pub.board_json(cfg, raw))["site"]["directions"] == {"Cat/B/M": "lower"}
    # no models.csv: no attributes
    other = tmp_path / "bare"
    other.mkdir()
    cfg, raw = mpl.load_dataset(_dataset(other))
    assert json.loads(pub.board_json(cfg, raw))["site"]["attributes"] == []
