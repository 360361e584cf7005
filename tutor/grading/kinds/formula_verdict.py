"""The formula kind's verdict: the reference answer on every draw, the learner's results on them, and
right or wrong with the nudge that says why.  Kept apart from the kind's module (question fields,
preview, leak search, author checks) so each stays one job; nothing here reads lesson text.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tutor.common.i18n import _, message_of, translated
from tutor.formulas.budget import CPU_SECONDS
from tutor.formulas.cost import EVALUATION_VALUES, EVALUATION_WORK, evaluation_cost
from tutor.formulas.evaluate import FormulaError, Node, evaluate_tree
from tutor.formulas.parse import Formula
from tutor.grading.answers import AnswerError
from tutor.grading.formula_builds import builds_nudge, built
from tutor.grading.formula_draws import formula_draws
from tutor.grading.formula_says import said, shaped_like
from tutor.grading.formula_read import read
from tutor.grading.formula_symbolic import same_formula
from tutor.grading.formula_literals import bare_number_nudge, literal_nudge, not_the_formula, written_number
from tutor.grading.formula_scales import line_scale_nudge
from tutor.grading.formula_nudges import Nudge, Outcome, close_enough, nudge as nudge_for
from tutor.grading.kinds.base import Truth, with_reveal
from tutor.grading.tensor_access import QuestionError, probe_slice


@dataclass(frozen=True)
class Reference:
    """The answer on every draw: the probe itself on the lesson's, the reference formula elsewhere."""
    formula: Formula
    draws: tuple                 # (Draw, expected array) pairs, the lesson's own first
    # each says: form's results on the draws, computed at the first wrong try (tutor.grading.formula_says)
    sentence_forms: dict = field(default_factory=dict, compare=False, repr=False)


class Given:
    """The learner's formula, with its results kept for the nudge (matches and nudge read them both):
    its outcomes and why a formula right on every draw is still refused, each once per truth."""

    def __init__(self, formula: Formula):
        self.formula = formula
        self.outcomes: dict[int, list[Outcome]] = {}
        self.refusals: dict[int, Nudge | None] = {}


def _defined_like(result: np.ndarray, expected: np.ndarray) -> bool:
    """The reference is finite on a draw wherever the lesson's own answer is: a NaN or an infinity
    the probe does not have means the draw left the formula's domain (a log of a negative number)."""
    return (not np.isnan(result).any() or np.isnan(expected).any()) and \
        (not np.isinf(result).any() or np.isinf(expected).any())


def truth(question, tensors, sizes) -> Truth:
    expected = probe_slice(tensors, question.probe).astype(np.float64)
    try:
        formula = read(question, question.answer)
    except AnswerError as error:
        raise QuestionError(f"answer {question.answer!r} does not read: {error}") from None

    def judge(draw):
        try:   # the reference cannot take these sizes, or is undefined on these values: drawn again
            result = evaluate_tree(formula.tree, draw.values)
        except FormulaError:
            return None
        return result if _defined_like(result, expected) else None
    pairs = formula_draws(question.bind, tensors, sizes, f"{question.id}:{question.answer}", expected, judge)
    return with_reveal(question, tensors, Reference(formula, tuple(pairs)), question.answer, expected, question.probe)


def outcomes(question, given: Given, truth: Truth) -> list[Outcome]:
    """The learner's result on every draw; over the compute budget is not an attempt (AnswerError)."""
    if id(truth) in given.outcomes:
        return given.outcomes[id(truth)]
    found = []
    for draw, expected in truth.value.draws:
        try:
            work, largest = evaluation_cost(given.formula.tree, {s: np.shape(v) for s, v in draw.values.items()})
            if work > EVALUATION_WORK or largest > EVALUATION_VALUES:
                raise AnswerError(_("that formula would take too long to evaluate (about {work:.0e} "
                                    "multiply-adds); write it with fewer products").format(work=work))
            found.append(Outcome(draw, shaped_like(evaluate_tree(given.formula.tree, draw.values), expected), expected))
        except FormulaError as error:
            found.append(Outcome(draw, None, expected, translated(message_of(error))))
    given.outcomes[id(truth)] = found
    return found


def symbolic_verdict(question, given: Given, truth: Truth, cpu_seconds: float = CPU_SECONDS) -> bool | None:
    """For answers of single numbers: SymPy says the two formulas are equal (True), differ (False), or
    cannot tell (None: also when it does not finish within its CPU budget; the draws alone judge)."""
    own = truth.value.draws[0][0]
    if question.matrices or any(np.size(value) != 1 for value in own.values.values()):
        return None
    return same_formula(given.formula.expr, truth.value.formula.expr, [draw for draw, _ in truth.value.draws],
                        cpu_seconds)


def _built(question, given: Given, truth: Truth):
    return built(given.formula.tree, question.forbid_shapes, [draw for draw, _ in truth.value.draws])


def _not_the_formula(question, given: Given, truth: Truth) -> Nudge | None:
    """formula_literals.not_the_formula, once per truth: matches and nudge_of both ask for it."""
    if id(truth) not in given.refusals:
        given.refusals[id(truth)] = not_the_formula(question.id, given.formula.tree, truth.value.formula.tree,
                                                    outcomes(question, given, truth), question.tolerance)
    return given.refusals[id(truth)]


def matches(question, given: Given, truth: Truth) -> bool:
    found = outcomes(question, given, truth)
    numeric = all(close_enough(o.yours, o.expected, question.tolerance) for o in found)
    return numeric and symbolic_verdict(question, given, truth) is not False and _built(question, given, truth) is None \
        and _not_the_formula(question, given, truth) is None


def nudge_of(question, given: Given, truth: Truth):
    found = outcomes(question, given, truth)
    tree, reference = given.formula.tree, truth.value.formula.tree
    intermediate = _built(question, given, truth)
    if all(close_enough(o.yours, o.expected, question.tolerance) for o in found):
        return (builds_nudge(intermediate) if intermediate else None) or \
            _not_the_formula(question, given, truth) or \
            Nudge("coincidence", _("Yours equals the answer on these numbers, but not as a formula."))
    if sentence := said(question, found, truth.value.draws, lambda form, pairs: symbolic_verdict(
            question, given, Truth(Reference(form, tuple(pairs)), "", None)), truth.value.sentence_forms):
        return sentence   # the author's sentence for this very mistake says more than any computed nudge
    if intermediate:   # a step the question rules out, whatever else is wrong
        return builds_nudge(intermediate)
    if bare := bare_number_nudge(tree, reference):
        return bare
    written = written_number(question.id, tree, reference, found, question.tolerance, right=False)
    found_nudge = line_scale_nudge(found, question.tolerance, nudge_for(found, question.tolerance, _has_number(tree)))
    # a number written for a name: named where writing the name is right everywhere, or (a bound value
    # among other numbers made from it) where yours holds on the lesson's values only
    return literal_nudge(written) if written and (written.everywhere or found_nudge.word == "coincidence") \
        else found_nudge


def _has_number(node: Node) -> bool:
    return node.kind == "num" or any(_has_number(arg) for arg in node.args)
