"""Start-up, a9a training and prediction time of the ``pegasos-rs`` command, against
LIBLINEAR.

    python benches/bench_cli.py [--repeats 5]
    python benches/bench_cli.py --smoke     # a generated file, 1 repeat, no result file

Wall time of whole processes, as a user of the command waits for them (issue 24):
``pegasos-rs --version``, ``--help``, ``train --help``, ``train`` on a9a with
default settings and ``predict`` on a9a.t with the model it wrote, each the median
of ``--repeats`` runs (at least 3), next to the
costs they are made of (Python's start, importing numpy, importing scikit-learn) and
to LIBLINEAR. The ``train`` binary of LIBLINEAR is not installed here, only the
``liblinear-official`` Python package: its whole-process time (import, its Python
parser, ``train``) and the time of its C ``train()`` alone on an already built
problem are what can be measured; the binary's time is about Python's start-up less
than the first, plus its C parser. The machine's load (``os.getloadavg``) at the
start and end of the run is in the report's header (``report.publish``): on a loaded
machine the start-up times grow with it. Writes ``results/cli.md``.
"""

from __future__ import annotations

import argparse
import importlib.util
import lzma
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common  # the one-thread environment before numpy is imported
import report
import shared_data

#: Targets of issue 24 (whole-process wall time).
TARGETS = {
    "--version": 0.3,
    "--help": 0.3,
    "train --help": 0.3,
    "train a9a": 0.6,
    "predict a9a": 0.5,
}


def pegasos_command() -> list[str]:
    """The ``pegasos-rs`` console script next to this Python, else ``python -m
    pegasos_rs`` (the same program)."""
    script = Path(sys.executable).with_name("pegasos-rs")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pegasos_rs"]


