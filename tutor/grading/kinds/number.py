"""kind: number — one value, read from a probe (reduced if need be) or, rarely, written by the author."""
from __future__ import annotations

import math

import numpy as np

from tutor.common.i18n import M_, N_, _, message_of, ngettext

from typing import Literal, Union

from pydantic import Field, model_validator

from tutor.grading.answer_text import number_shown
from tutor.grading.arithmetic_text import computations
from tutor.grading.answers import AnswerError, parse_number
from tutor.grading.compare import absolute_tolerance, close
from tutor.grading.fields import OptionalProbeRef, QuestionBase, Reducer, ShortText, Strict
from tutor.grading.kinds.base import AuthorProblem, QuestionKind, Truth, probe_read, with_reveal
from tutor.grading.number_format import format_number, tolerance_in_words
from tutor.grading.round_numbers import distinctive_number
from tutor.grading.stated_precision import precision_problem, rounded_short, stated_decimals
from tutor.grading.tensor_access import probe_slice, reduce_slice

COUNTING = ("count_zero", "count_nonzero", "argmax", "argmin", "numel")


class NumberMistake(Strict):
    """A value a known slip leads to, and the author's sentence for it: nu-init-scale's s² = 2500, the
    lesson's main point without the ε correction, heard only "Too low" (r8ca). Read like a learner's
    answer (``2500``, ``1/4``, ``-inf``); matched within the question's own tolerance."""
    value: Union[float, str]
    says: ShortText

    @model_validator(mode="after")
    def _readable(self):
        try:
            parse_number(str(self.value))
        except AnswerError as error:
            raise ValueError(M_("{error}; write a number such as 2500, 1/4, -inf", error=message_of(error))) from None
        if "{{" in self.says:
            raise ValueError(M_("says: is shown as written: live numbers ({{{{ … }}}}) are not filled in there"))
        return self


class NumberQuestion(QuestionBase):
    kind: Literal["number"]
    probe: OptionalProbeRef = None
    reduce: Reducer = "value"
    tolerance: float = Field(0.05, ge=0, le=1e6, allow_inf_nan=False)
    relative: bool = False
    answer: Union[float, str, None] = None
    nonfinite: bool = False   # the truth may be nan or ±inf on purpose
    categorical: bool = False   # the number names one of several things (a token id, a position): no higher/lower
    reject: list[NumberMistake] = Field(default_factory=list, max_length=10)   # known slips, each with its sentence

    @model_validator(mode="after")
    def _needs_a_source(self):
        if self.probe is None and self.answer is None:
            raise ValueError(M_("a number question needs a probe (preferred) or an answer"))
        return self


def _tolerance(question, expected: float) -> float:
    return absolute_tolerance(question.tolerance, question.relative, expected)


def _mistake_said(question, given: float) -> str | None:
    """The author's sentence for the known slip ``given`` lands on, if any."""
    for mistake in getattr(question, "reject", ()):
        value = parse_number(str(mistake.value))
        if close(given, value, _tolerance(question, value)):
            return mistake.says
    return None


def direction_nudge(given: float, expected: float, tolerance: float = 0.0) -> str:
    """Too high / too low / about 10x off / the sign; shared with values. Never the value itself.

    "Check the sign" only where the sign is all that is wrong (``-given`` is within ``tolerance``):
    an answer of 0 up to rounding (ca-chain-rule's row sum, -3e-9 here) sent every positive guess,
    1 or 96 alike, to look at its sign (issue 31). Between nan and ±inf the nudge says which one the
    answer is not, never which it is: with three such answers, naming the truth handed it over with tries
    left (r8copr: pr-padding-mask's empty row heard "(nan)" after a first try of inf)."""
    if math.isnan(expected):
        return _("Not an infinity.") if math.isinf(given) else \
            _("Think about what this operation gives for these inputs: is it an ordinary number at all?")
    if math.isinf(expected) and math.isnan(given):
        return _("Not nan: the result here is defined.")
    if math.isinf(expected) and math.isfinite(given):
        return _("The result here is not an ordinary number.")
    if math.isnan(given) or (math.isinf(given) and math.isfinite(expected)):
        return _("The result here is an ordinary number.")
    if given != 0 and expected != 0 and math.isfinite(given) and math.isfinite(expected):
        if (given > 0) != (expected > 0):
            if close(-given, expected, tolerance):
                return _("Check the sign.")
            return _("Too high.") if given > expected else _("Too low.")
        ratio = given / expected   # a slipped decimal point is 10× give or take rounding; 8× is another mistake
        if 9 <= ratio <= 11:
            return _("About 10× too large.")
        if 1 / 11 <= ratio <= 1 / 9:
            return _("About 10× too small.")
    return _("Too high.") if given > expected else _("Too low.")


