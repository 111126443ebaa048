"""KernelPegasosClassifierCV and KernelPegasosRegressorCV: one kernel matrix per
gamma serves every C and fold; each candidate's fold scores are GridSearchCV's over
the estimator with kernel="precomputed" on that matrix, bit for bit, and those of
the kernel itself up to the rounding of kernel values; the grid, the refit, the
fallback to fits one by one and the errors a user meets."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import parametrize_with_checks
from pegasos_rs import (
    KernelPegasosClassifier,
    KernelPegasosClassifierCV,
    KernelPegasosRegressor,
    KernelPegasosRegressorCV,
    load,
    pairwise_kernels,
)
from pegasos_rs import kernel_cv as kernel_cv_module
from pegasos_rs._validation import resolve_gamma
from sklearn.base import clone
from sklearn.datasets import load_diabetes, load_digits
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

CS = [1.0, 4.0, 16.0]

#: Whether this scikit-learn's GridSearchCV forwards sample_weight to its scorer.
FORWARDS_WEIGHTS = hasattr(GridSearchCV, "_check_scorers_accept_sample_weight")
GAMMAS = [0.01, 0.04]


def _digits(n=450):
    X, y = load_digits(return_X_y=True)
    return X[:n] / 16.0, y[:n]


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X[:300], y[:300] / 100.0


def _split_scores(results, n_folds):
    return np.array([results[f"split{k}_test_score"] for k in range(n_folds)])


def _precomputed_search(est, X, y, folds, gamma, cs, sample_weight=None):
    """GridSearchCV over est with kernel="precomputed" on pairwise_kernels' rbf
    matrix."""
    K = pairwise_kernels(X, metric="rbf", gamma=gamma)
    m = folds[0][0].size
    assert all(tr.size == m for tr, _ in folds)  # one alpha per C for every fold
    grid = {"alpha": [1.0 / (c * m) for c in cs]}
    gs = GridSearchCV(est.set_params(kernel="precomputed"), grid, cv=folds)
    kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
    return gs.fit(K, y, **kwargs)


def _equal_folds(n, k, seed=0):
    """k folds of equal training size (so that every fold has the same alpha)."""
    order = np.random.default_rng(seed).permutation(n - n % k)
    parts = np.split(order, k)
    return [
        (np.sort(np.concatenate(parts[:i] + parts[i + 1 :])), np.sort(parts[i])) for i in range(k)
    ]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"multi_class": "ovo", "class_weight": "balanced"},
        {"loss": "squared_hinge", "fit_intercept": True, "strategy": "support"},
    ],
)
def test_classifier_fold_scores_are_grid_search_cvs_on_the_matrix_bit_for_bit(params):
    X, y = _digits()
    folds = _equal_folds(y.size, 3)
    kw = {"max_iter": 2, "random_state": 3, **params}
    # Weighted when this scikit-learn's GridSearchCV weighs its scores by them too.
    w = np.random.default_rng(1).uniform(0.5, 2.0, y.size) if FORWARDS_WEIGHTS else None
    cv = KernelPegasosClassifierCV(Cs=CS, gammas=GAMMAS, cv=folds, **kw).fit(X, y, w)
    results = cv.cv_results_
    for g in GAMMAS:
        rows = [i for i, p in enumerate(results["params"]) if p["gamma"] == g]
        assert [results["params"][i]["C"] for i in rows] == CS
        gs = _precomputed_search(KernelPegasosClassifier(**kw), X, y, folds, g, CS, w)
        np.testing.assert_array_equal(
            _split_scores(results, 3)[:, rows], _split_scores(gs.cv_results_, 3)
        )


def test_regressor_fold_scores_are_grid_search_cvs_on_the_matrix_bit_for_bit():
    X, y = _diabetes()
    folds = _equal_folds(y.size, 3, seed=2)
    kw = {"max_iter": 3, "random_state": 0, "epsilon": 0.05}
    search = KernelPegasosRegressorCV(Cs=CS, gammas=GAMMAS, cv=folds, precompute=True, **kw)
    cv = search.fit(X, y)
    for g in GAMMAS:
        rows = [i for i, p in enumerate(cv.cv_results_["params"]) if p["gamma"] == g]
        gs = _precomputed_search(KernelPegasosRegressor(**kw), X, y, folds, g, CS)
        np.testing.assert_array_equal(
            _split_scores(cv.cv_results_, 3)[:, rows], _split_scores(gs.cv_results_, 3)
        )


@pytest.mark.parametrize("sparse", [False, True])
def test_the_kernel_itself_gives_the_same_scores_up_to_rounding(sparse):
    """GridSearchCV over the estimator with the rbf kernel, with gamma and C in
    param_grid (the same order of candidates): every fold score within one
    held-out row of the shared matrix's, and the same choice."""
    X, y = _digits()
    X = sp.csr_matrix(X) if sparse else X
    kw = {"max_iter": 2, "random_state": 5}
    folds = _equal_folds(y.size, 3)
    search = KernelPegasosClassifierCV(Cs=CS, gammas=GAMMAS, cv=folds, precompute=True, **kw)
    cv = search.fit(X, y)
    m = folds[0][0].size
    grid = {"alpha": [1.0 / (c * m) for c in CS], "gamma": GAMMAS}
    gs = GridSearchCV(KernelPegasosClassifier(**kw), grid, cv=folds).fit(X, y)
    ours, theirs = _split_scores(cv.cv_results_, 3), _split_scores(gs.cv_results_, 3)
    assert np.abs(ours - theirs).max() <= 1.0 / folds[0][1].size + 1e-12
    assert cv.best_index_ == gs.best_index_
    assert cv.best_params_ == {"C": CS[cv.best_index_ // 2], "gamma": GAMMAS[cv.best_index_ % 2]}
    # The refit is the kernel estimator itself on all the rows, with the best values.
    assert cv.gamma_ == gs.best_params_["gamma"]
    refit = KernelPegasosClassifier(alpha=1.0 / (cv.C_ * y.size), gamma=cv.gamma_, **kw)
    refit.fit(X, y)
    assert cv.alpha_ == refit.alpha
    np.testing.assert_array_equal(cv.dual_coef_, refit.dual_coef_)
    np.testing.assert_array_equal(cv.decision_function(X), refit.decision_function(X))
    np.testing.assert_array_equal(cv.predict(X), refit.predict(X))


def test_fits_one_by_one_when_the_matrix_is_too_large_or_the_scoring_needs_them(monkeypatch):
    """Beyond GRAM_BYTES, and for a callable scoring, each candidate is fitted with
    the kernel itself on its fold: GridSearchCV's scores bit for bit."""
    X, y = _digits(300)
    kw = {"max_iter": 2, "random_state": 4}
    folds = _equal_folds(y.size, 3)
    m = folds[0][0].size
    grid = {"alpha": [1.0 / (c * m) for c in CS], "gamma": GAMMAS}

    def mistakes(est, X, y):
        return -float(np.sum(est.predict(X) != y))

    gs = GridSearchCV(KernelPegasosClassifier(**kw), grid, cv=folds, scoring=mistakes)
    want = _split_scores(gs.fit(X, y).cv_results_, 3)
    cv = KernelPegasosClassifierCV(Cs=CS, gammas=GAMMAS, cv=folds, scoring=mistakes, **kw)
    np.testing.assert_array_equal(_split_scores(cv.fit(X, y).cv_results_, 3), want)
    monkeypatch.setattr(kernel_cv_module, "GRAM_BYTES", 1000)
    gs = GridSearchCV(KernelPegasosClassifier(**kw), grid, cv=folds).fit(X, y)
    cv = KernelPegasosClassifierCV(Cs=CS, gammas=GAMMAS, cv=folds, **kw).fit(X, y)
    np.testing.assert_array_equal(
        _split_scores(cv.cv_results_, 3), _split_scores(gs.cv_results_, 3)
    )


@pytest.mark.parametrize(
    ("sparse", "precompute", "shared"),
    [(False, "auto", True), (True, "auto", False), (True, True, True), (False, False, False)],
)
def test_precompute_chooses_the_shared_matrices_by_the_rows_stored_values(
    sparse, precompute, shared, monkeypatch
):
    """ "auto" shares the matrices on rows of 64 stored values or more (digits: 64
    features, dense; as CSR, about 30 a row), each candidate fits on its own
    otherwise: GridSearchCV's fold scores then, bit for bit."""
    from pegasos_rs import _core

    calls = []
    raw_gram = _core.raw_gram
    monkeypatch.setattr(_core, "raw_gram", lambda *a, **k: calls.append(1) or raw_gram(*a, **k))
    X, y = _digits(300)
    X = sp.csr_matrix(X) if sparse else X
    kw = {"max_iter": 2, "random_state": 6}
    folds = _equal_folds(y.size, 3)
    cv = KernelPegasosClassifierCV(Cs=CS, gammas=GAMMAS, cv=folds, precompute=precompute, **kw)
    cv.fit(X, y)
    assert bool(calls) == shared
    if not shared:
        m = folds[0][0].size
        grid = {"alpha": [1.0 / (c * m) for c in CS], "gamma": GAMMAS}
        gs = GridSearchCV(KernelPegasosClassifier(**kw), grid, cv=folds).fit(X, y)
        np.testing.assert_array_equal(
            _split_scores(cv.cv_results_, 3), _split_scores(gs.cv_results_, 3)
        )


def test_a_precomputed_kernel_is_searched_over_c_alone():
    X, y = _digits(300)
    K = pairwise_kernels(X, metric="rbf", gamma=0.02)
    folds = _equal_folds(y.size, 3)
    kw = {"max_iter": 2, "random_state": 0, "kernel": "precomputed"}
    cv = KernelPegasosClassifierCV(Cs=CS, cv=folds, **kw).fit(K, y)
    assert cv.cv_results_["params"] == [{"C": c} for c in CS]
    assert not hasattr(cv, "gamma_")
    gs = _precomputed_search(KernelPegasosClassifier(**kw), X, y, folds, 0.02, CS)
    np.testing.assert_array_equal(
        _split_scores(cv.cv_results_, 3), _split_scores(gs.cv_results_, 3)
    )
    np.testing.assert_array_equal(cv.predict(K[:20]), cv.best_estimator_.predict(K[:20]))


def test_default_grid_and_kernels_without_gamma():
    X, y = _digits(300)
    cv = KernelPegasosClassifierCV(cv=3, max_iter=1, random_state=0).fit(X, y)
    scale = resolve_gamma("rbf", "scale", X)
    gammas = sorted({p["gamma"] for p in cv.cv_results_["params"]})
    np.testing.assert_allclose(gammas, scale * np.array([0.25, 0.5, 1.0, 2.0, 4.0]))
    cs = sorted({p["C"] for p in cv.cv_results_["params"]})
    assert cs == [0.25, 1.0, 4.0, 16.0, 64.0, 256.0]
    assert len(cv.cv_results_["params"]) == 30
    lin = KernelPegasosClassifierCV(kernel="linear", Cs=2, cv=3, max_iter=1, random_state=0)
    assert lin.fit(X, y).cv_results_["params"] == [{"C": 0.25}, {"C": 256.0}]
    alphas = KernelPegasosClassifierCV(alphas=[1e-2, 1e-3], gammas=[0.05], cv=3, max_iter=1)
    assert alphas.fit(X, y).best_params_["alpha"] in (1e-2, 1e-3)
    assert alphas.alpha_ == alphas.best_params_["alpha"]


def test_refit_pickle_model_file_pipeline_and_refit_false(tmp_path):
    X, y = _digits(300)
    kw = {"Cs": [1.0, 8.0], "gammas": [0.03], "cv": 3, "max_iter": 2, "random_state": 0}
    cv = KernelPegasosClassifierCV(**kw).fit(X, y)
    again = pickle.loads(pickle.dumps(cv))
    np.testing.assert_array_equal(again.decision_function(X), cv.decision_function(X))
    cv.save(tmp_path / "m.pegasos")
    loaded = load(tmp_path / "m.pegasos")
    assert type(loaded) is KernelPegasosClassifier
    np.testing.assert_array_equal(loaded.predict(X), cv.predict(X))
    pipe = make_pipeline(StandardScaler(), KernelPegasosClassifierCV(**kw)).fit(X, y)
    assert pipe.score(X, y) > 0.8
    bare = KernelPegasosClassifierCV(refit=False, **kw).fit(X, y)
    assert bare.best_params_ == cv.best_params_
    with pytest.raises(AttributeError, match="refit=False"):
        bare.predict(X)
    reg = KernelPegasosRegressorCV(Cs=[1.0, 8.0], gammas=[0.5], cv=3, max_iter=2, random_state=0)
    Xr, yr = _diabetes()
    assert reg.fit(Xr, yr).score(Xr, yr) == reg.best_estimator_.score(Xr, yr)


def test_onnx_export_is_the_refit_models():
    pytest.importorskip("onnxruntime")
    from pegasos_rs import to_onnx

    X, y = _digits(300)
    cv = KernelPegasosClassifierCV(Cs=[4.0], gammas=[0.03], cv=3, max_iter=2, random_state=0)
    cv.fit(X, y)
    import onnxruntime as ort

    graph = to_onnx(cv, X[:1].astype(np.float32))
    session = ort.InferenceSession(graph.SerializeToString())
    labels = session.run(None, {session.get_inputs()[0].name: X.astype(np.float32)})[0]
    # A reference the graph and the model cannot share: the true labels.
    assert np.mean(labels == y) > 0.9
    assert np.mean(labels == cv.predict(X)) > 0.99


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"gammas": []}, "gammas is empty"),
        ({"gammas": [0.1, -1.0]}, "every value of gammas must be positive"),
        ({"Cs": [], "gammas": [0.1]}, "Cs is empty"),
        ({"alphas": [0.1], "Cs": [1.0]}, "give alphas or Cs, not both"),
        ({"kernel": "linear", "gammas": [0.1]}, "kernel='linear' has no gamma"),
        ({"sampling": [0, 1, 2]}, "order of rows"),
        ({"scoring": "r2"}, "regression metric"),
        ({"cv": KFold(2)}, "fold 0 have no example of class"),
    ],
)
def test_bad_searches_are_named(kwargs, message):
    X, y = _digits(200)
    order = np.argsort(y, kind="stable")  # sorted labels: unshuffled folds lack classes
    X, y = X[order], y[order]
    kwargs = {"Cs": [1.0], **kwargs}
    with pytest.raises(ValueError, match=message):
        KernelPegasosClassifierCV(max_iter=1, random_state=0, **kwargs).fit(X, y)


