"""Does a revealed tensor answer a later question before the learner predicts it?

The text leak check (:mod:`tutor.live.leaks`) reads what the lesson *says*; this one reads
what the lesson *shows*: after each answer the screen reveals a tensor, built here by the same
function the lesson screen calls (:func:`tutor.grading.reveal_focus.question_reveal`) on the
live model, so what is checked is what a learner sees.  A reveal gives a later question away
when it shows

- the data the later answer is computed from: every cell of its probe slice (a count, an
  argmin, a mean or a choice rule read off a table the learner can scroll through), or every
  slice its choice rule reads;
- its shape, in the view's header (``shape (2, 2, 4, 4)``);
- its symbolic shape, in the view's axis names (``axes (batch, head, query, key)`` is
  ``(B, H, L, L)``);
- its values, in order, as the view writes its numbers;
- for a choice decided by a sign, the gap between two values on screen that the rule reads.

A later shape the learner already predicted in an earlier question (a shape that stays the
same) gives nothing away.  Which cells an answer is read from, what else on a reveal writes it
and whether a repeat counts as predicted are each question kind's hooks (``reads``,
``shown_on_reveal``, ``repeat_is_predicted``; searches in tutor.grading.reveal_shows), so a new
kind brings its reveal check with it.  No Textual, no torch: the live tensors arrive as numpy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutor.live.leaks import question_label
from tutor.common.i18n import M_
from tutor.grading.kinds import kind_of
from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref
from tutor.grading.reveal_focus import Reveal, question_reveal


@dataclass(frozen=True)
class RevealLeak:
    loc: tuple          # the field that puts the tensor on screen: show, probe or the choice rule
    revealed_by: int    # the question whose reveal shows it
    question: int       # the later question it answers
    shown: str          # what on screen gives the answer

    def message(self, lesson) -> str:
        earlier, later = lesson.questions[self.revealed_by], lesson.questions[self.question]
        return M_("the reveal of {earlier} shows {shown}, which answers {later} before it is asked; give question "
                  "{earlier_number} a show: slice that leaves it out (show: limits the view to that slice), or ask "
                  "question {later_number} first", earlier=question_label(self.revealed_by, earlier.id),
                  shown=self.shown, later=question_label(self.question, later.id),
                  earlier_number=self.revealed_by + 1, later_number=self.question + 1)


def reveal_field(question) -> tuple:
    """The field a reveal's tensor comes from, where the author changes what is shown: the
    ``show:`` slice, else the probe, else (a choice) the rule in its answer."""
    if question.show:
        return ("show",)
    return ("probe",) if getattr(question, "probe", None) else ("answer",)


def find_reveal_leaks(lesson, tensors, sizes, truths: dict[int, object], token_labels=(),
                      both_ways: bool = False) -> list[RevealLeak]:
    """Every later question whose answer an earlier question's revealed tensor shows.

    ``both_ways``: every other question, earlier ones too, and none excused as predicted before;
    for the learner's runtime (tutor.session.look_ahead), where a learner may skip ahead, and whether
    an equal answer was predicted depends on what they have tried."""
    leaks = []
    for i, truth in sorted(truths.items()):
        question = lesson.questions[i]
        if truth.tensor is None:
            continue
        try:
            reveal = question_reveal(question, truth.tensor_label, tensors, sizes, token_labels)
        except (ProbeRefError, ValueError, IndexError):
            continue   # the live check reports a slice that does not fit
        if reveal is None:
            continue
        on_screen = _cells_on_screen(reveal, tensors)
        for k in sorted(j for j in truths if (j != i if both_ways else j > i)):
            if not both_ways and _predicted_before(lesson, truths, k):
                continue
            shown = _gives_away(reveal, on_screen, lesson.questions[k], truths[k], tensors, sizes)
            if shown:
                leaks.append(RevealLeak(("questions", i) + reveal_field(question), i, k, shown))
    return leaks


def _cells_on_screen(reveal: Reveal, tensors) -> tuple[str, np.ndarray]:
    """(probe name, a mask over the whole probe of the cells the view can scroll to)."""
    name = parse_probe_ref(reveal.reference).name
    mask = np.zeros(np.shape(tensors[name]), dtype=bool)
    mask[reveal.view] = True
    return name, mask


def _gives_away(reveal: Reveal, on_screen, question, truth, tensors, sizes) -> str | None:
    """In words, what on screen answers ``question``: every cell its kind reads, or whatever else
    the kind finds on a reveal (a shape in the header, symbols in the axis names, ...)."""
    name, mask = on_screen
    kind = kind_of(question)
    reads = kind.reads(question)
    if reads and all(_within(reference, name, mask, tensors) for reference in reads):
        return M_("every value of {names}", names=", ".join(reads))
    return kind.shown_on_reveal(question, truth, reveal, tensors, sizes)


def _within(reference: str, name: str, mask: np.ndarray, tensors) -> bool:
    """Whether every cell ``reference`` selects is among the cells on screen."""
    try:
        ref = parse_probe_ref(reference)
    except ProbeRefError:
        return False
    if ref.name != name or ref.name not in tensors:
        return False
    wanted = np.zeros(mask.shape, dtype=bool)
    try:
        wanted[ref.index] = True
    except (IndexError, ValueError):
        return False
    return bool(wanted.any() and not (wanted & ~mask).any())


def _predicted_before(lesson, truths, k: int) -> bool:
    """The learner already predicted question k's answer in an earlier question of its kind, and
    the kind counts a repeat as predicted (a shape that stays; numbers do not: two answers that
    are both 1 are a coincidence, not a prediction)."""
    question, truth = lesson.questions[k], truths[k]
    kind = kind_of(question)
    if not kind.repeat_is_predicted:
        return False
    return any(lesson.questions[j].kind == question.kind and
               kind.same_answer(question, truth, lesson.questions[j], truths[j]) for j in truths if j < k)
