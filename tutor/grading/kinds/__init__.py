"""The question kinds: ``kind`` in a lesson file -> the module that parses, computes, grades and nudges it.

To add a kind: write its module in this package with a :class:`~tutor.grading.kinds.base.QuestionKind`
subclass and ``KIND = ThatKind()`` (its question class, its hooks, its leak search), and give
docs/lessons.md a section with an example.  Nothing else names a kind, not even this file: the
package is scanned (pkgutil) for modules with a ``KIND``, so the lesson schema's question union,
the lesson screen (its pick-list), the help (answer formats), the checkers, the leak check, review
and the registry-driven tests (tests/test_kinds.py) all reach a new kind through ``KINDS``.
"""
from __future__ import annotations

import importlib
import pkgutil

from tutor.grading.kinds.base import AuthorProblem, PickOption, QuestionKind, Truth


def _scanned(path=__path__, package: str = __name__) -> dict[str, QuestionKind]:
    """Every module of this package that defines ``KIND`` (a QuestionKind), in the kinds' ``order``
    then by name; a helper module without one is skipped.  Two kinds with one name are an error, said
    at import, so a copied module cannot silently replace the kind it was copied from."""
    found: dict[str, QuestionKind] = {}
    for info in pkgutil.iter_modules(path):
        if info.name.startswith("_") or info.name == "base":
            continue
        kind = getattr(importlib.import_module(f"{package}.{info.name}"), "KIND", None)
        if not isinstance(kind, QuestionKind):
            continue
        if kind.name in found:
            raise ImportError(f"two question kinds are named {kind.name!r}: {info.name}.py and another module")
        found[kind.name] = kind
    return {kind.name: kind for kind in sorted(found.values(), key=lambda kind: (kind.order, kind.name))}


KINDS: dict[str, QuestionKind] = _scanned()


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
