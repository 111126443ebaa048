"""Sphinx configuration of the pegasos-rs documentation.

Build from the repository root with ``python -m sphinx -W --keep-going -b html docs
docs/_build/html``; pegasos_rs must be importable (the installed wheel, or
``PYTHONPATH=python`` in a checkout with the compiled extension).
"""

from __future__ import annotations

import os
from pathlib import Path

import pegasos_rs

# sphinx-gallery runs the examples in this process, but an example may start
# ``python -m pegasos_rs``: put the package this build imports first on the
# children's path (a relative PYTHONPATH=python would not resolve from examples/).
_package_parent = str(Path(pegasos_rs.__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(
    [_package_parent, *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
)

ROOT = Path(__file__).resolve().parent.parent

project = "pegasos-rs"
author = "the pegasos-rs developers"
copyright = "the pegasos-rs developers, MIT license"
version = release = pegasos_rs.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py.md5"]
templates_path = ["_templates"]

# API reference: one page per public name, from the docstrings.
autosummary_generate = True
autodoc_default_options = {"members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Markdown is only used to include the benchmark reports (benches/results/*.md)
# as the benchmark scripts write them; the other pages are reStructuredText.
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("pegasos_rs",),
    "reference_url": {"pegasos_rs": None},
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "min_reported_time": 1,
}

html_theme = "pydata_sphinx_theme"
html_title = f"pegasos-rs {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []

# The examples draw with matplotlib; never open a window while building.
os.environ.setdefault("MPLBACKEND", "Agg")
