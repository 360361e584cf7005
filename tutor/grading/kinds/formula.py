"""kind: formula — the learner writes the expression (``Q @ K.T / sqrt(d_k)``, ``Q·Kᵀ/√d_k``) and
the live model checks it.

The text is folded to the lesson formula syntax (tutor.formulas.written) and read by the same
whitelisting parser as a lesson's formula: nothing is ever run as code.  The answer is graded by
evaluating it on the question's bound tensors and comparing it with the probe, then with the
reference formula on draws at other sizes and with other values (tutor.grading.formula_draws),
so an expression equal only by coincidence is refused; scalar answers are also compared as
formulas by SymPy where it can decide.  A wrong answer gets a nudge computed from both results
(tutor.grading.formula_nudges).  Text that does not read, or names a symbol the question does not
offer, costs no try; the preview shows how the text reads while it is typed.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Literal, Union

import numpy as np
import sympy as sp
from pydantic import Field, model_validator

from tutor.common.i18n import M_, N_, _, message_of, translated
from tutor.formulas.cost import EVALUATION_VALUES, EVALUATION_WORK, evaluation_cost, over_budget
from tutor.formulas.display import expr_unicode, to_sympy
from tutor.formulas.evaluate import FormulaError, Node, evaluate_tree, tree_names
from tutor.formulas.parse import Formula, parse_formula, render_formula
from tutor.formulas.written import fold_formula
from tutor.grading.answer_text import formula_shown
from tutor.grading.answers import AnswerError
from tutor.grading.fields import ProbeRefText, QuestionBase, Strict
from tutor.grading.formula_draws import formula_draws
from tutor.grading.formula_nudges import WORDS, Outcome, close_enough, nudge as nudge_for
from tutor.grading.kinds.base import AuthorProblem, QuestionKind, Truth, with_reveal
from tutor.grading.tensor_access import QuestionError, probe_slice

SymbolName = Annotated[str, Field(min_length=1, max_length=40)]
Expression = Annotated[str, Field(min_length=1, max_length=500)]
MAX_SYMBOLIC_OPS = 60   # SymPy's simplify on anything larger may take seconds


class WrongAnswer(Strict):
    """An expression the grader must refuse, and the word its nudge must carry."""
    expr: Expression
    nudge: Literal[WORDS]


class FormulaQuestion(QuestionBase):
    kind: Literal["formula"]
    answer: Expression                                   # the reference expression
    matrices: list[SymbolName] = Field(default_factory=list, max_length=20)
    bind: dict[SymbolName, Union[str, float]] = Field(min_length=1, max_length=20)
    probe: ProbeRefText                                  # what the answer must reproduce on the model
    wrong: list[WrongAnswer] = Field(default_factory=list, max_length=10)
    tolerance: float = Field(1e-4, gt=0, le=1, allow_inf_nan=False)

    @model_validator(mode="after")
    def _answer_reads_from_bound_symbols(self):
        if stray := sorted(set(self.matrices) - set(self.bind)):
            raise ValueError(M_("matrices names {names}, which bind does not give a value", names=", ".join(stray)))
        try:
            read(self, self.answer)
        except AnswerError as error:
            raise ValueError(M_("answer {answer!r} does not read: {error}", answer=self.answer, error=str(error))) from None
        return self


class Unreadable(AnswerError):
    """The text does not parse as a formula; ``folded`` is what was read and ``column`` where it fails."""

    def __init__(self, message: str, folded: str, column: int | None):
        super().__init__(message)
        self.folded, self.column = folded, column


class UnknownSymbol(AnswerError):
    word = "symbol"


def _printed(name: str) -> str:
    return expr_unicode(to_sympy(Node("name", name), frozenset()))


def _renamed(node: Node, names: dict[str, str]) -> Node:
    if node.kind == "name":
        return dataclasses.replace(node, value=names.get(str(node.value), node.value))
    return dataclasses.replace(node, args=tuple(_renamed(arg, names) for arg in node.args))


def _products(node: Node, matrices: frozenset[str]) -> tuple[Node, bool]:
    """``·`` is folded to ``@``; where one side is a scalar it means ``*`` (as it prints: a·b)."""
    if node.kind == "name":
        return node, str(node.value) in matrices
    if node.kind == "num":
        return node, False
    parts = [_products(arg, matrices) for arg in node.args]
    node = dataclasses.replace(node, args=tuple(p[0] for p in parts))
    if node.kind == "op" and node.value == "@" and not all(p[1] for p in parts):
        node = dataclasses.replace(node, value="*")
    return node, any(p[1] for p in parts)


def read(question, text: str) -> Formula:
    """The learner's text as a formula over the question's symbols (``β₁`` is ``beta1``, ``ε`` is ``eps``)."""
    folded = fold_formula(text)
    matrices = frozenset(question.matrices)
    try:
        formula = parse_formula(folded, matrices=matrices)
    except FormulaError as error:
        raise Unreadable(error.message, folded, error.column) from None
    offered = {_printed(name): name for name in question.bind}
    names = {}
    for name in sorted(tree_names(formula.tree)):
        if name not in question.bind:
            if _printed(name) not in offered:
                raise UnknownSymbol(_("{name} is not a symbol this question offers; it offers {offered}").format(
                    name=name, offered=", ".join(question.bind)))
            names[name] = offered[_printed(name)]
    tree, _matrix = _products(_renamed(formula.tree, names), matrices)
    return Formula(folded, to_sympy(tree, matrices), tree, matrices)


@dataclass(frozen=True)
class Reference:
    """The answer on every draw: the probe itself on the lesson's, the reference formula elsewhere."""
    formula: Formula
    draws: tuple                 # (Draw, expected array) pairs, the lesson's own first


