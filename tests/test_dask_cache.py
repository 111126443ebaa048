"""Checked, parsed svmlight blocks kept on the workers between fits (issue 28).

A default (checked) fit on arrays of ``read_svmlight`` parses and checks every
block of the files; a later fit on the same versions of the files parses nothing
(not even the drawn rows) and gives the in-memory model bit for bit; a file
changed on disk between fits is parsed again.

The parses are counted by wrapping ``pegasos_rs.dask._blocks.parse`` (every
parse of svmlight text on a worker: whole blocks and drawn rows) in the worker
processes, so the count does not depend on the code under test.
"""

from __future__ import annotations

import gzip
import logging
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

distributed = pytest.importorskip("distributed")
import dask  # noqa: E402 (installed with distributed)
import pegasos_rs  # noqa: E402
import pegasos_rs.dask as pdask  # noqa: E402
from conftest import make_problem  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

KW = {"alpha": 1e-3, "random_state": 9, "max_steps": 3000, "average": True}


@pytest.fixture(scope="module")
def client():
    # Work stealing may move a task placed on a block's worker (placements are loose,
    # so that a lost worker's blocks can be recomputed elsewhere) to the other
    # worker, which then reads its rows from the text: the model is the same, but
    # the parse counts these tests assert would depend on the scheduler's timing.
    with (
        dask.config.set({"distributed.scheduler.work-stealing": False}),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c


@pytest.fixture(autouse=True)
def fresh(client):
    """Each test starts with no kept block, the default budgets and a parse
    counter on every worker."""

    def reset():
        from pegasos_rs.dask import _blocks, _kept

        _kept.drop()
        _kept._budget = _kept.__dict__.get("_test_budget", _kept._budget)
        _kept._test_budget = _kept._budget
        _kept.DISK_FREE = 0.10
        for k in _kept.COUNTS:
            _kept.COUNTS[k] = 0
        if not hasattr(_blocks, "_test_parsed"):
            original = _blocks.parse

            def counting(text, spec, n_features, start=None):
                _blocks._test_parsed.append(spec.path)
                return original(text, spec, n_features, start)

            _blocks._test_parsed = []
            _blocks.parse = counting
        _blocks._test_parsed.clear()

    client.run(reset)
    yield
    client.run(reset)


def parsed(client) -> list[str]:
    """The files whose text the workers parsed since the last call, once per parse
    (a whole block or a set of drawn rows)."""

    def take():
        from pegasos_rs.dask import _blocks

        out = list(_blocks._test_parsed)
        _blocks._test_parsed.clear()
        return out

    return sorted(p for got in client.run(take).values() for p in got)


def same_model(a, b) -> None:
    np.testing.assert_array_equal(a.classes_, b.classes_)
    assert a.coef_.tobytes() == b.coef_.tobytes()
    assert a.intercept_.tobytes() == b.intercept_.tobytes()
    assert (a.t_, a.n_iter_) == (b.t_, b.n_iter_)


def write_parts(tmp_path, n=1200, compressed=False):
    """Three svmlight files of one 3-class problem (the last gzipped when
    ``compressed``) and the problem in memory."""
    X, y = make_problem(n_samples=n, n_features=40, n_classes=3, seed=2)
    paths = []
    for k, part in enumerate(np.array_split(np.arange(n), 3)):
        path = tmp_path / f"part{k}.svm"
        pegasos_rs.dump_svmlight_file(X[part], y[part], path, zero_based=False)
        if compressed and k == 2:
            gz = tmp_path / f"part{k}.svm.gz"
            gz.write_bytes(gzip.compress(path.read_bytes()))
            path.unlink()
            path = gz
        paths.append(str(path))
    return paths


def load(paths):
    parts = pegasos_rs.load_svmlight_files(paths, n_features=40, zero_based=False)
    return sp.vstack(parts[0::2], format="csr"), np.concatenate(parts[1::2])


def read(client, paths, blocksize=4000):
    with client.as_current():
        return pdask.read_svmlight(paths, n_features=40, zero_based=False, blocksize=blocksize)


def n_blocks(paths, blocksize=4000) -> int:
    return sum(1 if p.endswith(".gz") else -(-os.path.getsize(p) // blocksize) for p in paths)


def test_a_second_fit_parses_nothing_and_gives_the_in_memory_model(client, tmp_path):
    paths = write_parts(tmp_path, compressed=True)
    X, y = load(paths)
    dX, dy = read(client, paths)
    first = pdask.PegasosClassifier(client=client, **KW).fit(dX, dy)
    same_model(first, pegasos_rs.PegasosClassifier(**KW).fit(X, y))
    # The check parsed every block once (and the drawn rows came from the kept ones).
    assert parsed(client) == sorted(p for p in paths for _ in range(n_blocks([p]))), (
        "each block is parsed once by the checked fit"
    )
    info = pdask.block_cache_info(client)
    assert sum(w["blocks"] for w in info.values()) == n_blocks(paths)
    assert sum(w["block_parses"] for w in info.values()) == n_blocks(paths)
    # Later fits on the same files: other estimators, another alpha, tol (the
    # objective reads every row), partial_fit, parallel mode, a regressor.
    second = pdask.PegasosClassifier(client=client, **KW).fit(dX, dy)
    same_model(second, first)
    other = {**KW, "alpha": 1e-2, "tol": 1e-3, "max_steps": None, "max_iter": 3}
    grid = pdask.PegasosClassifier(client=client, **other).fit(dX, dy)
    same_model(grid, pegasos_rs.PegasosClassifier(**other).fit(X, y))
    stepped = pdask.PegasosClassifier(client=client, **KW).partial_fit(dX, dy, classes=[0, 1, 2])
    same_model(stepped, pegasos_rs.PegasosClassifier(**KW).partial_fit(X, y, classes=[0, 1, 2]))
    pdask.PegasosClassifier(client=client, mode="parallel", max_iter=2, alpha=1e-3).fit(dX, dy)
    reg = {"alpha": 1e-3, "random_state": 1, "max_iter": 2, "loss": "squared_error"}
    fitted = pdask.PegasosRegressor(client=client, **reg).fit(dX, dy)
    want = pegasos_rs.PegasosRegressor(**reg).fit(X, y)
    assert fitted.coef_.tobytes() == want.coef_.tobytes()
    assert parsed(client) == []
    info = pdask.block_cache_info(client)
    assert sum(w["block_parses"] + w["row_parses"] for w in info.values()) == n_blocks(paths)
    assert sum(w["indexes"] for w in info.values()) == n_blocks(paths) - 1  # not the .gz
    # Dropped: the next fit parses and checks again.
    pdask.drop_block_cache(client)
    assert sum(w["blocks"] for w in pdask.block_cache_info(client).values()) == 0
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), first)
    assert len(parsed(client)) == n_blocks(paths)


def test_a_file_changed_between_fits_is_parsed_again(client, tmp_path):
    paths = write_parts(tmp_path)
    dX, dy = read(client, paths)
    pdask.PegasosClassifier(client=client, **KW).fit(dX, dy)
    parsed(client)
    # The same bytes in another order: same size and inode, another mtime.
    changed = paths[1]
    stat = os.stat(changed)
    lines = Path(changed).read_bytes().splitlines(keepends=True)
    with open(changed, "r+b") as f:  # rewritten in place: the inode stays
        f.write(b"".join(lines[::-1]))
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert os.stat(changed).st_size == stat.st_size
    assert os.stat(changed).st_ino == stat.st_ino
    X, y = load(paths)
    est = pdask.PegasosClassifier(client=client, **KW).fit(dX, dy)
    assert parsed(client) == [changed] * n_blocks([changed])
    same_model(est, pegasos_rs.PegasosClassifier(**KW).fit(X, y))
    # The new version is kept in its turn.
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), est)
    assert parsed(client) == []


