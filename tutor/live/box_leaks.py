"""Which questions the lesson's formula box answers: the box rule's analysis.

The formula box and its "In words" line sit above every question, so a box that writes a later
question's answer hands it over before the learner predicts it (unseen readers found this more
often than any other leak: pr-label-smoothing's box held the smoothed target that the gradient
question asks to subtract from p; it-bits' box is −Σ ln p, one division from the bits question).
The lesson screen folds such a box until those questions are finished (tutor.session.formula_fold);
``lessons check`` warns where an author pins it open (``formula.given``).

What the box shows is searched as every other text is (each kind's ``shown_in``, tutor.live.leaks):
the author's source, SymPy's drawing of it and the "In words" line filled with the live numbers.
A formula question is answered too when its answer *contains* the box's formula (the box read in
the question's own symbols): a box that is the answer, or all of it but one step, leaves nothing
to predict.  No Textual, no torch; SymPy is imported by the formula kind's hook.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor.common.i18n import M_
from tutor.grading.answers import AnswerError
from tutor.grading.kinds import kind_of
from tutor.grading.quiz import QuestionError, truth_for
from tutor.live.leaks import answer_in, filled, question_label, raw_offset

FIELDS = (("formula", "expr"), ("formula", "translation"))


@dataclass(frozen=True)
class BoxLeak:
    """The box's ``loc`` field (its source, or its "In words" line) answers question ``question``."""

    loc: tuple
    offset: int        # character offset in the field as written in the file
    question: int
    shown: str         # the answer as it appears, or the box's formula where the answer holds it

    def message(self, lesson) -> str:
        where = M_("the formula box") if self.loc == ("formula", "expr") else M_("the formula's \"In words\" line")
        return M_("{where} states the answer to {question} ({shown!r}) and formula.given keeps it on screen "
                  "before that question is finished; without formula.given the lesson screen folds the box until "
                  "then, or reword it so it does not answer the question", where=where,
                  question=question_label(self.question, lesson.questions[self.question].id), shown=self.shown)


def box_leaks(lesson, tensors, sizes, truths: dict[int, object], drawn: str | None = None) -> list[BoxLeak]:
    """Every question whose answer the box writes (``truths``: index -> live truth, as the leak check
    takes them).  ``drawn`` is SymPy's drawing of the formula where the caller has it (the lesson
    screen's worker renders it anyway), searched as part of the box."""
    spec = lesson.formula
    texts = [(FIELDS[0], spec.expr, []), (FIELDS[1], *filled(spec.translation, tensors, sizes))]
    found = []
    for index, truth in truths.items():
        question = lesson.questions[index]
        hit = next(((loc, raw_offset(h[0], spans), h[2]) for loc, text, spans in texts
                    if (h := answer_in(text, question, truth))), None)
        if hit is None and drawn and (h := answer_in(drawn, question, truth)):
            hit = (FIELDS[0], 0, h[2])
        if hit is None and kind_of(question).holds_formula(question, truth, spec.expr):
            hit = (FIELDS[0], 0, spec.expr)
        if hit:
            found.append(BoxLeak(hit[0], hit[1], index, hit[2]))
    return found


def box_answers(lesson, tensors, sizes, truths: dict[int, object], drawn: str | None = None) -> tuple[int, ...]:
    """The indices of the questions the box answers, in lesson order."""
    return tuple(sorted({leak.question for leak in box_leaks(lesson, tensors, sizes, truths, drawn)}))


def live_box_answers(lesson, live, drawn: str | None = None) -> tuple[int, ...]:
    """The questions the box answers on the learner's own draw (the lesson screen's worker); a question
    the model cannot answer is left out, as the lesson screen says at that question."""
    truths = {}
    for index, question in enumerate(lesson.questions):
        try:
            truths[index] = truth_for(question, live.tensors, live.sizes)
        except (QuestionError, AnswerError):
            continue
    return box_answers(lesson, live.tensors, live.sizes, truths, drawn)
