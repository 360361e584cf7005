"""Grading against live truths, with plain numpy tensors standing in for the model."""
import math

import numpy as np
import pytest

from tutor.grading.answers import AnswerError
from tutor.grading.kinds.number import NumberQuestion
from tutor.grading.kinds.shape import ShapeQuestion
from tutor.grading.kinds.values import ValuesQuestion
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
    wrong = grade(question, "0.5, 0.5, 0", truth, SIZES)
    assert not wrong.correct and "2 of the 3 values are off" in wrong.feedback
    short = grade(question, "1/4, 3/4", truth, SIZES)   # a wrong count is a wrong attempt, with a nudge
    assert not short.correct and "holds 3 values; you gave 2" in short.feedback
    with pytest.raises(AnswerError):
        grade(question, "a quarter", truth, SIZES)


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
    result = grade(question, "2, 4", truth, SIZES)
    assert not result.correct and "2 axes" in result.feedback and "different number" in result.feedback
    assert "(1, 3, 4)" not in result.feedback
    dropped = grade(question, "3, 4", truth, SIZES)   # the batch axis of size 1 left out
    assert "keeps its axes of size 1: it has 3 axes" in dropped.feedback and "(1, 3, 4)" not in dropped.feedback


def test_a_shape_written_in_size_names_is_asked_for_numbers_without_the_numbers():
    """Before: '(B, L, 1)' heard "'B' is not a size; a shape is whole numbers", which reads as if the
    learner had the idea wrong (unseen reader r4op, nu-layernorm bn-stats-shape).  No try is spent, and the
    message does not say B's value, which would be a substitution away from the answer."""
    from tutor.grading.kinds import kind_of

    question = ShapeQuestion(kind="shape", id="s", prompt="shape", probe="logits")
    with pytest.raises(AnswerError, match="'B' is a size's name; this question asks for the sizes themselves") as error:
        kind_of(question).parse(question, "(B, L, 1)", SIZES)
    assert "1" not in str(error.value) and "3" not in str(error.value)
    with pytest.raises(AnswerError, match="'banana' is not a size"):
        kind_of(question).parse(question, "banana", SIZES)


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
    assert "10%" in grade(question, "35", truth, SIZES).feedback and "±" not in grade(question, "35", truth, SIZES).feedback


def number(**fields) -> NumberQuestion:
    return NumberQuestion(kind="number", id="n", prompt="p", **fields)


def test_nan_truth_rejects_every_finite_answer_and_accepts_nan():
    question = number(answer="nan", tolerance=100)
    truth = truth_for(question, TENSORS, SIZES)
    for text in ("0", "1e9", "-inf", "inf"):
        assert not grade(question, text, truth, SIZES).correct
    assert grade(question, "nan", truth, SIZES).correct
    assert truth.display == "nan"


def test_nan_in_values_and_infinities_compare_exactly():
    tensors = {"x": np.array([1.0, np.nan, -np.inf])}
    question = ValuesQuestion(kind="values", id="v", prompt="p", probe="x", tolerance=10, nonfinite=True)
    truth = truth_for(question, tensors, SIZES)
    assert grade(question, "1, nan, -inf", truth, SIZES).correct
    assert not grade(question, "1, 0, -inf", truth, SIZES).correct
    assert not grade(question, "1, nan, -1e300", truth, SIZES).correct


def test_one_comparison_everywhere():
    from tutor.grading.compare import all_close, close
    assert not close(5.0, math.nan, 1e9) and close(math.nan, math.nan, 0)
    assert close(math.inf, math.inf, 0) and not close(1e308, math.inf, 1e308)
    assert close(0.25, 1 / 4, 0) and not all_close([1, 2], [1], 1)


@pytest.mark.parametrize("answer, nudge", [("50", "Too high"), ("10", "Too low"), ("380", "10× too large"),
                                           ("3.8", "10× too small"), ("-38", "sign")])
