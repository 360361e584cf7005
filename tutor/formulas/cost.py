"""What evaluating a formula costs, from the shapes alone, before any number is computed.

A learner's formula is evaluated on the live tensors several times (tutor.grading.formula_draws),
and a lesson's budget (tutor.experiments.registry: about 4e10 multiply-adds per lesson) was
set for its model, not for what someone types: ``Q.T @ Q @ Q.T @ Q …`` on a (512, 512) slice
is hundreds of billions.  So the shapes are walked first and a formula over the limit is
refused with its estimate, the way an over-budget lesson is refused when it loads.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from tutor.common.i18n import M_
from tutor.formulas.evaluate import FormulaError, Node

# One evaluation may cost a hundredth of a lesson's budget (about 0.04 s on the 2-core test
# machine), so grading an answer on five draws stays well under a second.
EVALUATION_WORK = 4e8          # multiply-adds
EVALUATION_VALUES = 2e7        # values in the largest tensor it builds (160 MB in float64)
_REDUCING = {"sum", "prod", "mean", "var", "max"}


def _matmul_shape(a: tuple, b: tuple, col: int) -> tuple[tuple, int]:
    """np.matmul's rule: 1-D operands gain and lose an axis, the batch axes broadcast."""
    left, right = (1, *a) if len(a) == 1 else a, (*b, 1) if len(b) == 1 else b
    if not a or not b or left[-1] != right[-2]:
        raise FormulaError(M_("matmul shape mismatch at column {column}: {left} @ {right}", column=col, left=a, right=b), col)
    try:
        batch = np.broadcast_shapes(left[:-2], right[:-2])
    except ValueError:
        raise FormulaError(M_("matmul shape mismatch at column {column}: {left} @ {right}", column=col, left=a, right=b), col) from None
    shape = (*batch, left[-2], right[-1])
    if len(a) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(b) == 1:
        shape = shape[:-1]
    return shape, left[-1]


def _walk(node: Node, shapes: Mapping[str, tuple], seen: list | None = None) -> tuple[tuple, float, float]:
    """(shape, multiply-adds, largest tensor) of ``node``; ``seen`` collects (part, shape) of every
    part, the operands before the operation (the same order on every draw)."""
    if node.kind == "num":
        return (), 0.0, 1.0
    if node.kind == "name":
        shape = tuple(shapes.get(str(node.value), ()))
        return shape, 0.0, float(math.prod(shape))
    parts = [_walk(arg, shapes, seen) for arg in node.args]
    work = sum(p[1] for p in parts)
    largest = max(p[2] for p in parts)
    shape = parts[0][0]
    if node.kind == "T":
        shape = shape[:-2] + shape[-2:][::-1]
    elif node.kind == "call" and node.value in _REDUCING:
        shape = shape[:-1] + (1,) if shape else ()
    elif node.kind == "op" and node.value == "@":
        shape, inner = _matmul_shape(parts[0][0], parts[1][0], node.col)
        work += math.prod(shape) * inner
    elif node.kind == "op":
        try:
            shape = tuple(np.broadcast_shapes(parts[0][0], parts[1][0]))
        except ValueError:
            raise FormulaError(M_("shapes {left} and {right} do not broadcast for '{operator}' at column {column}",
                                  left=parts[0][0], right=parts[1][0], operator=node.value, column=node.col),
                               node.col) from None
    size = float(math.prod(shape))
    if seen is not None:
        seen.append((node, shape))
    return shape, work + size, max(largest, size)


def evaluation_cost(node: Node, shapes: Mapping[str, tuple]) -> tuple[float, float]:
    """(multiply-adds, values in the largest tensor) of one evaluation on tensors of these shapes."""
    _, work, largest = _walk(node, shapes)
    return work, largest


def part_shapes(node: Node, shapes: Mapping[str, tuple]) -> list[tuple[Node, tuple]]:
    """(part, its shape) of every operation in ``node`` on tensors of these shapes, inner parts first:
    what an evaluation builds on the way (FormulaError where the shapes do not fit)."""
    seen: list[tuple[Node, tuple]] = []
    _walk(node, shapes, seen)
    return seen


def over_budget(node: Node, shapes: Mapping[str, tuple]) -> str | None:
    """Why this formula is too costly to evaluate on these shapes, or None."""
    work, largest = evaluation_cost(node, shapes)
    if work <= EVALUATION_WORK and largest <= EVALUATION_VALUES:
        return None
    return (f"it would take about {work:.1e} multiply-adds and a tensor of {largest:.1e} values "
            f"(the limit is {EVALUATION_WORK:.0e} and {EVALUATION_VALUES:.0e})")
