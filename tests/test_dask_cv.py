"""``pegasos_rs.dask.PegasosClassifierCV`` (issue 38): the search on a Dask cluster,
every fold's fits in exact mode.

The oracle is the in-memory search over the same folds (``multi_class="ovr"``,
which is what "auto" is on Dask): its fold scores are ``GridSearchCV``'s, bit for
bit (tests/test_linear_cv.py), and the Dask search's must be the same numbers, its
choice the same candidate and its refit the same model. The sums a fold's fits
start from (squared losses, weights) and ``tol``'s objective are taken over the
fold's rows on the cluster, so those cases are covered too. That each drawn row
travels once for all the candidates of its fold is checked on the bytes the
workers send (the progress callback's count): a grid of four candidates receives
what a grid of one does.
"""

from __future__ import annotations

import pickle
from itertools import pairwise

import numpy as np
import pytest
import scipy.sparse as sp

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import pegasos_rs  # noqa: E402
import pegasos_rs.dask as pdask  # noqa: E402
from conftest import cluster_cases, make_problem  # noqa: E402
from sklearn.model_selection import GroupKFold, ShuffleSplit  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

CS = [0.05, 0.5, 5.0, 50.0]


def _dask(X, y, chunk, sample_weight=None):
    if sp.issparse(X):
        meta = sp.csr_matrix((0, X.shape[1]), dtype=X.dtype)
        cuts = [*range(0, X.shape[0], chunk), X.shape[0]]
        dX = da.concatenate(
            [
                da.from_delayed(
                    dask.delayed(X[a:b]), shape=(b - a, X.shape[1]), dtype=X.dtype, meta=meta
                )
                for a, b in pairwise(cuts)
            ]
        )
    else:
        dX = da.from_array(X, chunks=(chunk, X.shape[1]))
    dy = da.from_array(y, chunks=(chunk,))
    dw = None if sample_weight is None else da.from_array(sample_weight, chunks=(chunk,))
    return dX, dy, dw


def _same_search(on_dask, in_memory) -> None:
    for k in range(in_memory.n_splits_):
        key = f"split{k}_test_score"
        assert on_dask.cv_results_[key].tobytes() == in_memory.cv_results_[key].tobytes(), key
    np.testing.assert_array_equal(
        on_dask.cv_results_["mean_n_iter"], in_memory.cv_results_["mean_n_iter"]
    )
    assert on_dask.best_params_ == in_memory.best_params_
    assert (on_dask.alpha_, on_dask.C_) == (in_memory.alpha_, in_memory.C_)
    np.testing.assert_array_equal(on_dask.classes_, in_memory.classes_)
    if in_memory.refit:
        assert on_dask.coef_.tobytes() == in_memory.coef_.tobytes()
        assert on_dask.intercept_.tobytes() == in_memory.intercept_.tobytes()


CASES = {
    "multiclass": ({"n_classes": 3}, {}, False),
    "sparse-weighted-squared": (
        {"n_classes": 2},
        {"loss": "squared_hinge", "class_weight": "balanced"},
        True,
    ),
    "tol": ({"n_classes": 3}, {"tol": 1e-3, "n_iter_no_change": 2, "max_iter": 12}, False),
    "shuffle-batch-scoring": (
        {"n_classes": 2},
        {"sampling": "shuffle", "batch_size": 4, "scoring": "roc_auc", "average": False},
        False,
    ),
}


@pytest.mark.parametrize(
    ("case", "client"),
    cluster_cases(list(CASES), processes=[("multiclass",)]),
    indirect=["client"],
)
def test_fold_scores_and_refit_are_the_in_memory_search(case, client):
    problem, params, weighted = CASES[case]
    X, y = make_problem(n_samples=360, n_features=15, seed=3, **problem)
    sw = None
    if weighted:
        X = sp.csr_matrix(X)
        sw = np.random.RandomState(0).uniform(0.2, 3.0, size=y.size)
    dX, dy, dw = _dask(X, y, 97, sw)
    common = {"Cs": CS, "cv": 3, "random_state": 7, "max_iter": 4, **params}
    on_dask = pdask.PegasosClassifierCV(client=client, **common).fit(dX, dy, dw)
    in_memory = pegasos_rs.PegasosClassifierCV(multi_class="ovr", **common).fit(
        X, y, sample_weight=sw
    )
    _same_search(on_dask, in_memory)
    assert isinstance(on_dask.best_estimator_, pdask.PegasosClassifier)
    assert on_dask.best_estimator_.client is client  # the parameter as given
    np.testing.assert_array_equal(on_dask.predict(dX).compute(), in_memory.predict(X))


