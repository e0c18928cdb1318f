"""Numbers for people in report tables and findings (the rest is in :mod:`tables`)."""

from __future__ import annotations

import math


def fmt_p(p: float) -> str:
    """A p value with two significant digits, ``< 0.001`` below that (never ``0.00056``), and
    ``–`` when there is none."""
    if p is None or not math.isfinite(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.2g}"
