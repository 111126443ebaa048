"""Every code block of README.md and the user guides runs as written (issue 24).

For each page, its Python blocks run in order in one namespace, as a reader pasting
them into one interpreter would, in a temporary working directory, and its bash
blocks run with ``bash -e`` in the same directory at their place in the page (so a
command can read a file an earlier Python block wrote, and the other way round).
The benchmark files a page names (``a9a``, ``ijcnn1.t``, ...) are made available in
that directory from ``$PEGASOS_DATA`` or ``../shared/data`` (``benches/shared_data``);
a page that needs a file that is absent is skipped, naming it.

**The data files are subsampled** (``SUBSAMPLE_ROWS``): the kernel solver and the
Nyström maps on the whole of a9a and ijcnn1 take about half a minute on two cores,
several times that on a loaded machine. Every line of every block still runs, with
the settings the page shows, on every k-th row of each file (plus the first row of
each label and feature the sample would lack, so that shapes are those of the whole
file). ``PEGASOS_DOC_BLOCKS_FULL=1`` runs the pages on the whole files.

``pegasos-rs`` in a bash block is the console script of the interpreter running the
tests (the installed wheel's, in CI) when it is there, else ``python -m pegasos_rs``;
either way it imports the ``pegasos_rs`` under test (PYTHONPATH).

A page whose code CI runs elsewhere in the same check (the Dask guide's, in
``.ci/dask_only``) is skipped when ``PEGASOS_RUN_ELSEWHERE`` names that place
(tests/run_elsewhere.py).

A block is skipped only when it is in ``CANNOT_RUN`` below, by its page and first
line, with the reason. The CLI's output may change (its messages and defaults are
its own tests' business): the commands are checked by their exit status and the
files they write.
"""

from __future__ import annotations

import lzma
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pegasos_rs
import pytest
import shared_data  # benches/, put on sys.path by conftest.py
from doc_blocks import Block, blocks, markdown_blocks, rst_blocks
from run_elsewhere import run_by_dask_only, run_elsewhere

ROOT = Path(__file__).resolve().parent.parent

#: The pages whose code blocks must run: README.md, the documentation's front page
#: and every user guide page (a new guide page is covered without being listed).
PAGES = [
    "README.md",
    "docs/index.rst",
    *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs/user_guide").glob("*.rst")),
]

#: Languages that are run, and those that are not code (an error hierarchy, the
#: README's folder tree). Any other language, a ``code-block`` without one or an rst
#: ``::`` literal block fails the test: say what it is.
PYTHON = {"python", "pycon"}
SHELL = {"bash", "console"}
NOT_CODE = {"text", ""}

#: The blocks that cannot run in a test: (page, first line) -> why.
CANNOT_RUN = {
    (
        "README.md",
        "# 1. install, then train on data scikit-learn ships, beside LIBLINEAR (accuracy, time",
    ): "installs the package into the current environment (pip install .) and runs the "
    "whole CI (bash .ci/run), which builds and tests the wheel",
    (
        "README.md",
        'python3 -m pip install ".[docs]"',
    ): "installs the docs extra and builds the documentation, which CI does itself",
    (
        "docs/index.rst",
        "python3 -m pip install . && python3 -m pegasos_rs demo",
    ): "installs the package into the current environment (pegasos-rs demo: test_demo.py)",
    (
        "docs/user_guide/dask.rst",
        'python3 -m pip install ".[dask]"                                      # from the clone',
    ): "installs the package with its dask extra into the current environment",
    (
        "docs/user_guide/onnx.rst",
        'python3 -m pip install ".[onnx]"   # from the clone (pegasos-rs is on no package index)',
    ): "installs the package with its onnx extra into the current environment",
    (
        "docs/user_guide/files_and_cli.rst",
        "pegasos-rs demo     # next to LIBLINEAR on data scikit-learn ships (about 20 s)",
    ): "16-20 s on two cores (both solvers on 200,000 rows, alpha chosen on a validation "
    "split), as long as all the other pages together; tests/test_demo.py runs its --quick "
    "form",
}

#: Commands no block may run in a test, allow-listed or not: a block containing one
#: that is not in CANNOT_RUN fails before anything of it runs.
NEVER_RUN = re.compile(r"\bpip\b.*\binstall\b|\.ci/run\b|\bsphinx\b|\bconda\b")

