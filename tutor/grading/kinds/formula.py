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

from typing import Annotated, Literal, Union

import numpy as np
from pydantic import Field, model_validator

from tutor.common.i18n import M_, N_, _, message_of, translated
from tutor.common.lazy_import import sympy as sp   # SymPy loads at the first formula graded, not with the lessons
from tutor.formulas.cost import over_budget
from tutor.formulas.evaluate import FUNCTIONS, FormulaError, evaluate_tree, tree_names
from tutor.formulas.parse import Formula, render_formula
from tutor.grading.answer_text import formula_shown
from tutor.grading.answers import AnswerError
from tutor.grading.fields import ProbeRefText, QuestionBase
from tutor.grading.formula_builds import shape_problems
from tutor.grading.formula_draws import SIZED
from tutor.grading.formula_says import SAYS, Expression, WrongAnswer
from tutor.grading.formula_read import Unreadable, read
from tutor.grading.formula_nudges import close_enough
from tutor.grading.kinds.base import AuthorProblem, QuestionKind, Truth
from tutor.grading.kinds.formula_verdict import Given, matches, nudge_of, outcomes, truth

SymbolName = Annotated[str, Field(min_length=1, max_length=40)]


class FormulaQuestion(QuestionBase):
    kind: Literal["formula"]
    answer: Expression                                   # the reference expression
    matrices: list[SymbolName] = Field(default_factory=list, max_length=20)
    bind: dict[SymbolName, Union[str, float]] = Field(min_length=1, max_length=20)
    probe: ProbeRefText                                  # what the answer must reproduce on the model
    accept: list[Expression] = Field(default_factory=list, max_length=20)      # must grade right
    reject: list[WrongAnswer] = Field(default_factory=list, max_length=20)     # must grade wrong, with this nudge
    wrong: list[WrongAnswer] = Field(default_factory=list, max_length=10)      # the older name of reject
    forbid: list[SymbolName] = Field(default_factory=list, max_length=20)      # names an answer may not use
    # shapes, in size names ([L, L]), that no part of an answer may have: tutor.grading.formula_builds
    forbid_shapes: list[Annotated[list[Literal[SIZED]], Field(min_length=1, max_length=4)]] = \
        Field(default_factory=list, max_length=5)
    tolerance: float = Field(1e-4, gt=0, le=1, allow_inf_nan=False)

    @model_validator(mode="after")
    def _answer_reads_from_bound_symbols(self):
        if stray := sorted(set(self.matrices) - set(self.bind)):
            raise ValueError(M_("matrices names {names}, which bind does not give a value", names=", ".join(stray)))
        if stray := sorted(set(self.forbid) - set(self.bind) - set(FUNCTIONS)):
            raise ValueError(M_("forbid names {names}, which is neither a bound symbol nor a function",
                                names=", ".join(stray)))
        try:
            read(self, self.answer)
        except AnswerError as error:
            raise ValueError(M_("answer {answer!r} does not read: {error}", answer=self.answer, error=str(error))) from None
        return self


def preview(question, text: str) -> str | None:
    """How the text reads, printed as lesson formulas are; or where it stops reading."""
    if not text.strip():
        return None
    try:
        return render_formula(read(question, text))
    except Unreadable as error:
        caret = f"\n{' ' * (error.column - 1)}^" if error.column and error.column <= len(error.folded) + 1 else ""
        return f"{error.folded}{caret}\n" + _("Does not read yet: {problem}").format(problem=translated(message_of(error)))
    except AnswerError as error:   # an unknown or forbidden symbol: not a reading, so not shown as one
        return f"{text.strip()}\n" + _("Does not read yet: {problem}").format(problem=str(error))


def same_printed(question, reference: Formula):
    printed = []   # the reference printed once, at the first candidate: most texts searched have none

    def same(candidate: str) -> bool:
        if not printed:
            printed.append(sp.sstr(reference.expr, order="none"))
        try:
            return sp.sstr(read(question, candidate).expr, order="none") == printed[0]
        except AnswerError:
            return False
    return same


def shown_in(question, text: str, truth: Truth) -> tuple[int, int] | None:
    reference = truth.value.formula
    return formula_shown(text, tree_names(reference.tree), same_printed(question, reference))


def holds_formula(question, truth: Truth, expr: str) -> bool:
    """The reference answer is ``expr`` (read in the question's symbols) or is built on it: −Σ ln p
    inside −Σ ln p / ln 2.  SymPy's ``subs`` finds it as a part of a sum or a product too, and its
    negative (p − (a + b) holds a + b).  A bare symbol or number is a part of many answers, not one."""
    try:
        part = read(question, expr).expr
    except AnswerError:
        return False   # a symbol the question does not offer: the box is about something else
    if part.is_Atom:
        return False
    answer, marker = truth.value.formula.expr, sp.Dummy()
    return any(answer.subs(form, marker).has(marker) for form in (part, -part))


