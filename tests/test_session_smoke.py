"""Pilot smoke tests of the question session in the app (the rules themselves are tested in
milliseconds in test_session*.py): route 1 of 2026-12-adversary.md as a learner drives it, and a
stale second instance drawing what the store recorded."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from journey_helpers import open_live_lesson, text_of, type_answer, wait_for_live
from session_helpers import FIXTURE_LESSONS, TENSORS, Clock

from tutor.grading.attempts import Outcome
from tutor.progress.store import ProgressStore
from tutor.ui.app import TutorApp

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def app_on(home):
    app = TutorApp(lesson_dirs=[FIXTURE_LESSONS], home=home, preload_model=False, watch_interval=None)
    app.clock = Clock(T0)
    return app


async def test_skip_ahead_give_up_and_come_back_says_the_answer_was_seen(tmp_path):
    """Before: (2,4,8) on question 1 after question 4's reveal was 'right first time'."""
    app = app_on(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_live_lesson(pilot, TENSORS, 3)   # Ctrl+N ×3 records nothing
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert "now counts as not got (answer seen)" in " ".join(text_of(screen, "#feedback", 200).split())
        for _ in range(3):
            await pilot.press("ctrl+b")
            await pilot.pause()
        await wait_for_live(pilot, screen)
        assert "You saw this question's answer before trying it" in " ".join(text_of(screen, "#question", 200).split())
        await type_answer(pilot, "(2,4,8)")
        assert text_of(screen, "#feedback").startswith("Practice · ✓")
    with ProgressStore(tmp_path) as store:
        assert store.question_record(TENSORS, "embed-shape").outcome is Outcome.MISSED


async def test_a_stale_instance_labels_its_try_as_the_store_recorded_it(tmp_path):
    """F9: the question resolved by another instance since this screen drew it."""
    app = app_on(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_live_lesson(pilot, TENSORS, 0)
        await type_answer(pilot, "(2, 4)")
        assert "2 tries left" in text_of(screen, "#feedback", 200)
        with ProgressStore(tmp_path) as other:   # the second instance gives up on it
            other.record_give_up(TENSORS, "embed-shape", "scored", 3, None, T0 + timedelta(hours=1))
        screen.query_one("#answer").value = ""
        await type_answer(pilot, "(2, 4, 8)")
        assert text_of(screen, "#feedback").startswith("Practice · ✓")   # before: a plain ✓
