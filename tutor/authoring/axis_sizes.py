"""Do the lesson's sizes tell its axes apart?

With B = H = 2 and L = D_head = 4, queries, scores, pattern and z are all (2, 2, 4, 4): a
learner who swaps the head and batch axes, or who thinks Q·Kᵀ is (D_head, D_head), types the
right numbers and is graded right.  The checker runs the lesson a second time at sizes where
every size name differs (``check_live.distinguishing_sizes``), so each axis of a question's
truth is known by what it becomes there; two axes of the same size at the lesson's own sizes
that are different axes there make the question unable to tell the arrangements apart.

Each kind says what its answer's axes are (``QuestionKind.axes``: a shape's, the shape a
symbolic answer gives, a values slice's) and whether its answer reads the same with two of them
swapped (``axes_read_alike``: a shape always; values only when symmetric across the two).

No Textual, no torch: both runs arrive as numpy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass


from tutor.common.i18n import M_
from tutor.live.leaks import question_label
from tutor.grading.answers import AnswerError
from tutor.grading.kinds import kind_of
from tutor.grading.tensor_access import QuestionError

SIZE_NAMES = ("B", "L", "H", "D_head", "D", "V", "N", "T")


@dataclass(frozen=True)
class SameSizes:
    index: int                        # the question
    axes: tuple[int, int]             # two axes that are different, of the same size here
    size: int                         # that size
    names: tuple[str, str]            # what each axis is, from the distinguishing run

    def message(self, lesson) -> str:
        question = lesson.questions[self.index]
        first, second = self.names
        return M_("{question} cannot tell its axes apart: axes {a} ({first}) and {b} ({second}) are both {size} at "
                  "the lesson's sizes, so an answer with them the other way round is graded right; choose sizes where "
                  "every named axis differs (model.text rows and length for B and L; d_model and n_head for D, H and "
                  "D_head)", question=question_label(self.index, question.id), a=self.axes[0], first=first,
                  b=self.axes[1], second=second, size=self.size)


def axes_of(question, tensors, sizes) -> tuple[int, ...] | None:
    """The lengths of the question's axes with these tensors and sizes (None: its answer has none)."""
    try:
        return kind_of(question).axes(question, tensors, sizes)
    except (AnswerError, QuestionError):
        return None


def same_size_axes(lesson, own, distinct) -> list[SameSizes]:
    """Questions whose axes share a size at the lesson's own sizes but not at distinguishing ones.

    ``own`` and ``distinct`` are runs of the lesson's model (``.tensors``, ``.sizes``)."""
    found = []
    for index, question in enumerate(lesson.questions):
        here = axes_of(question, own.tensors, own.sizes)
        there = axes_of(question, distinct.tensors, distinct.sizes)
        if not here or not there or len(here) != len(there):
            continue
        for a in range(len(here)):
            pair = next((b for b in range(a + 1, len(here)) if here[a] == here[b] and there[a] != there[b]), None)
            if pair is None or not kind_of(question).axes_read_alike(question, own.tensors, a, pair):
                continue
            names = (_size_name(there[a], distinct.sizes), _size_name(there[pair], distinct.sizes))
            found.append(SameSizes(index, (a, pair), here[a], names))
            break
    return found


def _size_name(length: int, sizes) -> str:
    names = [name for name in SIZE_NAMES if sizes.get(name) == length]
    if names:
        return names[0]
    if length == 4 * sizes.get("D", 0):
        return "4D"
    return M_("size {length} there", length=length)
