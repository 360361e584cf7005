"""`lessons check` warns about a formula drawn wider (or taller) than the lesson screen's box.

Not an error: the box folds a wide drawing into aligned slices (``↪``) and shows a tall one on
one line, so the lesson still works; but an author should know that at 80x24 the learner reads
the formula folded or flat, and may prefer to shorten it or bind names to its parts.
"""
from __future__ import annotations

from tutor.authoring.pinned import Pinned
from tutor.common.i18n import M_
from tutor.course.loader import Problem
from tutor.course.schema import Lesson
from tutor.formulas.fold import BOX_COLUMNS_AT_80, BOX_ROWS_AT_24, fold_picture, picture_size


def formula_size_warnings(lesson: Lesson, pinned: Pinned) -> list[Problem]:
    """Warnings (not problems) about the drawn formula's size; none when it does not parse (an error
    already says so)."""
    from tutor.formulas.parse import FormulaError
    from tutor.live.formula_check import render_spec

    try:
        picture = render_spec(lesson.formula)
    except FormulaError:
        return []
    columns, rows = picture_size(picture)
    folded_rows = picture_size(fold_picture(picture, BOX_COLUMNS_AT_80))[1]
    notes = Pinned(pinned.path, pinned.root)
    if columns > BOX_COLUMNS_AT_80:
        pieces = fold_picture(picture, BOX_COLUMNS_AT_80).count("\n\n") + 1
        notes.add(("formula", "expr"), M_("the formula is drawn {columns} columns wide; at 80 columns its box holds "
                                          "{box}, so it is shown folded in {pieces} pieces (↪); a shorter formula, "
                                          "or names for its parts, reads better", columns=columns,
                                          box=BOX_COLUMNS_AT_80, pieces=pieces))
    if folded_rows > BOX_ROWS_AT_24:
        notes.add(("formula", "expr"), M_("the formula is drawn {rows} rows tall at 80 columns; at 80x24 the "
                                          "screen spares at most {box}, so it is shown on one line as written",
                                          rows=folded_rows, box=BOX_ROWS_AT_24))
    return notes.problems
