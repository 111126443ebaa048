"""Which examples and documentation pages CI runs outside pytest, for
``PEGASOS_RUN_ELSEWHERE``.

``.ci/run`` runs the examples and the Dask guide's code outside pytest too: the
documentation build runs the gallery's scripts (those ``docs/conf.py``'s
sphinx-gallery ``filename_pattern`` selects) in the checkout's ``examples/`` and
fails under ``sphinx -W`` when one raises, ``.ci/run`` then fails on any new file in
the checkout, and ``.ci/dask_only`` runs the files it names (the Dask example and
the Dask guide's Python blocks). Once is enough: ``PEGASOS_RUN_ELSEWHERE`` lists the
places that run in the same check (``docs``, ``dask_only``), and the tests that would
run the same file again skip it (tests/test_examples.py, tests/test_doc_blocks.py).
Name ``dask_only`` only where that script checks what those tests check: that the
example leaves its working folder empty and that the guide writes its model file.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def gallery_pattern() -> str:
    """The ``filename_pattern`` of ``sphinx_gallery_conf`` in ``docs/conf.py``: the
    scripts the documentation build runs (read, not imported: importing the
    configuration changes the environment)."""
    for node in ast.walk(ast.parse((ROOT / "docs/conf.py").read_text())):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "sphinx_gallery_conf" for t in node.targets
        ):
            assert isinstance(node.value, ast.Dict)
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "filename_pattern":
                    return ast.literal_eval(value)
    raise AssertionError("docs/conf.py: no filename_pattern in sphinx_gallery_conf")


def run_by_docs(path: Path) -> bool:
    """Whether the documentation build runs ``path``: a script of ``examples/``
    that the gallery's pattern matches (sphinx-gallery matches it against the
    path)."""
    in_examples = path.parent == ROOT / "examples"
    return in_examples and re.search(gallery_pattern(), path.as_posix()) is not None


def run_by_dask_only(path: Path) -> bool:
    """Whether ``.ci/dask_only`` runs ``path`` (it names it as ``"$root/..."``)."""
    ci = ROOT / ".ci" / "dask_only"
    relative = path.relative_to(ROOT).as_posix()
    return ci.is_file() and f'"$root/{relative}"' in ci.read_text()


#: The places PEGASOS_RUN_ELSEWHERE may name.
PLACES = {"docs": run_by_docs, "dask_only": run_by_dask_only}


def run_elsewhere(path: Path) -> list[str]:
    """The places named in PEGASOS_RUN_ELSEWHERE that run ``path``."""
    names = [n for n in os.environ.get("PEGASOS_RUN_ELSEWHERE", "").split(",") if n]
    unknown = set(names) - set(PLACES)
    assert not unknown, f"PEGASOS_RUN_ELSEWHERE: unknown {sorted(unknown)}; known {list(PLACES)}"
    return [n for n in names if PLACES[n](path)]
