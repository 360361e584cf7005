"""The size names in a shape nudge come from what the question's tensors are, not a guess by length.

op-minibatch binds b to minibatch.sizes, declared ``(4,)``: four batch sizes.  D_head was 4 as
well, so the draws named that axis D_head, gave it other lengths, and the nudge for ``N`` read
"the answer's shape is (D_head,)" (issue 31).  Both tests failed before."""
import numpy as np

from tutor.grading.declared_shapes import declare
from tutor.grading.formula_draws import axis_sizes
from tutor.grading.kinds.formula import FormulaQuestion
from tutor.grading.quiz import grade, truth_for

SIZES = {"B": 2, "L": 5, "D": 8, "H": 2, "D_head": 4}
declare("mb_names_test", "mb_names_test.sizes (4,) the batch sizes, mb_names_test.ratio (4,) the cost ratios")
TENSORS = {"mb_names_test.sizes": np.array([1.0, 4.0, 16.0, 64.0]),
           "mb_names_test.ratio": 64.0 / np.array([1.0, 4.0, 16.0, 64.0])}


def test_an_axis_declared_as_a_number_is_no_size():
    assert axis_sizes("mb_names_test.sizes", TENSORS, SIZES) == (None,)


def test_the_shape_nudge_names_no_size_the_question_does_not_have():
    question = FormulaQuestion(kind="formula", id="cost", prompt="p", answer="N / b",
                               bind={"N": 64, "b": "mb_names_test.sizes"}, probe="mb_names_test.ratio")
    truth = truth_for(question, TENSORS, SIZES)
    feedback = grade(question, "N", truth, SIZES).feedback
    assert feedback == "Not quite. Yours has the shape (); the answer's shape is (4,).", feedback
    assert grade(question, "N / b", truth, SIZES).correct
