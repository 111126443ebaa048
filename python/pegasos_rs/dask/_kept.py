"""The parsed svmlight blocks a worker keeps from one use to the next: the one
block cache of :mod:`pegasos_rs.dask` (issues 28 and 36).

A worker that indexes or parses a block of the arrays of
:func:`pegasos_rs.dask.read_svmlight` keeps what it learnt, in the worker process,
keyed by the block (path, byte range, ``n_features``, ``zero_based``, ``dtype``) and
the version of its bytes (:func:`version`):

* the index, 16 bytes a row, and whether the block was checked (parsed whole);
* the parsed CSR arrays of a block parsed whole (a checked fit's check, a
  parallel-mode round, the objective's pass over the rows): in the worker's memory
  while all kept blocks of the worker take at most :data:`MEMORY_FRACTION` of its
  memory limit (with no limit, of the machine's memory divided among the machine's
  workers), else spilled to its local disk, ``<local_directory>/pegasos-rs-kept/``
  (memory-mapped on use), while the spilled blocks take at most the disk limit
  (:data:`DISK_BYTES` unless :func:`limit_block_cache` says otherwise) and the disk
  keeps :data:`DISK_FREE` of its space free, else not kept (the rows are then read
  from the text).

A later use of the same version of a block (another fit, ``partial_fit``, a round,
a grid of ``alpha``) neither parses nor indexes it: its tasks go to the worker that
keeps it (:func:`prepare`), the checks already passed, the rows come from the kept
arrays. Another version is parsed again and its old entry dropped. What does not fit
pushes out the least recently used: an index that does not fit the memory budget
first spills the parsed arrays of older blocks, then drops older entries; a spill
that does not fit the disk limit, or would leave less than :data:`DISK_FREE` of the
disk free (dask spilling its own data there, say), first removes the spilled arrays
of older blocks. Each spill is written under a name of its own, each file renamed
into place complete (:func:`publish`), so writers of the same block never touch each
other's files.

Any error of the cache itself (an ``OSError`` writing or reading a spilled block, a
full disk) costs time only: the block is read from the text instead, as if it had
not been kept, and the worker reports its first such error once, which the fit turns
into a warning on the client (:func:`news`, :func:`warn_news`).

The entries go with the worker (its local directory is removed when it closes);
:func:`drop_block_cache` drops them before. :data:`COUNTS` counts the parses a
worker did, for tests and :func:`block_cache_info`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
import uuid
import warnings
from collections import Counter, OrderedDict
from dataclasses import dataclass

import numpy as np

#: Share of a worker's memory limit its kept blocks (indexes and parsed arrays)
#: may take; with no limit, share of the machine's memory divided by the number
#: of workers on the machine.
MEMORY_FRACTION = 0.25
#: Share of the local disk that spilled blocks leave free.
DISK_FREE = 0.10
#: The most bytes of spilled blocks a worker keeps on its disk, unless
#: :func:`limit_block_cache` sets another limit.
DISK_BYTES = 10 << 30
#: Folder of the spilled blocks, in the worker's local directory.
FOLDER = "pegasos-rs-kept"
_PARTS = ("data", "indices", "indptr")
#: The fingerprint of a block (:func:`version`): all of its bytes up to
#: ``_PAGES * _PAGE``, else ``_PAGES`` pages spread evenly over it.
_PAGE = 4096
_PAGES = 16

#: Work a worker did on blocks of svmlight files: whole blocks parsed (checks,
#: compressed files, whole-matrix reads), blocks indexed, row sets parsed from the
#: text (exact mode's draws when no parsed block is kept).
COUNTS = {"block_parses": 0, "indexes": 0, "row_parses": 0}


@dataclass
class Entry:
    """What a worker keeps of one version of one block."""

    version: tuple
    starts: np.ndarray | None  #: None for a compressed file (a whole-file block)
    labels: np.ndarray
    end: int
    checked: bool
    #: The parsed CSR arrays, in memory...
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    #: ... or on disk, ``f"{base}.{part}.npy"`` (None while being written).
    base: str | None = None
    memory: int = 0
    #: Bytes on disk, or reserved for a spill being written.
    disk: int = 0


_LOCK = threading.Lock()
#: Block identity -> entry, least recently used first.
_ENTRIES: OrderedDict[str, Entry] = OrderedDict()
#: This worker's settings, from the client (:func:`prepare`, :func:`limit_block_cache`):
#: the workers on its machine (None: not told yet) and the disk limit.
_SETTINGS: dict = {"machine_workers": None, "disk_bytes": DISK_BYTES}
#: Errors of the cache on this worker: how many, and the first one until the
#: client was told (:func:`news`).
_ERRORS: dict = {"count": 0, "untold": []}
#: In the client's process: the disk limit set for a cluster (scheduler address ->
#: bytes), sent to its workers before every fit.
_LIMITS: dict[str, int] = {}


def count(what: str, n: int = 1) -> None:
    with _LOCK:
        COUNTS[what] += n


def ident(spec, n_features: int) -> str:
    """A block's identity: its byte range of its file and the reading options."""
    return (
        f"{spec.path}|{spec.offset}|{spec.length}|{n_features}|{bool(spec.one_based)}|{spec.dtype}"
    )


