"""Shared fixtures and helpers of the test suite.

Helpers that tests call directly (``primal_objective``, ``require_data``,
``make_problem``, ``with_value``, ``unsorted_csr``, ``check_other_widths_rejected``)
are plain functions; test modules import them with ``from conftest import ...``
(pytest puts this folder on ``sys.path``).

The Dask tests' clusters are fixtures here too (``dask_client``, ``dask_threads``;
see "Dask clusters" below).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

# The benchmark datasets' loader lives with the benchmarks, not in the package:
# benches/shared_data.py, next to this folder in the checkout.
sys.path.append(str(Path(__file__).resolve().parent.parent / "benches"))
import shared_data as _datasets

# Tests write only under a temporary directory: datasets parsed during the session
# are cached there (and in the children the tests start), not in ~/.cache; and
# hypothesis keeps its example database there, not in .hypothesis/ of the working
# directory (its storage directory is read on first use, after this module runs).
_scratch = tempfile.mkdtemp(prefix="pegasos-rs-tests-")
atexit.register(shutil.rmtree, _scratch, ignore_errors=True)
os.environ.setdefault("PEGASOS_CACHE", os.path.join(_scratch, "cache"))
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(_scratch, "hypothesis"))


#: Why scikit-learn's check_classifiers_train fails with probability=True (both
#: estimators' check lists use it).
PROBABILITY_ARGMAX = (
    "it asserts argmax(predict_proba) == predict, which Platt scaling does not promise "
    "(as for SVC(probability=True)): the sigmoids are fitted on held-out folds, so the "
    "probability 1/2 lies at f = -probB_/probA_, not at f = 0, and each class has its "
    "own sigmoid; points near the boundaries disagree (1 of the check's 200 binary and "
    "2 to 5 of its 300 3-class points). The other assertions are tested in "
    "tests/test_probability.py"
)


def parametrize_with_checks(estimators, **kwargs):
    """scikit-learn's ``parametrize_with_checks`` with its parameter sets as a list:
    scikit-learn before 1.7 passes a generator, which pytest 9 deprecates (an error
    under ``filterwarnings = error``), and CI also tests scikit-learn 1.6."""
    from sklearn.utils.estimator_checks import parametrize_with_checks as sklearn_checks

    mark = sklearn_checks(estimators, **kwargs).mark
    names, values = mark.args
    return pytest.mark.parametrize(names, list(values), **mark.kwargs)


def stochastic_weight_failures(estimator=None) -> dict[str, str]:
    """The estimator checks a stochastic solver fails, with the reason (an
    ``expected_failed_checks`` callable): copies of a row instead of its weight
    draw other rows."""
    reason = "a stochastic solver: duplicated rows change the sampled sequence"
    return {
        "check_sample_weight_equivalence_on_dense_data": reason,
        "check_sample_weight_equivalence_on_sparse_data": reason,
    }


def make_problem(
    n_samples: int = 300,
    n_features: int = 20,
    n_classes: int = 2,
    density: float = 0.4,
    noise: float = 0.3,
    seed: int = 0,
):
    """A seeded, roughly linearly separable problem with sparse-ish rows.

    Rows are scaled to have norm at most 1 (as Pegasos' analysis assumes); labels are
    0..n_classes-1, the argmax of a random linear score plus noise.
    """
    rng = np.random.RandomState(seed)
    X = rng.randn(n_samples, n_features)
    X[rng.rand(n_samples, n_features) > density] = 0.0
    X /= max(1.0, float(np.linalg.norm(X, axis=1).max()))
    W = rng.randn(n_features, n_classes)
    scores = X @ W + noise * rng.randn(n_samples, n_classes) / np.sqrt(n_features)
    if n_classes == 2:
        y = (scores[:, 1] - scores[:, 0] > 0).astype(np.int64)
    else:
        y = np.argmax(scores, axis=1).astype(np.int64)
    # Every class must be present.
    assert np.unique(y).size == n_classes
    return X, y


def primal_objective(
    X, y_pm1, coef, intercept, alpha, intercept_scaling, sample_weight=None
) -> float:
    """``alpha/2 (||coef||^2 + (intercept/B)^2) + 1/m sum_i c_i hinge_i`` in numpy.

    ``intercept_scaling=B`` (a float) regularises the intercept as the weight
    ``intercept / B`` of a constant feature ``B`` (LIBLINEAR's ``-B``); ``None``
    leaves it out of the norm (no intercept, or the unregularised bias). ``y_pm1``
    holds +1/-1 labels, ``m`` is the number of rows (zero weights included).
    """
    coef = np.asarray(coef, dtype=np.float64).ravel()
    intercept = float(np.asarray(intercept).reshape(-1)[0])
    y_pm1 = np.asarray(y_pm1, dtype=np.float64)
    margins = y_pm1 * (np.asarray(X @ coef).ravel() + intercept)
    hinge = np.maximum(0.0, 1.0 - margins)
    if sample_weight is not None:
        hinge = hinge * np.asarray(sample_weight, dtype=np.float64)
    reg = float(coef @ coef)
    if intercept_scaling is not None:
        reg += (intercept / intercept_scaling) ** 2
    return 0.5 * alpha * reg + float(hinge.mean())


def with_value(X, row: int, column: int, value: float):
    """A copy of the dense ``X`` with ``value`` (say NaN) at ``(row, column)``."""
    X = X.copy()
    X[row, column] = value
    return X


def unsorted_csr(X):
    """CSR of X with every row's entries in reverse order (unsorted indices)."""
    S = sp.csr_matrix(X)
    for i in range(S.shape[0]):
        lo, hi = S.indptr[i], S.indptr[i + 1]
        S.indices[lo:hi] = S.indices[lo:hi][::-1].copy()
        S.data[lo:hi] = S.data[lo:hi][::-1].copy()
    S.has_sorted_indices = False
    return S


def check_other_widths_rejected(est, X, y):
    """Every predicting method of the fitted ``est`` rejects ``X`` (its training
    width) with a column fewer, dense, or one more, CSR, naming the features."""
    for method in (est.predict, est.decision_function, lambda Z: est.score(Z, y)):
        with pytest.raises(ValueError, match="features"):
            method(X[:, :-1])
        with pytest.raises(ValueError, match="features"):
            method(sp.csr_matrix(np.hstack([X, X[:, :1]])))


def require_data(name: str):
    """Load benchmark ``name`` as ``(X_train, y_train, X_test, y_test)``, or skip."""
    if not _datasets.available(name):
        pytest.skip(f"benchmark data set {name!r} is not available (set PEGASOS_DATA)")
    return _datasets.load(name)


@pytest.fixture
def binary_dense():
    return make_problem(n_samples=300, n_features=20, n_classes=2, seed=0)


@pytest.fixture
def binary_csr(binary_dense):
    X, y = binary_dense
    return sp.csr_matrix(X), y


@pytest.fixture
def multiclass_dense():
    return make_problem(n_samples=400, n_features=15, n_classes=4, seed=1)


@pytest.fixture
def multiclass_csr(multiclass_dense):
    X, y = multiclass_dense
    return sp.csr_matrix(X), y


@pytest.fixture(params=["binary", "multiclass"])
def any_dense(request, binary_dense, multiclass_dense):
    return binary_dense if request.param == "binary" else multiclass_dense


# --- Dask clusters ------------------------------------------------------------------
#
# The Dask tests (tests/test_dask*.py) share two clusters, each started when a test
# first asks for it and closed after the last module that asks for it (in the order
# the tests run), not at the end of the session: the other tests do not run beside
# idle Dask processes and threads. Tests that kill workers, or that need a cluster
# shaped otherwise, start their own (local_cluster).


def local_cluster(n_workers: int, *, processes: bool = True):
    """A quiet ``LocalCluster`` of ``n_workers`` single-threaded workers: processes,
    or (``processes=False``) threads of this process."""
    import distributed

    return distributed.LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=processes,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )


#: Fixture name -> closes its cluster now (while it is open).
_DASK_CLOSE: dict = {}
#: Fixture name -> id of the last test that uses it (set at collection).
_DASK_LAST_USER: dict = {}


def _shared_cluster(name: str, n_workers: int, processes: bool):
    pytest.importorskip("distributed")
    import distributed

    with contextlib.ExitStack() as stack:
        cluster = stack.enter_context(local_cluster(n_workers, processes=processes))
        client = stack.enter_context(distributed.Client(cluster, set_as_default=False))
        _DASK_CLOSE[name] = stack.close
        try:
            yield client
        finally:
            _DASK_CLOSE.pop(name, None)


@pytest.fixture(scope="session")
def dask_client():
    """Two worker processes, one thread each, shared by the Dask tests; not the
    default client, so tests pass it (``client=``) or enter it (``as_current``).

    What tests leave on it: other tests' kept svmlight blocks in the workers' block
    cache (tests/test_dask_cache.py resets the workers before and after each test),
    and finished futures' results, which go with the tests' references."""
    yield from _shared_cluster("dask_client", 2, processes=True)


@pytest.fixture(scope="session")
def dask_threads():
    """Two workers as threads of this process (started in a fraction of a second,
    no process boundary): the same ``pegasos_rs.dask`` code on the client and the
    workers, for checks that do not need worker processes."""
    yield from _shared_cluster("dask_threads", 2, processes=False)


@pytest.fixture
def client(request, dask_client, dask_threads):
    """The Dask tests' client: ``dask_client`` (worker processes), or ``dask_threads``
    when parametrized (indirectly) with "threads" (see :func:`cluster_cases`)."""
    return dask_threads if getattr(request, "param", "processes") == "threads" else dask_client


def cluster_cases(*axes, processes):
    """Parameters of a Dask test over the product of ``axes``, each with the cluster
    it runs on as its last value, for the ``client`` fixture (parametrize it with
    ``indirect=["client"]``): the tuples of values in ``processes`` on the worker
    processes, the others on the worker threads of this process."""
    product = list(itertools.product(*axes))
    missing = [p for p in processes if p not in product]
    assert not missing, f"not cases of the product: {missing}"
    return [
        pytest.param(*values, kind, id="-".join(map(str, (*values, kind))))
        for values in product
        for kind in ["processes" if values in processes else "threads"]
    ]


def in_memory_params(est) -> dict:
    """The parameters of ``est.to_local()`` for a Dask estimator ``est``: its own
    but the cluster's, and early stopping (the in-memory estimators' only) at its
    defaults."""
    own = {k: v for k, v in est.get_params().items() if k not in ("mode", "client", "round_bytes")}
    return {**own, "early_stopping": False, "validation_fraction": 0.1}


def concurrently(*calls):
    """``[call() for call in calls]``, the calls running at once in threads (the first
    exception raised by one is raised).

    A Dask fit spends most of its time waiting for the scheduler (every round of
    drawn rows, every block of a chained sum is a round trip): independent fits on one
    cluster overlap their waits. Each is the model it is alone (its draws are its
    own; its blocks are its own tasks; what it scatters has a key of its own, however
    equal to another fit's)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(calls)) as pool:
        futures = [pool.submit(call) for call in calls]
        return [f.result() for f in futures]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Every test on a Dask cluster is ``slow`` (the local loop, ``-m "not slow"``,
    leaves it out); before ``-m`` deselects (tryfirst)."""
    for item in items:
        if {"dask_client", "dask_threads"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session):
    items = session.items  # after every hook's selection
    # The last test of the last module using a cluster: a module-scoped fixture built
    # on it (tests/test_dask_cache.py's) is torn down after that module's last test.
    for name in ("dask_client", "dask_threads"):
        users = [item for item in items if name in getattr(item, "fixturenames", ())]
        if users:
            module = [item for item in items if item.path == users[-1].path]
            _DASK_LAST_USER[name] = module[-1].nodeid


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    result = yield
    for name, nodeid in _DASK_LAST_USER.items():
        if nodeid == item.nodeid and name in _DASK_CLOSE:
            _DASK_CLOSE.pop(name)()
    return result