def test_check_input_false_keeps_the_index_and_a_check_still_parses(client, tmp_path):
    paths = write_parts(tmp_path)
    X, y = load(paths)
    want = pegasos_rs.PegasosClassifier(**KW).fit(X, y)
    dX, dy = read(client, paths)
    # Unchecked: nothing but the drawn rows is parsed, as before.
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy, check_input=False), want)
    rows_read = parsed(client)
    assert 0 < len(rows_read)
    # The index was kept, but not a check: a checked fit parses every block.
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), want)
    assert len(parsed(client)) == n_blocks(paths)
    # Then an unchecked fit draws its rows from the kept blocks.
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy, check_input=False), want)
    assert parsed(client) == []


def test_a_file_that_fails_the_check_fails_every_fit(client, tmp_path):
    paths = write_parts(tmp_path)
    with open(paths[2], "ab") as f:
        f.write(b"1 3:nan\n")
    dX, dy = read(client, paths)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"part2\.svm"):
            pdask.PegasosClassifier(client=client, **KW).fit(dX, dy)


def counts(client) -> dict:
    """The workers' counts of block parses, indexes and row parses, summed."""
    info = pdask.block_cache_info(client).values()
    return {k: sum(w[k] for w in info) for k in ("block_parses", "indexes", "row_parses")}


