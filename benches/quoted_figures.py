"""Which figures of which results page README and the documentation quote, and
where each stands in its page (see :mod:`figures`, which reads them).

``QUOTED[page][name]`` locates the figure ``page:name`` of ``results/<page>.md``: a
table cell (:class:`figures.Cell`), the part of a cell a pattern picks, or a number
in the page's text (:class:`figures.Line`). Rows are chosen by what their cells say
(a data set, a solver), never by position, and no figure is written here: a changed
page changes the figures, and a page that lost a quoted figure fails to extract.
The templates under ``benches/quoted/`` name these figures as ``{page:name}``.
"""

from __future__ import annotations

import re

from figures import Cell, Line, Quote

NUMBER = r"(-?[\d,]*\d(?:\.\d+)?)"


def cell(
    table: str | None, row: dict, column: str | int, part: str | None = None, word: bool = False
) -> Cell:
    """A table cell's figure (``row``: column → the text of its cell in that row)."""
    return Cell(table, tuple(row.items()), column, part, word)


def labelled(label: str) -> str:
    """The start of the entry ``label: ...`` of a cell listing several, separated
    by "; " (``last: 0.59 (20 p, 37.1 ms); avg: ...``)."""
    return rf"(?:^|; ){re.escape(label)}: "


def quoted_linear_headline() -> dict[str, Quote]:
    """bench_linear.py's five data sets README quotes."""
    q: dict[str, Quote] = {}
    multiclass = ("20news", "sector")
    for d in ("a9a", "reuters-lasvm", "imdb", *multiclass):
        rows = {"dataset": d}
        for column, name in (("m", "m"), ("d", "d"), ("classes", "classes")):
            q[f"{d}.{name}"] = cell("Datasets", rows, column)
        optimum = {**rows, "solver": "LIBLINEAR -e 1e-4"}
        q[f"{d}.liblinear_optimum_accuracy"] = cell("Solvers", optimum, "test acc")
        default = {**rows, "solver": "LIBLINEAR -e 0.1"}
        q[f"{d}.liblinear_time"] = cell("Solvers", default, "time")
        q[f"{d}.sgd_over_pegasos"] = cell("Throughput", rows, "SGD / Pegasos")
        q[f"{d}.marginal_over_stream"] = cell("Throughput", rows, "Pegasos marginal / stream bound")
        curves = ["last", "avg"]
        if d in multiclass:
            curves += ["shared last", "shared avg", "shuffled last", "shared shuffled last"]
        for curve in curves:
            key = f"{d}.to_accuracy.{curve.replace(' ', '_')}"
            start = labelled(curve) + r"[\d.]+ \("
            q[f"{key}.ratio"] = cell("Targets", rows, "(2)", labelled(curve) + NUMBER + r" \(")
            q[f"{key}.passes"] = cell("Targets", rows, "(2)", start + r"(\d+) p,")
            q[f"{key}.time"] = cell("Targets", rows, "(2)", start + r"\d+ p, ([^)]+)\)")
        q[f"{d}.to_objective.avg.passes"] = cell("Targets", rows, "(3)", r"\((\d+) p,")
        for curve in ("Pegasos (last iterate)", "Pegasos (averaged)"):
            short = "last" if "last" in curve else "avg"
            for passes in (1, 2, 3):
                q[f"{d}.curve.{short}.{passes}_passes.accuracy"] = cell(
                    "Curves",
                    {**rows, "solver": curve},
                    "passes: time / test acc / obj gap",
                    rf"(?:^| ){passes}:[^/]+/([\d.]+%)/",
                )
        q[f"{d}.liblinear_conversion"] = Line(
            rf"^- {re.escape(d)}: LIBLINEAR times exclude the conversion to its format "
            r"\(([^)]+)\)"
        )
    return q


def quoted_scaling() -> dict[str, Quote]:
    """bench_scaling.py at 10⁷ rows, and the steps Pegasos needs from 10⁵ rows on."""
    q: dict[str, Quote] = {"target": Line(r"target test accuracy ([\d.]+ %)")}
    for m, key in (("100,000", "1e5"), ("1,000,000", "1e6"), ("10,000,000", "1e7")):
        row = {"m (training rows)": m}
        q[f"{key}.m"] = cell(None, row, 0)
        q[f"{key}.liblinear_default_time"] = cell(
            None, row, "LIBLINEAR -s 3, default -e 0.1", r"^([\d.]+ s)"
        )
        q[f"{key}.liblinear_time"] = cell(None, row, "LIBLINEAR -s 3 to target", r"^([\d.]+ s)")
        q[f"{key}.liblinear_tolerance"] = cell(
            None, row, "LIBLINEAR -s 3 to target", r"\(-e ([\d.]+),"
        )
        q[f"{key}.sgd_time"] = cell(None, row, "SGDClassifier to target", r"^([\d.]+ s)")
        pegasos = "Pegasos (averaged) to target"
        q[f"{key}.pegasos_time"] = cell(None, row, pegasos, r"^([\d.]+ s)")
        q[f"{key}.pegasos_steps"] = cell(None, row, pegasos, r"T = ([\d,]+) =")
        q[f"{key}.over_liblinear"] = cell(None, row, "Pegasos / LIBLINEAR to target")
        q[f"{key}.over_sgd"] = cell(None, row, "Pegasos / SGDClassifier")
    return q


