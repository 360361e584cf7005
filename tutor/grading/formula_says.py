"""An author's sentence for a known mistake: a formula question's ``reject:`` entry with ``says:``.

The computed nudges (tutor.grading.formula_nudges) name what a difference looks like: a factor, a
sign, the mask's triangle.  A mistake that changes the result in no such way (the mask put after
the softmax, the scores transposed inside it, a log of a negative total) gets only "differs at 12
of its 16 entries", and the learner cannot tell which step is wrong.  The author knows the usual
mistakes, so a ``reject:`` entry may carry the sentence for one; a learner's answer that grades as
that entry's form by the rule an ``accept:`` answer is graded by (equal on every draw, and not
told apart by SymPy where the answer is one number) gets the sentence instead of a computed nudge.

Nothing runs as code: the entry's form is a lesson formula, read by the same whitelisting parser
as the learner's; the sentence is lesson text, checked by the lesson reader like every string.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Literal, Optional

import numpy as np
from pydantic import Field, model_validator

from tutor.common.i18n import M_
from tutor.formulas.cost import over_budget
from tutor.formulas.evaluate import FormulaError, evaluate_tree
from tutor.formulas.parse import Formula
from tutor.grading.answers import AnswerError
from tutor.grading.fields import ShortText, Strict
from tutor.grading.formula_nudges import WORDS, Nudge, Outcome, close_enough
from tutor.grading.formula_read import read

SAYS = "says"                    # the nudge word of an author's sentence
TESTS = ("reject", "wrong")      # the fields whose entries may carry one (``wrong:`` is reject's older name)
Expression = Annotated[str, Field(min_length=1, max_length=500)]


class WrongAnswer(Strict):
    """An expression the grader must refuse, and what a learner who writes it reads: the grader's own
    nudge, which must carry the word ``nudge``, or the author's sentence ``says`` for this mistake."""
    expr: Expression
    nudge: Optional[Literal[WORDS]] = None
    says: Optional[ShortText] = None

    @model_validator(mode="after")
    def _one_message(self):
        if (self.nudge is None) == (self.says is None):
            raise ValueError(M_("give nudge: (the word of the grader's own nudge) or says: (your sentence for this "
                                "mistake), one of the two"))
        if self.says is not None and "{{" in self.says:
            raise ValueError(M_("says: is shown as written: live numbers ({{{{ … }}}}) are not filled in there"))
        return self


def sentenced(question) -> list[tuple[str, int, object]]:
    """(field, index, entry) of every entry with a sentence, in the file's order: the order a
    translation lists them in (``says:`` in the question's overlay)."""
    return [(name, index, entry) for name in TESTS for index, entry in enumerate(getattr(question, name, ()) or ())
            if getattr(entry, "says", None)]


def sentences(question) -> list[str]:
    return [entry.says for _name, _index, entry in sentenced(question)]


def with_sentences(question, texts: list[str]):
    """The question with its sentences replaced by ``texts`` (a translation, in :func:`sentenced`'s
    order): the grader then says them in the learner's language."""
    if not texts:
        return question
    replaced = {(name, index): text for (name, index, _entry), text in zip(sentenced(question), texts)}
    update = {}
    for name in TESTS:
        entries = list(getattr(question, name, ()) or ())
        if any((name, index) in replaced for index in range(len(entries))):
            update[name] = [entry.model_copy(update={"says": replaced[(name, index)]}) if (name, index) in replaced
                            else entry for index, entry in enumerate(entries)]
    return question.model_copy(update=update)


def shaped_like(result: np.ndarray, expected) -> np.ndarray:
    """One number for a one-entry answer: ``96`` is compared as a value with a perplexity of shape (1,)."""
    return np.reshape(result, np.shape(expected)) if np.ndim(result) == 0 and np.size(expected) == 1 else result


def _results(form: Formula, draws) -> list[np.ndarray] | None:
    """The form's result on each draw (None: it cannot be computed on one, so it is not this answer's)."""
    results = []
    for draw, expected in draws:
        if over_budget(form.tree, {s: np.shape(v) for s, v in draw.values.items()}):
            return None
        try:
            results.append(shaped_like(evaluate_tree(form.tree, draw.values), expected))
        except FormulaError:
            return None
    return results


def _form(question, expr: str, draws) -> tuple[Formula, list[np.ndarray]] | None:
    try:
        form = read(question, expr)
    except AnswerError:
        return None   # a symbol the question does not offer: ``lessons check`` reports it
    results = _results(form, draws)
    return None if results is None else (form, results)


def mistakes(question, draws, cache: dict | None = None) -> Iterator[tuple[object, Formula, list[np.ndarray]]]:
    """(entry, its form, its result on each draw) of each entry with a sentence that reads and computes.

    ``cache`` (one per truth, keyed by the form's text, so a translated sentence shares it) keeps
    each form's results: they depend on the draws alone, not on the learner's try."""
    for _name, _index, entry in sentenced(question):
        if cache is None or entry.expr not in cache:
            found = _form(question, entry.expr, draws)
            if cache is None:
                if found:
                    yield entry, *found
                continue
            cache[entry.expr] = found
        if cache[entry.expr]:
            yield entry, *cache[entry.expr]


SameFormula = Callable[[Formula, list], "bool | None"]   # SymPy's word on yours against a form (None: cannot tell)


def said(question, yours: list[Outcome], draws, same_formula: SameFormula, cache: dict | None = None) -> Nudge | None:
    """The first sentence whose form equals yours on every draw, and which SymPy does not tell
    apart from yours (it decides only for single numbers): an ``accept:`` answer's rule."""
    for entry, form, results in mistakes(question, draws, cache):
        if len(results) == len(yours) and \
                all(close_enough(o.yours, result, question.tolerance) for o, result in zip(yours, results)) and \
                same_formula(form, [(draw, result) for (draw, _expected), result in zip(draws, results)]) is not False:
            return Nudge(SAYS, entry.says)
    return None
