"""The look-ahead rule: an answer seen before its question is tried is not a first attempt.

Why: Ctrl+N skips a question for free, and a later question's reveal (or its prompt, or a hint)
often answers an earlier one: on la-tensors as it was (tests/fixtures/lessons/fixture-tensors.yaml),
Ctrl+N ×3 and Ctrl+G on question 4 reveal the shape (2, 4, 8) that question 1 asks for, and Ctrl+B then earned "right first time" for reading
it (2026-12-adversary.md F1).  Skipping stays free; seeing is what counts.  When something on
screen shows the answer of a question the learner has not tried yet, that question is resolved
as not got (answer seen), which gives it a review card, and the screen says so when the learner
comes back.

What shows which answer is the lesson checker's own analysis (tutor.live.leaks and
tutor.live.reveal_leaks), run both ways round (a later question's screen may answer an earlier
one) on the learner's own tensors: computed once per lesson and draw, in the lesson's worker.
An answer equal to one the learner has already tried elsewhere in the lesson is no give-away
(the text check: any kind's equal answer; a reveal: a kind that counts a repeat as predicted,
a shape that stays).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from tutor.grading.kinds import kind_of
from tutor.grading.quiz import QuestionError, truth_for


class Where(str, Enum):
    """Which part of a question's screen shows another question's answer."""

    PROMPT = "prompt"
    HINT = "hint"
    REVEAL = "reveal"


@dataclass(frozen=True)
class Sight:
    """Question ``shown_by``'s ``where`` (hint number ``hint``, counted from 0) shows ``question``'s answer."""

    shown_by: int
    where: Where
    question: int
    hint: int = 0


@dataclass(frozen=True)
class LookAhead:
    """For one lesson and draw: what each question's screen shows of the others' answers, and for
    each question the others whose equal answer, once tried, makes seeing it no give-away."""

    sights: tuple[Sight, ...] = ()
    text_equals: dict[int, tuple[int, ...]] = field(default_factory=dict)
    reveal_equals: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def shown(self, index: int, where: Where, hints: int = 0) -> list[Sight]:
        """The sights of question ``index``'s ``where``; for hints, the first ``hints`` of them."""
        return [s for s in self.sights if s.shown_by == index and s.where is where and
                (where is not Where.HINT or s.hint < hints)]

    def excused_by(self, sight: Sight) -> tuple[int, ...]:
        table = self.reveal_equals if sight.where is Where.REVEAL else self.text_equals
        return table.get(sight.question, ())


def _where(loc: tuple) -> tuple[Where, int]:
    if loc[2] == "hints":
        return Where.HINT, loc[3]
    return (Where.REVEAL, 0) if loc[2] == "reveal" else (Where.PROMPT, 0)


def look_ahead(lesson, live) -> LookAhead:
    """Every sight of one answer on another question's screen, for this lesson on ``live``.  Run in
    the lesson's worker: the leak searches are imported here, not when the lesson screen is drawn."""
    from tutor.live.leaks import answers_in_questions
    from tutor.live.reveal_leaks import find_reveal_leaks

    tensors, sizes = live.tensors, live.sizes
    truths = {}
    for i, question in enumerate(lesson.questions):
        try:
            truths[i] = truth_for(question, tensors, sizes)
        except QuestionError:
            continue   # the lesson screen says so at that question
    sights = set()
    for leak in answers_in_questions(lesson, tensors, sizes, truths):
        where, hint = _where(leak.loc)
        sights.add(Sight(leak.loc[1], where, leak.question, hint))
    for shown in find_reveal_leaks(lesson, tensors, sizes, truths, live.token_labels, both_ways=True):
        sights.add(Sight(shown.revealed_by, Where.REVEAL, shown.question))
    for i, truth in truths.items():   # the reveal's "Expected" box writes the answer in words
        for j, other in truths.items():
            if j != i and kind_of(lesson.questions[j]).shown_in(lesson.questions[j], truth.display, other):
                sights.add(Sight(i, Where.REVEAL, j))
    text_equals, reveal_equals = {}, {}
    for j, truth in truths.items():
        question = lesson.questions[j]
        kind = kind_of(question)
        same = tuple(m for m in truths if m != j and lesson.questions[m].kind == question.kind and
                     kind.same_answer(question, truth, lesson.questions[m], truths[m]))
        text_equals[j] = same
        reveal_equals[j] = same if kind.repeat_is_predicted else ()
    ordered = sorted(sights, key=lambda s: (s.shown_by, s.where.value, s.hint, s.question))
    return LookAhead(tuple(ordered), text_equals, reveal_equals)
