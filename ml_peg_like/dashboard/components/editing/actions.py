"""What each user action does to the settings and the view, as small pure functions.

The server's callback (``edit.py``) reads the page into a :class:`Step` (the changes, the view
and the controls as the page shows them) and the trigger into an :class:`Action`; the action's
function (one per kind of trigger, in :data:`ACTIONS`) returns the new :class:`Step`, or None when
there is nothing to answer. No Dash callback context is read here: each function is a mapping
from (settings, view, action) to (new settings, new view, message), testable on its own.

What each action changes:

- reset one row: that row's fields leave the changes; every box is rewritten.
- reset the table: the fields of every box shown leave the changes; every box is rewritten.
- reset all: no changes; every box is rewritten; "Back to the default settings."
- a preset: its changes merged (or, when it cannot be applied, the changes as they were, a red
  message and the picker cleared); every box is rewritten.
- the missing-data policy / "use skip": the config's policy (skip also for the categories that
  lose scores); a refused policy answers only its message and the switch set back.
- the sort: the grid's sort as the URL writes it.
- an upload: the file's changes from the defaults (a refused file: only its message).
- the URL (a link, back/forward): everything from the link (changes, view, metric, Explore's
  selection, the model filter, the toggle, the sort, the digits); unreadable settings are
  dropped with a message, and the controls that differ are set.
- a navigation request: the view and metric it names.
- a what-if click: that one edit (a change that cannot be applied: a message, nothing else).
- "Compare against this view": the changes shown become the baseline (``b=``); "Unpin": the
  published settings again. A link's unreadable baseline is dropped with a message.
- the toggles, filters, digits and Explore's controls: nothing here (the page's values are the
  step already); the changes from the browser (a box edit): nothing here either.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dash import no_update

from ....config import ROOT, Config, loads_config
from ....errors import ConfigError
from ....numfmt import SCORE_DIGITS, clean_digits
from ... import ids
from ...cache import ScoreCache
from ...state import (
    MAX_STATE_CHARS,
    Q_BASE,
    Q_DIGITS,
    Q_FILTER,
    Q_METRIC,
    Q_MISSING,
    Q_SHOW,
    Q_SORT,
    Q_STATE,
    Q_VIEW,
    Changes,
    Filters,
    apply_edit,
    changes_from_upload,
    clean_changes,
    count_changes,
    decode_changes,
    effective_changes,
    parse_query,
    read_baseline,
    reset_paths,
)
from ...tables import canonical_view, view_node
from ..board import grid, modelsearch
from ..board.sensitivity import Sensitivity, click_edit
from ..controls import policy, toolbar
from ..controls.inputs import text
from ..controls.presets import apply_preset
from ..explore import view as explore_view
from ..status import linked_filters, problem_text, status
from .viewstate import effective_sort, sort_text

#: the controls whose change needs no action of its own (the step read from the page holds it)
CONTROLS = (
    ids.SHOW,
    ids.MODEL_FILTER,
    ids.RANK_SHOWN,
    ids.CURVE_XSCALE,
    ids.DIGITS,
    *explore_view.CONTROLS,
)
MAX_QUERY_CHARS = MAX_STATE_CHARS + 4000  # a URL's query: the state and the view's settings


@dataclass(frozen=True)
class Env:
    """What the actions read besides the page: the scores (defaults, models, presets) and the
    sensitivity analysis, when the dashboard has one."""

    cache: ScoreCache
    sens: Sensitivity | None = None


@dataclass(frozen=True)
class Action:
    """One request's trigger: its id (a string, or a pattern id's dict), the inputs' values
    (checked for type and size: ``kw``), the boxes the page shows (path, field, value), the
    attribute filters' names in the page's order, and whether a what-if button was clicked
    (not just drawn)."""

    trig: Any
    kw: Mapping[str, Any] = field(default_factory=dict)
    boxes: tuple[tuple[str, str, Any], ...] = ()
    attr_names: tuple[str, ...] = ()
    clicked: bool = False

    @property
    def key(self) -> Any:
        """The key of :data:`ACTIONS`: the id, or ``("type", kind)`` of a pattern id."""
        if isinstance(self.trig, dict):
            return (ids.KEY_TYPE, self.trig.get(ids.KEY_TYPE))
        return self.trig


@dataclass(frozen=True)
class Step:
    """The settings and the view, before or after an action.

    ``status``: the message to show (``no_update``: none); ``rewrite``: every box is written
    from the changes (a reset, a preset, an upload, the URL); ``link``: the step comes from a
    link; ``cfg``: the config of ``changes`` when the action built it already; ``set``: controls
    the action sets directly (output name: value); ``final``: the action was refused, the answer
    is ``status`` and ``set`` alone; ``baseline``: the pinned settings rank and score changes
    compare with (None: the published settings); ``pinned``: pinned by this action."""

    changes: Changes
    view: str
    metric: str
    page: str
    sel: dict[str, Any]
    filters: Filters
    show: str
    sort: str
    digits: int
    status: Any = no_update
    rewrite: bool = False
    link: bool = False
    cfg: Config | None = None
    set: dict[str, Any] = field(default_factory=dict)
    final: bool = False
    baseline: Changes | None = None
    pinned: bool = False


def _with(step: Step, **changes: Any) -> Step:
    return dataclasses.replace(step, **changes)


def _refused(step: Step, message: str, **controls: Any) -> Step:
    return _with(step, status=status(message, "err"), set={**step.set, **controls}, final=True)


# ------------------------------------------------------------------------------------------------
# the actions: (env, step, action) -> new step, or None (nothing to answer)
# ------------------------------------------------------------------------------------------------


def unchanged(env: Env, step: Step, act: Action) -> Step | None:
    """The browser's changes, a toggle, a filter, the digits, an Explore control: the step read
    from the page is the answer's."""
    return step