def version(spec) -> tuple:
    """The version of the bytes of block ``spec``: what a rewrite changes and a user
    cannot set back. The file's size, modification time, inode and device (which
    ``touch -r`` or ``rsync --inplace -t`` keep or restore), its change time
    (``st_ctime_ns``: any write or ``utime`` sets it to the clock), and a
    fingerprint of the block's bytes for a rewrite within one tick of a coarse
    change time: a hash of the block's bytes (from the byte before it, where its
    first line starts) and of the page after it (where its last line ends), all of
    them up to 64 KiB, else 16 pages of 4 KiB spread over the block, its first and
    last included, and the page after it."""
    fd = os.open(spec.path, os.O_RDONLY)
    try:
        st = os.fstat(fd)
        lo = min(max(0, spec.offset - 1), st.st_size)
        hi = st.st_size if spec.length < 0 else max(lo, min(spec.offset + spec.length, st.st_size))
        tail = min(hi + _PAGE, st.st_size)
        h = hashlib.blake2b(digest_size=16)
        if tail - lo <= _PAGES * _PAGE:
            h.update(os.pread(fd, tail - lo, lo))
        else:
            step = max(0, hi - lo - _PAGE) / (_PAGES - 1)
            for i in range(_PAGES):
                h.update(os.pread(fd, _PAGE, lo + round(i * step)))
            h.update(os.pread(fd, tail - hi, hi))
    finally:
        os.close(fd)
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, h.hexdigest())


def _worker():
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):  # not in a task on a worker: nothing is kept
        return None


def _budget(worker) -> int:
    """The bytes this worker's kept blocks may take in its memory: a share of its
    memory limit; with none, of the machine's memory divided among the machine's
    workers (nothing while the worker has not been told how many they are)."""
    limit = getattr(getattr(worker, "memory_manager", None), "memory_limit", None)
    if limit:
        return int(limit * MEMORY_FRACTION)
    sharing = _SETTINGS["machine_workers"]
    if not sharing:
        return 0
    from distributed.system import MEMORY_LIMIT

    return int(MEMORY_LIMIT * MEMORY_FRACTION / sharing)


def _unlink(base: str | None) -> None:
    if base is not None:
        for p in _PARTS:
            try:
                os.unlink(f"{base}.{p}.npy")
            except OSError:  # never written, or removed already
                pass


def _failed(doing: str, error: BaseException) -> None:
    """Count an error of the cache; the first one is reported (:func:`news`)."""
    with _LOCK:
        _ERRORS["count"] += 1
        if _ERRORS["count"] == 1:
            _ERRORS["untold"].append(f"{doing}: {type(error).__name__}: {error}")


def lookup(key: str, current: tuple, checked: bool) -> Entry | None:
    """The entry of block ``key`` at version ``current`` (a checked one when
    ``checked``), or None; an entry of another version is dropped."""
    with _LOCK:
        entry = _ENTRIES.get(key)
        if entry is None:
            return None
        if entry.version != current:
            del _ENTRIES[key]
            stale = entry
        else:
            stale = None
            if checked and not entry.checked:
                return None
            _ENTRIES.move_to_end(key)
    if stale is not None:
        _unlink(stale.base)
        return None
    return entry


