"""How a revealed tensor's numbers are written, and which part of it fits a given width.

No Textual here: the widget asks this module for the text of each cell and for the rows and
columns that fit, so both are tested without a screen.

One format per tensor (numpy's rule): a cell must be comparable with its neighbours at a
glance, so every cell of a tensor uses the same decimals, and a tensor whose numbers are
all tiny or all huge is written once with a shared scale factor (``× 1e-4``) instead of a
column of exponents.  Exact zeros print as ``0``; a value that would round to zero at the
tensor's decimals is written with two significant digits in e-notation (``7.5e-08``), as numpy
does for a tensor it cannot show in fixed point: a softmax's smallest probability is tiny but
not 0, and ``0.00000`` read as 0 ("masked to exactly zero" stays visible either way).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_CELL = 8            # characters of the widest number, sign included
SCALE_BELOW, SCALE_FROM = -3, 4   # decimal exponents of the largest |value| that get a scale factor


@dataclass(frozen=True)
class NumberFormat:
    """``decimals`` after the point once divided by ``10 ** exponent`` (0: no scale factor)."""

    decimals: int
    exponent: int = 0
    integers: bool = False

    @classmethod
    def for_array(cls, array: np.ndarray) -> "NumberFormat":
        values = np.asarray(array, dtype=float)
        finite = np.abs(values[np.isfinite(values)])
        nonzero = finite[finite > 0]
        if not nonzero.size:
            return cls(0, integers=True)
        largest = float(nonzero.max())
        if np.all(finite == np.round(finite)) and largest < 1e6:
            return cls(0, integers=True)
        top = math.floor(math.log10(largest))
        exponent = top if top <= SCALE_BELOW or top >= SCALE_FROM else 0
        # three significant digits for most cells (the smaller quarter may get fewer), as many
        # as fit beside the largest one
        typical = float(np.percentile(nonzero, 25)) / 10 ** exponent
        wanted = max(0, 2 - math.floor(math.log10(typical)))
        int_digits = max(1, top - exponent + 1)
        room = MAX_CELL - 2 - int_digits          # sign and point
        return cls(max(0, min(wanted, room)), exponent)

    @property
    def scale_note(self) -> str:
        """``× 1e-4`` when the cells are divided by a shared factor, else empty."""
        return f"× 1e{self.exponent}" if self.exponent else ""

    def cell(self, value: float) -> str:
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "-inf" if value < 0 else "inf"
        if value == 0:
            return "0"
        if self.integers:
            return str(int(round(value)))
        scaled = value / 10 ** self.exponent
        text = f"{scaled:.{self.decimals}f}"
        return text if any(c in "123456789" for c in text) else f"{scaled:.1e}"

    def width(self, array: np.ndarray) -> int:
        """The widest cell of the whole tensor, so scrolling never shifts the columns."""
        values = np.unique(np.asarray(array, dtype=float))
        return max((len(self.cell(float(v))) for v in values), default=1)


@dataclass(frozen=True)
class AxisWindow:
    """The indices ``start..stop-1`` of an axis that are on screen, of ``size`` in all."""

    start: int
    stop: int
    size: int

    @property
    def hidden_before(self) -> int:
        return self.start

    @property
    def hidden_after(self) -> int:
        return self.size - self.stop


def fit_window(size: int, capacity: int, start: int) -> AxisWindow:
    """Up to ``capacity`` indices from ``start`` (clamped so the window never runs off the end)."""
    capacity = max(1, min(capacity, size))
    start = max(0, min(start, size - capacity))
    return AxisWindow(start, start + capacity, size)


def centred_start(size: int, capacity: int, focus: tuple[int, int]) -> int:
    """The window start that shows the focus ``[first, last]`` in the middle, or its start if it
    is wider than the window."""
    first, last = focus
    if last - first + 1 >= capacity:
        return max(0, first)
    middle = (first + last) // 2
    return max(0, min(middle - capacity // 2, size - capacity))


def column_capacity(size: int, width: int, cell_width: int, marker_width: int = 2) -> int:
    """How many columns of ``cell_width`` fit in ``width``, leaving room for ⋯ markers on the
    sides where columns are hidden."""
    if size * cell_width <= width:
        return size
    return max(1, (width - 2 * marker_width) // cell_width)
