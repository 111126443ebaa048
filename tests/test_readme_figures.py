"""The figures README and the documentation quote are generated from the benchmark
results, and checked: ``benches/figures.py`` reads them from the results pages'
tables, ``.ci/readme_figures.py`` renders them into README and the docs and fails
when a figure anywhere differs from its page (issue 36).

The mutation tests change every figure README's benchmark section shows, one digit
at a time, and each figure of the results pages it quotes: every change must fail
the check."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "readme_figures.py"
TIMES, DASH = "\N{MULTIPLICATION SIGN}", "\N{EN DASH}"

if not SCRIPT.is_file():
    pytest.skip(".ci/ is not next to the tests", allow_module_level=True)


@pytest.fixture(scope="module")
def rf():
    spec = importlib.util.spec_from_file_location("readme_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    # Registered first: its dataclasses look their module up while being defined.
    sys.modules["readme_figures"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def figures(rf):
    return rf.figures  # benches/figures.py, as the checker imports it


@pytest.fixture(scope="module")
def repo(rf):
    """The checkout's files, read once, and its figures."""
    src = rf.Sources()
    return src, rf.load_figures(src)


PAGE = """\
# A benchmark

Run: `python benches/bench_x.py`, today.

Target test accuracy 87.9 %, on 1,000,000 rows.

## Solvers

| dataset | solver | time | acc |
| :--- | :--- | ---: | ---: |
| a9a | LIBLINEAR | 62.9 ms | 84.96% |
| a9a | Pegasos | 4.4 ms | 84.87% |
| imdb | Pegasos | 1.20 s | 88.49% |

## Targets

| dataset | (2) time to acc \\| ratio | verdict |
| :--- | :--- | :--- |
| a9a | last: 0.59 (20 p, 37.1 ms); avg: 0.07 (1 p, 4.4 ms) | **PASS** |
"""


def _quotes(figures):
    cell = figures.Cell
    return {
        "liblinear": cell("Solvers", (("dataset", "a9a"), ("solver", "LIBLINEAR")), "time"),
        "accuracy": cell("Solvers", (("dataset", "imdb"), ("solver", "Pegasos")), "acc"),
        "avg.ratio": cell("Targets", (("dataset", "a9a"),), "(2)", r"avg: ([\d.]+) \("),
        "avg.time": cell(
            "Targets", (("dataset", "a9a"),), "(2)", r"avg: [\d.]+ \(\d+ p, ([^)]+)\)"
        ),
        "verdict": cell("Targets", (("dataset", "a9a"),), "verdict", r"\*\*(\w+)\*\*", word=True),
        "rows": figures.Line(r"on ([\d,]+) rows"),
        "target": figures.Line(r"accuracy ([\d.]+ %)"),
    }


# ------------------------------------------------------------------ reading a page


def test_tables_are_read_under_their_headings(figures):
    found = figures.tables(PAGE)
    assert [t.heading for t in found] == ["Solvers", "Targets"]
    assert found[0].header == ["dataset", "solver", "time", "acc"]
    assert found[0].rows[1] == ["a9a", "Pegasos", "4.4 ms", "84.87%"]
    assert found[1].header[1] == "(2) time to acc \\| ratio"  # an escaped pipe
    start = found[0].starts[2][2]
    assert PAGE[start : start + 6] == "1.20 s"


def test_figures_are_read_with_value_unit_text_and_place(figures):
    got = figures.extract(PAGE, _quotes(figures))
    assert got["liblinear"] == {
        "value": 62.9,
        "unit": "ms",
        "text": "62.9 ms",
        "where": {
            "table": "Solvers",
            "row": {"dataset": "a9a", "solver": "LIBLINEAR"},
            "column": "time",
        },
    }
    assert (got["accuracy"]["value"], got["accuracy"]["unit"]) == (88.49, "%")
    assert got["avg.ratio"]["text"] == "0.07" and got["avg.ratio"]["where"]["part"]
    assert got["avg.time"]["text"] == "4.4 ms"
    assert got["verdict"]["value"] == "PASS"
    assert got["rows"]["value"] == 1_000_000 and isinstance(got["rows"]["value"], int)
    assert got["target"]["text"] == "87.9 %"
    spans = figures.locate(PAGE, _quotes(figures))
    assert all(PAGE[a:b] == got[name]["text"] for name, (a, b, _) in spans.items())


