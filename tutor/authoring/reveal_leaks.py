"""Does a revealed tensor answer a later question before the learner predicts it?

The text leak check (:mod:`tutor.authoring.leaks`) reads what the lesson *says*; this one reads
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
same) gives nothing away.  No Textual, no torch: the live tensors arrive as numpy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutor.authoring.leaks import question_label
from tutor.common.i18n import M_
from tutor.grading.kinds.choice import ChoiceQuestion
from tutor.grading.kinds.shape import ShapeQuestion
from tutor.grading.kinds.symbolic_shape import SymbolicShapeQuestion
from tutor.grading.kinds.values import ValuesQuestion
from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref
from tutor.grading.reveal_focus import Reveal, question_reveal
from tutor.grading.symbolic import same_symbolic_shape
from tutor.grading.tensor_access import QuestionError, reduce_slice
from tutor.grading.tensor_format import NumberFormat

MAX_PAIRED_CELLS = 256      # a sign rule's value is looked for among the gaps of views up to this size

# what a learner reads an axis name as; "feature" is D or D_head, told apart by its length
_AXIS_SYMBOLS = {"batch": "B", "head": "H", "position": "L", "query": "L", "key": "L", "vocabulary": "V"}


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
    """The field a reveal's tensor comes from, where the author changes what is shown."""
    if question.show:
        return ("show",)
    if isinstance(question, ChoiceQuestion):
        return ("answer",)
    return ("probe",)


def find_reveal_leaks(lesson, tensors, sizes, truths: dict[int, object], token_labels=()) -> list[RevealLeak]:
    """Every later question whose answer an earlier question's revealed tensor shows."""
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
        for k in sorted(j for j in truths if j > i):
            if _predicted_before(lesson, truths, k):
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


def _reads(question) -> list[str]:
    """The probe slices the question's answer is computed from."""
    if isinstance(question, ChoiceQuestion):
        rule = question.answer
        if isinstance(rule, int):
            return []
        if getattr(rule, "cases", None):
            return [case.probe for case in rule.cases]
        return [getattr(rule, name) for name in ("argmax", "argmin", "sign") if getattr(rule, name, None)]
    if isinstance(question, SymbolicShapeQuestion):
        return []   # its answer is in symbols: only axis names give it away
    if question.kind == "formula":
        return []   # its answer is an expression: the probe's numbers on screen do not write it
    return [question.probe] if getattr(question, "probe", None) else []


def _gives_away(reveal: Reveal, on_screen, question, truth, tensors, sizes) -> str | None:
    name, mask = on_screen
    reads = _reads(question)
    if reads and all(_within(reference, name, mask, tensors) for reference in reads):
        return M_("every value of {names}", names=", ".join(reads))
    if isinstance(question, ShapeQuestion) and tuple(reveal.array.shape) == tuple(truth.value):
        return M_("the shape {shape}", shape=tuple(reveal.array.shape))
    if isinstance(question, SymbolicShapeQuestion):
        symbols = _axis_symbols(reveal, sizes)
        if symbols and same_symbolic_shape(f"({', '.join(symbols)})", question.answer):
            return M_("the axes ({names}), that is ({symbols})", names=", ".join(reveal.axis_names),
                      symbols=", ".join(symbols))
    if isinstance(question, ValuesQuestion) and _values_on_screen(reveal.array, truth.value, question.tolerance):
        return M_("the values of {probe}, in order", probe=question.probe)
    sign = getattr(question.answer, "sign", None) if isinstance(question, ChoiceQuestion) else None
    if sign and _difference_on_screen(reveal.array, tensors, sign, question.answer.reduce):
        return M_("two values whose difference is {sign}, so its sign", sign=sign)
    return None


def _difference_on_screen(array: np.ndarray, tensors, reference: str, reduce: str) -> bool:
    """Whether the value a sign rule reads is the gap between two cells on screen (beam's score
    minus greedy's, with both scores shown): its sign is then read off the screen."""
    try:
        value = reduce_slice(tensors, reference, reduce)
    except (QuestionError, ProbeRefError):
        return False
    cells = np.asarray(array, dtype=float).ravel()
    if value == 0 or not np.isfinite(value) or cells.size > MAX_PAIRED_CELLS:
        return False
    gaps = cells[:, None] - cells[None, :]                                 # (n, n): every a - b
    return bool(np.any(np.isclose(gaps, value, rtol=1e-6, atol=1e-9)))


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


def _axis_symbols(reveal: Reveal, sizes) -> list[str] | None:
    """The view's axis names as the size names a learner reads them as; None if one has none."""
    symbols = []
    for name, length in zip(reveal.axis_names, reveal.array.shape):
        if name == "feature":
            symbol = "D_head" if length == sizes.get("D_head") else "D" if length == sizes.get("D") else None
        elif name == "hidden":
            symbol = "4*D" if length == 4 * sizes.get("D", 0) else None
        else:
            symbol = _AXIS_SYMBOLS.get(name)
        if symbol is None:
            return None
        symbols.append(symbol)
    return symbols


def _values_on_screen(array: np.ndarray, values, tolerance: float) -> bool:
    """Whether the values appear in a row of the view, in order, as close as the question grades."""
    wanted = np.asarray(values, dtype=float).ravel()
    if wanted.size < 2 or np.asarray(array).size < wanted.size:
        return False
    number_format = NumberFormat.for_array(array)
    half_unit = 0.5 * 10.0 ** (number_format.exponent - number_format.decimals)
    # the cells as written: rounded to the view's decimals
    written = np.asarray([float(number_format.cell(float(v))) * 10.0 ** number_format.exponent
                          for v in np.asarray(array, dtype=float).ravel()])
    allowed = max(tolerance, half_unit) + 1e-9
    for start in range(written.size - wanted.size + 1):
        window = written[start:start + wanted.size]
        if np.all((window == wanted) | (np.abs(window - wanted) <= allowed)):
            return True
    return False


def _predicted_before(lesson, truths, k: int) -> bool:
    """The learner already predicted question k's shape in an earlier question (a shape that stays).
    Numbers are not skipped: two answers that are both 1 are a coincidence, not a prediction."""
    question, truth = lesson.questions[k], truths[k]
    for j in (j for j in truths if j < k):
        earlier = lesson.questions[j]
        if type(earlier) is not type(question):
            continue
        if isinstance(question, SymbolicShapeQuestion) and same_symbolic_shape(earlier.answer, question.answer):
            return True
        if isinstance(question, ShapeQuestion) and tuple(truth.value) == tuple(truths[j].value):
            return True
    return False
