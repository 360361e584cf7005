"""How a written formula's result differs from the answer, in words that never state the answer.

Both results are on hand (the learner's formula and the probe, on the same tensors), so the
nudge can say what kind of mistake it is: the wrong shape, the wrong sign, the answer
transposed, a constant factor everywhere (and which size that factor is, checked on the draws
at other sizes), a difference only where the causal mask is, or a match that holds only for
these sizes or these values.  Each nudge has a ``word`` that lessons name in ``wrong:``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tutor.common.i18n import _
from tutor.formulas.evaluate import compare
from tutor.grading.formula_draws import SIZED, Draw, size_names

ROUND_OFF = 1e-12   # relative to the answer's largest entry: below it an entry counts as zero for ratios
WORDS = ("compute", "shape", "coincidence", "sign", "transposed", "factor", "mask", "differs", "symbol")


@dataclass(frozen=True)
class Outcome:
    """One draw: the learner's result (or why it cannot be computed) beside the answer's."""

    draw: Draw
    yours: np.ndarray | None
    expected: np.ndarray | None
    problem: str = ""


@dataclass(frozen=True)
class Nudge:
    word: str
    text: str


def close_enough(yours, expected, tolerance: float) -> bool:
    """Equal within ``tolerance`` of the answer's size; equal infinities and NaNs count as equal."""
    if yours is None or expected is None or np.shape(yours) != np.shape(expected):
        return False
    finite = np.abs(expected[np.isfinite(expected)]) if np.size(expected) else np.zeros(0)
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return compare(yours, expected) <= tolerance * scale


def constant_factor(yours: np.ndarray, expected: np.ndarray, tolerance: float) -> float | None:
    """c when yours = c · answer at every entry (zeros and infinities where the answer has them).

    Entries that are zero up to round-off (a Hessian's 1e-17 where two columns are orthogonal)
    carry no ratio: dividing round-off by round-off would hide a plain factor 2."""
    if np.shape(yours) != np.shape(expected):
        return None
    finite = np.isfinite(expected)
    size = float(np.abs(expected[finite]).max()) if finite.any() else 0.0
    finite &= np.abs(expected) > ROUND_OFF * size
    if not finite.any() or not np.all(np.isfinite(yours[finite])):
        return None
    ratios = yours[finite] / expected[finite]
    factor = float(np.median(ratios))
    if factor == 0 or not np.allclose(ratios, factor, rtol=1e-3, atol=0):
        return None
    return factor if close_enough(yours, factor * expected, tolerance) else None


def steady_factor(outcomes: list[Outcome], tolerance: float) -> float | None:
    """The factor of the lesson's draw when it is the same on the draws with other values (a single
    number is always some multiple of another: only a factor that stays is a constant factor);
    at other sizes it may change with them (√D_head), but it must still hold at every entry."""
    own = outcomes[0]
    factor = constant_factor(own.yours, own.expected, tolerance)
    if factor is None:
        return None
    for outcome in outcomes[1:]:
        other = constant_factor(outcome.yours, outcome.expected, tolerance)
        if other is None or (not outcome.draw.other_sizes and not math.isclose(other, factor, rel_tol=1e-3)):
            return None
    return factor


def factor_name(outcomes: list[Outcome], tolerance: float) -> str | None:
    """'√D_head' when the factor is the square root of D_head on every draw, at every size.

    Without a draw at other sizes (nothing bound is sized) a match is a coincidence of the lesson's
    own sizes (a factor 2 where H is 4 is not 1/√H), so nothing is named; nor after a size that
    every draw kept (a batch axis of 1 redrawn leaves H at 4).
    """
    if not any(outcome.draw.other_sizes for outcome in outcomes):
        return None
    factors = []
    for outcome in outcomes:
        if outcome.draw.other_sizes or outcome is outcomes[0]:
            factor = constant_factor(outcome.yours, outcome.expected, tolerance) \
                if outcome.yours is not None and outcome.expected is not None else None
            if factor is None:
                return None
            factors.append((factor, outcome.draw.sizes))
    forms = (("{name}", lambda n: n), ("√{name}", math.sqrt), ("1/{name}", lambda n: 1 / n),
             ("1/√{name}", lambda n: 1 / math.sqrt(n)))
    for name in SIZED:
        if len({sizes.get(name) for _, sizes in factors}) < 2:
            continue             # a draw at other sizes that left this size alone confirms nothing about it
        for shown, form in forms:
            if all(name in sizes and math.isclose(factor, form(sizes[name]), rel_tol=1e-3) for factor, sizes in factors):
                return shown.format(name=name)
    return None


