"""Normalisers: vectorised maps from raw metric values to scores in [0, 1].

Every normaliser is called on a block of columns at once: ``x`` has shape (models, k) and every
parameter (``good``, ``bad``, ``b``, ...) is an array of shape (k,), one value per metric column.
NaN in ``x`` stays NaN. The registry maps a name to a :class:`Normaliser`; the config, the CLI and
the dashboard look normalisers up here, so ``register_normaliser`` makes a new one available to all
three.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

#: -ln(0.9): the Weibull score equals 0.1 at a speed-up of ``c`` (seed 000).
_LN_09 = -math.log(0.9)


@dataclass(frozen=True)
class ParamSpec:
    """A numeric parameter of a normaliser, set per metric in the config as a plain key."""

    name: str
    default: float | None = None  # None: required
    description: str = ""
    positive: bool = False  # must be > 0
    greater_than: float | None = None  # must be > this (e.g. max_speedup > 1)
    model_ref: bool = False  # may be ``{model: NAME}`` (resolved from that model's raw value)
    optional: bool = False  # may be absent (no default, not required)
    label: str = ""  # the label of its box in the dashboard ("" -> the name)
    #: the robustness analysis may move it by +-x % (a numeric value, not a {model: NAME})
    jitter: bool = True

    @property
    def title(self) -> str:
        """The label shown beside the parameter's box."""
        return self.label or self.name


#: The two thresholds of a threshold normaliser, declared like any other parameter.
GOOD = ParamSpec("good", None, "raw value that scores 1", model_ref=True, label="good")
BAD = ParamSpec("bad", None, "raw value that scores 0", model_ref=True, label="bad")


@dataclass(frozen=True)
class Mark:
    """A raw value worth drawing on the normalisation curve (a threshold, a reference point)."""

    label: str  # e.g. "good", "bad", "score 0.1"
    x: float
    kind: str = "other"  # "good" (drawn green), "bad" (drawn red) or "other"


@dataclass(frozen=True)
class Normaliser:
    """A named, vectorised normaliser.

    ``fn(x, **params)`` receives ``x`` (models x k) and each parameter as a (k,) float array;
    ``good`` and ``bad`` are passed when ``uses_thresholds`` is true.
    """

    name: str
    fn: Callable[..., np.ndarray]
    params: tuple[ParamSpec, ...] = ()
    uses_thresholds: bool = True
    description: str = ""
    #: the parameters a user edits in the dashboard, in display order
    editable: tuple[str, ...] = field(default=("good", "bad"))
    #: built-ins that already keep NaN and stay in [0, 1] skip the extra safety passes
    trusted: bool = False
    #: resolved parameters {name: float} -> the raw values to mark on the curve
    marks: Callable[[dict[str, float]], list[Mark]] | None = None
    #: the curve reads best on a log x axis (speed-ups and run times)
    log_x: bool = False

    @property
    def fields(self) -> tuple[ParamSpec, ...]:
        """Every parameter the config may set: good and bad first (threshold normalisers)."""
        return ((GOOD, BAD) if self.uses_thresholds else ()) + self.params

    def param(self, name: str) -> ParamSpec | None:
        """The :class:`ParamSpec` called ``name`` (good/bad included), or None."""
        for p in self.fields:
            if p.name == name:
                return p
        return None

    def label(self, name: str) -> str:
        """The box label of an editable field (``weight`` included)."""
        p = self.param(name)
        return p.title if p is not None else name

    def jitter_params(self) -> tuple[str, ...]:
        """The editable parameters the robustness analysis may move."""
        return tuple(n for n in self.editable if (p := self.param(n)) is not None and p.jitter)

    def curve_marks(self, params: dict[str, float]) -> list[Mark]:
        """The raw values to draw on the curve for these resolved parameters (finite only)."""
        if self.marks is not None:
            out = self.marks(params)
        elif self.uses_thresholds:
            out = [
                Mark("good", params.get("good", math.nan), "good"),
                Mark("bad", params.get("bad", math.nan), "bad"),
            ]
        else:
            out = []
        return [m for m in out if m.x is not None and math.isfinite(m.x)]


_REGISTRY: dict[str, Normaliser] = {}