def test_number_nudges_say_which_way_without_the_answer(answer, nudge):
    question = number(probe="logits[0, 2]", reduce="sum", tolerance=0.5)
    truth = truth_for(question, TENSORS, SIZES)
    feedback = grade(question, answer, truth, SIZES).feedback
    assert feedback.startswith("Not quite.") and nudge in feedback and "38" not in feedback


@pytest.mark.parametrize("answer, nudge", [("1", "Too high."), ("96", "Too high."), ("0.5", "Too high."),
                                           ("-2", "Too low.")])
def test_an_answer_of_zero_up_to_rounding_hears_no_sign_nudge(answer, nudge):
    """ca-chain-rule's row sum is 0 up to rounding (-3e-9 on the model): every positive guess heard
    "Check the sign" (issue 31). The sign is named only where it is all that is wrong."""
    tensors = {"logits": np.array([[[0.25, -0.5, 0.25 - 3e-9]]])}
    question = number(probe="logits[0, 0]", reduce="sum", tolerance=0.001)
    feedback = grade(question, answer, truth_for(question, tensors, SIZES), SIZES).feedback
    assert feedback == f"Not quite. {nudge}", feedback


def test_the_sign_nudge_needs_the_negated_answer_to_match():
    question = number(probe="logits[0, 2]", reduce="sum", tolerance=0.5)   # the answer is 38
    truth = truth_for(question, TENSORS, SIZES)
    assert grade(question, "-38.2", truth, SIZES).feedback == "Not quite. Check the sign."
    assert grade(question, "-50", truth, SIZES).feedback == "Not quite. Too low."
    values = ValuesQuestion(kind="values", id="row", prompt="p", probe="logits[0, 2]", tolerance=0.1)   # 8, 9, 10, 11
    truth = truth_for(values, TENSORS, SIZES)
    assert grade(values, "8, 9, 10, -11", truth, SIZES).feedback.endswith("check the sign.")
    assert grade(values, "8, 9, 10, -3", truth, SIZES).feedback.endswith("too low.")


def test_shape_nudge_for_axes_in_the_wrong_order():
    question = ShapeQuestion(kind="shape", id="s", prompt="shape", probe="logits")
    truth = truth_for(question, TENSORS, SIZES)
    assert "wrong order" in grade(question, "(1, 4, 3)", truth, SIZES).feedback
    assert "1 of the 3 sizes is off" in grade(question, "(1, 3, 5)", truth, SIZES).feedback


def test_probability_row_that_does_not_sum_to_one():
    question = ValuesQuestion(kind="values", id="row", prompt="p", probe="blocks.0.attn.pattern[0, 0, 2]")
    truth = truth_for(question, TENSORS, SIZES)
    assert "add up to 1; yours add up to 1.2" in grade(question, "0.2, 0.5, 0.5", truth, SIZES).feedback


def test_closeness_is_said_in_words():
    from tutor.grading.number_format import tolerance_in_words
    assert tolerance_in_words(0, False) == "exactly"
    assert tolerance_in_words(0.005, False) == "to 2 decimals"
    assert tolerance_in_words(0.05, False) == "to 1 decimal"
    assert tolerance_in_words(0.01, False) == "to 2 decimals"
    assert tolerance_in_words(0.15, False) == "within 0.15"   # 2.75 is not right to 1 decimal for 2.889
    assert tolerance_in_words(0.4, False) == "within 0.4"
    assert tolerance_in_words(0.05, False, float("nan")) == "exactly"   # a right nan is not right "to 1 decimal"
    assert tolerance_in_words(0.05, True) == "within about 5%"
    assert tolerance_in_words(26.16, False, 523.2) == "within about 5%"
    assert tolerance_in_words(2, False, 6.0) == "within 2"   # a count graded within 2 reads so, not as 33%


