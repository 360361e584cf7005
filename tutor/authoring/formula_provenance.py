"""A formula check proves something only when the tensor it reproduces was computed by the model.

If an experiment works out ``scaled = raw / sqrt(d_k)`` itself and the lesson's formula is
``S / sqrt(d_k)`` with ``S`` bound to ``raw``, "formula and model agree" only says that the same
arithmetic was done twice.  Experiments declare such outputs (``derived=`` in the registry: the
output and the outputs it is computed from), and this check refuses a formula whose reproduced
tensor and bound inputs are tied that way, in either direction.  The same holds for a ``formula``
question: a probe that its experiment computes with the answer's own arithmetic from the symbols the
question binds would grade the learner against a copy of the answer, not against the model.  It
needs no model.
"""
from __future__ import annotations

from tutor.common.i18n import M_
from tutor.course.schema import FormulaSpec
from tutor.experiments.registry import DERIVED_FROM
from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref


def _name(reference: str) -> str | None:
    try:
        return parse_probe_ref(reference).name
    except ProbeRefError:
        return None


def circular_binding(target_ref: str, bind: dict, sizes: tuple[str, ...]) -> str | None:
    """Why ``target_ref`` is only ``bind``'s own arithmetic redone (an author-facing message), or None."""
    target = _name(target_ref)
    inputs = {_name(source): symbol for symbol, source in bind.items()
              if isinstance(source, str) and source not in sizes}
    for name, symbol in sorted((n, s) for n, s in inputs.items() if n):
        if name in DERIVED_FROM.get(target, ()):
            return M_("{target} is computed by its experiment from {name} (bound to {symbol!r}), so the formula only "
                      "redoes the experiment's own arithmetic; reproduce a tensor the model computed (a probe of the "
                      "forward pass, a gradient, an optimizer's state)", target=target_ref, name=name,
                      symbol=symbol)
        if target in DERIVED_FROM.get(name, ()):
            return M_("{symbol!r} is bound to {name}, which its experiment computes from {target}, the tensor the "
                      "formula reproduces, so agreement is guaranteed; bind a quantity measured apart from it",
                      symbol=symbol, name=name, target=target)
    return None


def redone_arithmetic(spec: FormulaSpec, sizes: tuple[str, ...]) -> str | None:
    """Why the lesson's formula proves nothing (an author-facing message), or None when it may prove something."""
    return None if spec.reproduces is None else circular_binding(spec.reproduces, spec.bind, sizes)


def redone_in_questions(questions, sizes: tuple[str, ...]) -> list[tuple[int, str]]:
    """(index, message) for every question that binds symbols (a ``formula`` question) and is graded
    against a probe that is those binds' own arithmetic redone.  Asked of what a question holds, not of
    its kind's name, so a kind that binds symbols later is checked too."""
    return [(i, message) for i, question in enumerate(questions)
            if isinstance(getattr(question, "bind", None), dict) and getattr(question, "probe", None)
            and (message := circular_binding(question.probe, question.bind, sizes))]