def arrays(key: str, current: tuple | None):
    """The kept parsed arrays ``(data, indices, indptr)`` of block ``key`` at
    version ``current`` (memory-mapped when spilled), or None. A spilled block that
    cannot be read is dropped from the disk, and the error reported."""
    if current is None:
        return None
    with _LOCK:
        entry = _ENTRIES.get(key)
        if entry is None or entry.version != current:
            return None
        _ENTRIES.move_to_end(key)
        if entry.arrays is not None:
            return entry.arrays
        base = entry.base
    if base is None:
        return None
    try:
        return tuple(np.load(f"{base}.{p}.npy", mmap_mode="r") for p in _PARTS)
    except (OSError, ValueError) as e:
        with _LOCK:
            ours = entry.base == base  # else removed meanwhile, as it may be
            if ours:
                entry.base, entry.disk = None, 0
        if ours:
            _unlink(base)
            _failed(f"reading the kept block {base}", e)
        return None


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.view()
    a.flags.writeable = False
    return a


def _index_bytes(e: Entry) -> int:
    return int(e.labels.nbytes + (0 if e.starts is None else e.starts.nbytes))


def keep(key: str, current: tuple, starts, labels, end: int, checked: bool, X=None) -> None:
    """Keep the index (and ``X``, the parsed block, when given) of block ``key`` at
    version ``current`` on this worker (nothing outside a worker).

    Within the memory budget the parsed arrays stay in memory. When the new index
    does not fit, the parsed arrays of the least recently used blocks go to disk
    first, then whole entries, least recently used first; parsed arrays that do not
    fit go to disk."""
    worker = _worker()
    if worker is None:
        return
    index_bytes = int(labels.nbytes + (0 if starts is None else starts.nbytes))
    parts = None if X is None else (_readonly(X.data), _readonly(X.indices), _readonly(X.indptr))
    dropped, spill = [], []
    with _LOCK:
        old = _ENTRIES.pop(key, None)
        if old is not None:
            dropped.append(old)
        budget = _budget(worker)
        used = sum(e.memory for e in _ENTRIES.values())
        for k, e in _ENTRIES.items():  # least recently used first
            if used + index_bytes <= budget:
                break
            if e.arrays is not None:
                spill.append((k, e, e.arrays))
                used -= e.memory - _index_bytes(e)
                e.arrays, e.memory = None, _index_bytes(e)
        while _ENTRIES and used + index_bytes > budget:
            _, e = _ENTRIES.popitem(last=False)
            used -= e.memory
            dropped.append(e)
        if used + index_bytes <= budget:
            entry = Entry(
                current,
                None if starts is None else _readonly(starts),
                _readonly(labels),
                int(end),
                checked,
                memory=index_bytes,
            )
            matrix_bytes = 0 if parts is None else sum(int(a.nbytes) for a in parts)
            if parts is not None and used + index_bytes + matrix_bytes <= budget:
                entry.arrays, entry.memory = parts, index_bytes + matrix_bytes
            elif parts is not None:
                spill.append((key, entry, parts))
            _ENTRIES[key] = entry
    for e in dropped:
        _unlink(e.base)
    for k, e, a in spill:
        _spill(worker, k, e, a)


def _evict(n_bytes: int, spare: Entry | None = None) -> list[str]:
    """Take the spilled arrays of the least recently used entries other than
    ``spare`` off the books until they free ``n_bytes`` (under the lock); their
    files are for the caller to remove."""
    bases = []
    for e in _ENTRIES.values():
        if n_bytes <= 0:
            break
        if e is not spare and e.base is not None:
            bases.append(e.base)
            n_bytes -= e.disk
            e.base, e.disk = None, 0
    return bases


def _spill(worker, key: str, entry: Entry, parts) -> None:
    """Write the parsed arrays of ``entry`` to the worker's local disk, within the
    disk limit and the free space the disk keeps, making room by removing the
    spilled arrays of less recently used blocks (else they are not kept)."""
    n_bytes = sum(int(a.nbytes) for a in parts)
    folder = os.path.join(worker.local_directory, FOLDER)
    with _LOCK:
        limit = _SETTINGS["disk_bytes"]
        if _ENTRIES.get(key) is not entry or n_bytes > limit:
            return
        over = sum(e.disk for e in _ENTRIES.values()) + n_bytes - limit
        removed = _evict(over, entry)
        entry.disk = n_bytes  # reserved: concurrent spills count it
    for b in removed:
        _unlink(b)
    base = os.path.join(folder, uuid.uuid4().hex)
    try:
        os.makedirs(folder, exist_ok=True)
        disk = shutil.disk_usage(folder)
        short = int(DISK_FREE * disk.total) - (disk.free - n_bytes)
        if short > 0:  # give way to whatever fills the disk
            with _LOCK:
                before = sum(e.disk for e in _ENTRIES.values())
                removed = _evict(short, entry)
                short -= before - sum(e.disk for e in _ENTRIES.values())
            for b in removed:
                _unlink(b)
        if short <= 0:
            for p, a in zip(_PARTS, parts, strict=True):
                publish(f"{base}.{p}.npy", a)
    except OSError as e:  # a full disk, say: keep the index only
        _failed(f"keeping a parsed block in {folder}", e)
        short = 1
    with _LOCK:
        if short <= 0 and _ENTRIES.get(key) is entry:
            entry.base = base
            return
        entry.disk = 0
    _unlink(base)  # not (all) written, or the entry was dropped meanwhile