@pytest.mark.parametrize(
    ("quote", "message"),
    [
        (("Solvers", (("dataset", "a9a"),), "time", None), "2 rows"),
        (("Solvers", (("dataset", "w8a"),), "time", None), "0 rows"),
        (("Nothing", (("dataset", "a9a"),), "time", None), "0 tables"),
        (("Solvers", (("dataset", "imdb"),), "", None), "4 columns"),
        (("Targets", (("dataset", "a9a"),), "(2)", r"(\d+) p"), "matches 2 times"),
        (("Targets", (("dataset", "a9a"),), "(2)", None), "is not one number"),
        ((None, (("dataset", "a9a"),), "time", None), "2 tables"),
    ],
)
def test_a_figure_that_is_missing_or_ambiguous_is_named(figures, quote, message):
    table, row, column, part = quote
    with pytest.raises(figures.FigureError, match="the_figure") as e:
        figures.extract(PAGE, {"the_figure": figures.Cell(table, row, column, part)})
    assert message in str(e.value)


def test_a_line_figure_must_match_once(figures):
    with pytest.raises(figures.FigureError, match="matches 0 times"):
        figures.extract(PAGE, {"x": figures.Line(r"on ([\d,]+) columns")})
    with pytest.raises(figures.FigureError, match="not a word"):
        figures.extract(PAGE, {"x": figures.Line(r"on ([\d,]+) rows", word=True)})