def quoted_fit_cost() -> dict[str, Quote]:
    """bench_fit_cost.py at 10⁵ and 10⁷ rows."""
    q: dict[str, Quote] = {}
    for m, key in (("100,000", "1e5"), ("10,000,000", "1e7")):
        row = {"m": m}
        q[f"{key}.m"] = cell(None, row, "m")
        q[f"{key}.values"] = cell(None, row, "stored values")
        q[f"{key}.fit"] = cell(None, row, "default fit")
        q[f"{key}.numpy_pass"] = cell(None, row, "one numpy pass")
        q[f"{key}.unchecked_fit"] = cell(None, row, "check_input=False")
        q[f"{key}.unchecked_over_smallest"] = cell(
            None, row, "its fit / its fit at", r"^([\d.]+) \("
        )
    q["steps"] = Line(r"T = ([\d,]+) steps")
    return q


# (data set, loss, LIBLINEAR's solver) of the rows of losses.md README quotes.
_CLASSIFICATION = [
    ("a9a", "log_loss", "-s 0 (-e 0.01)"),
    ("a9a", "squared_hinge", "-s 2 (-e 0.01)"),
    ("imdb", "log_loss", "-s 0 (-e 0.01)"),
    ("imdb", "squared_hinge", "-s 2 (-e 0.01)"),
    ("rcv1-like", "log_loss", "-s 0 (-e 0.01)"),
    ("rcv1-like", "squared_hinge", "-s 2 (-e 0.01)"),
]
_REGRESSION = [
    ("20news-quoted", "squared_epsilon_insensitive", "-s 11 (-e 0.0001)"),
    ("20news-quoted", "epsilon_insensitive", "-s 13 (-e 0.1)"),
]


def _budget(key: str, table: str, row: dict, column: str) -> dict[str, Quote]:
    """The ratio, budget and time of a losses.md cell ``0.111 (2 p, 39.2 ms, ...)``."""
    return {
        f"{key}.ratio": cell(table, row, column, r"^([\d.]+) \("),
        f"{key}.passes": cell(table, row, column, r"^[\d.]+ \((\d+) p,"),
        f"{key}.steps": cell(table, row, column, r"^[\d.]+ \(([\d,]+) steps,"),
        f"{key}.time": cell(table, row, column, r"^[\d.]+ \([\d,]+ (?:p|steps), ([^,]+),"),
    }


def quoted_losses() -> dict[str, Quote]:
    """bench_losses.py: each loss against LIBLINEAR's solver of its objective."""
    q: dict[str, Quote] = {}
    for table, liblinear, rows in (
        ("1. Classification", "LIBLINEAR (-B 1)", _CLASSIFICATION),
        ("2. Regression", "LIBLINEAR (-B 1 -p 0.1)", _REGRESSION),
    ):
        for dataset, loss, solver in rows:
            row = {"dataset": dataset, "loss": f"`{loss}`", liblinear: solver}
            key = f"{dataset}.{loss}.{solver.split(' (')[0].lstrip('-').replace(' ', '')}"
            q[f"{key}.liblinear_time"] = cell(table, row, "LIBLINEAR time")
            averaged = "Pegasos averaged"
            budget = _budget(f"{key}.avg", table, row, averaged)
            if dataset == "rcv1-like":
                del budget[f"{key}.avg.passes"]
            else:
                del budget[f"{key}.avg.steps"]
            q.update(budget)
    q["imdb.log_loss.probability_ratio"] = cell(
        "1b. Probabilities", {"dataset": "imdb"}, "default fit", r"\(([\d.]+) x;"
    )
    for dataset in ("cpusmall", "rcv1-like"):
        q[f"{dataset}.rows"] = cell(
            "Datasets", {"dataset": dataset}, "m train / test", r"^([\d,]+) /"
        )
    return q


