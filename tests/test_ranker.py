"""PegasosRanker: learning to rank from preference pairs (RankSVM's objective), and
the ranking measures and svmlight query ids it relies on."""

from __future__ import annotations

import itertools

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
import shared_data
from conftest import parametrize_with_checks
from pegasos_rs import PegasosRanker
from pegasos_rs._ranking import mean_average_precision, mean_ndcg, ndcg_per_query


def ranking_problem(n_queries=8, per_query=10, d=4, seed=0, levels=3):
    """Rows in queries of ``per_query``, relevance from a noisy linear score cut in
    ``levels`` grades per query."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_queries * per_query, d))
    w = np.array([1.0, -0.5, 0.25, 0.0][:d] + [0.0] * max(0, d - 4))
    s = X @ w + 0.3 * rng.normal(size=X.shape[0])
    qid = np.repeat(np.arange(n_queries) * 3 + 1, per_query)
    y = np.zeros(X.shape[0])
    for q in np.unique(qid):
        rows = qid == q
        cuts = np.quantile(s[rows], np.linspace(0, 1, levels + 1)[1:-1])
        y[rows] = np.searchsorted(cuts, s[rows])
    return X, y, qid


def pairs_of(y, qid):
    """The preference pairs (i, j), y_i > y_j, same query."""
    out = []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        out += [(i, j) for i, j in itertools.permutations(rows, 2) if y[i] > y[j]]
    return np.array(out)


def objective(w, X, pairs, alpha, loss="hinge"):
    z = (X[pairs[:, 0]] - X[pairs[:, 1]]) @ w
    losses = np.maximum(0, 1 - z) if loss == "hinge" else np.logaddexp(0, -z)
    return 0.5 * alpha * w @ w + losses.mean()


def test_fit_ranks_and_scores():
    X, y, qid = ranking_problem()
    r = PegasosRanker(alpha=1e-3, random_state=0).fit(X, y, qid)
    assert r.coef_.shape == (4,)
    assert r.n_features_in_ == 4
    assert not hasattr(r, "intercept_")
    assert r.score(X, y, qid) > 0.9
    assert r.predict(X) == pytest.approx(X @ r.coef_)


@pytest.mark.parametrize("loss", ["hinge", "log_loss"])
def test_objective_within_one_percent_of_the_optimum(loss):
    # The optimum on the explicit difference vectors, both orientations: RankSVM.
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    X, y, qid = ranking_problem(n_queries=4, per_query=8, d=3, seed=1)
    pairs = pairs_of(y, qid)
    D = X[pairs[:, 0]] - X[pairs[:, 1]]
    alpha = 0.02
    # Ours / alpha = 1/2 ||w||^2 + 1/(alpha |P|) sum_P l; the ± set sums each loss twice.
    C = 1.0 / (2 * alpha * len(pairs))
    Z, t = np.vstack([D, -D]), np.r_[np.ones(len(D)), -np.ones(len(D))]
    if loss == "hinge":
        ref = LinearSVC(
            loss="hinge",
            fit_intercept=False,
            C=C,
            tol=1e-10,
            max_iter=10**6,
            dual=True,
            random_state=0,
        ).fit(Z, t)
    else:
        ref = LogisticRegression(fit_intercept=False, C=C, tol=1e-12, max_iter=10**5).fit(Z, t)
    best = objective(ref.coef_.ravel(), X, pairs, alpha, loss)
    r = PegasosRanker(loss=loss, alpha=alpha, max_iter=3000, random_state=0).fit(X, y, qid)
    ours = objective(r.coef_, X, pairs, alpha, loss)
    assert best <= ours + 1e-9
    assert ours <= 1.01 * best, (ours, best)


def test_reported_objective_is_the_pairwise_objective():
    X, y, qid = ranking_problem(n_queries=3, per_query=6, seed=2)
    r = PegasosRanker(alpha=0.01, max_iter=5, tol=0.0, n_iter_no_change=100, random_state=0)
    with pytest.warns(Warning):
        r.fit(X, y, qid)
    assert r.objective_ == pytest.approx(objective(r.coef_, X, pairs_of(y, qid), 0.01), rel=1e-12)


def test_restarts_continue_bit_for_bit():
    X, y, qid = ranking_problem(seed=3)
    whole = PegasosRanker(alpha=1e-3, max_iter=4, average=False, random_state=5).fit(X, y, qid)
    parts = PegasosRanker(alpha=1e-3, max_iter=2, average=False, random_state=5, warm_start=True)
    parts.fit(X, y, qid).fit(X, y, qid)
    np.testing.assert_array_equal(whole.coef_, parts.coef_)
    assert whole.t_ == parts.t_
    # partial_fit: one pass at a time.
    part = PegasosRanker(alpha=1e-3, average=False, random_state=5)
    for _ in range(4):
        part.partial_fit(X, y, qid)
    np.testing.assert_array_equal(whole.coef_, part.coef_)


def test_thread_counts_give_identical_results():
    X, y, qid = ranking_problem(seed=4)
    a = PegasosRanker(random_state=0, n_jobs=1).fit(X, y, qid)
    b = PegasosRanker(random_state=0, n_jobs=2).fit(X, y, qid)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_dense_csr_float32_agree():
    X, y, qid = ranking_problem(seed=5)
    X[np.abs(X) < 0.5] = 0.0
    a = PegasosRanker(random_state=0).fit(X, y, qid)
    b = PegasosRanker(random_state=0).fit(sp.csr_matrix(X), y, qid)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-12)
    c = PegasosRanker(random_state=0).fit(X.astype(np.float32), y, qid)
    np.testing.assert_allclose(a.coef_, c.coef_, rtol=1e-4, atol=1e-4)


def test_queries_need_not_be_contiguous():
    X, y, qid = ranking_problem(seed=6)
    perm = np.random.default_rng(0).permutation(len(y))
    a = PegasosRanker(random_state=0).fit(X, y, qid)
    b = PegasosRanker(random_state=0).fit(X[perm], y[perm], qid[perm])
    # The pairs are the same; the draws map to other rows, so compare the quality.
    assert b.score(X, y, qid) == pytest.approx(a.score(X, y, qid), abs=0.05)


def test_roc_sampling_raises_auc():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 10))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=2000) > 2.0).astype(int)
    assert 0.01 < y.mean() < 0.1  # imbalanced
    r = PegasosRanker(sampling="roc", alpha=1e-3, random_state=0).fit(X, y)
    random_w = rng.normal(size=10)
    assert roc_auc_score(y, X @ random_w) < 0.8
    assert roc_auc_score(y, r.predict(X)) > 0.95


@pytest.mark.parametrize(
    ("kwargs", "X", "y", "qid", "match"),
    [
        ({}, np.ones((4, 2)), [1, 0, 1, 0], None, "needs the query of each row"),
        ({"sampling": "roc"}, np.ones((4, 2)), [1, 0, 1, 0], [1, 1, 2, 2], "pass no qid"),
        ({}, np.eye(4), [1, 1, 0, 0], [1, 1, 2, 2], "single relevance level"),
        ({"sampling": "roc"}, np.eye(4), [1, 1, 1, 1], None, "same relevance"),
        ({}, np.eye(4), [1, 0, 1, 0], [1, 1, 2], "qid must be 1-d"),
        ({}, np.eye(4), [1, 0, 1], [1, 1, 2, 2], "inconsistent numbers of samples"),
        ({}, np.eye(4), [1, 0, np.nan, 0], [1, 1, 2, 2], "NaN"),
        ({}, np.eye(4), [1, 0, 1, 0], [1.5, 1, 2, 2], "integer query ids"),
        ({}, np.eye(4), ["a", "b", "a", "b"], [1, 1, 2, 2], "numeric targets"),
    ],
)
def test_bad_inputs_raise_value_error(kwargs, X, y, qid, match):
    r = PegasosRanker(**kwargs)
    with pytest.raises(ValueError, match=match):
        r.fit(X, y, qid)
    assert not hasattr(r, "coef_")


def test_nan_in_x_raises_value_error():
    X = np.eye(4)
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN|finite"):
        PegasosRanker().fit(X, [1, 0, 1, 0], [1, 1, 2, 2])


def test_ndcg_matches_scikit_learn_and_counts_queries_without_relevant_documents_as_zero():
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=60).astype(float)  # binary: 2^rel - 1 = rel
    scores = rng.normal(size=60)
    qid = np.repeat(np.arange(4), 15)
    y[qid == 2] = 0.0  # a query without a relevant document
    per = ndcg_per_query(y, scores, qid, k=10)
    assert per[2] == 0.0
    for q in range(4):
        rows = qid == q
        want = ndcg_score(y[rows][None], scores[rows][None], k=10, ignore_ties=True)
        assert per[q] == pytest.approx(want, abs=1e-12)
    assert mean_ndcg(y, scores, qid) == pytest.approx(per.mean())
    # Graded: LETOR's exponential gain, by hand for one query.
    g = np.array([2.0, 0.0, 1.0])
    got = ndcg_per_query(g, np.array([0.1, 0.3, 0.2]), None, k=10)[0]
    dcg = 0 / 1 + 1 / np.log2(3) + 3 / np.log2(4)
    idcg = 3 / 1 + 1 / np.log2(3)
    assert got == pytest.approx(dcg / idcg)
    # Average precision: relevant at ranks 1 and 3 of 3.
    assert mean_average_precision(g, np.array([0.3, 0.2, 0.1])) == pytest.approx((1 + 2 / 3) / 2)


def test_score_uses_the_queries():
    X, y, qid = ranking_problem(seed=7)
    r = PegasosRanker(random_state=0).fit(X, y, qid)
    assert r.score(X, y, qid) == pytest.approx(mean_ndcg(y, r.predict(X), qid))
    assert r.score(X, y) == pytest.approx(mean_ndcg(y, r.predict(X), None))


def test_a_damaged_model_file_is_refused(tmp_path):
    X, y, qid = ranking_problem(seed=8)
    r = PegasosRanker(random_state=0).fit(X, y, qid)
    r.coef_ = r.coef_[:2]
    r.save(tmp_path / "bad")
    with pytest.raises(pegasos_rs.DataFormatError, match="coef_ must be floats of shape"):
        pegasos_rs.load(tmp_path / "bad")


def test_model_file_round_trip_and_continued_fit(tmp_path):
    X, y, qid = ranking_problem(seed=8)
    r = PegasosRanker(alpha=1e-3, average=False, random_state=0).fit(X, y, qid)
    r.save(tmp_path / "ranker")
    loaded = pegasos_rs.load(tmp_path / "ranker")
    assert isinstance(loaded, PegasosRanker)
    assert loaded.get_params() == r.get_params()
    np.testing.assert_array_equal(loaded.predict(X), r.predict(X))
    # The solver state is saved: continuing the loaded model is continuing the fit.
    r.partial_fit(X, y, qid)
    loaded.partial_fit(X, y, qid)
    np.testing.assert_array_equal(loaded.coef_, r.coef_)


@pytest.mark.parametrize("ours_writes", [True, False])
def test_svmlight_query_ids_match_scikit_learn(tmp_path, ours_writes):
    from sklearn.datasets import dump_svmlight_file as sk_dump
    from sklearn.datasets import load_svmlight_file as sk_load

    X, y, qid = ranking_problem(n_queries=3, per_query=4, seed=9)
    X[np.abs(X) < 0.7] = 0.0
    path = tmp_path / "q.svm"
    dump = pegasos_rs.dump_svmlight_file if ours_writes else sk_dump
    dump(X, y, str(path), query_id=qid, zero_based=False)
    text = path.read_text()
    assert f"qid:{qid[0]} " in text.splitlines()[0]
    load = sk_load if ours_writes else pegasos_rs.load_svmlight_file
    X2, y2, q2 = load(str(path), n_features=4, query_id=True, zero_based=False)
    np.testing.assert_allclose(X2.toarray(), X, rtol=1e-15)
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(q2, qid)
    # And ours reads what ours writes the way scikit-learn reads it.
    Xa, ya, qa = pegasos_rs.load_svmlight_file(str(path), n_features=4, query_id=True)
    Xb, yb, qb = sk_load(str(path), n_features=4, query_id=True)
    np.testing.assert_array_equal(Xa.toarray(), Xb.toarray())
    np.testing.assert_array_equal(ya, yb)
    np.testing.assert_array_equal(qa, qb)
    # Trained from the file, as from the arrays.
    r = PegasosRanker(random_state=0).fit(Xa, ya, qa)
    assert r.score(Xa, ya, qa) > 0.5


def _ranker_failed_checks(estimator):
    return {
        "check_sample_weight_equivalence_on_dense_data": "fit has no sample_weight",
        "check_sample_weight_equivalence_on_sparse_data": "fit has no sample_weight",
    }


@parametrize_with_checks(
    [PegasosRanker(sampling="roc", random_state=0)],
    expected_failed_checks=_ranker_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    # A ranker is neither a classifier nor a regressor: the generic checks, with
    # the pairs drawn across the whole set (sampling="roc" needs no qid).
    check(estimator)


@pytest.mark.skipif(not shared_data.letor_available(), reason="LETOR MQ2008 data absent")
def test_mq2008_fold1():
    X, y, qid = shared_data.load_letor("train")
    Xt, yt, qt = shared_data.load_letor("test")
    r = PegasosRanker(alpha=1e-4, max_iter=20, random_state=0).fit(X, y, qid)
    ndcg = r.score(Xt, yt, qt)
    random_ndcg = mean_ndcg(yt, np.random.default_rng(0).normal(size=len(yt)), qt)
    assert ndcg > random_ndcg + 0.1, (ndcg, random_ndcg)
    assert ndcg > 0.45, ndcg


def test_verbose_reports_each_pass(capsys):
    X, y, qid = ranking_problem(seed=10)
    PegasosRanker(max_iter=3, verbose=1, random_state=0).fit(X, y, qid)
    err = capsys.readouterr().err
    for p in (1, 2, 3):
        assert f"[PegasosRanker.fit] pass {p}/3: objective " in err


def test_tol_stops_early_and_warns_otherwise():
    X, y, qid = ranking_problem(seed=11)
    r = PegasosRanker(alpha=1e-2, max_iter=200, tol=1e-2, n_iter_no_change=2, random_state=0)
    r.fit(X, y, qid)
    assert r.n_iter_ < 200
    assert r.objective_ == pytest.approx(objective(r.coef_, X, pairs_of(y, qid), 1e-2))
    from sklearn.exceptions import ConvergenceWarning

    with pytest.warns(ConvergenceWarning, match="tol=0.0 was not reached"):
        PegasosRanker(max_iter=2, tol=0.0, n_iter_no_change=5, random_state=0).fit(X, y, qid)


def test_a_failed_fit_leaves_the_fitted_ranker_unchanged():
    X, y, qid = ranking_problem(seed=12)
    r = PegasosRanker(random_state=0, warm_start=True).fit(X, y, qid)
    coef, t = r.coef_.copy(), r.t_
    with pytest.raises(ValueError, match="single relevance level"):
        r.fit(X, np.zeros_like(y), qid)
    np.testing.assert_array_equal(r.coef_, coef)
    assert r.t_ == t
