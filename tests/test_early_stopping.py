"""Early stopping of the linear estimators (``early_stopping``, ``validation_fraction``,
``n_iter_no_change``), as scikit-learn's ``SGDClassifier`` has it: the held-out rows,
their scores after each pass, the stop, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from pegasos_rs import (
    PegasosClassifier,
    PegasosClassifierCV,
    PegasosRegressor,
    PegasosRegressorCV,
)
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, r2_score
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit


def _split(y, fraction, seed, stratified=True):
    """The training and held-out rows the documented split gives (sorted): the
    reference built from scikit-learn's splitters, not from the estimator."""
    n = len(y)
    n_held = int(np.ceil(fraction * n))
    cls = StratifiedShuffleSplit if stratified else ShuffleSplit
    train, held = next(cls(test_size=n_held, random_state=seed).split(np.zeros((n, 1)), y))
    return np.sort(train), np.sort(held)


def _classes(n_classes=3, n=500, seed=0):
    return make_classification(
        n_samples=n,
        n_features=12,
        n_informative=6,
        n_classes=n_classes,
        flip_y=0.05,
        random_state=seed,
    )


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_training_rows_fit_is_the_fit_on_them_alone(n_classes, sparse):
    """Until the rule stops it, an early-stopping fit is, bit for bit, the fit on
    the training rows alone; the scores after each pass are each binary problem's
    accuracy on the held-out rows, as scikit-learn computes it."""
    X, y = _classes(n_classes)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=y.size)
    X = sp.csr_matrix(X) if sparse else X
    params = {"alpha": 1e-3, "max_iter": 6, "average": False, "random_state": 3}
    est = PegasosClassifier(early_stopping=True, n_iter_no_change=10, **params)
    with pytest.warns(ConvergenceWarning, match="early stopping did not stop"):
        est.fit(X, y, sample_weight=w)
    train, held = _split(y, 0.1, 3)
    alone = PegasosClassifier(**params).fit(X[train], y[train], sample_weight=w[train])
    np.testing.assert_array_equal(est.coef_, alone.coef_)
    np.testing.assert_array_equal(est.intercept_, alone.intercept_)
    assert est.n_iter_ == 6
    n_problems = 1 if n_classes == 2 else n_classes
    assert len(est.validation_scores_) == n_problems
    for k in range(1, 7):
        model = PegasosClassifier(**{**params, "max_iter": k})
        model.fit(X[train], y[train], sample_weight=w[train])
        scores = model.decision_function(X[held]).reshape(held.size, -1)
        for p in range(n_problems):
            positive = est.classes_[1] if n_classes == 2 else est.classes_[p]
            right = (scores[:, p] > 0) == (y[held] == positive)
            expected = accuracy_score(np.ones(held.size), right, sample_weight=w[held])
            assert est.validation_scores_[p][k - 1] == pytest.approx(expected, abs=1e-12)


def test_the_rule_stops_each_problem_by_its_own_score():
    """With a tolerance no pass can beat, every problem stops after the first pass
    plus n_iter_no_change, with that many passes' model; ``converged`` problems
    issue no warning."""
    X, y = _classes(3)
    params = {"alpha": 1e-3, "max_iter": 10, "average": False, "random_state": 0}
    est = PegasosClassifier(early_stopping=True, tol=1.0, n_iter_no_change=2, **params)
    est.fit(X, y)  # filterwarnings=error: no ConvergenceWarning
    assert est.n_iter_ == 3
    assert [len(s) for s in est.validation_scores_] == [3, 3, 3]
    train, _ = _split(y, 0.1, 0)
    three = PegasosClassifier(**{**params, "max_iter": 3}).fit(X[train], y[train])
    np.testing.assert_array_equal(est.coef_, three.coef_)
    # A later fit without early stopping leaves no stale scores.
    est.set_params(early_stopping=False).fit(X, y)
    assert not hasattr(est, "validation_scores_")


def test_averaged_fits_stop_after_their_average_ran():
    """With the default suffix average, a fit stopped by the held-out score before
    its average began averages for as many passes again (as ``tol``'s rule)."""
    X, y = _classes(2, n=400)
    est = PegasosClassifier(
        early_stopping=True, tol=1.0, n_iter_no_change=1, max_iter=20, random_state=0
    ).fit(X, y)
    # Pass 2 stalls; the average begins then and runs to pass 4.
    assert est.n_iter_ == 4
    assert len(est.validation_scores_[0]) == 4


