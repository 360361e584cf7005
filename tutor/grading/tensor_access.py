"""Reading the live tensors a question names: a probe slice, and the reducers that turn it into one number.

Kept apart from grading because lesson text placeholders, formula checks and the lesson checker
read tensors the same way, and none of them grade anything.
"""
from __future__ import annotations

import math

import numpy as np

from tutor.common.i18n import M_, message_of
from tutor.grading.probe_ref import parse_probe_ref


class QuestionError(ValueError):
    """The lesson's question cannot be answered from the live tensors (an author's mistake)."""


def _sortedness(a: np.ndarray) -> float:
    """|Spearman rank correlation| of the values with their position: 1 sorted (either way), ~0 shuffled."""
    flat = np.asarray(a, dtype=float).ravel()
    if flat.size < 2 or np.ptp(flat) == 0:
        return 0.0
    ranks = np.argsort(np.argsort(flat, kind="stable"), kind="stable").astype(float)
    return round(float(abs(np.corrcoef(ranks, np.arange(flat.size, dtype=float))[0, 1])), 12)


def _max_rise(a: np.ndarray) -> float:
    """The largest step up between neighbours (negative when the values only fall)."""
    flat = np.asarray(a, dtype=float).ravel()
    return float(np.max(np.diff(flat))) if flat.size > 1 else 0.0


REDUCERS = {
    "value": lambda a: a.item() if a.size == 1 else math.nan,
    "sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min,
    "argmax": lambda a: int(np.argmax(a)), "argmin": lambda a: int(np.argmin(a)),
    "std": np.std, "var": np.var, "norm": np.linalg.norm,
    "count_zero": lambda a: int(np.sum(a == 0)), "count_nonzero": lambda a: int(np.count_nonzero(a)),
    "numel": lambda a: int(a.size),
    "count_distinct": lambda a: int(np.unique(np.asarray(a).ravel()).size),
    "sortedness": _sortedness, "max_rise": _max_rise,
}


def probe_names(tensors: dict[str, np.ndarray]) -> str:
    """The probes a run has, for a message about a name it lacks (the weights, params.*, left out)."""
    return ", ".join(sorted(n for n in tensors if not n.startswith("params.")))


def probe_slice(tensors: dict[str, np.ndarray], reference: str) -> np.ndarray:
    """The slice ``reference`` names, or QuestionError listing the probes this run has."""
    ref = parse_probe_ref(reference)
    if ref.name not in tensors:
        raise QuestionError(M_("unknown probe {name!r}; valid probes: {known}", name=ref.name,
                               known=probe_names(tensors)))
    try:
        return np.asarray(ref.select(tensors[ref.name]))
    except (ValueError, IndexError) as error:   # a ProbeRefError keeps its Message, translated where shown
        raise QuestionError(message_of(error)) from None


def reduce_slice(tensors: dict[str, np.ndarray], reference: str, reduce: str) -> float:
    """One number from a probe slice; ``value`` insists on a single entry instead of guessing."""
    array = probe_slice(tensors, reference)
    if reduce == "value" and array.size != 1:
        raise QuestionError(M_("{reference} selects {count} values; index one entry or set reduce",
                                reference=reference, count=array.size))
    if array.size == 0:
        raise QuestionError(M_("{reference} selects no values", reference=reference))
    return float(REDUCERS[reduce](array))


def bind_values(bind: dict, tensors: dict[str, np.ndarray], sizes: dict[str, int]) -> dict[str, object]:
    """A formula's ``bind:``, symbol -> value: a size name (D_head), a number, or a probe slice."""
    values: dict[str, object] = {}
    for symbol, source in bind.items():
        if isinstance(source, (int, float)):
            values[symbol] = float(source)
        elif source in sizes:
            values[symbol] = float(sizes[source])
        else:
            values[symbol] = probe_slice(tensors, source).astype(np.float64)
    return values
