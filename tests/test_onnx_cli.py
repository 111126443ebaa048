"""``pegasos-rs export MODEL OUT.onnx`` (or ``--format onnx``): saved models and
pipelines written as ONNX graphs that onnxruntime runs as the models predict."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("skl2onnx")
pytest.importorskip("onnxruntime")

import onnxruntime
import pegasos_rs
from conftest import make_problem
from onnx_checks import assert_values, check_classifier
from pegasos_rs import Nystroem, PegasosClassifier, PegasosRanker, PegasosRegressor
from pegasos_rs.cli import main
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


class _Graph:
    """A graph file read back as to_onnx's result (what check_classifier runs)."""

    def __init__(self, path) -> None:
        self.data = path.read_bytes()

    def SerializeToString(self) -> bytes:
        return self.data


def test_suffix_selects_onnx_and_the_graph_predicts_as_the_model(tmp_path):
    X, y = make_problem(n_samples=200, n_features=8, n_classes=3, seed=1)
    model = PegasosClassifier(loss="log_loss", random_state=0).fit(X, y)
    model.save(tmp_path / "m.model")
    assert main(["export", "--no-zipmap", str(tmp_path / "m.model"), str(tmp_path / "m.onnx")]) == 0
    check_classifier(model, _Graph(tmp_path / "m.onnx"), X)
    # zipmap by default: a list of {class: probability}
    assert main(["export", str(tmp_path / "m.model"), str(tmp_path / "z.ONNX")]) == 0
    session = onnxruntime.InferenceSession(str(tmp_path / "z.ONNX"))
    _, maps = session.run(None, {"X": X[:3].astype(np.float32)})
    assert sorted(maps[0]) == [0, 1, 2]


def test_format_onnx_and_pipelines(tmp_path):
    X, y = make_problem(n_samples=200, n_features=8, n_classes=2, seed=2)
    pipe = make_pipeline(
        StandardScaler(), Nystroem(n_components=20, random_state=0), PegasosClassifier()
    ).fit(X, y)
    pegasos_rs.save(pipe, tmp_path / "p.model")
    out = tmp_path / "graph.bin"
    assert (
        main(["export", "--format", "onnx", "--no-zipmap", str(tmp_path / "p.model"), str(out)])
        == 0
    )
    check_classifier(pipe, _Graph(out), X)
    reg = PegasosRegressor(random_state=0).fit(X, X[:, 0])
    reg.save(tmp_path / "r.model")
    assert main(["export", str(tmp_path / "r.model"), str(tmp_path / "r.onnx")]) == 0
    session = onnxruntime.InferenceSession(str(tmp_path / "r.onnx"))
    (values,) = session.run(None, {"X": X.astype(np.float32)})
    assert_values(values.ravel(), reg.predict(X))


def test_errors_are_one_line_messages(tmp_path, capsys):
    X, y = make_problem(n_samples=60, n_features=5, seed=3)
    PegasosRanker(sampling="roc", max_iter=1).fit(X, y).save(tmp_path / "rank.model")
    out = tmp_path / "out.onnx"
    with pytest.raises(
        SystemExit, match=r"^pegasos-rs export: PegasosRanker cannot be exported"
    ) as e:
        main(["export", str(tmp_path / "rank.model"), str(out)])
    assert "\n" not in str(e.value.code)
    assert not out.exists()
    with pytest.raises(SystemExit) as e:  # no --format, no .onnx suffix
        main(["export", str(tmp_path / "rank.model"), str(tmp_path / "out.txt")])
    assert e.value.code == 2
    assert "--format" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["export", "--format", "liblinear", "--no-zipmap", "a", "b"])
    assert e.value.code == 2
    assert "--no-zipmap applies to --format onnx only" in capsys.readouterr().err


def test_dtype_sets_the_graphs_input_type(tmp_path, capsys):
    """Without sample rows the graph reads float32 (what a server feeds), as
    ``to_onnx(model)``; ``--dtype float64`` exports a float64 graph."""
    X, y = make_problem(n_samples=100, n_features=6, seed=4)
    PegasosClassifier(random_state=0).fit(X, y).save(tmp_path / "m.model")
    for args, kind in [([], np.float32), (["--dtype", "float32"], np.float32),
                       (["--dtype", "float64"], np.float64)]:  # fmt: skip
        out = tmp_path / "m.onnx"
        assert main(["export", *args, str(tmp_path / "m.model"), str(out)]) == 0
        session = onnxruntime.InferenceSession(str(out))
        assert session.get_inputs()[0].type == (
            "tensor(float)" if kind == np.float32 else "tensor(double)"
        )
        session.run(None, {"X": X.astype(kind)})
    with pytest.raises(SystemExit) as e:
        main(["export", "--format", "liblinear", "--dtype", "float64", "a", "b"])
    assert e.value.code == 2
    assert "--dtype applies to --format onnx only" in capsys.readouterr().err
