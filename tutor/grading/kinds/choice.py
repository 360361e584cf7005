"""kind: choice — pick one of a few statements; the right one may be fixed or computed by a rule.

A fixed index is only true for the model the author ran. Where the right statement depends on
the weights, ``answer:`` gives a rule over the live tensors instead (documented in docs/lessons.md):

    {argmax: REF}  /  {argmin: REF}     REF selects one value per choice; the largest/smallest wins
    {sign: REF, positive: i, negative: j[, zero: k][, reduce: R]}
    {cases: [{probe: REF, reduce: R, below|above|at_most|at_least|equals: x, choice: i}, ...], otherwise: j}
"""
from __future__ import annotations

import re
from typing import Annotated, Literal, Union

import numpy as np
from pydantic import Field, PrivateAttr, model_validator

from tutor.common.i18n import M_, N_
from tutor.grading.answer_text import choice_shown
from tutor.grading.answers import AnswerError, parse_choice, parse_number
from tutor.grading.fields import ProbeRefText, QuestionBase, Reducer, ShortText, Strict
from tutor.grading.kinds.base import AuthorProblem, PickOption, QuestionKind, Truth, with_reveal
from tutor.grading.reveal_shows import difference_on_screen
from tutor.grading.round_numbers import distinctive_number
from tutor.grading.tensor_access import QuestionError, probe_slice, reduce_slice

COMPARISONS = {
    "below": lambda value, x: value < x, "above": lambda value, x: value > x,
    "at_most": lambda value, x: value <= x, "at_least": lambda value, x: value >= x,
    "equals": lambda value, x: value == x,
}

ChoiceIndex = Annotated[int, Field(ge=0, le=7)]


class ArgmaxRule(Strict):
    """The choice whose value in the slice is largest (the slice holds one value per choice)."""
    argmax: ProbeRefText


class ArgminRule(Strict):
    argmin: ProbeRefText


class SignRule(Strict):
    """`positive` when the (reduced) value is above 0, `negative` below, `zero` (else `negative`) at 0."""
    sign: ProbeRefText
    reduce: Reducer = "value"
    positive: ChoiceIndex
    negative: ChoiceIndex
    zero: ChoiceIndex | None = None


