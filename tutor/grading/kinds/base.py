"""What every question kind provides, and the small pieces they share.

A kind is a bundle of pure functions over plain values (numpy arrays, tuples, ints); the lesson
screen, the lesson checker and review reach a kind only through :data:`tutor.grading.kinds.KINDS`,
so adding a kind never touches them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tutor.common.i18n import _, ngettext

from tutor.grading.tensor_access import probe_slice

Sizes = dict[str, int]
Tensors = dict[str, np.ndarray]


@dataclass(frozen=True)
class Truth:
    """What the model says the answer is, plus what to show beside the learner's answer."""

    value: object                 # tuple shape, np.ndarray, float, or choice index
    display: str                  # the expected answer in words
    tensor: np.ndarray | None     # the real tensor (or slice) to reveal
    tensor_label: str = ""


@dataclass(frozen=True)
class AuthorProblem:
    """Something the lesson file says that the live model contradicts, at a field of the question."""

    field: tuple
    message: str


@dataclass(frozen=True)
class QuestionKind:
    """One kind of question: its part of the lesson format, and how to read, compute, judge, nudge and check it.

    question: the pydantic class of its questions (``kind: Literal[name]`` plus its own fields);
        the lesson schema's question union is built from these
    parse(question, text, sizes) -> value        raises AnswerError on text it cannot read (no try spent)
    truth(question, tensors, sizes) -> Truth      raises QuestionError when the lesson is wrong
    matches(question, given, truth) -> bool
    nudge(question, given, truth) -> str          after a wrong answer; never states the answer
    shown_in(question, text, truth) -> (start, end) | None   where ``text`` gives the answer away (the
        leak check); required, so that no kind goes unchecked
    reads(question) -> [probe reference]          the slices its answer is computed from: a reveal that
        shows every cell of them gives the answer away (the reveal check); required, [] for an answer
        no numbers on screen can write (a formula, a shape in symbols)
    shown_on_reveal(question, truth, reveal, tensors, sizes) -> str | None   what else on a revealed
        tensor writes the answer (its header's shape, its axis names, a row of values), in words
    repeat_is_predicted: an earlier question's equal answer (same_answer) was predicted there, so a
        reveal showing it again gives nothing away: a shape that stays; not numbers, where two
        answers of 1 are a coincidence
    closeness(question, truth) -> str             how near counts, in words ('to 2 decimals'); '' if exact by nature
    check_answer(question, truth, tensors, sizes, own_sizes) -> [AuthorProblem]   the live checker's hook
    nonfinite(question, truth) -> bool            the truth holds nan/inf the question does not declare
    attempt_cap(question) -> int | None           most tries that still test anything (choices: one fewer than options)
    same_answer(question, truth, earlier, earlier_truth) -> bool   an earlier question of this kind had the
        same answer, so seeing it again gives nothing away (default: equal values)
    prompt_may_show: the question's own prompt may hold the answer (a choice names its options)
    wants_distinct_sizes(question) -> bool        check it on sizes that are all different (L != D_head)
    preview(question, text) -> str | None         shown under the answer box while typing; None: no preview
    """

    name: str
    question: type
    parse: Callable
    truth: Callable
    matches: Callable
    nudge: Callable
    shown_in: Callable
    reads: Callable
    closeness: Callable = field(default=lambda question, truth: "")
    check_answer: Callable = field(default=lambda question, truth, tensors, sizes, own_sizes: [])
    nonfinite: Callable = field(default=lambda question, truth: False)
    attempt_cap: Callable = field(default=lambda question: None)
    same_answer: Callable = field(default=lambda question, truth, earlier, earlier_truth:
                                  same_values(truth.value, earlier_truth.value))
    prompt_may_show: bool = False
    wants_distinct_sizes: Callable = field(default=lambda question: False)
    preview: Callable = field(default=lambda question, text: None)
    shown_on_reveal: Callable = field(default=lambda question, truth, reveal, tensors, sizes: None)
    repeat_is_predicted: bool = False


def same_values(mine, theirs) -> bool:
    """Equal numbers (shapes, values, counts): a shape that stays, a count that repeats."""
    try:
        mine = np.asarray(mine, dtype=float).ravel()
        theirs = np.asarray(theirs, dtype=float).ravel()
    except (TypeError, ValueError):
        return False
    return mine.shape == theirs.shape and bool(np.allclose(mine, theirs, rtol=1e-6, atol=1e-9, equal_nan=True))


def probe_read(question) -> list[str]:
    """The usual ``reads``: the question's probe, when it has one."""
    return [question.probe] if getattr(question, "probe", None) else []


def with_reveal(question, tensors: Tensors, value, display: str, array: np.ndarray | None, label: str) -> Truth:
    """The author's ``show:`` slice, when given, is what the learner sees after answering."""
    if question.show:
        return Truth(value, display, probe_slice(tensors, question.show), question.show)
    return Truth(value, display, array, label)


def shape_nudge(given: tuple[int, ...], expected: tuple[int, ...]) -> str:
    """Shared by shape and symbolic_shape: axes count, order, then how many sizes are off."""
    if len(given) != len(expected):
        return ngettext("That has {count} axis; this tensor has a different number.",
                        "That has {count} axes; this tensor has a different number.", len(given)).format(
            count=len(given))
    if sorted(given) == sorted(expected):
        return _("The right sizes, in the wrong order.")
    wrong = sum(g != e for g, e in zip(given, expected))
    return ngettext("{wrong} of the {count} sizes is off.", "{wrong} of the {count} sizes are off.", wrong).format(
        wrong=wrong, count=len(expected))
