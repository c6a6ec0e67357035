"""The parts of the page, grouped by the view they serve. Each module owns its layout
(``layout(...)``) and the callbacks that are its own (``register(app, ...)``);
:func:`ml_peg_like.dashboard.create_app` composes them.

- :mod:`.board`: the score tables of the overview, a category and a benchmark: the grid and its
  columns' breakdown bars and baseline, the sidebar and breadcrumbs, the normalisation curve,
  the model card and model search, stability intervals and what-if;
- :mod:`.explore`: the Explore scatter, the Compare radar and table, the style every plot shares;
- :mod:`.robustness`: the rank-robustness panel and its background job;
- :mod:`.controls`: the toolbar (filters, presets, exports, upload), the boxes of a view, the
  missing-data policy, restoring the last settings, the theme;
- :mod:`.editing`: how an action changes the state: the clientside callbacks of the live edit
  (:mod:`.editing.liveedit`), the one server callback that answers what needs Python
  (:mod:`.editing.edit`) and its actions as small pure functions (:mod:`.editing.actions`),
  the sort kept in the URL (:mod:`.editing.viewstate`);
- :mod:`.page` and :mod:`.status`: the page's frame and its status line.
"""