def reset_one(env: Env, step: Step, act: Action) -> Step | None:
    path = act.trig.get(ids.KEY_PATH, "")
    return _with(step, changes=reset_paths(step.changes, [path]), rewrite=True)


def reset_table(env: Env, step: Step, act: Action) -> Step | None:
    paths = {p for p, _f, _v in act.boxes}
    return _with(step, changes=reset_paths(step.changes, paths), rewrite=True)


def reset_all(env: Env, step: Step, act: Action) -> Step | None:
    return _with(step, changes={}, rewrite=True, status=status("Back to the default settings."))


def preset(env: Env, step: Step, act: Action) -> Step | None:
    name = act.kw.get("preset")
    if not name or not isinstance(name, str):
        return None
    changes, cfg, message, ok = apply_preset(env.cache, step.changes, name)
    controls = {} if ok else {"preset": None}  # a failed preset is not left shown as selected
    return _with(
        step,
        changes=changes,
        cfg=cfg,
        status=status(message, "ok" if ok else "err"),
        set={**step.set, **controls},
        rewrite=True,
    )


def _policy_step(env: Env, step: Step, new: Changes, cur: Config) -> Step:
    try:
        cfg, _ = env.cache.scores_for(new)
    except ConfigError as exc:
        return _refused(step, f"Policy not applied: {problem_text(exc)}", policy=cur.missing)
    message = status(f"Missing-data policy: {cfg.missing}.")
    # the categories' policy boxes follow
    return _with(step, changes=new, cfg=cfg, status=message, rewrite=True)


def set_policy(env: Env, step: Step, act: Action) -> Step | None:
    """The switch: the config's policy (the categories' own policies stay)."""
    cur, _ = env.cache.scores_for(step.changes)
    wanted = text(act.kw.get("policy"), 40)
    new = effective_changes(env.cache.defaults, policy.policy_changes(step.changes, wanted))
    return _policy_step(env, step, new, cur)


def use_skip(env: Env, step: Step, act: Action) -> Step | None:
    """The no-score line's button: skip for the config and the categories that need it."""
    if not act.kw.get("use_skip"):
        return None
    cur, _ = env.cache.scores_for(step.changes)
    wanted = policy.policy_changes(step.changes, policy.agg.SKIP, cur)
    return _policy_step(env, step, effective_changes(env.cache.defaults, wanted), cur)


def sort(env: Env, step: Step, act: Action) -> Step | None:
    return _with(step, sort=sort_text(act.kw.get("sort")))


def pin(env: Env, step: Step, act: Action) -> Step | None:
    """ "Compare against this view": the changes shown become the baseline."""
    if not act.clicked:
        return None
    if not step.changes:
        message = "This view is the published settings: changes compare with them."
        return _with(step, baseline=None, status=status(message))
    n = count_changes(step.changes)
    message = (
        f"Pinned this view ({n} change{'s' if n != 1 else ''}) as the baseline: rank change, "
        "score change and Kendall τ now compare with it."
    )
    return _with(step, baseline=dict(step.changes), pinned=True, status=status(message))


def unpin(env: Env, step: Step, act: Action) -> Step | None:
    """ "Unpin": changes compare with the published settings again."""
    if not act.clicked or step.baseline is None:
        return None
    return _with(step, baseline=None, status=status("Comparing with the published settings."))


