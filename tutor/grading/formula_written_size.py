"""A size written as its number: ``Q @ K.T / 2`` where the answer divides by √d_k and d_k is 4.

The draws at other sizes already refuse such an answer ("equal only by coincidence"), but a
learner who wrote the number on purpose learns more from which size it stands for.  The nudge
names it only when writing that size instead of the number makes the answer right on every draw,
so a 2 that happens to equal √d_k in an unrelated place is never called √d_k.
"""
from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from tutor.formulas.evaluate import FormulaError, Node, evaluate_tree
from tutor.grading.formula_nudges import Outcome, close_enough

# how a number may stand for a bound size: the size itself, or its root (√d_k in a scale)
_WRITTEN = (("{name}", lambda value: value, lambda name: Node("name", name)),
            ("√{name}", math.sqrt, lambda name: Node("call", "sqrt", (Node("name", name),))))


def _numbers(node: Node) -> Iterator[Node]:
    if node.kind == "num":
        yield node
    for arg in node.args:
        yield from _numbers(arg)


def _replaced(node: Node, old: Node, new: Node) -> Node:
    if node is old:
        return new
    return Node(node.kind, node.value, tuple(_replaced(arg, old, new) for arg in node.args), node.col)


def _right_everywhere(tree: Node, outcomes: list[Outcome], tolerance: float) -> bool:
    for outcome in outcomes:
        try:
            result = np.asarray(evaluate_tree(tree, outcome.draw.values), dtype=np.float64)
        except FormulaError:
            return False
        if np.ndim(result) == 0 and np.size(outcome.expected) == 1:
            result = np.reshape(result, np.shape(outcome.expected))
        if not close_enough(result, outcome.expected, tolerance):
            return False
    return True


def written_size(tree: Node, outcomes: list[Outcome], tolerance: float) -> tuple[str, str] | None:
    """(the number as written, the size it stands for) when one number in the answer is a bound
    size (or its root) on the lesson's draw and writing the size instead is right on every draw."""
    own = outcomes[0].draw.values
    sizes = {name: float(np.asarray(value).ravel()[0]) for name, value in own.items()
             if np.size(value) == 1 and np.isfinite(value).all() and float(np.asarray(value).ravel()[0]) >= 2}
    for number in _numbers(tree):
        for name, value in sizes.items():
            for shown, form, written in _WRITTEN:
                if math.isclose(float(number.value), form(value), rel_tol=1e-9) and \
                        _right_everywhere(_replaced(tree, number, written(name)), outcomes, tolerance):
                    return f"{number.value:g}", shown.format(name=name)
    return None
