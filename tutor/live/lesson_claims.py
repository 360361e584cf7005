"""Does a lesson's text hold on one run of the model?  The claims half of the live check.

Why it lives here and not with the author's checker: the lesson screen asks the same question on
the learner's own weights (:func:`broken_claims`), at run time, and the runtime does not import
``tutor.authoring`` (the author's command-line side).  ``tutor lessons check``
(tutor.authoring.check_live) extends :class:`tutor.live.claims_check.ClaimsChecker` with what only an author needs: file
positions, warnings about later prompts and long right choices, and the translations beside the file.

A lesson about a trained model is written and checked on the shipped checkpoint: its stated
answers (``answer:``), its formula and its give-away checks all hold there.  A learner who
trained for a minute meets the same prose ("p('3') is practically 1") on a model that does not
do that yet: the questions are still graded on their model, but the text around them is no
longer true, and a hint may point the wrong way.  ``model.requires`` cannot say how much
training a claim needs, and no author could guess it; the lesson's own claims can say it.  So
the claims run again on the learner's model, at the lesson's own sizes, and the lesson screen
says which parts may not hold, without saying what any answer is.  A question whose answer the
text or an earlier reveal shows on this model is not scored there (the lesson screen refuses the
try, free, and offers the shipped model).
"""
from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class Collected:
    """The fields of what does not hold, with no file to place them in."""

    problems: list[tuple] = field(default_factory=list)

    def add(self, loc: tuple, message: str, at: tuple[int, int] | None = None) -> None:
        self.problems.append(tuple(str(part) for part in loc))

    def warn(self, loc: tuple, message: str, at: tuple[int, int] | None = None) -> None:
        """Warnings are the author's to weigh, never a claim that fails."""


def broken_claims(lesson: "Lesson", live) -> BrokenClaims:
    """The lesson's claims checked on ``live``, which must be computed at the lesson's own sizes
    (an author's ``answer:`` is written for those).  The checker loads numpy and SymPy, so it is
    imported here, in the lesson's worker, not when the lesson screen is first drawn."""
    from tutor.live.claims_check import ClaimsChecker

    collected = Collected()
    checker = ClaimsChecker(lesson, live, collected, "", own_sizes=True)
    checker.run(formula_ok=True)
    given_away = {index + 1 for index in checker.given_away}
    questions, formula = set(), False
    for parts in collected.problems:
        if len(parts) > 2 and parts[2] in QUESTION_TESTS:
            continue   # how the grader grades the author's test answers is no claim of the lesson's text
        if parts[0] == "questions" and len(parts) > 1 and parts[1].isdigit():
            questions.add(int(parts[1]) + 1)
        elif parts[0] == "formula":
            formula = True
    questions |= given_away   # a give-away found in the explanation is pinned there, not at its question
    return BrokenClaims(tuple(sorted(questions)), formula, tuple(sorted(given_away)))
