"""Two formulas of single numbers compared as formulas by SymPy, under a CPU budget.

The draws compare numbers within a tolerance, so ``H_x + H_y - H_xy + 1e-7*H_x`` passes them; SymPy
tells it apart.  ``simplify`` can grow without end, so it runs under tutor.formulas.budget, and
"cannot tell" (None) leaves the verdict to the draws.  Kept apart from the formula kind, which
decides when a question's answer is made of single numbers and asks here.
"""
from __future__ import annotations

import numpy as np

from tutor.common.lazy_import import sympy as sp   # SymPy loads at the first formula compared
from tutor.formulas.budget import CPU_SECONDS, within_budget
from tutor.formulas.evaluate import Node

MAX_SYMBOLIC_OPS = 60   # larger formulas are left to the draws: SymPy would spend its budget for nothing
HIGH_PRECISION_GAP = 1e-20   # of the answer's size, at 30 digits: rounding of an identity stays far below it


def _difference(mine: sp.Expr, reference: sp.Expr, points: list[dict]) -> bool | None:
    """Run under the CPU budget (tutor.formulas.budget): simplify can grow without end.

    When simplify leaves a difference it cannot reduce, the two are compared at 30 digits on the
    draws' values: an identity SymPy missed (a log rule) vanishes there, while a small extra term
    (``+ 1e-7*H_x``), far inside any float tolerance, does not."""
    difference = sp.simplify(mine.doit() - reference.doit())
    if difference == 0:
        return True
    if difference.is_number:
        return False if difference.is_finite else None
    for point in points:
        gap, scale = difference.evalf(30, subs=point), reference.doit().evalf(30, subs=point)
        if gap.is_real and scale.is_real and gap.is_finite and scale.is_finite and \
                abs(gap) > HIGH_PRECISION_GAP * max(1, abs(scale)):
            return False
    return None


def _exact(expr: sp.Expr) -> sp.Expr:
    """Numbers as the exact decimals written: a Float printed for the preview keeps only the digits
    typed, so ``1e-7`` had one digit of precision and ``H_x + 1e-7*H_x`` summed back to ``H_x``; and
    log₂, log₁₀ as ln ratios, which ``simplify`` compares with ``log(x)/log(2)``."""
    expr = expr.replace(lambda atom: atom.is_Float, lambda number: sp.Rational(str(number)))
    return expr.replace(lambda part: type(part).__name__ in ("log2", "log10"), lambda part: part.rewrite(sp.log))


def same_formula(mine: sp.Expr, reference: sp.Expr, draws: list, cpu_seconds: float = CPU_SECONDS) -> bool | None:
    """Equal as formulas (True), different (False), or cannot tell (None: too large, or past the
    budget); ``draws`` (tutor.grading.formula_draws.Draw) give the points for the 30-digit check."""
    mine, reference = _exact(mine), _exact(reference)
    if sp.count_ops(mine) + sp.count_ops(reference) > MAX_SYMBOLIC_OPS:
        return None
    from tutor.formulas.display import to_sympy

    points = [{to_sympy(Node("name", name), frozenset()): float(np.asarray(value).ravel()[0])
               for name, value in draw.values.items()} for draw in draws]
    return within_budget(_difference, mine, reference, points, cpu_seconds=cpu_seconds)
