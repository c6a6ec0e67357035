"""The page's own JavaScript uses only what Dash, Plotly.js and AG Grid document.

Speed bought with a library's internals breaks on its next release: Plotly's ``_fullLayout`` /
``_fullData`` / ``calcdata`` and its SVG nodes' ``__data__``, its axes' ``d2c`` / ``c2p``, Dash's
renderer hooks that rewrite responses (``request_post``, a renderer built by hand), private Dash
props. This scan reads every script the page loads (``assets/*.js``) with comments removed and
fails on any of them. AG Grid's DOM classes are checked too, in every script: the page reaches the
grid through its documented APIs only (a header component for the headers, grid events and
``getApi`` for its rows, theme modes for its colours). Dash components' DOM classes are checked
everywhere but in the files listed in :data:`DASH_DOM_LEFT` (what each still needs them for is
said there).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ASSETS = Path(__file__).resolve().parents[1] / "assets"

#: (pattern, what it is)
FORBIDDEN = [
    (r"\b_full(Layout|Data)\b", "Plotly's private full layout / data"),
    (r"\bcalcdata\b", "Plotly's private calcdata"),
    (r"\b__data__\b", "d3 data bound to Plotly's SVG nodes"),
    (r"\.(d2c|c2p|l2p|p2c)\(", "Plotly's private axis conversions"),
    (r"\brequest_(pre|post)\b", "Dash renderer hooks that rewrite requests or responses"),
    (r"new\s+DashRenderer\b", "a Dash renderer built by hand"),
    (r"\b_dashprivate_\w+", "Dash's private props"),
]
AG_DOM = (r"[\"'.\s]ag-(cell|row|header|overlay|root|center|pinned|body|sort|icon|label|tooltip|menu|popup|checkbox|selection)", "AG Grid's DOM classes")
DASH_DOM = (r"\.dash-(checklist|radioitems|dropdown|input|upload)", "Dash components' DOM classes")

#: scripts that still select Dash components' DOM, and why
DASH_DOM_LEFT = {
    "a11y.js": "Dash 4 draws checklists and radio items as a listbox of options holding inputs "
    "and offers no prop for their accessible names: the names are set after Dash draws them",
}

def _code(path: Path) -> str:
    """The script without its comments (block and line comments; strings are kept)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(^|[^:\\])//[^\n]*", r"\1", text)


SCRIPTS = sorted(ASSETS.glob("*.js")) + sorted(ASSETS.glob("site/*.js"))


def test_the_scan_sees_the_pages_scripts():
    names = {p.name for p in SCRIPTS}
    assert {"engine.js", "live.js", "edit.js", "dashAgGridFunctions.js"} <= names
    assert set(DASH_DOM_LEFT) <= names


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_no_script_reads_a_private_internal(path):
    code = _code(path)
    found = [what for pattern, what in FORBIDDEN if re.search(pattern, code)]
    if re.search(AG_DOM[0], code):
        found.append(AG_DOM[1])
    if path.name not in DASH_DOM_LEFT and re.search(DASH_DOM[0], code):
        found.append(DASH_DOM[1])
    assert not found, f"{path.name}: {found}"


def test_the_scan_finds_what_it_forbids(tmp_path):
    """Each pattern catches the use it is for (so a clean scan means something)."""
    uses = [
        "var fl = gd._fullLayout;",
        "var cd = gd.calcdata;",
        "var dd = node.__data__;",
        "var px = ax.c2p(ax.d2c(v));",
        "hooks: { request_post: f }",
        "new DashRenderer({})",
        "props._dashprivate_layout",
        "document.querySelector('.ag-cell')",
        "e.target.closest(\".ag-header-cell-text\")",
        "el.querySelector('.ag-sort-indicator-container')",
        "'#grid .ag-overlay-no-rows-center'",
        "document.querySelectorAll(\".ag-root-wrapper\")",
    ]
    for use in uses:
        p = tmp_path / "x.js"
        p.write_text(use + "\n", encoding="utf-8")
        code = _code(p)
        hit = any(re.search(pat, code) for pat, _ in FORBIDDEN) or re.search(AG_DOM[0], code)
        assert hit, use
    p.write_text("/* gd._fullLayout in a comment */ // calcdata\nvar x = 1;\n", encoding="utf-8")
    code = _code(p)
    assert not any(re.search(pat, code) for pat, _ in FORBIDDEN)
