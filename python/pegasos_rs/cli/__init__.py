"""The ``pegasos-rs`` command line.

``pegasos-rs demo`` trains PegasosClassifier and LIBLINEAR on the same problems
(datasets scikit-learn ships, plus a seeded sparse text-like problem), prints test
accuracy and training time side by side and explains them
(:mod:`pegasos_rs.cli._demo`). ``pegasos-rs train`` and
``pegasos-rs predict`` work like LIBLINEAR's programs (see
:mod:`pegasos_rs.cli.train` and :mod:`pegasos_rs.cli.predict`). ``pegasos-rs
export --format liblinear MODEL OUT`` writes a pegasos-rs model file as a LIBLINEAR model file
(:func:`pegasos_rs.write_liblinear_model`), ``pegasos-rs export MODEL OUT.onnx`` (or
``--format onnx``) as an ONNX graph (:func:`pegasos_rs.to_onnx`, the ``onnx`` extra).
"""

from __future__ import annotations

import argparse
import math
import sys

#: The models ``export`` writes in each format, as its help names them. The help is
#: built without importing the converters (``pegasos_rs.onnx`` imports skl2onnx,
#: seconds, where ``--help`` must answer at once), so tests check these against the
#: code: ``pegasos_rs.onnx.CONVERTERS`` and ``REFUSED``, and the classes
#: ``write_liblinear_model`` accepts.
EXPORTED = {
    "liblinear": ("PegasosClassifier", "PegasosRegressor", "PegasosOneClassSVM"),
    "onnx": (
        "PegasosClassifier",
        "PegasosRegressor",
        "PegasosOneClassSVM",
        "KernelPegasosClassifier",
        "KernelPegasosRegressor",
        "KernelPegasosOneClassSVM",
        "RandomFourierFeatures",
        "Nystroem",
        "AdditiveKernelMap",
    ),
}
#: The classes ``to_onnx`` refuses by name.
REFUSED_BY_ONNX = ("PegasosRanker",)


