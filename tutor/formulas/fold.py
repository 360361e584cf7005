"""Fit a SymPy drawing into a narrower box without breaking its glyph rows apart.

Why: a terminal (or a Textual Static) wraps each line of a multi-line drawing on its own, so a
fraction bar lands under the wrong numerator and lone ``⎟⎟`` lines appear.  Here the whole
drawing is cut into column slices stacked one under the other, as SymPy's own line breaking
does (``↪`` marks where a slice goes on), preferring a column that is blank on every row, the
gap around ``+`` or ``⋅``, so no glyph is split.  When even the folded drawing is too tall for
the rows the screen can spare, the caller shows the formula's one-line source instead.
"""
from __future__ import annotations

import unicodedata

MARK = "↪"
# The lesson screen's formula box at 80 columns: half of the 78-column formula row, less the
# box's border and padding (tutor/ui/app.tcss #formula).  `lessons check` warns above it.
BOX_COLUMNS_AT_80 = 35
# Rows the box may draw at 80x24 and still leave an explanation line and the question on screen.
BOX_ROWS_AT_24 = 6


def _cells(line: str) -> list[str]:
    """One entry per terminal column: a character with the combining marks that follow it."""
    cells: list[str] = []
    for char in line:
        if cells and unicodedata.combining(char):
            cells[-1] += char
        else:
            cells.append(char)
    return cells


def picture_size(picture: str) -> tuple[int, int]:
    """(columns, rows) of a drawing."""
    rows = picture.split("\n")
    return max((len(_cells(row)) for row in rows), default=0), len(rows)


def _blank(grid: list[list[str]], column: int) -> bool:
    return all(row[column] == " " for row in grid)


def _cut(grid: list[list[str]], start: int, room: int) -> int:
    """Where the slice from ``start`` ends: the last all-blank column that keeps a useful slice,
    else the box's edge."""
    edge = start + room
    for column in range(edge, start + max(1, room // 3), -1):
        if _blank(grid, column):
            return column
    return edge


def _trim(rows: list[str]) -> list[str]:
    """A slice drops the rows blank across it (a tall part elsewhere), keeping the rest aligned."""
    while rows and not rows[0].strip():
        rows = rows[1:]
    while rows and not rows[-1].strip():
        rows = rows[:-1]
    return rows


def fold_picture(picture: str, width: int) -> str:
    """The drawing in slices of at most ``width`` columns, slices separated by a blank line.

    The ``↪`` marks sit on the busiest row (a fraction's bar, or the one line of a flat formula),
    at the end of a slice and the start of the next, as SymPy writes them.
    """
    width = max(width, 8)
    columns, _rows = picture_size(picture)
    if columns <= width:
        return picture
    grid = [cells + [" "] * (columns - len(cells)) for cells in map(_cells, picture.split("\n"))]
    busiest = max(range(len(grid)), key=lambda i: sum(cell != " " for cell in grid[i]))
    slices, start = [], 0
    while start < columns:
        lead = 2 if start else 0
        if columns - start + lead <= width:
            end = columns
        else:
            end = _cut(grid, start, width - lead - 2)
        rows = []
        for i, row in enumerate(grid):
            text = "".join(row[start:end])
            if i == busiest:
                text = (MARK + " " if start else "") + text + (" " + MARK if end < columns else "")
            else:
                text = " " * lead + text
            rows.append(text.rstrip())
        slices.append("\n".join(_trim(rows)))
        start = end
        while start < columns and _blank(grid, start):
            start += 1
    return "\n\n".join(slices)
