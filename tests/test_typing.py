"""The public API's type annotations, as a type checker sees them.

mypy checks two small programs that use the package: one of correct uses, which
must type-check cleanly (with the precise types ``assert_type`` states), and one of
wrong uses, each marked ``# E``, on exactly whose lines mypy must report an error.
mypy must analyse the package under test, the very files Python imports here (the
source tree or an installed wheel), with the extension's stub ``_core.pyi``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pegasos_rs
import pytest

# mypy runs over the package once for the module (its fixture): seconds.
pytestmark = pytest.mark.slow

pytest.importorskip("mypy", reason="mypy is not installed (it is in the 'test' extra)")

GOOD = """
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from typing_extensions import assert_type

from pegasos_rs import (
    AdditiveKernelMap,
    DataFormatError,
    KernelPegasosClassifier,
    KernelPegasosRegressor,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
    dump_svmlight_file,
    load,
    load_svmlight_file,
    load_svmlight_files,
    pairwise_kernels,
    save,
)

X = np.zeros((4, 3))
Xs = sp.csr_matrix(X)
y = np.array([0, 1, 0, 1])

clf = PegasosClassifier(
    alpha=1e-3,
    max_iter=np.int64(5),
    max_steps=None,
    average=10,
    sampling="shuffle",
    class_weight={0: 1.0, 1: 2.0},
    random_state=np.random.RandomState(0),
    n_jobs=-1,
    tol=1e-4,
    intercept_scaling=None,
)
PegasosClassifier(sampling=[3, 2, 1, 0], class_weight="balanced", random_state=0, average=False)
PegasosClassifier(sampling=np.arange(4), random_state=np.uint32(7))
assert_type(clf.fit(X, y), PegasosClassifier)
assert_type(clf.fit(Xs, y, sample_weight=[1.0, 2.0, 1.0, 1.0]), PegasosClassifier)
assert_type(clf.partial_fit(X, y, classes=[0, 1]), PegasosClassifier)
labels: NDArray[Any] = clf.predict(Xs)
scores = clf.fit(X.tolist(), y.tolist()).decision_function(X)
assert_type(scores, NDArray[np.float64])
clf.score(X, y)
clf.get_params()


class Mine(PegasosClassifier):
    pass


assert_type(Mine().fit(X, y), Mine)

kc = KernelPegasosClassifier(
    kernel="poly", gamma="auto", degree=2, coef0=1.0, strategy="margins", probability=True
)
KernelPegasosClassifier(kernel="precomputed", gamma=0.5, cache_size=50.0, batch_size=4)
assert_type(kc.fit(X, y), KernelPegasosClassifier)
assert_type(kc.predict_proba(Xs), NDArray[np.float64])
assert_type(kc.predict_log_proba(X), NDArray[np.float64])
KernelPegasosClassifier(loss="squared_hinge", multi_class="ovo")

kr = KernelPegasosRegressor(
    loss="squared_epsilon_insensitive", epsilon=0.5, gamma=0.1, sampling="shuffle", n_jobs=2
)
KernelPegasosRegressor(kernel="precomputed", sampling=[3, 2, 1, 0], fit_intercept=False)
y_real = np.array([0.5, 1.5, -2.0, 3.0])
assert_type(kr.fit(X, y_real, sample_weight=[1.0, 2.0, 1.0, 1.0]), KernelPegasosRegressor)
assert_type(kr.predict(Xs), NDArray[np.float64])
kr.score(X, y_real)

ny = Nystroem("chi2", n_components=10, landmarks="k-means++", gamma=None, degree=None)
assert_type(ny.fit(X), Nystroem)
features: NDArray[np.floating[Any]] = ny.transform(Xs)
rff = RandomFourierFeatures(gamma="scale", n_components=8, form="offset", random_state=1)
assert_type(rff.fit(Xs, y), RandomFourierFeatures)
rff.transform(X)
additive = AdditiveKernelMap("js", order=3, period=None).fit(X)
additive.transform(Xs)
additive.get_feature_names_out()

save(clf, "model.pegasos")
save(kc, Path("kernel.pegasos"))
again = load("model.pegasos")
again.predict(X)

X1, y1 = load_svmlight_file("train.svm")
assert_type(y1, NDArray[np.float64])
X2, y2, qid = load_svmlight_file(Path("ranks.svm"), query_id=True, n_features=3, zero_based=False)
assert_type(qid, NDArray[np.int64])
with open("train.svm", "rb") as fh:
    load_svmlight_file(fh, dtype=np.float32, n_jobs=2)
parts = load_svmlight_files(["a.svm", Path("b.svm")], zero_based="auto")
dump_svmlight_file(X, y, "out.svm", comment="made here", zero_based=False)
assert_type(pairwise_kernels(X, Xs, metric="rbf", gamma=0.5), NDArray[np.float64])

