"""Issue 31, the box rule: a formula box (or its "In words" line) that answers a question the
learner has not finished is folded to one line until that question is finished, and ``lessons check``
warns where an author pins such a box open (``formula.given``).

Before: the box drew above every question, and the unseen readers' most common leak was a box
that stated what a later question asks (it-bits' −Σ ln p, one division from the bits question);
the leak check read only the box's source for a whole answer, and failed the lesson outright.
The fixtures are `tutor lessons new`'s template (random weights: no checkpoint, a second each).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from journey_helpers import open_live_lesson, text_of, type_answer, wait_for_live, wait_until
from session_helpers import lesson_from, service
from tutor.authoring.check import check_paths
from tutor.cli.lessons import template_text
from tutor.live.box_leaks import box_answers
from tutor.session.formula_fold import Fold, formula_fold

TEMPLATE_BOX = '''  expr: "softmax(causal_mask(S))"
  translation: "Hide the future from each row of the scaled scores S, and turn each row into positive weights."
  matrices: [S]              # symbols that are matrices (printed as Q·Kᵀ, never reordered)
  bind:                      # where each symbol's numbers come from: a probe slice, a size name or a number
    S: "blocks.0.attn.scores[0, 0]"'''
# the box writes the masked scores, which question 6 (masked-formula) asks for
FORMULA_BOX = '''  expr: "softmax(causal_mask(Q @ K.T / sqrt(d_k)))"
  translation: "Hide the future from each row of the scaled scores, and turn each row into positive weights."
  matrices: [Q, K]
  bind:
    Q: "blocks.0.attn.q[0, 0]"
    K: "blocks.0.attn.k[0, 0]"
    d_k: D_head'''
# the words state question 4's row sum
WORDS_BOX = TEMPLATE_BOX.replace("into positive weights.", "into positive weights that sum to 1.")
MASKED_FORMULA, ROW_SUM = 5, 3


def template(box: str = TEMPLATE_BOX, given: bool = False) -> str:
    text = template_text("boxed", "Boxed", "pr", 100, Path("boxed.yaml"), ["pr"])
    assert TEMPLATE_BOX in text
    return text.replace(TEMPLATE_BOX, box + ("\n  given: true" if given else ""))


def answers(text: str) -> tuple[int, ...]:
    from tutor.grading.quiz import truth_for
    from tutor.live.compute import compute_live
    from tutor.live.formula_check import render_spec
    from tutor.live.hub import ModelHub

    lesson = lesson_from(text, "boxed.yaml")
    live = compute_live(lesson, ModelHub())
    truths = {i: truth_for(q, live.tensors, live.sizes) for i, q in enumerate(lesson.questions)}
    return box_answers(lesson, live.tensors, live.sizes, truths, render_spec(lesson.formula))


def test_a_box_whose_formula_is_a_later_answer_answers_it():
    assert answers(template(FORMULA_BOX)) == (MASKED_FORMULA,)


def test_the_in_words_line_is_read_with_its_live_numbers():
    assert answers(template(WORDS_BOX)) == (ROW_SUM,)


def test_the_templates_own_box_answers_nothing():
    assert answers(template()) == ()


@pytest.mark.parametrize("expr,holds", [
    ("-sum(log(p))", True),             # it-bits: the numerator of −Σ ln p / ln 2
    ("-sum(log(p)) / log(2)", True),    # the answer itself
    ("sum(log(p))", True),              # its negative is a part too
    ("p", False),                       # a bare symbol is a part of every answer
    ("sum(p * log(p))", False),         # another formula in the same symbols
    ("-sum(log(q))", False),            # a symbol the question does not offer
])
def test_a_formula_answer_holds_the_box_when_the_box_is_a_part_of_it(expr, holds):
    from types import SimpleNamespace

    from tutor.grading.formula_read import read
    from tutor.grading.kinds import kind_of

    lesson = lesson_from(template(), "boxed.yaml")
    question = lesson.questions[MASKED_FORMULA].model_copy(
        update={"answer": "-sum(log(p)) / log(2)", "bind": {"p": "blocks.0.attn.pattern[0, 0, 0]"}, "matrices": [],
                "accept": [], "reject": []})
    truth = SimpleNamespace(value=SimpleNamespace(formula=read(question, question.answer)))
    assert kind_of(question).holds_formula(question, truth, expr) is holds


def finished(progress, lesson, index: int) -> None:
    """Question ``index`` given up: resolved, as a right try, the last try or an answer seen elsewhere resolves it."""
    from tutor.progress.records import Mode

    question = lesson.questions[index]
    mode = progress.question(lesson.id, question.id, Mode.SCORED, 3)[0]
    progress.give_up(lesson.id, question.id, mode, 3, None)


def test_the_fold_opens_once_the_questions_it_answers_are_finished():
    lesson, progress = lesson_from(template(FORMULA_BOX), "boxed.yaml"), service()
    assert formula_fold(progress, lesson, None) == Fold(False)        # the analysis is not ready: folded
    assert formula_fold(progress, lesson, (MASKED_FORMULA,)) == Fold(False, MASKED_FORMULA)
    for index in range(MASKED_FORMULA):
        finished(progress, lesson, index)
    assert formula_fold(progress, lesson, (MASKED_FORMULA,)) == Fold(False, MASKED_FORMULA)
    assert formula_fold(progress, lesson, ()) == Fold(True)           # a box that answers nothing
    wrong_first_try(progress, lesson, MASKED_FORMULA)
    assert formula_fold(progress, lesson, (MASKED_FORMULA,)) == Fold(False, MASKED_FORMULA)
    finished(progress, lesson, MASKED_FORMULA)
    assert formula_fold(progress, lesson, (MASKED_FORMULA,)) == Fold(True)
    assert formula_fold(progress, lesson, None) == Fold(True)         # a finished lesson reopened
    assert formula_fold(progress, lesson, (MASKED_FORMULA,), reviewing=MASKED_FORMULA) == Fold(False, MASKED_FORMULA)


def wrong_first_try(progress, lesson, index: int) -> None:
    """A wrong first try with tries left: before, this opened the box and the second try copied it
    (unseen reader r4fa: la-scaled-scores' Q·Kᵀ/√d_k above "2 tries left")."""
    from datetime import datetime, timezone

    from tutor.progress.records import Answer

    question = lesson.questions[index]
    progress.record(Answer(lesson.id, question.id, "Q @ K.T", False, 0, datetime(2026, 1, 1, tzinfo=timezone.utc),
                           tries_allowed=3))
    record = progress.store.question_record(lesson.id, question.id)
    assert record.tries == 1 and not record.resolved


def test_a_box_pinned_as_the_lessons_given_is_always_shown():
    lesson = lesson_from(template(FORMULA_BOX, given=True), "boxed.yaml")
    assert lesson.formula.given
    assert formula_fold(service(), lesson, (MASKED_FORMULA,)) == Fold(True)


@pytest.mark.parametrize("box,field,question", [(FORMULA_BOX, "formula.expr", "question 6 (questions.5, 'masked-formula')"),
                                                (WORDS_BOX, "formula.translation", "question 4 (questions.3, 'row-sum')")])
def test_the_check_passes_a_folded_box_and_warns_at_the_line_of_a_given_one(tmp_path, box, field, question):
    folded = tmp_path / "folded" / "boxed.yaml"
    folded.parent.mkdir()
    folded.write_text(template(box), encoding="utf-8")
    report = check_paths([folded], variants=0)
    assert report.ok and not [w for w in report.warnings if w.field.startswith("formula")], report.text()

    text = template(box, given=True)
    pinned = tmp_path / "boxed.yaml"
    pinned.write_text(text, encoding="utf-8")
    report = check_paths([pinned], variants=0)
    assert report.ok, report.text()
    [warning] = [w for w in report.warnings if w.field.startswith("formula")]
    assert warning.field == field and question in warning.message and "formula.given" in warning.message
    assert text.splitlines()[warning.line - 1].lstrip().startswith(field.split(".")[1] + ":")


@pytest.mark.parametrize("size,words", [((100, 30), "#translation"), ((80, 24), "#body-translation")])
async def test_the_screen_folds_the_box_until_the_question_is_finished(tmp_path, size, words):
    """At 100x30 the words sit beside the box; at 80x24 (compact) they move into the text: both fold."""
    from tutor.ui.app import TutorApp
    from tutor.ui.widgets.formula_box import FormulaBox

    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "boxed.yaml").write_text(template(FORMULA_BOX), encoding="utf-8")
    app = TutorApp(lesson_dirs=[folder], home=tmp_path / "home", preload_model=False, watch_interval=None)
    async with app.run_test(size=size) as pilot:
        app.open_lesson("boxed", MASKED_FORMULA)
        await pilot.pause()
        screen = app.screen
        assert screen.has_class("-folded")          # folded from the first paint (the analysis may still run)
        await wait_for_live(pilot, screen)
        await pilot.pause()
        assert screen.has_class("-folded") and not screen.query_one(FormulaBox).region.height
        assert text_of(screen, "#formula-fold") == "▸ Formula shown after question 6"
        assert screen.query_one("#formula-fold").region.height == 1
        assert not screen.query_one(words).region.height
        await type_answer(pilot, "Q @ K.T")          # a wrong first try, tries left: still folded
        await pilot.pause()
        assert screen.has_class("-folded") and not screen.query_one(FormulaBox).region.height
        screen.query_one(Input).value = ""
        await type_answer(pilot, "causal_mask(Q @ K.T / sqrt(d_k))")   # right: the question is finished
        await wait_until(pilot, lambda: not screen.has_class("-folded"), "the box opens")
        await pilot.pause()
        assert screen.query_one(FormulaBox).region.height and not screen.query_one("#formula-fold").region.height
        assert "In words" in text_of(screen, words) and screen.query_one(words).region.height


