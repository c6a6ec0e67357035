"""The missing-data policy and the weighted mean that every level of scoring uses.

This module is the one place that knows the policies (``invalidate``: a missing child with a
positive weight makes its parent missing, ML-PEG's rule; ``skip``: the parent is the weighted mean
of the children present, with a coverage figure). Scoring, the robustness analysis and the
dashboard's "why is this missing" call it; nothing else compares policy names.
"""

from __future__ import annotations

INVALIDATE = "invalidate"
SKIP = "skip"
#: the missing-data policies, the default first
POLICIES = (INVALIDATE, SKIP)
DEFAULT_POLICY = INVALIDATE


def is_skip(policy: str) -> bool:
    """True for the policy that averages over the children present."""
    return policy == SKIP
