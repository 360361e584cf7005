"""kind: values — a short list of numbers, e.g. one row of an attention pattern."""
from __future__ import annotations

import numpy as np

from tutor.common.i18n import M_, N_, _, message_of

from typing import Literal, Union

from pydantic import Field

from tutor.grading.answer_text import values_shown
from tutor.grading.answers import AnswerError, parse_number, parse_values
from tutor.grading.compare import all_close, close
from tutor.grading.fields import ProbeRefText, QuestionBase
from tutor.grading.kinds.base import AuthorProblem, QuestionKind, Truth, probe_read, with_reveal
from tutor.grading.kinds.number import direction_nudge
from tutor.grading.reveal_shows import values_on_screen
from tutor.grading.number_format import format_number, format_values, tolerance_in_words
from tutor.grading.round_numbers import distinctive_number
from tutor.grading.stated_precision import precision_problem
from tutor.grading.tensor_access import QuestionError, probe_slice

MAX_VALUES = 64   # more than a learner can reasonably type


class ValuesQuestion(QuestionBase):
    kind: Literal["values"]
    probe: ProbeRefText
    tolerance: float = Field(0.05, ge=0, le=100, allow_inf_nan=False)
    answer: list[Union[float, str]] | None = None
    nonfinite: bool = False   # the truth may hold nan or ±inf on purpose (e.g. masked scores)


def _is_distribution(values: np.ndarray) -> bool:
    """A spread of non-negative values summing to 1 (a softmax row, say).  A one-hot row also sums
    to 1, but there "the values add up to 1" would all but give it away, and it need not be a
    distribution at all (a row of cosines), so it gets the per-value nudge instead."""
    return values.size > 1 and bool(np.all(np.isfinite(values))) and bool(np.all(values >= 0)) \
        and abs(float(values.sum()) - 1) < 1e-3 and int(np.count_nonzero(values > 1e-6)) >= 2


class ValuesKind(QuestionKind[ValuesQuestion, list[float]]):
    name = "values"
    order = 20
    question = ValuesQuestion
    answer_has_axes = True

    def parse(self, question, text, sizes):
        return parse_values(text)

    def truth(self, question, tensors, sizes) -> Truth:
        array = probe_slice(tensors, question.probe)
        if array.size > MAX_VALUES:
            raise QuestionError(f"{question.probe} selects {array.size} values; ask for at most {MAX_VALUES}")
        return with_reveal(question, tensors, array.ravel(), format_values(array), array, question.probe)

    def matches(self, question, given: list[float], truth: Truth) -> bool:
        return all_close(given, np.asarray(truth.value, dtype=float).ravel(), question.tolerance)

    def nudge(self, question, given: list[float], truth: Truth) -> str:
        expected = np.asarray(truth.value, dtype=float).ravel()
        if len(given) != expected.size:
            return _("This slice holds {count} values; you gave {given}.").format(count=expected.size, given=len(given))
        if _is_distribution(expected) and not close(sum(given), 1.0, max(question.tolerance, 0.01)):
            return _("The real values add up to 1; yours add up to {total}.").format(
                total=format_number(round(sum(given), 4)))
        wrong = [(g, e) for g, e in zip(given, expected) if not close(g, e, question.tolerance)]
        if len(wrong) == 1:
            return _("One of the {count} values is off: {direction}").format(
                count=expected.size, direction=direction_nudge(*wrong[0], question.tolerance).lower())
        return _("{wrong} of the {count} values are off.").format(wrong=len(wrong), count=expected.size)

    def closeness(self, question, truth, given=None):
        expected = np.asarray(truth.value, dtype=float).ravel()
        pairs = () if given is None else tuple(zip(given, expected))
        return tolerance_in_words(question.tolerance, False, given=pairs)

    def check_answer(self, question, truth: Truth, tensors, sizes, own_sizes: bool) -> list[AuthorProblem]:
        if question.answer is None or not own_sizes:
            return []
        given = []
        for j, entry in enumerate(question.answer):
            try:
                given.append(parse_number(str(entry)))
            except AnswerError as error:
                return [AuthorProblem(("answer", j), M_("{error}; write a number such as 0.25, 1/4, -inf, nan", error=message_of(error)))]
        expected = np.asarray(truth.value, dtype=float).ravel()
        if len(given) != expected.size:
            return [AuthorProblem(("answer",), M_("answer has {given} values but {probe} selects {count}: {truth}",
                                                  given=len(given), probe=question.probe, count=expected.size,
                                                  truth=truth.display))]
        if not all_close(given, expected, question.tolerance):
            return [AuthorProblem(("answer",), M_("answer disagrees with the model beyond the tolerance {tolerance}: the "
                                                  "model gives {values}", tolerance=format_number(question.tolerance),
                                                  values=format_values(expected)))]
        return []

    def check_text(self, question):
        problem = precision_problem(question.prompt, question.tolerance, False)
        return [AuthorProblem(("tolerance",), problem, warning=True)] if problem else []

    def distinctive(self, question, truth):
        """A list counts when one of its values is not round."""
        return any(distinctive_number(float(v)) for v in np.asarray(truth.value, dtype=float).ravel())

    def shown_in(self, question, text, truth):
        return values_shown(text, truth.value, question.tolerance)

    def reads(self, question):
        return probe_read(question)

    def shown_on_reveal(self, question, truth, reveal, tensors, sizes):
        if values_on_screen(reveal.array, truth.value, question.tolerance):
            return M_("the values of {probe}, in order", probe=question.probe)
        return None

    def nonfinite(self, question, truth):
        return not question.nonfinite and not bool(np.all(np.isfinite(np.asarray(truth.value, dtype=float))))

    def axes(self, question, tensors, sizes):
        return tuple(probe_slice(tensors, question.probe).shape)

    def axes_read_alike(self, question, tensors, a, b):
        """Values typed in the other axis order are the same list only when they are symmetric across the two."""
        values = np.asarray(probe_slice(tensors, question.probe), dtype=float)
        return bool(np.array_equal(values, np.swapaxes(values, a, b), equal_nan=True))

    def answer_format(self):
        return N_("Values: 1, 2.5, -inf, nan")


KIND = ValuesKind()
