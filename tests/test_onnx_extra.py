"""Without the ``onnx`` extra, ``pegasos_rs.to_onnx`` still resolves (it is in
``__all__``) and calling it says what to install (runs with or without the extra:
the child process hides skl2onnx)."""

from __future__ import annotations

import subprocess
import sys


def test_to_onnx_without_the_extra_names_it():
    code = (
        "import sys; sys.modules['skl2onnx'] = None\n"
        "import numpy as np, pegasos_rs\n"
        "from pegasos_rs import PegasosClassifier\n"
        "model = PegasosClassifier(max_iter=1).fit(np.eye(4), [0, 1, 0, 1])\n"
        "try:\n"
        "    pegasos_rs.to_onnx(model)\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("ONNX export needs skl2onnx, onnx and onnxruntime (")
    assert 'python3 -m pip install ".[onnx]"' in out.stdout


def test_cli_export_onnx_without_the_extra_is_a_one_line_message(tmp_path):
    code = (
        "import sys; sys.modules['skl2onnx'] = None\n"
        "import numpy as np\n"
        "from pegasos_rs import PegasosClassifier\n"
        "from pegasos_rs.cli import main\n"
        f"path = {str(tmp_path / 'm.model')!r}\n"
        "PegasosClassifier(max_iter=1).fit(np.eye(4), [0, 1, 0, 1]).save(path)\n"
        "main(['export', path, path + '.onnx'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 1
    message = out.stderr.strip()
    assert "\n" not in message
    assert message.startswith("pegasos-rs export: ONNX export needs skl2onnx, onnx and onnxruntime")
    assert message.endswith('python3 -m pip install "dist/pegasos_rs-<version>-<tags>.whl[onnx]"')
    assert not (tmp_path / "m.model.onnx").exists()
