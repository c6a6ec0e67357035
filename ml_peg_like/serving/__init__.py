"""Serving the dashboard: what stands between the Dash app and the network.

- :mod:`.server`: security headers, request and upload limits, ``/health``, trusted proxies;
- :mod:`.csp`: each page's Content-Security-Policy (its inline scripts by hash);
- :mod:`.earlypage`: the page answered from the first moment of ``serve`` while Dash loads
  (werkzeug only: no Dash, no Flask) and the kept copy of the last first page;
- :mod:`.jobs` and :mod:`.celeryjobs`: background jobs (a private signed diskcache, or Celery +
  Redis with signed results);
- :mod:`.warm` and :mod:`.servertiming`: modules warmed after the first page, and the optional
  ``Server-Timing`` header (``ML_PEG_LIKE_SERVER_TIMING=1``).

Engine level below, the dashboard above: nothing here imports :mod:`ml_peg_like.dashboard`.
"""
