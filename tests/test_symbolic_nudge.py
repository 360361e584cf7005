"""A symbolic shape right only on the lesson's sizes is nudged about the formula, not the order."""
from tutor.grading.kinds.symbolic_shape import SymbolicShapeQuestion
from tutor.grading.quiz import grade, truth_for

SIZES = {"B": 2, "L": 4, "D": 32, "H": 4, "D_head": 8}
QUESTION = SymbolicShapeQuestion(kind="symbolic_shape", id="x", prompt="The shape of x?", answer="(B, L, D)")


def feedback(text: str) -> str:
    result = grade(QUESTION, text, truth_for(QUESTION, {}, SIZES), SIZES)
    assert not result.correct
    return result.feedback


def test_numbers_that_match_here_name_the_axes_that_would_not():
    said = feedback("(2, 4, 32)")
    assert "wrong order" not in said
    assert "axes 1, 2, 3 would not match with other sizes" in said


def test_one_constant_names_its_axis():
    said = feedback("(B, L, 32)")
    assert "wrong order" not in said and "axis 3 would not match" in said


def test_a_formula_equal_only_here_names_its_axis():
    assert "axis 3 would not match" in feedback("(B, L, H * L * 2)")   # 4 * 4 * 2 = 32 = D only here


def test_a_real_reordering_is_still_called_one():
    assert "wrong order" in feedback("(L, B, D)")
