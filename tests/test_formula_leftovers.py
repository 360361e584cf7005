"""Issue 30's leftover grading findings: a size written as its number, a tiny extra term on a
formula of single numbers, and a one-number result taken for a batch axis.  Each failed before:
the first got only "a number in it should be a size", the second was graded right, the third got
"Yours has the shape (); the answer's shape is (B,)" (contentB #6)."""
import numpy as np
import pytest

from tutor.grading.formula_draws import axis_sizes
from tutor.grading.kinds.formula import FormulaQuestion
from tutor.grading.quiz import grade, truth_for

ENTROPIES = {"H_x": np.array([2.1]), "H_y": np.array([2.3]), "H_xy": np.array([3.9]), "I": np.array([0.5])}
MUTUAL = FormulaQuestion(kind="formula", id="mi", prompt="p", answer="H_x + H_y - H_xy",
                         bind={"H_x": "H_x", "H_y": "H_y", "H_xy": "H_xy"}, probe="I")


@pytest.mark.parametrize(("text", "said"), [("Q @ K.T / 2", "the 2 in it is √d_k here. Write it as √d_k"),
                                            ("Q @ K.T / sqrt(4)", "the 4 in it is d_k here. Write it as d_k")])
def test_a_size_written_as_its_number_is_named(scores, text, said):
    question, live, truth = scores
    assert live.sizes["D_head"] == 4
    result = grade(question, text, truth, live.sizes)
    assert not result.correct and said in result.feedback, result.feedback


def test_a_number_is_not_named_a_size_when_writing_the_size_is_still_wrong(scores):
    question, live, truth = scores
    feedback = grade(question, "K @ Q.T / 2", truth, live.sizes).feedback   # transposed: the 2 is not the mistake
    assert "Write it as" not in feedback, feedback


def test_a_tiny_extra_term_on_a_formula_of_single_numbers_is_wrong():
    """Inside any float tolerance, but not the same formula: compared at 30 digits on the draws."""
    truth = truth_for(MUTUAL, ENTROPIES, {})
    wrong = grade(MUTUAL, "H_x + H_y - H_xy + 1e-7*H_x", truth, {})
    assert not wrong.correct and "not as a formula" in wrong.feedback, wrong.feedback
    for same in ("H_x - (H_xy - H_y)", "0.5*(2*H_x + 2*H_y - 2*H_xy)", "exp(log(H_x)) + H_y - H_xy"):
        assert grade(MUTUAL, same, truth, {}).correct, same


def test_a_one_number_result_is_not_taken_for_a_batch_axis():
    sizes = {"B": 1, "L": 11, "H": 4, "D": 64, "D_head": 16}
    assert axis_sizes("I", ENTROPIES, sizes) == (None,)
    feedback = grade(MUTUAL, "0.5", truth_for(MUTUAL, ENTROPIES, sizes), sizes).feedback
    assert "shape" not in feedback and "one number" in feedback, feedback   # a formula is asked for