def page_baseline(defaults: Config, query: str | None) -> Changes | None:
    """The baseline of the query the page shows (None when it has none or, forged, cannot be
    read: the page's own query always can)."""
    try:
        return read_baseline(defaults, parse_query(query).get(Q_BASE))
    except ValueError:
        return None


def _link_baseline(env: Env, q: Mapping[str, str], shown: Any) -> tuple[Changes | None, Any]:
    """The baseline of a link and the message (``shown``, or why the baseline was ignored)."""
    try:
        return read_baseline(env.cache.defaults, q.get(Q_BASE)), shown
    except ValueError as exc:
        message = (
            f"The baseline in the link (b=) was ignored: {exc}. Rank and score changes compare "
            "with the published settings."
        )
        return None, status(message, "err") if shown is no_update else shown


def upload(env: Env, step: Step, act: Action) -> Step | None:
    contents = act.kw.get("upload")
    if not contents or not isinstance(contents, str):
        return None
    step = _with(step, set={**step.set, "upload": None})  # the same file can be loaded again
    fname = act.kw.get("filename") or "upload"
    try:
        uploaded = loads_config(toolbar.decode_upload(contents), fname)
        changes = changes_from_upload(env.cache.defaults, uploaded)
    except ConfigError as exc:
        return _refused(step, f"{fname} was not applied: {problem_text(exc)}")
    n = sum(len(f) for f in changes.values())
    message = f"Loaded settings from {fname}: {n} change{'s' if n != 1 else ''} from the defaults."
    return _with(step, changes=changes, status=status(message), rewrite=True)


def _link_settings(env: Env, q: Mapping[str, str]) -> tuple[Changes, Config | None, Any]:
    """The changes of a link, their config and the message (no_update, or why they were
    ignored: then no changes)."""
    defaults = env.cache.defaults
    try:
        decoded = decode_changes(q.get(Q_STATE))
        if q.get(Q_MISSING):
            decoded[ROOT] = {"missing": q[Q_MISSING][:40]}
        changes = clean_changes(defaults, effective_changes(defaults, decoded))
        cfg, _ = env.cache.scores_for(changes)
    except (ValueError, ConfigError) as exc:
        msg = problem_text(exc) if isinstance(exc, ConfigError) else str(exc)
        return {}, None, status(f"The settings in the link were ignored: {msg}", "err")
    return changes, cfg, no_update


def _link_controls(q: Mapping[str, str], act: Action) -> dict[str, Any]:
    """The toggle, sort and digits of a link (``set``: the controls that differ)."""
    linked_show = q.get(Q_SHOW, "")
    show = linked_show if linked_show in grid.SHOW_OPTIONS else grid.SHOW_OPTIONS[0]
    digits = clean_digits(q.get(Q_DIGITS), SCORE_DIGITS)
    digits = digits if digits in toolbar.DIGIT_CHOICES else SCORE_DIGITS
    shown = {"show_value": show, "digits": digits}
    now = {"show_value": act.kw.get("show"), "digits": act.kw.get("digits")}
    return {
        "show": show,
        "digits": digits,
        "sort": sort_text(q.get(Q_SORT, "")),
        "set": {k: v for k, v in shown.items() if v != now[k]},
    }


def _link_filters(env: Env, step: Step, q: Mapping[str, str], act: Action, shown: Any):
    """The model filter of a link, the controls to set when it differs from the page's, and
    the message (``shown``, or why the filter was ignored)."""
    linked, shown = linked_filters(q.get(Q_FILTER), env.cache, shown)
    if linked == step.filters:
        return step.filters, {}, shown
    attrs = linked.get(ids.FILTER_ATTRS) or {}  # not ``sel``: Explore's selection
    picks = linked.get(ids.FILTER_PICKS) or None
    controls = {"picks": picks, "attr_value": [attrs.get(name) or None for name in act.attr_names]}
    if modelsearch.is_large(len(env.cache.models)):  # offered with them: else dropped
        cache = env.cache
        controls["pick_options"] = modelsearch.model_options(
            cache.models, cache.display, "", picks or []
        )
    return linked, controls, shown


