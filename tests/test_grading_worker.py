"""Issue 30: the lesson screen grades in a worker, so a slow grade (a formula's symbolic work under
its budget, tutor.formulas.budget) never freezes it; the verdict is recorded on the UI thread, once,
and only while its question is still the one on screen.

The grader is held by the test (HeldGrader) instead of timed: what is checked is the order of
events (a key handled before the verdict), never how long anything took.
"""
from __future__ import annotations

import threading

import pytest

from journey_helpers import graded, open_live_lesson, text_of, wait_until
from tutor.progress.store import ProgressStore
from tutor.session import question as question_module
from tutor.ui.app import TutorApp
from tutor.ui.screens.review import ReviewScreen

LESSON = "co-flash-attention"


def _question_ids(lesson_id: str) -> list[str]:
    """The questions as they sit today: authors reorder and drop questions (merge-formula moved up in
    2112537, and became the first when held-scores was dropped for r7co6)."""
    from tutor.course.catalog import load_catalog

    return [question.id for question in load_catalog().get(lesson_id).lesson.questions]


MERGE = _question_ids(LESSON).index("merge-formula")   # kind formula
# left while its grade is held: a question with one before it for ctrl+b to go to (merge-formula has none)
# and one after it for ctrl+n (on the last question ctrl+n opens the summary over the lesson screen)
LEFT_ID = "exact-or-not"   # kind choice, typed: c ('off by more than 1%') is wrong on the shipped model
LEFT = _question_ids(LESSON).index(LEFT_ID)
# issue 30: right on every draw, and SymPy's simplify never finishes on it (12.5 minutes frozen before)
FREEZING = "l1 * exp(m1 - m) + l2 * exp(m2 - m) + 1e-300*(sin(l1)**100 - cos(l2)**100)"


class HeldGrader:
    """The real grade, held until the test lets it go: the screen between Enter and the verdict."""

    def __init__(self, real) -> None:
        self.real, self.started, self.release = real, threading.Event(), threading.Event()
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        self.started.set()
        self.release.wait(timeout=300)   # a failing test still ends
        return self.real(*args)


@pytest.fixture
def held(monkeypatch):
    grader = HeldGrader(question_module.grade)
    monkeypatch.setattr(question_module, "grade", grader)
    yield grader
    grader.release.set()


def answers(home) -> list[tuple[str, int, bool]]:
    with ProgressStore(home) as store:
        return [(answer.question_id, answer.attempt, answer.correct) for answer in store.answers(LESSON)]


async def enter_while_held(pilot, screen, held, text: str) -> None:
    screen.query_one("#answer").value = text
    await pilot.press("enter")
    await wait_until(pilot, held.started.is_set, "the grade to start")


async def test_a_pathological_formula_leaves_the_screen_responsive(tmp_path, held):
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_live_lesson(pilot, LESSON, MERGE)
        await enter_while_held(pilot, screen, held, FREEZING)
        assert "Checking your answer" in text_of(screen, "#feedback", 200)
        await pilot.press("ctrl+t")   # handled while the grade is still held: before, the Enter handler held the screen
        await pilot.pause()
        assert "Hint 1" in text_of(screen, "#hints", 200) and not held.release.is_set()
        await pilot.press("enter")    # a second Enter while grading: not a second try
        await pilot.pause()
        assert held.calls == 1 and answers(tmp_path) == []   # nothing recorded before the verdict
        held.release.set()
        await graded(pilot)
        assert text_of(screen, "#feedback", 200).startswith("✓")
    assert answers(tmp_path) == [("merge-formula", 1, True)]   # one first attempt, right


@pytest.mark.parametrize("leave", ["ctrl+n", "ctrl+b", "escape"])
async def test_a_verdict_for_a_question_left_while_grading_is_not_recorded(tmp_path, held, leave):
    """Decided: dropped, not recorded against its own question.  The learner never saw the verdict,
    so the try is not counted, and the question asks afresh when it comes back."""
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        assert 0 < LEFT < len(_question_ids(LESSON)) - 1
        screen = await open_live_lesson(pilot, LESSON, LEFT)
        await enter_while_held(pilot, screen, held, "c")   # wrong: it would cost a try
        await pilot.press(leave)
        await pilot.pause()
        assert app.screen is not screen or screen.question.id != LEFT_ID
        held.release.set()
        await graded(pilot)
        if app.screen is screen:   # on the next or previous question: nothing said about this verdict
            feedback = text_of(screen, "#feedback", 200)
            assert "✗" not in feedback and "Checking" not in feedback
        assert answers(tmp_path) == []
        app.open_lesson(LESSON, LEFT)
        await pilot.pause()
        assert "already tried" not in text_of(app.screen, "#feedback", 200)


async def test_review_grades_off_the_ui_thread_too(tmp_path, held):
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        app.complete_catalog()
        app.push_screen(ReviewScreen([(app.catalog.get(LESSON), MERGE)]))
        await pilot.pause()
        screen = app.screen
        await wait_until(pilot, lambda: screen.live is not None, "the card's live tensors")
        await enter_while_held(pilot, screen, held, "l1 * exp(m1 - m) + l2 * exp(m2 - m)")
        assert "Checking your answer" in text_of(screen, "#feedback", 200)
        await pilot.press("enter")
        held.release.set()
        await graded(pilot)
        assert "✓" in text_of(screen, "#feedback", 200)
    assert answers(tmp_path) == [("merge-formula", 1, True)]