# --- a hint that works its own question's answer out -------------------------------------------

@pytest.mark.parametrize("text,shown,value", [
    ("A character with p = 1/96 costs −log₂(1/96) bits.", "−log₂(1/96)", 6.585),   # it-bits' random-bits hint
    ("log₂ 96 bits", "log₂ 96", 6.585),
    ("it is 1 − 0.1·2 here", "1 − 0.1·2", 0.8),
    ("e^(−2.3) of the mass", "e^(−2.3)", 0.1003),
    ("√64 columns", "√64", 8.0),
])
def test_arithmetic_in_prose_is_worked_out(text, shown, value):
    from tutor.grading.arithmetic_text import computations

    found = [c for c in computations(text) if text[c.start:c.end] == shown]
    assert found and found[0].value == pytest.approx(value, abs=1e-3), [(text[c.start:c.end], c.value)
                                                                        for c in computations(text)]


@pytest.mark.parametrize("text", ["with D = 8 features", "m̂₁ = g₁ and v̂₁ = g₁².", "a tensor of shape (2, 4, 8)", "96 characters", "the word log"])
def test_a_bare_number_or_a_shape_is_not_a_computation(text):
    from tutor.grading.arithmetic_text import computations

    assert computations(text) == []


ROW_SUM_HINT = '''    reduce: sum
    tolerance: 0.001
    answer: 1
'''
MASKED_HINT = '''    reveal: "causal_mask(Q·Kᵀ/√d_k): the scaled scores with −∞ above the diagonal."'''


