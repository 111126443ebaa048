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
    one group, picks the figure out of a cell that holds more than one number."""

    table: str | None
    row: tuple[tuple[str | int, str], ...]
    column: str | int
    part: str | None = None


@dataclass(frozen=True)
class Line:
    """A figure in the page's text outside tables: the one group of ``pattern``,
    which must match exactly once."""

    pattern: str


Quote = Cell | Line


@dataclass
class Table:
    """A markdown table of a page: the heading above it, its header, its rows."""

    heading: str
    header: list[str]
    rows: list[list[str]]


_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
_SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$")
_PIPE = re.compile(r"(?<!\\)\|")
# One number (digits with optional thousands commas, decimals and exponent) and
# what follows it: its unit (no digit in it).
_FIGURE = re.compile(
    r"^(?P<number>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?P<unit>\s*[^\d]*?)$"
)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in _PIPE.split(line.strip().strip("|"))]


def tables(text: str) -> list[Table]:
    """The markdown tables of ``text``, each with the heading it stands under."""
    found: list[Table] = []
    lines = text.splitlines()
    heading = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _HEADING.match(line)
        if m:
            heading = m.group(1)
        elif line.startswith("|") and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]):
            header = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            found.append(Table(heading, header, rows))
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


def _cell(page: list[Table], quote: Cell, name: str) -> tuple[str, dict]:
    table = _table(page, quote, name)
    keys = [(_column(table, c, name), text) for c, text in quote.row]
    rows = [r for r in table.rows if all(i < len(r) and r[i] == t for i, t in keys)]
    if len(rows) != 1:
        raise FigureError(
            f"{name}: {len(rows)} rows of table {table.heading!r} have "
            f"{dict(quote.row)} (one expected)"
        )
    column = _column(table, quote.column, name)
    cell = rows[0][column] if column < len(rows[0]) else ""
    where = {
        "table": table.heading,
        "row": {table.header[i]: t for i, t in keys},
        "column": table.header[column],
    }
    if quote.part is None:
        return cell, where
    found = re.findall(quote.part, cell)
    if len(found) != 1:
        raise FigureError(
            f"{name}: {quote.part!r} matches {len(found)} times in the cell {cell!r} "
            "(once expected)"
        )
    where["part"] = quote.part
    return found[0], where


def _line(text: str, quote: Line, name: str) -> tuple[str, dict]:
    prose = [line for line in text.splitlines() if not line.startswith("|")]
    found = [(i, m) for i, line in enumerate(prose) for m in re.finditer(quote.pattern, line)]
    if len(found) != 1:
        raise FigureError(
            f"{name}: {quote.pattern!r} matches {len(found)} times in the page's text "
            "(once expected)"
        )
    _, m = found[0]
    return m.group(1), {"pattern": quote.pattern}


def extract(text: str, quotes: dict[str, Quote]) -> dict[str, dict]:
    """The figures ``quotes`` names, read from the page ``text``: for each name, its
    ``value`` and ``unit``, its ``text`` as the page shows it, and ``where`` it stands
    (table heading, row, column and part; or the pattern of its line). Raises
    :class:`FigureError` naming the figure when one is missing, ambiguous or not a
    number."""
    page = tables(text)
    figures = {}
    for name, quote in quotes.items():
        shown, where = (
            _cell(page, quote, name) if isinstance(quote, Cell) else _line(text, quote, name)
        )
        try:
            value, unit = parse(shown)
        except FigureError as e:
            raise FigureError(f"{name}: {e}") from None
        figures[name] = {"value": value, "unit": unit, "text": shown.strip(), "where": where}
    return figures


_RUN = re.compile(r"^Run: `([^`]*)`", re.MULTILINE)


def payload(page: str, text: str, quotes: dict[str, Quote]) -> dict:
    """The content of ``<page>.figures.json`` for the page text ``text``."""
    run = _RUN.search(text)
    return {
        "page": f"{page}.md",
        "command": run.group(1) if run else None,
        "figures": extract(text, quotes),
    }


def dumps(data: dict) -> str:
    """The figures file's text (stable: one diff line a changed figure)."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def figures_path(page: str, results: Path = RESULTS_DIR) -> Path:
    """The figures file of the results page ``page`` (its name without ``.md``)."""
    return results / f"{page}{SUFFIX}"


def write(page: str, text: str, results: Path = RESULTS_DIR) -> Path | None:
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
