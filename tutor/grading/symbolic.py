"""Symbolic shapes compared as formulas, not only as numbers.

Substituting the lesson's sizes alone cannot tell ``(B, H, L, D)`` from ``(B, H, L, D/H)`` when
H = 1, or ``(B, H, L, L)`` from ``(H, B, L, L)`` when B = H = 2: a wrong answer would grade right
on those sizes.  Two size assignments in which every name has a different value (and the
model's identities hold: D = H * D_head, d_k = D_head, d_model = D) separate any two shapes
written with the size names that differ as formulas, so an answer must match on those too.
"""
from __future__ import annotations

from tutor.grading.answers import AnswerError, parse_symbolic_shape


def _sizes(B: int, L: int, H: int, D_head: int, V: int, N: int, T: int) -> dict[str, int]:
    D = H * D_head
    return {"B": B, "L": L, "H": H, "D_head": D_head, "d_k": D_head, "D": D, "d_model": D, "V": V, "N": N, "T": T}


# every name, and every small product or quotient of names a learner might write, differs
DISTINGUISHING_SIZES = (
    _sizes(B=11, L=13, H=3, D_head=7, V=97, N=5, T=59),
    _sizes(B=17, L=19, H=5, D_head=29, V=103, N=37, T=83),
)


def _evaluations(given: str, expected: str):
    """(given's shape or None if it is not whole, expected's shape) on each distinguishing
    assignment; one on which the expected shape itself is not whole (an author's ``D/4``) says
    nothing and is skipped."""
    for sizes in DISTINGUISHING_SIZES:
        try:
            want = parse_symbolic_shape(expected, sizes)
        except AnswerError:
            continue
        try:
            yield parse_symbolic_shape(given, sizes), want
        except AnswerError:
            yield None, want


def same_symbolic_shape(given: str, expected: str) -> bool:
    """Whether two symbolic shapes agree on every distinguishing size assignment (one on which
    only the learner's is not whole tells them apart)."""
    return all(got == want for got, want in _evaluations(given, expected))


def axes_that_differ(given: str, expected: str) -> list[int] | None:
    """The axes (from 0) on which ``given`` disagrees with ``expected`` as a formula, or None when
    ``given`` cannot even be evaluated on the distinguishing sizes (then no axis can be named).

    Why: an answer such as ``(2, 4, 32)`` or ``(B, L, 32)`` can equal the right shape on the
    lesson's sizes and still be wrong; the nudge then names the axis instead of calling a right
    order wrong.
    """
    axes: set[int] = set()
    for got, want in _evaluations(given, expected):
        if got is None or len(got) != len(want):
            return None
        axes.update(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
    return sorted(axes)