def quoted_multiclass() -> dict[str, Quote]:
    """bench_multiclass.py: Crammer-Singer against LIBLINEAR -s 4."""
    q: dict[str, Quote] = {}
    table = "Time to LIBLINEAR -s 4"
    for d in ("dna", "usps", "sector", "20news"):
        for curve, short in (
            ("Crammer-Singer (averaged)", "avg"),
            ("Crammer-Singer shuffled (last iterate)", "shuffled"),
        ):
            row = {"dataset": d, "curve": curve}
            q[f"{d}.{short}.ratio"] = cell(table, row, "ratio")
            q[f"{d}.{short}.passes"] = cell(table, row, "passes")
            q[f"{d}.{short}.time"] = cell(table, row, "s")
        q[f"{d}.liblinear_time"] = cell(
            table, {"dataset": d, "curve": "Crammer-Singer (averaged)"}, "LIBLINEAR s"
        )
    return q


def quoted_ranking() -> dict[str, Quote]:
    """bench_ranking.py on MQ2008 Fold 1."""
    svm = {"model": "RankSVM (LinearSVC on pairs, incl. expansion)"}
    pegasos = {"model": "PegasosRanker (20 passes)"}
    table = "1. MQ2008"
    return {
        "ranksvm.c": cell(table, svm, "setting", r"^C = ([\d.]+)$"),
        "ranksvm.time": cell(table, svm, "time (median)"),
        "ranksvm.ndcg": cell(table, svm, "test NDCG@10"),
        "pegasos.time": cell(table, pegasos, "time (median)"),
        "pegasos.ndcg": cell(table, pegasos, "test NDCG@10"),
        "ndcg_difference": cell("Targets", {"target": "NDCG@10 >= RankSVM's - 0.005"}, "measured"),
        "time_ratio": cell("Targets", {"target": "time <= 1/3 of RankSVM's"}, "measured"),
        "pairs": Line(r"training rows, (\d+) preference pairs"),
    }


def quoted_kernel_regression() -> dict[str, Quote]:
    """bench_kernel_regression.py: time to SVR's test MSE + 5 %."""
    q: dict[str, Quote] = {}
    table = "Time to SVR's test MSE"
    for d in ("cpusmall", "abalone"):
        for cache, key in (("200 (default)", "default"), ("500", "cache500")):
            row = {"dataset": d, "cache [MB]": cache}
            q[f"{d}.{key}.svr_time"] = cell(table, row, "SVR fit")
            q[f"{d}.{key}.passes"] = cell(table, row, "Pegasos to MSE", r"^(\d+) passes,")
            q[f"{d}.{key}.time"] = cell(table, row, "Pegasos to MSE", r"passes, (.+)$")
            q[f"{d}.{key}.ratio"] = cell(table, row, "time / SVR")
            q[f"{d}.{key}.support_vectors"] = cell(
                table, row, "Pegasos MSE, SVs", r"x\), ([\d,]+) SVs$"
            )
        q[f"{d}.rows"] = cell(
            table, {"dataset": d, "cache [MB]": "200 (default)"}, "m / test / d", r"^([\d,]+) /"
        )
    return q


def quoted_kernel_headline() -> dict[str, Quote]:
    """bench_kernel.py on a9a and usps, 3 repeats."""
    q: dict[str, Quote] = {}
    table = "Time to SVC's accuracy"
    one_thread = "the same fit with one thread"
    for d in ("a9a", "usps"):
        row = {"dataset": d}
        q[f"{d}.svc_time"] = cell(table, row, "SVC time")
        q[f"{d}.time"] = cell(table, row, "Pegasos time to SVC acc", r"^(.+) \(\d+ p\)$")
        q[f"{d}.passes"] = cell(table, row, "Pegasos time to SVC acc", r"\((\d+) p\)$")
        q[f"{d}.ratio"] = cell(table, row, "ratio")
        q[f"{d}.one_thread.time"] = cell(table, row, one_thread, r"^([^,]+),")
        q[f"{d}.one_thread.ratio"] = cell(table, row, one_thread, r", ([\d.]+) \(")
    return q


def quoted_kernel_classes() -> dict[str, Quote]:
    """bench_kernel_classes.py: one-vs-rest, one-vs-one and auto against SVC."""
    q: dict[str, Quote] = {}
    table = "Time to SVC's test accuracy"
    for d in ("usps", "dna", "letter-like", "digits", "mnist-10-20k"):
        row = {"dataset": d}
        q[f"{d}.rows"] = cell(table, row, "n train")
        q[f"{d}.classes"] = cell(table, row, "classes")
        q[f"{d}.svc_time"] = cell(table, row, "SVC fit")
        for column, key in (("ovr", "ovr"), ("ovo", "ovo"), ("auto (its choice)", "auto")):
            start = r"^(?:\w+: )?"
            q[f"{d}.{key}.passes"] = cell(table, row, column, start + r"(\d+) p,")
            q[f"{d}.{key}.time"] = cell(table, row, column, start + r"\d+ p, ([^:]+):")
            q[f"{d}.{key}.ratio"] = cell(table, row, column, r"\*\*([\d.]+)\*\*")
    return q


