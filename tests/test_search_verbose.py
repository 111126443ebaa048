"""The ``verbose`` report of the cross-validated searches: what they fit, each
candidate's mean score, the best and the refit, on ``sys.stderr``."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest
from pegasos_rs import KernelPegasosClassifierCV, PegasosClassifierCV
from sklearn.datasets import make_classification
from sklearn.metrics import accuracy_score


def _data():
    X, y = make_classification(n_samples=240, n_features=8, random_state=3)
    return X / 3.0, y


def _report(search, X, y) -> list[str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        search.fit(X, y)
    return err.getvalue().splitlines()


def _candidate_lines(lines, name):
    return [line for line in lines if line.startswith(f"[{name}.fit] candidate ")]


def test_a_linear_search_reports_what_it_fits_and_its_scores():
    X, y = _data()
    search = PegasosClassifierCV(alphas=[1e-3, 1e-2], cv=3, max_iter=3, verbose=1, random_state=0)
    lines = _report(search, X, y)
    name = "PegasosClassifierCV"
    assert lines[0] == (
        f"[{name}.fit] fitting 3 folds for each of 2 candidates, totalling 6 fits "
        "(their fits sharing one call)"
    )
    scored = _candidate_lines(lines, name)
    assert len(scored) == 2
    for a, line in enumerate(scored):
        mean = float(re.search(r"mean test score ([\d.]+)", line).group(1))
        assert mean == pytest.approx(search.cv_results_["mean_test_score"][a], abs=5e-5)
    best = [line for line in lines if line.startswith(f"[{name}.fit] best alpha=")]
    assert best == [
        f"[{name}.fit] best alpha={search.alpha_:.4g}: mean test score "
        f"{search.best_score_:.4f}; refit on all 240 rows"
    ]
    # The candidates' fits are silent; the refit reports its passes.
    passes = [line for line in lines if line.startswith("[PegasosClassifier.fit] pass ")]
    assert len(passes) == search.best_estimator_.n_iter_ == 3
    assert search.best_estimator_.verbose == 1


def test_fits_one_by_one_report_each_fit_at_verbose_2():
    X, y = _data()

    def score(est, X, y):
        return accuracy_score(y, est.predict(X))

    search = PegasosClassifierCV(
        Cs=[1.0, 4.0], cv=3, max_iter=2, scoring=score, verbose=2, random_state=0
    )
    lines = _report(search, X, y)
    name = "PegasosClassifierCV"
    assert lines[0].endswith("totalling 6 fits (fitted one by one)")
    fits = [line for line in lines if re.match(rf"\[{name}\.fit\] \[fold \d/3\] C=", line)]
    assert len(fits) == 6
    for k in range(3):
        on_fold = [line for line in fits if f"[fold {k + 1}/3]" in line]
        got = [float(re.search(r"score ([\d.]+)", line).group(1)) for line in on_fold]
        np.testing.assert_allclose(got, search.cv_results_[f"split{k}_test_score"], atol=5e-5)
    assert len(_candidate_lines(lines, name)) == 2


def test_a_kernel_search_reports_too_and_refit_false_has_no_refit_line():
    X, y = _data()
    search = KernelPegasosClassifierCV(
        Cs=[1.0, 4.0], gammas=[0.5], cv=3, max_iter=2, refit=False, verbose=1, random_state=0
    )
    lines = _report(search, X, y)
    name = "KernelPegasosClassifierCV"
    assert lines[0].startswith(f"[{name}.fit] fitting 3 folds for each of 2 candidates")
    assert len(_candidate_lines(lines, name)) == 2
    best = [line for line in lines if line.startswith(f"[{name}.fit] best ")]
    assert len(best) == 1 and "refit" not in best[0] and "gamma=0.5" in best[0]
    assert not any("[KernelPegasosClassifier.fit]" in line for line in lines)


def test_a_quiet_search_writes_nothing():
    X, y = _data()
    assert _report(PegasosClassifierCV(alphas=[1e-3, 1e-2], cv=3, max_iter=2), X, y) == []
