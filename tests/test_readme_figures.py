"""The CI check that every figure of README.md's benchmark table is in the results
file its row names (.ci/readme_figures.py, issue 24)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "readme_figures.py"
TIMES = "\N{MULTIPLICATION SIGN}"


@pytest.fixture(scope="module")
def figures():
    spec = importlib.util.spec_from_file_location("readme_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _project(tmp_path: Path, rows: list[str], results: dict[str, str]) -> Path:
    (tmp_path / "benches" / "results").mkdir(parents=True)
    for name, text in results.items():
        (tmp_path / "benches" / "results" / name).write_text(text)
    table = ["| task | reference | pegasos-rs | source |", "|---|---|---|---|", *rows]
    readme = "# x\n\n## Benchmarks\n\n" + "\n".join(table) + "\n\n## Next\n"
    (tmp_path / "README.md").write_text(readme)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("4.8 ms", 4.8, 0.1),
        ("0.07" + TIMES, 0.07, 0.01),
        ("10⁷ rows", 1e7, None),
        ("3·10⁷", 3e7, 1e7),
        ("T = 128k", 128_000, 1_000),
        (f"25,000 {TIMES} 44,958", 25_000, 1),
        ("1e-05", 1e-5, 1e-5),
    ],
)
def test_numbers_are_read_with_the_digits_shown(figures, text, value, unit):
    found = figures.numbers(text)
    assert found[0][0] == pytest.approx(value)
    if unit is not None:
        assert found[0][1] == pytest.approx(unit)


def test_a_rounded_figure_matches_and_another_does_not(figures):
    assert figures.matches(0.08, 0.01, {0.0816})
    assert figures.matches(4.8, 0.1, {4.83})
    assert not figures.matches(4.8, 0.1, {4.86})
    assert figures.matches(1e7, 1e-2, {10_000_000.0})


def test_a_table_whose_figures_are_in_their_sources_passes(figures, tmp_path):
    root = _project(
        tmp_path,
        [
            f"| a9a, 10⁷ rows | LIBLINEAR: 62.9 ms | 4.4 ms: 0.07{TIMES} "
            "| [r](benches/results/r.md) |"
        ],
        {"r.md": "m 10,000,000; LIBLINEAR 62.91 ms; Pegasos 4.38 ms; ratio 0.0699"},
    )
    assert figures.check(root) == []


def test_a_figure_in_no_source_is_named(figures, tmp_path):
    root = _project(
        tmp_path,
        [f"| a9a | LIBLINEAR: 62.9 ms | 4.4 ms: 0.05{TIMES} | [r](benches/results/r.md) |"],
        {"r.md": "LIBLINEAR 62.9 ms; Pegasos 4.4 ms; ratio 0.07"},
    )
    problems = figures.check(root)
    assert len(problems) == 1 and "'0.05'" in problems[0]


def test_a_row_without_a_source_or_with_a_missing_one_fails(figures, tmp_path):
    root = _project(
        tmp_path,
        [
            "| a9a | LIBLINEAR: 62.9 ms | 4.4 ms | — |",
            "| usps | SVC: 1.3 s | 0.4 s | [k](benches/results/missing.md) |",
        ],
        {},
    )
    problems = figures.check(root)
    assert "links no benches/results file" in problems[0]
    assert "does not exist" in problems[1]


def test_the_last_column_must_be_the_source(figures, tmp_path):
    (tmp_path / "README.md").write_text(
        "# x\n\n## Benchmarks\n\n| task | pegasos-rs |\n|---|---|\n| a | 1 s |\n"
    )
    with pytest.raises(SystemExit, match="source"):
        figures.check(tmp_path)


def test_readme_s_table_is_in_its_results_files(figures):
    assert figures.check(ROOT) == []
