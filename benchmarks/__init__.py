"""The project's benchmarks, each a module run from the repository root:

    python -m benchmarks.bench_scoring --help

``harness`` holds what they share (a spawned ``ml-peg-like serve``, headless Chromium, medians,
ratios, interleaved A/B rounds against another checkout, one table format); ``datasets`` makes
the synthetic data sets; ``page`` the page-side stamps of an edit and of the first rows. Every
figure in docs/PERFORMANCE.md names the command that gives it.
"""
