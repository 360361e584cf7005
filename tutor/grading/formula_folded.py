"""A learner's constant sub-expressions folded into the numbers they make, before the numbers-for-names rule.

``(p - y) @ E / (2*3)`` writes n = 6 as surely as ``/ 6`` does, but the rule of
tutor.grading.formula_literals looks at the numbers written, so the first was called "only by
coincidence" and the second named n (issue 31, grade3 #1).  Folding every part that reads no symbol
(``2*3``, ``sqrt(64)``, ``1/log(2)``) into one number, and a chain ``x / 2 / 3`` or ``x * 2 * 3`` into
``x / 6`` or ``x * 6``, lets one rule see them all; the nudge then quotes the part as it was written
(``the 2*3 in it``), never the value alone, so the learner finds it in their own text.
"""
from __future__ import annotations

import math

import numpy as np

from tutor.formulas.evaluate import FormulaError, Node, evaluate_tree, tree_names

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "@": 2, "**": 3, "max": 5, "min": 5}   # max(a, b) needs no brackets


def written_text(node: Node) -> str:
    """A part as the learner would have typed it: ``2*3``, ``sqrt(64)``, ``1/log(2)``, ``phi_Q@phi_K.T``."""
    if node.kind == "num":
        return f"{float(node.value):g}"
    if node.kind == "neg":
        return f"-{_operand(node.args[0], 3)}"
    if node.kind == "call":
        return f"{node.value}({written_text(node.args[0])})"
    if node.kind == "T":
        return f"{_operand(node.args[0], 4)}.T"
    if node.kind == "op" and node.value in ("max", "min"):
        return f"{node.value}({written_text(node.args[0])}, {written_text(node.args[1])})"
    if node.kind == "op":
        level = _PRECEDENCE.get(str(node.value), 3)
        between = " @ " if node.value == "@" else str(node.value)   # a product of tensors, as lessons write it
        return f"{_operand(node.args[0], level)}{between}{_operand(node.args[1], level + 0.5)}"
    return str(node.value)


def _operand(node: Node, level: float) -> str:
    text = written_text(node)
    return f"({text})" if node.kind == "op" and _PRECEDENCE.get(str(node.value), 3) < level else text


def _value(node: Node) -> float | None:
    try:
        value = np.asarray(evaluate_tree(node, {}), dtype=np.float64)
    except FormulaError:
        return None
    return float(value.ravel()[0]) if value.size == 1 and np.isfinite(value).all() else None


def folded(tree: Node) -> tuple[Node, dict[str, str]]:
    """The tree with each constant part a number, and how each such number was written
    (``{"6": "2*3"}``, keyed as :class:`tutor.grading.formula_literals.Written` shows numbers)."""
    texts: dict[str, str] = {}
    return _fold(tree, texts), texts


def _fold(node: Node, texts: dict[str, str]) -> Node:
    if node.kind == "num":
        return node
    if not tree_names(node) and node.kind != "name" and (value := _value(node)) is not None:
        texts.setdefault(f"{value:g}", written_text(node))
        return Node("num", value, (), node.col)
    args = tuple(_fold(arg, texts) for arg in node.args)
    inner = args[0] if args else None
    if node.kind == "op" and node.value in ("*", "/") and inner is not None and inner.kind == "op" and \
            inner.value == node.value and inner.args[1].kind == "num" and args[1].kind == "num":
        value = float(inner.args[1].value) * float(args[1].value)   # x/2/3 is x/6, x*2*3 is x*6
        if math.isfinite(value) and value != 0:
            texts.setdefault(f"{value:g}", f"{written_text(inner.args[1])}*{written_text(args[1])}")
            return Node("op", node.value, (inner.args[0], Node("num", value, (), inner.args[1].col)), node.col)
    return Node(node.kind, node.value, args, node.col)
