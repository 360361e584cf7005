"""The question kinds: ``kind`` in a lesson file -> the module that parses, computes, grades and nudges it.

To add a kind: write its module here with a :class:`~tutor.grading.kinds.base.QuestionKind`
subclass and ``KIND = ThatKind()`` (its question class, its hooks, its leak search), list it
below, and give docs/lessons.md a section with an example.  Nothing else names a kind: the
lesson schema's question union, the lesson screen (its pick-list), the help (answer formats),
the checkers, the leak check, review and the registry-driven tests (tests/test_kinds.py) all
reach it through ``KINDS``.
"""
from __future__ import annotations

from tutor.grading.kinds import choice, formula, number, shape, symbolic_shape, values
from tutor.grading.kinds.base import AuthorProblem, PickOption, QuestionKind, Truth

KINDS: dict[str, QuestionKind] = {module.KIND.name: module.KIND
                                  for module in (shape, values, number, choice, symbolic_shape, formula)}


def kind_of(question) -> QuestionKind:
    from tutor.grading.tensor_access import QuestionError

    try:
        return KINDS[question.kind]
    except (KeyError, AttributeError):
        raise QuestionError(f"unknown question kind {getattr(question, 'kind', '?')!r}") from None


def allowed_attempts(question, lesson_attempts: int) -> int:
    """The question's own ``attempts:``, else the lesson's, within what its kind allows."""
    cap = kind_of(question).attempt_cap(question)
    wanted = question.attempts or lesson_attempts
    return min(wanted, cap) if cap else wanted


__all__ = ["KINDS", "AuthorProblem", "PickOption", "QuestionKind", "Truth", "allowed_attempts", "kind_of"]
