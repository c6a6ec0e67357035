"""ml-peg-like: score, rank and tune model benchmarks.

The engine (config, normalisers, scoring, readers and writers) imports no Dash.
"""

from .config import (
    Benchmark,
    Category,
    Config,
    Metric,
    ModelRef,
    config_from_dict,
    config_to_dict,
    dump_config,
    load_config,
    loads_config,
)
from .errors import ConfigError, DataError, MlPegLikeError, Problem
from .normalisers import (
    Normaliser,
    ParamSpec,
    apply_normaliser,
    get_normaliser,
    normaliser_names,
    register_normaliser,
)
from .raw import RawData, load_dataset, load_models, load_raw, raw_from_frame
from .robustness import compare_settings, kendall_tau, leave_one_out, rank_robustness, spearman_rho
from .scoring import (
    Contributions,
    Scores,
    compile_config,
    contributions,
    rank_desc,
    score,
    score_values,
)

__version__ = "0.1.0"


def show(data, **options):
    """Show the dashboard of ``data`` (a dataset directory, or ``(config, raw)``) inline in a
    Jupyter notebook; returns the Dash app. See docs/NOTEBOOK.md and
    :func:`ml_peg_like.dashboard.notebook.show` for the options. The dashboard (Dash) is
    imported only here: the engine does without it."""
    from .dashboard.notebook import show as show_inline

    return show_inline(data, **options)


__all__ = [
    "Benchmark",
    "Category",
    "Config",
    "ConfigError",
    "Contributions",
    "DataError",
    "Metric",
    "MlPegLikeError",
    "ModelRef",
    "Normaliser",
    "ParamSpec",
    "Problem",
    "RawData",
    "Scores",
    "apply_normaliser",
    "compare_settings",
    "kendall_tau",
    "leave_one_out",
    "rank_robustness",
    "spearman_rho",
    "compile_config",
    "config_from_dict",
    "config_to_dict",
    "contributions",
    "dump_config",
    "get_normaliser",
    "load_config",
    "load_dataset",
    "load_models",
    "load_raw",
    "loads_config",
    "normaliser_names",
    "rank_desc",
    "raw_from_frame",
    "register_normaliser",
    "score",
    "score_values",
    "show",
]
