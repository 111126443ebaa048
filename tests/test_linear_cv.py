"""PegasosClassifierCV and PegasosRegressorCV: every candidate's fold scores are
GridSearchCV's over the same estimator, folds and random_state, bit for bit; the
grid, the refit and the errors a user meets."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import parametrize_with_checks
from pegasos_rs import (
    PegasosClassifier,
    PegasosClassifierCV,
    PegasosRegressor,
    PegasosRegressorCV,
    load,
)
from pegasos_rs._search import default_cs, start_c
from sklearn.base import clone
from sklearn.datasets import load_diabetes, load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

ALPHAS = [1e-1, 1e-2, 1e-3, 1e-4]

# Fits of few passes warn that the last pass still moved the objective: that is
# the estimator's own warning, checked elsewhere.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _digits(n=600):
    X, y = load_digits(return_X_y=True)
    return X[:n] / 16.0, y[:n]


def _split_scores(results, n_folds):
    return np.array([results[f"split{k}_test_score"] for k in range(n_folds)])


def _assert_grid_search_equal(cv, gs, n_folds):
    np.testing.assert_array_equal(
        _split_scores(cv.cv_results_, n_folds), _split_scores(gs.cv_results_, n_folds)
    )
    assert cv.best_params_ == gs.best_params_
    assert cv.best_score_ == gs.best_score_


@pytest.mark.parametrize(
    "params",
    [
        {"loss": "hinge"},
        {"loss": "squared_hinge", "class_weight": "balanced"},
        {"loss": "log_loss", "multi_class": "ovr_shared"},
        {"loss": "modified_huber", "tol": 1e-2, "n_iter_no_change": 2, "average": False},
        {"loss": "hinge", "tol": 1e-1, "sampling": "shuffle", "batch_size": 4},
        {"loss": "hinge", "intercept_scaling": None, "sampling": "balanced"},
    ],
)
@pytest.mark.parametrize("sparse", [False, True])
def test_fold_scores_are_grid_search_cvs_bit_for_bit(params, sparse):
    X, y = _digits()
    if params.get("sampling") == "balanced":
        y = (y > 4).astype(int)  # balanced sampling: two classes
    X = sp.csr_matrix(X) if sparse else X
    kw = {"max_iter": 4, "random_state": 7, **params}
    cv = PegasosClassifierCV(alphas=ALPHAS, cv=4, **kw).fit(X, y)
    gs = GridSearchCV(PegasosClassifier(**kw), {"alpha": ALPHAS}, cv=4).fit(X, y)
    _assert_grid_search_equal(cv, gs, 4)
    # The refit is the estimator fitted on all rows at the best alpha.
    np.testing.assert_array_equal(cv.coef_, gs.best_estimator_.coef_)
    np.testing.assert_array_equal(cv.predict(X), gs.predict(X))
    assert cv.alpha_ == gs.best_params_["alpha"]


#: Whether this scikit-learn's GridSearchCV forwards sample_weight to its scorer.
FORWARDS_WEIGHTS = hasattr(GridSearchCV, "_check_scorers_accept_sample_weight")


@pytest.mark.parametrize("scoring", [None, "balanced_accuracy", "f1_macro"])
def test_sample_weights_train_and_weigh_the_scores(scoring):
    """Each fold trains on its rows' weights, and its held-out rows' weights weigh
    the score (as GridSearchCV forwards them to the scorer): the reference is each
    fold fitted and scored by hand."""
    from sklearn.metrics import get_scorer

    X, y = _digits()
    w = np.random.default_rng(0).uniform(0.2, 2.0, y.size)
    kw = {"max_iter": 3, "random_state": 1}
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    cv = PegasosClassifierCV(alphas=ALPHAS, cv=folds, scoring=scoring, **kw)
    cv.fit(X, y, sample_weight=w)
    scorer = get_scorer(scoring or "accuracy")
    for a, alpha in enumerate(ALPHAS):
        for k, (tr, te) in enumerate(folds):
            model = PegasosClassifier(alpha=alpha, **kw).fit(X[tr], y[tr], sample_weight=w[tr])
            want = scorer(model, X[te], y[te], sample_weight=w[te])
            assert cv.cv_results_[f"split{k}_test_score"][a] == want
    if FORWARDS_WEIGHTS:
        gs = GridSearchCV(PegasosClassifier(**kw), {"alpha": ALPHAS}, cv=folds, scoring=scoring)
        _assert_grid_search_equal(cv, gs.fit(X, y, sample_weight=w), 3)


def test_a_scorer_of_decision_values_and_a_callable_match_grid_search_cv():
    X, y = _digits()
    y = (y % 2).astype(int)
    kw = {"max_iter": 3, "random_state": 2}

    def mistakes(est, X, y):
        return -float(np.sum(est.predict(X) != y))

    for scoring in ("roc_auc", mistakes):
        cv = PegasosClassifierCV(alphas=ALPHAS, cv=3, scoring=scoring, **kw).fit(X, y)
        gs = GridSearchCV(PegasosClassifier(**kw), {"alpha": ALPHAS}, cv=3, scoring=scoring)
        _assert_grid_search_equal(cv, gs.fit(X, y), 3)


def test_crammer_singer_candidates_are_fitted_one_by_one():
    X, y = _digits(300)
    kw = {"max_iter": 2, "random_state": 3, "multi_class": "crammer_singer"}
    cv = PegasosClassifierCV(alphas=ALPHAS[:2], cv=3, **kw).fit(X, y)
    gs = GridSearchCV(PegasosClassifier(**kw), {"alpha": ALPHAS[:2]}, cv=3).fit(X, y)
    _assert_grid_search_equal(cv, gs, 3)


@pytest.mark.parametrize(
    "params",
    [
        {"loss": "epsilon_insensitive"},
        {"loss": "squared_epsilon_insensitive", "tol": 1e-2, "n_iter_no_change": 2},
        {"loss": "huber", "epsilon": 0.5},
        {"loss": "squared_error"},
    ],
)
def test_regressor_fold_scores_are_grid_search_cvs(params):
    X, y = load_diabetes(return_X_y=True)
    kw = {"max_iter": 4, "random_state": 5, **params}
    for scoring in (None, "neg_mean_absolute_error"):
        cv = PegasosRegressorCV(alphas=ALPHAS, cv=5, scoring=scoring, **kw).fit(X, y)
        gs = GridSearchCV(PegasosRegressor(**kw), {"alpha": ALPHAS}, cv=5, scoring=scoring)
        _assert_grid_search_equal(cv, gs.fit(X, y), 5)
        np.testing.assert_array_equal(cv.predict(X), gs.predict(X))


def test_cs_are_liblinears_c_per_fold():
    """With Cs, each fold's alpha is 1 / (C m_fold) and the refit's 1 / (C m)."""
    X, y = _digits(400)
    Cs = [0.5, 4.0]
    kw = {"max_iter": 3, "random_state": 4}
    folds = list(KFold(4).split(X))
    cv = PegasosClassifierCV(Cs=Cs, cv=folds, **kw).fit(X, y)
    for a, C in enumerate(Cs):
        for k, (tr, te) in enumerate(folds):
            model = PegasosClassifier(alpha=1.0 / (C * tr.size), **kw).fit(X[tr], y[tr])
            assert cv.cv_results_[f"split{k}_test_score"][a] == model.score(X[te], y[te])
    assert cv.best_params_ == {"C": cv.C_}
    assert cv.alpha_ == 1.0 / (cv.C_ * X.shape[0])
    assert list(cv.cv_results_["param_C"]) == Cs


def test_the_default_grid_starts_where_liblinear_starts():
    # a9a-like: 32561 rows whose largest squared norm is 15 with the bias.
    assert start_c(15.0, 32561, "squared_hinge") == 2.0**-20
    assert start_c(15.0, 32561, "log_loss") == 2.0**-19
    grid = default_cs(10, 15.0, 32561, "squared_hinge")
    assert grid[0] == 2.0**-20 and grid[-1] == 1024.0 and grid.size == 10
    assert np.all(np.log2(grid) == np.round(np.log2(grid)))
    X, y = _digits(300)
    cv = PegasosClassifierCV(Cs=4, cv=3, max_iter=2, random_state=0).fit(X, y)
    sq = float((X**2).sum(axis=1).max()) + 1.0
    np.testing.assert_array_equal(
        cv.cv_results_["param_C"].astype(float), default_cs(4, sq, 200, "hinge")
    )


def test_refit_false_keeps_scores_but_no_model():
    X, y = _digits(300)
    cv = PegasosClassifierCV(alphas=ALPHAS, cv=3, refit=False, max_iter=2, random_state=0)
    cv.fit(X, y)
    assert set(cv.best_params_) == {"alpha"}
    assert not hasattr(cv, "best_estimator_")
    with pytest.raises(AttributeError, match="refit=False"):
        cv.predict(X)


def test_random_state_none_draws_one_seed_for_the_search():
    X, y = _digits(300)
    cv = PegasosClassifierCV(alphas=ALPHAS, cv=3, max_iter=2).fit(X, y)
    seed = cv.best_estimator_.random_state
    assert isinstance(seed, int)
    again = PegasosClassifierCV(alphas=ALPHAS, cv=3, max_iter=2, random_state=seed).fit(X, y)
    _assert_grid_search_equal(cv, again, 3)


def test_groups_reach_the_splitter():
    X, y = _digits(300)
    groups = np.arange(y.size) % 6
    cv = PegasosClassifierCV(alphas=ALPHAS, cv=GroupKFold(3), max_iter=2, random_state=0)
    cv.fit(X, y, groups=groups)
    gs = GridSearchCV(
        PegasosClassifier(max_iter=2, random_state=0), {"alpha": ALPHAS}, cv=GroupKFold(3)
    )
    _assert_grid_search_equal(cv, gs.fit(X, y, groups=groups), 3)


def test_pipelines_pickles_and_model_files(tmp_path):
    X, y = _digits(300)
    pipe = make_pipeline(
        StandardScaler(), PegasosClassifierCV(alphas=ALPHAS, cv=3, max_iter=2, random_state=0)
    ).fit(X, y)
    again = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(again.predict(X), pipe.predict(X))
    cv = pipe[-1]
    cv.save(tmp_path / "cv.model")
    loaded = load(tmp_path / "cv.model")
    assert type(loaded) is PegasosClassifier
    Xs = pipe[0].transform(X)
    np.testing.assert_array_equal(loaded.decision_function(Xs), cv.decision_function(Xs))
    # probabilities only where the refit model has them
    assert not hasattr(cv, "predict_proba")
    log = PegasosClassifierCV(alphas=ALPHAS, cv=3, max_iter=2, random_state=0, loss="log_loss")
    proba = log.fit(Xs, y).predict_proba(Xs)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alphas": []}, "alphas is empty"),
        ({"alphas": [0.1, -1.0]}, "must be positive and finite"),
        ({"Cs": [1.0, np.inf]}, "must be positive and finite"),
        ({"alphas": [0.1], "Cs": [1.0]}, "give alphas or Cs, not both"),
        ({"alphas": [0.1], "cv": 40}, "n_splits=40 cannot be greater"),
        ({"alphas": [0.1], "cv": KFold(2)}, "fold 0 have no example of class 0 .21 in all"),
        ({"alphas": [0.1], "scoring": "r2"}, "regression metric"),
        ({"alphas": [0.1], "scoring": "no_such_score"}, "no_such_score"),
        ({"alphas": [0.1], "sampling": [0, 1, 2]}, "order of rows"),
    ],
)
def test_bad_searches_are_named(kwargs, message):
    X, y = _digits(200)
    order = np.argsort(y, kind="stable")  # sorted labels: unshuffled folds lack classes
    X, y = X[order], y[order]
    with pytest.raises(ValueError, match=message):
        PegasosClassifierCV(max_iter=1, random_state=0, **kwargs).fit(X, y)


def test_a_regressor_refuses_a_classification_score():
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="scores classes"):
        PegasosRegressorCV(alphas=[0.1], scoring="accuracy").fit(X, y)


def test_a_failed_fit_leaves_the_search_as_it_was():
    X, y = _digits(200)
    cv = PegasosClassifierCV(alphas=ALPHAS, cv=3, max_iter=1, random_state=0).fit(X, y)
    before = cv.best_params_
    cv.set_params(alphas=[-1.0])
    with pytest.raises(ValueError):
        cv.fit(X, y)
    assert cv.best_params_ == before


def test_the_search_costs_less_than_its_fits_one_by_one_in_draws():
    """Not a timing: the grid trains every (fold, alpha) pair from one call, so a
    search of many candidates reports each candidate's share of one shared fit."""
    X, y = make_classification(400, 20, random_state=0)
    cv = PegasosClassifierCV(alphas=ALPHAS, cv=4, max_iter=2, random_state=0).fit(X, y)
    shares = cv.cv_results_["mean_fit_time"]
    assert np.all(shares == shares[0])
    assert np.all(cv.cv_results_["mean_n_iter"] == 2)


