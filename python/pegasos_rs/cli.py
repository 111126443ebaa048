"""The ``pegasos-rs`` command line.

``pegasos-rs demo`` trains PegasosClassifier and LIBLINEAR on the same problems
(datasets scikit-learn ships, plus a seeded sparse text-like problem) and prints
test accuracy and training time side by side. ``pegasos-rs train`` and
``pegasos-rs predict`` work like LIBLINEAR's programs (see
:mod:`pegasos_rs.cli_train_predict`).
"""

from __future__ import annotations

import argparse
import sys
import time


def _liblinear():
    """LIBLINEAR's dual coordinate descent (``-s 3``): liblinear-official when
    installed, else the copy of LIBLINEAR inside scikit-learn's LinearSVC."""
    try:
        from liblinear.liblinearutil import train as ll_train

        def fit_predict(X, y, Xt, C):
            import numpy as np

            model = ll_train(y, X, f"-s 3 -c {C} -B 1 -q")
            labels = np.asarray(model.get_labels())
            n_out = 1 if labels.size == 2 else labels.size
            d = X.shape[1]
            W = np.array([model.w[i] for i in range((d + 1) * n_out)]).reshape(d + 1, n_out)
            scores = Xt @ W[:d] + W[d]
            if n_out == 1:
                return np.where(scores[:, 0] > 0, labels[0], labels[1])
            return labels[np.argmax(scores, axis=1)]

        return "LIBLINEAR -s 3 (liblinear-official)", fit_predict
    except ImportError:
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        from sklearn.svm import LinearSVC

        def fit_predict(X, y, Xt, C):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                return LinearSVC(C=C, loss="hinge", dual=True).fit(X, y).predict(Xt)

        return "LIBLINEAR (scikit-learn LinearSVC)", fit_predict


def _problems(quick: bool):
    import numpy as np
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    yield "breast_cancer (binary)", *train_test_split(X, y, test_size=0.3, random_state=0)
    X, y = load_digits(return_X_y=True)
    yield "digits (10 classes)", *train_test_split(X / 16.0, y, test_size=0.3, random_state=0)
    m = 20_000 if quick else 200_000
    X, y = _sparse_text_like(m, 20_000, 40, np.random.RandomState(0))
    cut = int(0.8 * m)
    yield f"sparse text-like {m}x20000 (binary)", X[:cut], X[cut:], y[:cut], y[cut:]


def _sparse_text_like(m, d, nnz_per_row, rng):
    """Rows with Zipf-distributed feature ids, L2-normalised, labels from a planted
    sparse separator with 5% label noise."""
    import numpy as np
    import scipy.sparse as sp

    ranks = np.arange(1, d + 1)
    p = 1.0 / ranks**1.1
    p /= p.sum()
    cols = rng.choice(d, size=m * nnz_per_row, p=p)
    rows = np.repeat(np.arange(m), nnz_per_row)
    vals = rng.exponential(1.0, size=m * nnz_per_row)
    X = sp.csr_matrix((vals, (rows, cols)), shape=(m, d))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.diags(1.0 / np.maximum(norms, 1e-12)) @ X
    w = rng.standard_normal(d) * (rng.random_sample(d) < 0.2)
    score = X @ w
    y = np.where(score > np.median(score), 1, -1)
    flip = rng.random_sample(m) < 0.05
    y[flip] = -y[flip]
    return X.tocsr(), y


def demo(args) -> int:
    import numpy as np

    from pegasos_rs import PegasosClassifier

    name, liblinear = _liblinear()
    print(f"pegasos-rs demo: PegasosClassifier versus {name}, same C = 1/(alpha m)\n")
    header = f"{'problem':40} {'solver':36} {'accuracy':>9} {'time (s)':>9}"
    print(header)
    print("-" * len(header))
    for title, X, Xt, y, yt in _problems(args.quick):
        m = X.shape[0]
        alpha = args.alpha
        C = 1.0 / (alpha * m)
        t0 = time.perf_counter()
        clf = PegasosClassifier(
            alpha=alpha, average=True, max_iter=args.passes, random_state=0
        ).fit(X, y)
        t_peg = time.perf_counter() - t0
        acc_peg = float(np.mean(clf.predict(Xt) == yt))
        t0 = time.perf_counter()
        pred = liblinear(X, y, Xt, C)
        t_ll = time.perf_counter() - t0
        acc_ll = float(np.mean(pred == yt))
        print(f"{title:40} {'pegasos-rs (averaged)':36} {acc_peg:9.4f} {t_peg:9.3f}")
        print(f"{'':40} {name:36} {acc_ll:9.4f} {t_ll:9.3f}")
    print(f"\nalpha = {args.alpha:g}, {args.passes} passes, averaged iterate, one thread.")
    return 0


def main(argv: list[str] | None = None) -> int:
    from pegasos_rs.cli_train_predict import predict, train

    argv = sys.argv[1:] if argv is None else list(argv)
    # train/predict parse LIBLINEAR-style options (-w1 5) themselves.
    if argv and argv[0] in ("train", "predict"):
        return {"train": train, "predict": predict}[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(
        prog="pegasos-rs", description="Pegasos SVM solvers (Rust) from the command line."
    )
    from pegasos_rs import __version__

    parser.add_argument("--version", action="version", version=f"pegasos-rs {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "train",
        help="train on an svmlight file and save the model (pegasos-rs train -h)",
        add_help=False,
    )
    sub.add_parser(
        "predict",
        help="predict an svmlight file with a saved model (pegasos-rs predict -h)",
        add_help=False,
    )
    p_demo = sub.add_parser(
        "demo", help="train on bundled data next to LIBLINEAR and print accuracy and time"
    )
    p_demo.add_argument("--alpha", type=float, default=1e-4, help="regularisation (lambda)")
    p_demo.add_argument("--passes", type=int, default=20, help="passes over the data")
    p_demo.add_argument("--quick", action="store_true", help="smaller synthetic problem")
    p_demo.set_defaults(func=demo)
    args = parser.parse_args(argv)
    return args.func(args)


def run() -> int:
    """The ``pegasos-rs`` program: :func:`main`, with Ctrl-C ending it quietly with
    exit status 130 (as shells report SIGINT) instead of a traceback."""
    try:
        return main()
    except KeyboardInterrupt:
        print("pegasos-rs: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(run())
