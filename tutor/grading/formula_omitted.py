"""A symbol the answer depends on, left out, where the numbers cannot tell.

Adam's first step on a loss scaled by s (op-sgd-vs-adam asked it until issue 31's fourth pass; the
rule is kept by tests/test_formula_kind.py) is ``-lr*s*g/(s*abs(g) + eps)``: eps/s is 1e-11
and the smallest |g| is 1.5e-6, so ``-lr*g/abs(g)`` (eps left out) moves no entry by more than
7e-6 of itself, inside any tolerance a float32 probe allows, while ``-lr*g/(abs(g) + eps)`` (eps
kept, not scaled by s) is off by up to 0.7% and refused at 30 of 768 entries.  Both miss where eps
goes, so both are refused (issue 31, review A #2): an answer that does without a symbol the answer
depends on is not the formula asked for, however little that symbol moves the numbers here.

The answer depends on a symbol when changing that symbol alone (by half of it) changes the
answer's result beyond round-off; a symbol that cancels, or a zero, changes nothing and is not asked for.
Two names bound to the same size (la-scaled-scores offers d_k and D_head, the lesson's own name for the
head size) are one symbol under two names: using either is not leaving the other out.
"""
from __future__ import annotations

import numpy as np

from tutor.common.i18n import P_, _
from tutor.formulas.evaluate import FormulaError, Node, evaluate_tree, tree_names
from tutor.grading.formula_nudges import ROUND_OFF, Nudge, Outcome



def _moves(reference: Node, values: dict, name: str) -> bool:
    try:
        before = np.asarray(evaluate_tree(reference, values), dtype=np.float64)
        after = np.asarray(evaluate_tree(reference, {**values, name: np.asarray(values[name]) * 1.5}),
                           dtype=np.float64)
    except FormulaError:
        return False
    finite = np.isfinite(before) & np.isfinite(after)
    if before.shape != after.shape or not finite.any():
        return False
    largest = float(np.abs(before[finite]).max())
    return bool(np.any(np.abs(after[finite] - before[finite]) > ROUND_OFF * max(largest, 1e-300)))


def _same_everywhere(first: str, second: str, outcomes: list[Outcome]) -> bool:
    """Whether two symbols hold the same value in every draw (other sizes included): one size, two names."""
    for outcome in outcomes:
        values = outcome.draw.values
        if first not in values or second not in values:
            return False
        a, b = np.asarray(values[first]), np.asarray(values[second])
        if a.shape != b.shape or not np.array_equal(a, b):
            return False
    return True


def left_out(tree: Node, reference: Node, outcomes: list[Outcome]) -> list[str]:
    """The symbols the answer depends on (on the lesson's own values) that ``tree`` does not use, under
    any of their names."""
    own = outcomes[0].draw.values
    used = tree_names(tree)
    return [name for name in sorted(tree_names(reference) - used) if _moves(reference, own, name)
            and not any(_same_everywhere(name, other, outcomes) for other in used)]


def left_out_nudge(names: list[str]) -> Nudge:
    listed = names[0] if len(names) == 1 else \
        P_("between the numbers of a list", ", ").join(names[:-1]) + _(" and ") + names[-1]
    return Nudge("missing", _("Yours leaves out {names}. Here that moves no entry past the tolerance, but the answer "
                              "depends on {names}: yours is not the formula asked for.").format(names=listed))