def test_publish_writes_the_quoted_figures_beside_the_page(figures, tmp_path, monkeypatch):
    import common
    import quoted_figures
    import report

    monkeypatch.setattr(common, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(quoted_figures, "QUOTED", {"bench_x": _quotes(figures)})
    body = PAGE.split("\n", 3)[3]  # without the title and the run line
    report.publish("bench_x", "# A benchmark\n\n" + body, 0.0)
    text = (tmp_path / "bench_x.md").read_text()
    stored = json.loads((tmp_path / "bench_x.figures.json").read_text())
    assert stored == json.loads(figures.dumps(figures.payload("bench_x", text, _quotes(figures))))
    assert stored["figures"]["avg.time"]["text"] == "4.4 ms"
    assert stored["command"].startswith("python benches/")
    # A page no README or doc quotes gets no figures file.
    report.publish("other", "# Other\n", 0.0)
    assert not (tmp_path / "other.figures.json").exists()
    # A page that lost a quoted figure is written, then fails naming the figure.
    with pytest.raises(figures.FigureError, match="liblinear"):
        report.publish("bench_x", body.replace("| a9a | LIBLINEAR |", "| w8a | LIBLINEAR |"), 0)
    assert "w8a" in (tmp_path / "bench_x.md").read_text()


def test_the_figures_script_rewrites_and_checks_the_files(figures, tmp_path, monkeypatch):
    import quoted_figures

    (tmp_path / "bench_x.md").write_text(PAGE)
    monkeypatch.setattr(figures, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(quoted_figures, "QUOTED", {"bench_x": _quotes(figures)})
    assert figures.main(["--check"]) == 1  # no figures file yet
    assert figures.main([]) == 0
    assert figures.main(["--check"]) == 0
    (tmp_path / "bench_x.md").write_text(PAGE.replace("62.9 ms", "63.0 ms"))
    assert figures.main(["--check"]) == 1


# ----------------------------------------------------------------------- rendering


def _figure(text, value):
    return {"text": text, "value": value, "unit": ""}


@pytest.mark.parametrize(
    ("figure", "spec", "shown"),
    [
        (_figure("44.485 s", 44.485), None, "44.485 s"),
        (_figure("44.485 s", 44.485), ".1f", "44.5 s"),
        (_figure("706.5", 706.5), ".0f", "707"),  # half up, as a reader rounds
        (_figure("9.747 s", 9.747), ".2f", "9.75 s"),
        (_figure("7770", 7770), ",", "7,770"),
        (_figure("128,000", 128000), "k", "128k"),
        (_figure("10,000,000", 10_000_000), "sci", "10⁷"),
        (_figure("6,000,000", 6_000_000), "sci", "6·10⁶"),
        (_figure("17.8x", 17.8), "number", "17.8"),
        (_figure("1", 1), "@pass", "1 pass"),
        (_figure("3", 3), "@pass", "3 passes"),
        (_figure("0.5", 0.5), "@pass", "0.5 passes"),
        (_figure("20", 20), "@round", "20 rounds"),
    ],
)
def test_a_figure_is_shown_as_the_template_asks(rf, figure, spec, shown):
    assert rf.show(figure, spec) == shown


def test_templates_name_figures_and_ranges(rf):
    data = {"p": {"a.x": _figure("1.79", 1.79), "b.x": _figure("1.16", 1.16)}}
    data["p"]["c.y"] = _figure("3.4", 3.4)
    data["p"]["d.s"] = {"text": "2.1 s", "value": 2.1, "unit": "s"}
    shown = rf.render(f"{{p:a.x}}{TIMES} and {{p:*.x:range}}{TIMES}", data)
    assert shown == f"1.79{TIMES} and 1.16{DASH}1.79{TIMES}"
    assert rf.render("{p:a.x|c.y:range}", data) == f"1.79{DASH}3.4"
    assert rf.render("a dict {key: 1} stays", data) == "a dict {key: 1} stays"
    for bad, message in [
        ("{q:a.x}", "no results page"),
        ("{p:a.z}", "no figure"),
        ("{p:c.*:range}", "fewer than two"),
        ("{p:c.y:sci}", "power of ten"),
        ("{p:*.x|d.s:range}", "other units"),
    ]:
        with pytest.raises(rf.TemplateError, match=message):
            rf.render(bad, data)


def test_reflow_wraps_prose_and_keeps_tables_code_and_units(rf):
    words = " ".join(["word"] * 30)
    text = (
        f"{words} it took 12.5 ms and `some code span here` ≤ 5 %\n\n"
        f"| a | b |\n|---|---|\n| {words} | x |\n\n"
        f"- item {words}\n- second\n\n"
        f".. list-table::\n\n   * - {words} {words}\n"
    )
    out = rf.reflow(text)
    lines = out.split("\n")
    assert all(len(line) <= rf.WIDTH for line in lines if not line.startswith(("|", "   *")))
    assert "12.5 ms" in out.replace("\n", "~") and "`some code span here`" in out
    assert "≤ 5 %" in out
    assert f"| {words} | x |" in lines
    assert f"   * - {words} {words}" in lines
    assert any(line.startswith("  word") for line in lines)  # the item's continuation


# ------------------------------------------------------------------------- regions


def _project(tmp_path: Path, rf, monkeypatch, readme_region: str) -> Path:
    """A checkout with one results page, its figures, a template and README."""
    figures = rf.figures
    results = tmp_path / "benches" / "results"
    results.mkdir(parents=True)
    (results / "bench_x.md").write_text(PAGE)
    quotes = _quotes(figures)
    (results / "bench_x.figures.json").write_text(
        figures.dumps(figures.payload("bench_x", PAGE, quotes))
    )
    (tmp_path / "benches" / "quoted").mkdir()
    (tmp_path / "benches" / "quoted" / "readme.md").write_text(
        "| task | time |\n|---|---|\n"
        f"| a9a | {{bench_x:avg.time}}: {{bench_x:avg.ratio}}{TIMES} |\n"
    )
    (tmp_path / "README.md").write_text(
        "# x\n\n<!-- begin figures: benches/quoted/readme.md -->\n"
        f"{readme_region}<!-- end figures -->\n"
    )
    monkeypatch.setattr(rf, "QUOTED", {"bench_x": quotes})
    monkeypatch.setattr(rf, "SETTINGS", {})
    return tmp_path


def test_write_generates_regions_and_the_check_passes_then(rf, tmp_path, monkeypatch):
    root = _project(tmp_path, rf, monkeypatch, "stale text\n")
    src = rf.Sources(root)
    problems = rf.region_problems(src)
    assert len(problems) == 1 and "-stale text" in problems[0] and "--write" in problems[0]
    assert rf.write(rf.Sources(root)) == ["README.md"]
    assert f"| a9a | 4.4 ms: 0.07{TIMES} |" in (root / "README.md").read_text()
    assert rf.check(rf.Sources(root)) == []


def test_region_markers_must_pair(rf):
    with pytest.raises(rf.TemplateError, match="does not end"):
        rf.regions("x.md", "<!-- begin figures: t.md -->\ntext\n")
    with pytest.raises(rf.TemplateError, match="did not begin"):
        rf.regions("x.rst", "text\n.. end figures\n")
    assert rf.regions("x.rst", ".. begin figures: t.rst\n\nx\n\n.. end figures\n")[0].end == 4


def test_a_template_no_region_uses_fails(rf, tmp_path, monkeypatch):
    root = _project(tmp_path, rf, monkeypatch, "")
    rf.write(rf.Sources(root))
    (root / "benches" / "quoted" / "unused.rst").write_text("text\n")
    assert any("unused.rst" in p for p in rf.check(rf.Sources(root)))


# -------------------------------------------------------------- the checkout itself


def test_the_checkout_passes_the_check(rf, repo):
    src, _ = repo
    assert rf.check(src) == []


def _readme_region(rf, src):
    text = src.read("README.md")
    (region,) = rf.regions("README.md", text)
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: region.start])
    end = sum(len(line) + 1 for line in lines[: region.end])
    return text, start, end, src.read(region.template)