def quoted_kernel_multiclass() -> dict[str, Quote]:
    """bench_kernel.py --multi-class on usps: one-vs-rest against one-vs-one."""
    q: dict[str, Quote] = {
        "rows": Line(r"^## usps: ([\d,]+) training rows"),
        "svc_time": cell("usps", {"model": "SVC"}, "fit"),
    }
    for model in ("ovr@2", "ovo@2", "ovr@4", "ovo@4"):
        for threads in ("", ", 1 thread"):
            key = model.replace("@", "_") + ("_one_thread" if threads else "")
            q[f"{key}.ratio"] = cell("usps", {"model": model + threads}, "fit / SVC fit")
    return q


def quoted_kernel() -> dict[str, Quote]:
    """bench_kernel.py's earlier run of six sets: the paper's Table 2 on MNIST 8."""
    table = "The paper's Table 2"
    row = {"dataset": "mnist-8"}
    return {
        "mnist-8.paper_pegasos_error": cell(table, row, "paper Pegasos"),
        "mnist-8.best_error": cell(table, row, "Pegasos best (here)"),
        "mnist-8.best_passes": cell("Time to SVC's accuracy", row, "passes (best)", r"^(\d+) \("),
        "mnist-8.svc_time": cell("Time to SVC's accuracy", row, "SVC time", r"^([\d.]+ s)"),
    }


def quoted_feature_maps() -> dict[str, Quote]:
    """bench_feature_maps.py part 2 on MNIST: kernel Pegasos and Nyström + Pegasos."""
    q: dict[str, Quote] = {}
    table = "2. Map + PegasosClassifier"
    one_thread = "total time with one thread"
    for method, key in (
        ("SVC (libsvm, 1 thread)", "svc"),
        ("KernelPegasosClassifier (1 pass)", "kernel"),
        ("Nystroem(2000, uniform) + averaged Pegasos", "nystroem"),
    ):
        row = {"dataset": "mnist", "method": method}
        q[f"mnist.{key}.time"] = cell(table, row, "total time")
        q[f"mnist.{key}.accuracy"] = cell(table, row, "test acc")
        if key != "svc":
            q[f"mnist.{key}.ratio"] = cell(table, row, "time / SVC")
            q[f"mnist.{key}.one_thread.time"] = cell(table, row, one_thread, r"^(.+) \(")
            q[f"mnist.{key}.one_thread.ratio"] = cell(table, row, one_thread, r"\(([\d.]+)\)$")
    return q


def quoted_dask_headline() -> dict[str, Quote]:
    """bench_dask.py at 10⁷ rows, 3 repeats."""
    row = {"m": "10,000,000"}
    ratio = r"= \*\*([\d.]+x)\*\*"
    return {
        "target": Line(r"Target test accuracy ([\d.]+ %)"),
        "m": cell("From files to a model", row, "m"),
        "exact_time": cell("From files to a model", row, "(a) exact, T", r"^([\d.]+ s) \("),
        "checked_time": cell("From files to a model", row, "(a) check_input=True"),
        "incremental_time": cell(
            "From files to a model", row, "(c) Incremental(SGD)", r"^([\d.]+ s) \("
        ),
        "warm_ratio": cell("(c) / (a)", row, "warm (c) / (a)", ratio),
        "cold.incremental_time": cell("(c) / (a)", row, "cold (c) / (a)", r"^([\d.]+ s) /"),
        "cold.exact_time": cell("(c) / (a)", row, "cold (c) / (a)", r"/ ([\d.]+ s) ="),
        "cold_ratio": cell("(c) / (a)", row, "cold (c) / (a)", ratio),
    }


def quoted_dask() -> dict[str, Quote]:
    """bench_dask.py's earlier run over 10⁶ to 3·10⁷ rows."""
    table = "From files to a model"
    q: dict[str, Quote] = {}
    for m, key in (("1,000,000", "1e6"), ("10,000,000", "1e7"), ("30,000,000", "3e7")):
        row = {"m": m}
        q[f"{key}.m"] = cell(table, row, "m")
        q[f"{key}.exact_time"] = cell(table, row, "(a) exact, T", r"^([\d.]+ s) \(")
        q[f"{key}.parallel_time"] = cell(table, row, "(b) parallel", r"^([\d.]+ s) \(")
    q["3e7.files"] = cell(
        "Memory and communication", {"m": "30,000,000"}, "files / parsed CSR", r"^([\d.]+ GB) /"
    )
    return q


