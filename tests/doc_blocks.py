"""The code blocks of a documentation page, with their line numbers.

Markdown (``.md``): fenced blocks, ```` ```python ```` or ``~~~bash``; the language is
the first word of the info string ("" when there is none). reStructuredText
(``.rst``): ``.. code-block:: LANG`` (also ``.. code::`` and ``.. sourcecode::``)
with its indented body, literal blocks after a paragraph ending in ``::`` (language
``"literal"``: Sphinx would highlight them as Python, so a test should ask for an
explicit ``code-block`` instead of guessing) and doctest blocks (paragraphs starting
with ``>>>``; language ``"pycon"``).

Only the standard library is used, so that scripts outside the test suite (a check
in a virtualenv with only the ``dask`` extra) can import it or run it::

    python tests/doc_blocks.py --language python docs/user_guide/dask.rst

which prints the page's Python blocks in order, ready for ``python -c``.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "blocks", "markdown_blocks", "rst_blocks", "source"]


@dataclass(frozen=True)
class Block:
    """One code block of ``path``: its ``language`` and its ``code`` (dedented, one
    trailing newline), whose first line is line ``line`` (1-based) of the page."""

    path: str
    language: str
    line: int
    code: str

    @property
    def first_line(self) -> str:
        """The block's first line of code, stripped (how a reader recognises it)."""
        return self.code.strip().splitlines()[0].strip() if self.code.strip() else ""

    def __str__(self) -> str:
        return f"{self.path}:{self.line} ({self.language}): {self.first_line}"


_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def markdown_blocks(text: str, path: str = "<markdown>") -> list[Block]:
    """The fenced code blocks of Markdown ``text`` (CommonMark's rules for fences:
    up to three spaces of indentation, a closing fence of the same character at
    least as long; a block left open runs to the end of the text)."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None or (m["fence"][0] == "`" and "`" in m["info"]):
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        info = m["info"].strip()
        language = info.split()[0].lower() if info else ""
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            close = _FENCE.match(lines[j])
            if (
                close is not None
                and close["fence"][0] == fence[0]
                and len(close["fence"]) >= len(fence)
                and not close["info"].strip()
            ):
                break
            line = lines[j]
            # Content lines lose up to the opening fence's indentation.
            strip = min(indent, len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            j += 1
        out.append(Block(path, language, i + 2, _joined(body)))
        i = j + 1
    return out


_DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*)\.\.[ \t]+(?:code-block|code|sourcecode)::[ \t]*(?P<lang>\S*)[ \t]*$"
)
_OTHER_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+\S+::")
_FIELD = re.compile(r"^[ \t]*:[^:\s][^:]*:")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _joined(lines: list[str]) -> str:
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return textwrap.dedent("\n".join(lines)) + "\n" if lines else ""


def _indented_body(lines: list[str], start: int, outer: int) -> tuple[int, int]:
    """``(first, end)``: the lines from ``start`` on indented deeper than ``outer``
    (blank lines inside included), ``first`` the first non-blank one."""
    end = start
    first = None
    while end < len(lines):
        line = lines[end]
        if line.strip():
            if _indent(line) <= outer:
                break
            if first is None:
                first = end
        end += 1
    if first is None:
        return start, start
    while end > first and not lines[end - 1].strip():
        end -= 1
    return first, end


def rst_blocks(text: str, path: str = "<rst>") -> list[Block]:
    """The code blocks of reStructuredText ``text``: code-block directives, ``::``
    literal blocks (language ``"literal"``) and doctest blocks (``"pycon"``, the
    ``>>>``/``...`` lines without their prompts)."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _DIRECTIVE.match(line)
        if m is not None:
            outer = _indent(line)
            j = i + 1
            # Options (":caption: ...", ":linenos:") directly below the directive.
            while j < len(lines) and lines[j].strip() and _FIELD.match(lines[j]):
                j += 1
            first, end = _indented_body(lines, j, outer)
            language = (m["lang"] or "default").lower()
            out.append(Block(path, language, first + 1, _joined(lines[first:end])))
            i = max(end, i + 1)
            continue
        if _OTHER_DIRECTIVE.match(line) or line.lstrip().startswith(".. "):
            # Another directive or a comment: its body is not a literal block even if
            # a line of it ends in "::".
            _, end = _indented_body(lines, i + 1, _indent(line))
            i = max(end, i + 1)
            continue
        if line.lstrip().startswith(">>>") and (i == 0 or not lines[i - 1].strip()):
            outer = _indent(line)
            j = i
            code: list[str] = []
            while j < len(lines) and lines[j].strip():
                stripped = lines[j][outer:]
                if stripped.startswith((">>> ", "... ")):
                    code.append(stripped[4:])
                elif stripped in (">>>", "..."):
                    code.append("")
                j += 1
            out.append(Block(path, "pycon", i + 1, _joined(code)))
            i = j
            continue
        if line.rstrip().endswith("::"):
            first, end = _indented_body(lines, i + 1, _paragraph_indent(lines, i))
            if end > first:
                out.append(Block(path, "literal", first + 1, _joined(lines[first:end])))
                i = end
                continue
        i += 1
    return out


def _paragraph_indent(lines: list[str], i: int) -> int:
    """The indentation of the paragraph that line ``i`` ends."""
    j = i
    while j > 0 and lines[j - 1].strip():
        j -= 1
    return _indent(lines[j])


def blocks(path: str | Path, languages: tuple[str, ...] | None = None) -> list[Block]:
    """The code blocks of the page at ``path`` (``.md`` or ``.rst``), in order,
    those of ``languages`` only when given. ``Block.path`` is ``path`` as given."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if p.suffix == ".md":
        found = markdown_blocks(text, str(path))
    elif p.suffix == ".rst":
        found = rst_blocks(text, str(path))
    else:
        raise ValueError(f"{path}: not a .md or .rst page")
    if languages is not None:
        found = [b for b in found if b.language in languages]
    return found


def source(found: list[Block]) -> str:
    """The code of ``found`` as one script, each block after a comment naming the
    line it starts on."""
    return "".join(f"# {b.path}:{b.line}\n{b.code}" for b in found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Print the code blocks of a .md or .rst page, in order."
    )
    parser.add_argument("page")
    parser.add_argument(
        "--language",
        action="append",
        help="only blocks of this language (repeatable; default: all, with their places)",
    )
    args = parser.parse_args(argv)
    found = blocks(args.page, tuple(args.language) if args.language else None)
    if args.language:
        if not found:
            print(f"{args.page}: no {'/'.join(args.language)} block", file=sys.stderr)
            return 1
        sys.stdout.write(source(found))
    else:
        for b in found:
            print(f"--- {b}")
            sys.stdout.write(b.code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
