"""kind: shape — the learner predicts a probe's concrete shape, e.g. (1, 4, 4, 4)."""
from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field

from tutor.common.i18n import M_, N_, _
from tutor.grading.answer_text import shape_shown
from tutor.grading.answers import AnswerError, parse_shape
from tutor.grading.fields import ProbeRefText, QuestionBase
from tutor.grading.kinds.base import AuthorProblem, QuestionKind, Truth, probe_read, shape_nudge, with_reveal
from tutor.grading.reveal_shows import shape_on_reveal
from tutor.grading.tensor_access import probe_slice


class ShapeQuestion(QuestionBase):
    kind: Literal["shape"]
    probe: ProbeRefText
    answer: list[Annotated[int, Field(ge=0)]] | None = None


class ShapeKind(QuestionKind[ShapeQuestion, tuple[int, ...]]):
    name = "shape"
    order = 10
    question = ShapeQuestion
    answer_has_axes = True
    answer_is_a_shape = True
    repeat_is_predicted = True   # a shape that stays the same was predicted the first time

    def parse(self, question, text, sizes):
        try:
            return parse_shape(text)
        except AnswerError:
            named = [name for name in re.findall(r"[A-Za-z_]\w*", text if isinstance(text, str) else "")
                     if name in (sizes or {})]
            if not named:
                raise
            # a learner who writes (B, L, 1) knows the axes; the question asks them at the sizes on
            # screen, and saying which sizes those are would be the answer, so it says where to look
            raise AnswerError(_("{name} is a size's name; this question asks for the sizes themselves, as "
                                "numbers (they are shown with the question)").format(name=repr(named[0]))) from None

    def truth(self, question, tensors, sizes) -> Truth:
        array = probe_slice(tensors, question.probe)
        shape = tuple(int(s) for s in array.shape)
        return with_reveal(question, tensors, shape, str(shape), array, question.probe)

    def matches(self, question, given, truth):
        return given == truth.value

    def nudge(self, question, given, truth):
        return shape_nudge(given, truth.value)

    def check_answer(self, question, truth: Truth, tensors, sizes, own_sizes: bool) -> list[AuthorProblem]:
        if question.answer is None or not own_sizes or tuple(question.answer) == truth.value:
            return []
        return [AuthorProblem(("answer",), M_("answer {answer} disagrees with the model: {probe} has shape {shape}; "
                                              "correct the answer or remove it", answer=tuple(question.answer),
                                              probe=question.probe, shape=truth.value))]

    def shown_in(self, question, text, truth):
        return shape_shown(text, truth.value)

    def reads(self, question):
        return probe_read(question)

    def shown_on_reveal(self, question, truth, reveal, tensors, sizes):
        return shape_on_reveal(reveal, truth.value)

    def axes(self, question, tensors, sizes):
        return tuple(probe_slice(tensors, question.probe).shape)

    def answer_format(self):
        return N_("Shapes: 2x3x4 or (2, 3, 4)")


KIND = ShapeKind()