class NumberKind(QuestionKind[NumberQuestion, float]):
    name = "number"
    order = 30
    question = NumberQuestion

    def parse(self, question, text, sizes):
        return parse_number(text)

    def truth(self, question, tensors, sizes) -> Truth:
        if question.probe is None:
            value = parse_number(str(question.answer))
            return with_reveal(question, tensors, value, format_number(value), None, "")
        value = reduce_slice(tensors, question.probe, question.reduce)
        return with_reveal(question, tensors, value, format_number(value), probe_slice(tensors, question.probe),
                           question.probe)

    def matches(self, question, given: float, truth: Truth) -> bool:
        expected = float(truth.value)
        return close(given, expected, _tolerance(question, expected))

    def nudge(self, question, given: float, truth: Truth) -> str:
        """An index or a token id names a thing, not an amount: "too high" would only help to bisect."""
        if getattr(question, "reduce", None) in ("argmax", "argmin"):
            return _("Not that index; compare the values it is chosen from again.")
        if getattr(question, "categorical", False):
            return _("Not that one; look again at what it is chosen from.")
        if said := _mistake_said(question, given):
            return said
        expected = float(truth.value)
        if (places := rounded_short(question.prompt, given, expected)) is not None:
            # "right to", not "the value to": 0.0020 for 0.002056 has 4 decimals, only 3 of them right (r10op)
            return ngettext("That is right to {places} decimal; the question asks for {count}.",
                            "That is right to {places} decimals; the question asks for {count}.", places).format(
                places=places, count=stated_decimals(question.prompt))
        return direction_nudge(given, expected, _tolerance(question, expected))

    def closeness(self, question, truth: Truth, given: float | None = None) -> str:
        expected = float(truth.value)
        pairs = () if given is None else ((given, expected),)
        return tolerance_in_words(question.tolerance, question.relative, expected, pairs)

    def check_answer(self, question, truth: Truth, tensors, sizes, own_sizes: bool) -> list[AuthorProblem]:
        problems = [AuthorProblem(("reject", i, "value"), M_("reject value {value} is graded right on this model "
                                                              "({truth}), so its says: sentence is never read",
                                                              value=str(mistake.value), truth=truth.display))
                    for i, mistake in enumerate(question.reject)
                    if own_sizes and self.matches(question, parse_number(str(mistake.value)), truth)]
        if question.answer is None or question.probe is None or not own_sizes:
            return problems
        try:
            given = parse_number(str(question.answer))
        except AnswerError as error:
            return problems + [AuthorProblem(("answer",), M_("{error}; write a number such as 0.25, 1/4, -inf, nan",
                                                              error=message_of(error)))]
        if self.matches(question, given, truth):
            return problems
        return problems + [AuthorProblem(("answer",), M_("answer {given} disagrees with the model: {reduce} of {probe} is {truth} "
                                              "(tolerance {tolerance})", given=format_number(given), reduce=question.reduce,
                                              probe=question.probe, truth=truth.display,
                                              tolerance=format_number(_tolerance(question, float(truth.value)))))]

    def check_text(self, question):
        problem = precision_problem(question.prompt, question.tolerance, question.relative)
        return [AuthorProblem(("tolerance",), problem, warning=True)] if problem else []

    def nonfinite(self, question, truth: Truth) -> bool:
        return not question.nonfinite and not np.isfinite(float(truth.value))

    def shown_in(self, question, text: str, truth: Truth) -> tuple[int, int] | None:
        """A sum may be stated by 'sums to 1'; a count or an index is never a small whole number in prose."""
        found = number_shown(text, float(truth.value), is_sum=question.reduce == "sum",
                             counting=question.reduce in COUNTING)
        return (found.start, found.end) if found else None

    def distinctive(self, question, truth):
        return distinctive_number(float(truth.value))

    def computed_in(self, question, text: str, truth: Truth) -> tuple[int, int] | None:
        """Arithmetic whose result is the answer within its tolerance (tutor.grading.arithmetic_text)."""
        return next(((found.start, found.end) for found in computations(text)
                     if self.matches(question, found.value, truth)), None)

    def reads(self, question):
        return probe_read(question)

    def answer_format(self):
        return N_("Numbers: 64, 0.25, 1/4, 25%, 1e-3")


KIND = NumberKind()
