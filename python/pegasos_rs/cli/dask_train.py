"""``pegasos-rs train --dask``: the files read and the model trained on a Dask
cluster by :mod:`pegasos_rs.dask` (imported only then).
"""

from __future__ import annotations

import sys
import time
from typing import Any

from pegasos_rs._counts import counted
from pegasos_rs._progress import ProgressBar
from pegasos_rs.cli._common import _bar, _rows, _save, _weights_of_present_labels, task_of
from pegasos_rs.cli.params import (
    _kernel_params,
    _linear_params,
    _one_class_params,
    _regressor_params,
)


def _train_on_dask(args, scheduler: str | None, class_weight) -> int:
    """``train --dask``: read the files on the cluster and train there."""
    files = args.files
    if len(files) < 2:
        raise SystemExit("pegasos-rs train: --dask needs data files and a model file")
    *data_files, model_file = files
    if args.folds:
        raise SystemExit("pegasos-rs train: --dask does not cross-validate (-v)")
    if args.kernel != "linear" and args.budget is None:
        raise SystemExit(
            "pegasos-rs train: --dask with a kernel (-t) needs --budget B: without one the "
            "support vectors grow with the data, and so do the steps and the model (or use "
            "a feature map and a linear model)"
        )
    if args.kernel != "linear" and args.mode != "exact":
        raise SystemExit("pegasos-rs train: --dask with a kernel trains in exact mode only")
    try:
        import pegasos_rs.dask as pdask
        from pegasos_rs.dask import _cluster, _svmlight
    except ImportError as e:  # its message names the extra to install, and how
        raise SystemExit(f"pegasos-rs train: --dask: {e}") from None
    import distributed  # present: pegasos_rs.dask needs it

    show = not args.quiet and sys.stderr.isatty()
    started = time.perf_counter()
    client = None
    bar = None
    try:
        if scheduler is not None:
            client = distributed.Client(scheduler)
        data_files = _svmlight._paths(data_files)  # globs expanded, as read
        with _cluster.cluster(client) as on:
            if show:
                print(
                    f"reading {counted(len(data_files), 'file')} on {on.scheduler.address} ...",
                    file=sys.stderr,
                )
            with on.as_current():
                X, y = pdask.read_svmlight(data_files)
                if class_weight:  # the labels' distinct values, computed on the cluster
                    import dask.array as da

                    class_weight = _weights_of_present_labels(class_weight, da.unique(y).compute())
            est: Any
            cls: Any
            if args.kernel != "linear":
                kernel = _kernel_params(args, int(X.shape[0]))
                if args.task == "regressor":
                    params = {**kernel, "loss": args.loss, "epsilon": args.epsilon}
                    cls = pdask.KernelPegasosRegressor
                else:
                    params = {**kernel, "class_weight": class_weight or None}
                    cls = pdask.KernelPegasosClassifier
            elif args.task == "regressor":
                params = _regressor_params(args, int(X.shape[0]))
                cls = pdask.PegasosRegressor
            elif args.task == "one_class":
                params = _one_class_params(args)
                cls = pdask.PegasosOneClassSVM
            else:
                params = _linear_params(args, int(X.shape[0]), class_weight)
                cls = pdask.PegasosClassifier
            # The in-memory estimators' own parameters (early stopping) stay out.
            params = {k: v for k, v in params.items() if k in cls._get_param_names()}
            if args.kernel == "linear":
                params["mode"] = args.mode
            est = cls(**params, client=on)
            bar = _bar(args, "training", "steps")
            progress = None if bar is None else _dask_progress(bar)
            if isinstance(est, pdask.PegasosOneClassSVM):
                est.fit(X, callback=progress)  # the one-class SVM reads no labels
            else:
                est.fit(X, y, callback=progress)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pegasos-rs train: {e}") from None
    finally:
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
    _save(est.save, model_file)
    if not args.quiet:
        print(
            f"trained {type(est).__name__} ({getattr(est, 'mode', 'exact')}) on "
            f"{_rows(int(X.shape[0]), int(X.shape[1]))} from {counted(len(data_files), 'file')}, "
            f"{task_of(est)}, {counted(est.t_, 'step')} "
            f"in {time.perf_counter() - started:.2f}s; model written to {model_file}",
            file=sys.stderr,
        )
    return 0


def _dask_progress(bar: ProgressBar):
    """The ``callback`` of a Dask fit that moves ``bar`` after every round."""

    def show(info) -> None:
        what = "round" if info["stage"] == "round" else "pass"
        bar.bar.set_description(f"training, {what} {info['pass']}", refresh=False)
        bar.update(info["steps"], info["steps_in_pass"], None, [], False)

    return show