def publish(path: str, a: np.ndarray) -> None:
    """Write ``a`` to the ``.npy`` file ``path`` so that readers find either no file
    or a complete one: written to a temporary file of its own in the same folder and
    renamed to ``path``, an atomic replacement. The temporary file is removed if
    writing fails."""
    folder, name = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with open(fd, "wb") as f:
            np.save(f, a)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def take_rows(data, indices, indptr, ids: np.ndarray, n_features: int):
    """Rows ``ids`` of the CSR arrays as a new matrix, reading only their entries
    (the arrays may be memory-mapped)."""
    import scipy.sparse as sp

    ids = np.asarray(ids, dtype=np.int64)
    lo = np.asarray(indptr[ids], dtype=np.int64)
    hi = np.asarray(indptr[ids + 1], dtype=np.int64)
    lengths = hi - lo
    out = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=out[1:])
    where = np.repeat(lo - out[:-1], lengths) + np.arange(out[-1], dtype=np.int64)
    return sp.csr_matrix(
        (np.asarray(data[where]), np.asarray(indices[where]), out.astype(indptr.dtype)),
        shape=(ids.size, n_features),
    )


def _limit(disk_bytes: int) -> None:
    """Set this worker's disk limit and remove the least recently used spilled
    arrays beyond it."""
    with _LOCK:
        _SETTINGS["disk_bytes"] = disk_bytes
        over = sum(e.disk for e in _ENTRIES.values()) - disk_bytes
        removed = _evict(over)
    for b in removed:
        _unlink(b)


def survey(machine_workers: dict, disk_bytes: int | None, dask_worker=None) -> list[str]:
    """Take the client's settings (the workers on each worker's machine, by
    address; the disk limit, None to keep this worker's) and return the blocks this
    worker keeps (``Client.run`` passes ``dask_worker``)."""
    if dask_worker is not None:
        with _LOCK:
            _SETTINGS["machine_workers"] = machine_workers.get(dask_worker.address)
    if disk_bytes is not None:
        _limit(disk_bytes)
    with _LOCK:
        return list(_ENTRIES)


def machine_workers(addresses) -> dict[str, int]:
    """Worker address -> how many of the workers ``addresses`` share its host."""
    from distributed.comm import get_address_host

    hosts = {a: get_address_host(a) for a in addresses}
    per_host = Counter(hosts.values())
    return {a: per_host[h] for a, h in hosts.items()}


def prepare(client) -> dict[str, str]:
    """Before a fit makes its blocks: tell every worker how many workers share its
    machine (its memory budget when it has no memory limit) and the disk limit set
    for the cluster (:func:`limit_block_cache`); return block identity -> the
    address of a worker that keeps it."""
    sharing = machine_workers(client.nthreads())
    limit = _LIMITS.get(client.scheduler.address)
    where: dict[str, str] = {}
    for addr, keys in client.run(survey, sharing, limit, on_error="ignore").items():
        if isinstance(keys, list):
            for k in keys:
                where.setdefault(k, addr)
    return where


def news(dask_worker=None) -> list[str]:
    """The errors of this worker's cache not reported yet (its first one only)."""
    with _LOCK:
        told, _ERRORS["untold"] = _ERRORS["untold"], []
    return told


def warn_news(client) -> None:
    """After a fit: one ``RuntimeWarning`` naming the errors the workers' caches
    met, if any (each worker reports its first error only)."""
    told = client.run(news, on_error="ignore")
    lines = [
        f"{addr}: {m}" for addr, ms in sorted(told.items()) if isinstance(ms, list) for m in ms
    ]
    if lines:
        warnings.warn(
            "pegasos_rs.dask: the workers' block cache failed, so the blocks it could "
            "not keep or read were parsed from the text instead (each worker reports "
            "its first error only): " + "; ".join(lines),
            RuntimeWarning,
            stacklevel=4,
        )