try:
    load("broken.pegasos")
except DataFormatError as e:
    where: str | None = e.file
    DataFormatError("bad line", "data.svm", line=3, column=None)
"""

BAD = """
from __future__ import annotations

import numpy as np
from typing_extensions import assert_type

from pegasos_rs import (
    AdditiveKernelMap,
    KernelPegasosClassifier,
    KernelPegasosRegressor,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
    load,
    load_svmlight_file,
    pairwise_kernels,
    save,
)

X = np.zeros((4, 3))
y = np.array([0, 1, 0, 1])
PegasosClassifier(alpha="big")  # E
KernelPegasosClassifier(kernel="rbff")  # E
Nystroem(n_components="10")  # E
load_svmlight_file(3.5)  # E
PegasosClassifier(sampling="uniformly")  # E
PegasosClassifier(class_weight="balance")  # E
PegasosClassifier(0.1)  # E
PegasosClassifier(max_steps=1.5)  # E
KernelPegasosClassifier(gamma="big")  # E
KernelPegasosClassifier(loss="epsilon_insensitive")  # E
KernelPegasosRegressor(loss="hinge")  # E
KernelPegasosRegressor(sampling="balanced")  # E
KernelPegasosRegressor(class_weight="balanced")  # E
RandomFourierFeatures(form="cos")  # E
AdditiveKernelMap("rbf")  # E
pairwise_kernels(X, metric="cosine")  # E
save(PegasosClassifier(), 3)  # E
load(None)  # E
assert_type(PegasosClassifier().fit(X, y), KernelPegasosClassifier)  # E
PegasosClassifier().fit(X, y).decision_function(X).no_such_attribute  # E
PegasosClassifier().fit(X, y, weights=None)  # E
"""

#: mypy's report of one error: ``file:line: error: message  [code]``.
_ERROR = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+): error: ", re.MULTILINE)
#: mypy -v's log of the file it parses for a module.
_PARSING = re.compile(r"Parsing (?P<path>.+) \((?P<module>[\w.]+)\)$", re.MULTILINE)


def _run_mypy(tmp_path: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    """mypy on ``files`` (in ``tmp_path``), seeing the modules this interpreter
    imports: its own ``sys.path``, with a relative ``PYTHONPATH`` made absolute
    (mypy runs in ``tmp_path``)."""
    (tmp_path / "mypy.ini").write_text("[mypy]\n")  # no configuration from elsewhere
    env = dict(os.environ)
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(
            os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p
        )
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        "mypy.ini",
        "--python-executable",
        sys.executable,
        # scikit-learn and scipy ship no type information.
        "--ignore-missing-imports",
        "--cache-dir",
        str(tmp_path / "mypy_cache"),
        "--no-error-summary",
        "--hide-error-context",
        "--no-color-output",
        "--verbose",  # logs the file of each module (checked below)
        *files,
    ]
    return subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("typing")
    (tmp_path / "good.py").write_text(textwrap.dedent(GOOD))
    (tmp_path / "bad.py").write_text(textwrap.dedent(BAD))
    result = _run_mypy(tmp_path, ["good.py", "bad.py"])
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    return result


def _errors(result, file: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for line in result.stdout.splitlines():
        m = _ERROR.match(line)
        if m and m["file"] == file:
            found.setdefault(int(m["line"]), []).append(line)
    return found


def test_mypy_analyses_the_package_under_test(mypy_run):
    parsed = {m["module"]: Path(m["path"]) for m in _PARSING.finditer(mypy_run.stderr)}
    package = Path(pegasos_rs.__file__).resolve()
    assert "pegasos_rs" in parsed, "mypy did not find pegasos_rs"
    assert parsed["pegasos_rs"].resolve() == package, (parsed["pegasos_rs"], package)
    # The extension's types come from its stub, next to the package.
    assert parsed["pegasos_rs._core"].resolve() == package.parent / "_core.pyi"
    assert (package.parent / "py.typed").is_file()


def test_correct_uses_type_check(mypy_run):
    assert _errors(mypy_run, "good.py") == {}, mypy_run.stdout


def test_wrong_uses_are_flagged_on_their_lines(mypy_run):
    lines = textwrap.dedent(BAD).splitlines()
    expected = {i for i, text in enumerate(lines, start=1) if text.endswith("# E")}
    assert len(expected) == 21
    found = _errors(mypy_run, "bad.py")
    missed = sorted(expected - set(found))
    assert not missed, [lines[i - 1] for i in missed]
    unexpected = {i: found[i] for i in sorted(set(found) - expected)}
    assert not unexpected, unexpected
