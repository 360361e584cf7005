"""What every question kind provides, and the small pieces they share.

A kind is a subclass of :class:`QuestionKind` whose methods are pure functions over plain values
(numpy arrays, tuples, ints); the lesson screen, the help, the lesson checker and review reach a
kind only through :data:`tutor.grading.kinds.KINDS`, so adding a kind never touches them.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

import numpy as np

from tutor.common.i18n import _, ngettext

from tutor.grading.tensor_access import probe_slice

Sizes = dict[str, int]
Tensors = dict[str, np.ndarray]
Q = TypeVar("Q")          # the kind's question class
V = TypeVar("V")          # what its parse reads from the learner's text


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
    warning: bool = False   # worth a look, the question still grades (a prompt's "2 decimals" the tolerance does not keep)


@dataclass(frozen=True)
class PickOption:
    """One entry of a kind's pick-list: what the list shows, and the answer text picking it submits."""

    label: str       # "a"
    text: str        # the option as the lesson words it
    answer: str      # what the answer box would hold to pick it ("a")


class QuestionKind(ABC, Generic[Q, V]):
    """One kind of question: its part of the lesson format, and how to read, compute, judge, nudge and check it.

    A kind is a class here, not a bundle of callables, so that a reader (and a type checker) can
    follow ``kind.parse`` to its code and see which hooks a kind must write.  ``Q`` is its pydantic
    question class (``kind: Literal[name]`` plus its own fields; the lesson schema's question union
    is built from these), ``V`` the value its ``parse`` reads from the learner's text.  The six
    abstract methods and :meth:`answer_format` are required, so no kind goes unchecked by the leak
    and reveal checks or unlisted in the help; the rest have defaults that suit most kinds.
    """

    name: ClassVar[str]
    question: ClassVar[type]
    # where the help lists its answer format (and the schema its question class): simplest first;
    # a new kind needs none (it comes after the built-in ones, by name)
    order: ClassVar[int] = 100
    # the question's own prompt may hold the answer (a choice names its options)
    prompt_may_show: ClassVar[bool] = False
    # an earlier question's equal answer (same_answer) was predicted there, so a reveal showing it
    # again gives nothing away: a shape that stays; not numbers, where two answers of 1 are a coincidence
    repeat_is_predicted: ClassVar[bool] = False
    # its answer is laid out along a tensor's axes (it writes :meth:`axes`): the checker runs the lesson
    # a second time at sizes that tell every axis apart
    answer_has_axes: ClassVar[bool] = False
    # its answer is a tensor's shape: the same letters or sizes in another lesson are another tensor's as
    # often as this one's, so the cross-lesson repeat check compares the probe, not the text
    answer_is_a_shape: ClassVar[bool] = False

    @abstractmethod
    def parse(self, question: Q, text: str, sizes: Sizes) -> V:
        """The learner's text as a value; raises AnswerError on text it cannot read (no try spent)."""

    @abstractmethod
    def truth(self, question: Q, tensors: Tensors, sizes: Sizes) -> Truth:
        """What the live model says the answer is; raises QuestionError when the lesson is wrong."""

    @abstractmethod
    def matches(self, question: Q, given: V, truth: Truth) -> bool:
        """The learner's value is right."""

    @abstractmethod
    def nudge(self, question: Q, given: V, truth: Truth) -> str:
        """After a wrong answer: what is off, never the answer itself."""

    @abstractmethod
    def shown_in(self, question: Q, text: str, truth: Truth) -> tuple[int, int] | None:
        """Where ``text`` gives the answer away (the leak check)."""

    @abstractmethod
    def reads(self, question: Q) -> list[str]:
        """The slices its answer is computed from: a reveal that shows every cell of them gives the answer
        away (the reveal check); [] for an answer no numbers on screen can write (a formula, a shape in symbols)."""

    @abstractmethod
    def answer_format(self) -> str:
        """How an answer of this kind is typed, for the help screen: an ``N_`` string, translated when shown."""

    def computed_in(self, question: Q, text: str, truth: Truth) -> tuple[int, int] | None:
        """Where ``text`` works the answer out for the learner, short of writing it (a hint's
        ``−log₂(1/96)`` for 6.58 bits; a formula in another form the grader accepts): ``lessons check``
        warns about such a hint of the question's own.  None where the kind has no such form."""
        return None

    def holds_formula(self, question: Q, truth: Truth, expr: str) -> bool:
        """The answer contains the formula ``expr`` (the lesson's formula box), so a box showing it leaves
        little to predict (tutor.live.box_leaks); only an answer that is a formula can."""
        return False

    def shown_on_reveal(self, question: Q, truth: Truth, reveal, tensors: Tensors, sizes: Sizes) -> str | None:
        """What else on a revealed tensor writes the answer (its header's shape, its axis names), in words."""
        return None

    def closeness(self, question: Q, truth: Truth, given: V | None = None) -> str:
        """How near counts, in words ('to 2 decimals'); '' if exact by nature. With the accepted `given`,
        said of that answer: a value inside the tolerance is not always the truth rounded."""
        return ""

    def check_answer(self, question: Q, truth: Truth, tensors: Tensors, sizes: Sizes,
                     own_sizes: bool) -> list[AuthorProblem]:
        """The live checker's hook: what the lesson file says that this model contradicts."""
        return []

    def check_text(self, question: Q) -> list[AuthorProblem]:
        """The static checker's hook: what in the question cannot work, with no model run."""
        return []

    def nonfinite(self, question: Q, truth: Truth) -> bool:
        """The truth holds nan/inf the question does not declare."""
        return False

    def attempt_cap(self, question: Q) -> int | None:
        """Most tries that still test anything (choices: one fewer than options); None: no cap."""
        return None

    def same_answer(self, question: Q, truth: Truth, earlier, earlier_truth: Truth) -> bool:
        """An earlier question of this kind had the same answer, so seeing it again gives nothing away."""
        return same_values(truth.value, earlier_truth.value)

    def distinctive(self, question: Q, truth: Truth) -> bool:
        """Whether this answer, written again in a later lesson, is more than a coincidence
        (tutor.authoring.course_repeats): a kind whose answers are often round says which are not."""
        return True

    def wants_distinct_sizes(self, question: Q) -> bool:
        """Check it on sizes that are all different (L != D_head)."""
        return False

    def axes(self, question: Q, tensors: Tensors, sizes: Sizes) -> tuple[int, ...] | None:
        """The lengths of the answer's axes with these tensors and sizes, for the checker's test that the
        lesson's sizes tell them apart (a kind that writes it sets ``answer_has_axes``); None: it has none."""
        return None

    def axes_read_alike(self, question: Q, tensors: Tensors, a: int, b: int) -> bool:
        """An answer with axes ``a`` and ``b`` the other way round is written the same (a shape always is)."""
        return True

    def preview(self, question: Q, text: str) -> str | None:
        """Shown under the answer box while typing; None: no preview."""
        return None

    def options(self, question: Q) -> list[PickOption]:
        """A pick-list the screen offers beside the answer box; [] for a kind that is only typed."""
        return []

    def in_learner_order(self, question: Q, rng: random.Random) -> Q:
        """The question as one learner sees it, where its options may be put in an order of ``rng``'s
        (seeded by the learner and the question, so it stays theirs): parse, truth and options
        then follow the order shown.  The question itself for a kind with nothing to order."""
        return question


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


