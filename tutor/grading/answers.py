"""Parsing what a learner types.  Forgiving about form, strict about meaning.

Every parser raises ``AnswerError`` with a message that says what was expected, so the app
can show it and let the learner try again; nothing here raises anything else on any text.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

from tutor.common.i18n import _
from tutor.grading.fullwidth import CHINESE_INFINITY, normalize_answer_text, superscript_in

MAX_ANSWER_CHARS = 2000
_SIZE_SEPARATORS = re.compile(r"[\s,x×*;]+", re.IGNORECASE)
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d{1,3})?", re.IGNORECASE)
# 4,096 and 1,000,000.5: a comma followed by exactly three digits groups thousands where ONE number
# is asked (in a shape or a list of values a comma always separates; see docs/lessons.md)
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?")
_HEDGE = re.compile(r"^(约|大约|大概|差不多|近似|≈|~|about|approx\.?|approximately)\s*", re.IGNORECASE)
_COUNTER = re.compile(r"^([+-]?[\d.,/]+)\s*(个|次|维|层|头|种|项|条|位|元|行|列)$")
_INFINITY = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "∞": math.inf, "+∞": math.inf,
             "-∞": -math.inf, "−inf": -math.inf, "−∞": -math.inf, "infinity": math.inf,
             "-infinity": -math.inf}


class AnswerError(ValueError):
    """The learner's text could not be read as the kind of answer asked for."""


def _strip(text: str) -> str:
    if not isinstance(text, str):
        raise AnswerError(_("type an answer"))
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerError(_("that answer is {length} characters long; keep it under {limit}")
                          .format(length=len(text), limit=MAX_ANSWER_CHARS))
    text = normalize_answer_text(text).strip()
    if not text:
        raise AnswerError(_("type an answer first"))
    return text


def _numbers_text(text: str) -> str:
    """``_strip`` for answers made of numbers, refusing superscripts first: NFKC folds ⁶ into 6,
    so 2⁶ would be read as 26 and 6⁴,9⁶ as (64, 96)."""
    raised = superscript_in(text) if isinstance(text, str) else None
    if raised is not None:
        raise AnswerError(_("{char} is a superscript or subscript, which would be read as a plain digit "
                            "(2⁶ as 26); write the number itself, e.g. 64").format(char=repr(raised)))
    return _strip(text)


def _unwrap(text: str) -> str:
    pairs = {"(": ")", "[": "]", "{": "}"}
    while text and text[0] in pairs and text[-1] == pairs[text[0]]:
        text = text[1:-1].strip()
    return text


def parse_shape(text: str) -> tuple[int, ...]:
    """``(2, 2, 4, 4)``, ``2,2,4,4``, ``[2 2 4 4]``, ``2x2x4x4`` -> (2, 2, 4, 4)."""
    body = _unwrap(_numbers_text(text))
    parts = [p for p in _SIZE_SEPARATORS.split(body) if p]
    if not parts:
        raise AnswerError(_("a shape is a list of sizes, e.g. (2, 2, 4, 4)"))
    if len(parts) > 8:
        raise AnswerError(_("the tensors here have at most 8 axes; check the shape"))
    sizes = []
    for part in parts:
        if not part.isdecimal() or len(part) > 7:
            raise AnswerError(_("{part} is not a size; a shape is whole numbers like (2, 2, 4, 4)")
                              .format(part=repr(part)))
        sizes.append(int(part))
    return tuple(sizes)


