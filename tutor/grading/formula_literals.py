"""A number written for what the question lets the learner write exactly: one rule for all of them.

A formula question asks for a formula in its symbols, so a number that stands for one of them is
refused, and the nudge says what it stands for (issue 31: the grader had accepted ``eps / 96``
for ``eps / V`` and ``exp(sum(l) / 4)`` while refusing ``/ 45`` for ``/ n``, and called ``0.9`` for
``b1`` a plain coincidence).  A number stands for

- a bound symbol's value (``V`` = 96, ``n`` = 45, ``b1`` = 0.9) or a size's root (2 for √d_k);
- the length of a bound tensor (``l`` has 4 entries): ``sum(l) / 4`` is ``mean(l)`` only while it has 4;
- a constant the answer writes, rounded (0.693 for ``log(2)``, 1.4427 for ``1/log(2)``).

It is named only when writing the name instead of the number makes the answer right on every draw
(so a 2 that equals √d_k somewhere unrelated is never called √d_k); a length is tried on one more
draw where the tensors have another length, since the lesson's draws may never change it.  The one
exception is a bound value whose number is in an answer that is right on the lesson's own values:
``(0.81*G_1 + 0.9*G_2 + G_3)/2.71`` names b1 though 0.81 and 2.71 must be rewritten too.
"""
from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from tutor.common.i18n import _
from tutor.formulas.evaluate import FormulaError, Node, evaluate_tree, tree_names
from tutor.grading.formula_draws import Draw, resampled
from tutor.grading.formula_folded import folded
from tutor.grading.formula_nudges import Nudge, Outcome, close_enough
from tutor.grading.formula_omitted import left_out, left_out_nudge
from tutor.grading.formula_says import shaped_like


@dataclass(frozen=True)
class Written:
    number: str      # as written: "96", "0.693"
    name: str        # what to write instead: "V", "√d_k", "log(2)", "l"
    kind: str        # "size", "value", "length", "rounded"
    everywhere: bool = True   # writing the name instead is right on every draw


def _numbers(node: Node) -> Iterator[Node]:
    if node.kind == "num":
        yield node
    for arg in node.args:
        yield from _numbers(arg)


def _replaced(node: Node, value: float, new: Node, only: frozenset[int] | None = None) -> Node:
    """Every occurrence of the number ``value`` replaced (``0.9`` is b1 in ``(1 - 0.9)*…/(1 - 0.9**3)``),
    or those at the columns in ``only``."""
    if node.kind == "num" and float(node.value) == value and (only is None or node.col in only):
        return new
    return Node(node.kind, node.value, tuple(_replaced(arg, value, new, only) for arg in node.args), node.col)


def _choices(tree: Node, value: float) -> list[frozenset[int] | None]:
    """Which occurrences of a number to replace: all, then each smaller set of them (up to four
    occurrences): in ``S*cos(2/10000**(2*i/d))`` the shift k is the first 2, not the 2 of 2·i."""
    columns = sorted({node.col for node in _numbers(tree) if float(node.value) == value})
    if len(columns) > 4:
        return [None]
    subsets = [frozenset(c for bit, c in enumerate(columns) if mask >> bit & 1) for mask in range(1, 2 ** len(columns))]
    return [None] + sorted((s for s in subsets if len(s) < len(columns)), key=len, reverse=True)


def _result(tree: Node, values: dict, expected) -> np.ndarray | None:
    try:
        result = np.asarray(evaluate_tree(tree, values), dtype=np.float64)
    except FormulaError:
        return None
    return shaped_like(result, expected)


def _right_everywhere(outcomes: list[Outcome], tolerance: float, tree_on: Callable[[Draw], Node]) -> bool:
    return all(close_enough(_result(tree_on(o.draw), o.draw.values, o.expected), o.expected, tolerance)
               for o in outcomes)


def _rounded(text: float, exact: float) -> bool:
    """``text`` is ``exact`` to every digit written, with two significant digits at least, but not
    exactly it: 0.693 for ln 2 = 0.6931…, 1.4427 for 1/ln 2; never 1 for ln 2, nor 0.5 for 1/2."""
    written = repr(float(text))
    if "e" in written or not math.isfinite(exact) or exact == 0 or text == exact:
        return False
    decimals = len(written.partition(".")[2].rstrip("0"))
    digits = len(written.replace(".", "").replace("-", "").lstrip("0").rstrip("0")) if decimals else \
        len(written.partition(".")[0].lstrip("-").rstrip("0"))
    if digits >= 15:
        return False   # a number folded from 2**0.5 differs from sqrt(2) in its last bit: nobody rounded it
    return digits >= 2 and abs(text - exact) <= 0.5 * 10.0 ** -decimals * (1 + 1e-9)


def _bound_values(outcomes: list[Outcome]) -> Iterator[tuple[str, float]]:
    own = outcomes[0].draw.values
    for name, value in own.items():
        if np.size(value) == 1 and np.isfinite(value).all() and float(np.asarray(value).ravel()[0]) != 0:
            yield name, float(np.asarray(value).ravel()[0])


