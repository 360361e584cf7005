"""kind: symbolic_shape — the learner writes a shape in size names, e.g. (B, H, L, D/H).

Graded by substituting the lesson's sizes, so any equivalent spelling (D/H, D_head) is right.
"""
from __future__ import annotations

from tutor.grading.answers import parse_symbolic_shape
from tutor.grading.kinds.base import AuthorProblem, QuestionKind, Truth, shape_nudge, with_reveal
from tutor.grading.tensor_access import probe_slice


def truth(question, tensors, sizes) -> Truth:
    shape = parse_symbolic_shape(question.answer, sizes)
    reveal = probe_slice(tensors, question.probe) if question.probe else None
    return with_reveal(question, tensors, shape, f"{question.answer} = {shape}", reveal, question.probe or "")


def nudge(question, given, truth: Truth) -> str:
    return f"{shape_nudge(given, truth.value)} With these sizes yours is {given}."


def check_answer(question, truth: Truth, tensors, sizes, own_sizes: bool) -> list[AuthorProblem]:
    """Checked on every variant: the author's formula must hold for any sizes the lesson draws."""
    if question.probe is None:
        return []
    actual = tuple(int(s) for s in probe_slice(tensors, question.probe).shape)
    if truth.value == actual:
        return []
    with_sizes = f" (with {', '.join(f'{name}={size}' for name, size in sizes.items())})" if own_sizes else ""
    return [AuthorProblem(("answer",), f"answer {question.answer} gives {truth.value} but "
                          f"{question.probe} has shape {actual}{with_sizes}")]


KIND = QuestionKind(
    name="symbolic_shape",
    parse=lambda question, text, sizes: parse_symbolic_shape(text, sizes),
    truth=truth,
    matches=lambda question, given, truth: given == truth.value,
    nudge=nudge,
    check_answer=check_answer,
)
