"""kind: symbolic_shape — the learner writes a shape in size names, e.g. (B, H, L, D/H).

Graded by substituting the lesson's sizes, so any equivalent spelling (D/H, D_head) is right, and
on sizes that tell every name apart (tutor.grading.symbolic), so a wrong formula that happens to
agree on the lesson's sizes (H = 1) is still wrong.
"""
from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field

from tutor.common.i18n import M_, N_, _, ngettext
from tutor.grading.answer_text import symbolic_shown
from tutor.grading.answers import AnswerError, parse_symbolic_shape
from tutor.grading.fields import OptionalProbeRef, QuestionBase
from tutor.grading.symbolic import axes_that_differ, same_symbolic_shape
from tutor.grading.kinds.base import AuthorProblem, QuestionKind, Truth, shape_nudge, with_reveal
from tutor.grading.reveal_shows import symbols_on_reveal
from tutor.grading.tensor_access import probe_slice


class SymbolicShapeQuestion(QuestionBase):
    kind: Literal["symbolic_shape"]
    answer: Annotated[str, Field(min_length=2, max_length=100)]
    probe: OptionalProbeRef = None   # checked by substituting the lesson's sizes


class Given(tuple):
    """The learner's shape with these sizes, remembering what they wrote."""

    text: str = ""


def formula_nudge(given: str, answer: str) -> str:
    """Sizes that match here but not as a formula: say which axis would break with other sizes."""
    axes = axes_that_differ(given, answer)
    if not axes:
        return _("Those sizes match here, but your formula would not match with other sizes: "
                 "write each size with its name.")
    return ngettext("Those sizes match here, but axis {axes} would not match with other sizes: "
                    "write each size with its name.",
                    "Those sizes match here, but axes {axes} would not match with other sizes: "
                    "write each size with its name.", len(axes)).format(axes=", ".join(str(a + 1) for a in axes))


def _numbers_only(text: str) -> bool:
    """Sizes written and none named: '(2, 4, 32)', not an empty line (that is 'type an answer first')."""
    return isinstance(text, str) and bool(re.search(r"\d", text)) and not re.search(r"[A-Za-z]", text)


class SymbolicShapeKind(QuestionKind[SymbolicShapeQuestion, Given]):
    name = "symbolic_shape"
    order = 50
    question = SymbolicShapeQuestion
    answer_has_axes = True
    answer_is_a_shape = True
    repeat_is_predicted = True

    def parse(self, question, text: str, sizes) -> Given:
        if _numbers_only(text) and not _numbers_only(question.answer):
            # a shape in numbers read as a try: right on these sizes heard "match here, but…", wrong cost a try,
            # while the shape kind takes '(B, L, 1)' back for free; both now say which form is asked, freely
            raise AnswerError(_("this question asks for the shape in the size names the lesson uses, not in "
                                "numbers: write each axis with its name"))
        given = Given(parse_symbolic_shape(text, sizes))
        given.text = text
        return given

    def truth(self, question, tensors, sizes) -> Truth:
        shape = parse_symbolic_shape(question.answer, sizes)
        reveal = probe_slice(tensors, question.probe) if question.probe else None
        return with_reveal(question, tensors, shape, f"{question.answer} = {shape}", reveal, question.probe or "")

    def matches(self, question, given: Given, truth: Truth) -> bool:
        return tuple(given) == truth.value and same_symbolic_shape(given.text, question.answer)

    def nudge(self, question, given, truth: Truth) -> str:
        if tuple(given) == truth.value:   # right on these sizes only: the order is not what is wrong
            return formula_nudge(given.text, question.answer)
        return _("{nudge} With these sizes yours is {shape}.").format(nudge=shape_nudge(tuple(given), truth.value),
                                                                     shape=tuple(given))

    def check_answer(self, question, truth: Truth, tensors, sizes, own_sizes: bool) -> list[AuthorProblem]:
        """Checked on every variant: the author's formula must hold for any sizes the lesson draws."""
        if question.probe is None:
            return []
        actual = tuple(int(s) for s in probe_slice(tensors, question.probe).shape)
        if truth.value == actual:
            return []
        with_sizes = M_(" (with {sizes})", sizes=", ".join(f"{name}={size}" for name, size in sizes.items())) \
            if own_sizes else ""
        return [AuthorProblem(("answer",), M_("answer {answer} gives {value} but {probe} has shape {shape}{sizes}",
                                              answer=question.answer, value=truth.value, probe=question.probe,
                                              shape=actual, sizes=with_sizes))]

    def shown_in(self, question, text, truth):
        return symbolic_shown(text, question.answer)

    def reads(self, question):
        return []   # its answer is in symbols: only axis names give it away

    def shown_on_reveal(self, question, truth, reveal, tensors, sizes):
        return symbols_on_reveal(reveal, sizes, question.answer)

    def same_answer(self, question, truth, earlier, earlier_truth):
        """An earlier answer equal as a formula ((B, H, L, D/H) after (B, H, L, D_head)) was predicted already."""
        return symbolic_shown(f"({earlier.answer.strip('()[] ')})", question.answer) is not None

    def wants_distinct_sizes(self, question):
        # a shape right only because two sizes are equal (H = 1, L = D_head) must fail on some variant
        return question.probe is not None

    def axes(self, question, tensors, sizes):
        """The shape its answer gives: the learner sees it in numbers beside the symbols, and nudges compare numbers."""
        return tuple(parse_symbolic_shape(question.answer, sizes))

    def answer_format(self):
        return N_("Shapes in symbols: (B, L, D) or (B, H, L, D/H)")


KIND = SymbolicShapeKind()