def _sized(outcomes: list[Outcome]) -> set[str]:
    """The symbols the draws at other sizes give other values: sizes (d_k, V), not parameters (s, b1)."""
    own = outcomes[0].draw.values
    return {name for name, value in own.items() for o in outcomes if o.draw.other_sizes and
            np.size(o.draw.values[name]) == 1 and not np.array_equal(o.draw.values[name], value)}


def _forms(name: str, value: float, count: bool) -> list[tuple[str, float, Node]]:
    """What a number may stand for: the value, its reciprocal (0.5 for 1/T where T is 2, the exponent of
    pr-temperature's ``p**0.5``: issue 31), and a count's root and its reciprocal (2 and 0.5 for √d_k)."""
    symbol = Node("name", name)
    forms = [("{name}", value, symbol), ("1/{name}", 1 / value, Node("op", "/", (Node("num", 1), symbol)))]
    if count:
        root = Node("call", "sqrt", (symbol,))
        forms += [("√{name}", math.sqrt(value), root),
                  ("1/√{name}", 1 / math.sqrt(value), Node("op", "/", (Node("num", 1), root)))]
    return forms


def _symbol(tree: Node, outcomes: list[Outcome], tolerance: float) -> Written | None:
    """A bound value (or a size's root) written as its number; see the module's rule."""
    partial = None
    bound, sized = list(_bound_values(outcomes)), _sized(outcomes)   # the same for every number written
    for number in _numbers(tree):
        written = float(number.value)
        for name, value in bound:
            count = value >= 2 and value == round(value)
            for shown, exact, node in _forms(name, value, count):
                if not (math.isclose(written, exact, rel_tol=1e-9) or _rounded(written, exact)):
                    continue
                kind = "size" if count and name in sized else "value"
                exactly = math.isclose(written, exact, rel_tol=1e-9)
                for only in _choices(tree, written):
                    new = _replaced(tree, written, node, only)
                    if _right_everywhere(outcomes, tolerance, lambda draw: new):   # 0.1667 is 1/n rounded
                        return Written(f"{written:g}", shown.format(name=name), kind if exactly else "rounded")
                if kind == "value" and partial is None and \
                        close_enough(outcomes[0].yours, outcomes[0].expected, tolerance):
                    partial = Written(f"{written:g}", shown.format(name=name), kind, everywhere=False)
    return partial


def _lengths(outcomes: list[Outcome]) -> Iterator[tuple[str, int]]:
    """(symbol, axis) of each bound tensor's axis of two or more entries."""
    for name, value in outcomes[0].draw.values.items():
        for axis, length in enumerate(np.shape(value)):
            if length >= 2:
                yield name, axis


def _length(tree: Node, outcomes: list[Outcome], tolerance: float) -> Written | None:
    """A bound tensor's length written as its number, where the draws at other sizes change it."""
    lengths = list(_lengths(outcomes))
    for number in _numbers(tree):
        written = float(number.value)
        for name, axis in lengths:
            if written != np.shape(outcomes[0].draw.values[name])[axis]:
                continue
            if _right_everywhere(outcomes, tolerance, lambda draw: _replaced(
                    tree, written, Node("num", float(np.shape(draw.values[name])[axis])))):
                return Written(f"{written:g}", name, "length")
    return None


def _fixed_length(question_id: str, tree: Node, reference: Node, outcomes: list[Outcome],
                  tolerance: float) -> Written | None:
    """A length no draw changes (``l`` is a slice of 4 scored positions): tried on one more draw where
    every axis of that length is one longer; the reference decides what is right there."""
    own = outcomes[0].draw
    for number in _numbers(tree):
        written = float(number.value)
        if written != round(written) or written < 2:
            continue
        fixed = {name: [axis for axis, length in enumerate(np.shape(value)) if length == written and
                        all(np.shape(o.draw.values[name])[axis] == length for o in outcomes)]
                 for name, value in own.values.items() if np.ndim(value)}
        if not any(fixed.values()):
            continue
        rng = np.random.default_rng(zlib.crc32(f"{question_id}:{written:g}".encode("utf-8")))
        longer = int(written) + 1
        values = {name: resampled(value, tuple(longer if axis in fixed.get(name, ()) else length
                                               for axis, length in enumerate(np.shape(value))), rng)
                  if fixed.get(name) else value for name, value in own.values.items()}
        expected = _result(reference, values, outcomes[0].expected)
        if expected is None or (np.isfinite(outcomes[0].expected).all() and not np.isfinite(expected).all()):
            continue   # the reference cannot take that length, or leaves its domain there
        draw = Outcome(Draw(values, own.sizes, True), None, expected)
        if not close_enough(_result(tree, values, expected), expected, tolerance) and \
                _right_everywhere([draw], tolerance, lambda _d: _replaced(tree, written, Node("num", float(longer)))):
            return Written(f"{written:g}", next(name for name, axes in fixed.items() if axes), "length")
    return None


