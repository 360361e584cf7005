"""The draws a written formula is graded on, so that a match by coincidence is refused.

On the lesson's own tensors ``Q @ K.T / 2`` equals ``Q @ K.T / sqrt(d_k)`` when D_head is 4, and
``Q @ Q.T`` could equal ``Q @ K.T`` for some weights.  So besides the lesson's draw (compared
with the probe itself) an answer is compared with the reference formula on:

- other sizes: every axis that is a size of the model (L, D_head, …) and every symbol bound to
  a size gets a new length, the same one everywhere, all different from each other; the values
  are drawn from the real tensor's own values, so a probability stays in [0, 1] and a masked
  score stays -inf;
- other values: every bound tensor and number scaled entry by entry by a random factor near 1
  (signs and zeros kept), and once more also shifted a little (so a zero bias is not zero), the
  sizes left alone.

Every drawn value keeps what the real one shows of its domain: a tensor with no negative entry
gets none (a perplexity, a variance), one inside [0, 1] stays there (a probability), and rows that
sum to 1 are renormalised (a distribution, so ``q*sum(p) - p`` stays ``q - p``).  A draw on which
the reference formula itself is not finite where the lesson's answer is (a log of a value at or
below zero, an overflow) is drawn again, as WeBWorK redraws a test point where the answer is
undefined; if a few tries find none it is left out, so a learner is never graded against a NaN.

Draws are seeded by the question, so a learner's answer gets the same verdict every time.
"""
from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tutor.grading.declared_shapes import declared_axes
from tutor.grading.probe_ref import parse_probe_ref
from tutor.grading.reveal_focus import axis_names
from tutor.grading.tensor_access import bind_values

SIZED = ("B", "L", "D", "H", "D_head", "V")
_WORD_SIZES = {"batch": "B", "head": "H", "position": "L", "query": "L", "key": "L", "vocabulary": "V"}
# four draws at other sizes: with the lesson's own that is five values of every size, more than a
# polynomial fitted to a few sizes (a quadratic in d_k for √d_k) can follow
_NEW_LENGTHS = ((5, 7, 11, 13, 3, 17, 19, 23), (6, 9, 10, 12, 14, 15, 18, 20), (8, 12, 15, 21, 22, 25, 26, 27),
                (7, 10, 13, 17, 20, 24, 28, 30))


@dataclass(frozen=True)
class Draw:
    values: dict[str, object]     # symbol -> ndarray (float64) or float
    sizes: dict[str, int]         # the size names as they are in this draw
    other_sizes: bool             # drawn at sizes other than the lesson's
    named: tuple[str, ...] = ()   # the sizes given new lengths, each different from every other length


def _feature_size(name: str, length: int, sizes: dict[str, int]) -> str:
    """D_head for a head's q, k, v, z; else whichever of D and D_head has the axis's length (an
    experiment's φ(Q) declared (B, H, L, D_head) is a head's features too)."""
    if ".attn." in name and name.rsplit(".", 1)[-1] in ("q", "k", "v", "z"):
        return "D_head"
    return "D_head" if sizes.get("D") != length and sizes.get("D_head") == length else "D"


def axis_sizes(reference: str, tensors: dict[str, np.ndarray], sizes: dict[str, int]) -> tuple[str | None, ...]:
    """The size name of each axis of a probe slice (None: a fixed length, or a part of an axis).

    Named from what the probe's axes mean, not from their lengths, so L and D_head stay apart
    when both are 4; an experiment's output by the shape its description declares (an axis it gives
    as a number, ``minibatch.sizes (4,)``, is no size, though D_head is 4: issue 31, op-minibatch's
    "(D_head,)"); other tensors (params) by a length other than 1 that only one size has."""
    ref = parse_probe_ref(reference)
    full = tuple(np.shape(tensors[ref.name]))
    declared = declared_axes(ref.name)
    declared = declared is not None and len(declared) == len(full)
    named = []
    for axis, word in enumerate(axis_names(ref.name, full, sizes)):
        size = _WORD_SIZES.get(word) or (_feature_size(ref.name, full[axis], sizes) if word == "feature" else None)
        if size is None and not declared:   # a declared "(4,)" is four batch sizes, never D_head that is 4 too
            matches = [s for s in SIZED if sizes.get(s) == full[axis]] if full[axis] > 1 else []   # as axis_names
            size = matches[0] if len(matches) == 1 else None
        named.append(size if size and sizes.get(size) == full[axis] else None)
    kept = []
    for axis, size in enumerate(named):
        part = ref.index[axis] if axis < len(ref.index) else slice(None)
        if isinstance(part, int):
            continue
        whole = part.start in (None, 0) and part.stop is None
        kept.append(size if whole else None)
    return tuple(kept)


