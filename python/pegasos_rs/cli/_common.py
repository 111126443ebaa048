"""What ``pegasos-rs train`` (in memory, ``-C``, ``--dask``) and ``predict``
share: reading the data file, writing the model, the progress bar, warnings as
lines, the summary lines, and LIBLINEAR's regression measures as its programs
print them.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
import warnings

# Nothing here imports numpy, scipy or scikit-learn when the module is imported:
# --help must answer at once, and the linear path never needs the last two.
from pegasos_rs._counts import counted
from pegasos_rs._progress import ProgressBar, reporting


def _weights_of_present_labels(class_weight: dict, y) -> dict:
    """The ``-wi`` weights of labels ``y`` has; each other one is dropped with a
    warning, as LIBLINEAR's ``train`` warns and goes on (also with ``-q``)."""
    if not class_weight:
        return class_weight
    import numpy as np

    labels = [float(v) for v in np.unique(np.asarray(y))]
    for label in [c for c in class_weight if c not in labels]:
        shown = ", ".join(f"{v:g}" for v in labels[:10]) + (", ..." if len(labels) > 10 else "")
        print(
            f"pegasos-rs train: WARNING: class label {label:g} of -w{label:g} is not in "
            f"the data (its labels: {shown}); its weight is ignored",
            file=sys.stderr,
        )
        del class_weight[label]
    return class_weight


def _read(args, data_file: str, *, as_arrays: bool):
    """The data file as a CSR matrix and labels, or (``as_arrays``) as
    ``svmlight.read_svmlight_arrays`` gives it (no scipy); exits with a one-line
    message when it cannot be read."""
    from pegasos_rs.io import svmlight

    try:
        with reporting(_bar(args, f"reading {os.path.basename(data_file)}", "B")):
            if as_arrays:
                return svmlight.read_svmlight_arrays(data_file, n_jobs=args.threads)
            return svmlight.load_svmlight_file(data_file, n_jobs=args.threads)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None


def _rows(n_rows: int, n_features: int) -> str:
    """``"300 examples x 10 features"``, as the summary lines of ``train`` say it."""
    return f"{counted(n_rows, 'example')} x {counted(n_features, 'feature')}"


def task_of(model) -> str:
    """What a trained model predicts, as the summary lines say it: ``"3 classes"``,
    ``"one class (novelty detection)"`` or ``"regression"``."""
    if hasattr(model, "classes_"):
        return counted(len(model.classes_), "class")
    if hasattr(model, "offset_"):
        return "one class (novelty detection)"
    return "regression"


def _report(args, name: str, n_rows: int, n_features: int, model, started, model_file) -> None:
    """The line ``train`` ends with on stderr (none with ``-q``)."""
    if not args.quiet:
        print(
            f"trained {name} on {_rows(n_rows, n_features)}, "
            f"{task_of(model)}, {counted(model.n_iter_, 'pass')} in "
            f"{time.perf_counter() - started:.2f}s; model written to {model_file}",
            file=sys.stderr,
        )


@contextlib.contextmanager
def _warnings_as_lines(args):
    """Show the warnings of the block (e.g. ConvergenceWarning) as one line each on
    stderr, as LIBLINEAR prints its "WARNING: reaching max number of iterations";
    none with ``-q``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if not args.quiet:
        for w in caught:
            print(f"pegasos-rs train: WARNING: {w.message}", file=sys.stderr)


def _bar(args, desc: str, unit: str) -> ProgressBar | None:
    """A progress bar on a terminal, unless ``-q``; ``None`` otherwise (also when
    the output is redirected: nothing is written then)."""
    if args.quiet or not sys.stderr.isatty():
        return None
    return ProgressBar(desc, unit)


def _save(write, model_file) -> None:
    """``write(model_file)``, or exit with a one-line message naming the file."""
    try:
        write(model_file)
    except OSError as e:
        raise SystemExit(f"pegasos-rs train: cannot write the model to {model_file}: {e}") from None


def _regression_measures(pred, target) -> tuple[float, float]:
    """LIBLINEAR's (and LIBSVM's) mean squared error and squared correlation
    coefficient of ``pred`` against ``target``, computed as their ``predict``
    programs do: running sums in the order of the rows (``cumsum``, not numpy's
    pairwise ``sum``), then their formulas; no rows or constant values give NaN or
    infinity, as in C."""
    import numpy as np

    def running(v):
        return np.cumsum(v)[-1] if v.size else np.float64(0.0)

    t = np.asarray(target, dtype=np.float64)
    total = np.float64(t.size)
    error = running((pred - t) * (pred - t))
    sump, sumt = running(pred), running(t)
    sumpp, sumtt, sumpt = running(pred * pred), running(t * t), running(pred * t)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mse = error / total
        num = total * sumpt - sump * sumt
        r2 = (num * num) / ((total * sumpp - sump * sump) * (total * sumtt - sumt * sumt))
    return float(mse), float(r2)


def _c_g(x: float) -> str:
    """``x`` as C's ``printf("%g")`` writes it (glibc): also ``-nan``, which
    Python writes ``nan``."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:g}"
