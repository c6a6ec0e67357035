"""The dashboard inside a Jupyter notebook: ``ml_peg_like.show(...)`` serves the app on a local
port from the notebook's kernel and shows it in the cell's output (Dash's own Jupyter support,
``app.run(jupyter_mode="inline")``: an ``<iframe>`` to the local address).

The dashboard's server refuses to be framed (``X-Frame-Options: DENY``, ``frame-ancestors
'none'``: earlypage.SECURITY_HEADERS). The app made here, and only it, lets the notebook's page
frame it: its ``frame-ancestors`` lists the origins a local notebook is served from (any port of
``localhost`` / ``127.0.0.1``), or the origins given; every other page is still refused."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import dash

from ..config import Config
from ..raw import RawData, load_dataset

#: the origins a notebook on this machine is served from (Jupyter's default is
#: http://localhost:8888; any port)
LOCAL_ORIGINS = (
    "http://localhost:*",
    "http://127.0.0.1:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
)
#: what a source of ``frame-ancestors`` may not hold (it would end or split the directive)
_BAD_IN_ORIGIN = set(";, \t\r\n'\"")


class NotInNotebook(RuntimeError):
    """show() was called outside a running Jupyter kernel."""


def frame_policy(origins: Iterable[str]) -> str:
    """The ``Content-Security-Policy`` that lets only ``origins`` frame the page; ValueError
    naming the first origin that is not a plain source (scheme://host[:port])."""
    origins = list(origins)
    if not origins:
        raise ValueError("frame origins: give at least one (e.g. 'http://localhost:8888')")
    for o in origins:
        if not isinstance(o, str) or not o or _BAD_IN_ORIGIN & set(o) or "://" not in o:
            raise ValueError(
                f"frame origin {o!r}: expected scheme://host[:port], e.g. 'http://localhost:8888'"
            )
    return "frame-ancestors " + " ".join(origins)


def with_frame_ancestors(csp: str, policy: str) -> str:
    """The policy ``csp`` with its ``frame-ancestors`` directive replaced by ``policy`` (a
    ``frame-ancestors ...`` directive); every other directive (the scripts' hashes) kept."""
    parts = [p.strip() for p in csp.split(";") if p.strip()]
    parts = [p for p in parts if not p.lower().startswith("frame-ancestors")]
    return "; ".join([*parts, policy])


def allow_frames(server: Any, origins: Iterable[str] = LOCAL_ORIGINS) -> None:
    """Let pages of ``origins`` (only) frame the Flask ``server``'s answers: its
    ``frame-ancestors`` becomes that list (the rest of its Content-Security-Policy stays) and
    ``X-Frame-Options`` (which cannot name an origin) is dropped. A WSGI middleware around ``server.wsgi_app`` (Flask's documented way), so it
    holds after every ``after_request`` of the app."""
    policy = frame_policy(origins)
    inner: Callable = server.wsgi_app

    def framed(environ, start_response):
        def start(status, headers, exc_info=None):
            kept, csp = [], []
            for k, v in headers:
                if k.lower() == "content-security-policy":
                    csp.append(with_frame_ancestors(v, policy))
                elif k.lower() != "x-frame-options":
                    kept.append((k, v))
            out = [*kept, *(("Content-Security-Policy", v) for v in csp or [policy])]
            return start_response(status, out, exc_info)

        return inner(environ, start)

    server.wsgi_app = framed


def _dataset(data: Any) -> tuple[Config, RawData]:
    """(config, raw) from a dataset directory or a ``(config, raw)`` pair."""
    if isinstance(data, str | Path):
        return load_dataset(data)
    if isinstance(data, tuple) and len(data) == 2:
        config, raw = data
        if isinstance(config, Config) and isinstance(raw, RawData):
            return config, raw
    raise TypeError(
        "show(data): data must be a dataset directory (config.yml + raw_metrics.csv) or a "
        f"(config, raw) pair from ml_peg_like.load_dataset; got {type(data).__name__}"
    )


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel with Dash's notebook support installed."""
    from dash import jupyter_dash

    return bool(jupyter_dash.active)


def free_port(host: str) -> int:
    """A port of ``host`` free now (the system picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def show(
    data: Any,
    *,
    height: int = 650,
    width: str = "100%",
    host: str = "127.0.0.1",
    port: int | None = None,
    frame_origins: Iterable[str] = LOCAL_ORIGINS,
    **app_options: Any,
) -> dash.Dash:
    """Show the dashboard of ``data`` (a dataset directory, or ``(config, raw)``) in the
    notebook cell's output; returns the app (its server runs in the kernel until it stops).

    ``height``, ``width``: the frame's size; ``host``, ``port``: where the app listens (a free
    port of ``host`` by default); ``frame_origins``: the origins allowed to frame it (a remote
    notebook: its own, e.g. ``["https://hub.example.org"]``); other keywords go to
    :func:`ml_peg_like.dashboard.create_app` (e.g. ``robustness=False``)."""
    config, raw = _dataset(data)
    policy_origins = list(frame_origins)
    frame_policy(policy_origins)  # a bad origin fails before anything starts
    if not in_notebook():
        raise NotInNotebook(
            "show() displays the dashboard in a Jupyter notebook (it needs a running IPython "
            "kernel and ipykernel); elsewhere run `ml-peg-like serve DATASET`"
        )
    from . import create_app

    app = create_app(config, raw, **app_options)
    allow_frames(app.server, policy_origins)
    app.run(
        jupyter_mode="inline",
        jupyter_height=height,
        jupyter_width=width,
        host=host,
        port=port if port is not None else free_port(host),
    )
    return app
