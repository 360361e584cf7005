"""Grading: a learner's text against the truth the live model produced.

No Textual and no torch here: the truth arrives as numpy arrays and plain sizes, so grading
is a pure function that tests can drive directly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tutor.grading.answers import AnswerError, parse_choice, parse_number, parse_shape, parse_symbolic_shape, parse_values
from tutor.course.schema import ChoiceQuestion, NumberQuestion, ShapeQuestion, SymbolicShapeQuestion, ValuesQuestion
from tutor.grading.probe_ref import parse_probe_ref
from tutor.grading.symbolic import same_symbolic_shape

REDUCERS = {
    "value": lambda a: a.item() if a.size == 1 else math.nan,
    "sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min,
    "argmax": lambda a: int(np.argmax(a)), "argmin": lambda a: int(np.argmin(a)),
    "std": np.std, "var": np.var, "norm": np.linalg.norm,
    "count_zero": lambda a: int(np.sum(a == 0)), "count_nonzero": lambda a: int(np.count_nonzero(a)),
    "numel": lambda a: int(a.size),
}


@dataclass(frozen=True)
class Truth:
    """What the model says the answer is, plus what to show beside the learner's answer."""

    value: object                 # tuple shape, np.ndarray, float, or choice index
    display: str                  # the expected answer in words
    tensor: np.ndarray | None     # the real tensor (or slice) to reveal
    tensor_label: str = ""


@dataclass(frozen=True)
class Grade:
    correct: bool
    feedback: str
    expected: str


class QuestionError(ValueError):
    """The lesson's question cannot be answered from the live tensors (an author's mistake)."""


def format_number(value: float) -> str:
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    if float(value).is_integer() and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.4g}"


def format_values(array: np.ndarray) -> str:
    return ", ".join(format_number(float(v)) for v in np.asarray(array).ravel())


def probe_slice(tensors: dict[str, np.ndarray], reference: str) -> np.ndarray:
    ref = parse_probe_ref(reference)
    if ref.name not in tensors:
        known = ", ".join(sorted(n for n in tensors if not n.startswith("params.")))
        raise QuestionError(f"unknown probe {ref.name!r}; valid probes: {known}")
    try:
        return np.asarray(ref.select(tensors[ref.name]))
    except (ValueError, IndexError) as error:
        raise QuestionError(str(error)) from None


def _with_reveal(question, tensors, value, display: str, array: np.ndarray | None, label: str) -> Truth:
    """The author's ``show:`` slice, when given, is what the learner sees after answering."""
    if question.show:
        return Truth(value, display, probe_slice(tensors, question.show), question.show)
    return Truth(value, display, array, label)


def truth_for(question, tensors: dict[str, np.ndarray], sizes: dict[str, int]) -> Truth:
    """Compute the answer from the live tensors; raise QuestionError when the lesson is wrong."""
    if isinstance(question, ShapeQuestion):
        array = probe_slice(tensors, question.probe)
        shape = tuple(int(s) for s in array.shape)
        return _with_reveal(question, tensors, shape, str(shape), array, question.probe)
    if isinstance(question, ValuesQuestion):
        array = probe_slice(tensors, question.probe)
        if array.size > 64:
            raise QuestionError(f"{question.probe} selects {array.size} values; ask for at most 64")
        return _with_reveal(question, tensors, array.ravel(), format_values(array), array, question.probe)
    if isinstance(question, NumberQuestion):
        if question.probe is None:
            value = parse_number(str(question.answer))
            return _with_reveal(question, tensors, value, format_number(value), None, "")
        array = probe_slice(tensors, question.probe)
        if question.reduce == "value" and array.size != 1:
            raise QuestionError(f"{question.probe} selects {array.size} values; index one entry or set reduce")
        value = float(REDUCERS[question.reduce](array))
        return _with_reveal(question, tensors, value, format_number(value), array, question.probe)
    if isinstance(question, ChoiceQuestion):
        letter = chr(ord("a") + question.answer)
        return _with_reveal(question, tensors, question.answer, f"{letter}) {question.choices[question.answer]}",
                            None, "")
    if isinstance(question, SymbolicShapeQuestion):
        shape = parse_symbolic_shape(question.answer, sizes)
        reveal = probe_slice(tensors, question.probe) if question.probe else None
        return _with_reveal(question, tensors, shape, f"{question.answer} = {shape}", reveal, question.probe or "")
    raise QuestionError(f"unknown question kind {getattr(question, 'kind', '?')}")


def _values_match(given: list[float], expected: np.ndarray, tolerance: float) -> bool:
    expected = np.asarray(expected, dtype=float).ravel()
    if len(given) != expected.size:
        return False
    for g, e in zip(given, expected):
        if math.isinf(e) or math.isinf(g):
            if g != e:
                return False
        elif abs(g - e) > tolerance + 1e-12:
            return False
    return True


def grade(question, text: str, truth: Truth, sizes: dict[str, int]) -> Grade:
    """Grade one answer; raises AnswerError when the text cannot be read (the learner retries)."""
    if isinstance(question, ShapeQuestion):
        given = parse_shape(text)
        correct = given == truth.value
        note = "" if correct or len(given) == len(truth.value) else \
            f" You gave {len(given)} axes; the tensor has {len(truth.value)}."
        return Grade(correct, _verdict(correct) + note, truth.display)
    if isinstance(question, ValuesQuestion):
        given = parse_values(text)
        expected = np.asarray(truth.value)
        if len(given) != expected.size:
            raise AnswerError(f"give {expected.size} values (you gave {len(given)})")
        correct = _values_match(given, expected, question.tolerance)
        return Grade(correct, _verdict(correct) + _tolerance_note(question.tolerance), truth.display)
    if isinstance(question, NumberQuestion):
        given = parse_number(text)
        expected = float(truth.value)
        tolerance = question.tolerance * abs(expected) if question.relative else question.tolerance
        correct = _values_match([given], np.array([expected]), tolerance)
        return Grade(correct, _verdict(correct) + _tolerance_note(tolerance), truth.display)
    if isinstance(question, ChoiceQuestion):
        correct = parse_choice(text, question.choices) == truth.value
        return Grade(correct, _verdict(correct), truth.display)
    if isinstance(question, SymbolicShapeQuestion):
        given = parse_symbolic_shape(text, sizes)
        correct = given == truth.value and same_symbolic_shape(text, question.answer)
        return Grade(correct, _verdict(correct) + f" Your shape here is {given}.", truth.display)
    raise QuestionError(f"unknown question kind {getattr(question, 'kind', '?')}")


def _tolerance_note(tolerance: float) -> str:
    return f" (tolerance ±{format_number(tolerance)})" if tolerance > 0 else " (exact)"


def _verdict(correct: bool) -> str:
    return "Right." if correct else "Not quite."
