"""Formula <-> model: evaluate a lesson's formula on the live tensors and compare.

This is what lets a lesson say "the formula and the model agree to 3e-8" instead of asking
the learner to take it on trust.  No Textual and no torch: inputs are numpy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutor.common.i18n import M_, message_of
from tutor.formulas.parse import FormulaError, compare, evaluate_formula, parse_formula, render_formula
from tutor.course.schema import FormulaSpec
from tutor.grading.probe_ref import ProbeRefError
from tutor.grading.quiz import QuestionError, probe_slice
from tutor.grading.tensor_access import bind_values as bind_symbols


@dataclass(frozen=True)
class FormulaCheck:
    max_error: float | None   # None when the formula names no probe to reproduce
    ok: bool
    message: str
    reason: str = ""          # why it could not be evaluated (the message without its "formula check failed")


def parse_spec(spec: FormulaSpec):
    """Parse the lesson's formula; matrices are the declared ones (others are scalars)."""
    return parse_formula(spec.expr, matrices=spec.matrices, scalars=())


def render_spec(spec: FormulaSpec) -> str:
    return render_formula(parse_spec(spec))


def bind_values(spec: FormulaSpec, tensors: dict[str, np.ndarray], sizes: dict[str, int]) -> dict:
    """Symbol -> value: a size name (D_head), a number, or a probe slice."""
    return bind_symbols(spec.bind, tensors, sizes)


def check_formula(spec: FormulaSpec, tensors: dict[str, np.ndarray], sizes: dict[str, int]) -> FormulaCheck:
    if spec.reproduces is None:
        return FormulaCheck(None, True, M_("this formula is not computed from the model's tensors"))
    try:
        formula = parse_spec(spec)
        result = evaluate_formula(formula, bind_values(spec, tensors, sizes))
        expected = probe_slice(tensors, spec.reproduces).astype(np.float64)
    except (FormulaError, QuestionError, ProbeRefError) as error:
        reason = message_of(error)
        return FormulaCheck(None, False, M_("formula check failed: {error}", error=reason), reason)
    error = compare(np.asarray(result), expected)
    if not spec.relative:
        ok = error <= spec.tolerance
        verdict = (M_("formula and model agree: max |difference| = {error:.2g} on {probe} (tolerance {tolerance:g})",
                      error=error, probe=spec.reproduces, tolerance=spec.tolerance) if ok else
                   M_("formula and model DISAGREE: max |difference| = {error:.2g} on {probe} (tolerance {tolerance:g})",
                      error=error, probe=spec.reproduces, tolerance=spec.tolerance))
        return FormulaCheck(error, ok, verdict)
    finite = np.abs(expected[np.isfinite(expected)])
    allowed = spec.tolerance * (float(finite.max()) if finite.size else 0.0)
    ok = error <= allowed
    values = dict(error=error, probe=spec.reproduces, tolerance=spec.tolerance, allowed=allowed)
    verdict = (M_("formula and model agree: max |difference| = {error:.2g} on {probe} (tolerance {tolerance:g} of "
                  "its largest |value|: {allowed:.2g})", **values) if ok else
               M_("formula and model DISAGREE: max |difference| = {error:.2g} on {probe} (tolerance {tolerance:g} of "
                  "its largest |value|: {allowed:.2g})", **values))
    return FormulaCheck(error, ok, verdict)