def quoted_dask_exact() -> dict[str, Quote]:
    """bench_dask_exact.py: exact mode against in memory and Incremental."""
    table = "(a) The same"
    return {
        "rows": Line(r"^([\d,]+) Zipf rows"),
        "blocks": Line(r"in (\d+) persisted blocks"),
        "steps": Line(r"^## \(a\) The same (\d+) steps"),
        "exact_time": cell(table, {"fit": "(a) exact mode"}, "median"),
        "memory_time": cell(table, {"fit": "(a) in memory on the client"}, "median"),
        "aimed_at": Line(r"\+ 0\.5 = ([\d.]+ s): "),
        "exact_over_memory": Line(r"\(([\d.]+x) the in-memory fit\)"),
        "over_incremental": Line(r"s: ([\d.]+) of Incremental's time"),
    }


def quoted_dask_model_selection() -> dict[str, Quote]:
    """bench_dask_model_selection.py: the Dask search against its fits one by one."""
    table = "Choosing alpha on a Dask cluster"
    return {
        "rows": Line(r"^([\d,]+) Zipf rows"),
        "steps": Line(r"; (\d+) averaged steps per fit"),
        "search_time": cell(
            table, {"run": "(a) PegasosClassifierCV, 8 alphas x 3 folds, refit included"}, "median"
        ),
        "refit_time": cell(table, {"run": "(a) of which the refit on all rows"}, "median"),
        "one_by_one_time": cell(
            table, {"run": "(b) the 24 exact fits one after another"}, "median"
        ),
        "ratio": Line(r"The search takes ([\d.]+) of the time"),
    }


def quoted_one_class() -> dict[str, Quote]:
    """bench_one_class.py: the linear one-class SVM against SGDOneClassSVM and
    LIBLINEAR -s 21, the kernel one against OneClassSVM."""
    q: dict[str, Quote] = {}
    linear = "The linear one-class SVM"
    for d, where in (
        ("usps", "usps (Nyström 1000)"),
        ("20news", "20news (raw)"),
        ("mnist", "mnist (Nyström 1000)"),
    ):
        for method, short in (
            ("PegasosOneClassSVM", "pegasos"),
            ("SGDOneClassSVM", "sgd"),
            ("LIBLINEAR -s 21", "liblinear"),
        ):
            row = {"data": where, "method": method}
            q[f"{d}.{short}.auc"] = cell(linear, row, "AUC")
            q[f"{d}.{short}.time"] = cell(linear, row, "s")
        q[f"{d}.ratio"] = Line(rf"^- {d}: .* time ([\d.]+) of the faster one's")
    kernel = "The kernel one-class SVM"
    for d in ("usps", "mnist"):
        for method, short in (("KernelPegasosOneClassSVM", "kpegasos"), ("OneClassSVM", "libsvm")):
            row = {"data": f"{d} (raw, rbf)", "method": method}
            q[f"{d}.{short}.auc"] = cell(kernel, row, "AUC")
            q[f"{d}.{short}.time"] = cell(kernel, row, "s")
            q[f"{d}.{short}.sv"] = cell(kernel, row, "SV")
        q[f"{d}.kernel_ratio"] = Line(rf"^- {d}, kernel: .* time ([\d.]+) of OneClassSVM's")
    return q


def quoted_dask_reuse() -> dict[str, Quote]:
    """bench_dask_reuse.py: a second checked fit on the same files."""
    return {
        "files": Line(r"^(\d+) svmlight files of"),
        "rows": Line(r"svmlight files of ([\d,]+) rows"),
        "unchecked_time": cell(None, {"fit": "(a) check_input=False"}, "median"),
        "first_checked_time": cell(
            None, {"fit": "(b) first checked fit (cache dropped)"}, "median"
        ),
        "later_checked_time": cell(None, {"fit": "(c) later checked fits"}, "median"),
        "later_blocks_parsed": cell(None, {"fit": "(c) later checked fits"}, "blocks parsed"),
        "ratio": Line(r"^\(c\) / \(a\) = ([\d.]+):"),
        "memory_limit": Line(r"memory limit (\d+ ?GiB) each"),
    }


