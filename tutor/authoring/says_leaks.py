"""A ``says:`` sentence that gives its question's answer away.

A ``reject:`` entry's sentence is what a learner reads after a wrong try (tutor.grading.formula_says),
and the next try is still theirs to make: the sentence may name the mistake, never the formula.
It is searched as a hint is, with the question kind's own searches: the answer as written or as
printed (``shown_in``, the leak check's), or a formula in it that the draws grade right
(``computed_in``, the hint check's).  The same search runs on each translation's sentences.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor.common.i18n import M_
from tutor.grading.formula_says import sentenced
from tutor.grading.kinds import kind_of
from tutor.live.leaks import answer_in, question_label


@dataclass(frozen=True)
class SaysLeak:
    question: int       # the question's index
    entry: tuple        # ("reject", 2): the entry whose sentence it is
    number: int         # its place among the question's sentences (a translation's ``says:`` list)
    offset: int         # where the answer starts in the sentence
    shown: str          # the answer as the sentence writes it

    def message(self, lesson) -> str:
        question = lesson.questions[self.question]
        return M_("the says: sentence of {question}'s {field} entry {number} gives the answer away: {shown!r} is "
                  "graded right; a sentence may name the mistake, but the next try is the learner's",
                  question=question_label(self.question, question.id), field=self.entry[0],
                  number=self.entry[1] + 1, shown=self.shown)


def says_leaks(lesson, truths: dict[int, object]) -> list[SaysLeak]:
    """Every sentence of ``lesson`` (in whichever language it is) that writes its question's answer."""
    found = []
    for index, truth in truths.items():
        question = lesson.questions[index]
        for number, (name, at, entry) in enumerate(sentenced(question)):
            hit = answer_in(entry.says, question, truth)
            span = hit[:2] if hit else kind_of(question).computed_in(question, entry.says, truth)
            if span:
                found.append(SaysLeak(index, (name, at), number, span[0], entry.says[span[0]:span[1]]))
    return found
