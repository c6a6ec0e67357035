"""The layout rules, checked on the source: no import cycle between the package's modules (imports
inside functions count), an engine that never imports the web stack, and the layers of the package
(docs/ARCHITECTURE.md): ``support`` (bounded file reading, private directories, the raw cache,
lazy imports, the package's files) under the engine; the engine (config, normalisers,
aggregation, scoring, sensitivity, robustness, compute, io, raw, bundle, ...) under ``serving``
(HTTP hardening, background jobs, the page served while the app loads) and ``dashboard``.

A module's length is no rule: what keeps the code readable is the size of its functions, and
tests/test_style.py holds every function to a McCabe complexity of 12 (ruff's C901, PLR0912 and
PLR0915 with the project's config)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ml_peg_like"
WEB = {"dash", "dash_ag_grid", "plotly", "flask", "werkzeug"}
#: the subpackages that may import the web stack (WEB)
WEB_LAYERS = ("ml_peg_like.dashboard", "ml_peg_like.serving")
#: inside them, modules held to less: the server that listens while Dash and the app load is
#: werkzeug's (the one Dash's own ``app.run`` uses), with no Dash or Flask: it must start fast.
#: Outside them, ``publish`` (engine) copies Plotly.js into a static site through plotly's
#: public ``get_plotlyjs`` (a lazy import in one function: the file, not the figure code)
ALLOWED_WEB = {"ml_peg_like.serving.earlypage": {"werkzeug"}, "ml_peg_like.publish": {"plotly"}}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> tuple[set[str], set[str]]:
    """(modules of the package that ``name`` imports, top-level names of outside packages)."""
    is_pkg = path.name == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    inside, outside = set(), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                stem = base[: len(base) - (node.level - 1)]
                mod = ".".join(stem + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # ``from pkg import sub`` imports the submodule; ``from mod import name`` the module
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in node.names]
        for t in targets:
            if t.split(".")[0] != "ml_peg_like":
                if t:
                    outside.add(t.split(".")[0])
                continue
            # the deepest module of the package this import names (a name imported from a
            # package is the package, unless it is itself a submodule)
            parts = t.split(".")
            while parts and ".".join(parts) not in known:
                parts.pop()
            if parts and ".".join(parts) != name:
                inside.add(".".join(parts))
    return inside, outside


def _graph():
    mods = _modules()
    known = set(mods)
    return mods, {m: _imports(m, p, known) for m, p in mods.items()}


def test_the_engine_imports_no_web_stack():
    _, graph = _graph()
    bad = {
        m: sorted(outside & WEB - ALLOWED_WEB.get(m, set()))
        for m, (_, outside) in graph.items()
        if (m in ALLOWED_WEB or not m.startswith(WEB_LAYERS))
        and outside & WEB - ALLOWED_WEB.get(m, set())
    }
    # the CLI's serve and worker subcommands start the dashboard: they import it, not dash
    assert bad == {}


def _layer(module: str) -> str:
    if module == "ml_peg_like.__main__":  # ``python -m ml_peg_like``: the CLI
        return "cli"
    for layer in ("support", "serving", "dashboard", "cli"):
        if module.startswith(f"ml_peg_like.{layer}"):
            return layer
    return "engine"


#: what each layer may import of the package (the CLI starts the server and the dashboard)
MAY_IMPORT = {
    "support": {"support"},
    "engine": {"support", "engine"},
    "serving": {"support", "engine", "serving"},
    "dashboard": {"support", "engine", "serving", "dashboard"},
    "cli": {"support", "engine", "serving", "dashboard", "cli"},
}


def test_each_layer_imports_only_the_layers_below_it():
    _, graph = _graph()
    bad = {
        m: sorted(t for t in inside if _layer(t) not in MAY_IMPORT[_layer(m)])
        for m, (inside, _) in graph.items()
        if m != "ml_peg_like"  # the package's __init__ re-exports the public API
    }
    # support's modules raise the package's one error type
    bad = {m: [t for t in ts if t != "ml_peg_like.errors"] for m, ts in bad.items()}
    assert {m: ts for m, ts in bad.items() if ts} == {}


def test_no_import_cycle_between_modules():
    _, graph = _graph()
    edges = {m: inside for m, (inside, _) in graph.items()}
    # a package's __init__ that re-exports its own submodules is not a cycle with them
    for m in edges:
        edges[m] = {t for t in edges[m] if not t.startswith(m + ".")}
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    assert sccs == []


def test_the_checker_sees_a_cycle_and_a_web_import(tmp_path):
    """The rules above can fail: a two-module cycle and a dash import are found."""
    pkg = tmp_path / "ml_peg_like"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "b.py").write_text("from .a import f\nimport dash\n")
    known = {"ml_peg_like", "ml_peg_like.a", "ml_peg_like.b"}
    a_in, _ = _imports("ml_peg_like.a", pkg / "a.py", known)
    b_in, b_out = _imports("ml_peg_like.b", pkg / "b.py", known)
    assert a_in == {"ml_peg_like.b"} and b_in == {"ml_peg_like.a"} and "dash" in b_out