def link(env: Env, step: Step, act: Action) -> Step | None:
    """A page load or back/forward: the whole step from the URL (unless it is the query the
    page holds already)."""
    search = text(act.kw.get("search"), MAX_QUERY_CHARS)
    if search == (act.kw.get("qs") or ""):
        return None
    q = parse_query(search)
    changes, cfg, shown = _link_settings(env, q)
    controls = _link_controls(q, act)
    picked: dict[str, Any] = dict(controls["set"])
    sel = explore_view.from_query(env.cache, q, picked)
    filters, filter_controls, shown = _link_filters(env, step, q, act, shown)
    baseline, shown = _link_baseline(env, q, shown)
    return _with(
        step,
        changes=changes,
        cfg=cfg,
        status=shown,
        link=True,
        rewrite=True,
        show=controls["show"],
        sort=controls["sort"],
        digits=controls["digits"],
        view=canonical_view(env.cache.defaults, q.get(Q_VIEW, "")),
        metric=q.get(Q_METRIC, ""),
        page=explore_view.page_of(q.get(Q_VIEW)),
        sel=sel,
        filters=filters,
        set={**step.set, **picked, **filter_controls},
        baseline=baseline,
    )


def want(env: Env, step: Step, act: Action) -> Step | None:
    """A navigation request written in the browser: the view and metric it names."""
    wanted = act.kw.get("want")
    if not isinstance(wanted, dict) or ids.WANT_TIME not in wanted:
        return None
    return _with(
        step,
        view=canonical_view(env.cache.defaults, text(wanted.get(ids.VIEW_PATH))),
        metric=text(wanted.get(ids.VIEW_METRIC)),
        page=explore_view.page_of(wanted.get(ids.VIEW_PATH)),
    )


def whatif(env: Env, step: Step, act: Action) -> Step | None:
    """A what-if change's button: an edit of that box."""
    if env.sens is None or not act.clicked:
        return None  # no analysis, or the button was just drawn, not clicked
    defaults = env.cache.defaults
    try:
        changes, cfg = apply_edit(
            defaults, step.changes, click_edit(act.trig, defaults, step.changes)
        )
    except (KeyError, ConfigError) as exc:
        msg = problem_text(exc) if isinstance(exc, ConfigError) else "unknown path"
        message = status(f"That change cannot be applied: {msg}", "err")
        return _with(step, status=message, rewrite=True)
    return _with(step, changes=changes, cfg=cfg, rewrite=True)


Act = Callable[[Env, Step, Action], Step | None]

#: the function of each trigger (an id, or ``("type", kind)`` of a pattern id)
ACTIONS: dict[Any, Act] = {
    ids.CHANGES: unchanged,
    (ids.KEY_TYPE, ids.T_RESET): reset_one,
    ids.RESET_TABLE: reset_table,
    ids.RESET_ALL: reset_all,
    ids.PRESET: preset,
    ids.MISSING_POLICY: set_policy,
    ids.MISSING_SKIP: use_skip,
    ids.SORT: sort,
    ids.UPLOAD: upload,
    ids.URL: link,
    ids.WANT: want,
    ids.BASE_PIN: pin,
    ids.BASE_UNPIN: unpin,
    (ids.KEY_TYPE, ids.T_WHATIF): whatif,
    (ids.KEY_TYPE, ids.T_ATTR): unchanged,
    **{c: unchanged for c in CONTROLS},
}


def dispatch(env: Env, step: Step, act: Action) -> Step | None:
    """The step after ``act``; None when there is nothing to answer (an unknown trigger, a
    closed view's control, a button drawn but not clicked, an empty upload...)."""
    if explore_view.idle(act.trig, step.page):
        return None  # a closed view's control (a model ticked in the grid)
    fn = ACTIONS.get(act.key)
    return fn(env, step, act) if fn is not None else None


# ------------------------------------------------------------------------------------------------
# the view after an action
# ------------------------------------------------------------------------------------------------


def first_metric(cfg: Config, view: str) -> str:
    """The first metric of a benchmark view ("" for any other view)."""
    node = view_node(cfg, view)
    if node is None or not hasattr(node, "metrics"):
        return ""
    return f"{cfg.full_path(view)}/{node.metrics[0].name}"


def view_changed(before: Step, after: Step) -> bool:
    return after.view != before.view or after.page != before.page


def settle(env: Env, before: Step, after: Step, from_link: bool) -> Step:
    """The view's sort and metric after an action: the sort belongs to a view (a link sets
    both; another view starts unsorted), and a metric's sort follows the toggle; the metric is
    one of the benchmark's (its first when none or another is named), "" off a benchmark."""
    if view_changed(before, after) and not from_link:
        sort_now = ""
    else:
        sort_now = effective_sort(after.sort, after.show, grid.SHOW_OPTIONS[0])
    defaults, v, metric = env.cache.defaults, after.view, after.metric
    node = view_node(defaults, v)
    if node is None or not hasattr(node, "metrics"):
        metric = ""
    elif not metric or not metric.startswith(v + "/") or metric not in env.cache.paths:
        metric = first_metric(defaults, v)
    return _with(after, sort=sort_now, metric=metric)
