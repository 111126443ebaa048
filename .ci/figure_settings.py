"""Numbers in README, the docs and the docstrings that look measured but are not.

``.ci/readme_figures.py`` fails on a number with a unit of time, size, ratio or
percentage, or a decimal, that stands outside a generated region (see its docstring)
unless a phrase here covers it: ``SETTINGS[file][phrase]`` is the reason the phrase's
numbers are not measurements (a setting, a target, a test's bound, a fact of the
data or the design). A phrase must stand on one line of its file; a phrase no longer
in its file fails the check, so the list cannot go stale. A measured figure belongs
in a template under ``benches/quoted/``, never here.
"""

# The phrases are quoted as the files write them, multiplication signs included.
# ruff: noqa: RUF001

from __future__ import annotations

POLL = "an interval the code polls at (a constant of the design)"
TARGET = "a target a benchmark measures against (a setting of the benchmark)"
SETUP = "a setting of the benchmark's setup"
TESTED = "a bound a test asserts"
DATA = "a size of the data or of this machine, not a measurement of speed"
FOLDS = "arithmetic of the 5 folds Platt's sigmoid trains (a design estimate)"
UNSETTLED = "the ConvergenceWarning's threshold without tol (_linear_solver.UNSETTLED)"
KEPT_BOUND = "the kept blocks' default bounds, settings (limit_block_cache changes one)"
Q_SIZE = "arithmetic of the design: the budget's inverse kernel matrix, 8 x 2000² bytes"

