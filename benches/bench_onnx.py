"""ONNX inference against ``predict`` (issue 29): the latency of one row and the time
of 10,000 rows, onnxruntime on the exported graph against the model's ``predict`` in
Python, one thread each.

    python benches/bench_onnx.py [--repeats 5] [--calls 2000]
    python benches/bench_onnx.py --smoke    # generated data, no result files

Models: a linear SVM on a9a, a 10-class logistic regression on usps, a pipeline
``StandardScaler -> Nystroem(500) -> PegasosClassifier`` on usps, a
``KernelPegasosClassifier`` (rbf, one-vs-one) on usps, a ``PegasosRegressor`` and a
``KernelPegasosRegressor`` (rbf) on cpusmall (generated data of the same shapes for a set that is
absent, and in the smoke mode). ``predict`` reads float64 rows (what a Python caller
holds), onnxruntime the float32 rows its graph takes, converted beforehand (what a
server holds). A single row's time is the mean of ``--calls`` calls after 50 warm-up
calls; each figure is the median of ``--repeats`` such measurements. The labels (the
values for the regressor) are checked against ``predict`` on the 10,000 rows before
anything is timed. Writes ``results/onnx.md`` and ``results/onnx.json``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import common  # the one-thread environment before numpy is imported
import numpy as np
import report
import scipy.sparse as sp
import shared_data

#: The rows of the batch measurement.
BATCH = 10_000


def _data(name: str, n_features: int, n_classes: int | None, smoke: bool):
    """``(X_train, y_train, X_rows)``: the set's training rows and ``BATCH`` test rows
    (repeated when the test set is smaller), dense float64; generated data of the
    same width when the set is absent or in the smoke mode."""
    if not smoke and shared_data.available(name):
        X, y, Xt, _ = shared_data.load(name)
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        Xt = Xt.toarray() if sp.issparse(Xt) else np.asarray(Xt)
        source = name
    else:
        rng = np.random.RandomState(0)
        n = 200 if smoke else 20_000
        X = rng.randn(n, n_features)
        Xt = rng.randn(2_000, n_features)
        W = rng.randn(n_features, n_classes or 1)
        score = X @ W + 0.5 * rng.randn(n, n_classes or 1)
        y = score[:, 0] if n_classes is None else np.argmax(score, axis=1)
        if n_classes == 2:
            y = (score[:, 0] > 0).astype(int)
        source = f"generated {n} x {n_features}"
    rows = np.resize(Xt, (BATCH, Xt.shape[1]))
    return X, y, np.ascontiguousarray(rows, dtype=np.float64), source


def _models(smoke: bool):
    """name -> (fitted model, rows, the data's description, is a classifier)."""
    from pegasos_rs import (
        KernelPegasosClassifier,
        KernelPegasosRegressor,
        Nystroem,
        PegasosClassifier,
        PegasosRegressor,
    )
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    passes = 2 if smoke else 10
    out = {}
    X, y, rows, source = _data("a9a", 123, 2, smoke)
    out["PegasosClassifier (hinge), a9a"] = (
        PegasosClassifier(alpha=1e-4, max_iter=passes, random_state=0).fit(X, y),
        rows,
        source,
        True,
    )
    X, y, rows, source = _data("usps", 256, 10, smoke)
    out["PegasosClassifier (log_loss, 10 classes), usps"] = (
        PegasosClassifier(loss="log_loss", alpha=1e-4, max_iter=passes, random_state=0).fit(X, y),
        rows,
        source,
        True,
    )
    landmarks = 50 if smoke else 500
    pipe = make_pipeline(
        StandardScaler(),
        Nystroem(gamma=1 / 256, n_components=landmarks, random_state=0),
        PegasosClassifier(alpha=1e-5, max_iter=passes, random_state=0),
    )
    out[f"StandardScaler + Nystroem({landmarks}) + PegasosClassifier, usps"] = (
        pipe.fit(X, y),
        rows,
        source,
        True,
    )
    kernel = KernelPegasosClassifier(multi_class="ovo", max_iter=passes, random_state=0)
    out["KernelPegasosClassifier (rbf, one-vs-one), usps"] = (kernel.fit(X, y), rows, source, True)
    X, y, rows, source = _data("cpusmall", 12, None, smoke)
    out["PegasosRegressor, cpusmall"] = (
        PegasosRegressor(alpha=1e-5, max_iter=passes, random_state=0).fit(X, y),
        rows,
        source,
        False,
    )
    out["KernelPegasosRegressor (rbf), cpusmall"] = (
        KernelPegasosRegressor(max_iter=passes, random_state=0).fit(X, y),
        rows,
        source,
        False,
    )
    return out


def _session(model, n_features: int, classifier: bool):
    import onnxruntime as ort
    import pegasos_rs

    options = {"zipmap": False} if classifier else None
    onx = pegasos_rs.to_onnx(model, n_features=n_features, options=options)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        onx.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return lambda rows: session.run(None, {"X": rows})


def _per_call(call, calls: int, repeats: int) -> tuple[float, int]:
    """Median over ``repeats`` of the mean time of ``calls`` calls of ``call()``."""
    for _ in range(50):
        call()
    means = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        means.append((time.perf_counter() - t0) / calls)
    return statistics.median(means), len(means)


def measure(name: str, model, rows: np.ndarray, classifier: bool, calls: int, repeats: int):
    run = _session(model, rows.shape[1], classifier)
    rows32 = rows.astype(np.float32)
    # Correctness first: the graph must predict what the model predicts.
    expected = model.predict(rows)
    got = run(rows32)
    if classifier:
        agree = float(np.mean(got[0] == expected))
        common.check(agree >= 0.999, f"{name}: labels agree on {agree:.4%} only")
    else:
        scale = float(np.abs(expected).max())
        error = float(np.abs(got[0].ravel() - expected).max())
        common.check(error <= 1e-4 * scale, f"{name}: values differ by {error:.3g}")
        agree = None
    one, one32 = rows[:1], rows32[:1]
    row_py, n_runs = _per_call(lambda: model.predict(one), calls, repeats)
    row_ort, _ = _per_call(lambda: run(one32), calls, repeats)
    batch_py, _, _ = common.timeit(lambda: model.predict(rows), repeats)
    batch_ort, _, _ = common.timeit(lambda: run(rows32), repeats)
    result = {
        "model": name,
        "row_predict": row_py,
        "row_onnx": row_ort,
        "batch_predict": batch_py,
        "batch_onnx": batch_ort,
        "agree": agree,
        "runs": n_runs,
    }
    print(
        f"{name}: one row {row_py * 1e6:.0f} / {row_ort * 1e6:.0f} µs, "
        f"{BATCH} rows {batch_py * 1e3:.1f} / {batch_ort * 1e3:.1f} ms (predict / onnxruntime)",
        flush=True,
    )
    return result


def _report(results: list[dict], sources: dict, calls: int) -> str:
    rows = []
    for r in results:
        rows.append(
            [
                r["model"],
                sources[r["model"]],
                report.fmt_time(r["row_predict"]),
                report.fmt_time(r["row_onnx"]),
                f"{r['row_predict'] / r['row_onnx']:.1f}x",
                report.fmt_time(r["batch_predict"]),
                report.fmt_time(r["batch_onnx"]),
                f"{r['batch_predict'] / r['batch_onnx']:.1f}x",
            ]
        )
    header = [
        "model",
        "data",
        "1 row: predict",
        "1 row: onnxruntime",
        "speed-up",
        f"{BATCH:,} rows: predict",
        f"{BATCH:,} rows: onnxruntime",
        "speed-up",
    ]
    runs = results[0]["runs"]
    lines = [
        "# ONNX inference (onnxruntime) against predict in Python, one thread",
        *report.section(
            f"1 row and {BATCH:,} rows",
            report.markdown_table(header, rows, "ll" + "r" * 6),
        ),
        *report.notes(
            [
                f"1 row: the mean of {calls} calls after 50 warm-up calls; every figure "
                f"is the median of {runs} runs.",
                "predict reads float64 rows; onnxruntime the float32 rows of its graph "
                "(pegasos_rs.to_onnx, zipmap=False), converted beforehand; one thread "
                "each (intra_op_num_threads=1, n_jobs=None).",
                "Before timing, the graph's labels are checked against predict's on the "
                f"{BATCH:,} rows (at least 99.9 % equal), the regressor's values within "
                "1e-4 of the largest.",
            ]
        ),
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--smoke", action="store_true", help="generated data, no result files")
    args = ap.parse_args()
    started = time.perf_counter()
    calls = 20 if args.smoke else args.calls
    repeats = 1 if args.smoke else max(3, args.repeats)
    if args.smoke:
        common.smoke_run()
    results, sources = [], {}
    with common.single_thread():
        for name, (model, rows, source, classifier) in _models(args.smoke).items():
            sources[name] = source
            results.append(measure(name, model, rows, classifier, calls, repeats))
    text = _report(results, sources, calls)
    if not args.smoke:
        common.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        report.write_json(common.RESULTS_DIR / "onnx.json", {"results": results})
    report.publish("onnx", text, started, also="onnx.json", write=not args.smoke)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