def info(dask_worker=None) -> dict:
    """This worker's kept blocks, budgets, parse counts and cache errors."""
    with _LOCK:
        entries = list(_ENTRIES.values())
        disk_budget = _SETTINGS["disk_bytes"]
        errors = _ERRORS["count"]
    return {
        "blocks": len(entries),
        "memory_bytes": sum(e.memory for e in entries),
        "disk_bytes": sum(e.disk for e in entries),
        "memory_budget": _budget(dask_worker) if dask_worker is not None else 0,
        "disk_budget": disk_budget,
        **COUNTS,
        "errors": errors,
    }


def drop(dask_worker=None) -> None:
    """Drop this worker's kept blocks and their files."""
    with _LOCK:
        entries = list(_ENTRIES.values())
        _ENTRIES.clear()
    for e in entries:
        _unlink(e.base)
    if dask_worker is not None:
        shutil.rmtree(os.path.join(dask_worker.local_directory, FOLDER), ignore_errors=True)


def drop_block_cache(client=None) -> None:
    """Drop the parsed svmlight blocks the workers keep between fits (in their
    memory and in ``<local_directory>/pegasos-rs-kept/``): the next fit on
    :func:`read_svmlight` arrays parses and checks the files again. ``client``: the
    cluster's client (by default the current one; without one there is nothing to
    drop)."""
    from pegasos_rs.dask._cluster import current_client

    client = client if client is not None else current_client()
    if client is not None:
        client.run(drop)


def limit_block_cache(disk_bytes, client=None) -> None:
    """Bound the disk space each worker's kept svmlight blocks may take.

    A worker keeps the parsed blocks of :func:`read_svmlight` arrays in its memory
    up to a quarter of its memory limit (with no limit, of the machine's memory
    divided among the machine's workers), and the rest in
    ``<local_directory>/pegasos-rs-kept/`` up to ``disk_bytes`` (10 GiB by default),
    while the disk keeps 10 % of its space free. A block that does not fit removes
    the spilled blocks used least recently, and so does a spill that finds less
    than 10 % of the disk free; when there is still no room, the block's rows are
    not kept and later fits read them from the text. See the Dask guide, *Checked
    once per file version*.

    Parameters
    ----------
    disk_bytes : int or str
        The most bytes of spilled blocks on each worker's disk: a number of bytes
        or a size such as ``"20GiB"``; 0 keeps nothing on disk. Blocks beyond it
        are removed now, least recently used first.
    client : distributed.Client, default=None
        The cluster's client (by default the current one). The limit applies to the
        cluster's workers now and is sent again before every fit on that cluster
        from this process, so workers that join or restart later get it too.
    """
    from dask.utils import parse_bytes

    from pegasos_rs.dask._cluster import current_client

    if isinstance(disk_bytes, bool) or not isinstance(disk_bytes, (int, np.integer, str)):
        raise TypeError(
            f"disk_bytes must be a number of bytes or a size such as '20GiB', got "
            f"{type(disk_bytes).__name__}"
        )
    if isinstance(disk_bytes, str):
        try:
            disk_bytes = parse_bytes(disk_bytes)
        except ValueError:
            raise ValueError(
                f"disk_bytes must be a number of bytes or a size such as '20GiB', got "
                f"{disk_bytes!r}"
            ) from None
    if disk_bytes < 0:
        raise ValueError(f"disk_bytes must be 0 or more, got {disk_bytes}")
    client = client if client is not None else current_client()
    if client is None:
        raise ValueError(
            "limit_block_cache needs a cluster: pass client= or make a distributed.Client current"
        )
    _LIMITS[client.scheduler.address] = int(disk_bytes)
    client.run(_limit, int(disk_bytes))


def block_cache_info(client=None) -> dict[str, dict]:
    """Per worker address: the svmlight blocks it keeps between fits (``blocks``,
    ``memory_bytes``, ``disk_bytes``), its budgets (``memory_budget``: the bytes its
    kept blocks may take in memory; ``disk_budget``: on disk,
    :func:`limit_block_cache`), the work it did on blocks so far (``block_parses``:
    whole blocks parsed; ``indexes``: blocks indexed; ``row_parses``: sets of drawn
    rows parsed from the text) and ``errors``: errors of its cache (each cost a parse
    of the text). ``client`` as in :func:`drop_block_cache`."""
    from pegasos_rs.dask._cluster import current_client

    client = client if client is not None else current_client()
    return {} if client is None else client.run(info)