def _without_ones(shape) -> tuple:
    return tuple(size for size in shape if size != 1)


def shape_nudge(given: tuple[int, ...], expected: tuple[int, ...]) -> str:
    """Shared by shape and symbolic_shape: axes count, order, then how many sizes are off.  Sizes of 1
    added or dropped are named apart: (1, 1, 32) is b_in broadcast against (B, L, 32), not another tensor."""
    if len(given) != len(expected) and _without_ones(given) == _without_ones(expected):
        if len(given) > len(expected):
            return ngettext("The right sizes, with axes of size 1 this tensor does not have: it has {count} axis.",
                            "The right sizes, with axes of size 1 this tensor does not have: it has {count} axes.",
                            len(expected)).format(count=len(expected))
        return ngettext("The right sizes, but this tensor keeps its axes of size 1: it has {count} axis.",
                        "The right sizes, but this tensor keeps its axes of size 1: it has {count} axes.",
                        len(expected)).format(count=len(expected))
    if len(given) != len(expected):
        return ngettext("That has {count} axis; this tensor has a different number.",
                        "That has {count} axes; this tensor has a different number.", len(given)).format(
            count=len(given))
    if sorted(given) == sorted(expected):
        return _("The right sizes, in the wrong order.")
    wrong = sum(g != e for g, e in zip(given, expected))
    return ngettext("{wrong} of the {count} sizes is off.", "{wrong} of the {count} sizes are off.", wrong).format(
        wrong=wrong, count=len(expected))