def parse_number(text: str) -> float:
    """``0.25``, ``1/4``, ``-inf``, ``nan``, ``1e-3``, ``25%``, and arithmetic such as ``(1/2)^10`` -> float."""
    token = _unwrap(_numbers_text(text)).replace(" ", "")
    token = CHINESE_INFINITY.get(token, token)
    _refuse_words_around(token)
    if _THOUSANDS.fullmatch(token):
        token = token.replace(",", "")
    lowered = token.lower()
    if lowered in _INFINITY:
        return _INFINITY[lowered]
    if lowered in ("nan", "+nan", "-nan"):
        return math.nan
    percent = lowered.endswith("%")
    if percent:
        lowered = lowered[:-1]
    top, slash, bottom = lowered.partition("/")
    if slash and _NUMBER.fullmatch(top) and _NUMBER.fullmatch(bottom):
        try:
            value = float(Fraction(top) / Fraction(bottom))
        except ZeroDivisionError:
            raise AnswerError(_("division by zero in the answer")) from None
    elif _NUMBER.fullmatch(lowered):
        value = float(lowered)
    elif (worked := _worked_out(lowered)) is not None:
        value = worked
    elif slash:
        raise AnswerError(_("{token} is not a fraction like 1/4").format(token=repr(token)))
    else:
        raise AnswerError(_("{token} is not a number; write e.g. 0.25, 1/4, 2**-10, exp(12.96), -inf, nan").format(
            token=repr(token)))
    if math.isinf(value):
        raise AnswerError(_("{token} overflows; write inf or -inf for infinity").format(token=repr(token)))
    return value / 100 if percent else value


_CONSTANTS = {"e": math.e, "pi": math.pi}


