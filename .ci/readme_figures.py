"""Check that every number in README.md's benchmark table comes from the results
file its row names.

Each row of the table under "## Benchmarks" ends with a "source" cell linking one or
more files under ``benches/results/``. Every number in the row's other cells (times,
ratios, accuracies, sizes, settings) must appear in one of those files, possibly
rounded: the README's ratio ``0.08`` matches ``0.0816`` in the file, ``4.8 ms`` matches
``4.83 ms``, ``10⁷`` matches ``10^7``, ``1e7`` or ``10,000,000``. A figure that is in no
results file, or a row without a source, fails the check, so README and the results
cannot drift apart.

    python3 .ci/readme_figures.py            # exit status 1 and the misses, if any
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")

# A number: a power of ten (10⁷, 10^7), or digits with optional thousands commas and
# decimals followed by an optional power of ten (3·10⁷, 1e-05) or k/M suffix.
_NUMBER = re.compile(
    r"(?<![\w.^])"
    r"(?:10(?P<exp3>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+|\^-?\d+)"
    r"|(?P<mant>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
    "(?:\\s*[·x\u00d7*]\\s*10(?P<exp1>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+|\\^-?\\d+))?"
    r"(?:[eE](?P<exp2>[-+]?\d+))?"
    r"(?P<suffix>[kM](?![a-zA-Z]))?)"
)


def _power(text: str) -> int:
    return int(text.translate(SUPERSCRIPT).lstrip("^"))


def numbers(text: str) -> list[tuple[float, float, str]]:
    """``(value, unit of its last digit shown, as written)`` of every number in
    ``text``: ``4.8`` is ``(4.8, 0.1)``, ``3·10⁷`` is ``(3e7, 1e7)``."""
    found = []
    for m in _NUMBER.finditer(text):
        if m.group("exp3") is not None:
            # A power of ten stands for itself, exactly.
            value = 10.0 ** _power(m.group("exp3"))
            found.append((value, value * 1e-9, m.group(0)))
            continue
        mant = m.group("mant").replace(",", "")
        decimals = len(mant.split(".")[1]) if "." in mant else 0
        scale = 1.0
        for group in ("exp1", "exp2"):
            if m.group(group) is not None:
                scale *= 10.0 ** _power(m.group(group))
        if m.group("suffix"):
            scale *= {"k": 1e3, "M": 1e6}[m.group("suffix")]
        found.append((float(mant) * scale, 10.0 ** (-decimals) * scale, m.group(0)))
    return found


def matches(value: float, unit: float, candidates: set[float]) -> bool:
    """Whether a number shown to ``unit`` is one of ``candidates``, rounded to the
    digits shown (``0.08`` is any of [0.075, 0.085])."""
    return any(abs(c - value) <= 0.5 * unit * (1 + 1e-9) for c in candidates)


def benchmark_table(readme: str) -> list[list[str]]:
    """The cells of the rows of the first table under ``## Benchmarks``."""
    section = readme.split("\n## Benchmarks", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    if len(rows) < 3:
        raise SystemExit("README.md: no benchmark table under '## Benchmarks'")
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    if header[-1].lower() != "source":
        raise SystemExit("README.md: the benchmark table's last column must be 'source'")
    return [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows[2:]]


def check(root: Path = ROOT) -> list[str]:
    """The problems of ``root``'s README.md table: a row without a source, a source
    that does not exist, a figure in none of the row's sources."""
    problems = []
    for cells in benchmark_table((root / "README.md").read_text(encoding="utf-8")):
        *figures, source = cells
        links = re.findall(r"\((benches/results/[^)\s]+)\)", source)
        if not links:
            problems.append(f"row {cells[0]!r}: the source cell links no benches/results file")
            continue
        known: set[float] = set()
        for link in links:
            path = root / link
            if not path.is_file():
                problems.append(f"row {cells[0]!r}: {link} does not exist")
                continue
            known |= {v for v, _, _ in numbers(path.read_text(encoding="utf-8"))}
        # Link texts and markdown syntax are not figures.
        text = " | ".join(re.sub(r"\]\([^)]*\)", "]", c) for c in figures)
        for value, unit, written in numbers(text):
            if not matches(value, unit, known):
                problems.append(f"row {cells[0]!r}: {written!r} is in none of {links}")
    return problems


if __name__ == "__main__":
    problems = check()
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(
            f"{len(problems)} figure(s) of README.md's benchmark table are in no "
            "results file (see .ci/readme_figures.py)",
            file=sys.stderr,
        )
        sys.exit(1)
    print("every figure of README.md's benchmark table is in its results file")
