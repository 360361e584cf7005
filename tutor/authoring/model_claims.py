"""Does the learner's own model still do what a lesson's text says it does?

A lesson about a trained model is written and checked on the shipped checkpoint: its stated
answers (``answer:``), its formula and its give-away checks all hold there.  A learner who
trained for a minute meets the same prose ("p('3') is practically 1") on a model that does not
do that yet: the questions are still graded on their model, but the text around them is no
longer true, and a hint may point the wrong way.  ``model.requires`` cannot say how much
training a claim needs, and no author could guess it; the lesson's own claims can say it.  So
the live half of ``tutor lessons check`` runs again on the learner's model, at the lesson's own
sizes, and the lesson screen says which parts may not hold, without saying what any answer is.
A question whose answer the text or an earlier reveal shows on this model is not scored there
(the lesson screen refuses the try, free, and offers the shipped model).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tutor.course.schema import Lesson


QUESTION_TESTS = ("accept", "reject", "wrong")   # a formula question's own tests (a nudge's word may follow the model)


@dataclass(frozen=True)
class BrokenClaims:
    """Where the lesson's text stops being true on this model: question numbers (1-based) and the
    formula; and the questions whose answer the text or an earlier reveal already shows on it."""

    questions: tuple[int, ...] = ()
    formula: bool = False
    given_away: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.questions) or self.formula


def broken_claims(lesson: "Lesson", live) -> BrokenClaims:
    """The lesson's claims checked on ``live``, which must be computed at the lesson's own sizes
    (an author's ``answer:`` is written for those).  The checker loads numpy and SymPy, so it is
    imported here, in the lesson's worker, not when the lesson screen is first drawn."""
    from tutor.authoring.check_live import LiveChecker
    from tutor.authoring.pinned import Pinned

    pinned = Pinned(Path(), None)   # no file: problems are only collected, and translations are not re-read
    checker = LiveChecker(lesson, live, pinned, "", own_sizes=True)
    checker.run(formula_ok=True)
    given_away = {index + 1 for index in checker.given_away}
    questions, formula = set(), False
    for problem in pinned.problems:
        parts = problem.field.split(".")
        if len(parts) > 2 and parts[2] in QUESTION_TESTS:
            continue   # how the grader grades the author's test answers is no claim of the lesson's text
        if parts[0] == "questions" and len(parts) > 1 and parts[1].isdigit():
            questions.add(int(parts[1]) + 1)
        elif parts[0] == "formula":
            formula = True
    questions |= given_away   # a give-away found in the explanation is pinned there, not at its question
    return BrokenClaims(tuple(sorted(questions)), formula, tuple(sorted(given_away)))
