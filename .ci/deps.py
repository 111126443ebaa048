"""Print the requirements of the package and some of its extras, one per line, as
pyproject.toml declares them, for ``pip install -r``.

    python3 .ci/deps.py test            # the package's dependencies and the test extra
    python3 .ci/deps.py --oldest test   # the same, the libraries pinned to their minimum

CI installs the dependencies before the wheel exists (while it builds), then the
wheel itself with ``--no-deps``. ``--oldest`` pins each library the package uses at
run time (``PINNED`` below: the dependencies, the Dask extra's, the ONNX extra's
(which the test extra repeats, so that both environments run the export's tests), and
the pandas and polars inputs the estimators accept) to the lower bound pyproject.toml
declares, so that CI tests the oldest versions a user may have; the test tools stay
unpinned.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import tomllib

#: Libraries pinned to their declared minimum by --oldest.
PINNED = {
    "numpy",
    "scipy",
    "scikit-learn",
    "tqdm",
    "dask",
    "distributed",
    "pandas",
    "polars",
    "skl2onnx",
    "onnx",
    "onnxruntime",
}

_REQ = re.compile(r"^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*(.*)$")


def requirements(extras: list[str], oldest: bool) -> list[str]:
    project = tomllib.loads(
        (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    )["project"]
    lines = list(project["dependencies"])
    for extra in extras:
        lines += project["optional-dependencies"][extra]
    out: list[str] = []
    for line in lines:
        name, extra, spec = _REQ.match(line).groups()
        if oldest and name.lower() in PINNED:
            low = re.fullmatch(r">=\s*([0-9][0-9A-Za-z.]*)", spec.strip())
            if low is None:
                raise SystemExit(f"{line!r}: --oldest needs a plain '>=' lower bound")
            line = f"{name}{extra or ''}=={low.group(1)}"
        if line not in out:
            out.append(line)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("extras", nargs="*")
    parser.add_argument("--oldest", action="store_true")
    args = parser.parse_args()
    print("\n".join(requirements(args.extras, args.oldest)))
