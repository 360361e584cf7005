"""Is a number round enough to be anyone's, or particular enough to be one answer's?

A later lesson that writes 4.56 or 0.982 is very likely stating an earlier lesson's answer again; one
that writes 4, 0.25 or 1.000 is as likely writing its own size, share or rate.  The cross-lesson
repeat check (tutor.authoring.course_repeats) asks the question kinds, and they ask this.
"""
from __future__ import annotations

import math

from tutor.grading.answer_text import SMALL_WHOLE

ZERO = 1e-6               # float32 noise around 0 (a row sum of -8.7e-07) is 0, the roundest number of all


def distinctive_number(value: float) -> bool:
    """Not a whole number up to SMALL_WHOLE or a power of two (sizes and counts are in every lesson),
    and not a value of one or two significant digits (0.25, 0.7, 1.2)."""
    if not math.isfinite(value) or abs(value) < ZERO:
        return False
    if value == round(value):
        whole = abs(int(value))
        return whole > SMALL_WHOLE and whole & (whole - 1) != 0 and significant_digits(value) >= 3
    return significant_digits(value) >= 3


def significant_digits(value: float) -> int:
    """How many significant digits ``value`` needs (up to 6; 7 for more): 0.25 needs 2, 4.5643 more than 3."""
    for digits in range(1, 7):
        if math.isclose(float(f"{value:.{digits}g}"), value, rel_tol=1e-6):
            return digits
    return 7
