"""Numbers and tolerances as a learner reads them: no float noise, no raw ``±26.16``."""
from __future__ import annotations

import math

import numpy as np

from tutor.common.i18n import _, ngettext


def format_number(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    if float(value).is_integer() and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.4g}"


def format_values(array: np.ndarray) -> str:
    return ", ".join(format_number(float(v)) for v in np.asarray(array).ravel())


def tolerance_in_words(tolerance: float, relative: bool, expected: float | None = None,
                       given: tuple[tuple[float, float], ...] = ()) -> str:
    """How close counts, said as a person would: 'exactly', 'to 2 decimals', 'within 0.15', 'within about 5%'.

    The raw tolerance of a relative question depends on the live value, so printing it would both
    read as noise and hint at the answer's size; a percentage or a count of decimals does neither.
    `given` pairs each accepted answer with its truth: −0.47 for −0.4758 is inside ±0.01 but is not
    the value to 2 decimals (−0.48), so "right to 2 decimals" would teach the wrong rounding.
    """
    if tolerance <= 0 or (expected is not None and not math.isfinite(expected)):
        return _("exactly")   # nan and ±inf are matched as such: no tolerance applies to them
    if relative:
        return _("within about {percent}").format(percent=_percent(tolerance))
    if tolerance < 0.5:
        decimals = max(0, math.ceil(-math.log10(2 * tolerance) - 1e-9))
        if tolerance <= 10.0 ** -decimals * (1 + 1e-9) and all(rounds_to(g, e, decimals) for g, e in given):
            return ngettext("to {count} decimal", "to {count} decimals", decimals).format(count=decimals)
    elif tolerance == 0.5:
        return _("to the nearest whole number")
    # ±0.15 is not "to 1 decimal" (2.75 would be "right to 1 decimal" for 2.889, which rounds to 2.9); a whole
    # count (±2 tokens) is what a prompt states and says nothing of the answer's size
    if tolerance < 0.5 or float(tolerance).is_integer():
        return _("within {tolerance}").format(tolerance=format_number(tolerance))
    if expected is not None and math.isfinite(expected) and expected != 0:
        return _("within about {percent}").format(percent=_percent(tolerance / abs(expected)))
    return _("roughly")


def rounds_to(given: float, expected: float, decimals: int, slack: float = 1e-6) -> bool:
    """Whether `given` reads as `expected` written to `decimals` places (−0.48 for −0.4758; 0.5 for 0.45)."""
    step = 10.0 ** -decimals
    return abs(given - expected) <= step / 2 * (1 + slack)


def _percent(fraction: float) -> str:
    percent = fraction * 100
    return f"{percent:.0f}%" if percent >= 1 else f"{percent:.1g}%"
