"""Number types for argparse, shared by every command, so each rule is written (and worded) once.

Each type refuses NaN and infinities and names the rule a value broke.
"""
from __future__ import annotations

import argparse
import math

from tutor.common.i18n import _


def whole_number(minimum: int, maximum: int | None = None):
    """Whole numbers in [minimum, maximum]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(_("expected a whole number, got {text}").format(text=repr(text))) from None
        if value < minimum or (maximum is not None and value > maximum):
            message = _("must be between {least} and {most}, got {value}") if maximum is not None else \
                _("must be at least {least}, got {value}")
            raise argparse.ArgumentTypeError(message.format(least=minimum, most=maximum, value=value))
        return value
    return parse


def real_number(minimum: float, maximum: float = math.inf, *, open_below: bool = False):
    """Finite numbers in [minimum, maximum], or (minimum, maximum] with open_below."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(_("expected a number, got {text}").format(text=repr(text))) from None
        too_low = value <= minimum if open_below else value < minimum
        if not math.isfinite(value) or too_low or value > maximum:
            left = "(" if open_below else "["
            if math.isfinite(maximum):
                message = _("must be a finite number in {interval}, got {text}").format(
                    interval=f"{left}{minimum:g}, {maximum:g}]", text=text)
            elif open_below:
                message = _("must be a finite number above {least}, got {text}").format(least=f"{minimum:g}", text=text)
            else:
                message = _("must be a finite number of at least {least}, got {text}").format(least=f"{minimum:g}",
                                                                                             text=text)
            raise argparse.ArgumentTypeError(message)
        return value
    return parse


positive_int = whole_number(1)
non_negative_int = whole_number(0)