def test_a_classifier_search_refuses_text_targets_for_regression():
    X, y = _digits(100)
    with pytest.raises(ValueError, match="real-valued targets"):
        KernelPegasosRegressorCV(Cs=[1.0], gammas=[0.1]).fit(X, y.astype(str))


def _cv_failed_checks(estimator):
    """The checks the tuned estimators fail for their reasons (test_kernel_estimator.py
    and test_kernel_regressor.py say them in full)."""
    failed = {
        "check_sample_weight_equivalence_on_dense_data": (
            "a stochastic solver: w_i copies of row i change the random draws and the "
            "steps per pass, as for KernelPegasosClassifier and KernelPegasosRegressor"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "a stochastic solver: duplicated rows change the sampled sequence"
        ),
    }
    if isinstance(estimator, KernelPegasosClassifierCV):
        failed["check_class_weight_classifiers"] = (
            "one-vs-rest with LIBLINEAR's class weights and no intercept, as "
            "KernelPegasosClassifier's (test_kernel_estimator.py): the objective, not "
            "the search"
        )
    return failed


@parametrize_with_checks(
    [
        KernelPegasosClassifierCV(Cs=[1.0, 10.0], gammas=[0.1, 1.0], cv=3, random_state=0),
        KernelPegasosRegressorCV(Cs=[1.0, 10.0], gammas=[0.1, 1.0], cv=3, random_state=0),
    ],
    expected_failed_checks=_cv_failed_checks,
)
def test_sklearn_compatible_search(estimator, check):
    check(estimator)


