"""The parts of the page. Each module owns its layout (``layout(...)``) and the callbacks that
are its own (``register(app, ...)``); :func:`ml_peg_like.dashboard.create_app` composes them.

- toolbar: model and attribute filters, presets, reset all, exports and upload
- navigation: the sidebar and the breadcrumbs; clicks become navigation requests in the browser
- grid: the scores table and its raw / normalised toggle
- settings: the boxes of the view (weights, thresholds, parameters)
- curve: the normalisation curve of the selected metric
- edit: the one server callback that answers every action (an edit, a reset, a link, a click)
  with every part's new state in one round trip
- robustness_*: the rank-robustness view (figures, tables, layout, callbacks: the background job)
"""
