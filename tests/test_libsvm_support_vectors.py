"""LIBSVM models' support-vector lines (``c1 ... ck index:value ...``) are read by
the Rust svmlight parser with ``k = nr_class - 1`` leading numbers
(``_core.parse_svmlight(..., leading=k)``): the arrays are those the former
pure-Python reader built (kept here as the reference), values correctly rounded, and
errors name the file's line (and now the column).

The predictions of these models against LIBSVM itself are in test_foreign_models.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from pegasos_rs import _core
from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.io.foreign_models import LibsvmModel, LibsvmRegressionModel, read_libsvm


def reference_support_vectors(text: str, n_coef: int, total: int):
    """The former reader's loop over the support-vector lines, in pure Python."""
    lines = text.splitlines()
    sv_line = next(k for k, t in enumerate(lines) if t.strip() == "SV") + 1
    coef = np.empty((total, n_coef))
    indptr = np.zeros(total + 1, dtype=np.int64)
    indices: list[int] = []
    values: list[float] = []
    for s in range(total):
        parts = lines[sv_line + s].split()
        coef[s] = [float(v) for v in parts[:n_coef]]
        last = 0
        for tok in parts[n_coef:]:
            i, colon, v = tok.partition(":")
            index, value = int(i), float(v)
            assert colon and index > last and math.isfinite(value), tok
            indices.append(index - 1)
            values.append(value)
            last = index
        indptr[s + 1] = len(indices)
    idx = np.array(indices, dtype=np.int64)
    width = int(idx.max()) + 1 if idx.size else 0
    sv = sp.csr_matrix((np.array(values, dtype=np.float64), idx, indptr), shape=(total, width))
    return coef, sv


#: The spellings of a coefficient or value: as LIBSVM writes them (%.17g), and others
#: the parser must round exactly.
SPELLINGS = [
    lambda x: f"{x:.17g}",
    lambda x: f"{x:.25f}",  # more digits than a double holds: correct rounding matters
    lambda x: f"{x * 1e-315:.17g}",  # subnormal
    lambda x: f"{x:.6e}".replace("e", "E"),
    lambda x: str(int(x)),
    repr,
]


def numbers(rng, n: int) -> list[str]:
    """``n`` coefficients or values, each in one of the SPELLINGS drawn at random,
    of magnitudes from 1e-5 to 1e5 (drawn in one go: a call per number took seconds
    for the large sections)."""
    kinds = rng.randint(len(SPELLINGS), size=n).tolist()
    values = (rng.standard_normal(n) * 10.0 ** rng.randint(-5, 6, size=n)).tolist()
    return [SPELLINGS[k](x) for k, x in zip(kinds, values, strict=True)]


