"""A prompt that says "to 2 decimals" promises how the answer is graded; the tolerance must keep it.

Unseen readers found prompts asking for "four decimals" that accepted 0.002 for 0.002056 and "to 3
decimals" graded within 5%: the learner who did the work to the stated precision gained nothing,
and one who guessed the leading digit scored. The reverse fault is as real: a tolerance under half a
unit in the stated decimal refuses the true value written as asked (0.48 for 0.4758 against ±0.001).
So a stated count of decimals N wants an absolute tolerance between 0.5·10⁻ᴺ and 10⁻ᴺ. No model here:
this is a static check on the question as written.
"""
from __future__ import annotations

import math
import re

from tutor.common.i18n import M_
from tutor.grading.number_format import format_number, rounds_to

_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# "to 2 decimals", "(3 decimals)", "Four decimals.", "to 1 decimal place"; not "rounded to one decimal so
# it can be done by hand", which tells how the prompt's own numbers were written
_STATED = re.compile(r"(?<!rounded )(?<!rounded to )\b(\d|one|two|three|four|five|six)\s+decimal(?:s|\s+places?)?\b"
                     r"(?!\s+digit)", re.IGNORECASE)
_SLACK = 1e-9


def stated_decimals(prompt: str) -> int | None:
    """The count of decimals the prompt asks the answer in, if it states one."""
    found = _STATED.search(prompt)
    if not found:
        return None
    word = found.group(1).lower()
    return int(word) if word.isdigit() else _COUNTS[word]


def rounded_short(prompt: str, given: float, expected: float) -> int | None:
    """The places ``given`` has when it is the truth written to fewer decimals than the prompt asks:
    0.9995 for 0.99951 asked to 5 decimals heard "Too low" (r8la), as if its digits were wrong."""
    wanted = stated_decimals(prompt)
    if wanted is None or not (math.isfinite(given) and math.isfinite(expected)):
        return None
    for places in range(wanted):
        if abs(given - round(given, places)) <= 1e-12 * max(1.0, abs(given)) and \
                rounds_to(given, expected, places, _SLACK):
            return places
    return None


def precision_problem(prompt: str, tolerance: float, relative: bool) -> str | None:
    """Why the grading does not keep the prompt's "N decimals", in words an author can act on; None if it does."""
    decimals = stated_decimals(prompt)
    if decimals is None:
        return None
    unit = 10.0 ** -decimals
    if relative:
        return M_("the prompt asks for {count} decimals but the answer is graded within a share of its size "
                  "(relative: true); grade it to {count} decimals (an absolute tolerance between {low} and {high}) "
                  "or ask for the answer without a count of decimals", count=decimals,
                  low=format_number(unit / 2), high=format_number(unit))
    if tolerance > unit * (1 + _SLACK):
        return M_("the prompt asks for {count} decimals but the tolerance {tolerance} accepts answers more than "
                  "one unit off in the last of them; use a tolerance between {low} and {high}", count=decimals,
                  tolerance=format_number(tolerance), low=format_number(unit / 2), high=format_number(unit))
    if tolerance < unit / 2 * (1 - _SLACK):
        return M_("the prompt asks for {count} decimals but the tolerance {tolerance} refuses the true value "
                  "written to {count} decimals; use a tolerance between {low} and {high}", count=decimals,
                  tolerance=format_number(tolerance), low=format_number(unit / 2), high=format_number(unit))
    return None
