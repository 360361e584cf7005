"""The one tolerance comparison every grader and checker uses.

NaN and the infinities are compared as values, not as numbers: a NaN truth accepts only ``nan``
(``abs(x - nan) > tol`` is False for every x, which once let any answer pass), and ±inf accept
only the same infinity, whatever the tolerance.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

SLACK = 1e-12   # float noise in "exactly 0.25": a tolerance of 0 must still accept 1/4


def close(given: float, expected: float, tolerance: float) -> bool:
    if math.isnan(expected) or math.isnan(given):
        return math.isnan(expected) and math.isnan(given)
    if math.isinf(expected) or math.isinf(given):
        return given == expected
    return abs(given - expected) <= tolerance + SLACK


def all_close(given: Iterable[float], expected: Iterable[float], tolerance: float) -> bool:
    """Same count and every pair close; a different count is never a match."""
    given, expected = [float(g) for g in given], [float(e) for e in expected]
    return len(given) == len(expected) and all(close(g, e, tolerance) for g, e in zip(given, expected))


def absolute_tolerance(tolerance: float, relative: bool, expected: float) -> float:
    """A relative tolerance scaled by the truth's size (0 for a non-finite truth, which must match exactly)."""
    if not relative:
        return tolerance
    return tolerance * abs(expected) if math.isfinite(expected) else 0.0
