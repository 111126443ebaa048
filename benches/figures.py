"""The figures README and the documentation quote, read from the results pages'
own tables and written beside each page as ``<page>.figures.json``.

A results page ``results/X.md`` is what a benchmark script printed (``report.publish``
writes it). The figures other texts quote from it are named in
:mod:`quoted_figures`: each is a cell of one of the page's tables (the table under a
heading, the row whose cells say given things, a column), or a part of that cell, or
a number in a line of text of the page. :func:`extract` reads them from the page's
text, and :func:`write` stores them in ``results/X.figures.json``: each figure's
value, unit, the text the page shows and where in the page it stands.

``report.publish`` calls :func:`write` on every page it writes, so a benchmark run
writes its page's figures with it; ``python benches/figures.py`` runs the same code on
the pages already written (a page whose quoted figure is gone fails loudly, naming
it). README's and the documentation's figures are generated from these files
(``.ci/readme_figures.py``), never typed by hand.

    python benches/figures.py            # rewrite every page's figures file
    python benches/figures.py --check    # exit status 1 when one is out of date

This module uses only the standard library: CI imports it without the benchmarks'
dependencies.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"
SUFFIX = ".figures.json"


class FigureError(ValueError):
    """A quoted figure cannot be read from its page: the page or the quote changed."""


@dataclass(frozen=True)
class Cell:
    """A figure in a table cell: the table under the heading that starts with
    ``table`` (``None``: the page's only table), the one row whose cells in the
    columns ``row`` names hold the given texts, the column ``column`` (its header, a
    unique start of its header, or its index). ``part``, a regular expression with
    one group, picks the figure out of a cell that holds more than one number.
    ``word``: the figure is a word (a verdict, a winner), not a number."""

    table: str | None
    row: tuple[tuple[str | int, str], ...]
    column: str | int
    part: str | None = None
    word: bool = False


@dataclass(frozen=True)
class Line:
    """A figure in the page's text outside tables: the one group of ``pattern``,
    which must match exactly once (``word``: see :class:`Cell`)."""

    pattern: str
    word: bool = False


Quote = Cell | Line


@dataclass
class Table:
    """A markdown table of a page: the heading above it, its header, its rows, and
    where each cell of a row starts in the page's text."""

    heading: str
    header: list[str]
    rows: list[list[str]]
    starts: list[list[int]]


_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
_SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$")
_PIPE = re.compile(r"(?<!\\)\|")
# One number (digits with optional thousands commas, decimals and exponent) and
# what follows it: its unit (no digit in it).
_FIGURE = re.compile(
    r"^(?P<number>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?P<unit>\s*[^\d]*?)$"
)


def _cells(line: str, offset: int) -> tuple[list[str], list[int]]:
    """The stripped cells of a table line that starts at ``offset`` in its page,
    and where each starts."""
    bounds = [m.start() for m in _PIPE.finditer(line)]
    if not line.rstrip().endswith("|"):
        bounds.append(len(line))
    cells, starts = [], []
    for a, b in itertools.pairwise(bounds):
        raw = line[a + 1 : b]
        cells.append(raw.strip())
        starts.append(offset + a + 1 + len(raw) - len(raw.lstrip()))
    return cells, starts


def _lines(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` with the offset each starts at."""
    offset, found = 0, []
    for line in text.split("\n"):
        found.append((offset, line))
        offset += len(line) + 1
    return found


def tables(text: str) -> list[Table]:
    """The markdown tables of ``text``, each with the heading it stands under."""
    found: list[Table] = []
    lines = _lines(text)
    heading = ""
    i = 0
    while i < len(lines):
        _, line = lines[i]
        m = _HEADING.match(line)
        if m:
            heading = m.group(1)
        elif line.startswith("|") and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1][1]):
            header = _cells(line, 0)[0]
            rows, starts = [], []
            i += 2
            while i < len(lines) and lines[i][1].startswith("|"):
                cells, at = _cells(lines[i][1], lines[i][0])
                rows.append(cells)
                starts.append(at)
                i += 1
            found.append(Table(heading, header, rows, starts))
            continue
        i += 1
    return found


def split(text: str) -> tuple[str, str]:
    """The number a figure's text starts with, and the rest (its unit, with the
    space before it): ``"62.9 ms"`` is ``("62.9", " ms")``. The text must hold one
    number."""
    m = _FIGURE.match(text.strip())
    if m is None:
        raise FigureError(f"{text!r} is not one number and its unit")
    return m.group("number"), m.group("unit")


def parse(text: str) -> tuple[int | float, str]:
    """A figure's value and unit from the text a page shows: ``"62.9 ms"`` is
    ``(62.9, "ms")``, ``"32,561"`` is ``(32561, "")``."""
    number, unit = split(text)
    plain = number.replace(",", "")
    value: int | float = float(plain) if any(c in plain for c in ".eE") else int(plain)
    return value, unit.strip()


def _table(page: list[Table], quote: Cell, name: str) -> Table:
    if quote.table is None:
        if len(page) != 1:
            raise FigureError(f"{name}: the page has {len(page)} tables, not one")
        return page[0]
    chosen = [t for t in page if t.heading.startswith(quote.table)]
    if len(chosen) != 1:
        raise FigureError(
            f"{name}: {len(chosen)} tables stand under a heading starting with "
            f"{quote.table!r} (one expected)"
        )
    return chosen[0]


def _column(table: Table, column: str | int, name: str) -> int:
    if isinstance(column, int):
        if not -len(table.header) <= column < len(table.header):
            raise FigureError(f"{name}: the table has no column {column}")
        return column % len(table.header)
    exact = [i for i, h in enumerate(table.header) if h == column]
    found = exact or [i for i, h in enumerate(table.header) if h.startswith(column)]
    if len(found) != 1:
        raise FigureError(
            f"{name}: {len(found)} columns of table {table.heading!r} are headed "
            f"{column!r} (one expected)"
        )
    return found[0]


def _cell(page: list[Table], quote: Cell, name: str) -> tuple[int, int, dict]:
    table = _table(page, quote, name)
    keys = [(_column(table, c, name), text) for c, text in quote.row]
    rows = [k for k, r in enumerate(table.rows) if all(i < len(r) and r[i] == t for i, t in keys)]
    if len(rows) != 1:
        raise FigureError(
            f"{name}: {len(rows)} rows of table {table.heading!r} have "
            f"{dict(quote.row)} (one expected)"
        )
    column = _column(table, quote.column, name)
    if column >= len(table.rows[rows[0]]):
        raise FigureError(f"{name}: the row has no cell in column {column}")
    cell, start = table.rows[rows[0]][column], table.starts[rows[0]][column]
    where = {
        "table": table.heading,
        "row": {table.header[i]: t for i, t in keys},
        "column": table.header[column],
    }
    if quote.part is None:
        return start, start + len(cell), where
    found = list(re.finditer(quote.part, cell))
    if len(found) != 1:
        raise FigureError(
            f"{name}: {quote.part!r} matches {len(found)} times in the cell {cell!r} "
            "(once expected)"
        )
    where["part"] = quote.part
    return start + found[0].start(1), start + found[0].end(1), where


def _line(text: str, quote: Line, name: str) -> tuple[int, int, dict]:
    found = [
        (offset, m)
        for offset, line in _lines(text)
        if not line.startswith("|")
        for m in re.finditer(quote.pattern, line)
    ]
    if len(found) != 1:
        raise FigureError(
            f"{name}: {quote.pattern!r} matches {len(found)} times in the page's text "
            "(once expected)"
        )
    offset, m = found[0]
    return offset + m.start(1), offset + m.end(1), {"pattern": quote.pattern}


def locate(text: str, quotes: dict[str, Quote]) -> dict[str, tuple[int, int, dict]]:
    """Where each figure ``quotes`` names stands in the page ``text``: its first and
    last offsets (a slice of ``text``) and its place in the page's words (table
    heading, row, column and part; or the pattern of its line). Raises
    :class:`FigureError` naming the figure when one is missing or ambiguous."""
    page = tables(text)
    return {
        name: _cell(page, quote, name) if isinstance(quote, Cell) else _line(text, quote, name)
        for name, quote in quotes.items()
    }


def extract(text: str, quotes: dict[str, Quote]) -> dict[str, dict]:
    """The figures ``quotes`` names, read from the page ``text`` (see :func:`locate`):
    for each name, its ``value`` (a number, or the word of a ``word`` figure) and
    ``unit``, its ``text`` as the page shows it, and ``where`` it stands. Raises
    :class:`FigureError` naming the figure when one is missing, ambiguous or not a
    number."""
    figures = {}
    for name, (start, end, where) in locate(text, quotes).items():
        shown = text[start:end].strip()
        if quotes[name].word:
            if not re.fullmatch(r"[A-Za-z][\w -]*", shown):
                raise FigureError(f"{name}: {shown!r} is not a word")
            value: int | float | str = shown
            unit = ""
        else:
            try:
                value, unit = parse(shown)
            except FigureError as e:
                raise FigureError(f"{name}: {e}") from None
        figures[name] = {"value": value, "unit": unit, "text": shown, "where": where}
    return figures


# The command that wrote the page: its run header (report.run_header), or the first
# line of an older page that names it.
_RUN = re.compile(r"^(?:Run: )?`(python benches/[^`]*)`", re.MULTILINE)


def payload(page: str, text: str, quotes: dict[str, Quote]) -> dict:
    """The content of ``<page>.figures.json`` for the page text ``text``."""
    run = _RUN.search(text)
    return {
        "page": f"{page}.md",
        "command": run.group(1) if run else None,
        "figures": extract(text, quotes),
    }


def dumps(data: dict) -> str:
    """The figures file's text (stable: a changed figure changes its own lines)."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def figures_path(page: str, results: Path | None = None) -> Path:
    """The figures file of the results page ``page`` (its name without ``.md``) in
    ``results`` (default: :data:`RESULTS_DIR`)."""
    return (RESULTS_DIR if results is None else results) / f"{page}{SUFFIX}"


def write(page: str, text: str, results: Path | None = None) -> Path | None:
    """Write the figures of the results page ``page`` (whose text is ``text``) that
    README and the documentation quote; ``None`` when they quote none of it."""
    from quoted_figures import QUOTED

    if page not in QUOTED:
        return None
    path = figures_path(page, results)
    path.write_text(dumps(payload(page, text, QUOTED[page])), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    from quoted_figures import QUOTED

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="only report the figures files out of date"
    )
    args = parser.parse_args(argv)
    stale = []
    for page in sorted(QUOTED):
        text = (RESULTS_DIR / f"{page}.md").read_text(encoding="utf-8")
        path = figures_path(page)
        fresh = dumps(payload(page, text, QUOTED[page]))
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if fresh == old:
            continue
        stale.append(path.name)
        if not args.check:
            path.write_text(fresh, encoding="utf-8")
    verb = "out of date" if args.check else "rewritten"
    print(f"{len(stale)} figures file(s) {verb}" + (f": {', '.join(stale)}" if stale else ""))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    # The module quoted_figures imports is ``figures``, not this ``__main__``: run
    # that one, whose classes the quotes are instances of.
    import figures

    sys.exit(figures.main())
