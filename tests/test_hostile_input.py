"""Hostile and malformed files: svmlight text (plain and compressed), model files and
LIBLINEAR models. Each raises a DataFormatError (a ValueError) that names the file and
the position, or MemoryError, before allocating more than the file holds; never
another exception. Also the fuzz smoke run: the atheris targets' bodies over seeds and
a few thousand mutations, and every input a long fuzz run found."""

from __future__ import annotations

import bz2
import gzip
import importlib.util
import io
import json
import lzma
import pickle
import random
import struct
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
import sklearn.exceptions
from conftest import make_problem
from pegasos_rs import (
    AdditiveKernelMap,
    KernelPegasosClassifier,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
    load_svmlight_file,
)
from pegasos_rs.exceptions import DataFormatError, NotFittedError, PegasosError
from pegasos_rs.io.model_io import FORMAT_VERSION, MAGIC
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"

# --------------------------------------------------------------------------------------
# The hierarchy


def test_the_hierarchy_keeps_except_valueerror_working():
    assert issubclass(DataFormatError, PegasosError)
    assert issubclass(DataFormatError, ValueError)
    assert issubclass(PegasosError, Exception)
    assert NotFittedError is sklearn.exceptions.NotFittedError
    for name in ("DataFormatError", "PegasosError", "exceptions"):
        assert name in pegasos_rs.__all__
    assert pegasos_rs.DataFormatError is DataFormatError
    assert sorted(pegasos_rs.exceptions.__all__) == [
        "DataFormatError",
        "NotFittedError",
        "PegasosError",
    ]


def test_data_format_errors_name_the_position_and_pickle():
    e = DataFormatError('expected index:value, got "x"', "data.svm", 12, 7)
    assert str(e) == 'data.svm: line 12: expected index:value, got "x" (column 7)'
    assert (e.file, e.line, e.column, e.reason) == ("data.svm", 12, 7, e.reason)
    assert str(DataFormatError("bad", Path("m.pgs"))) == "m.pgs: bad"
    assert str(DataFormatError("bad", None, 3)) == "line 3: bad"
    assert str(DataFormatError("bad")) == "bad"
    back = pickle.loads(pickle.dumps(e))
    assert (str(back), back.line, back.column, back.file) == (str(e), 12, 7, "data.svm")
    moved = DataFormatError("bad", None, 2, 1).with_file("f.svm")
    assert str(moved) == "f.svm: line 2: bad (column 1)"


def test_estimators_raise_scikit_learns_not_fitted_error():
    with pytest.raises(NotFittedError):
        PegasosClassifier().predict(np.zeros((1, 2)))


# --------------------------------------------------------------------------------------
# svmlight files: position and expectation of each error

BAD_SVMLIGHT = [
    # content, line, column, message fragment
    (b"1 1:2\nabc 1:2\n", 2, 1, 'the label "abc" is not a number'),
    (b"1 1:2\n\n1 3:x\n", 3, 5, 'the value "x" is not a number'),
    (b"1 1:nan\n", 1, 5, "index 1 is NaN (expected a finite number)"),
    (b"1 1:inf\n", 1, 5, "index 1 is inf"),
    (b"1 1:1e400\n", 1, 5, "index 1 is inf"),
    (b"1e400 1:1\n", 1, 1, "the label inf is not finite"),
    (b"nan 1:1\n", 1, 1, "the label NaN is not finite"),
    (b"  -inf\t1:1\n", 1, 3, "the label -inf is not finite"),
    (b"1 -2:1\n", 1, 3, "invalid index -2"),
    (b"1 4:1 2:1\n", 1, 7, "sorted and unique; 2 follows 4"),
    (b"1 4:1 4:2\n", 1, 7, "sorted and unique; 4 follows 4"),
    (b"1 1:1\n1 2:", 2, 5, "index 2 has no value (truncated line?)"),
    (b"1 1:1\n1 2", 2, 3, 'expected index:value, got "2"'),
    (b"1 1000000000000:1\n", 1, 3, "index 1000000000000 is larger than 2147483646"),
    (b"1 2147483647:1\n", 1, 3, "is larger than 2147483646"),
    (b"1 99999999999999999999999:1\n", 1, 3, "is not an integer"),
    (b"1 x:1\n", 1, 3, 'the index "x" is not an integer'),
    (b"1 :1\n", 1, 3, 'the index "" is not an integer'),
    (b"1 1::2\n", 1, 5, 'the value ":2" is not a number'),
    (b"1 qid:a 1:1\n", 1, 7, 'bad query id "qid:a" (expected qid:integer)'),
    (b"1 qid:99999999999999999999 1:1\n", 1, 7, "bad query id"),
    (b"1 qidx:3 1:1\n", 1, 3, 'the index "qidx" is not an integer'),
    (b"1 1:1 qid:3\n", 1, 7, 'the index "qid" is not an integer'),
    (b"1 1:1\r\n-1 3:1 2:1\r\n", 2, 8, "sorted and unique"),
    (b"# 10**12 rows\n\xff\xfe 1:1\n", 2, 1, "is not a number"),
    (b"1 1:1 2:0x10\n", 1, 9, 'the value "0x10" is not a number'),
    (b"1 " + b"7" * 5000 + b":1\n", 1, 3, "is not an integer"),
]


