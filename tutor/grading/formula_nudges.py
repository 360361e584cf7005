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
from tutor.grading.formula_draws import SIZED, Draw, size_names

ROUND_OFF = 1e-12   # relative to the answer's largest entry: below it an entry counts as zero for ratios
WORDS = ("compute", "shape", "coincidence", "size", "value", "rounded", "missing", "sign", "transposed", "factor",
         "mask", "small", "differs", "symbol", "forbidden", "builds", "number")


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


NOISE_FLOOR = 1e-2   # of the largest |entry|: below it an entry is compared with that, not with itself (float32 noise)
WHOLE = 0.5          # an integer-valued answer (a count, a size) is matched to the nearest whole number


def allowed(expected: np.ndarray, tolerance: float) -> np.ndarray:
    """How far each entry may be off: ``tolerance`` of the entry itself, so that a dropped eps shows
    where the answer is small, but never less than that of a hundredth of the largest entry (float
    noise where terms cancel); an integer-valued answer (3.7e7 FLOPs) within half a unit as well."""
    expected = np.asarray(expected, dtype=np.float64)
    finite = np.abs(expected[np.isfinite(expected)])
    largest = float(finite.max()) if finite.size else 0.0
    with np.errstate(invalid="ignore"):   # an infinity or a NaN in the answer must be met exactly: no room
        room = np.where(np.isfinite(expected), tolerance * np.maximum(np.abs(expected), max(NOISE_FLOOR * largest,
                                                                                            ROUND_OFF)), 0.0)
    if finite.size and largest >= 1 and np.all(finite == np.round(finite)):
        room = np.minimum(room, WHOLE)
    return room


