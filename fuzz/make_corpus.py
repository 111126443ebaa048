"""Write the seed corpora of the fuzz targets to fuzz/corpus/<target>/ (not committed).

    python fuzz/make_corpus.py [--data ../shared/data]

Seeds: the hand-made edge cases in fuzz/seeds/svmlight/, the first few KB of each
svmlight file of the data directory (decompressed; cut at a line end and in the
middle of a line), small .gz/.xz/.bz2 files and truncated ones, solver states and
model files of fitted estimators (PegasosClassifier with a warm-start state, binary
and multiclass, KernelPegasosClassifier dense and sparse, a LIBLINEAR text model),
and damaged model files (a header announcing 10**12 elements, an array lying
outside the file, unknown dtypes, a solver state announcing 10**15 weights).

Targets and input layouts (see fuzz/src/lib.rs and the atheris scripts):

* ``svmlight_parse``: 1 option byte + text;
* ``svmlight_leading``: 1 option byte (bits 0-1: leading numbers - 1, bit 2:
  one-based, bit 3: query ids) + text;
* ``svmlight_index``: 8-byte little-endian base offset + text;
* ``solver_state``: 1 selector byte + solver-state blob;
* ``model_io`` (atheris): a model file;
* ``svmlight_file`` (atheris): 1 option byte + file content (maybe compressed).
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import json
import lzma
import struct
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEEDS = HERE / "seeds"
SLICE = 4096


def _svmlight_texts(data_dir: Path | None) -> dict[str, bytes]:
    texts = {p.stem: p.read_bytes() for p in sorted((SEEDS / "svmlight").glob("*.svm"))}
    if data_dir is None or not data_dir.is_dir():
        return texts
    for p in sorted(data_dir.glob("*.xz")):
        if "mnist" in p.name or p.name.startswith("20news-bydate.tar"):
            continue  # not svmlight
        with lzma.open(p, "rb") as f:
            head = f.read(SLICE)
        cut = head.rfind(b"\n") + 1
        texts[f"data_{p.name[:-3]}"] = head[:cut]
        texts[f"data_{p.name[:-3]}_midline"] = head[: cut + (len(head) - cut) // 2]
    return texts


def _model_files(tmp: Path) -> dict[str, bytes]:
    import scipy.sparse as sp
    from pegasos_rs import KernelPegasosClassifier, PegasosClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y2 = (X[:, 0] > 0).astype(int)
    y3 = np.digitize(X[:, 1], [-0.5, 0.5])
    models = {
        "linear_warm_binary": PegasosClassifier(random_state=0, warm_start=True, max_iter=2),
        "linear_warm_multi_avg": PegasosClassifier(
            random_state=1, warm_start=True, average=True, sampling="shuffle", max_iter=2
        ),
        "linear_warm_shuffle_small": PegasosClassifier(
            random_state=2, warm_start=True, average=True, sampling="shuffle", max_iter=1
        ),
        "kernel_rbf": KernelPegasosClassifier(random_state=0, max_iter=2, gamma=0.5),
        "kernel_poly_sparse": KernelPegasosClassifier(
            random_state=0, max_iter=2, kernel="poly", degree=2
        ),
    }
    out = {}
    for name, est in models.items():
        y = y3 if "multi" in name or "poly" in name else y2
        if "small" in name:  # 6 rows: the fuzz target trains on up to 8
            est.fit(X[:6], np.array([0, 1, 0, 1, 1, 0]))
            est.max_iter = 1
        else:
            est.fit(sp.csr_matrix(X) if "sparse" in name else X, y)
        path = tmp / name
        est.save(path)
        out[name] = path.read_bytes()
    # Feature maps, scalers and pipelines (format version 2).
    from pegasos_rs import AdditiveKernelMap, Nystroem, RandomFourierFeatures, save
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler, StandardScaler

    A = np.abs(X)
    fitted = {
        "pipeline_nystroem_linear": make_pipeline(
            StandardScaler(), Nystroem(n_components=6, random_state=0), PegasosClassifier()
        ).fit(X, y2),
        "pipeline_fourier_kernel_sparse": make_pipeline(
            MaxAbsScaler(), RandomFourierFeatures(n_components=5, random_state=0),
            KernelPegasosClassifier(max_iter=1, random_state=0),
        ).fit(sp.csr_matrix(X), y3),
        "map_additive": AdditiveKernelMap(order=1).fit(A),
        "map_nystroem_precomputed": Nystroem("precomputed", n_components=4).fit(A @ A.T),
    }  # fmt: skip
    for name, est in fitted.items():
        save(est, tmp / name)
        out[name] = (tmp / name).read_bytes()
    # String labels.
    est = PegasosClassifier(random_state=0, max_iter=1).fit(X, np.array(["a", "b"])[y2])
    est.save(tmp / "labels")
    out["linear_string_labels"] = (tmp / "labels").read_bytes()
    out["liblinear_binary"] = (
        b"solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias 1\n"
        b"w\n0.5 \n-0.25 \n1e-3 \n0.125 \n"
    )
    out["liblinear_multi_nobias"] = (
        b"solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 3\nlabel 2 0 1\nnr_feature 2\nbias -1\n"
        b"w\n0.5 1 -1 \n-0.25 2 0 \n"
    )
    out["liblinear_huge_header"] = (
        b"solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 1000000000000\nlabel 1 -1\n"
        b"nr_feature 1000000000000\nbias 1\nw\n0.5\n"
    )
    out.update(_damaged(out["linear_warm_binary"]))
    return out


def _split(raw: bytes):
    from pegasos_rs.io.model_io import MAGIC

    (hlen,) = struct.unpack_from("<Q", raw, len(MAGIC) + 4)
    start = len(MAGIC) + 12
    return json.loads(raw[start : start + hlen]), raw[start + hlen : -4]


def _join(header: dict, blob: bytes) -> bytes:
    from pegasos_rs.io.model_io import FORMAT_VERSION, MAGIC

    text = json.dumps(header).encode()
    body = MAGIC + struct.pack("<IQ", FORMAT_VERSION, len(text)) + text + blob
    return body + struct.pack("<I", zlib.crc32(body))


def _damaged(raw: bytes) -> dict[str, bytes]:
    header, blob = _split(raw)
    out = {}
    h = json.loads(json.dumps(header))
    h["arrays"]["coef_"]["shape"] = [10**6, 10**6]
    out["damaged_shape_1e12"] = _join(h, blob)
    h = json.loads(json.dumps(header))
    h["arrays"]["coef_"]["nbytes"] = 8 * 10**12
    out["damaged_nbytes_1e12"] = _join(h, blob)
    h = json.loads(json.dumps(header))
    h["arrays"]["coef_"]["dtype"] = "|O"
    out["damaged_object_dtype"] = _join(h, blob)
    h = json.loads(json.dumps(header))
    h["params"]["no_such_param"] = 1
    out["damaged_unknown_param"] = _join(h, blob)
    h = json.loads(json.dumps(header))
    h["scalars"]["n_features_in_"] = "many"
    out["damaged_scalar_type"] = _join(h, blob)
    meta = header["arrays"]["_solver"]
    state = bytearray(blob[meta["offset"] : meta["offset"] + meta["nbytes"]])
    # The first state's weight count (after b"PGLSTSET", the count, the length,
    # b"PGLSTATE", the version and the solver's tag byte): 10**15.
    struct.pack_into("<Q", state, 8 + 8 + 8 + 8 + 4 + 1, 10**15)
    out["damaged_state_nv_1e15"] = _join(
        header, blob[: meta["offset"]] + bytes(state) + blob[meta["offset"] + meta["nbytes"] :]
    )
    out["damaged_truncated"] = raw[: len(raw) // 2]
    out["damaged_header_length_1e12"] = raw[:12] + struct.pack("<Q", 10**12) + raw[20:]
    return out


def _framed(models: dict[str, bytes]) -> dict[str, bytes]:
    """Mode byte + content for the model_io target (see atheris_model_io.py): each
    model as is (0), with the CRC recomputed by the target (1) and, for pegasos-rs
    files, as header JSON, NUL, arrays (2)."""
    from pegasos_rs.io.model_io import MAGIC

    out = {}
    for name, raw in models.items():
        out[f"{name}_raw"] = b"\x00" + raw
        out[f"{name}_crc"] = b"\x01" + raw
        if raw.startswith(MAGIC) and name != "damaged_truncated":
            try:
                header, blob = _split(raw)
            except ValueError:
                continue
            out[f"{name}_split"] = b"\x02" + json.dumps(header).encode() + b"\x00" + blob
    return out


def _states(models: dict[str, bytes]) -> dict[str, bytes]:
    out = {}
    for name, raw in models.items():
        if not name.startswith("linear_warm"):
            continue
        header, blob = _split(raw)
        meta = header["arrays"]["_solver"]
        out[name] = blob[meta["offset"] : meta["offset"] + meta["nbytes"]]
    return out


def _compressed(texts: dict[str, bytes]) -> dict[str, bytes]:
    """Option byte + content for the svmlight_file target: bits 0-1 pick the
    compression (none, gz, xz, bz2)."""
    out = {}
    base = texts.get("basic", b"1 1:1\n")
    sample = texts.get("data_a9a", base)
    for k, (tag, comp) in enumerate(
        [
            ("plain", lambda b: b),
            ("gz", gzip.compress),
            ("xz", lzma.compress),
            ("bz2", bz2.compress),
        ]
    ):
        for name, text in [("basic", base), ("sample", sample)]:
            packed = comp(text)
            out[f"{tag}_{name}"] = bytes([k]) + packed
            if k:
                out[f"{tag}_{name}_truncated"] = bytes([k]) + packed[: len(packed) // 2]
    # A window (bit 2) over a plain text.
    out["plain_window"] = bytes([4]) + sample
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=HERE / "corpus")
    args = ap.parse_args(argv)
    texts = _svmlight_texts(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        models = _model_files(Path(tmp))
    corpora: dict[str, dict[str, bytes]] = {
        "svmlight_parse": {},
        "svmlight_leading": {
            # LIBSVM support-vector lines of a 3-class model: two coefficients first.
            "libsvm_sv_3_classes": b"\x05" + b"0.5 -1 1:2 3:4\n1e-300 2.5\n-0 7 2:1\n",
        },
        "svmlight_index": {},
        "solver_state": {},
        "model_io": _framed(models),
        "svmlight_file": _compressed(texts),
    }
    for name, text in texts.items():
        corpora["svmlight_parse"][f"{name}_zero"] = b"\x00" + text
        corpora["svmlight_index"][name] = struct.pack("<Q", 1000) + text
        corpora["svmlight_leading"][f"{name}_one"] = b"\x04" + text
        corpora["svmlight_leading"][f"{name}_two"] = b"\x05" + text
        if name in ("basic", "qid", "crlf", "data_a9a"):
            corpora["svmlight_parse"][f"{name}_one_qid"] = b"\x03" + text
    for name, blob in _states(models).items():
        # Selector: shuffled sampling, averaging, 6 rows (bits 5-7 = 5).
        corpora["solver_state"][f"{name}_set"] = bytes([0xAA]) + blob
        # The first state alone: after the set magic, the count and its length.
        (n,) = struct.unpack_from("<Q", blob, 16)
        corpora["solver_state"][f"{name}_one"] = bytes([0xAB]) + blob[24 : 24 + n]
    for target, files in corpora.items():
        d = args.out / target
        d.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            (d / name).write_bytes(content)
        print(f"{target}: {len(files)} seeds in {d}", file=sys.stderr)


if __name__ == "__main__":
    main()