def _masked_only(yours: np.ndarray, expected: np.ndarray, tolerance: float) -> bool:
    """Yours equals the answer except above the diagonal (the entries a causal mask hides)."""
    if yours.ndim < 2 or yours.shape != expected.shape or yours.shape[-1] != yours.shape[-2]:
        return False
    above = np.triu(np.ones(yours.shape[-2:], dtype=bool), k=1)
    below = np.broadcast_to(~above, yours.shape)
    return close_enough(yours[below], expected[below], tolerance) and not close_enough(yours, expected, tolerance)


def _equal_sizes(outcomes: list[Outcome]) -> str:
    """'L and D_head': the sizes the draws gave new lengths that have one length in the lesson's draw."""
    named = next((o.draw.named for o in outcomes if o.draw.named), ())
    sizes = outcomes[0].draw.sizes
    equal = [name for name in named if any(sizes[name] == sizes[other] for other in named if other != name)]
    return _(" and ").join(equal) if equal else _("two sizes")


def nudge(outcomes: list[Outcome], tolerance: float) -> Nudge:
    """The nudge for a wrong answer; ``outcomes[0]`` is the lesson's own draw."""
    own = outcomes[0]
    if own.yours is None:
        return Nudge("compute", _("Yours cannot be computed on these tensors: {problem}.").format(problem=own.problem))
    if any(o.yours is None for o in outcomes):
        return Nudge("compute", _("Yours computes here only because {sizes} are equal in these sizes; with "
                                  "other sizes its shapes do not fit.").format(sizes=_equal_sizes(outcomes)))
    yours, expected = own.yours, own.expected
    misfit = next((o for o in outcomes if o.yours.shape != o.expected.shape), None)
    if misfit is not None:
        named = next((o for o in outcomes if o.draw.other_sizes), None)
        if named is not None:
            mine, theirs = size_names(named.yours.shape, named.draw), size_names(named.expected.shape, named.draw)
        else:
            mine, theirs = str(tuple(misfit.yours.shape)), str(tuple(misfit.expected.shape))
        return Nudge("shape", _("Yours has the shape {yours}; the answer's shape is {answer}.").format(
            yours=mine, answer=theirs))
    if close_enough(yours, expected, tolerance):
        other = next(o for o in outcomes if not close_enough(o.yours, o.expected, tolerance))
        if other.draw.other_sizes:
            return Nudge("coincidence", _("Yours equals the answer for these sizes only by coincidence: with other "
                                          "sizes it differs, so a number in it should be a size."))
        return Nudge("coincidence", _("Yours equals the answer on these tensors only by coincidence: with other "
                                      "values it differs."))
    if close_enough(-yours, expected, tolerance):
        return Nudge("sign", _("Check the sign: yours is the answer with the opposite sign at every entry."))
    if yours.ndim >= 2 and yours.shape[-1] == yours.shape[-2] and \
            close_enough(np.swapaxes(yours, -1, -2), expected, tolerance):
        return Nudge("transposed", _("Yours is the answer transposed: its last two axes are swapped."))
    factor = steady_factor(outcomes, tolerance)
    if factor is not None:
        shown = f"{factor:.2f}" if 0.01 <= abs(factor) < 1000 else f"{factor:.2e}"
        text = _("Yours is off by a constant factor: {factor}× the answer at every entry.").format(factor=shown)
        name = factor_name(outcomes, tolerance)
        if name:
            text += " " + _("That factor is {name}.").format(name=name)
        return Nudge("factor", text)
    if _masked_only(yours, expected, tolerance):
        return Nudge("mask", _("Yours differs from the answer only above the diagonal, where the causal mask "
                               "hides the future."))
    if expected.size == 1 and np.isfinite(yours).all() and np.isfinite(expected).all():
        high = float(yours.ravel()[0]) > float(expected.ravel()[0])
        return Nudge("differs", _("Yours differs from the answer: it is too high here.") if high else
                     _("Yours differs from the answer: it is too low here."))
    off = int(np.sum(~np.isclose(yours, expected, rtol=tolerance, atol=tolerance, equal_nan=True)))
    return Nudge("differs", _("Yours differs from the answer at {off} of its {count} entries.").format(
        off=off, count=expected.size))
