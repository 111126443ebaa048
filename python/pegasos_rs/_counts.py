"""Counts in the lines the command line, the progress reports and the demo print:
``1 pass``, ``2 passes``, ``1 class``, ``3 queries``.

Imports nothing (``pegasos-rs --help`` and ``train`` use it before numpy).
"""

from __future__ import annotations


def plural(n: int, noun: str) -> str:
    """``noun`` as it follows the number ``n``: the singular for one, else its plural
    (``-es`` after s, x, ch and sh; ``-ies`` for a consonant then y; ``-s``
    otherwise). Only the last word of ``noun`` changes (``"averaged pass"``)."""
    if n == 1:
        return noun
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return noun[:-1] + "ies"
    return noun + "s"


def counted(n: int, noun: str, *, thousands: bool = False) -> str:
    """``n`` followed by ``noun`` in the right number: ``counted(1, "pass")`` is
    ``"1 pass"``, ``counted(3, "class")`` ``"3 classes"``; ``thousands``: the number
    with thousands separators (``"12,345 steps"``)."""
    number = f"{n:,}" if thousands else str(n)
    return f"{number} {plural(n, noun)}"