def _worked_out(text: str) -> float | None:
    """Arithmetic a learner writes instead of its value, (1/2)^10, e^12.96, ln(65504), read by the
    formulas' parser (which runs nothing: no names but e and pi, powers within ±100): a question
    tests the idea, and a reveal that writes (1/2)¹⁰ should not refuse it typed.  None: not arithmetic."""
    import numpy as np

    from tutor.formulas.evaluate import FormulaError
    from tutor.formulas.parse import evaluate_formula, formula_symbols, parse_formula
    from tutor.formulas.written import fold_formula

    if not re.search(r"[\d)]", text) or len(text) > 200:
        return None
    try:
        formula = parse_formula(fold_formula(re.sub(r"\bln\(", "log(", text)))
        if not formula_symbols(formula) <= set(_CONSTANTS):
            return None
        with np.errstate(all="ignore"):
            value = evaluate_formula(formula, _CONSTANTS)
    except (FormulaError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return None
    if getattr(value, "size", 1) != 1:
        return None
    return float(value)


def _refuse_words_around(token: str) -> None:
    """'约 0.99' and '20个' say something true, but the grader reads numbers only: say the form,
    without costing a try (the tolerance already allows for rounding)."""
    hedge = _HEDGE.match(token)
    if hedge and token[hedge.end():]:
        raise AnswerError(_("write the number alone, without '{word}': the tolerance already allows for "
                            "rounding, e.g. {number}").format(word=hedge.group(1), number=token[hedge.end():]))
    counted = _COUNTER.match(token)
    if counted:   # the words are the patterns' own (quoted by each language's marks), never the learner's text
        raise AnswerError(_("write the number alone, without the counting word '{word}': e.g. {number}")
                          .format(word=counted.group(2), number=counted.group(1)))


def parse_values(text: str) -> list[float]:
    """A list of numbers: ``0.5, 0.5, 0, 0``, ``[1 -inf -inf]``, ``1/2 1/2``."""
    body = _numbers_text(text).replace("[", " ").replace("]", " ").replace("(", " ").replace(")", " ")
    parts = [p for p in re.split(r"[\s,;]+", body) if p]
    if not parts:
        raise AnswerError(_("type the values separated by commas or spaces, e.g. 1, 0, 0, 0"))
    if len(parts) > 256:
        raise AnswerError(_("that is more values than any question here asks for"))
    return [parse_number(part) for part in parts]


def parse_choice(text: str, choices: list[str]) -> int:
    """``b``, ``B``, ``2``, ``(b)`` or the choice's own text -> 0-based index."""
    token = _unwrap(_strip(text)).rstrip(").").strip()
    # 选b / 选 b / 选项b: "pick b", one letter either way
    token = re.sub(r"^选项?\s*", "", token) if re.fullmatch(r"选项?\s*\w", token) else token
    lowered = token.lower()
    if len(lowered) == 1 and "a" <= lowered < chr(ord("a") + len(choices)):
        return ord(lowered) - ord("a")
    if lowered.isdecimal() and 1 <= int(lowered) <= len(choices):
        return int(lowered) - 1
    for i, choice in enumerate(choices):
        if lowered == choice.strip().lower():
            return i
    last = chr(ord("a") + len(choices) - 1)
    raise AnswerError(_("pick one of a–{last} (or 1–{count})").format(last=last, count=len(choices)))


# Symbolic shapes: "(B, H, L, D/H)" -> tuples of small expression trees over size names.
_SYMBOL_TOKEN = re.compile(r"\s*(\d+|[A-Za-z][A-Za-z_]*|[*/+\-()])")
# multiplication signs inside one size: 4×D, 4·D, H·D_head (the lessons' own notation)
_TIMES = str.maketrans({"×": "*", "·": "*", "⋅": "*", "∙": "*", "・": "*"})


def _tokenize_dim(text: str) -> list[str]:
    tokens, pos = [], 0
    while pos < len(text):
        match = _SYMBOL_TOKEN.match(text, pos)
        if not match:
            if text[pos:].strip() == "":
                break
            raise AnswerError(_("unexpected {text} in a size; use names like B, H, L, D_head and * /")
                              .format(text=repr(text[pos:].strip()[:10])))
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


def evaluate_dim(text: str, sizes: dict[str, int]) -> int:
    """Evaluate one symbolic size such as ``4D``, ``4*D``, ``D/H`` or ``D_head`` by substitution."""
    tokens = _tokenize_dim(text.translate(_TIMES))
    # implicit multiplication: "4D" -> 4 * D
    expanded: list[str] = []
    for token in tokens:
        if expanded and (expanded[-1].isdigit() or expanded[-1].isalpha() or expanded[-1] == ")") and \
                (token[0].isalpha() or token == "("):
            expanded.append("*")
        expanded.append(token)
    position = 0

    def peek() -> str | None:
        return expanded[position] if position < len(expanded) else None

    def take() -> str:
        nonlocal position
        position += 1
        return expanded[position - 1]

    def atom() -> Fraction:
        token = peek()
        if token is None:
            raise AnswerError(_("incomplete size {size}").format(size=repr(text)))
        take()
        if token == "(":
            value = expr()
            if peek() != ")":
                raise AnswerError(_("missing ')' in {size}").format(size=repr(text)))
            take()
            return value
        if token.isdigit():
            return Fraction(int(token))
        if token in sizes:
            return Fraction(sizes[token])
        known = ", ".join(sorted(sizes))
        raise AnswerError(_("unknown size {name}; this question knows {known}").format(name=repr(token), known=known))

    def term() -> Fraction:
        value = atom()
        while peek() in ("*", "/"):
            op, right = take(), atom()
            if op == "/" and right == 0:
                raise AnswerError(_("division by zero in a size"))
            value = value * right if op == "*" else value / right
        return value

    def expr() -> Fraction:
        value = term()
        while peek() in ("+", "-"):
            op, right = take(), term()
            value = value + right if op == "+" else value - right
        return value

    if len(expanded) > 40:
        raise AnswerError(_("that size expression is too long"))
    value = expr()
    if peek() is not None:
        raise AnswerError(_("unexpected {token} in {size}").format(token=repr(peek()), size=repr(text)))
    if value.denominator != 1:
        raise AnswerError(_("{size} is not a whole number of entries").format(size=repr(text)))
    return int(value)


def parse_symbolic_shape(text: str, sizes: dict[str, int]) -> tuple[int, ...]:
    """``(B, H, L, L)`` -> the concrete shape after substituting the lesson's sizes."""
    body = _unwrap(_numbers_text(text))
    # With commas, they alone separate the axes and × is a product inside one ((B, L, 4×D) has
    # three axes); without any, × separates as x does (B×H×L×L).  · is always a product.
    separators = r"[,;]" if re.search(r"[,;]", body) else r"\s+x\s+|×"
    parts = [p.strip() for p in re.split(separators, body) if p.strip()]
    if len(parts) == 1 and " " in parts[0]:
        parts = parts[0].split()
    if not parts or len(parts) > 8:
        raise AnswerError(_("write a shape such as (B, H, L, L)"))
    return tuple(evaluate_dim(part, sizes) for part in parts)
