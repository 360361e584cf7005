"""Numeric evaluation of validated lesson formulas (see :mod:`tutor.formulas.parse`).

The evaluator walks the small :class:`Node` tree that the parser produced, so
author text never reaches ``eval``/``lambdify``: every operation below is an
explicit numpy call chosen by a whitelisted node kind.  Semantics follow
numpy/PyTorch conventions so a lesson's formula can be checked against the
live model's tensors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from tutor.common.i18n import M_, message_of


class FormulaError(ValueError):
    """A formula that cannot be parsed or evaluated; ``column`` is 1-based."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True)
class Node:
    """One validated operation; the only thing the evaluator will execute."""

    kind: str  # "num" | "name" | "op" | "neg" | "call" | "T"
    value: object = None  # number, symbol name, operator or function name
    args: tuple[Node, ...] = ()
    col: int = 1  # 1-based column in the formula text, for error messages


def _last_axis(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Treat a 0-d value as a length-1 row so reductions work on scalars too."""

    def wrapped(x: np.ndarray) -> np.ndarray:
        return fn(x[None])[0] if x.ndim == 0 else fn(x)

    return wrapped


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))  # subtract max: no overflow
    return e / np.sum(e, axis=-1, keepdims=True)


def _causal_mask(x: np.ndarray) -> np.ndarray:
    if x.ndim < 2:
        raise ValueError(M_("needs at least 2 dimensions, got shape {shape}", shape=x.shape))
    above = np.triu(np.ones(x.shape[-2:], dtype=bool), k=1)
    return np.where(above, -np.inf, x)


_erf = np.vectorize(math.erf, otypes=[float])  # numpy has no erf; exact GELU needs one

FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "softmax": _last_axis(_softmax),
    "causal_mask": _causal_mask,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sum": _last_axis(lambda x: np.sum(x, axis=-1, keepdims=True)),
    "prod": _last_axis(lambda x: np.prod(x, axis=-1, keepdims=True)),
    "mean": _last_axis(lambda x: np.mean(x, axis=-1, keepdims=True)),
    "var": _last_axis(lambda x: np.var(x, axis=-1, keepdims=True)),
    "max": _last_axis(lambda x: np.max(x, axis=-1, keepdims=True)),
    "relu": lambda x: np.maximum(x, 0.0),
    "gelu": lambda x: 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0))),
    "sigmoid": lambda x: np.exp(-np.logaddexp(0.0, -x)),  # stable for large |x|
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
    "abs": np.abs,
}

_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "**": np.power,
          "max": np.maximum, "min": np.minimum}   # max(a, b), min(a, b): parse.PAIRWISE


def tree_names(node: Node) -> set[str]:
    """All symbol names the tree reads."""
    if node.kind == "name":
        return {str(node.value)}
    return set().union(*(tree_names(a) for a in node.args))


def evaluate_tree(node: Node, values: Mapping[str, object]) -> np.ndarray:
    """Evaluate ``node`` with float64 numpy arrays; all failures are FormulaError."""
    env: dict[str, np.ndarray] = {}
    for name in sorted(tree_names(node)):
        if name not in values:
            provided = ", ".join(sorted(map(str, values))) or "nothing"
            raise FormulaError(M_("no value for symbol '{name}' (provided: {provided})", name=name, provided=provided))
        try:
            env[name] = np.asarray(values[name], dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise FormulaError(M_("value for symbol '{name}' is not numeric: {reason}", name=name, reason=str(exc))) from None
    with np.errstate(all="ignore"):  # inf/nan are legitimate results (masks, log 0)
        return np.asarray(_eval(node, env), dtype=np.float64)


def _eval(node: Node, env: dict[str, np.ndarray]) -> np.ndarray:
    if node.kind == "num":
        return np.asarray(float(node.value))  # type: ignore[arg-type]
    if node.kind == "name":
        return env[str(node.value)]
    xs = [_eval(a, env) for a in node.args]
    if node.kind == "neg":
        return np.negative(xs[0])
    if node.kind == "T":
        return xs[0] if xs[0].ndim < 2 else np.swapaxes(xs[0], -1, -2)
    if node.kind == "call":
        try:
            return np.asarray(FUNCTIONS[str(node.value)](xs[0]))
        except ValueError as exc:
            raise FormulaError(M_("{function}() at column {column} failed: {reason}", function=node.value, column=node.col,
                                  reason=message_of(exc)), node.col) from None
    a, b = xs
    if node.value == "@":
        if a.ndim == 0 or b.ndim == 0:
            raise FormulaError(M_("'@' at column {column} needs arrays, got shapes {left} and {right} (use * to scale "
                                  "by a number)", column=node.col, left=a.shape, right=b.shape), node.col)
        try:
            return np.matmul(a, b)
        except ValueError:
            raise FormulaError(M_("matmul shape mismatch at column {column}: {left} @ {right}", column=node.col,
                                  left=a.shape, right=b.shape), node.col) from None
    try:
        return np.asarray(_ARITH[str(node.value)](a, b))
    except ValueError:
        raise FormulaError(M_("shapes {left} and {right} do not broadcast for '{operator}' at column {column}",
                              left=a.shape, right=b.shape, operator=node.value, column=node.col), node.col) from None


def compare(actual: object, expected: object) -> float:
    """Max absolute error; equal infinities (masked entries) and NaNs count as equal.

    A shape mismatch or non-numeric input is an infinite error rather than an
    exception, because the lesson checker reports the number to the learner.
    """
    try:
        a = np.asarray(actual, dtype=np.float64)
        e = np.asarray(expected, dtype=np.float64)
    except (TypeError, ValueError):
        return math.inf
    if a.shape != e.shape:
        return math.inf
    if a.size == 0:
        return 0.0
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - e)
    same = (a == e) | (np.isnan(a) & np.isnan(e))
    diff = np.where(same, 0.0, np.where(np.isnan(diff), np.inf, diff))
    return float(diff.max())
