"""Every component id of the Robustness view, named once (the coordinator merges these into
``dashboard/ids.py``). ``assets/robustness.js`` takes no ids: Dash passes it the values."""

from __future__ import annotations

#: the dashboard's changes store (owned by the dashboard; read here)
CHANGES = "changes"
#: the main area's scores grid wrapper (the tau line goes after it when placed by search)
GRID_WRAP = "grid-wrap"

SAMPLES = "rob-samples"
CONCENTRATION = "rob-concentration"
JITTER = "rob-jitter"
TOP_K = "rob-topk"
SEED = "rob-seed"
RUN = "rob-run"
CANCEL = "rob-cancel"
PROGRESS = "rob-progress"
PROGRESS_TEXT = "rob-progress-text"
PROGRESS_WRAP = "rob-progress-wrap"
STALE = "rob-stale"
MESSAGE = "rob-message"
RESULTS = "rob-results"
REQUEST = "rob-request"
META = "rob-meta"
TOKEN = "rob-token"
TAU = "rob-tau"
SECTION = "robustness"
TEXTS = "rob-texts"  # store: texts the browser-side callbacks show
