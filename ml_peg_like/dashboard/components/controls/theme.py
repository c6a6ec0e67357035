"""The header's buttons: the sidebar's menu (narrow screens only, by CSS) and the light / dark
theme. Both act in the browser only (``assets/theme.js``): the theme follows the system
setting (``prefers-color-scheme``) until the user picks one, which the browser remembers
(localStorage); the grid (AG Grid's theme modes) and the plots (CSS over Plotly's SVG) follow it.
"""

from __future__ import annotations

from dash import html

from ... import ids


def controls() -> html.Div:
    """The menu and tools buttons (narrow screens only: the sidebar and the toolbar stay folded
    away until opened) and the theme toggle (their behaviour is in ``assets/theme.js``)."""
    return html.Div(
        [
            html.Button(
                "☰ Menu",
                id=ids.MENU_TOGGLE,
                className="btn menu-toggle",
                title="Show or hide the list of categories and benchmarks",
                **{"aria-expanded": "false", "aria-controls": ids.SIDEBAR},
            ),
            html.Button(
                "⚙ Tools",
                id=ids.TOOLS_TOGGLE,
                className="btn tools-toggle",
                title="Show or hide the tools (model filter, presets, digits, export)",
                **{"aria-expanded": "false", "aria-controls": ids.TOOLBAR},
            ),
            html.Button(
                "◐ Theme",
                id=ids.THEME_TOGGLE,
                className="btn theme-toggle",
                title="Switch between the light and the dark theme (the system's by default)",
            ),
        ],
        className="head-tools",
    )