def test_an_answer_inside_the_tolerance_but_not_the_rounded_value_hears_within():
    """−0.47 is inside ±0.01 of −0.4758 but the value to 2 decimals is −0.48: "right to 2 decimals" taught the
    wrong rounding (unseen reader r5ca)."""
    tensors = {"x": np.array([-0.4758, 0.1234])}
    number = NumberQuestion(kind="number", id="n", prompt="p", probe="x[0]", tolerance=0.01)
    truth = truth_for(number, tensors, SIZES)
    assert grade(number, "-0.48", truth, SIZES).feedback == "Right (to 2 decimals)."
    assert grade(number, "-0.47", truth, SIZES).feedback == "Right (within 0.01)."
    values = ValuesQuestion(kind="values", id="v", prompt="p", probe="x", tolerance=0.01)
    truth = truth_for(values, tensors, SIZES)
    assert grade(values, "-0.48, 0.12", truth, SIZES).feedback == "Right (to 2 decimals)."
    assert grade(values, "-0.48, 0.13", truth, SIZES).feedback == "Right (within 0.01)."


def choice(answer) -> "ChoiceQuestion":
    from tutor.grading.kinds.choice import ChoiceQuestion
    return ChoiceQuestion(kind="choice", id="c", prompt="p", choices=["first", "second", "third"], answer=answer)


@pytest.mark.parametrize("answer, index", [
    ({"argmax": "scores"}, 1), ({"argmin": "scores"}, 2),
    ({"sign": "scores", "reduce": "sum", "positive": 0, "negative": 2}, 0),
    ({"sign": "scores[2]", "positive": 0, "negative": 2}, 2),
    ({"cases": [{"probe": "scores", "reduce": "max", "below": 1, "choice": 0},
                {"probe": "scores", "reduce": "count_distinct", "at_least": 3, "choice": 2}], "otherwise": 1}, 2),
    (1, 1),
])
def test_choice_answer_rules_follow_the_model(answer, index):
    tensors = {"scores": np.array([0.5, 3.0, -1.0])}
    question = choice(answer)
    truth = truth_for(question, tensors, SIZES)
    assert truth.value == index and grade(question, "abc"[index], truth, SIZES).correct
    flipped = truth_for(question, {"scores": -tensors["scores"]}, SIZES)
    if not isinstance(answer, int) and "cases" not in answer:
        assert flipped.value != index   # another model, another right answer


def test_choice_rule_that_does_not_fit_is_an_authors_error():
    with pytest.raises(QuestionError, match="one value per choice"):
        truth_for(choice({"argmax": "scores"}), {"scores": np.array([1.0, 2.0])}, SIZES)


def test_new_reducers():
    from tutor.grading.tensor_access import REDUCERS
    assert REDUCERS["sortedness"](np.array([3.0, 1.0, 2.0, 5.0])) < 1 == REDUCERS["sortedness"](np.arange(5.0))
    assert REDUCERS["max_rise"](np.array([3.0, 1.0, 2.5, 0.0])) == 1.5
    assert REDUCERS["count_distinct"](np.array([[2, 2], [2, 3]])) == 2


def test_attempts_come_from_question_then_lesson_within_the_kinds_cap():
    from tutor.grading.kinds import allowed_attempts
    assert allowed_attempts(number(answer=1, attempts=5), 3) == 5
    assert allowed_attempts(number(answer=1), 2) == 2
    assert allowed_attempts(choice(0), 3) == 2          # three options: at most two tries
    assert allowed_attempts(choice({"argmax": "x"}).model_copy(update={"attempts": 1}), 3) == 1


