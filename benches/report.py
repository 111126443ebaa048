"""Writing the benchmarks' results: markdown tables and their cells, report
sections, JSON files, and the final write-and-print of a report."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import common  # the one-thread environment before numpy is imported
import figures
import numpy as np


def markdown_table(header: list[str], rows: list[list[object]], align: str | None = None) -> str:
    """A GitHub markdown table; ``align`` is one char per column: l, r or c."""
    align = align or ("l" + "r" * (len(header) - 1))
    marks = {"l": ":---", "r": "---:", "c": ":---:"}
    out = ["| " + " | ".join(header) + " |"]
    out.append("| " + " | ".join(marks[a] for a in align) + " |")
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out)


def fmt_time(t: float | None) -> str:
    """A duration in s, ms or µs; "—" for None or a non-finite value."""
    if t is None or not np.isfinite(t):
        return "—"
    if t < 0:
        return "-" + fmt_time(-t)
    if t < 1e-3:
        return f"{t * 1e6:.0f} µs"
    if t < 1:
        return f"{t * 1e3:.1f} ms"
    return f"{t:.2f} s"


def fmt_pct(x: float | None, digits: int = 2) -> str:
    """A fraction as a percentage; "—" for None or a non-finite value."""
    if x is None or not np.isfinite(x):
        return "—"
    return f"{100 * x:.{digits}f}%"


def verdict(ok: bool | None) -> str:
    """A target's cell: PASS, MISS, or "—" when it was not measured."""
    return "—" if ok is None else ("PASS" if ok else "MISS")


def command(script: str) -> str:
    """The command line of this run, as ``python benches/<script> <arguments>``."""
    return " ".join([f"python benches/{script}", *sys.argv[1:]])


def section(title: str, table: str) -> list[str]:
    """The lines of a report section: a blank line, ``## title``, a blank line, the
    table."""
    return ["", f"## {title}", "", table]


def notes(items: list[str]) -> list[str]:
    """The lines of a report's closing bullet list of notes."""
    return ["", "Notes:", ""] + [f"- {n}" for n in items]


def plots_list(results: list[dict]) -> str:
    """The PNG files of ``results`` (their ``plot`` entries) as inline code, or "none"."""
    return ", ".join(f"`{r['plot']}`" for r in results if r["plot"]) or "none"


def jsonable(x):
    """numpy arrays and scalars as Python lists and numbers (``json.dumps`` default)."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON serialisable: {type(x)}")


def write_json(path: Path, payload) -> Path:
    """Write ``payload`` to ``path`` as indented JSON (numpy values converted)."""
    path.write_text(json.dumps(payload, indent=1, default=jsonable) + "\n")
    return path


def machine_state() -> dict:
    """The wall-clock time, the machine's load average (``os.getloadavg``: 1, 5 and
    15 minutes) and its number of CPUs, now."""
    return {"time": time.time(), "load": list(os.getloadavg()), "cpus": os.cpu_count()}


#: The machine's state when this run started. Every benchmark imports this module
#: before it measures anything, so importing it marks the start.
_START = machine_state()


def started_state() -> dict:
    """The state recorded at the start of this run (see :data:`_START`)."""
    return dict(_START)


def _loads(load) -> str:
    return " / ".join(f"{v:.2f}" for v in load)


def load_text(start: dict, end: dict) -> str:
    """The machine's load over a run, from the states at its start and end (see
    :func:`machine_state`), as the reports print it."""
    return (
        f"{start['cpus']} CPUs; load average (1 / 5 / 15 min) "
        f"{_loads(start['load'])} at the start, {_loads(end['load'])} at the end"
    )


def run_header() -> str:
    """The line every report carries under its title: the command, when it ran, how
    long it took and the machine's load at its start and end (every benchmark
    writes its report through :func:`publish`, which adds it)."""
    start, end = started_state(), machine_state()
    script = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "?"
    fmt = "%Y-%m-%d %H:%M"
    minutes = (end["time"] - start["time"]) / 60
    return (
        f"Run: `{command(script)}`, {time.strftime(fmt, time.localtime(start['time']))} "
        f"to {time.strftime(fmt, time.localtime(end['time']))} ({minutes:.0f} min); "
        f"machine: {load_text(start, end)}."
    )


def named_sets(names: list[str]) -> str:
    """The data sets of a report as its title names them: each name up to three
    (``a9a and usps``), their number beyond. Runs with ``--datasets`` write reports
    of their own, which the documentation lists side by side, each with a title of
    its own."""
    if len(names) > 3:
        return f"{len(names)} data sets"
    if len(names) > 1:
        return ", ".join(names[:-1]) + " and " + names[-1]
    return names[0]


def with_header(text: str, header: str) -> str:
    """``text`` with ``header`` as the paragraph under its ``# title`` line (first,
    when it has no title)."""
    title, _, rest = text.partition("\n")
    if title.startswith("# "):
        return f"{title}\n\n{header}\n\n{rest.lstrip(chr(10))}"
    return f"{header}\n\n{text}"


def publish(
    prefix: str, text: str, started: float, also: str | None = None, write: bool = True
) -> Path:
    """Write the report ``text`` to ``results/<prefix>.md`` under its run header (see
    :func:`run_header`: command, date, duration, the machine's load), print it and
    what was written (``also``: another file written, named in that line) since
    ``started`` (a ``time.perf_counter`` value). ``write=False`` (smoke modes) only
    prints.

    When README or the documentation quote figures of the page, they are read from
    the page just written and stored beside it as ``results/<prefix>.figures.json``
    (:func:`figures.write`); a quoted figure the page no longer has raises
    ``figures.FigureError`` naming it, after the page is written."""
    text = with_header(text, run_header())
    out = common.RESULTS_DIR / f"{prefix}.md"
    print()
    print(text)
    if not write:
        return out
    out.write_text(text)
    quoted = figures.write(prefix, text, common.RESULTS_DIR)
    written = ", ".join(str(p) for p in (out, also, quoted and quoted.name) if p is not None)
    print(f"wrote {written} in {time.perf_counter() - started:.0f} s")
    return out


def measure_and_publish(prefix: str, names: list[str], run_one, save, report) -> int:
    """The end of a benchmark over datasets: ``run_one(name)`` for each name, one
    thread, ``save(results)`` (which returns the JSON file it wrote) after each (see
    ``common.measure_all``), then the report ``report(results)`` published as
    ``results/<prefix>.md``. Returns the exit status: 1 when no dataset was
    available."""
    common.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results = common.measure_all(names, run_one, save)
    if not results:
        print("no dataset available: nothing measured", file=sys.stderr)
        return 1
    publish(prefix, report(results), started, also=save(results).name)
    return 0
