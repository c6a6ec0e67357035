"""Where the wheel's files come from; everything else is in pyproject.toml.

The project keeps its dashboard assets in the top-level ``assets/`` and the demo dataset in
``data/demo/``. The wheel carries them as data-only subpackages of ``ml_peg_like``
(``ml_peg_like/dashboard/assets`` and ``ml_peg_like/_demo``); ``ml_peg_like.support.resources``
finds either copy.
"""

from setuptools import find_packages, setup

DATA_PACKAGES = {"ml_peg_like.dashboard.assets": "assets", "ml_peg_like._demo": "data/demo"}

setup(
    packages=find_packages(include=["ml_peg_like", "ml_peg_like.*"]) + list(DATA_PACKAGES),
    package_dir=DATA_PACKAGES,
    package_data={
        # data files inside the package itself (any subpackage)
        "": ["py.typed", "*.json", "*.yml", "*.yaml", "*.js", "*.css"],
        "ml_peg_like.dashboard.assets": [
            "*.js",
            "*.css",
            "*.png",
            "*.svg",
            "*.ico",
            # the published site's page (ml-peg-like publish), not loaded by the dashboard
            "site/*.js",
            "site/*.css",
            "site/*.html",
        ],
        "ml_peg_like._demo": ["*.yml", "*.csv"],
    },
)