def entries_off(yours: np.ndarray, expected: np.ndarray, tolerance: float) -> np.ndarray:
    """Which entries are off (equal infinities and NaNs count as equal)."""
    yours, expected = np.asarray(yours, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        difference = np.abs(yours - expected)
    same = (yours == expected) | (np.isnan(yours) & np.isnan(expected))
    return ~same & ~(difference <= allowed(expected, tolerance))


def close_enough(yours, expected, tolerance: float) -> bool:
    """Every entry within :func:`allowed` of the answer's."""
    if yours is None or expected is None or np.shape(yours) != np.shape(expected):
        return False
    return not np.any(entries_off(yours, expected, tolerance))


def constant_factor(yours: np.ndarray, expected: np.ndarray, tolerance: float) -> float | None:
    """c when yours = c · answer at every entry (zeros and infinities where the answer has them).

    Entries that are zero up to round-off (a Hessian's 1e-17 where two columns are orthogonal)
    carry no ratio: dividing round-off by round-off would hide a plain factor 2."""
    if yours is None or expected is None or np.shape(yours) != np.shape(expected):
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
    return factor if close_enough(yours, factor * expected, max(tolerance, 1e-6)) else None


_FORMS = (("{name}", lambda n: n), ("√{name}", math.sqrt), ("1/{name}", lambda n: 1 / n),
          ("1/√{name}", lambda n: 1 / math.sqrt(n)), ("{name}²", lambda n: n * n), ("1/{name}²", lambda n: 1 / (n * n)))


def _bound_numbers(outcomes: list[Outcome]) -> dict[str, list[float]]:
    """Each bound symbol that is one positive number on every draw (n, N, T, d_k), then each size."""
    numbers: dict[str, list[float]] = {}
    for symbol in outcomes[0].draw.values:
        found = [np.asarray(o.draw.values.get(symbol), dtype=np.float64) for o in outcomes]
        if all(v.size == 1 and np.isfinite(v).all() and float(v.ravel()[0]) > 0 for v in found):
            numbers[symbol] = [float(v.ravel()[0]) for v in found]
    for name in SIZED:
        if all(name in o.draw.sizes for o in outcomes):
            numbers.setdefault(name, [float(o.draw.sizes[name]) for o in outcomes])
    return numbers


def factor_name(outcomes: list[Outcome], factors: list[float]) -> str | None:
    """'d_k' when the factor is a power of that one bound number or size on every draw (√d_k, 1/n, …).

    Only the name is said, not the power: "that factor is √d_k" made the second try a copy (r8la:
    la-scaled-scores, la-cbow-skipgram); which power is missing or extra is the learner's step, and the
    factor printed beside it is the evidence. A number that no draw changed confirms nothing (a factor
    2 where H is 4 is not 1/√H), so only one that takes at least two values across the draws is named."""
    for name, values in _bound_numbers(outcomes).items():
        if len(set(values)) < 2:
            continue
        if any(all(math.isclose(factor, form(value), rel_tol=1e-3) for factor, value in zip(factors, values))
               for _shown, form in _FORMS):
            return name
    return None


def _steady_everywhere(outcomes: list[Outcome], factors: list[float]) -> bool:
    """A factor near 1 is a factor (× 1.01) only when every draw, at other sizes too, gives the same one
    and the answer has several entries: for one number any small extra term is some ratio near 1."""
    return np.size(outcomes[0].expected) > 1 and all(math.isclose(f, factors[0], rel_tol=1e-4) for f in factors)


def _shown_factor(factor: float) -> str:
    """Two decimals, or as many more as it takes not to print 1.00 for 1.001."""
    if not 0.01 <= abs(factor) < 1000:
        return f"{factor:.2e}"
    for places in range(2, 7):
        shown = f"{factor:.{places}f}"
        if abs(float(shown) - factor) <= 0.05 * abs(factor - 1.0):
            return shown
    return shown


def _factor_nudge(outcomes: list[Outcome], tolerance: float) -> Nudge | None:
    """A constant factor: named, steady on the draws that kept the sizes, or one that follows the values."""
    factors = [constant_factor(o.yours, o.expected, tolerance) for o in outcomes]
    if any(factor is None for factor in factors):
        return None   # a number of its own on each row or column: tutor.grading.formula_scales
    if math.isclose(factors[0], 1.0, rel_tol=0.01) and not _steady_everywhere(outcomes, factors):
        return None   # an extra term that is small here (2nF + 1000): its ratio moves with the sizes
    shown = _shown_factor(factors[0])
    if name := factor_name(outcomes, factors):   # one sentence pair: Chinese puts no space after 。
        return Nudge("factor", _("Yours is off by a constant factor: {factor}× the answer at every entry, and the "
                                 "factor changes with {name}. Which power of {name} is missing or extra?").format(
            factor=shown, name=name))
    text = _("Yours is off by a constant factor: {factor}× the answer at every entry.").format(factor=shown)
    if all(math.isclose(f, factors[0], rel_tol=1e-3) for f, o in zip(factors, outcomes) if not o.draw.other_sizes):
        return Nudge("factor", text)
    if np.size(outcomes[0].expected) == 1:
        return None   # one number is always some multiple of another: only a steady or named one says anything
    return Nudge("factor", _("Yours is the answer times one number at every entry, but that number changes with "
                             "the values: a factor made of them (a normalising sum, a correction) is missing or "
                             "extra."))


def _small_only(yours: np.ndarray, expected: np.ndarray, tolerance: float) -> int:
    """How many entries are off when all of them are among the answer's smallest (|a| below every
    entry that matches): a small term such as eps, kept or dropped where it matters; else 0."""
    off = entries_off(yours, expected, tolerance)
    size = np.abs(np.asarray(expected, dtype=np.float64))
    if not off.any() or 2 * off.sum() > off.size or not np.isfinite(size).all():
        return 0   # most entries off is no small term: 15 of 16 are smaller than a softmax's lone 1
    return int(off.sum()) if size[off].max() < size[~off].min() else 0


def _zeros_transposed(yours: np.ndarray, expected: np.ndarray) -> bool:
    """The answer's exact zeros (a causal mask's) stand in yours only with the last two axes swapped:
    ``softmax(causal_mask(Q@K.T)).T`` is wrong the other way too, so plain transposing does not match."""
    if yours.ndim < 2 or yours.shape[-1] != yours.shape[-2] or not np.isfinite(yours).all():
        return False
    zeros = expected == 0
    return bool(zeros.any()) and np.array_equal(np.swapaxes(yours, -1, -2) == 0, zeros) and \
        not np.array_equal(yours == 0, zeros)


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


def nudge(outcomes: list[Outcome], tolerance: float, has_number: bool = True) -> Nudge:
    """The nudge for a wrong answer; ``outcomes[0]`` is the lesson's own draw; ``has_number``: the
    answer holds a number, which may be a size written out."""
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
            mine = size_names(named.yours.shape, named.draw, tuple((o.yours.shape, o.draw) for o in outcomes))
            theirs = size_names(named.expected.shape, named.draw, tuple((o.expected.shape, o.draw) for o in outcomes))
        else:
            mine, theirs = str(tuple(misfit.yours.shape)), str(tuple(misfit.expected.shape))
        return Nudge("shape", _("Yours has the shape {yours}; the answer's shape is {answer}.").format(
            yours=mine, answer=theirs))
    if close_enough(yours, expected, tolerance):
        other = next(o for o in outcomes if not close_enough(o.yours, o.expected, tolerance))
        if other.draw.other_sizes:
            return Nudge("coincidence", _("Yours equals the answer for these sizes only by coincidence: with other "
                                          "sizes it differs, so a number in it should be a size.") if has_number else
                         _("Yours equals the answer for these sizes only by coincidence: with other sizes it "
                           "differs."))
        return Nudge("coincidence", _("Yours equals the answer on these tensors only by coincidence: with other "
                                      "values it differs."))
    if close_enough(-yours, expected, tolerance):
        return Nudge("sign", _("Check the sign: yours is the answer with the opposite sign at every entry."))
    if yours.ndim >= 2 and yours.shape[-1] == yours.shape[-2] and \
            close_enough(np.swapaxes(yours, -1, -2), expected, tolerance):
        return Nudge("transposed", _("Yours is the answer transposed: its last two axes are swapped."))
    if (found := _factor_nudge(outcomes, tolerance)) is not None:
        return found
    if _masked_only(yours, expected, tolerance):
        return Nudge("mask", _("Yours differs from the answer only above the diagonal, where the causal mask "
                               "hides the future."))
    if expected.size == 1 and np.isfinite(yours).all() and np.isfinite(expected).all():
        high = float(yours.ravel()[0]) > float(expected.ravel()[0])
        return Nudge("differs", _("Yours differs from the answer: it is too high here.") if high else
                     _("Yours differs from the answer: it is too low here."))
    with np.errstate(invalid="ignore"):
        undefined = int(np.sum(np.isnan(yours) & np.isfinite(expected)))
    if undefined:   # "All 1 entries of yours differ" said nothing of why (de-beam-length's log of a negative total)
        return Nudge("differs", _("Yours is not a number here (NaN): a log or a square root of a negative number, or "
                                  "0/0, is somewhere in it.") if expected.size == 1 else
                     _("Yours is not a number (NaN) at {off} of its {count} entries: a log or a square root of a "
                       "negative number, or 0/0, is somewhere in it.").format(off=undefined, count=expected.size))
    if _zeros_transposed(yours, expected):
        return Nudge("transposed", _("Yours is the wrong way round: its zeros stand where the answer's do only with "
                                     "its last two axes swapped. Swap them back, then check the rest: it differs "
                                     "in more than that."))
    if small := _small_only(yours, expected, tolerance):
        return Nudge("small", _("Yours matches the answer except at its {off} smallest entries: there a small term, "
                                "such as an eps, is missing, extra or not scaled as it should be.").format(off=small))
    off = int(np.sum(entries_off(yours, expected, tolerance)))
    if off == expected.size:   # "at 81 of its 81 entries" reads like a machine counting
        return Nudge("differs", _("All {count} entries of yours differ from the answer.").format(count=off))
    return Nudge("differs", _("Yours differs from the answer at {off} of its {count} entries.").format(
        off=off, count=expected.size))
