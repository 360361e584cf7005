"""A wrong result that is the answer times its own number on each row (or each column).

Leaving out LayerNorm's final ``/ s`` (one spread per token) leaves every row right up to that row's
own factor; the generic nudge said "differs at 512 of its 576 entries" because one row of the
answer was all zeros, and a row of zeros has no ratio (issue 31, grade3 #2).  A line of zeros in
both is any multiple of itself here; a line that is zero in one only is a real difference.  The
nudge says which scale is off, never what it is.
"""
from __future__ import annotations

import numpy as np

from tutor.common.i18n import _
from tutor.grading.formula_nudges import Nudge, Outcome, close_enough, constant_factor


def _lines(array: np.ndarray, along_rows: bool) -> np.ndarray:
    """Each row (entries along the last axis) or each column (along the one before) as one line."""
    array = np.asarray(array, dtype=np.float64)
    if not along_rows:
        array = np.swapaxes(array, -1, -2)
    return np.reshape(array, (-1, np.shape(array)[-1]))


def lines_scaled(yours: np.ndarray, expected: np.ndarray, tolerance: float, along_rows: bool) -> bool:
    """Every line of yours is the answer's line times a number of its own, and not one number for all."""
    if yours is None or expected is None or np.ndim(expected) < 2 or np.shape(yours) != np.shape(expected):
        return False
    factors = []
    for mine, theirs in zip(_lines(yours, along_rows), _lines(expected, along_rows)):
        if close_enough(mine, theirs, tolerance) and not np.any(theirs):
            continue   # zeros in both (a token with no gradient): any factor fits
        factor = constant_factor(mine, theirs, tolerance)
        if factor is None:
            return False
        factors.append(factor)
    return len(factors) >= 2 and not np.allclose(factors, factors[0], rtol=1e-3)


def line_scale_nudge(outcomes: list[Outcome], tolerance: float, generic: Nudge) -> Nudge:
    """The nudge for a scale of each row or of each column left out or added, on every draw, in place
    of a ``generic`` one that only counts entries; any other nudge stands."""
    if generic.word not in ("differs", "small", "mask"):
        return generic
    for along_rows in (True, False):
        if all(lines_scaled(o.yours, o.expected, tolerance, along_rows) for o in outcomes):
            return Nudge("factor", _("Yours is the answer times a different number on each row: what each row "
                                     "is divided by (its own sum, its own spread) is off.") if along_rows else
                         _("Yours is the answer times a different number in each column: a scale of each column "
                           "(a per-feature gain, a per-key weight) is missing or extra."))
    return generic