SETTINGS: dict[str, dict[str, str]] = {
    "ARCHITECTURE.md": {
        "Ctrl-C polled every 50 ms": POLL,
        "the reporter every 50 ms": POLL,
    },
    "benches/README.md": {
        "26-class sets of 15,000 x 16 whose classes overlap": DATA,
        "`-s 11` test MSE + 2 %, on 20news-quoted": TARGET,
        "then about 15 % apart)": SETUP,
        "1 / 5 / 15 minutes": "os.getloadavg's three averages",
        "repeating after 20 s": "the earlier rule's cut-off, a setting",
        "| 1e-4 | 0.307 |": "C = 1/(alpha m), a setting",
        "| 1e-4 | 0.287 |": "C = 1/(alpha m), a setting",
        "| 2 (digit parity) | 1e-4 | 0.167 |": "C = 1/(alpha m), a setting",
        "| 10 (one-vs-rest) | 1e-4 | 0.167 |": "C = 1/(alpha m), a setting",
        "the first averaged point within 1 % gap": TARGET,
        "10 x LIBLINEAR's": SETUP,
        "[1.5 s, 30 s]; [0.5 s, 5 s]": SETUP,
        "at most **0.5 x** the": TARGET,
        "must be within 1% of it": "a check of the benchmark",
        "nor more than 0.1% below": "a check of the benchmark",
        "data takes 6 GB and LIBLINEAR's problem 12.5 GB": DATA,
        "this machine's 24 GB": DATA,
        "0.307 (alpha 1e-4, bench_linear's)": "C = 1/(alpha m), a setting",
        "0.01 (alpha 1e-5, bench_scaling's)": "C = 1/(alpha m), a setting",
        "(clipped to [1.5 s,": SETUP,
        "30 s], at least half": SETUP,
        "**within 2 %**, by a fit": TARGET,
        "test MSE **within 2 %**": TARGET,
        "a 16 times larger C": "arithmetic of the paper's setting",
        "| 2 | 1 | 0.998 | 1.29e-4 |": "gamma and C, settings",
        "| 2 | 0.05 | 1.000 | 3.07e-5 |": "gamma and C, settings",
        "| dense | 2 | 0.02 | 0.998 | 1.67e-5 |": "gamma and C, settings",
        "| dense | 10 | 0.02 | 0.998 | 1.67e-5 |": "gamma and C, settings",
        "≈ 0.0264": "gamma='scale' of usps, a setting computed from the data",
        "2.88 / 2.91 %, 14.9 / 15.5 %, 0.57 / 0.6 %": "the paper's Table 2, cited",
        "a 200 MB kernel cache": SETUP,
        "default 2 x SVC's fit time, at least 60 s; 10 s with": SETUP,
        "64 x 64 training rows": SETUP,
        "1 pp error on the paper's sets; 97 %": "a check of the benchmark",
        "mnist-10, 98 % ijcnn1, 93.5 % usps": "a check of the benchmark",
        "than 1 % below it": "a check of the benchmark",
        "gap (5 %, 1 %, 0.5 %)": TARGET,
        "200 MB being both": SETUP,
        "within 5 % of SVR's": TARGET,
        "at least 5× scikit-learn": TARGET,
        "5 % label noise": SETUP,
        "data takes 6 GB, SGDClassifier's float64 copy 9 GB": DATA,
        "problem about 12 GB": DATA,
        "24 GB, not much more": DATA,
        "at most 2 × (that pass": TARGET,
        "`memory_limit` 2 GiB each": SETUP,
        "reaches 87.9 % (`bench_scaling.py`'s target)": TARGET,
        "sampled every 0.2 s": SETUP,
        "at least 5x faster": TARGET,
        "at least 99.9 % equal": "a check of the benchmark",
        "under 0.3 s for": TARGET,
        "under 0.6 s for": TARGET,
        "under 0.5 s for `predict` on": TARGET,
        "at least SGDRegressor's - 0.02**": TARGET,
        # bench_budget.py (issue 40)
        "(1 % of the MSE), or before": SETUP,
        "(within 1.5 x that": SETUP,
        "2 % of the labels flipped": DATA,
        "Bayes accuracy is 98 % by construction": "the label noise's complement, by construction",
        "alpha 5e-5 and gamma 0.025 for": SETUP,
        "rows mapped would take 8 GB": DATA,
        "reaches here in at most 60 s": TARGET,
        "test MSE + 5 % takes": TARGET,
    },
    "docs/user_guide/dask.rst": {
        "at most 10 GiB per worker": KEPT_BOUND,
        "disk keeps 10 % free.": KEPT_BOUND,
        "less than 10 % free (dask spilling there, say)": KEPT_BOUND,
        "40 rounds come within 1 % of the objective of 20 in-memory passes": TESTED,
        "within 0.1 s of waiting": POLL,
    },
    "docs/user_guide/kernel.rst": {
        "within 1 % of the exact kernel L2-SVM's objective in 50 passes": TESTED,
        "test error within 5 % of": TESTED,
        "rounding does not pile up. It takes ``8 B²`` bytes a problem: 32 MB for": Q_SIZE,
    },
    "docs/user_guide/linear.rst": {
        "weights 1000 and 0.0001": "scikit-learn's check, its settings",
        "about 5 to 6 times as long": FOLDS,
    },
    "docs/user_guide/losses.rst": {
        "objective within 1 % of it after 30 passes": TESTED,
        "decision values correlating above 0.99": TESTED,
        "within 2 % of LIBLINEAR's": TESTED,
        "within 1 % of LIBLINEAR's optimum": TESTED,
        "the last pass still lowered it by more than 5 %": UNSETTLED,
    },
    "docs/user_guide/model_selection.rst": {
        "beyond 4 GiB (about 11,700": "the kernel searches' memory bound (kernel_cv.GRAM_BYTES)",
    },
    "docs/user_guide/onnx.rst": {
        "at least 99.9 % of the rows": TESTED,
    },
    "docs/user_guide/threads_and_interrupts.rst": {
        "polled every 50 ms": POLL,
        "Python 3.14": "a Python version",
    },
    "benches/quoted/benchmarks_overview.rst": {
        "(target 3× SGDClassifier)": TARGET,
        "it 3× faster than SGD": TARGET,
        "The objective within 1 % on imdb": TARGET,
        "with a 200 MB kernel cache": SETUP,
        "within 2 % of LIBLINEAR": TARGET,
        "workers with 2 GiB each": SETUP,
    },
    "benches/quoted/kernel_regression_cache.rst": {
        "test error + 5 %": TARGET,
        "the default 200 MB": "cache_size's default",
    },
    "benches/quoted/readme_benchmarks.md": {
        "test MSE + 2 %": TARGET,
        "test MSE + 5 %": TARGET,
        "twice the in-memory time + 0.5 s": TARGET,
        "twice it + 0.5 s": TARGET,
        "not the 3× aimed at": TARGET,
        "the AUC within 0.01, a miss of the 1/2": TARGET,
        "the AUC within 0.01, a miss of the 1/3": TARGET,
        "2 % of the labels flipped": DATA,
        "in at most 60 s": TARGET,
        "2 worker processes with 1 GiB each": SETUP,
    },
    "docs/changes.rst": {
        "``ConvergenceWarning`` when that is more than 5 %": UNSETTLED,
        "take at most 10 GiB of each worker's disk": KEPT_BOUND,
        "disk has less than 10 % free (dask spilling there, say)": KEPT_BOUND,
    },
    "python/pegasos_rs/dask/_kept.py": {
        "(10 GiB by default)": KEPT_BOUND,
        "while the disk keeps 10 % of its space free": KEPT_BOUND,
        "than 10 % of the disk free": KEPT_BOUND,
    },
    "python/pegasos_rs/cli/_demo.py": {
        "a random 20 % of the": "a setting of the demo's generated data",
        "then 5 % of": "a setting of the demo's generated data",
        "the last 20 % of the rows after training on the first 80 %": "the demo's split",
    },
    "python/pegasos_rs/_docs.py": {
        "within about 50 ms of Ctrl-C": POLL,
        "``budget**2`` floats (32 MB for a budget of 2,000), and a step that adds a": Q_SIZE,
    },
    "python/pegasos_rs/_progress.py": {
        "about every 50 ms": POLL,
    },
    "python/pegasos_rs/dask/_exact.py": {
        "within 0.1 s": POLL,
    },
    "python/pegasos_rs/dask/_interrupt.py": {
        "every 0.1 s while it waits": POLL,
    },
    "python/pegasos_rs/kernel.py": {
        "up to about 6 times as long": FOLDS,
        "about 4.2 times for a cost that grows as their square": FOLDS,
    },
    "python/pegasos_rs/kernel_approximation.py": {
        "is below 0.05 / 0.01": TESTED + " (tests/test_kernel_approximation.py)",
        "/ 0.003 at orders 1 / 3 / 5 for chi2 and js, and 0.1 / 0.06 / 0.05": TESTED
        + " (tests/test_kernel_approximation.py)",
        "chi2 0.096 / 0.031 / 0.013 / 0.003": "a property of the map, computed exactly",
        "0.074 / 0.022 / 0.008 / 0.002; intersection (a non-smooth kernel) 0.16": (
            "a property of the map, computed exactly"
        ),
        "0.12 / 0.10 / 0.07.": "a property of the map, computed exactly",
    },
    "python/pegasos_rs/linear_regressor.py": {
        "``ConvergenceWarning`` above 5 %": UNSETTLED,
    },
    "python/pegasos_rs/linear.py": {
        "``ConvergenceWarning`` above 5 %": UNSETTLED,
        "about 5 to 6 times as long": FOLDS,
    },
}
