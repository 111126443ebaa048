"""Generate the figures README and the documentation quote from the benchmark
results, and check that nothing else states a measured figure.

Every text that quotes benchmark figures (README's benchmark section, the benchmark
overview, paragraphs of the user guide) is generated from a template under
``benches/quoted/`` into a region of its file between two marker lines::

    <!-- begin figures: benches/quoted/readme_benchmarks.md -->   (Markdown)
    .. begin figures: benches/quoted/benchmarks_overview.rst      (reStructuredText)
    ...generated text...
    <!-- end figures -->  /  .. end figures

A template names each figure as ``{page:name}``: the figure ``name`` of the results
page ``benches/results/<page>.md``, read from ``<page>.figures.json`` (which
``benches/figures.py`` writes from the page's tables, see ``benches/quoted_figures.py``)
and shown as the page shows it. ``{page:name:SPEC}`` shows its value formatted with
the Python format ``SPEC`` (``.1f``, rounding the page's digits half up; ``,``) and
the page's unit, ``k`` in thousands
(``128k``), ``sci`` as a power of ten (``10⁷``, ``6·10⁶``); ``number`` shows the
number without its unit (``17.8`` of ``17.8x``), ``@noun`` the figure and the noun,
plural unless the figure is 1 (``{...passes:@pass}``: ``1 pass``, ``3 passes``); a
name with ``*`` and alternatives separated by ``|`` under the format ``range`` shows
the smallest and the largest of the figures it matches (all of one unit), joined by
an en dash.

    python3 .ci/readme_figures.py            # check; exit status 1 with the problems
    python3 .ci/readme_figures.py --write    # regenerate every region from its template

The check fails when

* a ``<page>.figures.json`` is not what ``benches/figures.py`` reads from its page
  now (a figure edited by hand on either side);
* a generated region is not its template rendered with the figures now (a figure
  edited in README or the docs, or a results page rerun): it prints the diff;
* a measured-looking number (a time, a ratio, a percentage, a decimal) stands in
  README, ``benches/README.md``, the documentation or a docstring outside a
  generated region, or as typed text in a template, and is not one of the settings
  listed in ``.ci/figure_settings.py``.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import fnmatch
import json
import re
import sys
import textwrap
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benches"), str(ROOT / ".ci")]

import figures  # noqa: E402  (benches/figures.py: the pages' figures)
from figure_settings import SETTINGS  # noqa: E402  (numbers that are not measured)
from quoted_figures import QUOTED  # noqa: E402

TEMPLATES = "benches/quoted"
RESULTS = "benches/results"
_BEGIN = {
    ".md": re.compile(r"^<!-- begin figures: (\S+) -->$"),
    ".rst": re.compile(r"^\.\. begin figures: (\S+)$"),
}
_END = {".md": "<!-- end figures -->", ".rst": ".. end figures"}
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*):([A-Za-z0-9_.*|\-]+)(?::([^{}:]*))?\}")
DASH, TIMES = "\N{EN DASH}", "\N{MULTIPLICATION SIGN}"
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class TemplateError(ValueError):
    """A template names a figure that does not exist, or formats it wrongly."""


@dataclass
class Sources:
    """The project's files, read once; ``overrides`` replaces some by other texts
    (the tests check mutated texts without writing them)."""

    root: Path = ROOT
    overrides: dict[str, str] = field(default_factory=dict)
    _cache: dict[str, str | None] = field(default_factory=dict)

    def read(self, rel: str) -> str | None:
        if rel in self.overrides:
            return self.overrides[rel]
        if rel not in self._cache:
            path = self.root / rel
            self._cache[rel] = path.read_text(encoding="utf-8") if path.is_file() else None
        return self._cache[rel]

    def with_overrides(self, overrides: dict[str, str]) -> Sources:
        """These sources with some files replaced (the files read are shared)."""
        return Sources(self.root, {**self.overrides, **overrides}, self._cache)

    def glob(self, pattern: str) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.root.glob(pattern))


# ----------------------------------------------------------------- the figures files


def figures_files(src: Sources, pages: list[str] | None = None) -> list[str]:
    """The problems of the ``<page>.figures.json`` files: missing, or not what
    ``benches/figures.py`` reads from the page now."""
    problems = []
    for page in pages or sorted(QUOTED):
        rel = f"{RESULTS}/{page}{figures.SUFFIX}"
        text, stored = src.read(f"{RESULTS}/{page}.md"), src.read(rel)
        if text is None:
            problems.append(f"{RESULTS}/{page}.md does not exist")
            continue
        try:
            fresh = figures.dumps(figures.payload(page, text, QUOTED[page]))
        except figures.FigureError as e:
            problems.append(f"{RESULTS}/{page}.md: {e}")
            continue
        if stored != fresh:
            problems.append(
                f"{rel} is not what benches/figures.py reads from {page}.md "
                "(run python benches/figures.py)"
            )
    return problems


def load_figures(src: Sources) -> dict[str, dict[str, dict]]:
    """page → figure name → the figure, from the figures files."""
    data = {}
    for page in QUOTED:
        text = src.read(f"{RESULTS}/{page}{figures.SUFFIX}")
        data[page] = json.loads(text)["figures"] if text else {}
    return data


# ------------------------------------------------------------------------ rendering


def _power_of_ten(value: float) -> str:
    exponent = len(str(int(value))) - 1
    mantissa = value / 10**exponent
    if value < 1 or mantissa != int(mantissa):
        raise TemplateError(f"{value} is not a digit times a power of ten")
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if mantissa == 1 else f"{int(mantissa)}·{power}"


def show(figure: dict, spec: str | None) -> str:
    """A figure as a template shows it (see the module doc)."""
    if not spec:
        return figure["text"]
    value = figure["value"]
    if spec.startswith("@"):
        noun = spec[1:]
        plural = noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")
        return f"{figure['text']} {noun if value == 1 else plural}"
    if spec == "number":
        return figures.split(figure["text"])[0]
    if spec == "k":
        number = f"{value / 1000:g}k"
    elif spec == "sci":
        number = _power_of_ten(value)
    elif re.fullmatch(r"\.\d+f", spec):
        # Rounded as a reader rounds the page's digits: half up (706.5 → 707).
        shown = Decimal(figures.split(figure["text"])[0].replace(",", ""))
        number = str(shown.quantize(Decimal(1).scaleb(-int(spec[1:-1])), ROUND_HALF_UP))
    else:
        try:
            number = format(value, spec)
        except ValueError as e:
            raise TemplateError(f"format {spec!r} of {figure['text']!r}: {e}") from None
    return number + figures.split(figure["text"])[1]


def _matching(page: dict[str, dict], names: str) -> list[dict]:
    chosen = [n for alt in names.split("|") for n in page if fnmatch.fnmatchcase(n, alt)]
    return [page[n] for n in dict.fromkeys(chosen)]


def render(template: str, data: dict[str, dict[str, dict]], origin: str = "template") -> str:
    """``template`` with each ``{page:name[:spec]}`` replaced by the figure."""

    def one(m: re.Match) -> str:
        page, names, spec = m.groups()
        if page not in data:
            raise TemplateError(f"{origin}: {m.group(0)} names no results page with figures")
        if spec == "range":
            chosen = sorted(_matching(data[page], names), key=lambda f: f["value"])
            if len(chosen) < 2:
                raise TemplateError(f"{origin}: {m.group(0)} matches fewer than two figures")
            if len({f["unit"] for f in chosen}) > 1:
                raise TemplateError(f"{origin}: {m.group(0)} matches figures of other units")
            return f"{chosen[0]['text']}{DASH}{chosen[-1]['text']}"
        if names not in data[page]:
            raise TemplateError(f"{origin}: {m.group(0)}: {page} has no figure {names!r}")
        return show(data[page][names], spec)

    return _PLACEHOLDER.sub(one, template)


# -------------------------------------------------------------------------- reflow

WIDTH = 86
_ITEM = re.compile(r"^(\s*)([-*] |\d+\. )")
_NOT_PROSE = re.compile(r"^\s*(?:\||!\[|#|\.\. |[=\-~^]{3,}|```|:[\w-]+:(?!`)|<!--)|::\s*$")


_GLUE = "\x00"
# Spaces no line breaks at: inside inline code, between a number and its unit, and
# after a comparison.
_KEEP = re.compile(rf"``.+?``|`[^`]+`|\d (?=(?:[a-zµ]{{1,2}}|%|{TIMES})(?![\w-]))|[≤≥=] (?=\d)")


def _glued(text: str) -> str:
    return _KEEP.sub(lambda m: m.group(0).replace(" ", _GLUE), text)


def reflow(text: str) -> str:
    """``text`` with each paragraph and list item of prose wrapped at :data:`WIDTH`
    columns (a rendered figure is longer or shorter than its placeholder). Blocks
    holding a table, a heading, a directive, an image or code are kept as they are."""
    blocks = re.split(r"(\n\s*\n)", text)
    out = []
    body_of: int | None = None  # the indentation of the directive whose body goes on
    for block in blocks:
        lines = block.split("\n")
        if not block.strip():
            out.append(block)
            continue
        indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
        if body_of is not None and indent > body_of:
            out.append(block)
            continue
        body_of = None
        starts = [line for line in lines if _NOT_PROSE.search(line)]
        if starts:
            if any(line.rstrip().endswith("::") for line in starts):
                body_of = indent
            out.append(block)
            continue
        items: list[list[str]] = []
        for line in lines:
            if _ITEM.match(line) or not items:
                items.append([line])
            else:
                items[-1].append(line)
        wrapped = []
        for item in items:
            m = _ITEM.match(item[0])
            first = m.group(0) if m else re.match(r"\s*", item[0]).group(0)
            words = " ".join(line.strip() for line in item)[len(first.strip()) :].split()
            wrapped += [
                line.replace(_GLUE, " ")
                for line in textwrap.wrap(
                    _glued(" ".join(words)),
                    WIDTH,
                    initial_indent=first,
                    subsequent_indent=" " * len(first),
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            ]
        out.append("\n".join(wrapped))
    return "".join(out)


# -------------------------------------------------------------------------- regions


@dataclass
class Region:
    """Lines ``start``..``end`` (exclusive) of a file, generated from ``template``."""

    template: str
    start: int
    end: int


def regions(rel: str, text: str) -> list[Region]:
    """The generated regions of the file ``rel`` (Markdown or reStructuredText)."""
    suffix = Path(rel).suffix
    if suffix not in _BEGIN:
        return []
    lines = text.split("\n")
    found, open_at = [], None
    for i, line in enumerate(lines):
        m = _BEGIN[suffix].match(line)
        if m:
            if open_at is not None:
                raise TemplateError(f"{rel}:{i + 1}: a region begins inside another")
            open_at = (i + 1, m.group(1))
        elif line == _END[suffix]:
            if open_at is None:
                raise TemplateError(f"{rel}:{i + 1}: a region ends that did not begin")
            found.append(Region(open_at[1], open_at[0], i))
            open_at = None
    if open_at is not None:
        raise TemplateError(f"{rel}: the region of {open_at[1]} does not end")
    return found


_GENERATED_DOCS = (
    "docs/_build/",
    "docs/auto_examples/",
    "docs/gen_modules/",
    "docs/generated/",
    "docs/sg_execution_times.rst",
)


def quoting_files(src: Sources) -> list[str]:
    """The files that may hold generated regions and are checked for figures."""
    docs = [
        rel
        for pattern in ("docs/**/*.rst", "docs/**/*.md")
        for rel in src.glob(pattern)
        # Not what a docs build generates (.gitignore): the docstrings are read below.
        if not rel.startswith(_GENERATED_DOCS)
    ]
    return ["README.md", "ARCHITECTURE.md", "benches/README.md", *docs]


def generated(rel: str, text: str, src: Sources, data: dict) -> str:
    """``text`` of the file ``rel`` with every region rendered from its template."""
    lines = text.split("\n")
    for region in reversed(regions(rel, text)):
        template = src.read(region.template)
        if template is None:
            raise TemplateError(f"{rel}: the template {region.template} does not exist")
        body = reflow(render(template, data, region.template)).strip("\n").split("\n")
        # reStructuredText needs a blank line between a comment and what follows.
        lines[region.start : region.end] = ["", *body, ""] if rel.endswith(".rst") else body
    return "\n".join(lines)


def region_problems(
    src: Sources, files: list[str] | None = None, data: dict | None = None
) -> list[str]:
    """The regions of ``files`` (default: every quoting file) that are not their
    template rendered with the figures (``data``, default: the figures files), with
    the diff; and, for all files, the templates no region uses."""
    data = load_figures(src) if data is None else data
    problems, used = [], set()
    for rel in files or quoting_files(src):
        text = src.read(rel)
        if text is None:
            continue
        try:
            used |= {r.template for r in regions(rel, text)}
            fresh = generated(rel, text, src, data)
        except (TemplateError, figures.FigureError) as e:
            problems.append(str(e))
            continue
        if fresh != text:
            diff = difflib.unified_diff(
                text.split("\n"), fresh.split("\n"), rel, f"{rel} (generated)", lineterm=""
            )
            problems.append(
                f"{rel}: its figures are not those of benches/results "
                "(run python3 .ci/readme_figures.py --write)\n" + "\n".join(diff)
            )
    if files is None:
        for template in src.glob(f"{TEMPLATES}/*"):
            if template not in used:
                problems.append(f"{template}: no region of README or the docs uses it")
    return problems


# ---------------------------------------------------------------------------- prose

_MEASURED = re.compile(
    r"(?<![\w.,/^·@-])"
    r"(?:"
    r"\d+(?:,\d{3})*(?:\.\d+)?\s?"
    rf"(?:ms|µs|s|min|minutes|hours|{TIMES}|x|times|%|MB|GB|GiB)(?![\w/])"
    r"|\d+\.\d+(?= of\b)"  # a ratio: "0.95 of its time"
    r"|\d+\.\d{2,}(?!\w|\.\d)"  # a decimal: 0.29
    r")"
)
_SETTING_CONTEXT = re.compile(r"(?:=|≤|≥|<|>)\s*$")


def _without_code(text: str, suffix: str) -> str:
    """``text`` with its code (literals, code blocks, directive bodies) blanked,
    line for line."""
    out, in_block, indent = [], False, 0
    fence = False
    for line in text.split("\n"):
        stripped = line.strip()
        if suffix == ".md" and stripped.startswith("```"):
            fence = not fence
            out.append("")
            continue
        if fence:
            out.append("")
            continue
        if in_block:
            if not stripped or len(line) - len(line.lstrip()) > indent:
                out.append("")
                continue
            in_block = False
        if suffix != ".md" and (
            stripped.startswith(".. ") or stripped.endswith("::") or stripped.startswith(":")
        ):
            in_block = stripped.endswith("::") or stripped.startswith(".. ")
            indent = len(line) - len(line.lstrip())
            out.append("")
            continue
        if stripped.startswith((">>>", "... ")):  # a doctest
            out.append("")
            continue
        line = re.sub(r"``.*?``|`[^`]*`", "CODE", line)
        out.append(line)
    return "\n".join(out)


def measured_numbers(text: str, suffix: str) -> list[tuple[int, str]]:
    """``(line number, number as written)`` of each measured-looking number of
    ``text`` outside code: a number with a unit of time, size, ratio or percentage, a
    decimal before "of" (``0.95 of its time``) or with two decimals or more, unless it
    follows ``=``, ``≤``, ``≥``, ``<`` or ``>`` (a setting or a target)."""
    found = []
    for i, line in enumerate(_without_code(text, suffix).split("\n"), 1):
        for m in _MEASURED.finditer(line):
            if not _SETTING_CONTEXT.search(line[: m.start()]):
                found.append((i, m.group(0)))
    return found


def docstrings(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of the docstrings of a Python module, and of the docstring
    fragments of ``pegasos_rs/_docs.py`` (the values of its ``FRAGMENTS``)."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    found.append((body[0].lineno, body[0].value.value))
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "FRAGMENTS" for t in node.targets
        ):
            if isinstance(node.value, ast.Dict):
                for v in node.value.values:
                    if isinstance(v, ast.Constant) and isinstance(v.value, str):
                        found.append((v.lineno, v.value))
    return found


def _prose(src: Sources) -> list[tuple[str, str, str, str]]:
    """``(file, text, text to scan, suffix)`` of every prose text the figures check
    reads: the quoting files with their regions blanked, the templates with their
    placeholders replaced, and the package's docstrings (at their lines)."""
    texts = []
    for rel in quoting_files(src):
        text = src.read(rel)
        if text is None:
            continue
        lines = text.split("\n")
        for region in regions(rel, text):
            lines[region.start : region.end] = [""] * (region.end - region.start)
        texts.append((rel, text, "\n".join(lines), Path(rel).suffix))
    for rel in src.glob(f"{TEMPLATES}/*"):
        text = src.read(rel) or ""
        texts.append((rel, text, _PLACEHOLDER.sub("FIGURE", text), Path(rel).suffix))
    for rel in src.glob("python/pegasos_rs/**/*.py"):
        for line, doc in docstrings(src.read(rel) or ""):
            text = "\n" * (line - 1) + doc
            texts.append((rel, text, text, ".rst"))
    return texts