@pytest.mark.parametrize("client", ["threads"], indirect=True)
def test_any_splitter_and_groups(client):
    X, y = make_problem(n_samples=300, n_features=10, n_classes=2, seed=5)
    dX, dy, _ = _dask(X, y, 64)
    groups = np.arange(y.size) % 7
    common = {"alphas": [1e-3, 1e-2], "random_state": 1, "max_iter": 3}
    for cv, g in (
        (GroupKFold(3), da.from_array(groups, chunks=64)),
        # Held-out and training rows in no order: the draws are mapped through
        # the fold's training rows as given, the scores put back in test order.
        (ShuffleSplit(3, test_size=0.25, random_state=0), None),
    ):
        on_dask = pdask.PegasosClassifierCV(cv=cv, client=client, **common)
        on_dask.fit(dX, dy, groups=g)
        in_memory = pegasos_rs.PegasosClassifierCV(cv=cv, **common)
        in_memory.fit(X, y, groups=None if g is None else groups)
        _same_search(on_dask, in_memory)


@pytest.mark.parametrize("client", ["threads"], indirect=True)
def test_a_drawn_row_travels_once_for_all_candidates_of_its_fold(client):
    X, y = make_problem(n_samples=400, n_features=30, n_classes=2, seed=2)
    dX, dy, _ = _dask(X, y, 100)

    def received(cs):
        seen = []
        search = pdask.PegasosClassifierCV(
            Cs=cs, cv=2, random_state=0, max_iter=2, refit=False, client=client
        )
        search.fit(dX, dy, callback=seen.append)
        assert seen and seen[-1]["stage"] == "train"
        return seen[-1]["bytes_received"], seen[-1]["rounds"]

    one, many = received([1.0]), received(CS)
    assert one == many
    assert one[0] > 0


@pytest.mark.parametrize("client", ["threads"], indirect=True)
def test_pickle_to_local_save_and_refit_false(client, tmp_path):
    X, y = make_problem(n_samples=240, n_features=8, n_classes=3, seed=1)
    dX, dy, _ = _dask(X, y, 80)
    search = pdask.PegasosClassifierCV(Cs=3, cv=3, random_state=0, max_iter=3, client=client)
    search.fit(dX, dy)
    assert search.n_features_in_ == 8 and search.cv_results_["params"][0].keys() == {"C"}
    expected = search.predict(X)
    again = pickle.loads(pickle.dumps(search))
    assert again.client is None
    np.testing.assert_array_equal(again.predict(X), expected)
    local = search.to_local()
    assert type(local) is pegasos_rs.PegasosClassifierCV
    assert type(local.best_estimator_) is pegasos_rs.PegasosClassifier
    np.testing.assert_array_equal(local.predict(X), expected)
    search.save(tmp_path / "model.json")
    np.testing.assert_array_equal(pegasos_rs.load(tmp_path / "model.json").predict(X), expected)
    assert search.score(dX, dy) == pytest.approx(local.score(X, y))

    scores_only = pdask.PegasosClassifierCV(
        Cs=3, cv=3, random_state=0, max_iter=3, refit=False, client=client
    ).fit(dX, dy)
    assert not hasattr(scores_only, "best_estimator_")
    assert scores_only.best_index_ == search.best_index_
    with pytest.raises(AttributeError, match="refit=False"):
        scores_only.predict(X)


@pytest.mark.parametrize("client", ["threads"], indirect=True)
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"multi_class": "crammer_singer"}, "multi_class='crammer_singer' is not supported"),
        ({"sampling": "balanced"}, "sampling='balanced' is not supported"),
        ({"probability": True}, "probability=True is not supported"),
        ({"scoring": "neg_log_loss"}, "needs each candidate's model fitted on its own"),
        ({"scoring": "r2"}, "is a regression metric"),
        ({"Cs": []}, "Cs is empty"),
        ({"alphas": [1e-3, -1.0]}, "must be positive and finite"),
        ({"cv": 50}, "fold 0|n_splits=50 cannot be greater"),
    ],
)
def test_bad_settings_get_clear_errors(client, params, message):
    X, y = make_problem(n_samples=60, n_features=4, n_classes=2, seed=0)
    dX, dy, _ = _dask(X, y, 30)
    with pytest.raises(ValueError, match=message):
        pdask.PegasosClassifierCV(client=client, max_iter=1, **params).fit(dX, dy)