def _new_sizes(involved: list[str], sizes: dict[str, int], fixed: set[int], draw: int) -> dict[str, int]:
    taken = set(fixed) | {length for name, length in sizes.items() if name not in involved}
    new = dict(sizes)
    for name in involved:
        length = next(n for n in _NEW_LENGTHS[draw] + tuple(range(24, 99)) if n not in taken and n != sizes[name])
        taken.add(length)
        new[name] = length
    return new


Judge = Callable[[Draw], object]   # the reference's result on a draw, or None where it cannot be used
REDRAWS = 4                        # tries for each draw before it is left out


def formula_draws(bind: dict, tensors: dict[str, np.ndarray], sizes: dict[str, int], seed_text: str,
                  own_expected: np.ndarray, judge: Judge) -> list[tuple[Draw, object]]:
    """The lesson's own draw first, with the probe's values, then up to four at other sizes and two
    with other values, each with the reference's result; a draw ``judge`` refuses is drawn again."""
    own = bind_values(bind, tensors, sizes)
    pairs: list[tuple[Draw, object]] = [(Draw(own, dict(sizes), False), own_expected)]
    rng = np.random.default_rng(zlib.crc32(seed_text.encode("utf-8")))
    axes = {symbol: axis_sizes(source, tensors, sizes) for symbol, source in bind.items()
            if isinstance(source, str) and source not in sizes}
    scalar_sizes = {symbol: source for symbol, source in bind.items() if isinstance(source, str) and source in sizes}
    involved = sorted({s for names in axes.values() for s in names if s} | set(scalar_sizes.values()))
    fixed = {length for symbol, names in axes.items() for length, s in zip(np.shape(own[symbol]), names) if s is None}

    def resized(new: dict[str, int]) -> Draw:
        values: dict[str, object] = {}
        for symbol, value in own.items():
            if symbol in scalar_sizes:
                values[symbol] = float(new[scalar_sizes[symbol]])
            elif symbol in axes and np.size(value):
                shape = tuple(new[s] if s else length for length, s in zip(np.shape(value), axes[symbol]))
                values[symbol] = resampled(value, shape, rng)
            else:
                values[symbol] = value
        return Draw(values, new, True, tuple(involved))

    def revalued(shift: bool) -> Draw:
        return Draw({symbol: value if symbol in scalar_sizes else _perturbed(value, rng, shift)
                     for symbol, value in own.items()}, dict(sizes), False)

    makers = [lambda new=_new_sizes(involved, sizes, fixed, draw): resized(new)
              for draw in range(len(_NEW_LENGTHS) if involved else 0)]
    makers += [lambda shift=shift: revalued(shift) for shift in (False, True)]
    for make in makers:
        for _try in range(REDRAWS):
            draw = make()
            expected = judge(draw)
            if expected is not None:
                pairs.append((draw, expected))
                break
    return pairs