def libsvm_text(rng, n_class: int, total: int, width: int, svm_type="c_svc") -> str:
    n_coef = n_class - 1
    lines = [f"svm_type {svm_type}", "kernel_type rbf", "gamma 0.5", f"nr_class {n_class}"]
    lines.append(f"total_sv {total}")
    lines.append("rho " + " ".join(["0.25"] * (n_class * (n_class - 1) // 2)))
    if svm_type == "c_svc":
        counts = [total // n_class] * n_class
        counts[0] += total - sum(counts)
        lines.append("label " + " ".join(map(str, range(n_class))))
        lines.append("nr_sv " + " ".join(map(str, counts)))
    lines.append("SV")
    # Up to 11 increasing columns per line: 0 to 11 draws, repeats dropped.
    draws = rng.randint(1, width + 1, size=(total, 11)).tolist()
    counts = rng.randint(0, 12, size=total).tolist()
    columns = [sorted(set(row[:k])) for row, k in zip(draws, counts, strict=True)]
    spelled = iter(numbers(rng, total * n_coef + sum(map(len, columns))))
    for cols in columns:
        coefs = [next(spelled) for _ in range(n_coef)]
        pairs = [f"{j}:{next(spelled)}" for j in cols]
        lines.append(" ".join(coefs + pairs) + " ")
    return "\n".join(lines) + "\n"


def assert_same_csr(a: sp.csr_matrix, b: sp.csr_matrix) -> None:
    assert a.shape == b.shape
    for name in ("data", "indices", "indptr"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x.view(np.uint8), y.view(np.uint8), err_msg=name)


@pytest.mark.parametrize("n_class", [2, 4])
def test_a_huge_sv_section_reads_as_the_python_reference(n_class):
    """About 3 MB of support vectors (several parser chunks): the same coefficients
    and CSR arrays, bit for bit and with the same dtypes, as the pure-Python reader."""
    rng = np.random.RandomState(n_class)
    total = 30_000
    text = libsvm_text(rng, n_class, total, width=5000)
    assert len(text) > 2 << 20
    model = read_libsvm(text)
    assert isinstance(model, LibsvmModel)
    coef, sv = reference_support_vectors(text, n_class - 1, total)
    np.testing.assert_array_equal(model.dual_coef.view(np.uint64), coef.T.view(np.uint64))
    assert model.dual_coef.dtype == np.float64 and model.dual_coef.shape == (n_class - 1, total)
    assert_same_csr(model.support_vectors, sv)


def test_regression_models_and_empty_sections_read_as_the_python_reference():
    rng = np.random.RandomState(7)
    text = libsvm_text(rng, 2, 2000, width=300, svm_type="epsilon_svr")
    model = read_libsvm(text)
    assert isinstance(model, LibsvmRegressionModel)
    coef, sv = reference_support_vectors(text, 1, 2000)
    np.testing.assert_array_equal(model.dual_coef, coef[:, 0])
    assert_same_csr(model.support_vectors, sv)
    # No support vectors: LIBSVM's one-class-of-data model (nr_class 1, total_sv 0).
    one = "svm_type c_svc\nkernel_type linear\nnr_class 1\ntotal_sv 0\nrho\nlabel 1\nnr_sv 0\nSV\n"
    model = read_libsvm(one)
    assert model.dual_coef.shape == (0, 0)
    assert_same_csr(model.support_vectors, reference_support_vectors(one, 0, 0)[1])


def test_an_error_at_the_end_of_a_huge_section_names_its_line_and_column(tmp_path):
    rng = np.random.RandomState(3)
    text = libsvm_text(rng, 3, 30_000, width=500).rstrip("\n") + " 999999:x\n"
    last = len(text.splitlines())
    with pytest.raises(DataFormatError) as info:
        read_libsvm(text, "big.model")
    e = info.value
    assert (e.file, e.line) == ("big.model", last), str(e)
    assert e.column == text.splitlines()[-1].index("999999:x") + len("999999:") + 1
    assert 'the value "x" is not a number' in e.reason
    assert "expected 2 coefficient(s) then index:value pairs" in e.reason


HEAD = (
    "svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho 0 0 0\nlabel 1 2 3\n"
    "nr_sv 1 1 1\nSV\n"
)


@pytest.mark.parametrize(
    "sv, line, column, fragment",
    [
        ("1 2 1:1\n0.5 3:1\n1 1 1:1\n", 10, 5, "expected 2 leading number(s)"),
        ("1 2 1:1\n0.5\n1 1 1:1\n", 10, 4, "expected 2 leading number(s)"),
        ("1 2 1:1\n1 inf 2:1\n1 1 1:1\n", 10, 3, "leading number 2 of 2 is inf"),
        ("1 2 1:1\n1 1e999 2:1\n1 1 1:1\n", 10, 3, "leading number 2 of 2 is inf"),
        ("1 2 1:1\n1 2 2:1 2:3\n1 1 1:1\n", 10, 9, "increasing"),
        ("1 2 1:1\n1 2 1:1\n1 1 3000000000:1\n", 11, 5, "larger than 2147483646"),
        ("1 2 1:1\n1 2 1:1_0\n1 1 1:1\n", 10, 7, 'the value "1_0" is not a number'),
        # Comments, query ids and blank lines are svmlight's, not a model's.
        ("1 2 1:1\n1 2 1:1 # note\n1 1 1:1\n", 10, None, "coefficient(s) then index:value"),
        ("1 2 qid:3 1:1\n1 2 1:1\n1 1 1:1\n", 9, None, "coefficient(s) then index:value"),
        ("1 2 1:1\n\n1 1 1:1\n", 10, None, "got ''"),
        ("1 2 1:1\n1 1 1:1\n  \t\n", 11, None, "coefficient(s) then index:value"),
    ],
)
def test_bad_support_vector_lines_name_line_and_column(sv, line, column, fragment):
    assert read_libsvm(HEAD + "1 2 1:1\n1 2 2:1\n1 1 1:1\n").support_vectors.shape == (3, 2)
    with pytest.raises(DataFormatError) as info:
        read_libsvm(HEAD + sv, "m")
    e = info.value
    assert (e.line, e.column) == (line, column), str(e)
    assert fragment in e.reason, e.reason


def test_support_vectors_in_a_model_of_one_class_are_refused():
    """LIBSVM writes total_sv 0 for one class (no pair of classes, no support
    vector); support vectors with no coefficient would have no meaning."""
    text = "svm_type c_svc\nkernel_type linear\nnr_class 1\ntotal_sv 1\nrho\nlabel 1\nnr_sv 1\nSV\n"
    with pytest.raises(DataFormatError) as info:
        read_libsvm(text + "1:1\n")
    assert info.value.line == 4
    assert "a model of one class has no support vectors" in info.value.reason


def test_parse_svmlight_reads_k_leading_numbers_as_rows():
    text = b"0.5 -1 1:2 3:4\n\n1e-300 2.5\n-0 7 2:1 # c\n"
    data, indices, indptr, numbers, qid, lo, hi = _core.parse_svmlight(
        text, dtype="float32", one_based=True, query_id=False, n_threads=1, leading=2
    )
    assert numbers.dtype == np.float64 and numbers.shape == (3, 2)
    np.testing.assert_array_equal(numbers, [[0.5, -1.0], [1e-300, 2.5], [-0.0, 7.0]])
    assert data.dtype == np.float32
    np.testing.assert_array_equal(data, [2, 4, 1])
    np.testing.assert_array_equal(indices, [1, 3, 2])
    np.testing.assert_array_equal(indptr, [0, 2, 2, 3])
    assert (qid.size, lo, hi) == (0, 1, 3)
    empty = _core.parse_svmlight(
        b"", dtype="float64", one_based=True, query_id=False, n_threads=1, leading=3
    )
    assert empty[3].shape == (0, 3)
    # Without leading: one label per line, 1-D, as before.
    labels = _core.parse_svmlight(
        b"1 1:2\n-1 2:1\n", dtype="float64", one_based=True, query_id=False, n_threads=1
    )[3]
    assert labels.shape == (2,)
    with pytest.raises(ValueError, match="leading must be at least 1"):
        _core.parse_svmlight(
            b"1 1:1\n", dtype="float64", one_based=True, query_id=False, n_threads=1, leading=0
        )
    with pytest.raises(DataFormatError) as info:
        _core.parse_svmlight(
            b"1 2 1:1\n1 2:1\n", dtype="float64", one_based=True, query_id=False, n_threads=1,
            leading=2,
        )  # fmt: skip
    assert (info.value.line, info.value.column) == (2, 3)