def _changed(text: str, i: int, delta: int) -> str | None:
    digit = int(text[i]) + delta
    return text[:i] + str(digit) + text[i + 1 :] if 0 <= digit <= 9 else None


def test_every_figure_readme_quotes_fails_the_check_when_its_last_digit_changes(rf, repo):
    """The issue's mutation test: every number of README's benchmark section (each
    figure the template quotes among them), its last digit changed by ±1 or ±2."""
    src, data = repo
    text, start, end, template = _readme_region(rf, src)
    quoted = [rf.render(m.group(0), data) for m in rf._PLACEHOLDER.finditer(template)]
    assert len(quoted) > 150 and all(q in text[start:end] for q in quoted)
    numbers = list(re.finditer(r"\d+(?:[.,]\d+)*", text[start:end]))
    mutations = 0
    for m in numbers:
        last = start + m.end() - 1
        for delta in (-2, -1, 1, 2):
            mutated = _changed(text, last, delta)
            if mutated is None:
                continue
            mutations += 1
            problems = rf.region_problems(
                src.with_overrides({"README.md": mutated}), ["README.md"], data
            )
            assert problems, f"{m.group(0)!r} changed by {delta} passed the check"
    # Every quoted figure that holds a digit was among the numbers changed.
    assert sum(any(c.isdigit() for c in q) for q in quoted) <= len(numbers)
    assert mutations >= 2 * len(numbers)


def test_other_changes_of_readme_s_figures_fail_the_check(rf, repo):
    src, data = repo
    text, start, end, _ = _readme_region(rf, src)
    region = text[start:end]
    row = next(line for line in region.split("\n") if line.startswith("| linear, a9a"))
    changes = {
        "the issue's example": row.replace("4.4 ms", "4.5 ms").replace("0.07", "0.08"),
        "a unit": row.replace("62.9 ms", "62.9 s"),
        "two figures swapped": row.replace("62.9 ms", "@")
        .replace("4.4 ms", "62.9 ms")
        .replace("@", "4.4 ms"),
        "a figure rounded": row.replace("62.9 ms", "63 ms"),
        "a figure dropped": row.replace(f": 0.07{TIMES}", ""),
        "the row dropped": "",
    }
    for what, new_row in changes.items():
        assert new_row != row, what
        mutated = text.replace(row + "\n", new_row + ("\n" if new_row else ""))
        problems = rf.region_problems(
            src.with_overrides({"README.md": mutated}), ["README.md"], data
        )
        assert problems, f"{what} passed the check"


