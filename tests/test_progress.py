"""Verbose output, progress reports and ConvergenceWarning: what long calls tell the
user while they run, through Python's sys.stderr (never straight to fd 2)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import pegasos_rs
import pytest
from pegasos_rs import KernelPegasosClassifier, PegasosClassifier, _progress
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning


class Recorder:
    """A reporter that keeps every update."""

    def __init__(self):
        self.updates = []
        self.closed = False

    def update(self, done, total, objective, lines, finished):
        self.updates.append((done, total, objective, list(lines), finished))

    def close(self):
        self.closed = True


def _problem(n=600, d=10, classes=2, seed=0):
    X, y = make_classification(
        n, d, n_informative=5, n_classes=classes, n_clusters_per_class=1, random_state=seed
    )
    return X, y


def _captured(fn):
    """What ``fn`` writes to sys.stderr, and the result."""
    buf = io.StringIO()
    with contextlib.redirect_stderr(buf):
        result = fn()
    return buf.getvalue(), result


def test_verbose_goes_through_sys_stderr_not_fd_2(capfd):
    X, y = _problem()
    text, est = _captured(
        lambda: PegasosClassifier(max_iter=3, verbose=1, random_state=0).fit(X, y)
    )
    lines = [line for line in text.splitlines() if "objective" in line]
    assert [line.split("] ")[1].split(":")[0] for line in lines] == [
        "pass 1/3",
        "pass 2/3",
        "pass 3/3",
    ]
    assert all(line.startswith("[PegasosClassifier.fit] ") for line in lines)
    # Nothing reached the process' file descriptor 2 behind Python's back.
    assert capfd.readouterr().err == ""
    reported = float(lines[-1].split("objective ")[1].split(",")[0])
    assert reported == pytest.approx(est.objective_[0], rel=1e-6)


def test_verbose_multiclass_and_kernel_lines_are_captured(capfd):
    X, y = _problem(classes=3)
    text, _ = _captured(lambda: PegasosClassifier(max_iter=2, verbose=1, random_state=0).fit(X, y))
    assert sum("objective" in line for line in text.splitlines()) == 2 * 3
    assert "class 2" in text
    text, _ = _captured(
        lambda: KernelPegasosClassifier(max_iter=2, verbose=1, random_state=0).fit(X, y)
    )
    assert text.count("pass 2/2") == 3 and "support vectors" in text
    assert capfd.readouterr().err == ""


def test_logging_style_capture_through_a_replaced_stderr():
    """A handler that replaces sys.stderr (as logging capture tools do) sees it."""
    X, y = _problem()
    old, sys.stderr = sys.stderr, io.StringIO()
    try:
        PegasosClassifier(max_iter=1, verbose=1, random_state=0).fit(X, y)
        text = sys.stderr.getvalue()
    finally:
        sys.stderr = old
    assert "pass 1/1" in text


def test_quiet_unless_verbose(capfd):
    X, y = _problem()
    text, est = _captured(lambda: PegasosClassifier(max_iter=2, random_state=0).fit(X, y))
    text2, _ = _captured(lambda: est.predict(X))
    assert text == text2 == ""
    assert capfd.readouterr().err == ""


def test_in_pass_progress_lines_on_a_long_pass(monkeypatch):
    """A one-pass kernel fit is not silent until the pass ends: progress lines come
    every REPORT_EVERY seconds (0 here: at every poll of the extension, every
    50 ms; this fit, on the margin vector, takes far longer than one poll: about
    6.6 million kernel values)."""
    monkeypatch.setattr(_progress, "REPORT_EVERY", 0.0)
    X, y = _problem(n=12000, d=50)
    model = KernelPegasosClassifier(max_iter=1, verbose=1, strategy="margins", random_state=0)
    text, _ = _captured(lambda: model.fit(X, y))
    lines = text.splitlines()
    progress = [line for line in lines if "steps (" in line]
    assert progress, text
    assert lines.index(progress[0]) < next(i for i, t in enumerate(lines) if "pass 1/1" in t)
    done = [int(line.split("] ")[1].split("/")[0].replace(",", "")) for line in progress]
    assert done == sorted(done) and done[-1] <= 12000
    assert all("/12,000 steps" in line for line in progress)


def test_reporter_sees_counts_objective_and_finish():
    X, y = _problem(classes=3)
    rec = Recorder()
    with _progress.reporting(rec):
        est = PegasosClassifier(max_iter=4, tol=1e-12, random_state=0, n_iter_no_change=50)
        with pytest.warns(ConvergenceWarning):
            est.fit(X, y)
    assert rec.closed
    done, total, objective, _, finished = rec.updates[-1]
    assert finished
    assert total == 3 * 4 * X.shape[0] and done == total
    assert objective is not None and np.isfinite(objective)
    # Prediction counts rows.
    rec = Recorder()
    with _progress.reporting(rec):
        est.predict(X)
    assert rec.updates[-1][:2] == (X.shape[0], X.shape[0])


def test_reporter_is_per_context_and_restored():
    rec = Recorder()
    assert _progress.current() is None
    with _progress.reporting(rec):
        assert _progress.current() is rec
        with _progress.reporting(None):
            assert _progress.current() is rec
    assert _progress.current() is None


def test_a_failing_reporter_stops_the_call_and_leaves_the_estimator():
    X, y = _problem(n=6000, d=50)

    class Broken(Recorder):
        def update(self, *args):
            raise RuntimeError("reporter broke")

    est = KernelPegasosClassifier(max_iter=1, random_state=0)
    with _progress.reporting(Broken()), pytest.raises(RuntimeError, match="reporter broke"):
        est.fit(X, y)
    assert not hasattr(est, "support_")


def test_convergence_warning_only_when_tol_is_missed():
    X, y = _problem()
    with pytest.warns(ConvergenceWarning, match=r"tol=1e-12 was not reached within max_iter=2"):
        PegasosClassifier(tol=1e-12, max_iter=2, n_iter_no_change=5, random_state=0).fit(X, y)
    X3, y3 = _problem(classes=3)
    with pytest.warns(ConvergenceWarning, match="one-vs-rest problems"):
        PegasosClassifier(tol=1e-12, max_iter=2, random_state=0).fit(X3, y3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Converges (a huge tol stops after n_iter_no_change passes).
        est = PegasosClassifier(tol=10.0, max_iter=50, n_iter_no_change=2, random_state=0)
        est.fit(X, y)
        assert est.n_iter_ < 50
        # partial_fit (one pass by design), or max_steps: no warning. (Without tol,
        # a fit warns only when its last pass still moved the objective by more than
        # 5 %: tests/test_defaults.py.)
        PegasosClassifier(alpha=1e-2, max_iter=20, random_state=0).fit(X, y)
        PegasosClassifier(tol=1e-12, random_state=0).partial_fit(X, y, classes=[0, 1])
        PegasosClassifier(tol=1e-12, max_steps=100, random_state=0).fit(X, y)


def test_converged_suffix_average_says_why_passes_continue():
    """With tol and average=True, the average starts where tol is met and the fit
    runs as many passes again: the verbose report says so instead of jumping from
    "pass 18/50" to "pass 19/36"."""
    X, y = _problem()
    est = PegasosClassifier(
        tol=10.0, n_iter_no_change=2, max_iter=50, average=True, verbose=1, random_state=0
    )
    text, est = _captured(lambda: est.fit(X, y))
    said = [line for line in text.splitlines() if "converged at pass" in line]
    assert len(said) == 1 and "the average of the iterates begins now" in said[0]
    p = int(said[0].split("converged at pass ")[1].split()[0])
    assert f"pass {p + 1}/{2 * p}" in text and est.n_iter_ == 2 * p


def test_svmlight_reader_reports_when_verbose(tmp_path):
    X, y = _problem(n=300)
    path = tmp_path / "data.svm"
    pegasos_rs.dump_svmlight_file(X, y, path)
    text, _ = _captured(lambda: pegasos_rs.load_svmlight_file(path, verbose=1))
    assert "[load_svmlight_file]" in text and "300 rows" in text
    text, _ = _captured(lambda: pegasos_rs.load_svmlight_file(path))
    assert text == ""


def test_reading_progress_counts_bytes_of_compressed_files(tmp_path):
    import lzma

    X, y = _problem(n=2000)
    plain = tmp_path / "data.svm"
    pegasos_rs.dump_svmlight_file(X, y, plain)
    packed = tmp_path / "data.svm.xz"
    packed.write_bytes(lzma.compress(plain.read_bytes()))
    rec = Recorder()
    with _progress.reporting(rec):
        pegasos_rs.load_svmlight_file(packed)
    # Reading counts the compressed bytes on disk, then parsing the text's bytes.
    finished = [u for u in rec.updates if u[4]]
    assert finished[0][:2] == (packed.stat().st_size, packed.stat().st_size)
    assert finished[-1][1] == plain.stat().st_size


def _cli(args, tty: bool):
    """Run the command line with stderr on a pseudo-terminal (tty) or a pipe."""
    cmd = [sys.executable, "-m", "pegasos_rs", *args]
    env = {**os.environ, "COLUMNS": "100"}
    if not tty:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        return r.returncode, r.stderr
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    # 24 rows x 100 columns (a new pseudo-terminal has 0 x 0, where no bar fits).
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=follower, env=env) as proc:
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        code = proc.wait(timeout=300)
    os.close(leader)
    return code, b"".join(chunks).decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_cli_shows_progress_bars_on_a_terminal_only(tmp_path):
    X, y = _problem(n=3000, d=20)
    data = tmp_path / "train.svm"
    pegasos_rs.dump_svmlight_file(X, y, data)
    model = tmp_path / "m.model"
    out = tmp_path / "out.txt"
    code, err = _cli(["train", "--passes", "30", str(data), str(model)], tty=True)
    assert code == 0, err
    assert "reading train.svm" in err and "training" in err and "steps" in err
    assert "%|" in err  # tqdm's bar
    code, err = _cli(["predict", str(data), str(model), str(out)], tty=True)
    assert code == 0, err
    assert "predicting" in err and "rows" in err
    # Not a terminal, or -q: no bar.
    code, err = _cli(["train", "--passes", "30", str(data), str(model)], tty=False)
    assert code == 0 and "%|" not in err and "reading" not in err
    code, err = _cli(["train", "-q", str(data), str(model)], tty=True)
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    "make",
    [
        lambda v: pegasos_rs.Nystroem(n_components=50, random_state=0, verbose=v),
        lambda v: pegasos_rs.RandomFourierFeatures(n_components=64, random_state=0, verbose=v),
        lambda v: pegasos_rs.AdditiveKernelMap(verbose=v),
    ],
    ids=["nystroem", "fourier", "additive"],
)
def test_feature_maps_count_rows_and_report_when_verbose(make, monkeypatch, capfd):
    X = np.abs(np.random.RandomState(0).randn(3000, 20))
    rec = Recorder()
    with _progress.reporting(rec):
        make(0).fit(X).transform(X)
    assert rec.updates[-1][:2] == (3000, 3000) and rec.updates[-1][4]
    # verbose: progress lines of a long transform, through sys.stderr.
    monkeypatch.setattr(_progress, "REPORT_EVERY", 0.0)
    big = np.abs(np.random.RandomState(1).randn(60000, 100))
    est = make(1)
    if "n_components" in est.get_params():  # long enough to be polled (50 ms)
        est.set_params(n_components=500)
    # The fit reports too when it outlasts a polling period (a loaded machine).
    _captured(lambda: est.fit(big))
    text, _ = _captured(lambda: est.transform(big))
    assert f"[{type(est).__name__}.transform]" in text and "/60,000 rows" in text
    assert capfd.readouterr().err == ""


def test_svmlight_report_counts_one_in_the_singular(tmp_path, capsys):
    path = tmp_path / "one.svm"
    path.write_text("1 1:0.5\n")
    pegasos_rs.load_svmlight_file(path, verbose=1)
    assert "one.svm: 8 bytes, 1 row, 1 stored value" in capsys.readouterr().err