@pytest.mark.parametrize("content, line, column, fragment", BAD_SVMLIGHT)
def test_svmlight_errors_name_file_line_and_column(tmp_path, content, line, column, fragment):
    path = tmp_path / "bad.svm"
    path.write_bytes(content)
    with pytest.raises(DataFormatError) as info:
        load_svmlight_file(path)
    e = info.value
    assert (e.file, e.line, e.column) == (str(path), line, column), str(e)
    assert fragment in e.reason
    assert str(e) == f"{path}: line {line}: {e.reason} (column {column})"
    assert len(str(e)) < 300 + len(str(path))  # long tokens are cut


def test_float32_overflow_reads_as_infinity_as_in_scikit_learn(tmp_path):
    path = tmp_path / "big.svm"
    path.write_bytes(b"1 1:1e39 2:-1e308 3:3.4028235e38\n")
    X, _ = load_svmlight_file(path, dtype=np.float32)
    np.testing.assert_array_equal(X.toarray(), [[np.inf, -np.inf, np.float32(3.4028235e38)]])
    X, _ = load_svmlight_file(path)
    assert X[0, 0] == 1e39


def test_files_without_features_have_one_column_as_in_scikit_learn(tmp_path):
    # Fuzz finding (atheris, compared with scikit-learn): a file without any
    # index gave 0 columns, scikit-learn's 1.
    for content, rows in [(b"1\n", 1), (b"", 0), (b"# only a comment\n-1\n2\n", 2)]:
        path = tmp_path / "labels.svm"
        path.write_bytes(content)
        X, y = load_svmlight_file(path)
        assert X.shape == (rows, 1) and y.shape == (rows,)


def test_file_objects_and_query_id_errors_carry_positions():
    with pytest.raises(DataFormatError) as info:
        load_svmlight_file(io.BytesIO(b"1 qid:1 1:1\n2 1:1\n"), query_id=True)
    assert (info.value.line, info.value.column) == (2, 1)
    assert info.value.file == "<file object>"


def test_errors_inside_a_window_give_the_line_of_the_file(tmp_path):
    path = tmp_path / "w.svm"
    path.write_bytes(b"1 1:1\n1 2:1\n1 3:1\n1 4:x\n1 5:1\n")
    with pytest.raises(DataFormatError) as info:
        load_svmlight_file(path, offset=7, length=20, n_features=10)
    assert (info.value.line, info.value.column) == (4, 5)


