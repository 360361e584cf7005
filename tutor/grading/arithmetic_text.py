"""Arithmetic written in prose, worked out: a hint's ``−log₂(1/96)`` is 6.58.

Why: the leak check (tutor.grading.answer_text) finds an answer written as a number, but a hint
that writes the computation whose result is the answer (it-bits' "a character with p = 1/96
costs −log₂(1/96) bits", for an answer of 6.62 ± 0.15 bits) leaves the learner only a calculator
step.  ``lessons check`` warns about such a hint (tutor.grading.kinds.number's ``computed_in``).

The text is folded as a typed formula is (tutor.formulas.written: ``−``, superscripts, ``√``,
subscripts), each run of numbers, operators, brackets and the functions people write in prose
(``ln``, ``log``, ``log₂``, ``log₁₀``, ``exp``, ``sqrt``, ``e^``) is read by the lesson formula
parser, never run as code, and evaluated with numpy.  A bare number is not a computation: whether
prose states one is the leak check's question, with its own rules for sizes and counts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tutor.formulas.evaluate import FormulaError
from tutor.formulas.parse import evaluate_formula, parse_formula
from tutor.formulas.written import fold

_FUNCTION = r"(?:ln|log(?:2|10|_\d+)?|exp|sqrt)"   # log₂ folds to log2, a function
# a run: numbers, operators, brackets, spaces and prose functions; "e" only as a power's base; a
# digit after a letter or "_" is a name's index (β₁², folded beta_1**2), not a number
_RUN = re.compile(rf"(?:\b{_FUNCTION}\b|\be(?=\*\*)|(?<![A-Za-z_])\d+(?:\.\d+)?(?:e-?\d+)?|\*\*|[-+*/()@ ])+")
_SPACED_CALL = re.compile(rf"\b({_FUNCTION})\s+(\d+(?:\.\d+)?)")   # ln 2 -> ln(2)
_BASE_LOG = re.compile(r"\blog_(\d+)\(")                               # log_2( -> (1/log(2))*log(
_NUMBER_ONLY = re.compile(r"-?\s*\d+(?:\.\d+)?(?:e-?\d+)?")
MAX_RUN = 120


@dataclass(frozen=True)
class Computed:
    start: int       # where the computation is in the text as written
    end: int
    value: float


def _readable(run: str) -> str:
    run = _SPACED_CALL.sub(r"\1(\2)", run)
    run = _BASE_LOG.sub(r"(1/log(\1))*log(", run)
    return re.sub(r"\bln\b", "log", run).replace("@", "*")   # 0.1·2: a product of numbers


def _trimmed(folded: str, start: int, end: int) -> tuple[int, int]:
    """The run without the spaces, operators and unmatched brackets prose leaves at its ends."""
    while start < end and folded[start] in " +*/@)":
        start += 1
    while end > start and folded[end - 1] in " +-*/@(":
        end -= 1
    while end > start and folded[start:end].count(")") > folded[start:end].count("(") and folded[end - 1] == ")":
        end -= 1
    while end > start and folded[start:end].count("(") > folded[start:end].count(")") and folded[start] == "(":
        start += 1
    return start, end


def computations(text: str) -> list[Computed]:
    """Every computation written in ``text`` that reads and gives a finite number."""
    folded, origin = fold(text)
    found = []
    for run in _RUN.finditer(folded):
        start, end = _trimmed(folded, run.start(), run.end())
        written = folded[start:end]
        if not written or end - start > MAX_RUN or _NUMBER_ONLY.fullmatch(written) or not re.search(r"\d", written):
            continue
        try:
            formula = parse_formula(_readable(written), scalars=["e"])
            with np.errstate(all="ignore"):
                value = float(np.asarray(evaluate_formula(formula, {"e": np.e})).ravel()[0])
        except (FormulaError, ValueError, TypeError, OverflowError, IndexError):
            continue
        if np.isfinite(value):
            found.append(Computed(origin[start], origin[end - 1] + 1, value))
    return found

