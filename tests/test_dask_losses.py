"""``pegasos_rs.dask`` with every loss (issues 25, 26): ``PegasosClassifier(loss=...)``,
``PegasosClassifier(multi_class="crammer_singer")`` and ``PegasosRegressor`` on the
Dask tests' LocalCluster of worker processes (conftest's ``dask_client``) and its twin
of worker threads in this process (``dask_threads``).

Each check runs for every loss (and layout); one loss of each check runs on the worker
processes, with everything pickled between client and workers, the others on the
worker threads: the same pegasos_rs.dask code on the client and the workers (the
functions sent to the workers, the sums chained block after block, the rounds of
drawn rows), without the process boundary.

The oracle of the exact mode, as in test_dask.py: the Dask estimator's model is the
in-memory estimator's on ``X.compute()``, bit for bit; for the squared losses this
includes the start step ``t0`` of a fresh fit, computed from sums over all rows
chained block after block in row order.
"""

from __future__ import annotations

import pickle
from functools import partial
from itertools import pairwise

import numpy as np
import pytest
import scipy.sparse as sp

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import pegasos_rs  # noqa: E402
import pegasos_rs.dask as pdask  # noqa: E402
from conftest import cluster_cases, concurrently, in_memory_params, make_problem  # noqa: E402
from pegasos_rs import _core  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

CLASSIFICATION_LOSSES = ["hinge", "log_loss", "squared_hinge", "modified_huber"]
REGRESSION_LOSSES = ["epsilon_insensitive", "squared_epsilon_insensitive", "squared_error", "huber"]


def _same_model(a, b) -> None:
    if hasattr(b, "classes_"):
        np.testing.assert_array_equal(a.classes_, b.classes_)
    assert np.asarray(a.coef_).tobytes() == np.asarray(b.coef_).tobytes()
    assert np.asarray(a.intercept_).tobytes() == np.asarray(b.intercept_).tobytes()
    assert (a.t_, a.n_iter_) == (b.t_, b.n_iter_)
    if b.objective_ is None:
        assert a.objective_ is None
    else:
        assert np.asarray(a.objective_).tobytes() == np.asarray(b.objective_).tobytes()


def _as_dask(X, y, rows, sample_weight=None):
    """Row blocks of the given sizes (an empty one allowed), CSR or dense."""
    cuts = np.cumsum([0, *rows])
    if sp.issparse(X):
        meta = sp.csr_matrix((0, X.shape[1]), dtype=X.dtype)
        dX = da.concatenate(
            [
                da.from_delayed(
                    dask.delayed(X[a:b]), shape=(b - a, X.shape[1]), dtype=X.dtype, meta=meta
                )
                for a, b in pairwise(cuts)
            ]
        )
    else:
        dX = da.from_array(X, chunks=(tuple(rows), X.shape[1]))
    dy = da.from_array(y, chunks=(tuple(rows),))
    if sample_weight is None:
        return dX, dy
    return dX, dy, da.from_array(sample_weight, chunks=(tuple(rows),))