def _cv_failed_checks(estimator):
    return {
        "check_sample_weight_equivalence_on_dense_data": (
            "a stochastic solver: duplicated rows change the sampled sequence"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "a stochastic solver: duplicated rows change the sampled sequence"
        ),
        "check_class_weight_classifiers": (
            "weights 1000 vs 0.0001: too few passes from the step 1/(alpha t), as for "
            "PegasosClassifier (test_estimator_api)"
        ),
    }


@parametrize_with_checks(
    [
        PegasosClassifierCV(alphas=[1e-2, 1e-3], cv=3, random_state=0),
        PegasosRegressorCV(alphas=[1e-2, 1e-3], cv=3, random_state=0),
        PegasosClassifierCV(alphas=[1e-2, 1e-3, 1e-4], cv=3, random_state=0, search="halving"),
    ],
    expected_failed_checks=_cv_failed_checks,
)
def test_sklearn_compatible_search(estimator, check):
    check(estimator)


def test_clone_keeps_every_parameter():
    est = PegasosClassifierCV(alphas=[0.1], Cs=None, cv=3, loss="log_loss", n_jobs=2)
    assert clone(est).get_params() == est.get_params()
    names = set(PegasosClassifier().get_params()) - {"alpha", "warm_start"}
    assert names <= set(est.get_params())
    names = set(PegasosRegressor().get_params()) - {"alpha", "warm_start"}
    assert names <= set(PegasosRegressorCV().get_params())