def test_the_regressor_scores_r2_on_its_held_out_rows():
    X, y = make_regression(n_samples=400, n_features=8, noise=5.0, random_state=0)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=y.size)
    params = {"alpha": 1e-4, "max_iter": 5, "average": False, "random_state": 7}
    est = PegasosRegressor(early_stopping=True, validation_fraction=0.2, n_iter_no_change=9)
    with pytest.warns(ConvergenceWarning, match="early stopping"):
        est.set_params(**params).fit(X, y, sample_weight=w)
    train, held = _split(y, 0.2, 7, stratified=False)
    alone = PegasosRegressor(**params).fit(X[train], y[train], sample_weight=w[train])
    np.testing.assert_array_equal(est.coef_, alone.coef_)
    expected = r2_score(y[held], alone.predict(X[held]), sample_weight=w[held])
    assert est.validation_scores_[0][-1] == pytest.approx(expected, abs=1e-12)
    stopped = PegasosRegressor(early_stopping=True, tol=10.0, n_iter_no_change=1, **params)
    assert stopped.fit(X, y).n_iter_ == 2


def test_partial_fit_runs_its_pass_on_all_rows():
    """partial_fit holds nothing out (one pass on the rows it is given)."""
    X, y = _classes(2, n=200)
    est = PegasosClassifier(early_stopping=True, random_state=0)
    est.partial_fit(X, y, classes=np.unique(y))
    plain = PegasosClassifier(random_state=0).partial_fit(X, y, classes=np.unique(y))
    np.testing.assert_array_equal(est.coef_, plain.coef_)
    assert not hasattr(est, "validation_scores_")


@pytest.mark.parametrize(
    ("params", "fit", "match"),
    [
        ({"validation_fraction": 0.0}, {}, "validation_fraction"),
        ({"validation_fraction": 1.0}, {}, "validation_fraction"),
        ({"validation_fraction": 0.999}, {}, "led to an empty set"),
        ({"multi_class": "crammer_singer"}, {}, "multi_class='ovr'"),
        ({"multi_class": "ovr_shared"}, {}, "multi_class='ovr'"),
        ({"max_steps": 100}, {}, "max_steps"),
        ({}, {"check_input": False}, "check_input=False"),
    ],
)
def test_what_early_stopping_cannot_do_is_refused(params, fit, match):
    X, y = _classes(3, n=300)
    est = PegasosClassifier(early_stopping=True, **params)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y, **fit)


def test_a_small_fraction_holds_out_a_row_of_every_class():
    """ceil(0.001 m) is one row; the stratified split holds out one of each class."""
    X, y = _classes(3, n=300)
    params = {"max_iter": 3, "average": False, "random_state": 1}
    est = PegasosClassifier(early_stopping=True, validation_fraction=0.001, n_iter_no_change=9)
    with pytest.warns(ConvergenceWarning):
        est.set_params(**params).fit(X, y)
    n = y.size
    train, held = next(StratifiedShuffleSplit(test_size=3, random_state=1).split(X, y))
    assert sorted(y[held]) == [0, 1, 2]
    alone = PegasosClassifier(**params).fit(X[np.sort(train)], y[np.sort(train)])
    np.testing.assert_array_equal(est.coef_, alone.coef_)
    assert n - train.size == 3


def test_a_class_too_small_to_stratify_is_named():
    X, y = _classes(3, n=300)
    y = y.copy()
    y[0] = 7  # one row of class 7
    with pytest.raises(ValueError, match="early_stopping holds out"):
        PegasosClassifier(early_stopping=True).fit(X, y)


def test_two_classes_with_shared_draws_stop_early():
    """Two classes are one binary problem: ``ovr_shared`` (the same model) stops
    early too."""
    X, y = _classes(2, n=300)
    shared = PegasosClassifier(
        early_stopping=True, multi_class="ovr_shared", tol=1.0, n_iter_no_change=1
    ).fit(X, y)
    assert shared.n_iter_ == 4


