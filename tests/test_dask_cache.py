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

import collections
import gzip
import os
import threading
import types
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

distributed = pytest.importorskip("distributed")
import pegasos_rs  # noqa: E402
import pegasos_rs.dask as pdask  # noqa: E402
from conftest import make_problem  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

KW = {"alpha": 1e-3, "random_state": 9, "max_steps": 3000, "average": True}


async def _work_stealing(on: bool, dask_scheduler) -> None:
    """On the scheduler: start or stop moving queued tasks between workers."""
    stealing = dask_scheduler.extensions["stealing"]
    await (stealing.start() if on else stealing.stop())


@pytest.fixture(scope="module")
def cluster_client(dask_client):
    """The shared cluster, without work stealing while this module's tests run.

    Work stealing may move a task placed on a block's worker (placements are loose,
    so that a lost worker's blocks can be recomputed elsewhere) to the other
    worker, which then reads its rows from the text: the model is the same, but
    the parse counts these tests assert would depend on the scheduler's timing."""
    dask_client.run_on_scheduler(_work_stealing, False)
    yield dask_client
    dask_client.run(_leave_worker)
    dask_client.run_on_scheduler(_work_stealing, True)


def _reset_worker():
    """On a worker: no kept block, the default budgets and settings, numpy's own
    ``save``, and a parse counter."""
    from pegasos_rs.dask import _blocks, _kept

    _kept.drop()
    _kept._budget = _kept.__dict__.get("_test_budget", _kept._budget)
    _kept._test_budget = _kept._budget
    _kept.DISK_FREE = 0.10
    _kept._SETTINGS["disk_bytes"] = _kept.DISK_BYTES
    _kept._ERRORS.update(count=0, untold=[])
    np.save = np.__dict__.get("_test_save", np.save)
    np._test_save = np.save
    for k in _kept.COUNTS:
        _kept.COUNTS[k] = 0
    if not hasattr(_blocks, "_test_parsed"):
        original = _blocks.parse

        def counting(text, spec, n_features, start=None):
            _blocks._test_parsed.append(spec.path)
            return original(text, spec, n_features, start)

        _blocks._test_parsed = []
        _blocks._test_parse = original
        _rebind_parse(original, counting)
    _blocks._test_parsed.clear()


