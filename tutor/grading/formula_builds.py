"""An intermediate the question asks the learner never to build: a formula question's ``forbid_shapes:``.

co-linear-attention asks for linear attention's output "without forming the (L, L) table".
``(phi_Q @ phi_K.T) @ V`` and ``phi_Q @ (phi_K.T @ V)`` are equal to the last rounding error, so
no draw tells them apart, and ``forbid:`` can refuse names only (issue 31: the first was graded
right).  What tells them apart is what the evaluation builds on the way: the first forms an
(L, L) product, the second a (D_head, D_head) one.  So the author lists the shapes, in the
model's size names (``forbid_shapes: [[L, L]]``), and an answer is refused when one of its parts
has that shape (as its last axes, so a batch of tables counts) on every draw it is graded on.

Shapes are read from the formula's tree with the cost walk (tutor.formulas.cost), never by
evaluating it, so the rule costs nothing next to grading.  "On every draw" matters: where L and
D_head are both 4, the right answer's (D_head, D_head) part is (4, 4) as well; the draws at other
sizes give every size its own length, and there only a true (L, L) part stays (L, L).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutor.common.i18n import M_, _
from tutor.formulas.cost import part_shapes
from tutor.formulas.evaluate import FormulaError, Node
from tutor.grading.formula_folded import written_text
from tutor.grading.formula_nudges import Nudge

BUILDS = "builds"   # the nudge word of a refused intermediate


@dataclass(frozen=True)
class Built:
    part: Node                   # the first part of the formula that has the shape
    shape: tuple[str, ...]       # the forbidden shape, in size names


def _parts(tree: Node, draw) -> list[tuple[Node, tuple]] | None:
    try:
        return part_shapes(tree, {symbol: np.shape(value) for symbol, value in draw.values.items()})
    except FormulaError:
        return None   # its shapes do not fit here: the numeric grading says so


def _ends_in(shape: tuple, lengths: tuple[int, ...]) -> bool:
    return len(shape) >= len(lengths) and tuple(shape[len(shape) - len(lengths):]) == lengths


def built(tree: Node, shapes: list[list[str]], draws) -> Built | None:
    """The first part of ``tree`` that has one of ``shapes`` on every draw whose shapes fit, or None.

    ``draws``: the question's draws (tutor.grading.formula_draws.Draw), the lesson's own first."""
    walked = [(draw, parts) for draw in draws if (parts := _parts(tree, draw)) is not None]
    if not walked or not shapes:
        return None
    for index, (part, _shape) in enumerate(walked[0][1]):
        for names in shapes:
            if all(all(name in draw.sizes for name in names) and
                   _ends_in(parts[index][1], tuple(draw.sizes[name] for name in names)) for draw, parts in walked):
                return Built(part, tuple(names))
    return None


def shown_shape(names) -> str:
    return f"({', '.join(names)}{',' if len(names) == 1 else ''})"


def builds_nudge(found: Built) -> Nudge:
    """Names the part and its shape; the regrouping is left to the learner."""
    return Nudge(BUILDS, _("Yours builds {part}, an {shape} intermediate, on the way: this question asks for a "
                           "way that never forms one. Group the products so that nothing of that shape is built.")
                 .format(part=written_text(found.part), shape=shown_shape(found.shape)))


def shape_problems(answer: str, reference: Node, shapes: list[list[str]], draws) -> list[str]:
    """What ``lessons check`` reports: a size of ``shapes`` that no draw gives a length of its own
    (there an (L, L) part cannot be told from a (D_head, D_head) one), or an answer that builds one."""
    if not shapes:
        return []
    named = {name for draw in draws for name in draw.named}
    if loose := sorted({name for names in shapes for name in names if name not in named}):
        return [M_("no draw gives {names} a length of its own, so a part of that shape cannot be told from "
                   "another; bind a tensor that has that axis", names=", ".join(loose))]
    if found := built(reference, shapes, draws):
        return [M_("the answer {answer!r} itself builds {part}, of shape {shape}", answer=answer,
                   part=written_text(found.part), shape=shown_shape(found.shape))]
    return []