def computed_in(question, text: str, truth: Truth) -> tuple[int, int] | None:
    """A formula in ``text`` that the draws grade right, printed another way than the answer (the leak
    check's ``shown_in`` finds the same printed formula): ``(1 - eps) * y + eps / V`` expanded."""
    def graded_right(candidate: str) -> bool:
        try:
            found = outcomes(question, Given(read(question, candidate)), truth)
        except AnswerError:
            return False
        return all(close_enough(o.yours, o.expected, question.tolerance) for o in found)
    return formula_shown(text, tree_names(truth.value.formula.tree), graded_right)


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
    if problems:
        return problems
    problems += [AuthorProblem(("forbid_shapes",), problem) for problem in shape_problems(
        question.answer, truth.value.formula.tree, question.forbid_shapes, [draw for draw, _ in truth.value.draws])]
    problems += [problem for i, text in enumerate(question.accept) for problem in _check_accept(question, truth, i, text)]
    # a nudge's words may name the lesson's own sizes; an author's sentence names none, so its form
    # must be refused, with that sentence, on every model and size the check runs
    problems += [problem for name in ("reject", "wrong") for i, wrong in enumerate(getattr(question, name))
                 if own_sizes or wrong.says is not None for problem in _check_reject(question, truth, (name, i), wrong)]
    return problems


def _check_accept(question, truth: Truth, i: int, text: str) -> list[AuthorProblem]:
    try:
        given = Given(read(question, text))
    except AnswerError as error:
        return [AuthorProblem(("accept", i), M_("{expr!r} does not read: {error}", expr=text, error=message_of(error)))]
    if matches(question, given, truth):
        return []
    return [AuthorProblem(("accept", i), M_("{expr!r} is graded wrong ({text}); an accept: expression must be graded "
                                            "right", expr=text, text=nudge_of(question, given, truth).text))]


def _check_reject(question, truth: Truth, at: tuple, wrong) -> list[AuthorProblem]:
    """Refused, with a nudge of the word given (``symbol`` and ``forbidden`` are the free refusals),
    or with the entry's own sentence."""
    field = (*at, "expr")
    try:
        given = Given(read(question, wrong.expr))
    except AnswerError as error:
        word = getattr(error, "word", None)
        if word is None:
            return [AuthorProblem(field, M_("{expr!r} does not read: {error}", expr=wrong.expr, error=message_of(error)))]
        if wrong.says is not None:
            return [AuthorProblem(field, M_("{expr!r} is refused before it is graded ({error}), so its says: sentence "
                                            "is never shown", expr=wrong.expr, error=message_of(error)))]
        return [] if wrong.nudge == word else [AuthorProblem(field, M_(
            "{expr!r} gets the '{found}' message, not '{nudge}': {error}", expr=wrong.expr, found=word,
            nudge=wrong.nudge, error=message_of(error)))]
    if matches(question, given, truth):
        return [AuthorProblem(field, M_("{expr!r} is graded right; a {field}: expression must be refused",
                                        expr=wrong.expr, field=at[0]))]
    found = nudge_of(question, given, truth)
    if wrong.says is not None and (found.word, found.text) != (SAYS, wrong.says):
        why = M_("an earlier entry's form grades as the same answer") if found.word == SAYS else \
            M_("it cannot be computed on every draw the grader uses")
        return [AuthorProblem((*at, "says"), M_("{expr!r} gets {text!r}, not its own says: sentence: {why}",
                                                expr=wrong.expr, text=found.text, why=why))]
    if wrong.says is None and found.word != wrong.nudge:
        return [AuthorProblem((*at, "nudge"), M_("{expr!r} gets a '{found}' nudge, not '{nudge}': {text}",
                                                 expr=wrong.expr, found=found.word, nudge=wrong.nudge, text=found.text))]
    return []


class FormulaKind(QuestionKind[FormulaQuestion, Given]):
    name = "formula"
    order = 60
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

    def closeness(self, question, truth, given=None):
        return _("checked on these tensors and {count} other draws").format(count=len(truth.value.draws) - 1)

    def check_answer(self, question, truth, tensors, sizes, own_sizes):
        return check_answer(question, truth, tensors, sizes, own_sizes)

    def same_answer(self, question, truth, earlier, earlier_truth):
        return same_printed(question, truth.value.formula)(earlier.answer)

    def computed_in(self, question, text, truth):
        return computed_in(question, text, truth)

    def holds_formula(self, question, truth, expr):
        return holds_formula(question, truth, expr)

    def preview(self, question, text):
        return preview(question, text)

    def wants_distinct_sizes(self, question):
        # the reference is what the draws at other sizes compare with: ``/ 2`` for √d_k must fail the check
        return True

    def answer_format(self):
        return N_("Formulas: Q @ K.T / sqrt(d_k) or Q·Kᵀ/√d_k, with the symbols the question offers")


KIND = FormulaKind()
