"""Where an answer is written in prose: the searches behind the leak check, one per form of answer.

Each question kind's ``shown_in`` hook calls the search for its answer's form (the rules, kept
in step with docs/lessons.md "No answer before the question"):

- a shape as a whole tuple: ``(2, 4, 8)``, ``[2, 4, 8]``, ``2x4x8``, ``2 × 4 × 8``; a 1-axis
  shape only as ``(8,)``. A tuple inside ``name[...]`` is a probe index, not a shape.
- a symbolic shape as a bracketed tuple of size names equal to the answer as a formula.
- values as the whole sequence, in order, each within the question's tolerance.
- a number at the precision it is shown: ``0.25`` gives away 0.2495 (it rounds to it, or is
  within the tolerance), ``58%`` gives away 0.58, ``1/4`` gives away 0.25.
- a choice by its text (at least 12 characters or 3 words), unless every choice is quoted.
- a formula as typed or as printed (``Q @ K.T / sqrt(d_k)``, ``Q·Kᵀ/√d_k``, ``(Q·Kᵀ)/√d_k``): any
  stretch of formula in the text that reads as the same printed formula.

Small whole numbers are everywhere in prose as sizes, indices and counts ("row 2", "D = 8"),
so a whole number written without a decimal point counts only when it is larger than 64,
or when the text states it as a result (``= 3``, ``is 3``, ``sums to 1``) and not as a size
(``D = 8``).  No Textual, no torch: the live tensors arrive as numpy arrays.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from tutor.formulas.evaluate import FUNCTIONS
from tutor.formulas.written import fold
from tutor.grading.answers import AnswerError, parse_symbolic_shape
from tutor.grading.symbolic import DISTINGUISHING_SIZES

SMALL_WHOLE = 64              # whole numbers up to this are sizes, indices and counts in prose
MIN_CHOICE_CHARS, MIN_CHOICE_WORDS = 12, 3
RESULT_WORDS = re.compile(r"(?:=|≈|\bis|\bare|\bequals?|\bgives?|\bexactly|\bcomes out at)\s*$", re.I)
# "the weights sum to 1" states a sum: it gives away a sum, not a count or an entry that is also 1
SUM_WORDS = re.compile(r"(?:\bsums? to|\badds? up to|\badd up to|\btotals?)\s*(?:exactly\s*)?$", re.I)
# "D = 8", "max_norm = 1": a size or setting the learner reasons from, not a result
SIZE_ASSIGNMENT = re.compile(r"(?<![\w^])[A-Za-z_][\w]*\s*=\s*$")
ZERO_RESULT = re.compile(r"(?:=|\bequals?|\bsums? to|\badds? up to|\badd up to|\btotals?)\s*$", re.I)
RELATIVE_CLOSE = 0.2
WHOLE_CLOSE = 0.05            # "variance 256" states 261.6; "≈ 58" states 57.67
EXPRESSION_GOES_ON = re.compile(r"\s*[-+−×·*/^]")   # "= 1 + 2 + …": a term, not a result
_NUMBER = re.compile(
    r"(?<![\w.^])(?:(?P<sign>[-−–+])\s?)?(?:(?P<inf>∞|inf(?:inity)?\b)|"
    r"(?P<num>\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*(?P<den>\d+)(?![\d.]))?(?:[eE](?P<exp>[-+−]?\d+))?(?P<pct>%)?)"
    r"(?![\w]|\.\d)")
_TUPLE = re.compile(r"(?<![\w\]])[(\[]\s*(?P<body>[^()\[\]]{1,80}?)\s*[)\]]")
_TIMES = re.compile(r"(?<![\w.])\d+(?:\s*[x×]\s*\d+)+(?![\w.])")


@dataclass(frozen=True)
class Written:
    """A number as it appears in the text."""
    start: int
    end: int
    value: float
    whole: bool         # written as a plain whole number, no point, fraction, exponent or %
    half_unit: float    # half a unit of its last shown digit


def numbers_in(text: str) -> list[Written]:
    found = []
    for match in _NUMBER.finditer(text):
        sign = -1.0 if match.group("sign") in ("-", "−", "–") else 1.0
        if match.group("inf"):
            found.append(Written(match.start(), match.end(), sign * math.inf, True, 0.0))
            continue
        digits, den, exp, pct = match.group("num"), match.group("den"), match.group("exp"), match.group("pct")
        decimals = len(digits.partition(".")[2])
        value = float(Fraction(digits) / (int(den) if den and int(den) else 1))
        half = 0.5 * 10.0 ** -decimals if not den else 0.005 * value   # 1/4 states 0.2495
        if exp:
            scale = 10.0 ** int(exp.replace("−", "-"))
            value, half = value * scale, half * scale
        if pct:
            value, half = value / 100, half / 100
        whole = not (den or exp or pct or "." in digits)
        found.append(Written(match.start(), match.end(), sign * value, whole, half if not whole else 0.0))
    return found


def _stated_as_result(text: str, written: Written, is_sum: bool = False) -> bool:
    """'= 3', 'is 0' (and 'sums to 1' for a sum): stated, not asked ('how many are exactly 0?')
    and not a size ('D = 8')."""
    before = text[max(0, written.start - 24):written.start]
    stated = RESULT_WORDS.search(before) or (is_sum and SUM_WORDS.search(before))
    if not stated or SIZE_ASSIGNMENT.search(before):
        return False
    if EXPRESSION_GOES_ON.match(text, written.end):
        return False
    sentence_end = re.search(r"[.?!:;](?=\s|$)|\n\n|$", text[written.end:])
    return not (sentence_end and sentence_end.group(0) == "?")


def _whole(value: float) -> bool:
    return abs(value - round(value)) <= 1e-6 * max(1.0, abs(value))


def number_shown(text: str, value: float, is_sum: bool = False, counting: bool = False) -> Written | None:
    """The first number in ``text`` that states ``value``: at the precision it is written, or
    exactly when it is a whole number in a sentence that states a result."""
    if math.isnan(value):
        return None
    for written in numbers_in(text):
        if math.isinf(value) or math.isinf(written.value):
            hit = written.value == value and _stated_as_result(text, written)
        elif written.whole:
            hit = _whole_shown(text, written, value, is_sum, counting)
        else:
            # "0.25" states 0.2495: it is the value rounded to the digits shown (and close: 0.01
            # is not a statement of 0.007)
            error = abs(written.value - value)
            hit = error <= written.half_unit + 1e-12 and error <= RELATIVE_CLOSE * abs(value)
        if hit:
            return written
    return None


def _whole_shown(text: str, written: Written, value: float, is_sum: bool, counting: bool) -> bool:
    """Whole numbers in prose are sizes, indices and counts: one states an answer only when it is
    larger than SMALL_WHOLE or stated as a result; 0 only after '=', 'equals' or 'sums to';
    and a 0-9 only states an answer that is itself whole ('≈ 58' may state 57.67, '1' not 0.99)."""
    if _whole(value):
        if written.value != round(value):
            return False
    elif abs(written.value) <= 9 or abs(written.value - value) > max(0.5, WHOLE_CLOSE * abs(value)):
        return False
    if SIZE_ASSIGNMENT.search(text[max(0, written.start - 24):written.start]):
        return False   # "d_k = 256" is a size the learner reasons from, however large
    if abs(written.value) > SMALL_WHOLE:
        return True
    if counting:
        return False   # a count or an index: "e^0 = 1" and "row 2" say nothing about "how many"
    if not _stated_as_result(text, written, is_sum):
        return False
    return written.value != 0 or bool(ZERO_RESULT.search(text[max(0, written.start - 24):written.start]))


def _tuples(text: str) -> list[tuple[int, int, str]]:
    """(start, end, body) of bracketed groups and AxBxC products that are not probe indices."""
    found = [(m.start(), m.end(), m.group("body")) for m in _TUPLE.finditer(text)]
    found += [(m.start(), m.end(), m.group(0).replace("×", ",").replace("x", ",")) for m in _TIMES.finditer(text)]
    return found


def shape_shown(text: str, shape: tuple[int, ...]) -> tuple[int, int] | None:
    if not shape:
        return None
    for start, end, body in _tuples(text):
        parts = [p.strip() for p in body.split(",")]
        trailing = parts and parts[-1] == ""
        parts = [p for p in parts if p]
        if not all(p.isdecimal() for p in parts) or tuple(int(p) for p in parts) != shape:
            continue
        if len(shape) == 1 and not trailing:
            continue   # "(8)" is a size in brackets; a 1-axis shape is written (8,)
        return start, end
    return None


def symbolic_shown(text: str, answer: str) -> tuple[int, int] | None:
    for start, end, body in _tuples(text):
        if not re.search(r"[A-Za-z]", body) or "," not in body:
            continue
        try:
            if all(parse_symbolic_shape(body, sizes) == parse_symbolic_shape(answer, sizes) for sizes in DISTINGUISHING_SIZES):
                return start, end
        except AnswerError:
            continue
    return None


def values_shown(text: str, values: np.ndarray, tolerance: float) -> tuple[int, int] | None:
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 1:
        hit = number_shown(text, float(values[0]))
        return (hit.start, hit.end) if hit else None
    numbers = numbers_in(text)
    for k in range(len(numbers) - values.size + 1):
        window = numbers[k:k + values.size]
        gaps = [text[a.end:b.start] for a, b in zip(window, window[1:])]
        if not all(re.fullmatch(r"\s*(?:[,;]|and)?\s*", gap) for gap in gaps):
            continue
        if all((w.value == v) if math.isinf(v) or math.isinf(w.value) else
               abs(w.value - v) <= max(tolerance, w.half_unit) + 1e-9 for w, v in zip(window, values)):
            # a whole sequence, each within the question's own tolerance: the learner could type it
            return window[0].start, window[-1].end
    return None


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s−∞.^/()+×÷·*-]", " ", text.lower()).split()).strip(" .")


def choice_shown(text: str, choices: list[str], answer: int) -> tuple[int, int] | None:
    choice = choices[answer].strip()
    try:
        number = float(choice.replace("−", "-"))
    except ValueError:
        number = None
    if number is not None:
        hit = number_shown(text, number)
        return (hit.start, hit.end) if hit else None
    wanted = _normal(choice)
    if len(wanted) < MIN_CHOICE_CHARS and len(wanted.split()) < MIN_CHOICE_WORDS:
        return None
    haystack = _normal(text)
    if wanted not in haystack:
        return None
    others = [_normal(c) for i, c in enumerate(choices) if i != answer]
    if others and all(o and o in haystack for o in others):
        return None   # every choice is quoted: the text does not say which is right
    words = r"\W+".join(re.escape(word) for word in re.findall(r"\w+", choice))
    found = re.search(words, text, re.I) if words else None
    return (found.start(), found.end()) if found else (0, len(choice))



_FORMULA_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE]-?\d+)?|\*\*|\.T\b|[-+*/@()]")
MAX_FORMULA_TOKENS = 60


@lru_cache(maxsize=2048)
def _folded(text: str) -> tuple[str, tuple[int, ...], frozenset[str]]:
    """fold() of a text and the words in it, kept: ``lessons check`` searches one text for many
    questions' formulas (every later lesson's, tutor.authoring.course_repeats), and folding, not the
    search, was most of its time."""
    folded, origin = fold(text)
    words = frozenset(token.group() for token in _FORMULA_TOKEN.finditer(folded) if token.group()[0].isalpha())
    return folded, tuple(origin), words


def formula_shown(text: str, names: set[str], same: Callable[[str], bool]) -> tuple[int, int] | None:
    """A formula written in the text (as typed or as printed: ``Q·Kᵀ/√d_k``) that ``same`` accepts.

    The text is folded as a learner's answer is (tutor.formulas.written); runs of formula tokens
    whose words are all symbols (``names``) or functions are candidates, and every stretch of a
    run that holds all the answer's symbols is read and compared, so prose around it does not
    matter and ``(Q·Kᵀ)/√d_k`` is found as well as ``Q @ K.T / sqrt(d_k)``."""
    folded, origin, words = _folded(text)
    if not names <= words:
        return None   # a symbol of the answer is nowhere in the text
    runs: list[list[re.Match]] = [[]]
    position = 0
    for token in _FORMULA_TOKEN.finditer(folded):
        word = token.group()
        allowed = not word[0].isalpha() or word in names or word in FUNCTIONS
        if folded[position:token.start()].strip() or not allowed:
            runs.append([])
        if allowed:
            runs[-1].append(token)
        position = token.end()
    for run in runs:
        run = run[:MAX_FORMULA_TOKENS]
        if not names <= {t.group() for t in run}:
            continue
        for i in range(len(run)):
            for j in range(len(run), i, -1):
                if not names <= {t.group() for t in run[i:j]}:
                    break
                start, end = run[i].start(), run[j - 1].end()
                candidate = folded[start:end]
                if candidate.count("(") == candidate.count(")") and candidate[-1] not in "-+*/@" and same(candidate):
                    return origin[start], origin[end - 1] + 1
    return None
