"""kind: choice — pick one of a few statements; the right one may be fixed or computed by a rule.

A fixed index is only true for the model the author ran. Where the right statement depends on
the weights, ``answer:`` gives a rule over the live tensors instead (documented in docs/lessons.md):

    {argmax: REF}  /  {argmin: REF}     REF selects one value per choice; the largest/smallest wins
    {sign: REF, positive: i, negative: j[, zero: k][, reduce: R]}
    {cases: [{probe: REF, reduce: R, below|above|at_most|at_least|equals: x, choice: i}, ...], otherwise: j}
"""
from __future__ import annotations

import numpy as np

from tutor.grading.answers import parse_choice
from tutor.grading.kinds.base import QuestionKind, Truth, with_reveal
from tutor.grading.tensor_access import QuestionError, probe_slice, reduce_slice

COMPARISONS = {
    "below": lambda value, x: value < x, "above": lambda value, x: value > x,
    "at_most": lambda value, x: value <= x, "at_least": lambda value, x: value >= x,
    "equals": lambda value, x: value == x,
}


def rule_probe(rule) -> str | None:
    """The slice a rule reads: revealed after answering, so the learner sees why the choice is right."""
    for name in ("argmax", "argmin", "sign"):
        if getattr(rule, name, None):
            return getattr(rule, name)
    cases = getattr(rule, "cases", None)
    return cases[0].probe if cases else None


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


def truth(question, tensors, sizes) -> Truth:
    index = answer_index(question, tensors)
    display = f"{chr(ord('a') + index)}) {question.choices[index]}"
    reference = None if isinstance(question.answer, int) else rule_probe(question.answer)
    array = probe_slice(tensors, reference) if reference else None
    return with_reveal(question, tensors, index, display, array, reference or "")


KIND = QuestionKind(
    name="choice",
    parse=lambda question, text, sizes: parse_choice(text, question.choices),
    truth=truth,
    matches=lambda question, given, truth: given == truth.value,
    nudge=lambda question, given, truth: "",
    attempt_cap=lambda question: max(1, len(question.choices) - 1),   # else trying every option wins
)
