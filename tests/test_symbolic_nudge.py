"""A symbolic shape right only on the lesson's sizes is nudged about the formula, not the order."""
from tutor.grading.kinds.symbolic_shape import SymbolicShapeQuestion
from tutor.grading.quiz import grade, truth_for

SIZES = {"B": 2, "L": 4, "D": 32, "H": 4, "D_head": 8}
QUESTION = SymbolicShapeQuestion(kind="symbolic_shape", id="x", prompt="The shape of x?", answer="(B, L, D)")


def feedback(text: str) -> str:
    result = grade(QUESTION, text, truth_for(QUESTION, {}, SIZES), SIZES)
    assert not result.correct
    return result.feedback


def test_a_shape_all_in_numbers_is_asked_in_names_without_spending_a_try():
    """Before: '(2, 4, 32)' was a graded try ("axes 1, 2, 3 would not match with other sizes"; a wrong
    one cost a try), while the shape kind takes '(B, L, 1)' back for free (unseen reader r5fa #13).
    The message names no size, so it writes no answer."""
    import pytest

    from tutor.grading.answers import AnswerError
    from tutor.grading.kinds import kind_of

    for text in ("(2, 4, 32)", "(3, 96)"):
        with pytest.raises(AnswerError, match="asks for the shape in the size names the lesson uses") as error:
            kind_of(QUESTION).parse(QUESTION, text, SIZES)
        assert not any(name in str(error.value) for name in ("B", "L", "D"))
    with pytest.raises(AnswerError, match="type an answer"):   # an empty line keeps its own message
        kind_of(QUESTION).parse(QUESTION, "  ", SIZES)
    numeric = SymbolicShapeQuestion(kind="symbolic_shape", id="n", prompt="p", answer="(2, 4)")
    assert kind_of(numeric).parse(numeric, "(2, 4)", SIZES) == (2, 4)   # an answer in numbers takes numbers


def test_one_constant_names_its_axis():
    said = feedback("(B, L, 32)")
    assert "wrong order" not in said and "axis 3 would not match" in said


def test_a_formula_equal_only_here_names_its_axis():
    assert "axis 3 would not match" in feedback("(B, L, H * L * 2)")   # 4 * 4 * 2 = 32 = D only here


def test_a_real_reordering_is_still_called_one():
    assert "wrong order" in feedback("(L, B, D)")
