"""Tensors as coloured tables: the real numbers the learner predicted.

Rich ``Text`` cells with background colours render inside Textual; nothing is parsed as
markup, so values like ``x[i]`` or ``-inf`` show exactly as they are.
"""
from __future__ import annotations

import math

import numpy as np
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

MAX_ROWS, MAX_COLS = 12, 10


def format_cell(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    if value == 0:
        return "0"
    if abs(value) >= 1000 or abs(value) < 0.001:
        return f"{value:.1e}"
    return f"{value:.3f}".rstrip("0").rstrip(".") if abs(value) < 10 else f"{value:.1f}"


def _heat(value: float, scale: float) -> str:
    """Blue for negative, red for positive, strength by magnitude; grey for ±inf."""
    if not math.isfinite(value):
        return "on grey23"
    strength = min(1.0, abs(value) / scale) if scale else 0.0
    level = int(40 + 120 * strength)
    return f"on rgb({level},30,40)" if value > 0 else f"on rgb(30,40,{level})" if value < 0 else ""


def matrix_table(matrix: np.ndarray, row_labels=None, col_labels=None) -> Table:
    matrix = np.atleast_2d(matrix)
    finite = matrix[np.isfinite(matrix)]
    scale = float(np.abs(finite).max()) if finite.size else 1.0
    table = Table(show_header=col_labels is not None, box=None, pad_edge=False, padding=(0, 1))
    table.add_column("", style="dim", no_wrap=True)
    shown_cols = min(matrix.shape[1], MAX_COLS)
    for j in range(shown_cols):
        label = col_labels[j] if col_labels is not None and j < len(col_labels) else str(j)
        table.add_column(Text(label), justify="right", no_wrap=True)
    if matrix.shape[1] > MAX_COLS:
        table.add_column("…")
    for i in range(min(matrix.shape[0], MAX_ROWS)):
        label = row_labels[i] if row_labels is not None and i < len(row_labels) else str(i)
        cells = [Text(format_cell(float(v)), style=_heat(float(v), scale)) for v in matrix[i, :shown_cols]]
        table.add_row(Text(label), *cells, *([Text("…")] if matrix.shape[1] > MAX_COLS else []))
    if matrix.shape[0] > MAX_ROWS:
        table.add_row(Text("⋮"), *[Text("") for _ in range(shown_cols)])
    return table


def tensor_renderable(array: np.ndarray, label: str, token_labels: list[str] | None = None) -> RenderableType:
    """A title with the full shape, then the values (the leading [0, 0, ...] slice if >2-D)."""
    array = np.asarray(array, dtype=float)
    title = Text(f"{label}  shape {tuple(array.shape)}", style="bold")
    if array.ndim == 0:
        return Group(title, Text(format_cell(float(array))))
    view, note = array, ""
    if array.ndim > 2:
        lead = (0,) * (array.ndim - 2)
        view = array[lead]
        note = f"showing [{', '.join('0' for _ in lead)}, :, :]"
    if view.ndim == 1:   # one row: index the columns, no row label to misread as a value
        table = matrix_table(view[None], [""], [str(j) for j in range(view.shape[0])])
    else:
        square = token_labels is not None and view.shape[0] == view.shape[1] == len(token_labels)
        table = matrix_table(view, token_labels if square else None, token_labels if square else None)
    parts: list[RenderableType] = [title, table]
    if note:
        parts.insert(1, Text(note, style="dim"))
    return Group(*parts)