def test_blocks_over_the_memory_budget_spill_to_disk_or_keep_only_the_index(client, tmp_path):
    paths = write_parts(tmp_path, n=3000)
    X, y = load(paths)
    want = pegasos_rs.PegasosClassifier(**KW).fit(X, y)
    dX, dy = read(client, paths, blocksize=20_000)
    blocks = n_blocks(paths, 20_000)

    def budget(n_bytes, disk_free=0.10):
        def set_budget():
            from pegasos_rs.dask import _kept

            _kept._budget = lambda worker: n_bytes
            _kept.DISK_FREE = disk_free

        client.run(set_budget)

    def kept_files(dask_worker):
        root = os.path.join(dask_worker.local_directory, "pegasos-rs-kept")
        return len(os.listdir(root)) if os.path.isdir(root) else 0

    # Room for the indexes (16 bytes a row) only: the parsed blocks go to disk.
    budget(60_000)
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), want)
    assert len(parsed(client)) == blocks
    info = pdask.block_cache_info(client)
    assert sum(w["blocks"] for w in info.values()) == blocks
    assert sum(w["disk_bytes"] for w in info.values()) > 0
    assert all(w["memory_bytes"] <= 60_000 for w in info.values())
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), want)
    assert parsed(client) == []
    assert sum(client.run(kept_files).values()) > 0
    pdask.drop_block_cache(client)
    assert sum(client.run(kept_files).values()) == 0
    # No room on disk either: the indexes are kept, so the next fit checks and
    # indexes nothing, but parses its drawn rows from the text.
    budget(60_000, disk_free=1.0)
    start = counts(client)
    pdask.PegasosClassifier(client=client, **KW).fit(dX, dy)
    before = counts(client)
    assert before["block_parses"] - start["block_parses"] == blocks
    assert before["indexes"] - start["indexes"] == blocks
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), want)
    after = counts(client)
    assert (after["block_parses"], after["indexes"]) == (
        before["block_parses"],
        before["indexes"],
    )
    assert after["row_parses"] > before["row_parses"]
    assert sum(w["disk_bytes"] for w in pdask.block_cache_info(client).values()) == 0
    # Not even room for all indexes: the least recently used go, fits stay right.
    pdask.drop_block_cache(client)
    budget(5_000)
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), want)
    info = pdask.block_cache_info(client)
    assert all(w["memory_bytes"] <= 5_000 for w in info.values())
    assert 0 < sum(w["blocks"] for w in info.values()) < blocks


def test_rows_taken_from_kept_arrays_are_scipys_rows(tmp_path):
    """The kept arrays, in memory or memory-mapped, give the rows scipy's indexing
    gives, empty rows and an empty selection included."""
    from pegasos_rs.dask import _kept

    X = sp.random(300, 50, density=0.05, format="csr", random_state=np.random.RandomState(3))
    assert (np.diff(X.indptr) == 0).any()
    for p, a in zip(("data", "indices", "indptr"), (X.data, X.indices, X.indptr), strict=True):
        _kept.publish(str(tmp_path / f"x.{p}.npy"), a)
    mapped = [
        np.load(tmp_path / f"x.{p}.npy", mmap_mode="r") for p in ("data", "indices", "indptr")
    ]
    rng = np.random.RandomState(0)
    for ids in (np.arange(0), np.array([5]), np.unique(rng.randint(0, 300, 120)), np.arange(300)):
        want = X[ids]
        for arrays in ((X.data, X.indices, X.indptr), mapped):
            got = _kept.take_rows(*arrays, ids, 50)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got.indptr, want.indptr)
            np.testing.assert_array_equal(got.indices, want.indices)
            assert got.data.tobytes() == want.data.tobytes()