def quoted_dask_modes() -> dict[str, Quote]:
    """bench_dask_modes.py: the parallel against the exact mode."""
    q: dict[str, Quote] = {
        "rows": Line(r"^([\d,]+) RCV1-shaped rows"),
        "blocks": Line(r"features\) in (\d+) blocks"),
    }
    for gap, key in (("5 %", "gap5"), ("1 %", "gap1"), ("0.5 %", "gap0.5")):
        row = {"gap at most": gap}
        q[f"{key}.faster"] = cell("Fastest fit", row, "faster", r"^\*\*(\w+)\*\*$", word=True)
        for mode in ("exact", "parallel"):
            column = f"{mode} mode"
            unit = "passes" if mode == "exact" else "rounds"
            q[f"{key}.{mode}.time"] = cell("Fastest fit", row, column, r"^(.+) \(")
            q[f"{key}.{mode}.{unit}"] = cell("Fastest fit", row, column, rf"\(([\d.]+) {unit}\)")
    for mode, budget, key in (
        ("exact", "4", "exact.4_passes"),
        ("parallel", "40", "parallel.40_rounds"),
    ):
        row = {"mode": mode, "passes / rounds": budget}
        q[f"{key}.time"] = cell("Every fit", row, "fit")
        q[f"{key}.gap"] = cell("Every fit", row, "gap")
    for mode, budget, key in (
        ("exact", "1", "exact.1_pass"),
        ("parallel", "10", "parallel.10_rounds"),
    ):
        q[f"{key}.gap"] = cell("Every fit", {"mode": mode, "passes / rounds": budget}, "gap")
    q["parallel.10_rounds.time"] = cell(
        "Every fit", {"mode": "parallel", "passes / rounds": "10"}, "fit"
    )
    return q


def quoted_onnx() -> dict[str, Quote]:
    """bench_onnx.py: onnxruntime against predict, one thread."""
    q: dict[str, Quote] = {}
    for model, key in (
        ("KernelPegasosClassifier (rbf, one-vs-one), usps", "kernel_usps"),
        ("PegasosClassifier (hinge), a9a", "linear_a9a"),
    ):
        row = {"model": model}
        # Columns by index: both speed-up columns have the same header.
        for index, name in (
            (2, "row.predict"),
            (3, "row.onnxruntime"),
            (4, "row.speedup"),
            (5, "rows.predict"),
            (6, "rows.onnxruntime"),
            (7, "rows.speedup"),
        ):
            q[f"{key}.{name}"] = cell("1 row and", row, index)
    return q


def quoted_calls() -> dict[str, Quote]:
    """bench_calls.py: the fixed cost of small calls, before and after issue 14."""
    q: dict[str, Quote] = {}
    for call, key in (
        ("linear fit, 3 classes x 30 rows", "fit"),
        ("linear decision_function, 10 dense rows", "predict"),
    ):
        for jobs in (1, 2):
            row = {"call": f"{call}, n_jobs={jobs}"}
            for column, label in (
                ("before (a pool per call)", "before"),
                ("after (pools", "after"),
            ):
                q[f"{key}.n_jobs{jobs}.{label}"] = cell(None, row, column)
    return q


#: page (results/<page>.md) → figure name → where the figure stands in the page.
def quoted_model_selection() -> dict[str, Quote]:
    """bench_model_selection.py: the CV estimators against LIBLINEAR -C and
    GridSearchCV(PegasosClassifier)."""
    q: dict[str, Quote] = {}
    table = "Time and test score of each search"
    for d in MODEL_SELECTION_SETS:
        liblinear = "LIBLINEAR -s 11 -p 0.1 -C" if d == "cpusmall" else "LIBLINEAR -s 2 -C"
        for label, key in (
            (liblinear, "liblinear"),
            ("GridSearchCV(Pegasos)", "grid_search"),
            ("CV estimator, exact", "exact"),
            ("CV estimator, halving", "halving"),
        ):
            row = {"dataset": d, "search": label}
            q[f"{d}.{key}.time"] = cell(table, row, "s")
            q[f"{d}.{key}.test"] = cell(table, row, "test")
            if key in ("exact", "halving"):
                q[f"{d}.{key}.vs_liblinear"] = cell(table, row, "/ LIBLINEAR")
                q[f"{d}.{key}.vs_grid_search"] = cell(table, row, "/ GridSearchCV")
    return q


#: The data sets of bench_model_selection.py the guide quotes.
MODEL_SELECTION_SETS = ("a9a", "imdb", "20news", "cpusmall")


