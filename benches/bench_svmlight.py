"""svmlight reader benchmark: pegasos_rs.load_svmlight_file against scikit-learn's.

    python benches/bench_svmlight.py [--quick | --smoke] [--repeats N]

``--smoke`` writes a generated RCV1-shaped file with scikit-learn's writer and reads
that (no dataset files needed; the test suite's mode, ``svmlight_smoke.md``).

Each benchmark file is decompressed once to a temporary plain-text file (scikit-learn
cannot read .xz); both readers then parse that file (median of repeats), and the
results are checked to be identical (values, indices, pointers, labels). Writes
``benches/results/svmlight.md`` (``svmlight_quick.md`` with ``--quick``). Target:
at least 5x faster than scikit-learn on imdb TF-IDF train.
"""

from __future__ import annotations

import argparse
import lzma
import tempfile
import time
from pathlib import Path

import common  # one-thread environment before numpy
import numpy as np
from common import check, timeit
from report import markdown_table, publish

FILES = [
    "imdb.tfidf1.train.xz",
    "20news-bydate.tfidf12.train.xz",
    "a9a.xz",
    "reuters-lasvm.trn.xz",
    "sector.scale.xz",
]
QUICK_FILES = ["a9a.xz", "reuters-lasvm.trn.xz"]
TARGET = 5.0


def write_plain(name: str, plain: Path, data_dir: Path | None) -> None:
    """The file to read, uncompressed at ``plain``: a generated one for ``--smoke``
    (``data_dir`` None), else the decompressed ``data_dir / name``."""
    if data_dir is None:
        from rcv1_like import make_rcv1_like
        from sklearn.datasets import dump_svmlight_file

        dump_svmlight_file(*make_rcv1_like(3000, n_features=2000, nnz_per_row=20), str(plain))
    else:
        with lzma.open(data_dir / name) as src:
            plain.write_bytes(src.read())


def measure(name: str, data_dir: Path | None, repeats: int) -> list[str]:
    """Both readers on one file, timed, their arrays checked identical: its row."""
    from pegasos_rs import load_svmlight_file
    from sklearn.datasets import load_svmlight_file as sk_load

    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / name.removesuffix(".xz")
        write_plain(name, plain, data_dir)
        size_mb = plain.stat().st_size / 2**20
        t_sk, (Xs, ys), _ = timeit(lambda: sk_load(str(plain)), repeats)
        t_1, (X1, y1), _ = timeit(lambda: load_svmlight_file(plain), repeats)
        t_2, (X2, _), _ = timeit(lambda: load_svmlight_file(plain, n_jobs=2), repeats)
    for X in (X1, X2):
        check(
            X.shape == Xs.shape
            and np.array_equal(X.data, Xs.data)
            and np.array_equal(X.indices, Xs.indices)
            and np.array_equal(X.indptr, Xs.indptr),
            f"{name}: pegasos_rs and scikit-learn disagree",
        )
    check(np.array_equal(y1, ys), f"{name}: labels disagree")
    ratio = t_sk / t_2
    target = ("PASS" if ratio >= TARGET else "MISS") if name.startswith("imdb") else ""
    return [
        name.removesuffix(".xz"), f"{size_mb:.1f} MB, {Xs.nnz:,} nnz", f"{t_sk:.3f} s",
        f"{t_1:.3f} s ({t_sk / t_1:.1f}x)", f"{t_2:.3f} s ({ratio:.1f}x)", target,
    ]  # fmt: skip


def main() -> None:
    import shared_data as _datasets

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two small files")
    ap.add_argument("--smoke", action="store_true", help="a small generated file")
    ap.add_argument("--repeats", type=int, help="timing repeats (median); 3, 1 with --smoke")
    args = ap.parse_args()
    if args.repeats is None:
        args.repeats = 1 if args.smoke else 3
    if args.smoke:
        common.smoke_run()
    started = time.perf_counter()
    d = _datasets.data_dir()
    if d is None and not args.smoke:
        raise SystemExit("benchmark data not found: set PEGASOS_DATA")
    rows = []
    for name in ["rcv1-like-smoke.xz"] if args.smoke else QUICK_FILES if args.quick else FILES:
        if not args.smoke and not (d / name).exists():
            print(f"{name}: absent, skipped")
            continue
        rows.append(measure(name, None if args.smoke else d, args.repeats))
        print(rows[-1], flush=True)
    check(bool(rows), "no file measured")
    suffix = "_smoke" if args.smoke else "_quick" if args.quick else ""
    header = ["file", "size", "scikit-learn", "pegasos_rs, 1 thread (speed-up)",
              "pegasos_rs, 2 threads (speed-up)", f"target >= {TARGET:g}x"]  # fmt: skip
    text = (
        "# svmlight reader: pegasos_rs against scikit-learn\n\n"
        f"`python benches/bench_svmlight.py{' --' + suffix[1:] if suffix else ''}`; plain-text "
        f"files (decompressed beforehand), median of {args.repeats}; identical arrays "
        "checked.\n\n" + markdown_table(header, rows) + "\n"
    )
    publish(f"svmlight{suffix}", text, started)


if __name__ == "__main__":
    main()
