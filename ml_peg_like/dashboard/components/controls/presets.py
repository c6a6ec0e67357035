"""Applying a preset: it changes only the fields it names and keeps every other change; a preset
that cannot be applied leaves the settings as they were (the message says why)."""

from __future__ import annotations

from ....errors import ConfigError
from ...cache import ScoreCache
from ...state import Changes, effective_changes


def merge_preset(changes: Changes, preset) -> Changes:
    """``changes`` with the fields ``preset`` names set to the preset's values."""
    new = {p: dict(f) for p, f in changes.items()}
    for path, fields in preset.items():
        new.setdefault(str(path), {}).update(dict(fields))
    return new


def apply_preset(
    cache: ScoreCache, changes: Changes, name: str
) -> tuple[Changes, object | None, str, bool]:
    """``(new changes, their config or None, status message, applied?)``."""
    defaults = cache.defaults
    preset = defaults.presets.get(name)
    if preset is None:
        return changes, None, f"Preset {name!r} does not exist; nothing changed.", False
    try:
        new = effective_changes(defaults, merge_preset(changes, preset))
        cfg, _ = cache.scores_for(new)
    except (ConfigError, ValueError, TypeError, AttributeError) as exc:
        why = "; ".join(str(p) for p in exc.problems[:3]) if isinstance(exc, ConfigError) else exc
        return (
            changes,
            None,
            f"Preset {name!r} cannot be applied ({why}); the settings are as they were.",
            False,
        )
    named = {(p, f) for p, fs in preset.items() for f in fs}
    kept = sum(1 for p, fs in changes.items() for f in fs if (p, f) not in named)
    n = sum(len(fs) for fs in preset.values())
    msg = f"Preset “{name}” applied: it sets {n} value{'s' if n != 1 else ''}"
    if kept:
        msg += f"; your {kept} other change{'s' if kept != 1 else ''} kept"
    return new, cfg, msg + ".", True