@pytest.mark.parametrize("old,new,field,words", [
    (ROW_SUM_HINT, ROW_SUM_HINT + '    hints: ["Row 1 has two weights; say 0.25 + 0.75 of them."]\n',
     "questions.3.hints.0", "'0.25 + 0.75' gives 1"),
    (MASKED_HINT, MASKED_HINT + '\n    hints: ["It is causal_mask(Q @ K.T * d_k**(-0.5))."]',
     "questions.5.hints.0", "'causal_mask(Q @ K.T * d_k**(-0.5))'"),
])
def test_the_check_warns_at_a_hint_that_works_its_own_answer_out(tmp_path, old, new, field, words):
    text = template()
    assert text.count(old) == 1
    text = text.replace(old, new)
    path = tmp_path / "boxed.yaml"
    path.write_text(text, encoding="utf-8")
    report = check_paths([path], variants=0)
    assert report.ok, report.text()
    [warning] = [w for w in report.warnings if "works its answer out" in w.message]
    assert warning.field == field and words in warning.message, warning
    line = text.splitlines()[warning.line - 1]
    assert line[warning.column - 1:].startswith(words.split("'")[1]), (line, warning.column)


@pytest.fixture
def english_after():
    """F4 sets the interface language for the whole process: the tests after this one read English."""
    from tutor.common.i18n import set_language

    yield
    set_language("en")


async def test_f4_keeps_a_shipped_lessons_fold_and_says_it_in_chinese(tmp_path, english_after):
    """op-adam's box is question 2's numerator: folded in both languages, and the analysis runs again
    on the Chinese lesson (its words are what the learner reads now)."""
    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_live_lesson(pilot, "op-adam", 0)
        await wait_until(pilot, lambda: screen.box_answers is not None, "the box's analysis")
        assert screen.box_answers == (1,) and text_of(screen, "#formula-fold") == "▸ Formula shown after question 2"
        await pilot.press("f4")
        await wait_until(pilot, lambda: text_of(app.screen, "#formula-fold") == "▸ 公式在第 2 题完成之后显示",
                         "the fold line in Chinese")
        await pilot.pause()
        assert app.screen.has_class("-folded") and app.screen.box_answers == (1,)
