"""Grading: a learner's text against the truth the live model produced.

The work is done by the question kinds (:mod:`tutor.grading.kinds`); this module is the face the
screens use: compute a truth, grade a text. No Textual and no torch here: the truth arrives as
numpy arrays and plain sizes, so grading is a pure function that tests can drive directly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutor.common.i18n import _

from tutor.grading.kinds import Truth, kind_of
# Callers import these names from here; they live in the modules that own them.
from tutor.grading.number_format import format_number, format_values
from tutor.grading.tensor_access import REDUCERS, QuestionError, probe_slice

__all__ = ["Grade", "QuestionError", "REDUCERS", "Truth", "format_number", "format_values", "grade",
           "probe_slice", "truth_for"]


@dataclass(frozen=True)
class Grade:
    correct: bool
    feedback: str     # "Right (to 2 decimals)." or "Not quite. Too high."; never the answer itself
    expected: str     # the answer in words, for the reveal only


def truth_for(question, tensors: dict[str, np.ndarray], sizes: dict[str, int]) -> Truth:
    """Compute the answer from the live tensors; raise QuestionError when the lesson is wrong."""
    return kind_of(question).truth(question, tensors, sizes)


def grade(question, text: str, truth: Truth, sizes: dict[str, int]) -> Grade:
    """Grade one answer; raises AnswerError when the text cannot be read (the learner retries, free)."""
    kind = kind_of(question)
    given = kind.parse(question, text, sizes)
    if kind.matches(question, given, truth):
        how = kind.closeness(question, truth, given)
        return Grade(True, _("Right ({closeness}).").format(closeness=how) if how else _("Right."), truth.display)
    nudge = kind.nudge(question, given, truth)
    return Grade(False, _("Not quite. {nudge}").format(nudge=nudge) if nudge else _("Not quite."), truth.display)