def prose_problems(src: Sources) -> list[str]:
    """Measured-looking numbers outside generated regions that no phrase of
    :data:`figure_settings.SETTINGS` covers, and phrases that no longer occur."""
    problems = []
    seen: set[tuple[str, str]] = set()
    for rel, text, scanned, suffix in _prose(src):
        allowed = SETTINGS.get(rel, {})
        lines = text.split("\n")
        for line_no, number in measured_numbers(scanned, suffix):
            line = lines[line_no - 1]
            phrases = [p for p in allowed if p in line and number in p]
            if phrases:
                seen |= {(rel, p) for p in phrases}
                continue
            problems.append(
                f"{rel}:{line_no}: {number!r} looks measured: generate it from "
                f"benches/results (a template under {TEMPLATES}/), reword it, or, if it "
                f"is a setting, list it in .ci/figure_settings.py: {line.strip()!r}"
            )
    for file, phrases in SETTINGS.items():
        for phrase in phrases:
            if (file, phrase) not in seen:
                problems.append(f".ci/figure_settings.py: {phrase!r} is no longer a line of {file}")
    return problems


# ----------------------------------------------------------------------------- main


def check(src: Sources | None = None) -> list[str]:
    """Every problem of the figures files, the generated regions and the prose."""
    src = src or Sources()
    return figures_files(src) + region_problems(src) + prose_problems(src)


def write(src: Sources | None = None) -> list[str]:
    """Regenerate every region from its template; returns the files changed."""
    src = src or Sources()
    data = load_figures(src)
    changed = []
    for rel in quoting_files(src):
        text = src.read(rel)
        if text is None or not regions(rel, text):
            continue
        fresh = generated(rel, text, src, data)
        if fresh != text:
            (src.root / rel).write_text(fresh, encoding="utf-8")
            changed.append(rel)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--write", action="store_true", help="regenerate every region from its template"
    )
    args = parser.parse_args(argv)
    if args.write:
        stale = figures_files(Sources())
        if stale:
            print("\n".join(stale), file=sys.stderr)
            return 1
        changed = write()
        names = f": {', '.join(changed)}" if changed else ""
        print(f"regenerated {len(changed)} file(s){names}")
        return 0
    problems = check()
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(
            f"{len(problems)} problem(s) with the figures of README and the docs "
            "(see .ci/readme_figures.py)",
            file=sys.stderr,
        )
        return 1
    print("every figure of README and the docs is generated from benches/results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
