"""The svmlight reader and writer: equal to scikit-learn's, exact round trips, clear
errors with file names and line numbers, and no crash on arbitrary bytes."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os

import numpy as np
import pytest
import scipy.sparse as sp
import shared_data as _datasets
from hypothesis import given, settings
from hypothesis import strategies as st
from pegasos_rs import dump_svmlight_file, load_svmlight_file, load_svmlight_files
from sklearn.datasets import dump_svmlight_file as sk_dump
from sklearn.datasets import load_svmlight_file as sk_load
from sklearn.datasets import load_svmlight_files as sk_load_files

SAMPLE = b"""# a comment line
1 qid:2 1:0.5 3:-1.25e-3 7:4 # trailing comment

-1 qid:2 2:1e300 3:0.1
2.5\tqid:5 1:7   9:-0.000001
0 qid:5
"""


def _same(a, b):
    """CSR matrices with identical shape, values, indices and pointers."""
    assert a.shape == b.shape
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert a.data.dtype == b.data.dtype
    np.testing.assert_array_equal(a.data, b.data)


def _write(tmp_path, content: bytes, name="data.svm"):
    path = tmp_path / name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("zero_based", ["auto", True, False])
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_equals_scikit_learn_on_a_sample(tmp_path, dtype, zero_based, n_jobs):
    path = _write(tmp_path, SAMPLE)
    X, y, q = load_svmlight_file(
        path, dtype=dtype, zero_based=zero_based, query_id=True, n_jobs=n_jobs
    )
    Xs, ys, qs = sk_load(str(path), dtype=dtype, zero_based=zero_based, query_id=True)
    _same(X, Xs)
    np.testing.assert_array_equal(y, ys)
    np.testing.assert_array_equal(q, qs)


def test_several_files_share_n_features_and_zero_based(tmp_path):
    a = _write(tmp_path, b"1 1:1 2:2\n", "a.svm")
    b = _write(tmp_path, b"0 5:1\n", "b.svm")
    ours = load_svmlight_files([a, b])
    theirs = sk_load_files([str(a), str(b)])
    for o, t in zip(ours[::2], theirs[::2], strict=True):
        _same(o, t)
    assert ours[0].shape == (1, 5)
    # A zero index anywhere makes "auto" zero-based for all files.
    c = _write(tmp_path, b"0 0:3\n", "c.svm")
    ours = load_svmlight_files([a, c])
    theirs = sk_load_files([str(a), str(c)])
    for o, t in zip(ours[::2], theirs[::2], strict=True):
        _same(o, t)


@pytest.mark.parametrize("n_features", [None, 20])
def test_n_features_and_too_small_n_features(tmp_path, n_features):
    path = _write(tmp_path, SAMPLE)
    X, _ = load_svmlight_file(path, n_features=n_features)
    assert X.shape[1] == (9 if n_features is None else 20)
    with pytest.raises(ValueError, match="n_features was set to 3"):
        load_svmlight_file(path, n_features=3)


@pytest.mark.parametrize("offset, length", [(0, 30), (10, 40), (45, -1), (60, 10), (0, 1000)])
def test_offset_and_length_read_the_same_lines_as_scikit_learn(tmp_path, offset, length):
    path = _write(tmp_path, SAMPLE)
    X, y = load_svmlight_file(path, offset=offset, length=length, n_features=12)
    Xs, ys = sk_load(str(path), offset=offset, length=length, n_features=12)
    _same(X, Xs)
    np.testing.assert_array_equal(y, ys)


@pytest.mark.parametrize(
    "suffix, opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)]
)
def test_compressed_files_file_objects_and_descriptors(tmp_path, suffix, opener):
    path = tmp_path / f"data.svm{suffix}"
    with opener(path, "wb") as f:
        f.write(SAMPLE)
    X, y = load_svmlight_file(path)
    Xr, yr = load_svmlight_file(io.BytesIO(SAMPLE))
    _same(X, Xr)
    np.testing.assert_array_equal(y, yr)
    plain = _write(tmp_path, SAMPLE)
    fd = os.open(plain, os.O_RDONLY)
    try:
        Xd, _ = load_svmlight_file(fd)
    finally:
        os.close(fd)
    _same(Xd, X)
    with pytest.raises(TypeError, match="binary mode"):
        load_svmlight_file(io.StringIO(SAMPLE.decode()))
    with pytest.raises(TypeError):
        load_svmlight_file(3.5)


_SHARED = [
    "a9a.xz",
    "a9a.t.xz",
    "w8a.xz",
    "ijcnn1.xz",
    "ijcnn1.t.xz",
    "reuters-lasvm.trn.xz",
    "reuters-lasvm.tst.xz",
    "usps.xz",
    "usps.t.xz",
    "sector.scale.xz",
    "sector.t.scale.xz",
    "20news-bydate.tfidf12.train.xz",
    "20news-bydate.tfidf12.test.xz",
    "imdb.tfidf1.train.xz",
    "imdb.tfidf1.test.xz",
]


@pytest.mark.parametrize("name", _SHARED)
def test_equals_scikit_learn_on_the_benchmark_files(tmp_path, name):
    d = _datasets.data_dir()
    if d is None or not (d / name).exists():
        pytest.skip(f"{name} is not available (set PEGASOS_DATA)")
    # Decompressed once (xz takes as long as parsing): both parsers read the same
    # plain file (compressed files: test_compressed_files_file_objects_and_descriptors).
    plain = tmp_path / "plain.svm"
    with lzma.open(d / name) as src:
        plain.write_bytes(src.read())
    X, y = load_svmlight_file(plain, n_jobs=2)
    Xs, ys = sk_load(str(plain))
    _same(X, Xs)
    np.testing.assert_array_equal(y, ys)


# --------------------------------------------------------------------------------------
# Round trips


@given(
    n=st.integers(1, 30),
    d=st.integers(1, 12),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**31 - 1),
    zero_based=st.booleans(),
    as_sparse=st.booleans(),
    f32=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_round_trip_is_exact(n, d, density, seed, zero_based, as_sparse, f32):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d)) * 10.0 ** rng.randint(-300, 300, size=(n, d))
    X[rng.rand(n, d) > density] = 0.0
    if f32:
        X = (rng.standard_normal((n, d)) * (rng.rand(n, d) < density)).astype(np.float32)
    y = rng.randint(-3, 4, size=n).astype(float) * rng.choice([1.0, 0.1, 1 / 3], size=n)
    q = rng.randint(0, 5, size=n)
    Xin = sp.csr_matrix(X) if as_sparse else X
    buf = io.BytesIO()
    dump_svmlight_file(Xin, y, buf, zero_based=zero_based, query_id=q, comment="round trip")
    buf.seek(0)
    X2, y2, q2 = load_svmlight_file(
        buf, n_features=d, zero_based=zero_based, query_id=True, dtype=X.dtype
    )
    np.testing.assert_array_equal(X2.toarray(), X)
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(q2, q)
    # scikit-learn reads our files to the same values.
    buf.seek(0)
    Xs, ys = sk_load(buf, n_features=d, zero_based=zero_based, dtype=X.dtype)
    np.testing.assert_array_equal(Xs.toarray(), X)
    np.testing.assert_array_equal(ys, y)


def test_dump_reads_like_scikit_learns_dump(tmp_path):
    rng = np.random.RandomState(0)
    X = sp.random(40, 15, density=0.3, random_state=rng, format="csr")
    y = rng.randint(0, 3, size=40)
    ours, theirs = tmp_path / "ours.svm", tmp_path / "theirs.svm"
    dump_svmlight_file(X, y, ours, zero_based=False)
    sk_dump(X, y, str(theirs), zero_based=False)
    a, b = load_svmlight_file(ours), load_svmlight_file(theirs)
    np.testing.assert_allclose(a[0].toarray(), b[0].toarray(), rtol=1e-15)
    np.testing.assert_array_equal(a[1], b[1])
    # Duplicate entries of an unsorted CSR input are summed, not written twice.
    dup = sp.csr_matrix(
        (np.array([1.0, 2.0, 4.0]), np.array([3, 1, 3]), np.array([0, 3])), shape=(1, 5)
    )
    buf = io.BytesIO()
    dump_svmlight_file(dup, [1], buf)
    assert buf.getvalue() == b"1 1:2 3:5\n"


def test_dump_rejects_bad_arguments(tmp_path):
    X = np.eye(3)
    with pytest.raises(ValueError, match="should be the same"):
        dump_svmlight_file(X, [1, 2], tmp_path / "a")
    with pytest.raises(ValueError, match="shape"):
        dump_svmlight_file(X, np.ones((3, 2)), tmp_path / "a")
    with pytest.raises(ValueError, match="NaN"):
        dump_svmlight_file(X, [1, np.nan, 2], tmp_path / "a")
    with pytest.raises(ValueError, match="NUL"):
        dump_svmlight_file(X, [1, 2, 3], tmp_path / "a", comment="a\0b")
    with pytest.raises(ValueError, match="query_id"):
        dump_svmlight_file(X, [1, 2, 3], tmp_path / "a", query_id=[1, 2])
    with pytest.raises(ValueError, match="multilabel"):
        dump_svmlight_file(X, [1, 2, 3], tmp_path / "a", multilabel=True)


# --------------------------------------------------------------------------------------
# Malformed input


@pytest.mark.parametrize(
    "content, message",
    [
        (b"1 1:2\nabc 1:2\n", r"line 2: the label .abc. is not a number"),
        (b"1 1:2\n\n1 3:x\n", r"line 3: the value .x. is not a number"),
        (b"1 1:nan\n", r"line 1: the value of index 1 is NaN"),
        (b"1 1:inf\n", r"line 1: the value of index 1 is inf"),
        (b"nan 1:1\n", r"line 1: the label NaN is not finite"),
        (b"1 -2:1\n", r"line 1: invalid index -2"),
        (b"1 4:1 2:1\n", r"line 1: feature indices must be sorted and unique; 2 follows 4"),
        (b"1 4:1 4:2\n", r"sorted and unique; 4 follows 4"),
        (b"1 1:1\n1 2:\n", r"line 2: index 2 has no value \(truncated line\?\)"),
        (b"1 1:1\n1 2", r"line 2: expected index:value, got .2."),
        (b"1 3000000000:1\n", r"line 1: index 3000000000 is larger than"),
        (b"1 x:1\n", r"line 1: the index .x. is not an integer"),
        (b"1 qid:a 1:1\n", r"line 1: bad query id"),
    ],
)
def test_malformed_input_names_file_and_line(tmp_path, content, message):
    path = _write(tmp_path, content, "bad.svm")
    with pytest.raises(ValueError, match=message) as info:
        load_svmlight_file(path)
    assert str(path) in str(info.value)


def test_index_zero_in_a_one_based_file(tmp_path):
    path = _write(tmp_path, b"1 0:1 2:1\n")
    with pytest.raises(ValueError, match="invalid index 0 in a one-based file"):
        load_svmlight_file(path, zero_based=False)
    X, _ = load_svmlight_file(path)  # "auto": zero-based
    assert X.shape == (1, 3)


def test_bad_loader_arguments(tmp_path):
    path = _write(tmp_path, SAMPLE)
    with pytest.raises(ValueError, match="n_features is required"):
        load_svmlight_file(path, offset=3)
    with pytest.raises(ValueError, match="multilabel"):
        load_svmlight_file(path, multilabel=True)
    with pytest.raises(ValueError, match="zero_based"):
        load_svmlight_file(path, zero_based="yes")
    with pytest.raises(ValueError, match="n_features"):
        load_svmlight_file(path, n_features=0)
    with pytest.raises(TypeError, match="list of files"):
        load_svmlight_files(path)
    with pytest.raises(ValueError, match="line 2: a line without qid"):
        load_svmlight_file(io.BytesIO(b"1 qid:1 1:1\n2 1:1\n"), query_id=True)


def _mutations():
    base = st.sampled_from([SAMPLE, b"1 1:1 2:2\n-1 3:0.5\n", b""])
    edit = st.tuples(st.integers(0, 200), st.binary(min_size=0, max_size=6))
    return st.tuples(base, st.lists(edit, max_size=5))


@given(data=st.one_of(st.binary(max_size=300), _mutations()))
@settings(max_examples=400, deadline=None)
def test_parser_never_crashes_on_arbitrary_bytes(data):
    """Random and mutated files: a result or a ValueError, never a crash or a hang."""
    if isinstance(data, tuple):
        text, edits = data
        buf = bytearray(text)
        for pos, ins in edits:
            pos = min(pos, len(buf))
            buf[pos : pos + len(ins)] = ins
        data = bytes(buf)
    for zero_based in ("auto", False):
        try:
            X, y = load_svmlight_file(io.BytesIO(data), zero_based=zero_based)
        except ValueError:
            continue
        assert X.shape[0] == y.shape[0]
        assert np.all(np.isfinite(X.data)) and np.all(np.isfinite(y))
        assert X.has_sorted_indices
