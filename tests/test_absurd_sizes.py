"""Absurd sizes in parameters raise MemoryError or ValueError before allocating
(issue 14). The cases run in a child whose address space is capped at 8 GiB, so an
attempt to allocate what was asked would fail loudly instead of being overcommitted.
Model files and svmlight headers that announce absurd sizes: tests/test_hostile_input.py.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS: Linux")

CASES = {
    # name: (call, what it must do)
    "RandomFourierFeatures(n_components=10**12).fit": (
        "RandomFourierFeatures(n_components=10**12).fit(X)",
        "MemoryError",
    ),
    "RandomFourierFeatures(n_components=2**62).fit": (
        "RandomFourierFeatures(n_components=2**62).fit(X)",
        "MemoryError",
    ),
    "Nystroem(n_components=10**12) on 50 rows uses 50 landmarks": (
        "assert Nystroem(n_components=10**12).fit(X).components_.shape[0] == 50",
        "ok",
    ),
    "KernelPegasosClassifier(cache_size=10**9) allocates what the data needs": (
        "KernelPegasosClassifier(cache_size=10**9).fit(X, y)",
        "ok",
    ),
    "PegasosClassifier(batch_size=10**15)": (
        "PegasosClassifier(batch_size=10**15).fit(X, y)",
        "MemoryError",
    ),
    "KernelPegasosClassifier(batch_size=10**15)": (
        "KernelPegasosClassifier(batch_size=10**15).fit(X, y)",
        "MemoryError",
    ),
    "pairwise_kernels of 10**6 x 10**6": (
        "pairwise_kernels(np.zeros((10**6, 1)), np.zeros((10**6, 1)), 'rbf')",
        "MemoryError",
    ),
    "AdditiveKernelMap(order=10**9)": (
        "AdditiveKernelMap(order=10**9).fit(X)",
        "ValueError",
    ),
    "decision_function with 10**6 classes x 10**7 features of coef": (
        "est = PegasosClassifier(max_iter=1).fit(X, y); "
        "est.coef_ = np.broadcast_to(0.0, (10**6, 10**7)); "
        "est.decision_function(X)",
        "MemoryError|ValueError",
    ),
}


def test_absurd_sizes_raise_before_allocating():
    body = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
        import numpy as np
        from pegasos_rs import (AdditiveKernelMap, KernelPegasosClassifier, Nystroem,
                                PegasosClassifier, RandomFourierFeatures, pairwise_kernels)
        X = np.random.RandomState(0).rand(50, 5)
        y = np.arange(50) % 2
        for name, (code, expected) in CASES.items():
            try:
                exec(code)
                got = "ok"
            except MemoryError:
                got = "MemoryError"
            except ValueError:
                got = "ValueError"
            print(f"{name}\\t{got}\\t{expected}")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", f"CASES = {CASES!r}\n" + body],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    assert len(rows) == len(CASES)
    wrong = [(n, got, expected) for n, got, expected in rows if got not in expected.split("|")]
    assert not wrong, wrong
