"""A learner's formula text read over a question's symbols, as a lesson formula is read.

The text is folded to the lesson formula syntax (tutor.formulas.written) and read by the same
whitelisting parser as a lesson's formula: nothing is ever run as code.  Then the spellings that
need the question to decide are settled: ``β₁`` is the bound ``beta1``, ``ℯ^x`` is ``exp(x)`` where
no ``e`` is bound, ``K^T`` is the transpose where no ``T`` is bound, ``QK`` is ``Q·K`` where only
``Q`` and ``K`` are; and a name in the question's ``forbid:`` is refused, at no cost.
"""
from __future__ import annotations

import dataclasses
from functools import reduce

from tutor.common.i18n import P_, _
from tutor.formulas.evaluate import FormulaError, Node, tree_names
from tutor.formulas.parse import PAIRWISE, Formula, parse_formula
from tutor.formulas.written import fold_formula
from tutor.grading.answers import AnswerError


class Unreadable(AnswerError):
    """The text does not parse as a formula; ``folded`` is what was read and ``column`` where it fails."""

    def __init__(self, message: str, folded: str, column: int | None):
        super().__init__(message)
        self.folded, self.column = folded, column


_PAIRWISE_OPS = {("op", name) for name in PAIRWISE}   # max(a, b) is an operator node but names max all the same


class UnknownSymbol(AnswerError):
    word = "symbol"


class Forbidden(AnswerError):
    """The answer uses a name the question asks to do without (``forbid:``); like a typo, it costs no try."""
    word = "forbidden"


def names_used(node: Node) -> set[str]:
    """Every symbol and function the formula names."""
    own = {str(node.value)} if node.kind in ("name", "call") or (node.kind, node.value) in _PAIRWISE_OPS else set()
    return own.union(*(names_used(arg) for arg in node.args))


def _printed(name: str) -> str:
    """How SymPy draws the name (``beta1`` is β₁): asked only for a name the question does not bind,
    so reading a lesson's own answers (all bound) does not load SymPy."""
    from tutor.formulas.display import expr_unicode, to_sympy

    return expr_unicode(to_sympy(Node("name", name), frozenset()))


def _renamed(node: Node, names: dict[str, str]) -> Node:
    if node.kind == "name":
        return dataclasses.replace(node, value=names.get(str(node.value), node.value))
    return dataclasses.replace(node, args=tuple(_renamed(arg, names) for arg in node.args))


def _letters(node: Node, bind) -> list[Node] | None:
    """``QK`` read as ``Q``, ``K`` where it is not bound itself and each of its letters is."""
    name = str(node.value)
    if node.kind != "name" or name in bind or len(name) < 2 or not all(letter in bind for letter in name):
        return None
    return [Node("name", letter, col=node.col + i) for i, letter in enumerate(name)]


def _spelled(node: Node, bind) -> Node:
    """``e ** x`` (typed ``ℯ^x``, as the preview prints exp) is ``exp(x)`` where no ``e`` is bound;
    ``K ** T`` (typed ``K^T``) is ``K.T`` where no ``T`` is; ``QK`` is ``Q·K`` where only ``Q`` and
    ``K`` are bound, and in ``QKᵀ`` the transpose is ``K``'s, as on paper."""
    def product(parts: list[Node]) -> Node:
        return reduce(lambda left, right: Node("op", "@", (left, right), node.col), parts)
    if (parts := _letters(node, bind)) is not None:
        return product(parts)
    if node.kind == "T" and (parts := _letters(node.args[0], bind)) is not None:
        return product(parts[:-1] + [Node("T", None, (parts[-1],), node.col)])
    args = tuple(_spelled(arg, bind) for arg in node.args)
    if node.kind == "op" and node.value == "**" and args[0].kind == "name" and args[0].value == "e" and "e" not in bind:
        return Node("call", "exp", (args[1],), node.col)
    if node.kind == "op" and node.value == "**" and args[1].kind == "name" and args[1].value == "T" and "T" not in bind:
        return Node("T", None, (args[0],), node.col)
    return dataclasses.replace(node, args=args)


def _products(node: Node, matrices: frozenset[str]) -> tuple[Node, bool]:
    """``·`` is folded to ``@``; where one side is a scalar it means ``*`` (as it prints: a·b)."""
    if node.kind == "name":
        return node, str(node.value) in matrices
    if node.kind == "num":
        return node, False
    parts = [_products(arg, matrices) for arg in node.args]
    node = dataclasses.replace(node, args=tuple(p[0] for p in parts))
    if node.kind == "op" and node.value == "@" and not all(p[1] for p in parts):
        node = dataclasses.replace(node, value="*")
    return node, any(p[1] for p in parts)


def read(question, text: str) -> Formula:
    """The learner's text as a formula over the question's symbols (``β₁`` is ``beta1``, ``ε`` is ``eps``)."""
    folded = fold_formula(text)
    matrices = frozenset(question.matrices)
    try:
        formula = parse_formula(folded, matrices=matrices)
    except FormulaError as error:
        raise Unreadable(error.message, folded, error.column) from None
    names, offered = {}, None
    tree = _spelled(formula.tree, question.bind)
    for name in sorted(tree_names(tree)):
        if name not in question.bind:
            offered = offered or {_printed(bound): bound for bound in question.bind}
            if _printed(name) not in offered:
                raise UnknownSymbol(_("{name} is not a symbol this question offers; it offers {offered}").format(
                    name=name, offered=P_("between the numbers of a list", ", ").join(question.bind)))
            names[name] = offered[_printed(name)]
    tree, _matrix = _products(_renamed(tree, names), matrices)
    if used := sorted(names_used(tree) & set(question.forbid)):
        raise Forbidden(_("this question asks for the answer without {names}: write it with the other "
                          "functions and symbols").format(names=", ".join(used)))
    return Formula(folded, tree, matrices)