def _regression(n=500, d=12, seed=0, sparse=False):
    """A seeded linear regression with noise and unnormalised rows (so that the
    squared losses' start ``t0`` is far from 1)."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d) * rng.uniform(0.5, 3.0, size=d)
    X[rng.rand(n, d) > 0.6] = 0.0
    y = X @ rng.randn(d) + 2.0 + 0.3 * rng.randn(n)
    return (sp.csr_matrix(X) if sparse else X), y


#: Parameter sets of the classifier's bit-for-bit tests.
CLASSIFIER_PARAMS = (
    {},
    {"average": True, "batch_size": 3, "sampling": "balanced"},
    {"class_weight": "balanced", "tol": 1e-3, "max_iter": 6, "intercept_scaling": None},
    {"max_steps": 700, "sampling": "shuffle", "projection": False, "fit_intercept": False},
)


@pytest.mark.parametrize(
    ("loss", "layout", "client"),
    cluster_cases(CLASSIFICATION_LOSSES, ["csr", "dense"], processes=[("squared_hinge", "csr")]),
    indirect=["client"],
)
def test_exact_classifier_is_the_in_memory_model_for_every_loss(client, loss, layout):
    X, y = make_problem(n_samples=600, n_features=15, n_classes=3, seed=4)
    X = X * 3.0  # rows longer than 1: t0 of the squared hinge well above 1
    if layout == "csr":
        X = sp.csr_matrix(X)
    dX, dy = _as_dask(X, y, [100, 0, 280, 220])
    kws = [
        {"loss": loss, "alpha": 1e-3, "max_iter": 4, "random_state": 7, **params}
        for params in CLASSIFIER_PARAMS
    ]
    fits = [partial(pdask.PegasosClassifier(client=client, **kw).fit, dX, dy) for kw in kws]
    for kw, ours in zip(kws, concurrently(*fits), strict=True):
        ref = pegasos_rs.PegasosClassifier(**kw).fit(X, y)
        _same_model(ours, ref)
    # The last fit ran max_steps=700 steps from t0: the fresh fits of the squared
    # hinge and the modified Huber loss start late, the others at step 1.
    assert (ref.t_ > 700) == (loss in ("squared_hinge", "modified_huber"))


@pytest.mark.parametrize(
    ("loss", "client"),
    cluster_cases(CLASSIFICATION_LOSSES, processes=[("modified_huber",)]),
    indirect=["client"],
)
def test_exact_classifier_with_weights_warm_start_and_partial_fit(client, loss):
    X, y = make_problem(n_samples=400, n_features=10, n_classes=2, seed=5)
    X = X * 2.0
    labels = np.array(["no", "yes"])[y]
    sw = np.random.RandomState(0).uniform(0.1, 3.0, size=len(y))
    dX, dy, dsw = _as_dask(X, labels, [150, 150, 100], sw)
    weighted = [
        {"loss": loss, "alpha": 1e-3, "random_state": 2, **kw}
        for kw in [
            {"class_weight": {"yes": 3.0}},
            {"verbose": 1, "tol": 0.0, "n_iter_no_change": 2, "max_iter": 3},
        ]
    ]
    warm = {"loss": loss, "alpha": 1e-3, "random_state": 4, "warm_start": True}

    def warm_started():
        ours = pdask.PegasosClassifier(client=client, max_iter=2, **warm).fit(dX, dy)
        return ours.set_params(max_iter=3).fit(dX, dy)

    def partially_fitted():
        ours = pdask.PegasosClassifier(client=client, loss=loss, random_state=1)
        ours.partial_fit(dX[:200], dy[:200], classes=["no", "yes"], sample_weight=dsw[:200])
        first = ours.to_local()
        return first, ours.partial_fit(dX, dy)

    *ours_weighted, ours_warm, (ours_first, ours_partial) = concurrently(
        *[
            partial(pdask.PegasosClassifier(client=client, **kw).fit, dX, dy, dsw)
            for kw in weighted
        ],
        warm_started,
        partially_fitted,
    )
    for kw, ours in zip(weighted, ours_weighted, strict=True):
        ref = pegasos_rs.PegasosClassifier(**kw).fit(X, labels, sample_weight=sw)
        _same_model(ours, ref)
    # Warm start continues the schedule (no second t0); partial_fit starts at the
    # t0 of its first batch.
    ref = pegasos_rs.PegasosClassifier(max_iter=2, **warm).fit(X, labels)
    ref.set_params(max_iter=3).fit(X, labels)
    _same_model(ours_warm, ref)
    ref = pegasos_rs.PegasosClassifier(loss=loss, random_state=1)
    ref.partial_fit(X[:200], labels[:200], classes=["no", "yes"], sample_weight=sw[:200])
    _same_model(ours_first, ref)
    ref.partial_fit(X, labels)
    _same_model(ours_partial, ref)


@pytest.mark.parametrize(
    ("loss", "client"),
    cluster_cases(CLASSIFICATION_LOSSES, processes=[("squared_hinge",)]),
    indirect=["client"],
)
def test_parallel_classifier_trains_every_loss(client, loss):
    X, y = make_problem(n_samples=2000, n_features=20, n_classes=3, seed=2)
    X = X * 3.0
    dX, dy = _as_dask(X, y, [1000, 1000])
    kw = {"loss": loss, "alpha": 1e-4, "random_state": 0}
    mixed = pdask.PegasosClassifier(client=client, mode="parallel", max_iter=20, **kw)
    mixed.fit(dX, dy)
    exact = pegasos_rs.PegasosClassifier(max_iter=10, **kw).fit(X, y)
    assert mixed.score(X, y) >= exact.score(X, y) - 0.03, (mixed.score(X, y), exact.score(X, y))
    # The step counter starts where the in-memory solver's does (t0 - 1 steps
    # before the first), then counts a round as its mean local pass.
    t0 = exact.t_ - 10 * 2000
    assert mixed.t_ == t0 + 20 * 1000
    assert (t0 > 1) == (loss in ("squared_hinge", "modified_huber"))
    # tol evaluates the objective of the loss each round.
    mixed.set_params(tol=1e-4, n_iter_no_change=2, max_iter=4, warm_start=True).fit(dX, dy)
    assert mixed.objective_ is not None and np.all(np.isfinite(mixed.objective_))


#: Parameter sets of the Crammer-Singer bit-for-bit tests.
CRAMMER_SINGER_PARAMS = (
    {},
    {"average": True, "batch_size": 4, "sampling": "shuffle", "intercept_scaling": 2.0},
    {"class_weight": "balanced", "tol": 1e-3, "max_iter": 6, "intercept_scaling": None},
    {"max_steps": 700, "projection": False, "fit_intercept": False, "verbose": 1},
)


@pytest.mark.parametrize(
    ("layout", "client"), cluster_cases(["csr", "dense"], processes=[("csr",)]), indirect=["client"]
)
def test_exact_crammer_singer_is_the_in_memory_model(client, layout, capsys):
    X, y = make_problem(n_samples=600, n_features=15, n_classes=4, seed=3)
    if layout == "csr":
        X = sp.csr_matrix(X)
    dX, dy = _as_dask(X, y, [100, 0, 280, 220])
    kws = [
        {"multi_class": "crammer_singer", "alpha": 1e-3, "max_iter": 4, "random_state": 7, **p}
        for p in CRAMMER_SINGER_PARAMS
    ]
    fits = [partial(pdask.PegasosClassifier(client=client, **kw).fit, dX, dy) for kw in kws]
    fitted = concurrently(*fits)
    ours_err = capsys.readouterr().err  # the one verbose fit's
    for kw, ours in zip(kws, fitted, strict=True):
        ref = pegasos_rs.PegasosClassifier(**kw).fit(X, y)
        _same_model(ours, ref)
        assert ours.coef_.shape == (4, 15)
        if kw.get("verbose"):
            # The pass line of the one joint problem, with the in-memory objective.
            ref_err = capsys.readouterr().err
            objective = ref_err.split("objective ")[1].split(",")[0]
            assert f"pass 1/1: objective {objective}, ||W||_F^2" in ours_err, ours_err


@pytest.mark.parametrize("client", ["threads"], indirect=True)
def test_exact_crammer_singer_with_weights_two_classes_warm_start_and_partial_fit(client):
    X, y = make_problem(n_samples=400, n_features=10, n_classes=3, seed=6)
    labels = np.array(["a", "b", "c"])[y]
    sw = np.random.RandomState(1).uniform(0.1, 3.0, size=len(y))
    dX, dy, dsw = _as_dask(X, labels, [150, 150, 100], sw)
    kw = {"multi_class": "crammer_singer", "alpha": 1e-3, "random_state": 2}
    extras = [{"class_weight": {"b": 3.0}}, {"tol": 0.0, "n_iter_no_change": 2}]
    two = labels != "c"
    d2X, d2y = _as_dask(X[two], labels[two], [100, int(two.sum()) - 100])

    def warm_started():
        ours = pdask.PegasosClassifier(client=client, max_iter=2, warm_start=True, **kw)
        return ours.fit(dX, dy).set_params(max_iter=3).fit(dX, dy)

    def partially_fitted():
        ours = pdask.PegasosClassifier(client=client, **kw)
        ours.partial_fit(dX[:150], dy[:150], classes=["a", "b", "c"])
        return ours.partial_fit(dX, dy)

    *ours_weighted, ours_two, ours_warm, ours = concurrently(
        *[
            partial(pdask.PegasosClassifier(client=client, **kw, **e).fit, dX, dy, dsw)
            for e in extras
        ],
        partial(pdask.PegasosClassifier(client=client, **kw).fit, d2X, d2y),
        warm_started,
        partially_fitted,
    )
    for extra, fitted in zip(extras, ours_weighted, strict=True):
        ref = pegasos_rs.PegasosClassifier(**kw, **extra).fit(X, labels, sample_weight=sw)
        _same_model(fitted, ref)
    # Two classes: one column, w_b - w_a, as LinearSVC(multi_class="crammer_singer").
    ref = pegasos_rs.PegasosClassifier(**kw).fit(X[two], labels[two])
    _same_model(ours_two, ref)
    assert ours_two.coef_.shape == (1, 10)
    # Warm start continues the joint state; partial_fit knows every class up front.
    ref = pegasos_rs.PegasosClassifier(max_iter=2, warm_start=True, **kw)
    ref.fit(X, labels).set_params(max_iter=3).fit(X, labels)
    _same_model(ours_warm, ref)
    ref = pegasos_rs.PegasosClassifier(**kw)
    ref.partial_fit(X[:150], labels[:150], classes=["a", "b", "c"])
    ref.partial_fit(X, labels)
    _same_model(ours, ref)
    # The saved state stays the joint one: it continues in memory, not one-vs-rest.
    local = ours.to_local()
    local.partial_fit(X, labels)
    ref.partial_fit(X, labels)
    _same_model(local, ref)
    with pytest.raises(ValueError, match="crammer_singer"):
        ours.set_params(multi_class="ovr").partial_fit(dX, dy)


def test_crammer_singer_refused_where_it_has_no_cluster_form(client):
    X, y = make_problem(n_samples=200, n_features=5, n_classes=3, seed=1)
    dX, dy = _as_dask(X, y, [100, 100])
    with pytest.raises(ValueError, match="not supported in parallel mode"):
        pdask.PegasosClassifier(client=client, mode="parallel", multi_class="crammer_singer").fit(
            dX, dy
        )
    with pytest.raises(ValueError, match="ovr_shared"):
        pdask.PegasosClassifier(client=client, multi_class="ovr_shared").fit(dX, dy)
    with pytest.raises(ValueError, match="loss='hinge'"):
        pdask.PegasosClassifier(client=client, multi_class="crammer_singer", loss="log_loss").fit(
            dX, dy
        )
    with pytest.raises(ValueError, match="sampling"):
        pdask.PegasosClassifier(
            client=client, multi_class="crammer_singer", sampling="balanced"
        ).fit(dX, dy)


@pytest.mark.parametrize(
    ("loss", "sparse", "client"),
    cluster_cases(REGRESSION_LOSSES, [False, True], processes=[("squared_error", True)]),
    indirect=["client"],
)
def test_exact_regressor_is_the_in_memory_model_for_every_loss(client, loss, sparse):
    X, y = _regression(sparse=sparse)
    sw = np.random.RandomState(3).uniform(0.2, 2.0, size=len(y))
    dX, dy, dsw = _as_dask(X, y, [120, 0, 200, 180], sw)
    order = np.random.RandomState(1).permutation(len(y))[:333]
    cases = [
        ({"loss": loss, "alpha": 1e-3, "max_iter": 4, "random_state": 3, **params}, weights)
        for params in [
            {},
            {"epsilon": 0.5, "batch_size": 4, "sampling": "shuffle", "intercept_scaling": None},
            {"tol": 1e-3, "max_iter": 5, "verbose": 1, "fit_intercept": False},
            {"max_steps": 900, "sampling": order, "projection": False, "average": 50},
        ]
        for weights in (None, dsw)
    ]
    fits = [partial(pdask.PegasosRegressor(client=client, **kw).fit, dX, dy, w) for kw, w in cases]
    for (kw, weights), ours in zip(cases, concurrently(*fits), strict=True):
        ref = pegasos_rs.PegasosRegressor(**kw).fit(
            X, y, sample_weight=None if weights is None else sw
        )
        _same_model(ours, ref)
    fresh_start = ref.t_ - 900
    assert (fresh_start > 0) == (loss in ("squared_epsilon_insensitive", "squared_error"))


@pytest.mark.parametrize(
    ("loss", "client"),
    cluster_cases(REGRESSION_LOSSES, processes=[("squared_epsilon_insensitive",)]),
    indirect=["client"],
)
def test_exact_regressor_warm_start_partial_fit_and_unchecked_input(client, loss):
    X, y = _regression(n=300, d=8, seed=1, sparse=True)
    dX, dy = _as_dask(X, y, [100, 100, 100])
    kw = {"loss": loss, "alpha": 1e-3, "random_state": 4, "warm_start": True}

    def warm_started():
        ours = pdask.PegasosRegressor(client=client, max_iter=2, **kw).fit(dX, dy)
        return ours.set_params(max_iter=3).fit(dX, dy)

    def partially_fitted():
        ours = pdask.PegasosRegressor(client=client, loss=loss, random_state=1)
        first = ours.partial_fit(dX[:100], dy[:100]).to_local()
        return first, ours.partial_fit(dX, dy)

    unchecked = pdask.PegasosRegressor(client=client, loss=loss, random_state=2, max_iter=3)
    ours_warm, (ours_first, ours_partial), ours_unchecked = concurrently(
        warm_started, partially_fitted, partial(unchecked.fit, dX, dy, check_input=False)
    )
    ref = pegasos_rs.PegasosRegressor(max_iter=2, **kw).fit(X, y)
    ref.set_params(max_iter=3).fit(X, y)
    _same_model(ours_warm, ref)
    ref = pegasos_rs.PegasosRegressor(loss=loss, random_state=1)
    ref.partial_fit(X[:100], y[:100])
    _same_model(ours_first, ref)
    ref.partial_fit(X, y)
    _same_model(ours_partial, ref)
    ref = pegasos_rs.PegasosRegressor(loss=loss, random_state=2, max_iter=3)
    _same_model(ours_unchecked, ref.fit(X, y, check_input=False))


@pytest.mark.parametrize(
    ("loss", "client"),
    cluster_cases(REGRESSION_LOSSES, processes=[("huber",)]),
    indirect=["client"],
)
def test_parallel_regressor_trains_every_loss(client, loss):
    X, y = _regression(n=2000, d=10, seed=5)
    dX, dy = _as_dask(X, y, [700, 1300])
    kw = {"loss": loss, "alpha": 1e-4, "random_state": 0, "epsilon": 0.05}
    mixed = pdask.PegasosRegressor(client=client, mode="parallel", max_iter=20, **kw)
    mixed.fit(dX, dy)
    exact = pegasos_rs.PegasosRegressor(max_iter=10, **kw).fit(X, y)
    assert mixed.score(X, y) >= exact.score(X, y) - 0.02, (mixed.score(X, y), exact.score(X, y))
    assert mixed.score(X, y) > 0.9
    t0 = exact.t_ - 10 * 2000
    per_round = (700 * 700 + 1300 * 1300) / 2000
    assert mixed.t_ == t0 + 20 * round(per_round)
    mixed.set_params(tol=1e-4, n_iter_no_change=2, max_iter=4, warm_start=True).fit(dX, dy)
    assert isinstance(mixed.objective_, float) and np.isfinite(mixed.objective_)


def test_regressor_predicts_scores_saves_and_continues(client, tmp_path):
    X, y = _regression(n=400, d=6, seed=7, sparse=True)
    sw = np.linspace(0.5, 2.0, len(y))
    dX, dy = _as_dask(X, y, [150, 0, 250])
    est = pdask.PegasosRegressor(client=client, loss="squared_error", alpha=1e-3, random_state=0)
    est.fit(dX, dy)
    local = est.to_local()
    assert type(local) is pegasos_rs.PegasosRegressor
    assert local.get_params() == in_memory_params(est)
    predicted = est.predict(dX)
    assert isinstance(predicted, da.Array)
    assert client.compute(predicted).result().tobytes() == local.predict(X).tobytes()
    np.testing.assert_array_equal(est.predict(X), local.predict(X))
    assert est.score(dX, dy) == pytest.approx(local.score(X, y), rel=1e-12)
    assert est.score(dX, dy, sample_weight=sw) == pytest.approx(
        local.score(X, y, sample_weight=sw), rel=1e-12
    )
    assert est.score(X, y) == local.score(X, y)
    est.save(tmp_path / "r.model")
    loaded = pegasos_rs.load(tmp_path / "r.model")
    assert type(loaded) is pegasos_rs.PegasosRegressor
    assert loaded.coef_.tobytes() == est.coef_.tobytes()
    restored = pickle.loads(pickle.dumps(est))
    assert restored.client is None
    from sklearn.base import clone

    assert clone(est).client is client
    # The local copy continues the solver state as the in-memory fit would.
    local.set_params(warm_start=True).fit(X, y)
    ref = pegasos_rs.PegasosRegressor(
        loss="squared_error", alpha=1e-3, random_state=0, warm_start=True
    )
    _same_model(local, ref.fit(X, y).fit(X, y))
    with pytest.raises(ValueError, match="expecting 6 features"):
        est.predict(da.zeros((4, 3), chunks=2))


def test_regressor_refuses_bad_targets_and_parameters(client):
    X, y = _regression(n=90, d=4, seed=2)
    dX, dy = _as_dask(X, y, [30, 30, 30])
    before = pdask.PegasosRegressor(client=client, random_state=0).fit(dX, dy)
    coef = before.coef_.copy()
    bad = y.copy()
    bad[40] = np.nan
    with pytest.raises(ValueError, match=r"block 1: .*must be finite"):
        before.fit(dX, da.from_array(bad, chunks=30))
    assert before.coef_.tobytes() == coef.tobytes()
    words = da.from_array(np.array(["a", "b", "c"] * 30), chunks=30)
    with pytest.raises(ValueError, match="needs numeric targets"):
        pdask.PegasosRegressor(client=client).fit(dX, words)
    from sklearn.utils._param_validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="'loss' parameter"):
        pdask.PegasosRegressor(client=client, loss="hinge").fit(dX, dy)
    with pytest.raises(InvalidParameterError, match="'loss' parameter"):
        pdask.PegasosClassifier(client=client, loss="squared_error").fit(dX, dy > 2)
    with pytest.raises(ValueError, match="visiting order is not supported in parallel"):
        pdask.PegasosRegressor(client=client, mode="parallel", sampling=[0, 1]).fit(dX, dy)


def test_streamed_fit_needs_the_first_step_of_a_squared_loss():
    # Without the sums a fresh squared-loss fit would start at step 1, unlike the
    # in-memory solver: the binding refuses rather than train another model.
    params = pegasos_rs.PegasosRegressor(loss="squared_error")
    from pegasos_rs import _linear_solver

    solver_params = _linear_solver.linear_solver_params(params, False, 1, None)
    labels = {"zero_loss_sums": np.array([4.0])}
    with pytest.raises(ValueError, match="first_step_sums"):
        _core.StreamedLinearFit(_core.LinearSolverState(), solver_params, 4, 2, labels, 1)
    # (sum s_i, sum s_i^2, max s_i, max c_i) of s_i = c_i (||x_i||^2 + 1) over 4 rows
    sums = [(8.0, 22.0, 3.0, 1.0)]
    labels["first_step_sums"] = sums
    fit = _core.StreamedLinearFit(_core.LinearSolverState(), solver_params, 4, 2, labels, 1)
    assert fit.n_problems == 1
    # A regression loss: kappa * max(max_i s_i, max c) / alpha = 1 * 3 / 1e-4
    assert _core.first_steps(solver_params, sums) == [30_000]
    x = np.zeros((1, 2))
    with pytest.raises(ValueError, match="y must be real targets"):
        fit.run(x, np.zeros(1, np.uint32), None, [np.zeros(1, np.int64)])
    hinge = _linear_solver.linear_solver_params(pegasos_rs.PegasosClassifier(), False, 1, None)
    with pytest.raises(ValueError, match="classification loss"):
        _core.StreamedLinearFit(_core.LinearSolverState(), hinge, 4, 2, labels, 1)


def test_command_line_trains_every_linear_solver_on_a_cluster(client, tmp_path, capsys):
    from pegasos_rs.cli import main

    X, y = make_problem(n_samples=400, n_features=6, seed=2)
    Xr, yr = _regression(n=400, d=6, seed=3)
    for name, (A, b) in {"c": (X, y), "r": (Xr, yr)}.items():
        for k, part in enumerate(np.array_split(np.arange(400), 2)):
            pegasos_rs.dump_svmlight_file(
                A[part], b[part], tmp_path / f"{name}{k}.svm", zero_based=False
            )
    addr = client.scheduler.address
    for solver, loss in [
        (0, "log_loss"),
        (2, "squared_hinge"),
        (4, "hinge"),
        (11, "squared_epsilon_insensitive"),
        (13, "epsilon_insensitive"),
    ]:
        regression = solver >= 11
        name = "r" if regression else "c"
        model = tmp_path / f"m{solver}.model"
        args = ["train", "--dask", addr, "-s", str(solver), "-c", "1", "-B", "1"]
        args += ["--max-steps", "3000"]
        args += ["-p", "0.2"] if regression else []
        assert main([*args, str(tmp_path / f"{name}*.svm"), str(model)]) == 0
        err = capsys.readouterr().err
        assert ("regression" in err) == regression
        est = pegasos_rs.load(model)
        files = [tmp_path / f"{name}{k}.svm" for k in range(2)]
        A, b = pegasos_rs.load_svmlight_file(files[0], n_features=6)
        A2, b2 = pegasos_rs.load_svmlight_file(files[1], n_features=6)
        A, b = sp.vstack([A, A2], format="csr"), np.concatenate([b, b2])
        kw = {"loss": loss, "alpha": 1 / 400, "max_steps": 3000, "random_state": 0}
        if regression:
            ref = pegasos_rs.PegasosRegressor(epsilon=0.2, **kw).fit(A, b)
        else:
            multi_class = "crammer_singer" if solver == 4 else "ovr"
            ref = pegasos_rs.PegasosClassifier(multi_class=multi_class, **kw).fit(A, b)
        assert type(est) is type(ref)
        assert est.coef_.tobytes() == ref.coef_.tobytes(), solver
        assert est.intercept_.tobytes() == ref.intercept_.tobytes()