def test_an_encounter_is_judged_by_its_first_attempt():
    from tutor.grading.attempts import Encounter, Outcome
    clean = Encounter()
    clean.record(True)
    assert clean.outcome is Outcome.FIRST_TRY and clean.revealed
    hinted = Encounter()
    hinted.hint_shown(1)
    hinted.record(True)
    assert hinted.outcome is Outcome.AFTER_RETRY
    retried = Encounter(allowed=2)
    retried.record(False)
    assert retried.outcome is None and not retried.revealed
    retried.hint_shown(1)
    retried.record(True)
    assert retried.outcome is Outcome.AFTER_RETRY and retried.hints_before_first == 0
    with pytest.raises(RuntimeError):
        retried.record(True)   # nothing is graded after the reveal
    spent = Encounter(allowed=2)
    spent.record(False)
    spent.record(False)
    assert spent.revealed and spent.outcome is Outcome.MISSED
    quitter = Encounter()
    quitter.give_up()
    assert quitter.outcome is Outcome.MISSED and quitter.outcome.label == "not got"


def test_the_sum_nudge_names_no_kind_and_skips_one_hot_rows():
    """A row of cosines can be one-hot and sum to 1: it is not called a distribution."""
    from tutor.grading.kinds import Truth, kind_of

    question = ValuesQuestion(kind="values", id="row", prompt="p", probe="x[0]")
    one_hot = Truth(np.array([0.0, 0.0, 1.0, 0.0]), "0, 0, 1, 0", None)
    spread = Truth(np.array([0.25, 0.75]), "0.25, 0.75", None)
    nudge = kind_of(question).nudge
    assert "add up" not in nudge(question, [1.0, 1.0, 1.0, 1.0], one_hot)
    assert nudge(question, [0.5, 0.9], spread) == "The real values add up to 1; yours add up to 1.4."


def test_a_wrong_index_or_token_id_never_gets_a_direction():
    """Before: "Too high" on an index question among 9 entries, 4 of them masked (co-attention-graph),
    so three tries bisect the 5 that can win.  An index, or a number marked categorical (a token id),
    names a thing: a wrong one hears only that it is wrong, however many candidates there are."""
    few = number(probe="blocks.0.attn.pattern[0, 0, 2]", reduce="argmax", tolerance=0)   # 3 candidates, answer 2
    feedback = grade(few, "0", truth_for(few, TENSORS, SIZES), SIZES).feedback
    assert "Not that index" in feedback and "Too" not in feedback
    many = number(probe="wide[0]", reduce="argmax", tolerance=0)
    tensors = {"wide": np.eye(12)[None, 9]}                                                 # 12 candidates, answer 9
    feedback = grade(many, "3", truth_for(many, tensors, SIZES), SIZES).feedback
    assert "Not that index" in feedback and "Too" not in feedback
    token = number(probe="token", tolerance=0, categorical=True)
    feedback = grade(token, "3", truth_for(token, {"token": np.array(7.0)}, SIZES), SIZES).feedback
    assert "Not that one" in feedback and "Too" not in feedback


def test_nan_and_inf_nudges_say_which_it_is_not():
    """Before: nan for an answer of inf heard "The result here is an ordinary number" (nu-float-precision);
    then "Not an infinity: … (nan)" named the answer with two tries left (r8copr, pr-padding-mask)."""
    question = number(probe="x", tolerance=0, nonfinite=True)
    infinite = truth_for(question, {"x": np.array(np.inf)}, SIZES)
    feedback = grade(question, "nan", infinite, SIZES).feedback
    assert "Not nan" in feedback and "infinite" not in feedback and "ordinary number" not in feedback
    undefined = truth_for(question, {"x": np.array(np.nan)}, SIZES)
    feedback = grade(question, "inf", undefined, SIZES).feedback
    assert "Not an infinity" in feedback and "nan" not in feedback




@pytest.mark.parametrize("given, nudge", [(88.72, "Too high."), (100.0, "About 10× too large."),
                                          (1.1, "About 10× too small."), (1.4, "Too low.")])
def test_about_ten_times_is_said_only_of_a_slipped_decimal_point(given, nudge):
    """88.72 against 11.09 (float32's exp limit for fp16's) is 8×: a different mistake, not a decimal slip."""
    from tutor.grading.kinds.number import direction_nudge

    assert direction_nudge(given, 11.09) == nudge