class Given:
    """The learner's formula, with its results kept for the nudge (matches and nudge read them both)."""

    def __init__(self, formula: Formula):
        self.formula = formula
        self.outcomes: dict[int, list[Outcome]] = {}


def truth(question, tensors, sizes) -> Truth:
    expected = probe_slice(tensors, question.probe).astype(np.float64)
    try:
        formula = read(question, question.answer)
    except AnswerError as error:
        raise QuestionError(f"answer {question.answer!r} does not read: {error}") from None
    draws = formula_draws(question.bind, tensors, sizes, f"{question.id}:{question.answer}")
    pairs = [(draws[0], expected)]
    for draw in draws[1:]:
        try:
            pairs.append((draw, evaluate_tree(formula.tree, draw.values)))
        except FormulaError:
            continue   # the reference cannot take these sizes; the other draws still count
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
            found.append(Outcome(draw, evaluate_tree(given.formula.tree, draw.values), expected))
        except FormulaError as error:
            found.append(Outcome(draw, None, expected, error.message))
    given.outcomes[id(truth)] = found
    return found


def symbolic_verdict(question, given: Given, truth: Truth) -> bool | None:
    """For scalar answers: SymPy says the two formulas are equal (True), differ (False), or cannot tell."""
    own = truth.value.draws[0][0]
    if question.matrices or any(np.ndim(value) for value in own.values.values()):
        return None
    mine, reference = given.formula.expr, truth.value.formula.expr
    if sp.count_ops(mine) + sp.count_ops(reference) > MAX_SYMBOLIC_OPS:
        return None
    try:
        difference = sp.simplify(mine.doit() - reference.doit())
        if difference == 0:
            return True
        return False if difference.is_number and difference.is_finite else None
    except (TypeError, ValueError, ArithmeticError, AttributeError, NotImplementedError, RecursionError):
        return None   # SymPy cannot decide: the draws alone judge


def matches(question, given: Given, truth: Truth) -> bool:
    numeric = all(close_enough(o.yours, o.expected, question.tolerance) for o in outcomes(question, given, truth))
    return numeric and symbolic_verdict(question, given, truth) is not False


def nudge_of(question, given: Given, truth: Truth):
    found = outcomes(question, given, truth)
    if all(close_enough(o.yours, o.expected, question.tolerance) for o in found):
        from tutor.grading.formula_nudges import Nudge
        return Nudge("coincidence", _("Yours equals the answer on these numbers, but not as a formula."))
    return nudge_for(found, question.tolerance)


def preview(question, text: str) -> str | None:
    """How the text reads, printed as lesson formulas are; or where it stops reading."""
    if not text.strip():
        return None
    try:
        return render_formula(read(question, text))
    except Unreadable as error:
        caret = f"\n{' ' * (error.column - 1)}^" if error.column and error.column <= len(error.folded) + 1 else ""
        return f"{error.folded}{caret}\n" + _("Does not read yet: {problem}").format(problem=translated(message_of(error)))
    except AnswerError as error:
        return str(error)


def same_printed(question, reference: Formula):
    printed = sp.sstr(reference.expr, order="none")

    def same(candidate: str) -> bool:
        try:
            return sp.sstr(read(question, candidate).expr, order="none") == printed
        except AnswerError:
            return False
    return same