def register_normaliser(
    name: str,
    fn: Callable[..., np.ndarray],
    *,
    params: tuple[ParamSpec, ...] | list[ParamSpec] = (),
    uses_thresholds: bool = True,
    description: str = "",
    editable: tuple[str, ...] | None = None,
    marks: Callable[[dict[str, float]], list[Mark]] | None = None,
    log_x: bool = False,
    _trusted: bool = False,
) -> Normaliser:
    """Register (or replace) a normaliser under ``name`` and return it.

    ``fn(x, good=..., bad=..., **params)`` must accept a (models, k) array and (k,) parameter
    arrays and return scores of the shape of ``x``. Results are clipped to [0, 1] and NaN inputs
    stay NaN, whatever ``fn`` does. ``params`` declare the other parameters (label, default,
    whether the robustness analysis may jitter them); ``marks`` says which raw values the curve
    marks (default: good and bad); ``log_x`` asks for a log x axis on the curve.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a normaliser needs a non-empty name")
    params = tuple(params)
    if editable is None:
        editable = ("good", "bad") if uses_thresholds else tuple(p.name for p in params)
    norm = Normaliser(
        name=name,
        fn=fn,
        params=params,
        uses_thresholds=uses_thresholds,
        description=description,
        editable=tuple(editable),
        trusted=_trusted,
        marks=marks,
        log_x=log_x,
    )
    _REGISTRY[name] = norm
    return norm


def get_normaliser(name: str) -> Normaliser:
    """The registered normaliser called ``name`` (KeyError if there is none)."""
    return _REGISTRY[name]


def normaliser_names() -> list[str]:
    return sorted(_REGISTRY)


def apply_normaliser(norm: Normaliser, x: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
    """Run ``norm`` on ``x`` (models x k) and enforce the contract: [0, 1], NaN stays NaN."""
    x = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        out = np.asarray(norm.fn(x, **params), dtype=float)
        if norm.trusted:
            return out
        out = np.clip(out, 0.0, 1.0) + 0.0  # + 0.0 turns -0.0 into 0.0
    out = np.where(np.isnan(x), np.nan, out)
    return out


# --------------------------------------------------------------------------------------------
# Built-in normalisers
# --------------------------------------------------------------------------------------------


def linear(x: np.ndarray, good: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """clip((x - bad) / (good - bad), 0, 1) (seed 003). good < bad: lower is better.

    Where ``good == bad`` (possible only for thresholds resolved from data) the score is a step:
    1 when x equals ``good``, else 0. Infinite thresholds and values (e.g. ``bad: {model:
    trivial}`` with trivial = inf) score as the limit of the formula, never NaN: see
    :func:`_linear_extended`.
    """
    span = good - bad
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = np.subtract(x, bad)
        s /= span
    np.clip(s, 0.0, 1.0, out=s)
    # columns with a zero, infinite or NaN span take the exact path (x = +-inf with a finite
    # non-zero span already clips to the right limit)
    special = ~np.isfinite(span) | (span == 0)
    if np.any(special):
        k = s.shape[-1]
        cols = np.flatnonzero(np.broadcast_to(special, (k,)))
        g = np.broadcast_to(np.asarray(good, dtype=float), (k,))[cols]
        b = np.broadcast_to(np.asarray(bad, dtype=float), (k,))[cols]
        s[:, cols] = _linear_extended(x[:, cols], g, b)
    s += 0.0  # -0.0 -> 0.0
    return s


def _linear_extended(x: np.ndarray, good: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """``linear`` on the extended reals, for columns whose span good - bad is 0, +-inf or NaN.

    Oriented so that higher is better (u = x, g = good, b = bad when good > bad; all negated when
    good < bad): u at or beyond g scores 1, u at or beyond b scores 0 (a value equal to an
    infinite threshold scores that threshold's score); strictly between, (u - b) / (g - b), whose
    limit is 1 when only b is infinite (seed 002: 1 - Err / inf = 1), 0 when only g is infinite
    and 1/2 when both are (both thresholds moving out at the same rate). good == bad: 1 when
    x == good, else 0. NaN in x, good or bad: NaN.
    """
    lower = good < bad
    u = np.where(lower, -x, x)
    g = np.where(lower, -good, good)
    b = np.where(lower, -bad, bad)
    g_inf, b_inf = np.isinf(g), np.isinf(b)
    with np.errstate(all="ignore"):
        # halves: g - b of two finite values may overflow
        inner = (0.5 * u - 0.5 * b) / (0.5 * g - 0.5 * b)
    inner = np.where(b_inf, np.where(g_inf, 0.5, 1.0), np.where(g_inf, 0.0, inner))
    out = np.where(u >= g, 1.0, np.where(u <= b, 0.0, inner))
    out = np.where(good == bad, np.where(x == good, 1.0, 0.0), out)
    out[np.isnan(x) | np.isnan(good) | np.isnan(bad)] = np.nan
    return out


def traffic_light(x: np.ndarray, good: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """LIPS traffic lights (seeds 000/001): 1 "great" when x is at least as good as ``good``,
    0 "unacceptable" when x is worse than ``bad``, 0.5 "acceptable" otherwise.

    The direction follows the thresholds: good < bad means lower is better. A group of N
    equal-weight traffic-light metrics then scores (2 Ng + No) / (2 N). Comparisons only, so
    infinite values and thresholds need no special case; a NaN value or threshold gives NaN.
    """
    lower = good <= bad
    great = np.where(lower, x <= good, x >= good)
    red = np.where(lower, x > bad, x < bad)
    out = np.where(great, 1.0, np.where(red, 0.0, 0.5))
    out[np.isnan(x) | np.isnan(good) | np.isnan(bad)] = np.nan
    return out


def _speedup(x: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """s = reference / x when a reference run time is given (x is a run time), else s = x.

    A run time equal to the reference has speed-up 1, also when both are inf (or 0); a negative
    speed-up is NaN.
    """
    ref = np.asarray(reference, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(np.isnan(ref), x, np.where(x == ref, 1.0, ref / x))
    return np.where(s < 0, np.nan, s)


def weibull_speedup(
    x: np.ndarray, b: np.ndarray, c: np.ndarray, reference: np.ndarray | None = None
) -> np.ndarray:
    """min(1 - exp(-(s / a)^b), 1) with a = c (-ln 0.9)^(-1/b) (seed 000, LIPS power grid).

    The score is 0.1 at s = c; b = 1.7, c = 5 gives a = 18.787.
    """
    if reference is None:
        reference = np.full(x.shape[-1], np.nan)
    s = _speedup(x, reference)
    a = c * _LN_09 ** (-1.0 / b)
    return np.clip(1.0 - np.exp(-((s / a) ** b)), 0.0, 1.0) + 0.0


def log_speedup(
    x: np.ndarray, max_speedup: np.ndarray, reference: np.ndarray | None = None
) -> np.ndarray:
    """clip(log10(s) / log10(max_speedup), 0, 1) (seed 001, LIPS airfoil)."""
    if reference is None:
        reference = np.full(x.shape[-1], np.nan)
    s = _speedup(x, reference)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip(np.log10(s) / np.log10(max_speedup), 0.0, 1.0) + 0.0


def _at_speedup(params: dict[str, float], s: float) -> float:
    """The raw value at speed-up ``s``: a run time reference / s, or s itself without reference."""
    ref = params.get("reference", math.nan)
    return ref / s if ref is not None and math.isfinite(ref) else s


def _weibull_marks(params: dict[str, float]) -> list[Mark]:
    c = params.get("c", math.nan)
    return [Mark("score 0.1", _at_speedup(params, c))]


def _log_marks(params: dict[str, float]) -> list[Mark]:
    ms = params.get("max_speedup", math.nan)
    return [
        Mark("score 1", _at_speedup(params, ms), "good"),
        Mark("score 0", _at_speedup(params, 1.0), "bad"),
    ]


_REFERENCE = ParamSpec(
    "reference",
    None,
    "run time of the reference solver (number or {model: NAME}); when absent the raw value "
    "is already a speed-up",
    positive=True,
    model_ref=True,
    optional=True,
    label="reference",
    jitter=False,
)

register_normaliser(
    "linear",
    linear,
    _trusted=True,
    description="Linear between the bad (score 0) and good (score 1) thresholds, clipped.",
)
register_normaliser(
    "traffic_light",
    traffic_light,
    _trusted=True,
    description="Three levels: 1 at least as good as 'good', 0 worse than 'bad', 0.5 between.",
)
register_normaliser(
    "weibull_speedup",
    weibull_speedup,
    _trusted=True,
    params=(
        ParamSpec("b", 1.7, "Weibull shape", positive=True, label="b (shape)"),
        ParamSpec("c", 5.0, "speed-up that scores 0.1", positive=True, label="c (score 0.1)"),
        _REFERENCE,
    ),
    uses_thresholds=False,
    description="Weibull stretched exponential of the speed-up (LIPS): 1 - exp(-(s/a)^b).",
    editable=("c", "b"),
    marks=_weibull_marks,
    log_x=True,
)
register_normaliser(
    "log_speedup",
    log_speedup,
    _trusted=True,
    params=(
        ParamSpec(
            "max_speedup",
            None,
            "speed-up that scores 1",
            positive=True,
            greater_than=1.0,
            label="max speed-up",
        ),
        _REFERENCE,
    ),
    uses_thresholds=False,
    description="log10(speed-up) / log10(max speed-up), clipped to [0, 1] (LIPS).",
    editable=("max_speedup",),
    marks=_log_marks,
    log_x=True,
)
