"""``pegasos_rs.dask`` on a LocalCluster of worker processes (issue 13), the one the
Dask tests share (conftest's ``dask_client``); checks that need no process boundary
run on its twin of worker threads in this process (``dask_threads``).

The oracle of the exact mode: ``pegasos_rs.dask.PegasosClassifier(...).fit(X, y)``
gives the ``coef_`` of ``pegasos_rs.PegasosClassifier(...).fit(X.compute(),
y.compute())``, bit for bit, for every chunking and number of workers.
"""

from __future__ import annotations

import io
import lzma
import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
import threading
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
import shared_data as _datasets  # noqa: E402
from conftest import (  # noqa: E402
    cluster_cases,
    concurrently,
    in_memory_params,
    local_cluster,
    make_problem,
    primal_objective,
)
from pegasos_rs.dask._blocks import read_range  # noqa: E402
from pegasos_rs.dask._svmlight import _parse_block, _split  # noqa: E402
from pegasos_rs.exceptions import DataFormatError  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

# The comparisons with the in-memory solver use tol with few passes; both sides warn
# alike (test_convergence_warning_as_in_memory checks the warning itself).
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def client1():
    """One worker (a thread of this process): every block on the same worker."""
    with (
        local_cluster(1, processes=False) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c


def _same_model(a, b) -> None:
    np.testing.assert_array_equal(a.classes_, b.classes_)
    assert a.coef_.tobytes() == b.coef_.tobytes()
    assert a.intercept_.tobytes() == b.intercept_.tobytes()
    assert (a.t_, a.n_iter_) == (b.t_, b.n_iter_)
    if b.objective_ is None:
        assert a.objective_ is None
    else:
        assert a.objective_.tobytes() == b.objective_.tobytes()


def _csr_blocks(X, rows):
    """A dask array of CSR row blocks of the given sizes (an empty one allowed)."""
    cuts = np.cumsum([0, *rows])
    meta = sp.csr_matrix((0, X.shape[1]), dtype=X.dtype)
    return da.concatenate(
        [
            da.from_delayed(
                dask.delayed(X[a:b]), shape=(b - a, X.shape[1]), dtype=X.dtype, meta=meta
            )
            for a, b in pairwise(cuts)
        ]
    )


def _unknown(arr):
    """The same blocks with unknown chunk sizes."""
    return da.concatenate(
        [
            da.from_delayed(b, shape=(np.nan, *arr.shape[1:]), dtype=arr.dtype, meta=arr._meta)
            for b in arr.to_delayed().ravel()
        ]
    )


def _chunkings(n):
    """Even blocks, uneven blocks with an empty one, unknown chunk sizes."""
    return {
        "even": [n // 4] * 3 + [n - 3 * (n // 4)],
        "uneven-empty": [n // 7, 0, n // 2, n - n // 7 - n // 2],
        "unknown": [n // 3, n // 3, n - 2 * (n // 3)],
    }


def _as_dask(X, y, rows, unknown: bool):
    if sp.issparse(X):
        dX = _csr_blocks(X, rows)
    else:
        dX = da.from_array(X, chunks=(tuple(rows), X.shape[1]))
    dy = da.from_array(y, chunks=(tuple(rows),))
    if unknown:
        dX, dy = _unknown(dX), _unknown(dy)
    return dX, dy


PARAMS = [
    {},
    {"average": True, "batch_size": 3, "sampling": "balanced"},
    {"class_weight": "balanced", "tol": 1e-3, "max_iter": 6, "intercept_scaling": None},
    {"max_steps": 700, "sampling": "shuffle", "projection": False},
]


# Each layout and each chunking once on the worker processes (rows, labels and
# sums pickled between processes), the other pairs on worker threads: the same code
# on the client and the workers.
@pytest.mark.parametrize(
    ("layout", "chunking", "client"),
    cluster_cases(
        ["csr32", "csr64", "dense", "dense32"],
        ["even", "uneven-empty", "unknown"],
        processes=[
            ("csr32", "even"),
            ("csr64", "unknown"),
            ("dense", "uneven-empty"),
            ("dense32", "unknown"),
        ],
    ),
    indirect=["client"],
)
def test_exact_mode_is_the_in_memory_model_bit_for_bit(client, layout, chunking):
    X, y = make_problem(n_samples=600, n_features=15, n_classes=3, seed=4)
    if layout.startswith("csr"):
        X = sp.csr_matrix(X)
        if layout == "csr64":
            X.indices = X.indices.astype(np.int64)
            X.indptr = X.indptr.astype(np.int64)
    elif layout == "dense32":
        X = X.astype(np.float32)
    rows = _chunkings(len(y))[chunking]
    dX, dy = _as_dask(X, y, rows, unknown=chunking == "unknown")
    kws = [{"alpha": 1e-3, "max_iter": 4, "random_state": 7, **params} for params in PARAMS]
    fits = [partial(pdask.PegasosClassifier(client=client, **kw).fit, dX, dy) for kw in kws]
    X_all, y_all = dask.compute(dX, dy)
    for kw, ours in zip(kws, concurrently(*fits), strict=True):
        _same_model(ours, pegasos_rs.PegasosClassifier(**kw).fit(X_all, y_all))


@pytest.mark.parametrize("chunking", ["even", "uneven-empty", "unknown"])
def test_exact_mode_with_one_worker_and_small_rounds(client1, chunking):
    X, y = make_problem(n_samples=200, n_features=12, n_classes=2, seed=1)
    X = sp.csr_matrix(X)
    dX, dy = _as_dask(X, y, _chunkings(len(y))[chunking], unknown=chunking == "unknown")
    kw = {"alpha": 1e-3, "max_iter": 2, "average": True, "random_state": 3}
    # Rounds of a few rows each (about 40 a pass): many rounds, the same model.
    ours = pdask.PegasosClassifier(client=client1, round_bytes=500, **kw).fit(dX, dy)
    _same_model(ours, pegasos_rs.PegasosClassifier(**kw).fit(X, y))


def test_sample_weights_labels_and_visiting_order(client):
    X, y = make_problem(n_samples=400, n_features=10, n_classes=2, seed=5)
    labels = np.array(["no", "yes"])[y]
    sw = np.random.RandomState(0).uniform(0.1, 3.0, size=len(y))
    dX, dy = _as_dask(X, labels, [150, 150, 100], unknown=False)
    dsw = da.from_array(sw, chunks=((150, 150, 100),))
    order = np.random.RandomState(1).permutation(len(y))[:333]
    cases = [
        ({"alpha": 1e-3, "random_state": 2, **kw}, weights)
        for kw in [
            {"class_weight": {"yes": 3.0}},
            {"sampling": order, "max_iter": 2},
            {"verbose": 1, "tol": 0.0, "n_iter_no_change": 2},
        ]
        for weights in (dsw, sw)  # a dask array, or an in-memory one cut by the blocks
    ]
    # At once: both weights give the same model, scattered by each fit for its
    # objective under a key of its own (test_fits_scattering_equal_values_share_no_key).
    fits = [
        partial(pdask.PegasosClassifier(client=client, **kw).fit, dX, dy, sample_weight=weights)
        for kw, weights in cases
    ]
    for (kw, _), ours in zip(cases, concurrently(*fits), strict=True):
        _same_model(ours, pegasos_rs.PegasosClassifier(**kw).fit(X, labels, sample_weight=sw))


@pytest.mark.parametrize("mode", ["exact", "parallel"])
def test_fits_scattering_equal_values_share_no_key(dask_threads, monkeypatch, mode):
    """What a fit scatters (in-memory X, y and sample_weight; exact mode's model for
    the objective; parallel mode's start and model of every round) gets a key of its
    own. Named by hash, equal values of two fits on one client shared one key: the
    release of one fit's future could reach the scheduler after the other fit's
    scatter of it, and the other fit's tasks then failed ("lost dependencies")."""
    keys: list = []
    scatter = distributed.Client.scatter

    def recording(self, data, *args, **kwargs):
        out = scatter(self, data, *args, **kwargs)
        keys.extend(f.key for f in (out if isinstance(out, list) else [out]))
        return out

    monkeypatch.setattr(distributed.Client, "scatter", recording)
    X, y = make_problem(n_samples=200, n_features=5, n_classes=2, seed=6)
    sw = np.random.RandomState(0).uniform(0.5, 2.0, size=len(y))
    dX, _ = _as_dask(X, y, [100, 100], unknown=True)  # y and sw cut once rows are known
    kw = {"alpha": 1e-3, "max_iter": 3, "tol": 1e-12, "random_state": 1, "mode": mode}
    models = [
        pdask.PegasosClassifier(client=dask_threads, **kw).fit(inputs, y, sample_weight=sw)
        for inputs in (X, X, dX, dX)  # each input twice: equal values scattered twice
    ]
    _same_model(models[1], models[0])  # alike fits: what they scattered was equal
    _same_model(models[3], models[2])
    shared = {k for k in keys if keys.count(k) > 1}
    assert not shared, f"{len(shared)} keys scattered more than once: {sorted(shared)}"
    # Each fit scatters y and sw (and X when in memory), and a model every pass.
    assert len(keys) >= 2 * (3 + 3) + 2 * (2 + 3)


def test_dataframes_and_in_memory_inputs(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = make_problem(n_samples=300, n_features=6, n_classes=3, seed=8)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(6)])
    frame["label"] = y
    ddf = dd.from_pandas(frame, npartitions=4)
    kw = {"alpha": 1e-3, "random_state": 5, "max_iter": 3}
    ours = pdask.PegasosClassifier(client=client, **kw).fit(ddf.drop(columns="label"), ddf["label"])
    ref = pegasos_rs.PegasosClassifier(**kw).fit(frame.drop(columns="label"), frame["label"])
    _same_model(ours, ref)
    np.testing.assert_array_equal(ours.feature_names_in_, ref.feature_names_in_)
    # In-memory arrays go to the cluster as one partition.
    _same_model(
        pdask.PegasosClassifier(client=client, **kw).fit(X, y),
        pegasos_rs.PegasosClassifier(**kw).fit(X, y),
    )


def test_dataframe_prediction_checks_column_names(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = make_problem(n_samples=200, n_features=4, n_classes=3, seed=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    ddf, dy = dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3)
    kw = {"alpha": 1e-3, "random_state": 1, "max_iter": 2}
    ours = pdask.PegasosClassifier(client=client, **kw).fit(ddf, dy)
    ref = pegasos_rs.PegasosClassifier(**kw).fit(frame, y)
    scores = ours.decision_function(ddf).compute()
    assert scores.tobytes() == ref.decision_function(frame).tobytes()
    np.testing.assert_array_equal(ours.predict(ddf).compute(), ref.predict(frame))
    assert ours.score(ddf, dy) == ref.score(frame, y)
    reordered = ddf[["b", "a", "c", "d"]]
    for call in (ours.decision_function, ours.predict):
        with pytest.raises(ValueError, match="same order as they were in fit"):
            call(reordered)
    coef = ours.coef_.copy()
    with pytest.raises(ValueError, match="same order as they were in fit"):
        ours.partial_fit(reordered, dy)
    assert ours.coef_.tobytes() == coef.tobytes()
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        ours.decision_function(ddf.to_dask_array(lengths=True))


def test_warm_start_and_partial_fit_continue_the_solver(client):
    X, y = make_problem(n_samples=300, n_features=8, n_classes=3, seed=9)
    dX, dy = _as_dask(X, y, [100, 100, 100], unknown=False)
    kw = {"alpha": 1e-3, "random_state": 4, "warm_start": True}
    ours = pdask.PegasosClassifier(client=client, max_iter=2, **kw).fit(dX, dy)
    ours.set_params(max_iter=3).fit(dX, dy)
    ref = pegasos_rs.PegasosClassifier(max_iter=2, **kw).fit(X, y)
    ref.set_params(max_iter=3).fit(X, y)
    _same_model(ours, ref)
    # partial_fit with classes beyond the data: codes follow the given classes.
    classes = np.array([0, 1, 2, 5])
    ours = pdask.PegasosClassifier(client=client, random_state=1).partial_fit(dX, dy, classes)
    ref = pegasos_rs.PegasosClassifier(random_state=1).partial_fit(X, y, classes)
    ours.partial_fit(dX, dy)
    ref.partial_fit(X, y)
    _same_model(ours, ref)
    with pytest.raises(ValueError, match=r"labels not in classes: \[7\]"):
        ours.partial_fit(dX, da.from_array(np.where(y == 2, 7, y), chunks=100))


def test_partial_fit_refuses_balanced_class_weight(client):
    # As the in-memory estimator: the weights would come from each batch's counts
    # (fit counts all the blocks' labels; PARAMS of the bit-for-bit test).
    X, y = make_problem(n_samples=200, n_features=5, n_classes=3, seed=3)
    dX, dy = _as_dask(X, y, [100, 100], unknown=False)
    est = pdask.PegasosClassifier(client=client, class_weight="balanced", random_state=0)
    with pytest.raises(ValueError, match="class_weight='balanced' is not supported by partial_fit"):
        est.partial_fit(dX, dy, classes=[0, 1, 2])
    assert not hasattr(est, "coef_")


def test_lazy_prediction_equals_in_memory_prediction(client):
    X, y = make_problem(n_samples=500, n_features=10, n_classes=3, seed=6)
    Xs = sp.csr_matrix(X)
    dX, dy = _as_dask(Xs, y, [200, 0, 300], unknown=False)
    est = pdask.PegasosClassifier(client=client, alpha=1e-3, random_state=0).fit(dX, dy)
    local = est.to_local()
    scores = est.decision_function(dX)
    labels = est.predict(dX)
    assert isinstance(scores, da.Array) and isinstance(labels, da.Array)
    np.testing.assert_array_equal(client.compute(scores).result(), local.decision_function(Xs))
    np.testing.assert_array_equal(client.compute(labels).result(), local.predict(Xs))
    assert est.score(dX, dy) == local.score(Xs, y)
    sw = np.linspace(0.5, 2, len(y))
    assert est.score(dX, dy, sample_weight=sw) == pytest.approx(
        local.score(Xs, y, sample_weight=sw)
    )
    # Unknown chunk sizes, and in-memory input.
    np.testing.assert_array_equal(
        client.compute(est.predict(_unknown(dX))).result(), local.predict(Xs)
    )
    np.testing.assert_array_equal(est.predict(X), local.predict(X))
    with pytest.raises(ValueError, match="expecting 10 features"):
        est.predict(da.zeros((4, 3), chunks=2))


def test_to_local_pickles_saves_and_continues(client, tmp_path):
    X, y = make_problem(n_samples=200, n_features=5, seed=3)
    dX, dy = _as_dask(X, y, [120, 80], unknown=False)
    est = pdask.PegasosClassifier(client=client, alpha=1e-2, random_state=0).fit(dX, dy)
    local = est.to_local()
    assert type(local) is pegasos_rs.PegasosClassifier
    assert local.get_params() == in_memory_params(est)
    again = pickle.loads(pickle.dumps(local))
    np.testing.assert_array_equal(again.predict(X), local.predict(X))
    est.save(tmp_path / "m.model")
    np.testing.assert_array_equal(pegasos_rs.load(tmp_path / "m.model").coef_, est.coef_)
    # The dask estimator pickles without its client, and clones with it.
    restored = pickle.loads(pickle.dumps(est))
    assert restored.client is None
    np.testing.assert_array_equal(restored.coef_, est.coef_)
    from sklearn.base import clone

    assert clone(est).client is client
    # The local copy continues the same solver state as the in-memory fit would.
    local.set_params(warm_start=True).fit(X, y)
    ref = pegasos_rs.PegasosClassifier(alpha=1e-2, random_state=0, warm_start=True)
    ref.fit(X, y).fit(X, y)
    _same_model(local, ref)


def _svmlight_files():
    folder = _datasets.data_dir()
    if folder is None:
        return []
    return sorted(str(folder / name) for pair in _datasets.FILES.values() for name in pair if name)


@pytest.mark.parametrize("path", _svmlight_files() or ["absent"])
def test_read_svmlight_equals_load_svmlight_file(client, tmp_path, path):
    if path == "absent":
        pytest.skip("the benchmark data is not available (set PEGASOS_DATA)")
    plain = tmp_path / os.path.basename(path).removesuffix(".xz")
    text = lzma.open(path).read()
    plain.write_bytes(text)
    X_ref, y_ref = pegasos_rs.load_svmlight_file(plain)
    size = plain.stat().st_size
    # The plain file in 7 or more blocks, probed (n_features and zero-based found
    # across the blocks); the compressed file, one block, with both given (found as
    # load_svmlight_file finds them: zero-based when an index 0 is written), so that
    # it is decompressed and parsed once, not also by the probe (which
    # test_read_svmlight_splits_at_line_starts checks on a compressed file).
    given = {"n_features": X_ref.shape[1], "zero_based": re.search(rb"\s0:", text) is not None}
    with client.as_current():
        for source, options in [(plain, {"blocksize": max(4096, size // 7)}), (path, given)]:
            X, y = pdask.read_svmlight(source, **options)
            if source == plain:
                assert X.numblocks[0] >= 7
            X, y = dask.compute(X, y)
            assert X.shape == X_ref.shape and X.dtype == X_ref.dtype
            assert (X != X_ref).nnz == 0
            np.testing.assert_array_equal(X.indptr, X_ref.indptr)
            np.testing.assert_array_equal(y, y_ref)


def test_training_on_read_svmlight_reads_the_files_where_they_are(client, tmp_path):
    X, y = make_problem(n_samples=900, n_features=40, n_classes=3, seed=2)
    paths = []
    for k, part in enumerate(np.array_split(np.arange(900), 3)):
        paths.append(tmp_path / f"part{k}.svm")
        pegasos_rs.dump_svmlight_file(X[part], y[part], paths[-1], zero_based=False)
    X_all = sp.vstack(pegasos_rs.load_svmlight_files(paths, n_features=40)[0::2], format="csr")
    y_all = np.concatenate(pegasos_rs.load_svmlight_files(paths, n_features=40)[1::2])
    kw = {"alpha": 1e-3, "random_state": 9, "max_steps": 3000, "average": True}
    ref = pegasos_rs.PegasosClassifier(**kw).fit(X_all, y_all)
    with client.as_current():
        # Metadata read now (chunk sizes known), or given (nothing read before training).
        for read in [
            {"blocksize": 20_000},
            {"blocksize": 25_000, "n_features": 40, "zero_based": False},
        ]:
            dX, dy = pdask.read_svmlight(str(tmp_path / "part*.svm"), **read)
            for check in (True, False):
                est = pdask.PegasosClassifier(client=client, **kw).fit(dX, dy, check_input=check)
                _same_model(est, ref)
            # Other labels than the files': the rows still come from the files.
            est = pdask.PegasosClassifier(client=client, **kw).fit(dX, dy % 2)
            _same_model(est, pegasos_rs.PegasosClassifier(**kw).fit(X_all, y_all % 2))


def test_read_svmlight_splits_at_line_starts(client, tmp_path):
    text = (
        b"# comment\r\n1 1:0.5 3:2\r\n\r\n-1 qid:3 2:1.5 # tail\n"
        + b"1 "
        + b" ".join(b"%d:%d" % (j, j) for j in range(1, 400))
        + b"\n"
        + b"   \n-1 4:1e-3\n1 2:7"
    )
    path = tmp_path / "edge.svm"
    path.write_bytes(text)
    X_ref, y_ref = pegasos_rs.load_svmlight_file(path)

    def check(source, blocksize):
        X, y = dask.compute(*pdask.read_svmlight(source, blocksize=blocksize))
        assert (X != X_ref).nnz == 0 and X.shape == X_ref.shape
        np.testing.assert_array_equal(y, y_ref)

    # A block at every byte, on the functions read_svmlight's tasks run (a dask graph
    # of thousands of blocks costs seconds to build): the blocks' texts are whole
    # lines, each the line starting at its byte or nothing, and together the file;
    # their rows are the file's.
    specs = _split(str(path), 1, X_ref.shape[1], True, "float64")
    assert len(specs) == len(text)
    texts = [read_range(s) for s in specs]
    assert b"".join(t for t, _ in texts) == text
    lines = io.BytesIO(text).readlines()  # split after each b"\n" only
    starts = np.cumsum([0] + [len(line) for line in lines[:-1]])
    for at, (block, start) in enumerate(texts):
        if at in starts:
            assert (start, block) == (at, lines[list(starts).index(at)])
        else:
            assert block == b""
    parsed = [_parse_block(s) for s in specs]
    X = sp.vstack([X for X, _ in parsed], format="csr")
    assert (X != X_ref).nnz == 0 and X.shape == X_ref.shape
    np.testing.assert_array_equal(np.concatenate([y for _, y in parsed]), y_ref)
    # Blocks of 7 bytes (hundreds, most of them empty) through read_svmlight, in this
    # process by dask's synchronous scheduler: its tasks (probing and parsing each
    # block) read the file and depend on nothing of the worker. The cluster reads
    # 64 and 10,000-byte blocks.
    with dask.config.set(scheduler="synchronous"):
        check(path, 7)
    with client.as_current():
        for blocksize in (64, 10_000):
            check(path, blocksize)
        # A compressed file is one block, probed as a plain one.
        compressed = tmp_path / "edge.svm.xz"
        compressed.write_bytes(lzma.compress(text))
        check(compressed, "64MiB")


def test_bad_inputs_raise_errors_naming_the_file_or_block(client, tmp_path):
    good = tmp_path / "good.svm"
    good.write_bytes(b"1 1:1 2:2\n-1 3:1\n" * 50)
    wide = tmp_path / "wide.svm"
    wide.write_bytes(b"1 1:1 9:2\n-1 3:1\n" * 50)
    with client.as_current():
        # A file with more features than n_features.
        X, y = pdask.read_svmlight([good, wide], n_features=3, zero_based=False, blocksize=200)
        with pytest.raises(ValueError, match=r"wide\.svm.*feature index 9"):
            pdask.PegasosClassifier(client=client).fit(X, y)
        with pytest.raises(ValueError, match="input file contains 9 features"):
            pdask.read_svmlight([good, wide], n_features=3)
        # A file that is not svmlight.
        junk = tmp_path / "junk.svm"
        junk.write_bytes(b"1 1:1\nthis is not svmlight\n")
        with pytest.raises(ValueError, match=r"junk\.svm.*line 2"):
            pdask.read_svmlight(junk)
        X, y = pdask.read_svmlight(junk, n_features=3, zero_based=False)
        with pytest.raises(ValueError, match=r"junk\.svm"):
            pdask.PegasosClassifier(client=client).fit(X, y)
        with pytest.raises(FileNotFoundError, match="nothing-here"):
            pdask.read_svmlight(tmp_path / "nothing-here*.svm")
        # An error in a later block names the line in the whole file.
        late = tmp_path / "late.svm"
        late.write_bytes(b"1 1:1 2:2\n" * 100 + b"1 1:1 2:x\n")
        with pytest.raises(DataFormatError) as e:
            pdask.read_svmlight(late, blocksize=64)
        assert (e.value.file, e.value.line, e.value.column) == (str(late), 101, 9), str(e.value)
    # NaN in a block, and a label type that is not a class.
    X, y = make_problem(n_samples=90, n_features=4, seed=1)
    X[70, 2] = np.nan
    dX, dy = _as_dask(X, y, [30, 30, 30], unknown=False)
    with pytest.raises(ValueError, match=r"block 2: .*NaN"):
        pdask.PegasosClassifier(client=client).fit(dX, dy)
    # check_input=False checks only the rows training reads: here it reads them all.
    with pytest.raises(ValueError, match="NaN"):
        pdask.PegasosClassifier(client=client, max_iter=50).fit(dX, dy, check_input=False)
    dX, _ = _as_dask(np.nan_to_num(X), y, [30, 30, 30], unknown=False)
    with pytest.raises(ValueError, match=r"block \d: Unknown label type"):
        pdask.PegasosClassifier(client=client).fit(dX, da.from_array(y + 0.5, chunks=30))
    with pytest.raises(ValueError, match="X has 90 rows but y has 80"):
        pdask.PegasosClassifier(client=client).fit(dX, np.zeros(80))
    with pytest.raises(ValueError, match="0 sample"):
        pdask.PegasosClassifier(client=client).fit(dX[:0], dy[:0])
    with pytest.raises(ValueError, match="only one class"):
        pdask.PegasosClassifier(client=client).fit(dX, da.zeros(90, chunks=30))


def test_parallel_mode_comes_within_one_percent_of_the_in_memory_objective(client):
    # a9a-sized: 32,561 rows of 123 sparse binary-valued features.
    rng = np.random.RandomState(0)
    n, d = 32_561, 123
    X = sp.random(n, d, density=0.11, format="csr", random_state=rng)
    X.data[:] = 1.0
    w = rng.randn(d)
    y = np.where(X @ w + 0.5 * rng.randn(n) > np.median(X @ w), 1, -1)
    alpha = 1e-4
    dX, dy = _as_dask(X, y, [n // 2, n - n // 2], unknown=False)
    kw = {"alpha": alpha, "average": True, "random_state": 0}
    # 20 passes in memory take 20 n steps; a round of two partitions counts n / 2.
    mixed = pdask.PegasosClassifier(client=client, mode="parallel", max_iter=40, **kw)
    mixed.fit(dX, dy)
    exact = pegasos_rs.PegasosClassifier(max_iter=20, **kw).fit(X, y)
    f_mixed = primal_objective(X, y, mixed.coef_, mixed.intercept_, alpha, 1.0)
    f_exact = primal_objective(X, y, exact.coef_, exact.intercept_, alpha, 1.0)
    assert f_mixed <= 1.01 * f_exact, (f_mixed, f_exact)
    assert abs(mixed.t_ - exact.t_) <= 40 and mixed.n_iter_ == 40
    # With tol the objective is evaluated each round; warm start continues the iterate.
    mixed.set_params(tol=1e-4, n_iter_no_change=2, max_iter=5, warm_start=True).fit(dX, dy)
    assert mixed.objective_ is not None and mixed.n_iter_ <= 5


def test_feature_maps_transform_dask_collections(client):
    X, y = make_problem(n_samples=400, n_features=8, seed=2)
    Xp = np.abs(X)
    dX = da.from_array(X, chunks=(150, 8))
    dXp_csr = _csr_blocks(sp.csr_matrix(Xp), [150, 150, 100])
    with client.as_current():
        for ours, ref, data, local in [
            (
                pdask.RandomFourierFeatures(gamma=0.5, n_components=20, random_state=1),
                pegasos_rs.RandomFourierFeatures(gamma=0.5, n_components=20, random_state=1),
                dX,
                X,
            ),
            (
                pdask.Nystroem(gamma=0.5, n_components=30, random_state=1),
                pegasos_rs.Nystroem(gamma=0.5, n_components=30, random_state=1),
                dX,
                X,
            ),
            (
                pdask.AdditiveKernelMap(order=1),
                pegasos_rs.AdditiveKernelMap(order=1),
                dXp_csr,
                sp.csr_matrix(Xp),
            ),
        ]:
            Z = ours.fit(data).transform(data)
            assert isinstance(Z, da.Array)
            got, want = Z.compute(), ref.fit(local).transform(local)
            if sp.issparse(want):
                got, want = got.toarray(), want.toarray()
            np.testing.assert_array_equal(got, want)
        with pytest.raises(ValueError, match="landmarks='uniform'"):
            pdask.Nystroem(landmarks="k-means++").fit(dX)
        with pytest.raises(ValueError, match="Negative values"):
            pdask.AdditiveKernelMap().fit(dX)
        # The map + linear Pegasos, all on the cluster.
        Z = pdask.Nystroem(gamma=0.5, n_components=60, random_state=0).fit(dX).transform(dX)
        clf = pdask.PegasosClassifier(client=client, random_state=0, average=True)
        assert clf.fit(Z, da.from_array(y, chunks=150)).score(Z, da.from_array(y, chunks=150)) > 0.8


def test_gamma_scale_of_blocks_is_the_in_memory_variance(client):
    """gamma="scale" on a dask array: each block's moments from the Rust core,
    combined in block order (an empty block included), give the in-memory variance
    to rounding, also for a mean large against the spread (the former sum of squares
    minus the squared mean kept about 8 digits here)."""
    rng = np.random.RandomState(6)
    X = 1e4 + rng.randn(300, 5)
    want = pegasos_rs.Nystroem(gamma="scale").fit(X).gamma_
    blocks = (da.from_array(X, chunks=(70, 5)), _csr_blocks(sp.csr_matrix(X), [100, 0, 200]))
    with client.as_current():
        for data in blocks:
            got = pdask.Nystroem(gamma="scale", n_components=8, random_state=0).fit(data)
            assert got.gamma_ == pytest.approx(want, rel=1e-12)


def test_a_worker_killed_mid_fit_costs_nothing_but_time(tmp_path):
    """The blocks of a dead worker are re-read from their source (dask's lineage)
    and the fit resumes where it was: the same bits as an undisturbed fit.

    On a cluster of its own: it kills workers (their nannies start new ones)."""
    X, y = make_problem(n_samples=3000, n_features=30, n_classes=2, seed=3)
    path = tmp_path / "train.svm"
    pegasos_rs.dump_svmlight_file(X, y, path)
    # Two passes of about 15 rounds of 200 rows, each round drawn from most of the
    # file's ~40 blocks: the rounds after the kill need blocks the dead worker held.
    kw = {"alpha": 1e-4, "max_iter": 2, "random_state": 1, "round_bytes": 80_000}
    ref = pegasos_rs.PegasosClassifier(**{k: v for k, v in kw.items() if k != "round_bytes"})
    ref.fit(*pegasos_rs.load_svmlight_file(path, n_features=30))
    with local_cluster(2) as cluster, distributed.Client(cluster, set_as_default=False) as c:
        pids = c.run(os.getpid)
        killed = threading.Event()
        rounds_after = []

        def kill_one(info):
            if killed.is_set():
                rounds_after.append(info["rounds"])
            elif info["steps"] > 0:
                killed.set()
                os.kill(next(iter(pids.values())), signal.SIGKILL)

        with c.as_current():
            dX, dy = pdask.read_svmlight(path, blocksize=10_000, n_features=30)
        est = pdask.PegasosClassifier(client=c, **kw).fit(dX, dy, callback=kill_one)
        assert killed.is_set() and len(rounds_after) >= 5, rounds_after
        _same_model(est, ref)
        # Data with no source to re-read (scattered by the client) cannot come back:
        # the error names the lost partition instead of hanging.
        c.wait_for_workers(2, timeout=60)
        parts = c.scatter([X[:1500], X[1500:]], broadcast=False)
        where = c.who_has(parts)
        victim_addr = next(iter(where[parts[0].key]))
        pids = c.run(os.getpid)
        dX = da.concatenate([da.from_delayed(p, shape=(1500, 30), dtype=X.dtype) for p in parts])
        lost = threading.Event()

        def kill_holder(info):
            if not lost.is_set():
                lost.set()
                os.kill(pids[victim_addr], signal.SIGKILL)

        with pytest.raises(RuntimeError, match=r"block \d .*lost"):
            pdask.PegasosClassifier(client=c, **kw).fit(
                dX, da.from_array(y, chunks=1500), callback=kill_holder
            )


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX-only")
@pytest.mark.parametrize(
    "estimator",
    [
        "pdask.PegasosClassifier(client=c, max_iter=10_000, round_bytes=50_000)",
        # The search's fits (each round steps every candidate of a fold).
        "pdask.PegasosClassifierCV(client=c, alphas=[1e-3, 1e-4], cv=2, max_iter=10_000, "
        "round_bytes=50_000)",
    ],
)
def test_ctrl_c_stops_the_fit_and_leaves_the_cluster_usable(client, estimator):
    code = textwrap.dedent(
        f"""
        import faulthandler, signal, sys
        faulthandler.dump_traceback_later(90, exit=True)  # a hang shows its stack
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import numpy as np, dask.array as da, distributed, pegasos_rs.dask as pdask
        c = distributed.Client({client.scheduler.address!r})
        X = da.random.RandomState(0).random_sample((40_000, 20), chunks=(10_000, 20))
        y = (X[:, 0] > 0.5).astype(int)
        def progress(info):
            print("round", flush=True)
        est = {estimator}
        try:
            est.fit(X, y, callback=progress)
        except KeyboardInterrupt:
            # Nothing half-fitted is left behind.
            print("interrupted", hasattr(est, "n_features_in_"), flush=True)
            c.close()
            sys.exit(0)
        sys.exit(3)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "round"  # training has started
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "interrupted False" in out
    # The cluster still trains.
    X, y = make_problem(n_samples=100, n_features=4, seed=0)
    dX, dy = _as_dask(X, y, [50, 50], unknown=False)
    pdask.PegasosClassifier(client=client, random_state=0).fit(dX, dy)


def test_without_a_client_a_local_cluster_is_started_and_closed():
    assert distributed.client._get_global_client() is None
    X, y = make_problem(n_samples=200, n_features=5, seed=1)
    dX, dy = _as_dask(X, y, [100, 100], unknown=False)
    est = pdask.PegasosClassifier(random_state=0).fit(dX, dy)
    _same_model(est, pegasos_rs.PegasosClassifier(random_state=0).fit(X, y))
    assert distributed.client._get_global_client() is None


def test_command_line_trains_on_a_cluster(client, tmp_path, capsys):
    from pegasos_rs.cli import main

    X, y = make_problem(n_samples=400, n_features=6, seed=2)
    for k, part in enumerate(np.array_split(np.arange(400), 2)):
        pegasos_rs.dump_svmlight_file(X[part], y[part], tmp_path / f"d{k}.svm", zero_based=False)
    model = tmp_path / "m.model"
    addr = client.scheduler.address
    args = [
        "train",
        "--dask",
        addr,
        "-c",
        "1",
        "-B",
        "1",
        "--max-steps",
        "3000",
        str(tmp_path / "d*.svm"),
        str(model),
    ]
    assert main(args) == 0
    # The summary counts the files read, not the arguments (one glob, two files).
    assert "400 examples x 6 features from 2 files" in capsys.readouterr().err
    est = pegasos_rs.load(model)
    ref = pegasos_rs.PegasosClassifier(alpha=1 / 400, max_steps=3000, random_state=0).fit(X, y)
    assert est.coef_.tobytes() == ref.coef_.tobytes()
    with pytest.raises(SystemExit, match=r"--dask with a kernel \(-t\) needs --budget"):
        main(["train", "--dask", addr, "-t", "rbf", str(tmp_path / "d0.svm"), str(model)])


@pytest.mark.filterwarnings("error::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("mode", ["exact", "parallel"])
def test_convergence_warning_as_in_memory(client, mode):
    X, y = make_problem(n_samples=300, n_features=6, n_classes=2, seed=3)
    dX, dy = _as_dask(X, y, [150, 150], unknown=False)
    kw = {"alpha": 1e-3, "max_iter": 2, "tol": 1e-12, "random_state": 0}
    with pytest.warns(ConvergenceWarning, match="tol=1e-12 was not reached within max_iter=2"):
        pdask.PegasosClassifier(client=client, mode=mode, **kw).fit(dX, dy)
    with pytest.warns(ConvergenceWarning, match="tol=1e-12 was not reached"):
        pegasos_rs.PegasosClassifier(**kw).fit(X, y)