def quoted_kernel_selection() -> dict[str, Quote]:
    """bench_kernel_selection.py: KernelPegasosClassifierCV against GridSearchCV(SVC)
    and GridSearchCV(KernelPegasosClassifier)."""
    q: dict[str, Quote] = {}
    table = "Choosing C and gamma by cross-validation (kernel)"
    for d in KERNEL_SELECTION_SETS:
        for label, key in (
            ("GridSearchCV(SVC)", "svc"),
            ("GridSearchCV(KernelPegasosClassifier)", "grid_search"),
            ("KernelPegasosClassifierCV", "cv"),
            ("KernelPegasosClassifierCV (default max_iter)", "cv_default"),
            ("KernelPegasosClassifierCV (precompute=True)", "cv_shared"),
        ):
            row = {"dataset": d, "search": label}
            q[f"{d}.{key}.time"] = cell(table, row, "s")
            q[f"{d}.{key}.test"] = cell(table, row, "test %")
            if key != "svc":
                q[f"{d}.{key}.vs_svc"] = cell(table, row, "/ SVC grid")
    return q


def quoted_multiclass_auto() -> dict[str, Quote]:
    """bench_multiclass_auto.py: multi_class='auto' and sampling='auto' on many
    classes against LIBLINEAR -s 3 -B 1 and one-vs-rest with uniform draws."""
    q: dict[str, Quote] = {}
    table = "Time to LIBLINEAR's test accuracy"
    for d in MULTICLASS_AUTO_SETS:
        for curve, short in (
            ("ovr, uniform (the defaults before auto)", "ovr"),
            ("ovr_shared, shuffle", "shared"),
            ("ovr_shared, shuffle, last iterate", "shared_last"),
            ("auto (the defaults)", "auto"),
        ):
            row = {"dataset": d, "curve": curve}
            q[f"{d}.{short}.ratio"] = cell(table, row, "ratio")
            q[f"{d}.{short}.passes"] = cell(table, row, "passes")
        auto = {"dataset": d, "curve": "auto (the defaults)"}
        q[f"{d}.classes"] = cell(table, auto, "classes")
        q[f"{d}.liblinear_time"] = cell(table, auto, "LIBLINEAR s")
    return q