class RuleCase(Strict):
    probe: ProbeRefText
    reduce: Reducer = "value"
    below: float | None = None
    above: float | None = None
    at_most: float | None = None
    at_least: float | None = None
    equals: float | None = None
    choice: ChoiceIndex

    @model_validator(mode="after")
    def _one_comparison(self):
        given = [n for n in COMPARISONS if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(M_("a case compares once: give exactly one of below, above, at_most, at_least, equals"))
        return self


class CasesRule(Strict):
    """The first case that holds picks its choice; `otherwise` when none does."""
    cases: list[RuleCase] = Field(min_length=1, max_length=8)
    otherwise: ChoiceIndex


AnswerRule = Union[ArgmaxRule, ArgminRule, SignRule, CasesRule]


def _rule_choices(rule) -> list[int]:
    if isinstance(rule, SignRule):
        return [i for i in (rule.positive, rule.negative, rule.zero) if i is not None]
    if isinstance(rule, CasesRule):
        return [case.choice for case in rule.cases] + [rule.otherwise]
    return []


class ChoiceQuestion(QuestionBase):
    kind: Literal["choice"]
    choices: list[ShortText] = Field(min_length=2, max_length=8)
    # each learner sees the choices in an order of their own; this keeps the last one last ("none of these")
    pin_last: bool = False
    # the choices are points on one scale ("below 0.1", "0.1 to 0.5", "above 0.5"): shuffled, a scale reads
    # as a puzzle of its own, so it is shown as written (vary which point is right across questions instead)
    ordered: bool = False
    # shown position -> the author's index, for one learner (ChoiceKind.in_learner_order); None: as written
    _order: tuple[int, ...] | None = PrivateAttr(default=None)
    # a fixed index (counting from 0) only where the answer cannot depend on the weights
    answer: Union[Annotated[int, Field(ge=0)], AnswerRule]

    @model_validator(mode="after")
    def _answer_in_range(self):
        if self.ordered and self.pin_last:
            raise ValueError(M_("ordered keeps every choice where it is written: pin_last has nothing to add"))
        indices = [self.answer] if isinstance(self.answer, int) else _rule_choices(self.answer)
        for index in indices:
            if index >= len(self.choices):
                raise ValueError(M_("answer {index} is not one of the {count} choices (count from 0)", index=index,
                                    count=len(self.choices)))
        return self


def rule_probe(rule) -> str | None:
    """The slice a rule reads: revealed after answering, so the learner sees why the choice is right."""
    for name in ("argmax", "argmin", "sign"):
        if getattr(rule, name, None):
            return getattr(rule, name)
    cases = getattr(rule, "cases", None)
    return cases[0].probe if cases else None


def rule_reads(rule) -> list[str]:
    """Every slice the rule reads (its answer is computed from all of them)."""
    if isinstance(rule, int):
        return []
    if getattr(rule, "cases", None):
        return [case.probe for case in rule.cases]
    return [getattr(rule, name) for name in ("argmax", "argmin", "sign") if getattr(rule, name, None)]


def sign_on_reveal(rule, reveal, tensors) -> str | None:
    sign = getattr(rule, "sign", None)
    if sign and difference_on_screen(reveal.array, tensors, sign, rule.reduce):
        return M_("two values whose difference is {sign}, so its sign", sign=sign)
    return None


def case_holds(case, value: float) -> bool:
    return any(COMPARISONS[name](value, getattr(case, name)) for name in COMPARISONS
               if getattr(case, name, None) is not None)


def answer_index(question, tensors) -> int:
    """The index of the right choice for this model."""
    rule = question.answer
    if isinstance(rule, int):
        return rule
    for name, pick in (("argmax", np.argmax), ("argmin", np.argmin)):
        reference = getattr(rule, name, None)
        if reference:
            values = np.asarray(probe_slice(tensors, reference), dtype=float).ravel()
            if values.size != len(question.choices):
                raise QuestionError(f"{name}: {reference} selects {values.size} values but there are "
                                    f"{len(question.choices)} choices; select one value per choice")
            if not np.all(np.isfinite(values)):
                raise QuestionError(f"{name}: {reference} holds nan or inf; the rule cannot pick a choice")
            return int(pick(values))
    if getattr(rule, "sign", None):
        value = reduce_slice(tensors, rule.sign, rule.reduce)
        if np.isnan(value):
            raise QuestionError(f"sign: {rule.sign} is nan; the rule cannot pick a choice")
        if value == 0 and rule.zero is not None:
            return rule.zero
        return rule.positive if value > 0 else rule.negative
    for case in rule.cases:
        if case_holds(case, reduce_slice(tensors, case.probe, case.reduce)):
            return case.choice
    return rule.otherwise


def shown_order(question) -> list[int]:
    """The author's index of each choice in the order the learner sees them."""
    return list(question._order) if question._order else list(range(len(question.choices)))


def letter(index: int) -> str:
    """How the learner names choice ``index`` (counting from 0): a, b, c …"""
    return chr(ord("a") + index)


def texts_that_pick_another(question: ChoiceQuestion) -> list[AuthorProblem]:
    """A choice whose text is a letter or number that names another choice: typing it picks by
    letter or number, so a learner who types the text they mean is graded on another choice."""
    problems = []
    for j, choice in enumerate(question.choices):
        token = choice.strip().lower()
        if len(token) == 1 and "a" <= token < letter(len(question.choices)):
            picked = ord(token) - ord("a")
        elif token.isdecimal() and 1 <= int(token) <= len(question.choices):
            picked = int(token) - 1
        else:
            continue
        problems.append(AuthorProblem(("choices", j), M_(
            "choice text {text!r} is also how a learner picks choice {letter}) (by its letter or number), so typing "
            "it selects that choice; write it in words or with its unit (e.g. 'exactly {text}', '{text} row')",
            text=choice.strip(), letter=letter(picked))))
    return problems


class ChoiceKind(QuestionKind[ChoiceQuestion, int]):
    name = "choice"
    order = 40
    question = ChoiceQuestion
    prompt_may_show = True                          # a prompt may name the options it offers

    def parse(self, question, text, sizes):
        """A letter or number names a choice in the order shown; the value is the author's index."""
        order = shown_order(question)
        return order[parse_choice(text, [question.choices[i] for i in order])]

    def truth(self, question, tensors, sizes) -> Truth:
        index = answer_index(question, tensors)
        display = f"{letter(shown_order(question).index(index))}) {question.choices[index]}"
        reference = None if isinstance(question.answer, int) else rule_probe(question.answer)
        array = probe_slice(tensors, reference) if reference else None
        return with_reveal(question, tensors, index, display, array, reference or "")

    def matches(self, question, given, truth):
        return given == truth.value

    def nudge(self, question, given, truth):
        return ""

    def attempt_cap(self, question):
        return max(1, len(question.choices) - 1)   # else trying every option wins

    def shown_in(self, question, text, truth):
        return choice_shown(text, question.choices, int(truth.value))

    def reads(self, question):
        return rule_reads(question.answer)

    def shown_on_reveal(self, question, truth, reveal, tensors, sizes):
        return sign_on_reveal(question.answer, reveal, tensors)

    def distinctive(self, question, truth):
        """By the right option's text: a number as a number, words when there are at least three of
        them (an option such as 'Adam' or '10 % or more' is everyone's phrase)."""
        option = question.choices[int(truth.value)].strip()
        try:
            return distinctive_number(parse_number(option))
        except AnswerError:
            return len(re.findall(r"[^\W\d_]{2,}", option)) >= 3 and len(option) >= 16

    def same_answer(self, question, truth, earlier, earlier_truth):
        return False   # the same index is another statement

    def check_text(self, question):
        return texts_that_pick_another(question)

    def options(self, question):
        return [PickOption(letter(shown), question.choices[i], letter(shown))
                for shown, i in enumerate(shown_order(question))]

    def in_learner_order(self, question, rng):
        """Choices shuffled per learner: the right one is not always b for everyone (24 of the 42 fixed
        answers of the course were b), nor in the same place when Review brings the card back.
        A scale (``ordered``) stays a scale, read upwards or downwards: shuffled ranges read as a puzzle of
        their own, but authors put the truth in the second band often enough that "always b" scored half of
        an it set's choices (r8it), so half the learners see it from the other end."""
        if question.ordered:
            if rng.random() < 0.5:
                return question
            flipped = question.model_copy()
            flipped._order = tuple(reversed(range(len(question.choices))))
            return flipped
        movable = list(range(len(question.choices) - (1 if question.pin_last else 0)))
        rng.shuffle(movable)
        ordered = question.model_copy()
        ordered._order = tuple(movable) + ((len(question.choices) - 1,) if question.pin_last else ())
        return ordered

    def answer_format(self):
        return N_("Choices: a, b, c, or pick from the list")


KIND = ChoiceKind()