@pytest.mark.parametrize("given, expected, nudge", [
    ((1, 1, 32), (32,), "The right sizes, with axes of size 1 this tensor does not have: it has 1 axis."),
    ((2, 3, 8), (2, 3, 1, 8), "The right sizes, but this tensor keeps its axes of size 1: it has 4 axes."),
    ((2, 4, 32), (32,), "That has 3 axes; this tensor has a different number.")])
def test_a_shape_off_only_by_axes_of_size_one_is_named(given, expected, nudge):
    """An unseen reader (la-ffn-shapes win-shape): b_in's (1, 1, 32), the bias broadcast against the
    hidden layer, got the same 'That has 3 axes' as (2, 4, 32), a different tensor altogether."""
    from tutor.grading.kinds.base import shape_nudge

    assert shape_nudge(given, expected) == nudge


@pytest.mark.parametrize("written, value", [("(1/2)^10", 2 ** -10), ("2**-10", 2 ** -10), ("0.5**10", 2 ** -10),
                                            ("e^12.96", 425066.1147817277), ("ln(65504)", 11.089866488461016),
                                            ("1/sqrt(2)", 0.5 ** 0.5), ("1/4", 0.25), ("25%", 0.25)])
def test_a_number_may_be_written_as_the_arithmetic_that_gives_it(written, value):
    """Unseen readers: op-landscape's reveal writes (1/2)¹⁰ but '(1/2)^10' and '2**-10' were unreadable;
    de-greedy's 'e^12.96' too.  The formulas' parser reads them (no names but e and pi; it runs nothing)."""
    from tutor.grading.answers import parse_number

    assert parse_number(written) == pytest.approx(value)


@pytest.mark.parametrize("written, message", [("x+1", "is not a number"), ("3/x", "is not a fraction"),
                                              ("exp(1000)", "overflows"), ("__import__('os')", "is not a number"),
                                              ("1/0", "division by zero")])
def test_arithmetic_that_is_not_a_number_is_still_refused_clearly(written, message):
    from tutor.grading.answers import AnswerError, parse_number

    with pytest.raises(AnswerError, match=message):
        parse_number(written)


def test_a_number_question_says_the_authors_sentence_for_a_known_slip():
    """r8ca: nu-init-scale's s² = 2500, the lesson's point without the ε correction, heard only "Too low"."""
    from pydantic import ValidationError

    from tutor.grading.formula_says import sentences, with_sentences
    from tutor.grading.kinds import kind_of

    slip = "That is s² alone: what does ε do to the normal model's normalised x?"
    question = number(probe="x", tolerance=0.005, relative=True,
                      reject=[{"value": 2500, "says": slip}, {"value": "1/4", "says": "A quarter of what?"}])
    truth = truth_for(question, {"x": np.array(2536.6)}, SIZES)
    assert grade(question, "2500", truth, SIZES).feedback == "Not quite. " + slip
    assert grade(question, "2501", truth, SIZES).feedback == "Not quite. " + slip     # within the question's 0.5%
    assert grade(question, "2400", truth, SIZES).feedback == "Not quite. Too low."
    assert grade(question, "2536", truth, SIZES).correct
    assert sentences(question) == [slip, "A quarter of what?"]                       # a translation's says: list
    assert with_sentences(question, ["甲", "乙"]).reject[0].says == "甲"
    right = number(probe="x", tolerance=0.005, relative=True, reject=[{"value": 2537, "says": "never read"}])
    [problem] = kind_of(right).check_answer(right, truth_for(right, {"x": np.array(2536.6)}, SIZES), {}, SIZES, True)
    assert problem.field == ("reject", 0, "value") and "graded right on this model" in problem.message
    for bad in ({"value": "lots", "says": "x"}, {"value": 1, "says": "{{ L }} too many"}):
        with pytest.raises(ValidationError):
            number(probe="x", reject=[bad])