def test_every_quoted_figure_changed_in_its_results_page_fails_the_check(rf, repo):
    """A results page edited by hand, or rerun, no longer matches its figures file
    (and so the README rendered from it)."""
    src, _ = repo
    figures = rf.figures
    checked = 0
    for page, quotes in rf.QUOTED.items():
        rel = f"benches/results/{page}.md"
        text = src.read(rel)
        for name, (a, b, _) in figures.locate(text, quotes).items():
            if quotes[name].word:
                mutated = text[:a] + "x" + text[a:]
            else:
                digits = [i for i in range(a, b) if text[i].isdigit()]
                mutated = _changed(text, digits[-1], 1) or _changed(text, digits[-1], -1)
            problems = rf.figures_files(src.with_overrides({rel: mutated}), [page])
            assert problems and page in problems[0], (page, name)
            checked += 1
    assert checked == sum(len(q) for q in rf.QUOTED.values())


def test_a_figures_file_edited_by_hand_fails_the_check(rf, repo):
    src, _ = repo
    rel = "benches/results/linear_headline.figures.json"
    stored = json.loads(src.read(rel))
    stored["figures"]["a9a.to_accuracy.avg.time"]["text"] = "4.5 ms"
    edited = json.dumps(stored, indent=1, ensure_ascii=False) + "\n"
    edited_src = src.with_overrides({rel: edited})
    assert rf.figures_files(edited_src, ["linear_headline"])
    assert rf.region_problems(edited_src, ["README.md"])


# --------------------------------------------------------------------------- prose


def _with_line(src, rel: str, after: str, line: str):
    text = src.read(rel)
    assert after in text
    return src.with_overrides({rel: text.replace(after, after + "\n" + line, 1)})


@pytest.mark.parametrize(
    ("rel", "after", "line"),
    [
        ("docs/user_guide/kernel.rst", "Input\n-----\n", "It took 1.23 s on usps.\n"),
        ("docs/user_guide/kernel.rst", "Input\n-----\n", "one-vs-one takes 0.29.\n"),
        ("docs/user_guide/linear.rst", "Data frames\n-----------\n", "5.6 times faster.\n"),
        ("README.md", "## Documentation\n", "It is 0.95 of its time.\n"),
        ("benches/README.md", "## `bench_calls.py`: the fixed cost of a small call\n", "87.12 %\n"),
        ("benches/quoted/readme_benchmarks.md", "`benches/results/`:\n", "- exact: 2.9x\n"),
    ],
)
def test_a_measured_figure_outside_the_generated_text_fails(rf, repo, rel, after, line):
    src, _ = repo
    problems = rf.prose_problems(_with_line(src, rel, after, line))
    assert len(problems) == 1 and problems[0].startswith(rel), problems


def test_a_measured_figure_in_a_docstring_fails(rf, repo):
    src, _ = repo
    rel = "python/pegasos_rs/kernel.py"
    text = src.read(rel)
    mutated = text.replace("noisy.", "noisy: one pass gives 15.0 % test error.", 1)
    assert mutated != text
    problems = rf.prose_problems(src.with_overrides({rel: mutated}))
    assert len(problems) == 1 and "'15.0 %'" in problems[0] and rel in problems[0]


def test_settings_and_code_are_not_figures(rf, repo):
    src, _ = repo
    rel = "docs/user_guide/kernel.rst"
    for line in ("With ``alpha=0.25`` and ``cache_size=500 MB``.\n", "Set C = 10.5 here.\n"):
        assert rf.prose_problems(_with_line(src, rel, "Input\n-----\n", line)) == []


def test_a_settings_phrase_gone_from_its_file_fails(rf, repo):
    src, _ = repo
    rel = "docs/user_guide/dask.rst"
    text = src.read(rel)
    changed = text.replace("at most 10 GiB per worker", "at most a bound per worker")
    problems = rf.prose_problems(src.with_overrides({rel: changed}))
    assert problems == [
        f".ci/figure_settings.py: 'at most 10 GiB per worker' is no longer a line of {rel}"
    ]