def test_convergence_warnings_come_from_the_refit_only():
    X, y = _digits(300)
    with pytest.warns(ConvergenceWarning) as record:
        PegasosClassifierCV(alphas=ALPHAS, cv=3, max_iter=2, random_state=0).fit(X, y)
    assert len(record) == 1


@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
def test_halving_runs_its_survivor_as_the_exact_search(estimator):
    """The candidate a halving search keeps to the end ran every pass on the same
    draws: its fold scores are GridSearchCV's; the others stopped at a rung."""
    alphas = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4]
    if estimator == "classifier":
        X, y = _digits()
        cls, search_cls, kw = PegasosClassifier, PegasosClassifierCV, {}
    else:
        X, y = load_diabetes(return_X_y=True)
        cls, search_cls, kw = PegasosRegressor, PegasosRegressorCV, {"loss": "squared_error"}
    kw = {"max_iter": 9, "random_state": 3, **kw}
    cv = search_cls(alphas=alphas, cv=3, search="halving", factor=2, **kw).fit(X, y)
    gs = GridSearchCV(cls(**kw), {"alpha": alphas}, cv=3).fit(X, y)
    passes = cv.cv_results_["mean_n_iter"]
    assert passes[cv.best_index_] == 9
    assert sorted(set(passes)) == [2, 3, 5, 9]  # ceil(9 / 2^r): the rungs
    for k in range(3):
        key = f"split{k}_test_score"
        assert cv.cv_results_[key][cv.best_index_] == gs.cv_results_[key][cv.best_index_]
    np.testing.assert_array_equal(
        cv.coef_, clone(cls(**kw)).set_params(alpha=cv.alpha_).fit(X, y).coef_
    )


def test_halving_refuses_what_it_cannot_rank():
    X, y = _digits(200)

    def score(est, X, y):
        return 0.0

    for kwargs in ({"scoring": score}, {"multi_class": "crammer_singer"}):
        with pytest.raises(ValueError, match="search='halving' ranks"):
            PegasosClassifierCV(alphas=ALPHAS, search="halving", max_iter=1, **kwargs).fit(X, y)