def quoted_budget(
    classification=("ijcnn1", "usps", "mnist-10"),
    generated: bool = True,
    regression=("cpusmall",),
    dask: bool = True,
    nystroem_components: int = 2000,
    budgets=(100, 500, 2000),
) -> dict[str, Quote]:
    """bench_budget.py (issue 40): budgeted kernel Pegasos against SVC, SVR and
    Nyström(B) + PegasosClassifier. Not in :data:`QUOTED` until a text quotes the
    page (``results/budget.md``, written by the run at the end): then add
    ``"budget": quoted_budget()`` there, naming the sets the page has, and the
    figures of the budgeted fits' rows (table "Classification: budgeted fits", rows
    by data, B and method) that the text needs. A smoke run of the script checks that
    these figures stand where they are looked for in its own page."""
    q: dict[str, Quote] = {}
    targets = "Classification: targets"
    time_part = r"^([\d.]+ (?:s|ms|µs))"
    for d in classification:
        row = {"data": d}
        q[f"{d}.svc_time"] = cell(targets, row, "SVC fit", time_part)
        q[f"{d}.svc_acc"] = cell(targets, row, "SVC acc")
        q[f"{d}.fastest.B"] = cell(targets, row, "fastest to goal", r"^B=(\d+) ")
        q[f"{d}.fastest.rule"] = cell(targets, row, "fastest to goal", r"^B=\d+ (\w+),", word=True)
        q[f"{d}.fastest.passes"] = cell(targets, row, "fastest to goal", r", (\d+) p$")
        q[f"{d}.time"] = cell(targets, row, "time")
        q[f"{d}.ratio"] = cell(targets, row, "/ SVC")
        q[f"{d}.verdict"] = cell(targets, row, "A: ", word=True)
        q[f"{d}.one_thread.time"] = cell(targets, row, "one thread")
        q[f"{d}.one_thread.ratio"] = cell(targets, row, "/ SVC (1 thread)")
        q[f"{d}.one_thread.verdict"] = cell(targets, row, "A (1 thread)", word=True)
        for b in budgets:
            q[f"{d}.nystroem_{b}.verdict"] = cell(
                targets, row, "B: ", rf"(?:^|; ){b}: (\w+)", word=True
            )
            for key, method in (("merge", "merge"), ("nystroem", "Nyström + linear")):
                fit = {"data": d, "B": str(b), "method": method}
                table = "Classification: budgeted fits and Nyström(B)"
                name = f"{d}.{b}.{key}"
                q[f"{name}.acc"] = cell(table, fit, "test acc")
                q[f"{name}.time"] = cell(table, fit, "fit (runs)", r"^([\d.]+ (?:s|ms|µs)) ")
                q[f"{name}.passes"] = cell(table, fit, "passes")
                q[f"{name}.predict"] = cell(table, fit, "predict / 10k rows")
                q[f"{name}.points"] = cell(table, fit, "points")
    if generated:
        methods, target = "Generated problem: every method", "Generated problem: target C"
        q["generated.bayes"] = Line(r"Bayes accuracy ([\d.]+%) by construction")
        q["generated.bayes_test"] = Line(r"by construction, ([\d.]+%) on this test set")
        q["generated.svc_acc"] = cell(
            methods, {"method": "SVC (libsvm, C = 1/(alpha n))"}, "test acc"
        )
        q["generated.best"] = cell(target, {"target": "best accuracy of any method"}, "measured")
        fastest = {"target": "fastest budgeted fit within 1 pp"}
        q["generated.fastest.verdict"] = cell(target, fastest, 2, word=True)
        nystroem = {"method": f"Nyström({nystroem_components}) + PegasosClassifier"}
        q["generated.nystroem.acc"] = cell(methods, nystroem, "test acc")
        q["generated.nystroem.time"] = cell(methods, nystroem, "fit (runs)", r"^([\d.]+ m?s) ")
        q["generated.nystroem.rows"] = cell(methods, nystroem, "training rows")
        for b, rule in ((100, "merge"), (500, "merge"), (500, "project"), (2000, "merge")):
            if b in budgets:
                row = {"method": f"budget {b}, {rule}"}
                q[f"generated.{rule}_{b}.acc"] = cell(methods, row, "test acc")
                q[f"generated.{rule}_{b}.time"] = cell(
                    methods, row, "fit (runs)", r"^([\d.]+ m?s) "
                )
        memory = {"target": "fit memory growth against the data's"}
        q["generated.memory.share"] = cell(target, memory, "measured", r"\(share (-?[\d.]+)\)")
        q["generated.memory.verdict"] = cell(target, memory, 2, word=True)
    if dask:
        table, row = "Dask: the generated problem from svmlight files", {"rows": "1,000,000"}
        q["dask.time"] = cell(table, row, "Dask fit (median)", r"^([\d.]+ (?:s|ms))")
        q["dask.in_memory"] = cell(table, row, "in-memory fit")
        q["dask.rss"] = cell(table, row, "largest worker RSS", r"^(\d+) MiB")
        q["dask.same"] = cell(table, row, "same model", word=True)
        q["dask.acc"] = cell(table, row, "test acc")
        q["dask.B"] = cell(table, row, "budget", r"^(\d+) ")
    if regression:
        targets = "Regression: target D"
        for d in regression:
            row = {"data": d}
            q[f"{d}.svr_time"] = cell(targets, row, "SVR fit", time_part)
            q[f"{d}.svr_mse"] = cell(targets, row, "SVR MSE")
            q[f"{d}.verdict"] = cell(targets, row, "D: ", word=True)
            fits = "Regression: budgeted fits"
            for b in budgets:
                best = {"data": d, "B": str(b), "method": "merge"}
                q[f"{d}.merge_{b}.mse"] = cell(fits, best, "test MSE")
                q[f"{d}.merge_{b}.time"] = cell(fits, best, "fit (runs)", r"^([\d.]+ m?s) ")
                q[f"{d}.merge_{b}.passes"] = cell(fits, best, "passes")
    return q


#: The many-class data sets of bench_multiclass_auto.py the guide quotes.
MULTICLASS_AUTO_SETS = ("letter-like", "20news", "sector")

#: The data sets of bench_kernel_selection.py the guide quotes.
KERNEL_SELECTION_SETS = ("usps", "a9a-10k")

QUOTED: dict[str, dict[str, Quote]] = {
    "linear_headline": quoted_linear_headline(),
    "scaling": quoted_scaling(),
    "fit_cost": quoted_fit_cost(),
    "losses": quoted_losses(),
    "multiclass": quoted_multiclass(),
    "ranking": quoted_ranking(),
    "kernel_regression": quoted_kernel_regression(),
    "kernel_headline": quoted_kernel_headline(),
    "kernel_classes": quoted_kernel_classes(),
    "kernel_multiclass": quoted_kernel_multiclass(),
    "kernel": quoted_kernel(),
    "feature_maps": quoted_feature_maps(),
    "dask_headline": quoted_dask_headline(),
    "dask": quoted_dask(),
    "dask_exact": quoted_dask_exact(),
    "dask_model_selection": quoted_dask_model_selection(),
    "one_class": quoted_one_class(),
    "dask_reuse": quoted_dask_reuse(),
    "dask_modes": quoted_dask_modes(),
    "onnx": quoted_onnx(),
    "calls": quoted_calls(),
    "model_selection": quoted_model_selection(),
    "kernel_selection": quoted_kernel_selection(),
    "multiclass_auto": quoted_multiclass_auto(),
    "budget": quoted_budget(),
}