@pytest.mark.parametrize("search", [PegasosClassifierCV, PegasosRegressorCV])
def test_a_search_with_early_stopping_fits_its_candidates_one_by_one(search):
    """Each candidate's fold fit holds its own rows out: the search's fold scores
    are those of the estimator with early stopping on each fold."""
    from sklearn.model_selection import GridSearchCV, KFold

    if search is PegasosClassifierCV:
        X, y = _classes(2, n=300)
        est_class = PegasosClassifier
    else:
        X, y = make_regression(n_samples=300, n_features=6, noise=3.0, random_state=0)
        est_class = PegasosRegressor
    folds = KFold(3)
    common = {"early_stopping": True, "n_iter_no_change": 2, "max_iter": 8, "random_state": 4}
    cv = search(alphas=[1e-3, 1e-1], cv=folds, **common).fit(X, y)
    grid = GridSearchCV(est_class(**common), {"alpha": [1e-3, 1e-1]}, cv=folds).fit(X, y)
    for k in range(3):
        np.testing.assert_array_equal(
            cv.cv_results_[f"split{k}_test_score"], grid.cv_results_[f"split{k}_test_score"]
        )
    assert hasattr(cv.best_estimator_, "validation_scores_")
    with pytest.raises(ValueError, match="early_stopping=True"):
        search(alphas=[1e-3, 1e-1], search="halving", **common).fit(X, y)


# The kernel estimators.


def _kernel_classes(n_classes):
    X, y = _classes(n_classes, n=360, seed=5)
    return X / 4.0, y


@pytest.mark.parametrize(("n_classes", "multi_class"), [(2, "ovr"), (3, "ovr"), (4, "ovo")])
def test_the_kernel_fit_on_the_training_rows_is_the_fit_on_them_alone(n_classes, multi_class):
    """The kernel solver's held-out rows change nothing in its steps either: the
    support vectors (numbered among all rows), their coefficients and intercepts are
    those of the fit on the training rows alone; each problem's scores after each
    pass are its accuracy on its held-out rows (a pair's: the rows of its two
    classes, the first positive)."""
    from pegasos_rs import KernelPegasosClassifier

    X, y = _kernel_classes(n_classes)
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=y.size)
    params = {
        "alpha": 1e-3,
        "gamma": 0.5,
        "max_iter": 4,
        "average": False,
        "random_state": 2,
        "multi_class": multi_class,
        "decision_function_shape": "ovo" if multi_class == "ovo" else "ovr",
    }
    est = KernelPegasosClassifier(early_stopping=True, n_iter_no_change=10, **params)
    with pytest.warns(ConvergenceWarning, match="early stopping did not stop"):
        est.fit(X, y, sample_weight=w)
    train, held = _split(y, 0.1, 2)
    alone = KernelPegasosClassifier(**params).fit(X[train], y[train], sample_weight=w[train])
    np.testing.assert_array_equal(est.support_, train[alone.support_])
    np.testing.assert_array_equal(est.dual_coef_, alone.dual_coef_)
    np.testing.assert_array_equal(est.intercept_, alone.intercept_)
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])
    np.testing.assert_array_equal(est.predict(X), alone.predict(X))
    assert est.n_iter_ == 4
    classes = est.classes_
    if multi_class == "ovo":
        problems = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    elif n_classes == 2:
        problems = [1]
    else:
        problems = list(range(n_classes))
    assert len(est.validation_scores_) == len(problems)
    for k in range(1, 5):
        model = KernelPegasosClassifier(**{**params, "max_iter": k})
        model.fit(X[train], y[train], sample_weight=w[train])
        values = model.decision_function(X[held]).reshape(held.size, -1)
        for p, problem in enumerate(problems):
            if multi_class == "ovo":
                i, j = problem
                rows = np.isin(y[held], classes[[i, j]])
                right = (values[rows, p] > 0) == (y[held][rows] == classes[i])
                weights = w[held][rows]
            else:
                right = (values[:, p] > 0) == (y[held] == classes[problem])
                weights = w[held]
            expected = accuracy_score(np.ones(right.size), right, sample_weight=weights)
            assert est.validation_scores_[p][k - 1] == pytest.approx(expected, abs=1e-12)