def resampled(value, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """A tensor of ``shape`` drawn from ``value``'s own entries, inside its domain.  A one-hot stays
    one-hot (its 1 at a random place): drawn from its many zeros, a short row would be all zeros,
    and renormalised it would be NaN, so every draw at other sizes was refused and V never varied
    (pr-label-smoothing's ``eps / 96`` was graded right)."""
    value = np.asarray(value, dtype=np.float64)
    new = rng.choice(np.ravel(value), size=shape)
    if value.ndim and value.size and np.all(np.isin(value, (0.0, 1.0))) and np.all(value.sum(axis=-1) == 1) \
            and shape and shape[-1] > 0:
        rows = np.zeros((int(np.prod(shape[:-1])), shape[-1]))
        rows[np.arange(len(rows)), rng.integers(0, shape[-1], size=len(rows))] = 1.0
        return rows.reshape(shape)
    return _in_domain(value, new)


def _perturbed(value, rng: np.random.Generator, shift: bool) -> np.ndarray:
    """Each entry scaled by a random factor near 1; with ``shift`` also moved a little, so that a
    zero (an untrained bias, a one-hot's other entries) stops being zero; the domain is kept."""
    value = np.asarray(value, dtype=np.float64)
    scaled = value * np.exp(0.3 * rng.standard_normal(value.shape))
    if not shift:
        return _in_domain(value, scaled)
    finite = np.abs(value[np.isfinite(value)])
    scale = float(finite.mean()) if finite.size and finite.mean() > 0 else 1.0
    step = 0.3 * scale * rng.standard_normal(value.shape)
    if finite.size and np.all(value[np.isfinite(value)] >= 0):
        step = np.abs(step)          # a zero becomes positive, never negative
    elif finite.size and np.all(value[np.isfinite(value)] <= 0):
        step = -np.abs(step)
    with np.errstate(invalid="ignore"):
        return _in_domain(value, scaled + step)


def _orthogonal(real: np.ndarray) -> bool:
    """A rotation (or reflection) of mixed signs: square in its last two axes, Rᵀ·R = I for every matrix.
    A permutation matrix is orthogonal too, but it is kept as the distribution of rows it also is."""
    if real.ndim < 2 or real.shape[-1] != real.shape[-2] or real.shape[-1] < 2 or not np.all(np.isfinite(real)) \
            or np.all(real >= 0):
        return False
    gram = np.swapaxes(real, -1, -2) @ real                                    # (..., n, n)
    return bool(np.allclose(gram, np.eye(real.shape[-1]), atol=1e-6))


def _nearest_orthogonal(new: np.ndarray) -> np.ndarray:
    """The orthogonal matrix nearest to ``new`` (its polar factor U·Vᵀ): drawn values that stay a rotation."""
    u, _s, vt = np.linalg.svd(new)                                            # (..., n, n) each
    return u @ vt


def _in_domain(real: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``new`` kept inside what ``real`` shows of its domain: its sign, [0, 1], rows that sum to 1, and a
    rotation stays a rotation: co-pe-shift's ``S @ M_k.T @ M_k.T @ M_k`` is right for every rotation M_k but
    was refused as a coincidence on draws where M_k was any matrix (r8copr)."""
    real = np.asarray(real, dtype=np.float64)
    new = np.asarray(new, dtype=np.float64)
    finite = real[np.isfinite(real)]
    if not finite.size:
        return new
    if _orthogonal(real) and new.shape[-2:] == (new.shape[-1],) * 2 and np.all(np.isfinite(new)):
        return _nearest_orthogonal(new)
    with np.errstate(invalid="ignore", divide="ignore"):
        if np.all(finite >= 0):
            new = np.abs(new)
            if real.ndim and real.shape[-1] > 1 and np.all(np.isfinite(real)) and \
                    np.allclose(real.sum(axis=-1), 1.0, rtol=1e-4, atol=1e-4):
                return new / new.sum(axis=-1, keepdims=True)
            if np.all(finite <= 1) and real.size > 1:   # one number at 1 (a beta) is no probability
                new = np.minimum(new, 1.0)
        elif np.all(finite <= 0):
            new = -np.abs(new)
    return new


def size_names(shape: tuple[int, ...], draw: Draw, held: tuple[tuple[tuple[int, ...], Draw], ...] = ()) -> str:
    """A shape in size names where the draw tells them apart: (L, D_head); lengths otherwise.

    ``held``: the same result's shape on the other draws.  An axis is named by a size only when its
    length is that size on every one of them: a perplexity of shape (1,) drawn where B was 1 is not (B,)."""
    by_length = {draw.sizes[name]: name for name in draw.named}
    parts = []
    for axis, length in enumerate(shape):
        name = by_length.get(length)
        if name is not None and all(len(other) == len(shape) and other[axis] == where.sizes.get(name)
                                    for other, where in held):
            parts.append(name)
        else:
            parts.append(str(length))
    return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"
