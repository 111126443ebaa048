"""Drawing the benchmarks' figures with matplotlib (Agg backend, no display):
figure setup, the usual log-scaled time axes, labelled points, saving a PNG."""

from __future__ import annotations

from pathlib import Path


def have_matplotlib() -> bool:
    """Whether plots can be drawn (the test environment may lack matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def log_axes(ax, xlabel: str, ylabel: str | None = None, *, ylog: bool = False) -> None:
    """Log-scaled x axis (and y with ``ylog``), labels, a grid on every tick."""
    ax.set_xscale("log")
    if ylog:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)


def label_points(ax, points, x, y, text, color=None) -> None:
    """Write ``text(p)`` next to each point ``(x(p), y(p))`` of ``points``."""
    for p in points:
        ax.annotate(
            text(p), (x(p), y(p)), fontsize=7, textcoords="offset points", xytext=(3, 3),
            color=color,
        )  # fmt: skip


def save(fig, path: Path) -> str:
    """Lay out ``fig``, write it to ``path`` (PNG, 110 dpi), close it; the file name."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
    return path.name