def _rebind_parse(old, new) -> None:
    """On a worker: ``parse`` is ``new`` wherever a pegasos_rs module had ``old``
    (``_blocks``, and ``_svmlight`` which imports it by name when loaded already)."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.startswith("pegasos_rs") and module is not None:
            if module.__dict__.get("parse") is old:
                module.parse = new


def _leave_worker():
    """On a worker: :func:`_reset_worker`, then the parser without its counter and no
    trace of these tests, for the other tests on the shared cluster."""
    from pegasos_rs.dask import _blocks, _kept

    _reset_worker()
    _rebind_parse(_blocks.parse, _blocks._test_parse)
    del _blocks._test_parse, _blocks._test_parsed, _kept._test_budget, np._test_save


@pytest.fixture
def client(cluster_client):
    """The cluster, each test starting with fresh workers (:func:`_reset_worker`)
    and no disk limit set from this process."""
    from pegasos_rs.dask import _kept

    cluster_client.run(_reset_worker)
    _kept._LIMITS.clear()
    yield cluster_client
    cluster_client.run(_reset_worker)
    _kept._LIMITS.clear()


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


def read(client, paths, blocksize=40_000):
    with client.as_current():
        return pdask.read_svmlight(paths, n_features=40, zero_based=False, blocksize=blocksize)


def n_blocks(paths, blocksize=40_000) -> int:
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


def test_a_file_rewritten_in_place_with_its_mtime_restored_is_parsed_again(client, tmp_path):
    """``rsync --inplace -t`` or ``touch -r``: the same size, inode and modification
    time, other bytes (issue 36: the old rows were served from the cache)."""
    paths = write_parts(tmp_path)
    dX, dy = read(client, paths)
    pdask.PegasosClassifier(client=client, **KW).fit(dX, dy)
    parsed(client)
    # The same bytes in another order, the modification time set back.
    changed = paths[1]
    stat = os.stat(changed)
    lines = Path(changed).read_bytes().splitlines(keepends=True)
    with open(changed, "r+b") as f:  # rewritten in place: the inode stays
        f.write(b"".join(lines[::-1]))
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    now = os.stat(changed)
    assert (now.st_size, now.st_ino, now.st_mtime_ns) == (
        stat.st_size,
        stat.st_ino,
        stat.st_mtime_ns,
    )
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
    dX, dy = read(client, paths, blocksize=100_000)
    blocks = n_blocks(paths, 100_000)

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
    # A disk limit of 0 (limit_block_cache) removes the spilled blocks now; a worker
    # that forgot it (restarted) is told again by the next fit, which reads its
    # drawn rows from the text.
    pdask.limit_block_cache(0, client)
    assert sum(client.run(kept_files).values()) == 0
    info = pdask.block_cache_info(client)
    assert all(w["disk_budget"] == 0 and w["disk_bytes"] == 0 for w in info.values())

    def forget():
        from pegasos_rs.dask import _kept

        _kept._SETTINGS["disk_bytes"] = _kept.DISK_BYTES

    client.run(forget)
    start = counts(client)
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), want)
    assert counts(client)["block_parses"] == start["block_parses"]
    assert counts(client)["row_parses"] > start["row_parses"]
    assert all(w["disk_budget"] == 0 for w in pdask.block_cache_info(client).values())
    assert sum(client.run(kept_files).values()) == 0
    pdask.limit_block_cache("10GiB", client)
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


def test_parallel_mode_parses_each_block_once_and_keeps_it(client, tmp_path):
    """Unchecked, on read_svmlight arrays: the first round parses each block and
    the worker keeps it (the same cache as a check's); later rounds and the next
    fit parse nothing. The model is that of the same partitions held in memory."""
    X, y = make_problem(n_samples=1200, n_features=20, n_classes=3, seed=7)
    path = tmp_path / "train.svm"
    pegasos_rs.dump_svmlight_file(X, y, path)
    with client.as_current():
        dX, dy = pdask.read_svmlight(path, blocksize=100_000)
    blocks = dX.numblocks[0]
    assert blocks > 2
    kw = {"alpha": 1e-3, "max_iter": 4, "average": True, "random_state": 2, "tol": 0.0}
    during = []
    from_files = pdask.PegasosClassifier(client=client, mode="parallel", **kw).fit(
        dX, dy, check_input=False, callback=lambda info: during.append(parsed(client))
    )
    assert during[0] == [str(path)] * blocks
    assert all(p == [] for p in during[1:])
    again = pdask.PegasosClassifier(client=client, mode="parallel", **kw)
    same_model(again.fit(dX, dy, check_input=False), from_files)
    assert parsed(client) == []
    # The same partitions in memory: another dask array, not read_svmlight's.
    in_memory = dX.map_blocks(sp.csr_matrix.copy, dtype=dX.dtype, meta=dX._meta)
    expected = pdask.PegasosClassifier(client=client, mode="parallel", **kw).fit(in_memory, dy)
    same_model(from_files, expected)


def test_a_full_disk_falls_back_to_parsing_and_warns_once(client, tmp_path):
    """Every write of the cache fails with ENOSPC (issue 36: the parallel mode's
    fit failed with the OSError): the fits parse the text instead, give the models
    they give with a working disk, and the first fit warns once, naming the error."""
    paths = write_parts(tmp_path)
    X, y = load(paths)
    dX, dy = read(client, paths, blocksize=40_000)

    def full_disk():
        from pegasos_rs.dask import _kept

        _kept._budget = lambda worker: 60_000  # room for the indexes only: spill

        def save(*args, **kwargs):
            raise OSError(28, "No space left on device")

        np.save = save

    client.run(full_disk)
    kw = {"alpha": 1e-3, "max_iter": 3, "average": True, "random_state": 2}
    with pytest.warns(RuntimeWarning) as caught:
        mixed = pdask.PegasosClassifier(client=client, mode="parallel", **kw).fit(
            dX, dy, check_input=False
        )
    assert len(caught) == 1
    assert "No space left on device" in str(caught[0].message)
    info = pdask.block_cache_info(client)
    assert sum(w["errors"] for w in info.values()) > 0
    assert sum(w["disk_bytes"] for w in info.values()) == 0
    # Said once: the next fit, whose spills fail too, does not warn again.
    want = pegasos_rs.PegasosClassifier(**KW).fit(X, y)
    same_model(pdask.PegasosClassifier(client=client, **KW).fit(dX, dy), want)
    # With a working disk, the same parallel fit.
    client.run(_reset_worker)
    again = pdask.PegasosClassifier(client=client, mode="parallel", **kw)
    same_model(again.fit(dX, dy, check_input=False), mixed)


# The cache's functions in this process, on a stand-in for a worker.


class FakeWorker:
    """What the cache reads of a worker: its local directory, memory limit and
    address."""

    def __init__(self, folder, memory_limit=None, address="tcp://127.0.0.1:1"):
        self.local_directory = str(folder)
        self.memory_manager = types.SimpleNamespace(memory_limit=memory_limit)
        self.address = address


@pytest.fixture
def on_worker(tmp_path, monkeypatch):
    """The cache in this process as on a worker with its local directory under
    ``tmp_path``, nothing kept, the default settings."""
    from pegasos_rs.dask import _kept

    worker = FakeWorker(tmp_path / "worker")
    os.makedirs(worker.local_directory)
    monkeypatch.setattr(_kept, "_worker", lambda: worker)
    monkeypatch.setattr(_kept, "_ENTRIES", OrderedDict())
    monkeypatch.setattr(_kept, "_SETTINGS", {"machine_workers": None, "disk_bytes": 10 << 30})
    monkeypatch.setattr(_kept, "_ERRORS", {"count": 0, "untold": []})
    return worker


def block(n_rows: int, seed: int):
    """What ``keep`` takes of a block of ``n_rows`` rows: index (starts, labels,
    end) and parsed matrix."""
    X = sp.random(n_rows, 50, density=0.2, format="csr", random_state=np.random.RandomState(seed))
    starts = np.arange(n_rows, dtype=np.uint64) * 100
    return starts, np.ones(n_rows), n_rows * 100, X


def spilled(worker) -> list[str]:
    """The files in the worker's folder of spilled blocks."""
    folder = Path(worker.local_directory) / "pegasos-rs-kept"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def same_arrays(got, X) -> bool:
    return got is not None and all(
        np.array_equal(a, b) for a, b in zip(got, (X.data, X.indices, X.indptr), strict=True)
    )


def test_version_sees_a_rewrite_that_keeps_size_mtime_and_ctime(tmp_path, monkeypatch):
    """Within one tick of a coarse change time a rewrite keeps even ``st_ctime_ns``:
    the fingerprint of the block's bytes still tells the versions apart, and only
    those of the block itself count."""
    from pegasos_rs.dask import _blocks, _kept

    path = tmp_path / "data.svm"
    rng = np.random.RandomState(0)
    text = b"".join(b"%d 1:%.6f 2:%.6f\n" % (i % 2, *rng.rand(2)) for i in range(20_000))
    path.write_bytes(text)
    spec = _blocks.SvmlightSpec(str(path), 200_000, 200_000, 2, True, "float64")
    before = _kept.version(spec)
    assert before == _kept.version(spec)
    frozen = os.stat(path)
    monkeypatch.setattr(_kept.os, "fstat", lambda fd: frozen)
    # The block's first and last byte, the byte before it (its first line's start)
    # and one after it (in its last line).
    for at in (200_000, 399_999, 199_999, 400_001):
        with open(path, "r+b") as f:
            f.seek(at)
            f.write(b"7" if text[at : at + 1] != b"7" else b"8")
        assert _kept.version(spec) != before, at
        path.write_bytes(text)
        assert _kept.version(spec) == before
    with open(path, "r+b") as f:  # another block's bytes
        f.write(b"1" if text[:1] != b"1" else b"0")
    assert _kept.version(spec) == before


def test_with_no_memory_limit_a_worker_takes_its_share_of_the_machine(on_worker):
    """Eight workers of one machine without a memory limit keep a quarter of the
    machine's memory together, not a quarter each (issue 36); a worker not told yet
    how many share its machine keeps nothing in memory."""
    from distributed.system import MEMORY_LIMIT
    from pegasos_rs.dask import _kept

    addresses = [f"tcp://10.0.0.1:{port}" for port in range(8000, 8008)] + ["tcp://10.0.0.2:8000"]
    sharing = _kept.machine_workers(addresses)
    assert sharing == {**dict.fromkeys(addresses[:8], 8), addresses[8]: 1}
    assert _kept._budget(on_worker) == 0
    on_worker.address = addresses[3]
    _kept.survey(sharing, None, dask_worker=on_worker)
    assert _kept._budget(on_worker) == int(MEMORY_LIMIT * 0.25 / 8)
    on_worker.address = addresses[8]
    _kept.survey(sharing, None, dask_worker=on_worker)
    assert _kept._budget(on_worker) == int(MEMORY_LIMIT * 0.25)
    on_worker.memory_manager.memory_limit = 4 << 30  # dask's limit, when there is one
    assert _kept._budget(on_worker) == 1 << 30


def test_spilled_blocks_stay_within_the_disk_limit_least_recently_used_out(on_worker, monkeypatch):
    from pegasos_rs.dask import _kept

    blocks = {k: block(200, seed) for seed, k in enumerate("abcd")}
    index = sum(s.nbytes + y.nbytes for s, y, _, _ in blocks.values())
    each = max(sum(a.nbytes for a in (X.data, X.indices, X.indptr)) for *_, X in blocks.values())
    monkeypatch.setattr(_kept, "_budget", lambda worker: index)  # the parsed arrays spill
    _kept.survey({}, int(2.5 * each), dask_worker=on_worker)

    def keep(k):
        starts, labels, end, X = blocks[k]
        _kept.keep(k, (k,), starts, labels, end, True, X)

    for k in "abc":
        keep(k)
    assert _kept.arrays("a", ("a",)) is None  # the least recently used went
    assert same_arrays(_kept.arrays("c", ("c",)), blocks["c"][3])
    assert same_arrays(_kept.arrays("b", ("b",)), blocks["b"][3])  # b used after c
    keep("d")
    assert _kept.arrays("c", ("c",)) is None
    for k in "bd":
        assert same_arrays(_kept.arrays(k, (k,)), blocks[k][3])
    assert len(spilled(on_worker)) == 6  # b's and d's three arrays
    got = _kept.info()
    assert got["blocks"] == 4 and got["disk_bytes"] <= 2.5 * each  # a, c: their index
    # A lower limit (limit_block_cache) removes the least recently used now.
    _kept._limit(each)
    assert _kept.arrays("b", ("b",)) is None
    assert same_arrays(_kept.arrays("d", ("d",)), blocks["d"][3])
    assert len(spilled(on_worker)) == 3


def test_spilled_blocks_give_way_when_the_disk_fills(on_worker, monkeypatch):
    """Dask (or anything) filling the disk below the free share: the next spill
    first removes the least recently used spilled blocks (issue 36: they stayed,
    and only new ones were refused)."""
    from pegasos_rs.dask import _kept

    blocks = {k: block(200, seed) for seed, k in enumerate("abcd")}
    each = max(sum(a.nbytes for a in (X.data, X.indices, X.indptr)) for *_, X in blocks.values())
    monkeypatch.setattr(_kept, "_budget", lambda worker: 20_000)  # the parsed arrays spill
    total = 1000 * each
    disk = {"free": total}
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(
        _kept.shutil, "disk_usage", lambda path: usage(total, total - disk["free"], disk["free"])
    )

    def keep(k):
        starts, labels, end, X = blocks[k]
        _kept.keep(k, (k,), starts, labels, end, True, X)

    for k in "ab":
        keep(k)
    assert len(spilled(on_worker)) == 6
    disk["free"] = int(0.1 * total) + each // 2  # c fits once a is gone
    keep("c")
    assert _kept.arrays("a", ("a",)) is None
    for k in "bc":
        assert same_arrays(_kept.arrays(k, (k,)), blocks[k][3])
    assert len(spilled(on_worker)) == 6
    disk["free"] = 0  # nothing fits: every spilled block gives way
    keep("d")
    assert spilled(on_worker) == []
    assert _kept.info()["blocks"] == 4 and _kept.info()["disk_bytes"] == 0


def test_concurrent_keeps_of_a_block_leave_a_valid_entry(on_worker, monkeypatch):
    """Two tasks keep the same block at once, the first one's spill still being
    written when the second's is done (issue 36: both wrote the same names, and
    the first removed the files of the live entry). The entry's arrays load, and
    only its files stay."""
    from pegasos_rs.dask import _kept

    starts, labels, end, X = block(300, 1)
    monkeypatch.setattr(_kept, "_budget", lambda worker: starts.nbytes + labels.nbytes)
    writing, go = threading.Event(), threading.Event()
    first: list[int] = []
    publish = _kept.publish

    def paused(path, a):
        if threading.get_ident() in first and not writing.is_set():
            writing.set()
            assert go.wait(60)
        publish(path, a)

    monkeypatch.setattr(_kept, "publish", paused)
    failures = []

    def keep_first():
        first.append(threading.get_ident())
        try:
            _kept.keep("k", ("v",), starts, labels, end, True, X)
        except BaseException as e:
            failures.append(e)
            writing.set()

    t = threading.Thread(target=keep_first)
    t.start()
    assert writing.wait(60)
    _kept.keep("k", ("v",), starts, labels, end, True, X)
    go.set()
    t.join()
    assert failures == []
    assert same_arrays(_kept.arrays("k", ("v",)), X)
    assert len(spilled(on_worker)) == 3  # the entry's, no other, no temporary file
    assert _kept.info()["disk_bytes"] == sum(a.nbytes for a in (X.data, X.indices, X.indptr))


def test_a_failed_spill_keeps_the_index_leaves_no_file_and_is_reported_once(on_worker, monkeypatch):
    from pegasos_rs.dask import _kept

    save = np.save

    def disk_full(f, a):
        save(f, a[: a.size // 2])  # half written, then the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "save", disk_full)
    monkeypatch.setattr(_kept, "_budget", lambda worker: 20_000)
    for k in "ab":
        starts, labels, end, X = block(200, 3)
        _kept.keep(k, (k,), starts, labels, end, True, X)
        assert _kept.arrays(k, (k,)) is None
        assert _kept.lookup(k, (k,), True) is not None  # the index, checked
    assert spilled(on_worker) == []
    told = _kept.news()
    assert len(told) == 1 and "No space left on device" in told[0]
    assert _kept.news() == []
    assert _kept.info()["errors"] == 2
    # A spilled block that cannot be read: dropped from the disk, reported.
    monkeypatch.setattr(np, "save", save)
    _kept._ERRORS.update(count=0, untold=[])
    starts, labels, end, X = block(200, 4)
    _kept.keep("c", ("c",), starts, labels, end, True, X)
    assert len(spilled(on_worker)) == 3
    folder = Path(on_worker.local_directory) / "pegasos-rs-kept"
    next(folder.glob("*.indptr.npy")).write_bytes(b"not an array")
    assert _kept.arrays("c", ("c",)) is None
    assert spilled(on_worker) == []
    assert "reading the kept block" in _kept.news()[0]


def test_limit_block_cache_refuses_bad_sizes():
    for bad, error in ((-1, ValueError), ("lots", ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="disk_bytes"):
            pdask.limit_block_cache(bad)
    with pytest.raises(ValueError, match="client="):
        pdask.limit_block_cache("1GiB")
