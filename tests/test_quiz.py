"""Grading against live truths, with plain numpy tensors standing in for the model."""
import math

import numpy as np
import pytest

from tutor.grading.answers import AnswerError
from tutor.course.schema import NumberQuestion, ShapeQuestion, ValuesQuestion
from tutor.grading.quiz import QuestionError, grade, truth_for

PATTERN = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.2, 0.3, 0.5]])
TENSORS = {"blocks.0.attn.pattern": PATTERN[None, None], "logits": np.arange(12.0).reshape(1, 3, 4),
           "blocks.0.attn.masked_scores": np.where(np.triu(np.ones((3, 3)), 1) > 0, -np.inf, 1.0)[None, None]}
SIZES = {"B": 1, "H": 1, "L": 3, "D": 4, "D_head": 4}


def test_values_accept_fractions_and_tolerance():
    question = ValuesQuestion(kind="values", id="row1", prompt="row 1", probe="blocks.0.attn.pattern[0, 0, 1]",
                              tolerance=0.01)
    truth = truth_for(question, TENSORS, SIZES)
    assert grade(question, "1/4, 3/4, 0", truth, SIZES).correct
    assert not grade(question, "0.5, 0.5, 0", truth, SIZES).correct
    with pytest.raises(AnswerError, match="give 3 values"):
        grade(question, "1/4, 3/4", truth, SIZES)


def test_infinity_must_match_exactly():
    question = ValuesQuestion(kind="values", id="mask", prompt="row 0",
                              probe="blocks.0.attn.masked_scores[0, 0, 0]", tolerance=0.5)
    truth = truth_for(question, TENSORS, SIZES)
    assert grade(question, "1, -inf, -inf", truth, SIZES).correct
    assert not grade(question, "1, 0, -inf", truth, SIZES).correct


def test_number_reduction_and_show_reveals_the_chosen_slice():
    question = NumberQuestion(kind="number", id="zeros", prompt="zeros", probe="blocks.0.attn.pattern[0, 0]",
                              reduce="count_zero", tolerance=0, show="logits[0, 2]")
    truth = truth_for(question, TENSORS, SIZES)
    assert truth.value == 3
    assert truth.tensor_label == "logits[0, 2]"
    np.testing.assert_array_equal(truth.tensor, [8.0, 9.0, 10.0, 11.0])
    assert grade(question, "3", truth, SIZES).correct


def test_shape_feedback_counts_axes():
    question = ShapeQuestion(kind="shape", id="s", prompt="shape", probe="logits")
    truth = truth_for(question, TENSORS, SIZES)
    result = grade(question, "3, 4", truth, SIZES)
    assert not result.correct and "2 axes" in result.feedback and "3" in result.feedback


def test_unknown_probe_is_an_authors_error_listing_valid_probes():
    question = ShapeQuestion(kind="shape", id="s", prompt="shape", probe="blocks.0.attn.patern")
    with pytest.raises(QuestionError, match="valid probes: .*blocks.0.attn.pattern"):
        truth_for(question, TENSORS, SIZES)


def test_relative_tolerance():
    question = NumberQuestion(kind="number", id="n", prompt="sum", probe="logits[0, 2]", reduce="sum",
                              tolerance=0.1, relative=True)
    truth = truth_for(question, TENSORS, SIZES)
    assert math.isclose(truth.value, 38.0)
    assert grade(question, "35", truth, SIZES).correct
    assert not grade(question, "30", truth, SIZES).correct