def wall(cmd: list[str], repeats: int, cwd: Path) -> dict:
    """Median, min and max wall time of running ``cmd`` (output discarded); it must
    succeed."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return {"median": statistics.median(times), "min": min(times), "max": max(times)}


def liblinear_in_process(path: Path, options: str, repeats: int) -> float:
    """Median time of LIBLINEAR's C ``train()`` alone on a problem built once."""
    from liblinear.liblinearutil import parameter, problem, svm_read_problem, train

    y, x = svm_read_problem(str(path))
    prob = problem(y, x)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        train(prob, parameter(options))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def data_files(workdir: Path, smoke: bool) -> tuple[Path, Path, str, str]:
    """The plain-text training and test files (LIBLINEAR's reader takes no
    compressed files), and their names for the report."""
    train, test = workdir / "train.svm", workdir / "test.svm"
    if smoke:
        import numpy as np
        from pegasos_rs import dump_svmlight_file

        rng = np.random.RandomState(0)
        X = (rng.rand(3000, 50) < 0.1) * 1.0
        y = np.where(X[:, 0] + rng.rand(3000) > 0.6, 1, -1)
        dump_svmlight_file(X[:2000], y[:2000], train, zero_based=False)
        dump_svmlight_file(X[2000:], y[2000:], test, zero_based=False)
        return train, test, "generated 2,000 x 50", "generated 1,000 x 50"
    folder = shared_data.data_dir()
    for name, out in (("a9a.xz", train), ("a9a.t.xz", test)):
        source = None if folder is None else folder / name
        if source is None or not source.exists():
            raise SystemExit(f"{name} is absent (set PEGASOS_DATA): nothing measured; try --smoke")
        with lzma.open(source) as f, open(out, "wb") as g:
            shutil.copyfileobj(f, g)
    return train, test, "a9a (32,561 x 123)", "a9a.t (16,281 x 123)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per command (at least 3)")
    ap.add_argument("--smoke", action="store_true", help="generated data, 1 run, no file")
    args = ap.parse_args()
    repeats = 1 if args.smoke else max(3, args.repeats)
    started = time.perf_counter()
    py = sys.executable
    cli = pegasos_command()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        data, test, data_name, test_name = data_files(workdir, args.smoke)
        runs = {
            "--version": [*cli, "--version"],
            "--help": [*cli, "--help"],
            "train --help": [*cli, "train", "--help"],
            "train a9a": [*cli, "train", "-q", str(data), "m.model"],
            # as a user types it (the accuracy printed): the model train wrote above
            "predict a9a": [*cli, "predict", str(test), "m.model", "out.txt"],
        }
        base = {
            "python -c pass": [py, "-c", "pass"],
            "python -c 'import numpy'": [py, "-c", "import numpy"],
            "python -c 'import scipy.sparse'": [py, "-c", "import scipy.sparse"],
            "python -c 'import sklearn.base'": [py, "-c", "import sklearn.base"],
        }
        ll = "from liblinear.liblinearutil import svm_read_problem, train; "
        ll += "y, x = svm_read_problem({!r}); train(y, x, {!r})"
        liblinear = {
            "liblinear-official: import, Python parser, train (default -s 1)": [
                py,
                "-c",
                ll.format(str(data), "-q"),
            ],
            "liblinear-official: import, Python parser, train -s 3": [
                py,
                "-c",
                ll.format(str(data), "-s 3 -q"),
            ],
        }
        measured = {}
        for name, cmd in {**runs, **base, **liblinear}.items():
            measured[name] = wall(cmd, repeats, workdir)
            print(f"{name:70s} {report.fmt_time(measured[name]['median'])}", flush=True)
        common.check((workdir / "m.model").exists(), "pegasos-rs train wrote no model")
        predicted = (workdir / "out.txt").read_text().split()
        common.check(
            len(predicted) == len(test.read_text().splitlines()),
            "pegasos-rs predict did not write a label per test row",
        )
        in_process = {
            opts: liblinear_in_process(data, f"{opts} -q".strip(), repeats) for opts in ("", "-s 3")
        }
    common.check(all(m["median"] > 0 for m in measured.values()), "a run took no time")

    def row(name: str, target: float | None = None, label: str | None = None) -> list[object]:
        m = measured[name]
        ok = None if target is None else m["median"] < target
        return [
            label or f"`{name}`",
            report.fmt_time(m["median"]),
            f"{report.fmt_time(m['min'])} - {report.fmt_time(m['max'])}",
            "—" if target is None else f"< {target:g} s",
            report.verdict(ok),
        ]

    header = ["command", "median", "min - max", "target", "verdict"]
    shown = " ".join(cli)
    package = Path(importlib.util.find_spec("pegasos_rs").origin).parent
    lines = [
        "# pegasos-rs command line: start-up, training and prediction time",
        "",
        f"Whole processes, median of {repeats} runs each; data: {data_name} and "
        f"{test_name}, plain text. "
        f"`pegasos-rs` is `{shown}`, running the package in `{package}`. Start-up times "
        "grow with the machine's load (above): read them against the targets only from "
        "a run on a quiet machine.",
    ]
    labels = {
        "train a9a": f"`train` {data_name}, default settings",
        "predict a9a": f"`predict` {test_name} with the model of `train`",
    }
    lines += report.section(
        "pegasos-rs",
        report.markdown_table(header, [row(n, TARGETS[n], labels.get(n)) for n in runs], "lrrrc"),
    )
    lines += report.section(
        "What a start costs here",
        report.markdown_table(header, [row(n) for n in base], "lrrrc"),
    )
    ll_rows = [row(n) for n in liblinear]
    ll_rows += [
        [
            f"liblinear-official `train()` alone{' ' + o if o else ' (default -s 1)'}, "
            "problem built (C solver)",
            report.fmt_time(t),
            "—",
            "—",
            "—",
        ]
        for o, t in in_process.items()
    ]
    lines += report.section("LIBLINEAR", report.markdown_table(header, ll_rows, "lrrrc"))
    lines += report.notes(
        [
            "LIBLINEAR's `train` binary is not installed on this machine: its time is "
            "not measured. The rows above are the `liblinear-official` Python package: "
            "its whole process (Python's start, the import, its parser written in "
            "Python, `train`) and its C `train()` alone. The binary would take about "
            "the C `train()` time plus its C parser's and a few milliseconds to start.",
            "`pegasos-rs train` here is the linear solver with default settings (C = 1, "
            "20 averaged passes, no bias): it imports neither scikit-learn nor scipy "
            "(tests/test_cli_startup.py checks it), so its time is Python's start, "
            "numpy, the extension, reading the file, training and writing the model.",
            "`pegasos-rs predict` with that model (a linear classifier's file) imports "
            "neither either (tests/test_cli_startup.py): Python's start, numpy, the "
            "extension, reading the model and the test file, predicting, writing the "
            "labels and printing the accuracy.",
            "LIBLINEAR's default is `-s 1` (squared hinge, dual); `-s 3` is the hinge "
            "loss Pegasos minimises.",
        ]
    )
    text = "\n".join(lines) + "\n"
    common.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    report.publish("cli", text, started, write=not args.smoke)
    if args.smoke:
        print("## start-up times measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