def shown_in(question, text: str, truth: Truth) -> tuple[int, int] | None:
    reference = truth.value.formula
    return formula_shown(text, tree_names(reference.tree), same_printed(question, reference))


def check_answer(question, truth: Truth, tensors, sizes, own_sizes: bool) -> list[AuthorProblem]:
    """The reference must reproduce the probe on every size checked; each ``wrong:`` must be refused
    with a nudge of its word (on the lesson's own sizes, where the lesson's text is read)."""
    reference = truth.value.formula
    (own, expected), = truth.value.draws[:1]
    problems = []
    try:
        if why := over_budget(reference.tree, {s: np.shape(v) for s, v in own.values.items()}):
            return [AuthorProblem(("answer",), M_("answer {answer!r} is too costly to grade: {why}",
                                                     answer=question.answer, why=why))]
        result = evaluate_tree(reference.tree, own.values)
    except FormulaError as error:
        return [AuthorProblem(("answer",), M_("answer {answer!r} cannot be evaluated: {error}", answer=question.answer,
                                              error=message_of(error)))]
    if not close_enough(result, expected, question.tolerance):
        detail = M_("it gives shape {shape}, {probe} is {expected}", shape=result.shape, probe=question.probe,
                    expected=expected.shape) if result.shape != expected.shape else \
            M_("max |difference| {difference}", difference=format(np.nanmax(np.abs(result - expected)), ".2g"))
        problems.append(AuthorProblem(("answer",), M_("answer {answer!r} does not reproduce {probe}: {detail}; check "
                                                      "the answer and its bind: slices", answer=question.answer,
                                                      probe=question.probe, detail=detail)))
    if own_sizes and not problems:
        problems += [problem for i, wrong in enumerate(question.wrong) for problem in _check_wrong(question, truth, i, wrong)]
    return problems


def _check_wrong(question, truth: Truth, i: int, wrong) -> list[AuthorProblem]:
    field = ("wrong", i, "expr")
    try:
        given = Given(read(question, wrong.expr))
    except UnknownSymbol as error:
        return [] if wrong.nudge == "symbol" else [AuthorProblem(field, M_(
            "{expr!r} gets the 'symbol' message, not '{nudge}': {error}", expr=wrong.expr, nudge=wrong.nudge,
            error=message_of(error)))]
    except AnswerError as error:
        return [AuthorProblem(field, M_("{expr!r} does not read: {error}", expr=wrong.expr, error=message_of(error)))]
    if matches(question, given, truth):
        return [AuthorProblem(field, M_("{expr!r} is graded right; a wrong: expression must be refused", expr=wrong.expr))]
    found = nudge_of(question, given, truth)
    if found.word != wrong.nudge:
        return [AuthorProblem(("wrong", i, "nudge"), M_("{expr!r} gets a '{found}' nudge, not '{nudge}': {text}",
                                                        expr=wrong.expr, found=found.word, nudge=wrong.nudge,
                                                        text=found.text))]
    return []


class FormulaKind(QuestionKind[FormulaQuestion, Given]):
    name = "formula"
    question = FormulaQuestion

    def parse(self, question, text, sizes):
        return Given(read(question, text))

    def truth(self, question, tensors, sizes):
        return truth(question, tensors, sizes)

    def matches(self, question, given, truth):
        return matches(question, given, truth)

    def nudge(self, question, given, truth):
        return nudge_of(question, given, truth).text

    def shown_in(self, question, text, truth):
        return shown_in(question, text, truth)

    def reads(self, question):
        return []   # its answer is an expression: the probe's numbers on screen do not write it

    def closeness(self, question, truth):
        return _("checked on these tensors and {count} other draws").format(count=len(truth.value.draws) - 1)

    def check_answer(self, question, truth, tensors, sizes, own_sizes):
        return check_answer(question, truth, tensors, sizes, own_sizes)

    def same_answer(self, question, truth, earlier, earlier_truth):
        return same_printed(question, truth.value.formula)(earlier.answer)

    def preview(self, question, text):
        return preview(question, text)

    def wants_distinct_sizes(self, question):
        # the reference is what the draws at other sizes compare with: ``/ 2`` for √d_k must fail the check
        return True

    def answer_format(self):
        return N_("Formulas: Q @ K.T / sqrt(d_k) or Q·Kᵀ/√d_k, with the symbols the question offers")


KIND = FormulaKind()
