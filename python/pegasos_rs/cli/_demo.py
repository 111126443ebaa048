"""``pegasos-rs demo``: PegasosClassifier beside LIBLINEAR on the same objective.

Two datasets scikit-learn ships and a seeded large sparse problem; for each, the
regularisation is chosen on a validation split (as a user would), then both solvers
train with it and the test accuracy and training time of each are printed, followed
by what the lines mean and why the sparse problem stops where it does.
"""

from __future__ import annotations

import textwrap
import time

from pegasos_rs._counts import counted

#: The regularisation values the demo chooses from, on a validation split.
ALPHAS = (1e-3, 1e-4, 1e-5, 1e-6)


def liblinear():
    """``(name, fit)`` of LIBLINEAR's dual coordinate descent (``-s 3``, with a bias
    feature): liblinear-official when installed, else the copy inside scikit-learn's
    ``LinearSVC``. ``fit(X, y, C)`` trains and returns ``predict(Xt)``."""
    try:
        from liblinear.liblinearutil import train as ll_train

        def fit(X, y, C):
            import numpy as np

            model = ll_train(y, X, f"-s 3 -c {C} -B 1 -q")
            labels = np.asarray(model.get_labels())
            n_out = 1 if labels.size == 2 else labels.size
            d = X.shape[1]
            W = np.array([model.w[i] for i in range((d + 1) * n_out)]).reshape(d + 1, n_out)

            def predict(Xt):
                scores = Xt @ W[:d] + W[d]
                if n_out == 1:
                    return np.where(scores[:, 0] > 0, labels[0], labels[1])
                return labels[np.argmax(scores, axis=1)]

            return predict

        return "LIBLINEAR -s 3 (liblinear-official)", fit
    except ImportError:
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        from sklearn.svm import LinearSVC

        def fit(X, y, C):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                return LinearSVC(C=C, loss="hinge", dual=True).fit(X, y).predict

        return "LIBLINEAR (scikit-learn LinearSVC)", fit


def sparse_text_like(m, d, nnz_per_row, rng):
    """A seeded sparse problem shaped like text.

    Rows hold ``nnz_per_row`` Zipf-distributed feature ids with exponential values,
    L2-normalised. A planted separator (normal weights on a random 20 % of the
    features) labels each row by whether its score exceeds the median; then 5 % of
    the labels are flipped.

    Parameters
    ----------
    m, d, nnz_per_row : int
        Rows, features, feature draws per row (duplicates are summed).
    rng : numpy.random.RandomState

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (m, d)
    y : ndarray of shape (m,)
        The labels, -1 or 1, noise included.
    y_planted : ndarray of shape (m,)
        The planted separator's labels before the flips.
    planted : ndarray of shape (d,)
        The planted weights.
    """
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
    y_planted = np.where(score > np.median(score), 1, -1)
    y = y_planted.copy()
    flip = rng.random_sample(m) < 0.05
    y[flip] = -y[flip]
    return X.tocsr(), y, y_planted, w


def _problems(quick: bool):
    """``(title, X, Xt, y, yt, extra)``: train and test parts of each problem;
    ``extra`` holds the sparse problem's planted labels and weights."""
    import numpy as np
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    yield "breast_cancer, binary", *train_test_split(X, y, test_size=0.3, random_state=0), None
    X, y = load_digits(return_X_y=True)
    yield "digits, 10 classes", *train_test_split(X / 16.0, y, test_size=0.3, random_state=0), None
    m = 20_000 if quick else 200_000
    X, y, y_planted, w = sparse_text_like(m, 20_000, 40, np.random.RandomState(0))
    cut = int(0.8 * m)
    extra = {"y_planted": y_planted[cut:], "planted": w}
    yield "sparse text-like, 20000 features, binary", X[:cut], X[cut:], y[:cut], y[cut:], extra


def choose_alpha(X, y, passes, alphas=ALPHAS):
    """The ``alpha`` of ``alphas`` whose averaged ``passes``-pass model scores best
    on the last 20 % of the rows after training on the first 80 % (ties: the
    larger, simpler model).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Rows in random order.
    y : array-like of shape (n_samples,)
    passes : int
    alphas : sequence of float, default=ALPHAS

    Returns
    -------
    alpha : float
    """
    from pegasos_rs import PegasosClassifier

    cut = int(0.8 * X.shape[0])

    def validation_accuracy(alpha):
        est = PegasosClassifier(alpha=alpha, max_iter=passes, random_state=0)
        return est.fit(X[:cut], y[:cut]).score(X[cut:], y[cut:])

    return max(sorted(alphas, reverse=True), key=validation_accuracy)


def solver_label(passes: int) -> str:
    """pegasos-rs' line in the table: ``"pegasos-rs, 10 averaged passes"``."""
    return f"pegasos-rs, {counted(passes, 'averaged pass')}"