#: The benchmark files a page may name: each file of benches/shared_data.FILES
#: under its own name (``a9a.xz``: "link", compressed) and under the LIBSVM data
#: page's name (``a9a``: "unxz", decompressed).
DATA_FILES = {
    name: (file, how)
    for files in shared_data.FILES.values()
    for file in files
    if file is not None
    for name, how in ((file, "link"), (file.removesuffix(".xz"), "unxz"))
}

#: At most this many rows of each data file (see the module's docstring).
SUBSAMPLE_ROWS = 5_000

#: Files each page's blocks must leave in the working directory (what its commands
#: and saves claim to write).
WRITES = {
    "README.md": ["a9a.model", "predictions"],
    "docs/user_guide/files_and_cli.rst": [
        "copy.svm",
        "a9a.model",
        "pipe.model",
        "a9a-rbf.model",
        "predictions",
        "probs",
    ],
    "docs/user_guide/dask.rst": ["shards.model"],
    "docs/user_guide/onnx.rst": ["digits.onnx", "digits.model", "digits-cli.onnx"],
}

#: What each page's Python blocks must print (the output their comments show).
PRINTS = {
    "docs/user_guide/files_and_cli.rst": [
        'bad.svm: line 2: expected index:value, got "x" (column 8)',
    ],
}


def _named_data(found: list[Block]) -> list[str]:
    """The entries of DATA_FILES that the runnable blocks name, as whole words."""
    code = "\n".join(b.code for b in found if b.language in PYTHON | SHELL)
    return [
        name
        for name in DATA_FILES
        if re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w.-])", code) is not None
    ]


def _subsample(lines: list[bytes]) -> list[bytes]:
    """Every k-th of the svmlight ``lines`` (at most SUBSAMPLE_ROWS), plus the first
    line of each label and feature index the sample lacks, in file order."""
    step = -(-len(lines) // SUBSAMPLE_ROWS)
    keep = set(range(0, len(lines), step))
    labels: set[bytes] = set()
    features: set[bytes] = set()
    tokens = [line.split(b"#", 1)[0].split() for line in lines]
    for i in keep:
        if tokens[i]:
            labels.add(tokens[i][0])
            features.update(t.split(b":", 1)[0] for t in tokens[i][1:])
    for i, row in enumerate(tokens):
        if not row:
            continue
        found = {t.split(b":", 1)[0] for t in row[1:]}
        if row[0] not in labels or not found <= features:
            keep.add(i)
            labels.add(row[0])
            features |= found
    return [lines[i] for i in sorted(keep)]


def _provide_data(names: list[str], where: Path) -> None:
    folder = shared_data.data_dir()
    missing = sorted(
        {
            DATA_FILES[n][0]
            for n in names
            if folder is None or not (folder / DATA_FILES[n][0]).exists()
        }
    )
    if missing:
        pytest.skip(f"benchmark files {missing} are not available (set PEGASOS_DATA)")
    full = os.environ.get("PEGASOS_DOC_BLOCKS_FULL") == "1"
    for name in names:
        source, how = DATA_FILES[name]
        if full and how == "link":
            (where / name).symlink_to(folder / source)
            continue
        with lzma.open(folder / source, "rb") as f:
            lines = f.read().splitlines(keepends=True)
        data = b"".join(lines if full else _subsample(lines))
        if how == "link":
            with lzma.open(where / name, "wb", preset=1) as out:
                out.write(data)
        else:
            (where / name).write_bytes(data)


#: The console script installed beside the interpreter running the tests, if any.
CONSOLE_SCRIPT = Path(sys.executable).parent / "pegasos-rs"


def _shell_env(bin_dir: Path, script: Path | None) -> dict[str, str]:
    """The environment of bash blocks: ``pegasos-rs`` (the console ``script``, or
    the module when None) and ``python3`` of this interpreter first on PATH, the
    pegasos_rs under test first on PYTHONPATH."""
    package_parent = str(Path(pegasos_rs.__file__).resolve().parent.parent)
    paths = [package_parent]
    paths += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    bin_dir.mkdir()

    def wrapper(name: str, command: str) -> None:
        (bin_dir / name).write_text(f'#!/bin/sh\nexec {command} "$@"\n')
        (bin_dir / name).chmod((bin_dir / name).stat().st_mode | stat.S_IXUSR)

    if script is not None:
        wrapper("pegasos-rs", f'"{script}"')
    else:
        # A development checkout run with PYTHONPATH and an interpreter without the
        # console script: the same entry point through the module.
        wrapper("pegasos-rs", f'"{sys.executable}" -m pegasos_rs')
    # Wrappers, not links: a link to a virtualenv's python outside the virtualenv's
    # bin/ would not find the virtualenv.
    wrapper("python3", f'"{sys.executable}"')
    wrapper("python", f'"{sys.executable}"')
    path = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path, "PYTHONPATH": os.pathsep.join(paths)}