def test_clone_keeps_every_parameter():
    est = KernelPegasosClassifierCV(Cs=[0.1], gammas=[2.0], cv=3, n_jobs=2, multi_class="ovo")
    assert clone(est).get_params() == est.get_params()
    # The searches share kernel matrices, which a budget's merged points have no row
    # in: they have no budget.
    own = {"alpha", "gamma", "budget", "budget_maintenance"}
    names = set(KernelPegasosClassifier().get_params()) - own
    assert names <= set(est.get_params())
    names = set(KernelPegasosRegressor().get_params()) - own
    assert names <= set(KernelPegasosRegressorCV().get_params())


def test_stratified_default_folds_match_grid_search_cv_with_precomputed_matrices():
    """cv=int: stratified folds, unshuffled, as GridSearchCV's."""
    X, y = _digits(300)
    cv = KernelPegasosClassifierCV(Cs=[2.0], gammas=[0.03], cv=3, max_iter=1, random_state=0)
    cv.fit(X, y)
    folds = list(StratifiedKFold(3).split(X, y))
    want = []
    K = pairwise_kernels(X, metric="rbf", gamma=0.03)
    for tr, te in folds:
        est = KernelPegasosClassifier(
            kernel="precomputed", alpha=1.0 / (2.0 * tr.size), max_iter=1, random_state=0
        )
        want.append(est.fit(K[np.ix_(tr, tr)], y[tr]).score(K[np.ix_(te, tr)], y[te]))
    np.testing.assert_array_equal(_split_scores(cv.cv_results_, 3)[:, 0], want)