def demo(args) -> int:
    """Print the comparison table and what it means; ``args`` carries ``alpha``
    (None: chosen on a validation split), ``passes`` and ``quick``."""
    import numpy as np

    from pegasos_rs import PegasosClassifier

    name, liblinear_fit = liblinear()
    ours = solver_label(args.passes)
    intro = (
        f"pegasos-rs demo: PegasosClassifier beside {name}. Both minimise alpha/2 "
        "||w||^2 + mean hinge loss (LIBLINEAR's C = 1/(alpha m) for m training rows), "
        "one thread each."
    )
    print(textwrap.fill(intro, width=80) + "\n")
    header = f"{'problem, then solver':40} {'alpha':>6} {'accuracy':>9} {'time (s)':>9}"
    print(header)
    print("-" * len(header))
    notes = []
    selection = 0.0
    for title, X, Xt, y, yt, extra in _problems(args.quick):
        m = X.shape[0]
        t0 = time.perf_counter()
        alpha = args.alpha if args.alpha is not None else choose_alpha(X, y, args.passes)
        selection += time.perf_counter() - t0
        t0 = time.perf_counter()
        clf = PegasosClassifier(alpha=alpha, max_iter=args.passes, random_state=0).fit(X, y)
        t_ours = time.perf_counter() - t0
        acc_ours = float(np.mean(clf.predict(Xt) == yt))
        t0 = time.perf_counter()
        predict = liblinear_fit(X, y, 1.0 / (alpha * m))
        t_ll = time.perf_counter() - t0
        acc_ll = float(np.mean(predict(Xt) == yt))
        print(f"{title}: {counted(m, 'training row')}, {counted(Xt.shape[0], 'test row')}")
        print(f"  {ours:38} {alpha:6.0e} {acc_ours:9.4f} {t_ours:9.3f}")
        print(f"  {name:38} {alpha:6.0e} {acc_ll:9.4f} {t_ll:9.3f}")
        if extra is not None:
            notes.append(_sparse_note(clf, X, Xt, y, yt, extra, args.passes))
    print()
    print(_explanation(args, selection))
    for note in notes:
        print(note)
    return 0


def _paragraph(label: str, text: str) -> str:
    """``text`` wrapped to 80 columns after a 2-space indent and ``label`` padded to
    10 characters."""
    return textwrap.fill(text, width=80, initial_indent=f"  {label:10}", subsequent_indent=" " * 12)


def _explanation(args, selection: float) -> str:
    """What the columns and the settings mean."""
    if args.alpha is None:
        alphas = ", ".join(f"{a:g}" for a in ALPHAS)
        how = (
            f"chosen per problem among {alphas} as a user would: by pegasos-rs' "
            "accuracy on a validation split (trained on the first 80 % of the training "
            f"rows, scored on the other 20 %; {selection:.1f} s in all). Both solvers "
            "then train on all training rows with it."
        )
    else:
        how = "as given by --alpha."
    lines = [
        "What the columns mean",
        _paragraph(
            "accuracy", "the fraction of the test rows (never trained on) predicted correctly."
        ),
        _paragraph("time", "seconds to train, one thread."),
        _paragraph("alpha", f"the regularisation (the paper's lambda), {how}"),
        "Why these settings",
        _paragraph(
            "averaged",
            "the model is the mean of the iterates of the last half of the steps (the "
            "default): one iterate carries the noise of its last random steps; the mean "
            "converges to the optimum at the best rate (Rakhlin, Shamir, Sridharan 2012).",
        ),
        _paragraph(
            counted(args.passes, "pass"),
            "the error of Pegasos after T steps shrinks about like 1/(alpha T) whatever "
            "the number of rows (Shalev-Shwartz et al. 2011): the passes needed do not "
            "grow with the data, while LIBLINEAR's dual coordinate descent slows down as "
            "the rows and C grow. More passes (pegasos-rs demo --passes N) bring "
            "pegasos-rs closer to the optimum LIBLINEAR finds.",
        ),
    ]
    return "\n".join(lines)


def _sparse_note(clf, X, Xt, y, yt, extra, passes) -> str:
    """Why the sparse problem's accuracy stops where it does, from its planted rule."""
    import numpy as np

    from pegasos_rs import PegasosClassifier

    ceiling = float(np.mean(extra["y_planted"] == yt))
    planted = extra["planted"]
    seen = np.asarray((X != 0).sum(axis=0)).ravel()
    rare = float(np.mean(seen[planted != 0] < 100))
    # The planted rule knowing only the features seen in at least 100 training rows.
    frequent = Xt @ np.where(seen >= 100, planted, 0.0)
    partial = float(np.mean(np.where(frequent > np.median(frequent), 1, -1) == yt))
    text = (
        "Its labels come from a planted linear rule with 5 % of them flipped: the rule "
        f"itself scores {ceiling:.4f} on the test rows, the most a classifier can expect. "
        f"The rest is estimation: {rare * 100:.0f} % of the rule's non-zero weights sit "
        "on features that occur in fewer than 100 training rows, which the data pins "
        f"down only roughly; the rule without these weights scores {partial:.4f}. The "
        f"model scores {clf.score(X, y):.4f} on its training rows, "
        f"{clf.score(Xt, yt):.4f} on the test rows."
    )
    strong = 100 * clf.alpha
    if strong <= max(ALPHAS):
        est = PegasosClassifier(alpha=strong, max_iter=passes, random_state=0).fit(X, y)
        fitted, tested = est.score(X, y), est.score(Xt, yt)
        text += (
            f" With alpha = {strong:g}, a hundred times more regularisation, pegasos-rs "
            f"scores {fitted:.4f} on its training rows and {tested:.4f} on the test rows"
        )
        # No better on the rows it was trained on than on new ones: it underfits.
        text += (
            ": the regularisation, not the data, limits that model."
            if fitted - tested < 0.01
            else "."
        )
    text = "Why the sparse problem stops there\n" + textwrap.fill(
        text, width=80, initial_indent="  ", subsequent_indent="  "
    )
    return text