def _shell_script(block: Block) -> str:
    if block.language == "console":
        lines = [ln[2:] for ln in block.code.splitlines() if ln.startswith("$ ")]
        return "\n".join(lines) + "\n"
    return block.code


def _run_shell(block: Block, cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-x", "-c", _shell_script(block)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (
        f"{block} exited with status {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )


def _run_python(block: Block, namespace: dict) -> None:
    # Padded so that a traceback names the page's own line numbers.
    code = compile("\n" * (block.line - 1) + block.code, str(ROOT / block.path), "exec")
    exec(code, namespace)


def _check_runnable(found: list[Block]) -> list[Block]:
    """The blocks to run: everything but CANNOT_RUN and NOT_CODE; fails on blocks
    of no known language and on unlisted blocks that would install or build."""
    run = []
    for b in found:
        if (b.path, b.first_line) in CANNOT_RUN:
            continue
        if b.language in NOT_CODE:
            continue
        assert b.language in PYTHON | SHELL, (
            f"{b}: a block of language {b.language!r}: use `.. code-block:: python` or "
            "`bash` (it is then run here), or `text` if it is not code"
        )
        hit = NEVER_RUN.search(b.code) if b.language in SHELL else None
        assert hit is None, (
            f"{b}: runs {hit.group(0)!r}, which a test must not do; add the block to "
            "CANNOT_RUN with the reason, or move the command to a block of its own"
        )
        run.append(b)
    return run


def _close_clients(namespace: dict) -> None:
    """Close the Dask clients (and the LocalClusters they started) a page left open,
    when one of its blocks failed before its own ``client.close()``."""
    distributed = sys.modules.get("distributed")
    if distributed is None:
        return
    for value in namespace.values():
        if isinstance(value, distributed.Client):
            value.close()


@pytest.mark.parametrize("page", PAGES)
# Another LocalCluster on this machine (another test run) holds Dask's dashboard
# port: the reader's cluster takes another one with a warning, and distributed
# leaves the socket of its try unclosed.
@pytest.mark.slow  # the guides run whole, the command line in child processes
@pytest.mark.filterwarnings(r"ignore:Port \d+ is already in use:UserWarning")
@pytest.mark.filterwarnings(
    r"ignore:Exception ignored in. <socket\.socket:pytest.PytestUnraisableExceptionWarning"
)
def test_page_code_runs(page, tmp_path, monkeypatch, capsys):
    elsewhere = run_elsewhere(ROOT / page)
    if elsewhere:
        pytest.skip(f"CI runs its code in {' and '.join(elsewhere)} (PEGASOS_RUN_ELSEWHERE)")
    found = blocks(ROOT / page)
    found = [Block(page, b.language, b.line, b.code) for b in found]
    run = _check_runnable(found)
    if not run:
        return
    code = "\n".join(b.code for b in run)
    if "pegasos_rs.dask" in code or "--dask" in code:
        pytest.importorskip("distributed", reason="the Dask guide needs the dask extra")
    if "to_onnx" in code:
        pytest.importorskip("onnxruntime", reason="the ONNX guide needs the onnx extra")
    work = tmp_path / "work"
    work.mkdir()
    _provide_data(_named_data(run), work)
    env = _shell_env(tmp_path / "bin", CONSOLE_SCRIPT if CONSOLE_SCRIPT.exists() else None)
    monkeypatch.chdir(work)
    namespace: dict = {"__name__": "__main__"}
    try:
        for b in run:
            if b.language in PYTHON:
                _run_python(b, namespace)
            else:
                _run_shell(b, work, env)
    finally:
        _close_clients(namespace)
    missing = [f for f in WRITES.get(page, []) if not (work / f).is_file()]
    assert not missing, f"{page}: its blocks did not write {missing}"
    printed = capsys.readouterr().out
    for text in PRINTS.get(page, []):
        assert text in printed, f"{page}: its blocks did not print {text!r}:\n{printed}"


@pytest.mark.slow  # child processes
@pytest.mark.parametrize("console_script", [True, False], ids=["script", "module"])
def test_shell_blocks_run_the_package_under_test(console_script, tmp_path):
    if console_script and not CONSOLE_SCRIPT.exists():
        pytest.skip(f"no console script beside {sys.executable}")
    env = _shell_env(tmp_path / "bin", CONSOLE_SCRIPT if console_script else None)
    code = "import pegasos_rs; print(pegasos_rs.__file__)"
    block = Block("t.md", "bash", 1, f'pegasos-rs --version\npython3 -c "{code}"\n')
    done = subprocess.run(
        ["bash", "-e", "-c", _shell_script(block)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    version, where = done.stdout.splitlines()
    assert version == f"pegasos-rs {pegasos_rs.__version__}"
    assert Path(where).resolve() == Path(pegasos_rs.__file__).resolve()


def test_ci_runs_the_dask_guide_elsewhere():
    """What PEGASOS_RUN_ELSEWHERE=dask_only relies on: .ci/dask_only runs the Dask
    guide's Python blocks, the only ones of that page that run here."""
    if not (ROOT / ".ci").is_dir():
        pytest.skip(".ci/ is not next to the tests")
    assert [p for p in PAGES if run_by_dask_only(ROOT / p)] == ["docs/user_guide/dask.rst"]
    page = "docs/user_guide/dask.rst"
    run = _check_runnable([Block(page, b.language, b.line, b.code) for b in blocks(ROOT / page)])
    assert run and {b.language for b in run} <= PYTHON


def test_allow_list_names_existing_blocks():
    """Every CANNOT_RUN entry is a block that exists: a stale entry would hide
    nothing, but says the page changed and the list should be checked."""
    for page, first_line in CANNOT_RUN:
        firsts = [b.first_line for b in blocks(ROOT / page)]
        assert first_line in firsts, f"{page}: no block starts with {first_line!r}"


# ------------------------------------------------------------- the extraction itself


def test_markdown_fences():
    text = (
        "# Title\n"
        "\n"
        "```python\n"
        "x = 1\n"
        "\n"
        "y = 2\n"
        "```\n"
        "text ```inline``` text\n"
        "~~~~ bash\n"
        "echo ```\n"
        "~~~~\n"
        "```\n"
        "tree\n"
        "````\n"
        "  ```python\n"
        "  if x:\n"
        "      pass\n"
        "  ```\n"
    )
    found = markdown_blocks(text, "p.md")
    assert [(b.language, b.line, b.code) for b in found] == [
        ("python", 4, "x = 1\n\ny = 2\n"),
        ("bash", 10, "echo ```\n"),
        ("", 13, "tree\n"),
        ("python", 16, "if x:\n    pass\n"),
    ]
    assert found[0].first_line == "x = 1"


def test_rst_directives_literal_and_doctest_blocks():
    text = (
        "Title\n"
        "=====\n"
        "\n"
        ".. code-block:: python\n"
        "   :caption: an option\n"
        "\n"
        "   import os\n"
        "\n"
        "   if os:\n"
        "       pass\n"
        "text after\n"
        "\n"
        "* item\n"
        "\n"
        "  .. code:: bash\n"
        "\n"
        "     ls\n"
        "\n"
        "A paragraph ending in a literal block::\n"
        "\n"
        "   x = 1\n"
        "\n"
        ">>> a = 1\n"
        ">>> if a:\n"
        "...     a\n"
        "1\n"
        "\n"
        ".. note::\n"
        "\n"
        "   Not code, even when a line ends in::\n"
        "\n"
        ".. code-block:: text\n"
        "\n"
        "   x\n"
    )
    found = rst_blocks(text, "p.rst")
    assert [(b.language, b.line, b.code) for b in found] == [
        ("python", 7, "import os\n\nif os:\n    pass\n"),
        ("bash", 17, "ls\n"),
        ("literal", 21, "x = 1\n"),
        ("pycon", 23, "a = 1\nif a:\n    a\n"),
        ("text", 34, "x\n"),
    ]


def test_every_page_has_its_blocks_found():
    """The counts of the pages' code blocks, as a reader sees them: a change in the
    extraction that lost blocks would make the page tests pass on less."""
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        if page.endswith(".md"):
            expected = len(re.findall(r"^```", text, re.M)) // 2
        else:
            expected = len(re.findall(r"^\s*\.\. code-block::", text, re.M))
        assert len(blocks(ROOT / page)) >= expected, page