def _listed(names: tuple[str, ...]) -> str:
    """``"a, b and c"``."""
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def _positive(kind):
    """An argparse type: a finite ``kind`` number greater than zero."""

    def parse(text: str):
        value = kind(text)
        if not (value > 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
        return value

    return parse


class _Version(argparse.Action):
    """``--version``: the version is read from the extension only when asked for
    (importing it imports numpy, which ``--help`` does without)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs) -> None:
        kwargs.setdefault("help", "show the version and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from pegasos_rs._core import __version__

        print(f"pegasos-rs {__version__}")
        parser.exit()


def demo(args) -> int:
    """``pegasos-rs demo`` (see :mod:`pegasos_rs.cli._demo`)."""
    from pegasos_rs.cli._demo import demo as run_demo

    return run_demo(args)


def _write_onnx(model, path: str, *, zipmap: bool, dtype: str) -> None:
    """Write ``model`` (or a pipeline) as an ONNX graph with the input ``X`` of
    ``dtype`` (``"float32"`` or ``"float64"``) to ``path``; ``zipmap=False``: a
    classifier's probabilities as one tensor."""
    from pegasos_rs.onnx import to_onnx

    final = model.steps[-1][1] if hasattr(model, "steps") else model
    options = None
    if not zipmap and hasattr(final, "classes_"):
        options = {id(final): {"zipmap": False}}
    data = to_onnx(model, dtype=dtype, options=options).SerializeToString()
    with open(path, "wb") as f:
        f.write(data)


def export(args) -> int:
    """``pegasos-rs export``: read a model file with :func:`pegasos_rs.load` and write
    it in ``args.format``; errors are one-line messages (exit status 1)."""
    from pegasos_rs.io.liblinear_format import write_liblinear_model
    from pegasos_rs.io.model_io import load

    try:
        model = load(args.model_file)
        if args.format == "onnx":
            _write_onnx(model, args.output_file, zipmap=not args.no_zipmap, dtype=args.dtype)
            written = f"an ONNX graph of {args.dtype} input X"
        else:
            write_liblinear_model(model, args.output_file)
            written = "a LIBLINEAR model file"
    except (OSError, ValueError, TypeError, ImportError) as e:
        raise SystemExit(f"pegasos-rs export: {e}") from None
    if not args.quiet:  # as train ends, on stderr
        print(
            f"exported {_model_summary(model)} from {args.model_file} to "
            f"{args.output_file}: {written}",
            file=sys.stderr,
        )
    return 0


def _model_summary(model) -> str:
    """``"PegasosClassifier (3 classes, 5 features)"``; a pipeline's steps are named."""
    from pegasos_rs._counts import counted
    from pegasos_rs.cli._common import task_of

    name = type(model).__name__
    steps = [type(s).__name__ for _, s in getattr(model, "steps", []) if s != "passthrough"]
    if steps:
        name += f" of {_listed(tuple(steps))}"
    about = []
    if hasattr(model, "classes_") or hasattr(model, "predict"):
        about.append(task_of(model))
    if hasattr(model, "n_features_in_"):
        about.append(counted(int(model.n_features_in_), "feature"))
    return f"{name} ({', '.join(about)})" if about else name


def main(argv: list[str] | None = None) -> int:
    from pegasos_rs.cli.predict import predict
    from pegasos_rs.cli.train import train

    argv = sys.argv[1:] if argv is None else list(argv)
    # train/predict parse LIBLINEAR-style options (-w1 5) themselves.
    if argv and argv[0] in ("train", "predict"):
        return {"train": train, "predict": predict}[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(
        prog="pegasos-rs", description="Pegasos SVM solvers (Rust) from the command line."
    )
    parser.add_argument("--version", action=_Version)
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
    p_demo.add_argument(
        "--alpha",
        type=_positive(float),
        default=None,
        help="regularisation (lambda) for every problem (default: chosen per problem "
        "on a validation split)",
    )
    p_demo.add_argument(
        "--passes",
        type=_positive(int),
        default=10,
        help="averaged passes over the data (default 10)",
    )
    p_demo.add_argument("--quick", action="store_true", help="smaller synthetic problem")
    p_demo.set_defaults(func=demo)
    p_export = sub.add_parser(
        "export",
        help="write a saved model as a LIBLINEAR model file or an ONNX graph "
        "(pegasos-rs export -h)",
        description="Write a model file pegasos-rs reads (pegasos_rs.load) in another "
        "program's format. --format liblinear: LIBLINEAR's model file, which its "
        "predict program (and liblinearutil.load_model) reads and predicts with as "
        f"pegasos-rs does, for {_listed(EXPORTED['liblinear'])} (every loss; "
        "one-vs-rest and Crammer-Singer); other models, models with probability=True "
        "and labels that are not integers are refused. --format onnx (the default when "
        "OUTPUT_FILE ends in .onnx): an ONNX graph (pegasos_rs.to_onnx; needs the "
        "[onnx] extra) with the input X of --dtype (float32 by default) and, for "
        "classifiers, the outputs label and probabilities (the decision scores for "
        f"models without predict_proba), for {_listed(EXPORTED['onnx'])}, and "
        "pipelines of them with scikit-learn's scalers; "
        f"{_listed(REFUSED_BY_ONNX)} is refused. A line on stderr says what was "
        "written (none with -q).",
    )
    p_export.add_argument(
        "--format",
        choices=["liblinear", "onnx"],
        help="the format to write: liblinear (LIBLINEAR's model file) or onnx (an ONNX "
        "graph); needed unless OUTPUT_FILE ends in .onnx",
    )
    p_export.add_argument(
        "--no-zipmap",
        action="store_true",
        help="onnx: a classifier's probabilities as one float tensor (N, n_classes) "
        "instead of a list of {class: probability} maps",
    )
    p_export.add_argument(
        "--dtype",
        choices=["float32", "float64"],
        help="onnx: the type of the input X and of the graph's arithmetic (default "
        "float32, what servers feed; float64 follows predict to about 1e-12)",
    )
    p_export.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing when the file is written"
    )
    p_export.add_argument("model_file", help="a model file written by pegasos-rs")
    p_export.add_argument("output_file", help="the file to write")
    p_export.set_defaults(func=export)
    args = parser.parse_args(argv)
    if args.command == "export" and args.format is None:
        if not args.output_file.lower().endswith(".onnx"):
            p_export.error(
                "the following arguments are required: --format (liblinear or onnx; "
                "onnx is implied when OUTPUT_FILE ends in .onnx)"
            )
        args.format = "onnx"
    if args.command == "export" and args.format != "onnx":
        for flag, given in (("--no-zipmap", args.no_zipmap), ("--dtype", args.dtype)):
            if given:
                p_export.error(f"{flag} applies to --format onnx only")
    if args.command == "export" and args.dtype is None:
        args.dtype = "float32"
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
