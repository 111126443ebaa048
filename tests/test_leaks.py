"""No leak: repeated fit / predict / save / load / pickle cycles keep RSS flat.

The short version of ``benches/bench_leak.py`` (2,000 cycles of every estimator, with
the figures in ``benches/results/leak.md``): after a warm-up, 300 cycles in three
blocks of 100. A leak grows the resident set steadily, so the median RSS rises from
each block to the next; the allocator's one-off steps (a new arena, a larger pool) rise
once. The test fails when RSS rises by more than ``STEP_MIB`` across both block
boundaries: a leak of 10 KB per cycle adds about 1 MB per block and fails, as
:func:`test_the_detector_catches_a_10_kb_per_cycle_leak` checks, while a single
allocator step does not.

Each measurement runs in a fresh child process: in the test session's own process,
memory freed by earlier tests would absorb a leak without raising RSS.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_problem
from pegasos_rs import KernelPegasosClassifier, Nystroem, PegasosClassifier, load

# Child processes fitting hundreds of times to watch their memory.
pytestmark = pytest.mark.slow

WARMUP = 60
BLOCK = 100
BLOCKS = 3
#: Largest rise of the median RSS between consecutive blocks not counted as growth.
STEP_MIB = 0.4


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _levels(cycle) -> list[float]:
    """Median RSS of each block of cycles, after the warm-up."""
    for _ in range(WARMUP):
        cycle()
    gc.collect()
    levels = []
    for _ in range(BLOCKS):
        rss = []
        for _ in range(BLOCK):
            cycle()
            rss.append(_rss_mib())
        levels.append(float(np.median(rss)))
    return levels


def _grows(levels: list[float]) -> bool:
    return all(b - a > STEP_MIB for a, b in itertools.pairwise(levels))


def _classifier_cycle(make, X, y, path):
    def cycle():
        est = make().fit(X, y)
        if hasattr(est, "partial_fit"):
            est.partial_fit(X, y)
        est.predict(X)
        est.decision_function(X)
        est.save(path)
        load(path).predict(X)
        pickle.loads(pickle.dumps(est)).predict(X)

    return cycle


def _map_cycle(make, X):
    def cycle():
        est = make().fit(X)
        est.transform(X)
        est.transform(sp.csr_matrix(X))
        pickle.loads(pickle.dumps(est)).transform(X)

    return cycle


def _cases(tmp_path):
    X, y = make_problem(n_samples=300, n_features=40, n_classes=3, seed=0)
    Xk, yk = make_problem(n_samples=150, n_features=10, n_classes=2, seed=1)
    return {
        "linear csr, multiclass": _classifier_cycle(
            lambda: PegasosClassifier(alpha=1e-3, max_iter=2, average=True, random_state=0),
            sp.csr_matrix(X),
            y,
            tmp_path / "linear.pgs",
        ),
        "kernel rbf dense": _classifier_cycle(
            lambda: KernelPegasosClassifier(alpha=1e-2, gamma=0.5, max_iter=2, random_state=0),
            Xk,
            yk,
            tmp_path / "kernel.pgs",
        ),
        "nystroem": _map_cycle(lambda: Nystroem(gamma=0.5, n_components=50, random_state=0), X),
    }


def child_levels(name: str, leak_bytes: int, tmp: str) -> None:
    """In the child: print the block levels of case ``name`` as JSON, keeping
    ``leak_bytes`` per cycle on purpose when it is not zero."""
    real = _cases(Path(tmp))[name]
    kept = []

    def cycle():
        real()
        if leak_bytes:
            kept.append(np.ones(leak_bytes // 8))  # written, so resident

    print(json.dumps(_levels(cycle)))


def _levels_in_child(name: str, tmp_path, leak_bytes: int = 0) -> list[float]:
    here = Path(__file__).resolve().parent
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(here), os.environ.get("PYTHONPATH", "")])
    )
    code = f"import test_leaks; test_leaks.child_levels({name!r}, {leak_bytes}, {str(tmp_path)!r})"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", ["linear csr, multiclass", "kernel rbf dense", "nystroem"])
def test_rss_stays_flat_over_repeated_cycles(tmp_path, name):
    levels = _levels_in_child(name, tmp_path)
    assert not _grows(levels), f"RSS grows block after block: {levels} MiB"


def test_the_detector_catches_a_10_kb_per_cycle_leak(tmp_path):
    """The same measurement with 10 KB kept per cycle (on top of a real cycle) fails."""
    levels = _levels_in_child("linear csr, multiclass", tmp_path, leak_bytes=10_000)
    assert _grows(levels), f"a 10 KB/cycle leak went unnoticed: {levels} MiB"
