"""A formula wider than its box is folded into aligned slices, never torn row by row, and
`lessons check` warns about a formula that the 80-column screen must fold or flatten.

Before: the box was a Static, which wrapped each of SymPy's rows on its own (`s)⋅Wₖ)ᵀ⎞⎞` and lone
`⎟⎟` lines at 120 columns), and the check said nothing.
"""
from pathlib import Path

from tutor.authoring.check import check_paths
from tutor.cli.lessons import template_text
from tutor.formulas.fold import BOX_COLUMNS_AT_80, MARK, fold_picture, picture_size
from tutor.formulas.parse import parse_formula, render_formula

ATTENTION = "softmax((X @ W_Q) @ (X @ W_K).T / sqrt(D_head) + mask) @ (X @ W_V) @ W_O"


def drawing(expr: str) -> str:
    return render_formula(parse_formula(expr, matrices=("X", "W_Q", "W_K", "W_V", "W_O", "mask"), scalars=()))


def unfolded(folded: str) -> list[str]:
    """The slices put side by side again, marks removed: the rows of the original drawing."""
    slices = [piece.split("\n") for piece in folded.split("\n\n")]
    height = max(len(rows) for rows in slices)
    return [row for row in (
        "".join(piece[i] if i < len(piece) else "" for piece in slices) for i in range(height))]


def test_a_narrow_enough_drawing_is_left_alone():
    picture = drawing("Q @ K.T")
    assert fold_picture(picture, 40) == picture


def test_a_wide_drawing_is_folded_between_terms_with_every_row_aligned():
    picture = drawing(ATTENTION)
    assert picture_size(picture)[0] > 35
    folded = fold_picture(picture, 35)
    slices = folded.split("\n\n")
    assert len(slices) == 2 and all(picture_size(piece)[0] <= 35 for piece in slices)
    assert slices[0].count(MARK) == 1 and slices[1].count(MARK) == 1
    first, second = (piece.split("\n") for piece in slices)
    # the cut is in the blank column before "mask", so both slices keep all seven rows of the brackets
    assert len(first) == len(second) == picture_size(picture)[1]
    assert [row.replace(MARK, "").replace(" ", "") for row in unfolded(folded)] == \
        [row.replace(" ", "") for row in picture.split("\n")]


def test_check_warns_about_a_formula_wider_than_the_80_column_box(tmp_path):
    text = template_text("wide", "Wide", "pr", 100, Path("wide.yaml"), ["pr"])
    assert 'expr: "softmax(causal_mask(S))"' in text
    text = text.replace('expr: "softmax(causal_mask(S))"',
                        'expr: "softmax(causal_mask(S @ S.T / sqrt(2))) + softmax(causal_mask(S.T @ S / sqrt(2)))"')
    path = tmp_path / "wide.yaml"
    path.write_text(text, encoding="utf-8")
    report = check_paths([path], live=False)
    assert report.ok
    wide, tall = report.warnings   # folded in two, it is also too tall for 80x24: shown on one line
    assert wide.field == tall.field == "formula.expr"
    assert wide.line == next(i for i, line in enumerate(text.splitlines(), 1) if "expr:" in line)
    assert "drawn 55 columns wide" in wide.message and f"its box holds {BOX_COLUMNS_AT_80}" in wide.message
    assert "7 rows tall" in tall.message and "on one line" in tall.message
