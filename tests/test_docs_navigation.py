"""The benchmark pages in the documentation's navigation: one entry per page, each
with a title of its own (issue 24).

Each page of ``docs/benchmarks`` wraps a report of ``benches/results`` (or
``benches/README.md``), included as the script wrote it: the report's top-level
heading is the page's title in the toctree. Anything else at the top level becomes
an entry of its own: a section of the wrapper after the include (the "Plots"
sections listed six pages' plots as six entries named "Plots"), and a second
``#`` heading of the report. So the wrappers head their plots with ``.. rubric::``,
and each report has one ``#`` title saying what it measures.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "benchmarks"

#: An rst section title's underline (or overline): one repeated punctuation
#: character, at least three times.
_RST_UNDERLINE = re.compile(r"""^([=\-~^"'`#*+:.<>_])\1{2,}\s*$""")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MD_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _toctree(index: Path) -> list[str]:
    """The document names of the first toctree of ``index``."""
    lines = index.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(".. toctree::"))
    names = []
    for line in lines[start + 1 :]:
        if line.strip() and not line.startswith(" "):
            break
        entry = line.strip()
        if entry and not entry.startswith(":"):
            names.append(entry)
    return names


def _md_headings(text: str) -> list[tuple[int, str]]:
    """``(level, text)`` of the ATX headings of Markdown ``text``, outside fenced
    code blocks (a ``# comment`` in a shell block is not a heading)."""
    out = []
    fence = None
    for line in text.splitlines():
        m = _MD_FENCE.match(line)
        if m is not None:
            if fence is None:
                fence = m.group(1)[0] * len(m.group(1))
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            h = _MD_HEADING.match(line)
            if h is not None:
                out.append((len(h.group(1)), h.group(2)))
    return out


def _rst_sections(text: str) -> list[str]:
    """The section titles of reStructuredText ``text`` (a text line followed by an
    underline at least as long)."""
    lines = text.splitlines()
    return [
        lines[i - 1].strip()
        for i in range(1, len(lines))
        if _RST_UNDERLINE.match(lines[i])
        and lines[i - 1].strip()
        and not _RST_UNDERLINE.match(lines[i - 1])
        and len(lines[i].rstrip()) >= len(lines[i - 1].rstrip())
    ]


def _page(name: str) -> tuple[Path, Path]:
    """``(wrapper, included file)`` of the benchmark page ``name``."""
    found = [p for p in (PAGES / f"{name}.rst", PAGES / f"{name}.md") if p.exists()]
    assert len(found) == 1, f"docs/benchmarks/{name}: {found or 'no .rst or .md page'}"
    wrapper = found[0]
    text = wrapper.read_text(encoding="utf-8")
    if wrapper.suffix == ".rst":
        includes = re.findall(r"^\.\. include:: (\S+)", text, re.M)
    else:
        includes = re.findall(r"^```\{include\} (\S+)", text, re.M)
    assert len(includes) == 1, f"{wrapper.name}: includes {includes}, expected one report"
    return wrapper, (wrapper.parent / includes[0]).resolve()


def _title(name: str) -> str:
    _, included = _page(name)
    headings = _md_headings(included.read_text(encoding="utf-8"))
    tops = [text for level, text in headings if level == 1]
    assert headings and headings[0][0] == 1 and len(tops) == 1, (
        f"{_rel(included)}: the first heading must be its one `#` title "
        f"(the page's entry in the navigation); it has {tops or 'none'} and starts "
        f"with {headings[:1]}"
    )
    return tops[0]


BENCHMARK_PAGES = _toctree(PAGES / "index.rst")


@pytest.mark.parametrize("name", BENCHMARK_PAGES)
def test_a_benchmark_page_is_one_entry_of_the_navigation(name):
    wrapper, _ = _page(name)
    text = wrapper.read_text(encoding="utf-8")
    if wrapper.suffix == ".rst":
        own = _rst_sections(text)
    else:
        own = [t for _, t in _md_headings(text)]
    assert not own, (
        f"{_rel(wrapper)}: its own headings {own} would be top-level "
        "entries of the navigation beside the included report's title, not sections "
        "of it; head the plots with `.. rubric::` instead"
    )
    assert _title(name)


def test_benchmark_page_titles_are_distinct():
    titles = [_title(name) for name in BENCHMARK_PAGES]
    index_title = _rst_sections((PAGES / "index.rst").read_text(encoding="utf-8"))[0]
    repeated = sorted({t for t in titles if titles.count(t) > 1 or t == index_title})
    assert not repeated, f"pages of docs/benchmarks share the titles {repeated}"


def test_the_checks_see_what_sphinx_sees():
    """The parsers of this file on the cases that fooled the navigation."""
    wrapper = ".. include:: report.md\n   :parser: myst_parser.sphinx_\n\nPlots\n-----\n"
    assert _rst_sections(wrapper) == ["Plots"]
    assert _rst_sections(".. rubric:: Plots\n\n.. image:: a.png\n") == []
    report = "# Title\n\n```sh\n# a comment\n```\n\n## Part\n\n~~~\n# not\n~~~\n"
    assert _md_headings(report) == [(1, "Title"), (2, "Part")]
