"""Number types for argparse, shared by every command, so each rule is written (and worded) once.

Each type refuses NaN and infinities and names the rule a value broke.
"""
from __future__ import annotations

import argparse
import math


def whole_number(minimum: int, maximum: int | None = None):
    """Whole numbers in [minimum, maximum]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value
    return parse


def real_number(minimum: float, maximum: float = math.inf, *, open_below: bool = False):
    """Finite numbers in [minimum, maximum], or (minimum, maximum] with open_below."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        too_low = value <= minimum if open_below else value < minimum
        if not math.isfinite(value) or too_low or value > maximum:
            left = "(" if open_below else "["
            bound = f"in {left}{minimum:g}, {maximum:g}]" if math.isfinite(maximum) else \
                (f"above {minimum:g}" if open_below else f"at least {minimum:g}")
            raise argparse.ArgumentTypeError(f"must be a finite number {bound}, got {text}")
        return value
    return parse


positive_int = whole_number(1)
non_negative_int = whole_number(0)
