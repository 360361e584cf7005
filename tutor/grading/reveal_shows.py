"""Where a revealed tensor writes an answer besides its cells: each question kind's
``shown_on_reveal`` hook calls the search for its answer's form.

A reveal (tutor.grading.reveal_focus) puts a tensor on screen with a header and axis names; a
later question's answer may be read off it without reading any one cell: a shape off the
header (``shape (2, 2, 4, 4)``), a symbolic shape off the axis names (``axes (batch, head,
query, key)`` is ``(B, H, L, L)``), values off a row as the view writes them, or a sign off two
cells whose difference is the value its rule reads.  Kept beside the kinds (not in the leak
checker) so that a kind brings its reveal check with it.
"""
from __future__ import annotations

import numpy as np

from tutor.common.i18n import M_
from tutor.grading.probe_ref import ProbeRefError
from tutor.grading.symbolic import same_symbolic_shape
from tutor.grading.tensor_access import QuestionError, reduce_slice
from tutor.grading.tensor_format import NumberFormat

MAX_PAIRED_CELLS = 256      # a sign rule's value is looked for among the gaps of views up to this size

# what a learner reads an axis name as; "feature" is D or D_head, told apart by its length
_AXIS_SYMBOLS = {"batch": "B", "head": "H", "position": "L", "query": "L", "key": "L", "vocabulary": "V"}


def shape_on_reveal(reveal, shape) -> str | None:
    return M_("the shape {shape}", shape=tuple(reveal.array.shape)) if tuple(reveal.array.shape) == tuple(shape) else None


def symbols_on_reveal(reveal, sizes, answer: str) -> str | None:
    symbols = axis_symbols(reveal, sizes)
    if symbols and same_symbolic_shape(f"({', '.join(symbols)})", answer):
        return M_("the axes ({names}), that is ({symbols})", names=", ".join(reveal.axis_names),
                  symbols=", ".join(symbols))
    return None


def axis_symbols(reveal, sizes) -> list[str] | None:
    """The view's axis names as the size names a learner reads them as; None if one has none."""
    symbols = []
    for name, length in zip(reveal.axis_names, reveal.array.shape):
        if name == "feature":
            symbol = "D_head" if length == sizes.get("D_head") else "D" if length == sizes.get("D") else None
        elif name == "hidden":
            symbol = "4*D" if length == 4 * sizes.get("D", 0) else None
        else:
            symbol = _AXIS_SYMBOLS.get(name)
        if symbol is None:
            return None
        symbols.append(symbol)
    return symbols


def values_on_screen(array: np.ndarray, values, tolerance: float) -> bool:
    """Whether the values appear in a row of the view, in order, as close as the question grades."""
    wanted = np.asarray(values, dtype=float).ravel()
    if wanted.size < 2 or np.asarray(array).size < wanted.size:
        return False
    number_format = NumberFormat.for_array(array)
    half_unit = 0.5 * 10.0 ** (number_format.exponent - number_format.decimals)
    # the cells as written: rounded to the view's decimals
    written = np.asarray([float(number_format.cell(float(v))) * 10.0 ** number_format.exponent
                          for v in np.asarray(array, dtype=float).ravel()])
    allowed = max(tolerance, half_unit) + 1e-9
    for start in range(written.size - wanted.size + 1):
        window = written[start:start + wanted.size]
        if np.all((window == wanted) | (np.abs(window - wanted) <= allowed)):
            return True
    return False


def difference_on_screen(array: np.ndarray, tensors, reference: str, reduce: str) -> bool:
    """Whether the value a sign rule reads is the gap between two cells on screen (beam's score
    minus greedy's, with both scores shown): its sign is then read off the screen."""
    try:
        value = reduce_slice(tensors, reference, reduce)
    except (QuestionError, ProbeRefError):
        return False
    cells = np.asarray(array, dtype=float).ravel()
    if value == 0 or not np.isfinite(value) or cells.size > MAX_PAIRED_CELLS:
        return False
    gaps = cells[:, None] - cells[None, :]                                 # (n, n): every a - b
    return bool(np.any(np.isclose(gaps, value, rtol=1e-6, atol=1e-9)))