def _constants(node: Node) -> Iterator[Node]:
    """The answer's constants that are not plain numbers: log(2), sqrt(2), 1/log(2)."""
    if node.kind != "num" and not tree_names(node):
        yield node
        yield Node("op", "/", (Node("num", 1), node))
        return
    for arg in node.args:
        yield from _constants(arg)


def _constant(tree: Node, reference: Node, outcomes: list[Outcome], tolerance: float) -> Written | None:
    """A constant of the answer written rounded, where the exact constant makes yours right everywhere."""
    constants = [(constant, float(np.asarray(evaluate_tree(constant, {})).ravel()[0]))
                 for constant in _constants(reference)]   # the answer's, evaluated once for all numbers
    for number in _numbers(tree):
        for constant, exact in constants:
            if _rounded(float(number.value), exact):
                new = _replaced(tree, float(number.value), constant)
                if _right_everywhere(outcomes, tolerance, lambda draw: new):
                    from tutor.common.lazy_import import sympy as sp   # SymPy only when one is found
                    from tutor.formulas.display import to_sympy

                    return Written(f"{float(number.value):g}", sp.sstr(to_sympy(constant, frozenset())), "rounded")
    return None


def written_number(question_id: str, tree: Node, reference: Node, outcomes: list[Outcome], tolerance: float,
                   right: bool) -> Written | None:
    """What a number in the learner's formula stands for, if anything (see the module's rule).

    ``right``: the formula is right on every draw already; only a rounded constant or a length that
    no draw changes can hide there.  Where the numbers as written name nothing, constant parts are
    folded (``/(2*3)`` is ``/6``) and the nudge quotes them as written (tutor.grading.formula_folded)."""
    found = _written(question_id, tree, reference, outcomes, tolerance, right)
    if found is None:
        tree, texts = folded(tree)
        found = _written(question_id, tree, reference, outcomes, tolerance, right) if texts else None
        return replace(found, number=texts[found.number]) if found and found.number in texts else found
    return found


def _written(question_id: str, tree: Node, reference: Node, outcomes: list[Outcome], tolerance: float,
             right: bool) -> Written | None:
    if right:
        return _constant(tree, reference, outcomes, tolerance) or \
            _fixed_length(question_id, tree, reference, outcomes, tolerance)
    return _constant(tree, reference, outcomes, tolerance) or _symbol(tree, outcomes, tolerance) or \
        _length(tree, outcomes, tolerance)


def literal_nudge(written: Written) -> Nudge:
    """The nudge for a number written for a name; it names what to write, never the answer."""
    if written.kind == "size":
        return Nudge("size", _("Yours equals the answer for these sizes only by coincidence: the {number} in it is "
                               "{name} here. Write it as {name}, so that it holds at every size.").format(
            number=written.number, name=written.name))
    if written.kind == "length":
        return Nudge("size", _("Yours holds only while {name} has {number} entries: the {number} in it is that "
                               "count. Write it so that it holds for any length (mean and sum do the counting).").format(
            number=written.number, name=written.name))
    if written.kind == "rounded":
        return Nudge("rounded", _("Yours is right only up to a rounded number: the {number} in it is {name}, "
                                  "rounded. Write {name}: a formula holds exactly.").format(
            number=written.number, name=written.name))
    if written.everywhere:
        return Nudge("value", _("Yours equals the answer for these values only by coincidence: the {number} in it "
                                "is {name}'s value here. Write it as {name}, so that it holds for every value.").format(
            number=written.number, name=written.name))
    return Nudge("value", _("Yours equals the answer on these values only by coincidence: the {number} in it is "
                            "{name}'s value here. Write {name} instead, and every number made from it in terms of "
                            "{name} too.").format(number=written.number, name=written.name))


def not_the_formula(question_id: str, tree: Node, reference: Node, outcomes: list[Outcome],
                    tolerance: float) -> Nudge | None:
    """Why a formula right on every draw is still not the one asked for: a rounded constant, a length
    no draw changes, a symbol the answer depends on left out (tutor.grading.formula_omitted); or None."""
    if written := written_number(question_id, tree, reference, outcomes, tolerance, right=True):
        return literal_nudge(written)
    if names := left_out(tree, reference, outcomes):
        return left_out_nudge(names)
    return None


def bare_number_nudge(tree: Node, reference: Node) -> Nudge | None:
    """An answer with no name in it where the question asks for a formula of names: 0.725 for la-svd's
    √((σ₁² + σ₂²)/2) heard only "too low here" (an unseen reader), which invites a better number, not a formula."""
    names = sorted(tree_names(reference))
    if tree_names(tree) or not names:
        return None
    return Nudge("number", _("Yours is one number; the question asks for a formula. Write it from {names}, so that "
                             "it holds whatever their values.").format(names=", ".join(names)))
