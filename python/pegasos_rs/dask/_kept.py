"""Parsed svmlight blocks kept on a worker from one fit to the next (issue 28).

A fit on the arrays of :func:`pegasos_rs.dask.read_svmlight` indexes each block
of the files (where each example starts, its label) and, with ``check_input=True``,
parses all of it to check it. The worker that did so keeps what it learnt, in the
worker process, keyed by the block (path, byte range, ``n_features``,
``zero_based``, ``dtype``) and the file's version (size, ``mtime_ns``, inode):

* the index, 16 bytes a row, and whether the block was checked;
* the parsed CSR arrays of a checked block: in the worker's memory while all kept
  blocks of the worker take at most :data:`MEMORY_FRACTION` of its memory limit
  (of the machine's memory when the worker has none), else spilled to its local
  disk, ``<local_directory>/pegasos-rs-kept/`` (memory-mapped on use), while the
  disk keeps :data:`DISK_FREE` of its space free, else not kept (the rows are then
  read from the text, as today).

A later fit on the same file version, by any estimator (``fit``, ``partial_fit``,
a grid of ``alpha``), neither parses nor indexes the block: its tasks go to the
worker that keeps it (:func:`holders`), the checks already passed, the drawn rows
come from the kept arrays. A changed file (another size, ``mtime_ns`` or inode) is
parsed again and its old entry dropped. An index that does not fit the memory
budget pushes out the least recently used entries. The entries go with the worker
(its local directory is removed when it closes); :func:`drop_block_cache` drops
them before. :data:`COUNTS` counts the parses a worker did, for tests and
:func:`block_cache_info`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

#: Share of a worker's memory limit its kept blocks (indexes and parsed arrays)
#: may take.
MEMORY_FRACTION = 0.25
#: Share of the local disk a spill leaves free.
DISK_FREE = 0.10
#: Folder of the spilled blocks, in the worker's local directory.
FOLDER = "pegasos-rs-kept"
_PARTS = ("data", "indices", "indptr")

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
    #: ... or on disk, ``f"{base}.{part}.npy"``.
    base: str | None = None
    memory: int = 0
    disk: int = 0


_LOCK = threading.Lock()
#: Block identity -> entry, least recently used first.
_ENTRIES: OrderedDict[str, Entry] = OrderedDict()


def count(what: str, n: int = 1) -> None:
    with _LOCK:
        COUNTS[what] += n


def ident(spec, n_features: int) -> str:
    """A block's identity: its byte range of its file and the reading options."""
    return (
        f"{spec.path}|{spec.offset}|{spec.length}|{n_features}|{bool(spec.one_based)}|{spec.dtype}"
    )


def version(path: str) -> tuple:
    """A file's version: a rewritten file has another size, mtime or inode."""
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def _worker():
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):  # not in a task on a worker: nothing is kept
        return None


def _budget(worker) -> int:
    limit = getattr(getattr(worker, "memory_manager", None), "memory_limit", None)
    if not limit:
        from distributed.system import MEMORY_LIMIT

        limit = MEMORY_LIMIT
    return int(limit * MEMORY_FRACTION)


def _remove(entry: Entry) -> None:
    if entry.base is not None:
        for p in _PARTS:
            try:
                os.unlink(f"{entry.base}.{p}.npy")
            except OSError:
                pass


def lookup(key: str, current: tuple, checked: bool) -> Entry | None:
    """The entry of block ``key`` at file version ``current`` (a checked one when
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
        _remove(stale)
        return None
    return entry


def arrays(key: str, current: tuple | None):
    """The kept parsed arrays ``(data, indices, indptr)`` of block ``key`` at
    version ``current`` (memory-mapped when spilled), or None."""
    if current is None:
        return None
    with _LOCK:
        entry = _ENTRIES.get(key)
        if entry is None or entry.version != current:
            return None
        if entry.arrays is not None:
            return entry.arrays
        base = entry.base
    if base is None:
        return None
    try:
        return tuple(np.load(f"{base}.{p}.npy", mmap_mode="r") for p in _PARTS)
    except (OSError, ValueError):  # dropped meanwhile: read the text
        return None


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.view()
    a.flags.writeable = False
    return a


def keep(key: str, current: tuple, starts, labels, end: int, checked: bool, X=None) -> None:
    """Keep the index (and ``X``, the parsed block, when given) of block ``key`` at
    file version ``current`` on this worker (nothing outside a worker).

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
        entry = None
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
        _remove(e)
    for k, e, a in spill:
        _spill(worker, k, e, a)