def test_the_kernel_rule_stops_with_the_stopped_passes_model():
    from pegasos_rs import KernelPegasosClassifier

    X, y = _kernel_classes(3)
    params = {"alpha": 1e-3, "gamma": 0.5, "max_iter": 8, "average": False, "random_state": 0}
    est = KernelPegasosClassifier(early_stopping=True, tol=1.0, n_iter_no_change=2, **params)
    est.fit(X, y)  # every problem stops: no warning
    assert est.n_iter_ == 3
    train, _ = _split(y, 0.1, 0)
    three = KernelPegasosClassifier(**{**params, "max_iter": 3}).fit(X[train], y[train])
    np.testing.assert_array_equal(est.dual_coef_, three.dual_coef_)
    est.set_params(early_stopping=False).fit(X, y)
    assert est.n_iter_ == 8 and not hasattr(est, "validation_scores_")


def test_the_kernel_regressor_scores_r2():
    from pegasos_rs import KernelPegasosRegressor

    X, y = make_regression(n_samples=300, n_features=5, noise=2.0, random_state=1)
    X, y = X / 3.0, y / np.std(y)
    params = {"alpha": 1e-3, "gamma": 0.3, "max_iter": 3, "average": False, "random_state": 5}
    est = KernelPegasosRegressor(early_stopping=True, n_iter_no_change=9, **params)
    with pytest.warns(ConvergenceWarning, match="early stopping"):
        est.fit(X, y)
    train, held = _split(y, 0.1, 5, stratified=False)
    alone = KernelPegasosRegressor(**params).fit(X[train], y[train])
    np.testing.assert_array_equal(est.dual_coef_, alone.dual_coef_)
    np.testing.assert_array_equal(est.support_, train[alone.support_])
    expected = r2_score(y[held], alone.predict(X[held]))
    assert est.validation_scores_[0][-1] == pytest.approx(expected, abs=1e-12)


def test_a_precomputed_kernel_cannot_stop_early():
    from pegasos_rs import KernelPegasosClassifier

    X, y = _kernel_classes(2)
    gram = X @ X.T
    est = KernelPegasosClassifier(kernel="precomputed", early_stopping=True)
    with pytest.raises(ValueError, match="precomputed"):
        est.fit(gram, y)


def test_a_kernel_search_with_early_stopping_fits_its_candidates_one_by_one():
    from pegasos_rs import KernelPegasosClassifier, KernelPegasosClassifierCV
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    X, y = _kernel_classes(2)
    folds = StratifiedKFold(3)
    common = {"early_stopping": True, "n_iter_no_change": 2, "max_iter": 6, "random_state": 4}
    cv = KernelPegasosClassifierCV(Cs=[1.0, 8.0], gammas=[0.5], cv=folds, **common).fit(X, y)
    grid = GridSearchCV(
        KernelPegasosClassifier(**common),
        {"gamma": [0.5], "alpha": [1 / (1.0 * 240), 1 / (8.0 * 240)]},
        cv=folds,
    ).fit(X, y)
    for k in range(3):
        np.testing.assert_array_equal(
            cv.cv_results_[f"split{k}_test_score"], grid.cv_results_[f"split{k}_test_score"]
        )


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("row", [5, 193])
def test_a_bad_value_is_named_at_its_row_of_x(sparse, row):
    """Holding rows out reorders them: a NaN is still reported at its row of X (it
    was at its row of the reordered copy, a training or a held-out row)."""
    from pegasos_rs import KernelPegasosClassifier

    X, y = _classes(2, n=200)
    X[row, 2] = np.nan
    X = sp.csr_matrix(X) if sparse else X
    for est in (
        PegasosClassifier(early_stopping=True),
        PegasosRegressor(early_stopping=True),
        KernelPegasosClassifier(early_stopping=True),
    ):
        with pytest.raises(ValueError, match=rf"NaN at row {row}, column 2\b"):
            est.fit(X, y)


def test_held_out_rows_that_all_weigh_zero_are_refused():
    """No score can be computed on them: as scikit-learn, an error (the rule would
    otherwise stop every fit after n_iter_no_change passes on a score of 0)."""
    X, y = _classes(2, n=200)
    _, held = _split(y, 0.1, 0)
    w = np.ones(y.size)
    w[held] = 0.0
    with pytest.raises(ValueError, match="held-out rows are all zero"):
        PegasosClassifier(early_stopping=True, random_state=0).fit(X, y, sample_weight=w)
    w[held[0]] = 1.0
    PegasosClassifier(early_stopping=True, random_state=0, max_iter=2).fit(X, y, sample_weight=w)
