"""The box rule: the formula box stays folded while it would answer a question not yet finished.

Why: the formula and its "In words" line sit above every question of a lesson, so a box that
writes question 4's answer hands it to a learner reading question 1 (the leak unseen readers
met most: it-bits' box −Σ ln p is one division from the bits question).  Moving every formula
below its questions would take the lesson's summary away from the ones it does not answer;
folding only the boxes that answer something keeps the rest.

Which questions a box answers is tutor.live.box_leaks's analysis, run on the learner's own
draw in the lesson's worker (with the look-ahead rule's).  The box opens once each of them is
resolved (right, out of tries, given up, or its answer seen), not at the first wrong try: the loop is
predict, try again, then reveal, and a box opened after the first try turned the second into copying
it (unseen readers r4fa, r4ca, fixca; la-scaled-scores' Q·Kᵀ/√d_k stood above "2 tries left").  It opens
at once for a learner who reopens a finished lesson; a Review card folds
it again while the card's own question is open.  A box the author pins as the lesson's given
(``formula.given``) is always shown; ``lessons check`` warns about it.  Until the analysis
arrives the box is folded, unless nothing is left to give away.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor.progress.service import ProgressService


@dataclass(frozen=True)
class Fold:
    """What the formula box shows now: itself (``shown``), or a fold line naming question ``after``
    (0-based) that must be finished first; ``after`` is None while the live analysis is not ready."""

    shown: bool
    after: int | None = None


def formula_fold(progress: ProgressService, lesson, answers: tuple[int, ...] | None,
                 reviewing: int | None = None) -> Fold:
    """The box for ``lesson`` now.  ``answers``: the questions it answers on this draw (None while the
    lesson's worker computes them); ``reviewing``: the index of a Review card's question whose review
    encounter is still open."""
    if getattr(lesson.formula, "given", False):
        return Fold(True)
    waiting = {i for i, question in enumerate(lesson.questions) if not finished(progress, lesson.id, question.id)}
    if reviewing is not None:
        waiting.add(reviewing)
    if not waiting:
        return Fold(True)   # a finished lesson reopened: nothing left to give away
    if answers is None:
        return Fold(False)
    left = sorted(waiting.intersection(answers))
    return Fold(True) if not left else Fold(False, left[-1])


def finished(progress: ProgressService, lesson_id: str, question_id: str) -> bool:
    """The question is resolved: got, out of tries, given up, or its answer seen elsewhere."""
    record = progress.store.question_record(lesson_id, question_id)
    return record is not None and record.resolved