@pytest.mark.parametrize(
    "ext, compress", [("gz", gzip.compress), ("xz", lzma.compress), ("bz2", bz2.compress)]
)
def test_damaged_compressed_files_are_data_format_errors(tmp_path, ext, compress):
    packed = compress(b"1 1:1 2:2\n-1 3:1\n" * 200)
    for name, content in [
        ("truncated", packed[: len(packed) // 2]),
        ("garbage", b"this is not compressed at all"),
        ("empty", b""),
        ("flipped", packed[:20] + bytes([packed[20] ^ 0xFF]) + packed[21:]),
    ]:
        path = tmp_path / f"{name}.{ext}"
        path.write_bytes(content)
        try:
            X, _ = load_svmlight_file(path)
        except DataFormatError as e:
            assert e.file == str(path)
            assert f"not a valid {ext} file" in e.reason or "line" in str(e)
        else:
            # Only an empty .gz (gzip reads it as empty) may load: as no rows.
            assert name == "empty" and ext == "gz" and X.shape[0] == 0, (name, ext)
    path = tmp_path / f"missing.{ext}"
    with pytest.raises(FileNotFoundError):
        load_svmlight_file(path)


def test_the_loader_checks_its_size_arguments(tmp_path):
    path = tmp_path / "ok.svm"
    path.write_bytes(b"1 1:1\n")
    with pytest.raises(ValueError, match="n_features must be at most 2147483647"):
        load_svmlight_file(path, n_features=10**12)
    with pytest.raises(ValueError, match="length must be an integer"):
        load_svmlight_file(path, offset=0, length=1.5, n_features=3)
    X, _ = load_svmlight_file(path, n_features=2**31 - 1)  # the largest: no allocation
    assert X.shape == (1, 2**31 - 1)


def test_the_row_index_reports_label_positions():
    text = np.frombuffer(b"1 1:1\n\n  x 2:1\n", dtype=np.uint8)
    with pytest.raises(DataFormatError) as info:
        pegasos_rs._core.index_svmlight(text, 0)
    assert (info.value.line, info.value.column) == (3, 3)
    with pytest.raises(ValueError, match="overflows"):
        pegasos_rs._core.index_svmlight(np.frombuffer(b"1\n2\n", dtype=np.uint8), 2**64 - 1)


# --------------------------------------------------------------------------------------
# Model files


def _fitted(tmp_path, est=None):
    X, y = make_problem(n_samples=60, n_features=5, seed=11)
    est = est or PegasosClassifier(random_state=0, warm_start=True, max_iter=2)
    path = tmp_path / "m.pgs"
    est.fit(X, y).save(path)
    return path, path.read_bytes()


def _split(raw: bytes):
    (hlen,) = struct.unpack_from("<Q", raw, len(MAGIC) + 4)
    start = len(MAGIC) + 12
    return json.loads(raw[start : start + hlen]), raw[start + hlen : -4]


def _join(header, blob: bytes, hlen=None) -> bytes:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    n = len(text) if hlen is None else hlen
    body = MAGIC + struct.pack("<IQ", FORMAT_VERSION, n) + text + blob
    return body + struct.pack("<I", zlib.crc32(body))


def _edit(header, path: str, value):
    h = json.loads(json.dumps(header))
    *keys, last = path.split("/")
    node = h
    for k in keys:
        node = node[k]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value
    return h


_DELETE = object()

# path in the header, new value, expected message fragment
BAD_HEADERS = [
    ("arrays/coef_/shape", [10**6, 10**6], "needs 8000000000000 bytes"),
    ("arrays/coef_/shape", [10**12], "needs"),
    ("arrays/coef_/shape", [-1, 5], "bad shape"),
    ("arrays/coef_/shape", "5", "bad shape"),
    ("arrays/coef_/nbytes", 8 * 10**12, "needs 40 bytes"),
    ("arrays/coef_/offset", 10**15, "lies outside the file"),
    ("arrays/coef_/offset", -8, "bad shape, offset or size"),
    ("arrays/coef_/dtype", "|O", "unsupported dtype"),
    ("arrays/coef_/dtype", "V8", "unsupported dtype"),
    ("arrays/coef_/dtype", "<M8[s]", "unsupported dtype"),
    ("arrays/coef_/dtype", "no such dtype", "unsupported dtype"),
    ("arrays/coef_/dtype", 8, "unsupported dtype"),
    ("arrays/coef_/dtype", "<i8", "coef_ must hold floats"),
    ("arrays/coef_", _DELETE, "coef_ must have shape"),
    ("arrays/classes_/shape", [1], "needs"),
    ("arrays/intercept_/shape", [1, 1], "intercept_ must have shape"),
    ("arrays/_solver/shape", [4], "needs"),
    ("params/no_such_param", 1, "unknown parameters ['no_such_param']"),
    ("params/alpha", "abc", "invalid parameters"),
    ("params/alpha", -1.0, "invalid parameters"),
    ("params/sampling", {"__array__": [[1], [2, 3]]}, "invalid parameters"),
    ("params", [], "header field 'params' must be a dict"),
    ("arrays", None, "header field 'arrays' must be a dict"),
    ("scalars/n_features_in_", "many", "must be a non-negative number"),
    ("scalars/n_features_in_", 10**12, "coef_ must have shape"),
    ("scalars/t_", -5, "must be a non-negative number"),
    ("estimator", "os.system", "unknown estimator 'os.system'"),
    ("estimator", ["PegasosClassifier"], "unknown estimator"),
]


@pytest.mark.parametrize("key, value, fragment", BAD_HEADERS)
def test_damaged_model_headers_are_data_format_errors(tmp_path, key, value, fragment):
    path, raw = _fitted(tmp_path)
    header, blob = _split(raw)
    path.write_bytes(_join(_edit(header, key, value), blob))
    tracemalloc.start()
    try:
        with pytest.raises(DataFormatError) as info:
            pegasos_rs.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.file == str(path)
    assert fragment in info.value.reason, info.value.reason
    assert peak < 20 * 2**20  # nothing the size of the claims was allocated


def test_damaged_model_framing_is_a_data_format_error(tmp_path):
    path, raw = _fitted(tmp_path)
    header, blob = _split(raw)
    cases = {
        "header length 10**12": (raw[:12] + struct.pack("<Q", 10**12) + raw[20:], "checksum"),
        "header length 10**12, CRC fixed": (
            _join(json.dumps(header).encode(), blob, hlen=10**12),
            "exceeds the file",
        ),
        "JSON nested 10**5 deep": (_join(b"[" * 100_000, b""), "unreadable header"),
        "header a list": (_join(b"[1, 2]", blob), "not a JSON object"),
        "header not UTF-8": (_join(b"\xff\xfe", blob), "unreadable header"),
        "version 0": (raw[:8] + struct.pack("<I", 0) + raw[12:], "version 0"),
        "magic only": (MAGIC, "truncated"),
        "empty": (b"", "bad magic"),
    }
    for name, (content, fragment) in cases.items():
        if name == "version 0":
            body = content[:-4]
            content = body + struct.pack("<I", zlib.crc32(body))
        path.write_bytes(content)
        with pytest.raises(DataFormatError, match=fragment) as info:
            pegasos_rs.load(path)
        assert info.value.file == str(path), name


def test_solver_state_announcing_1e15_weights_is_refused_before_allocating(tmp_path):
    path, raw = _fitted(tmp_path)
    header, blob = _split(raw)
    meta = header["arrays"]["_solver"]
    state = bytearray(blob[meta["offset"] : meta["offset"] + meta["nbytes"]])
    # After b"PGLSTSET", the count, the first state's length, b"PGLSTATE", version
    # and the solver's tag byte.
    struct.pack_into("<Q", state, 8 + 8 + 8 + 8 + 4 + 1, 10**15)
    end = meta["offset"] + meta["nbytes"]
    path.write_bytes(_join(header, blob[: meta["offset"]] + bytes(state) + blob[end:]))
    with pytest.raises(DataFormatError, match="announces 1000000000000000 items"):
        pegasos_rs.load(path)
    # A permutation entry out of range (it would index a missing row on warm start).
    # average=False pinned: the offset below assumes a state with no averaged vector
    # (n_u = 0), which the default suffix averaging would add.
    est = PegasosClassifier(
        random_state=0, warm_start=True, sampling="shuffle", max_iter=1, average=False
    )
    path, raw = _fitted(tmp_path, est)
    header, blob = _split(raw)
    meta = header["arrays"]["_solver"]
    state = bytearray(blob[meta["offset"] : meta["offset"] + meta["nbytes"]])
    # The end of the first state: ... perm, avg_start, n_u = 0, beta, bias_sum, count.
    struct.pack_into("<I", state, len(state) - 40 - 4, 10**9)
    end = meta["offset"] + meta["nbytes"]
    path.write_bytes(_join(header, blob[: meta["offset"]] + bytes(state) + blob[end:]))
    with pytest.raises(DataFormatError, match="permutation"):
        pegasos_rs.load(path)


def test_inconsistent_kernel_models_are_refused(tmp_path):
    est = KernelPegasosClassifier(random_state=0, max_iter=2, gamma=0.5)
    path, raw = _fitted(tmp_path, est)
    header, blob = _split(raw)
    n_sv = header["arrays"]["support_"]["shape"][0]
    for key, value, fragment in [
        ("scalars/_gamma", -1.0, "_gamma must be a positive number"),
        ("scalars/_gamma", "x", "non-negative number"),
        ("arrays/n_support_/shape", [1], "needs"),
        ("arrays/support_/dtype", "<f4", "support_ must hold integers"),
        ("arrays/dual_coef_/shape", [n_sv, 1], "dual_coef_ must be floats"),
        ("arrays/support_vectors_", _DELETE, "support_vectors_ is missing"),
    ]:
        path.write_bytes(_join(_edit(header, key, value), blob))
        with pytest.raises(DataFormatError) as info:
            pegasos_rs.load(path)
        assert fragment in info.value.reason, (key, info.value.reason)


def test_sparse_support_vectors_with_bad_indices_are_refused(tmp_path):
    X, y = make_problem(n_samples=60, n_features=5, seed=12)
    est = KernelPegasosClassifier(random_state=0, max_iter=2).fit(sp.csr_matrix(X), y)
    path = tmp_path / "k.pgs"
    est.save(path)
    header, blob = _split(path.read_bytes())
    meta = header["arrays"]["support_vectors_.indices"]
    bad = bytearray(blob)
    struct.pack_into("<i", bad, meta["offset"], 10**6)
    path.write_bytes(_join(header, bytes(bad)))
    with pytest.raises(DataFormatError, match="sparse support_vectors_"):
        pegasos_rs.load(path)
    path.write_bytes(_join(_edit(header, "sparse/support_vectors_/shape", [10**12]), blob))
    with pytest.raises(DataFormatError, match="bad shape"):
        pegasos_rs.load(path)


LIBLINEAR_OK = (
    "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias 1\n"
    "w\n0.5 \n-0.25 \n0.125 \n"
)

BAD_LIBLINEAR = [
    (LIBLINEAR_OK.replace("nr_feature 2", "nr_feature 1000000000000"), 10, "found 3"),
    (LIBLINEAR_OK.replace("nr_feature 2", "nr_feature -3"), 4, "bad nr_feature"),
    (LIBLINEAR_OK.replace("nr_feature 2", "nr_feature 2.5"), 4, "expected integers after"),
    (LIBLINEAR_OK.replace("nr_class 2", "nr_class 10000000000000"), 2, "bad nr_class"),
    (LIBLINEAR_OK.replace("nr_class 2", "nr_class 1"), 3, "expected 1 value(s) after label"),
    (
        LIBLINEAR_OK.replace("nr_class 2", "nr_class 1").replace("label 1 -1", "label 1"),
        None,
        "at least 2",
    ),
    (LIBLINEAR_OK.replace("label 1 -1", "label 1 1"), 3, "not distinct"),
    (LIBLINEAR_OK.replace("label 1 -1", "label 1 nan"), 3, "must be finite"),
    (LIBLINEAR_OK.replace("label 1 -1", "label 1 x"), 3, "expected numbers after label"),
    (LIBLINEAR_OK.replace("bias 1", "bias inf"), 5, "must be finite"),
    (LIBLINEAR_OK.replace("bias 1", "bias"), 5, "expected 1 value(s) after bias"),
    (LIBLINEAR_OK.replace("-0.25 ", "-0.25 7"), 8, "expected 1 finite weights"),
    (LIBLINEAR_OK.replace("-0.25 ", "nan"), 8, "expected 1 finite weights"),
    (LIBLINEAR_OK.replace("-0.25 ", "1e400"), 8, "expected 1 finite weights"),
    (LIBLINEAR_OK.replace("0.125 \n", ""), 9, "truncated"),
    (LIBLINEAR_OK + "0.5\n", 10, "text after the 3 weight lines"),
    (LIBLINEAR_OK.replace("w\n", ""), None, "no 'w' line"),
    (LIBLINEAR_OK.replace("label 1 -1\n", ""), None, "no 'label' line"),
    (LIBLINEAR_OK.replace("bias 1", "bias 1\nnr_weights 3"), 6, "unknown keyword"),
    # MCSVM_CS keeps a weight per class even for two classes.
    (LIBLINEAR_OK.replace("_DUAL", "").replace("L2R_L2LOSS_SVC", "MCSVM_CS"), 7, "expected 2"),
    (LIBLINEAR_OK.replace("L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVR"), 1, "regression"),
    (LIBLINEAR_OK.replace("L2R_L2LOSS_SVC_DUAL", "L9R_NEW"), 1, "unknown LIBLINEAR solver"),
]


@pytest.mark.parametrize("text, line, fragment", BAD_LIBLINEAR)
def test_bad_liblinear_models_name_the_line(tmp_path, text, line, fragment):
    path = tmp_path / "liblinear.model"
    path.write_text(text)
    with pytest.raises(DataFormatError) as info:
        pegasos_rs.load(path)
    assert fragment in info.value.reason, info.value.reason
    assert info.value.line == line
    assert info.value.file == str(path)


def test_a_good_liblinear_model_still_loads(tmp_path):
    path = tmp_path / "liblinear.model"
    path.write_text(LIBLINEAR_OK)
    est = pegasos_rs.load(path)
    np.testing.assert_array_equal(est.classes_, [-1, 1])
    assert est.coef_.shape == (1, 2)


# --------------------------------------------------------------------------------------
# Fuzz smoke run: the atheris targets' bodies, without atheris


def _target(name):
    spec = importlib.util.spec_from_file_location(name, FUZZ / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(out))
        op = rng.randrange(6)
        if op == 0 and out:
            k = rng.randrange(len(out))
            out[k] ^= 1 << rng.randrange(8)
        elif op == 1:
            token = rng.choice([b":", b"\n", b"#", b" ", b"nan", b"1e400", b"-", b"\x00", b'"'])
            out[at:at] = token
        elif op == 2:
            del out[at : at + rng.randint(1, 16)]
        elif op == 3:
            out = out[:at]
        elif op == 4 and at + 8 <= len(out):
            out[at : at + 8] = struct.pack("<Q", rng.choice([0, 2**64 - 1, 10**12, 1 << 40]))
        else:
            out.append(rng.randrange(256))
    return bytes(out)


def _regressions(name):
    d = FUZZ / "regressions" / name
    return [p.read_bytes() for p in sorted(d.glob("*"))] if d.is_dir() else []


def _model_seeds(tmp_path):
    X, y = make_problem(n_samples=40, n_features=4, n_classes=3, seed=13)
    seeds = []
    for k, est in enumerate(
        [
            PegasosClassifier(random_state=0, warm_start=True, max_iter=1),
            PegasosClassifier(random_state=0, average=True, sampling="shuffle", max_iter=1),
            KernelPegasosClassifier(random_state=0, max_iter=1, gamma=0.5),
            make_pipeline(
                StandardScaler(), Nystroem(n_components=5, random_state=0), PegasosClassifier()
            ),
            make_pipeline(
                MaxAbsScaler(),
                AdditiveKernelMap(order=1),
                RandomFourierFeatures(n_components=6, random_state=0),
            ),
        ]
    ):
        Xk = np.abs(X) if k == 4 else X
        est.fit(sp.csr_matrix(Xk) if k in (2, 4) else Xk, y if k else (y > 0).astype(int))
        pegasos_rs.save(est, tmp_path / "seed")
        raw = (tmp_path / "seed").read_bytes()
        header, blob = _split(raw)
        seeds += [
            b"\x00" + raw,
            b"\x01" + raw,
            b"\x02" + json.dumps(header).encode() + b"\x00" + blob,
        ]
    seeds.append(b"\x00" + LIBLINEAR_OK.encode())
    return seeds


def test_fuzz_smoke_model_io(tmp_path):
    target = _target("atheris_model_io")
    rng = random.Random(0)
    seeds = _model_seeds(tmp_path) + _regressions("model_io")
    runs = 0
    for seed in seeds:
        target.check(seed)
        for _ in range(200):
            target.check(_mutate(seed, rng))
            runs += 1
    assert runs >= 2000


def test_fuzz_smoke_svmlight_files():
    target = _target("atheris_svmlight")
    rng = random.Random(1)
    texts = [p.read_bytes() for p in sorted((FUZZ / "seeds" / "svmlight").glob("*.svm"))]
    assert len(texts) >= 20
    seeds = []
    for k, text in enumerate(texts):
        seeds.append(bytes([k % 64 & ~7]) + text)  # plain, various options
    basic = (FUZZ / "seeds" / "svmlight" / "basic.svm").read_bytes() * 20
    for kind, compress in enumerate([gzip.compress, lzma.compress, bz2.compress], start=1):
        packed = compress(basic)
        seeds += [bytes([kind]) + packed, bytes([kind]) + packed[: len(packed) // 2]]
    seeds.append(bytes([4, 3, 70]) + basic)
    seeds += _regressions("svmlight_file")
    for seed in seeds:
        target.check(seed)
        for _ in range(60):
            target.check(_mutate(seed, rng))