def _index_bytes(e: Entry) -> int:
    return int(e.labels.nbytes + (0 if e.starts is None else e.starts.nbytes))


def _spill(worker, key: str, entry: Entry, parts) -> None:
    """Write the parsed arrays of ``entry`` to the worker's local disk, while the
    disk keeps :data:`DISK_FREE` of its space free (else they are not kept)."""
    n_bytes = sum(int(a.nbytes) for a in parts)
    folder = os.path.join(worker.local_directory, FOLDER)
    base = os.path.join(folder, hashlib.sha1(f"{key}|{entry.version}".encode()).hexdigest())
    try:
        os.makedirs(folder, exist_ok=True)
        disk = shutil.disk_usage(folder)
        if disk.free - n_bytes < DISK_FREE * disk.total:
            return
        for p, a in zip(_PARTS, parts, strict=True):
            publish(f"{base}.{p}.npy", a)
    except OSError:  # a full disk: keep the index only
        _remove(Entry(entry.version, None, entry.labels, 0, False, base=base))
        return
    with _LOCK:
        if _ENTRIES.get(key) is entry:
            entry.base, entry.disk = base, n_bytes
            return
    _remove(Entry(entry.version, None, entry.labels, 0, False, base=base))  # dropped meanwhile


def publish(path: str, a: np.ndarray) -> None:
    """Write ``a`` to the ``.npy`` file ``path`` so that readers find either no file
    or a complete one, also while other writers write the same file (two tasks of
    a worker's threads on one block, two processes sharing a folder): each writes a
    temporary file of its own in the same folder and renames it to ``path``, an
    atomic replacement of the same contents. The temporary file is removed if
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


def held(dask_worker=None) -> list[str]:
    """The blocks this worker keeps (``Client.run`` passes ``dask_worker``)."""
    with _LOCK:
        return list(_ENTRIES)


def info(dask_worker=None) -> dict:
    """This worker's kept blocks and parse counts."""
    with _LOCK:
        entries = list(_ENTRIES.values())
        return {
            "blocks": len(entries),
            "memory_bytes": sum(e.memory for e in entries),
            "disk_bytes": sum(e.disk for e in entries),
            **COUNTS,
        }


def drop(dask_worker=None) -> None:
    """Drop this worker's kept blocks and their files."""
    with _LOCK:
        entries = list(_ENTRIES.values())
        _ENTRIES.clear()
    for e in entries:
        _remove(e)
    if dask_worker is not None:
        shutil.rmtree(os.path.join(dask_worker.local_directory, FOLDER), ignore_errors=True)


def holders(client) -> dict[str, str]:
    """Block identity -> the address of a worker that keeps it."""
    where: dict[str, str] = {}
    for addr, keys in client.run(held, on_error="ignore").items():
        if isinstance(keys, list):
            for k in keys:
                where.setdefault(k, addr)
    return where


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


def block_cache_info(client=None) -> dict[str, dict]:
    """Per worker address: the svmlight blocks it keeps between fits (``blocks``,
    ``memory_bytes``, ``disk_bytes``) and the work it did on blocks so far
    (``block_parses``: whole blocks parsed; ``indexes``: blocks indexed;
    ``row_parses``: sets of drawn rows parsed from the text). ``client`` as in
    :func:`drop_block_cache`."""
    from pegasos_rs.dask._cluster import current_client

    client = client if client is not None else current_client()
    return {} if client is None else client.run(info)
