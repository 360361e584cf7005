"""Predict, try again, then reveal, as a learner meets it in the app (Pilot)."""
import json
from datetime import datetime, timedelta, timezone

from journey_helpers import graded, text_of, type_answer, wait_for_live, write_lesson
from textual.widgets import Input, OptionList

from tutor.progress.io import export_json
from tutor.progress.store import ProgressStore
from tutor.ui.app import TutorApp

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


async def open_journey_lesson(tmp_path):
    home, lessons = tmp_path / "home", write_lesson(tmp_path / "lessons")
    app = TutorApp(home=home, lesson_dirs=[lessons], preload_model=False, watch_interval=None)
    ticks = iter(range(10_000))
    app.clock = lambda: T0 + timedelta(seconds=next(ticks))   # a clock that moves, one second per reading
    return app, home


async def test_wrong_then_hint_then_right_is_right_after_retry(tmp_path):
    app, home = await open_journey_lesson(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("zz-journey")
        await pilot.pause()
        lesson = app.screen
        await wait_for_live(pilot, lesson)
        await type_answer(pilot, "(B, H, L)")
        feedback = text_of(lesson, "#feedback")
        assert "✗ Not quite." in feedback and "different number" in feedback and "2 tries left" in feedback
        assert "(B, H, L, L)" not in feedback and not lesson.query_one("#reveal").display   # nothing revealed yet
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "One table per head" in text_of(lesson, "#hints")
        lesson.query_one(Input).value = ""
        await type_answer(pilot, "(B, H, L, L)")
        assert "✓ Right" in text_of(lesson, "#feedback") and lesson.query_one("#reveal").display
    with ProgressStore(home) as store:
        assert [(a.attempt, a.correct) for a in store.answers()] == [(1, False), (2, True)]
        [outcome] = store.outcomes()
        assert (outcome.outcome.label, outcome.attempts, outcome.hints_used) == ("right after retry", 2, 1)
        assert store.card("zz-journey", "sym") is not None   # Hard: it comes back for review


async def test_after_a_give_up_typing_the_revealed_answer_changes_nothing(tmp_path):
    app, home = await open_journey_lesson(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("zz-journey")
        await pilot.pause()
        lesson = app.screen
        await wait_for_live(pilot, lesson)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert "(gave up)" in text_of(lesson, "#your-answer") and "(B, H, L, L)" in text_of(lesson, "#your-answer")
        with ProgressStore(home) as store:
            export_json(store, tmp_path / "before.json", now=T0)
        await type_answer(pilot, "(B, H, L, L)")   # the revealed answer: not graded, Enter moves on
        assert "Question 2/2" in text_of(lesson, "#question")
    with ProgressStore(home) as store:
        export_json(store, tmp_path / "after.json", now=T0)
        assert store.answers() == [] and [o.outcome.value for o in store.outcomes()] == ["missed"]
        assert store.due_reviews(T0 + timedelta(days=1)).due   # not got: it comes back
    before, after = (json.loads((tmp_path / name).read_text()) for name in ("before.json", "after.json"))
    assert before.pop("last_position") == ["zz-journey", 0] and after.pop("last_position") == ["zz-journey", 1]
    assert before == after   # only the resume point moved on


async def test_three_wrong_answers_reveal_and_a_choice_can_be_picked_from_the_list(tmp_path):
    app, home = await open_journey_lesson(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("zz-journey")
        await pilot.pause()
        lesson = app.screen
        await wait_for_live(pilot, lesson)
        for attempt in range(3):
            lesson.query_one(Input).value = ""
            await type_answer(pilot, "(B, L)")
        assert "here is the real answer" in text_of(lesson, "#feedback") and lesson.query_one("#reveal").display
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        options = lesson.query_one("#choices", OptionList)
        assert options.display and options.option_count == 2
        options.focus()
        options.highlighted = 1
        await pilot.press("enter")   # "not this one"
        await graded(pilot)
        await pilot.pause()
        # two options: one try, else trying both would always win
        assert "Not quite" in text_of(lesson, "#feedback") and "this one" in text_of(lesson, "#your-answer")
    with ProgressStore(home) as store:
        assert [o.outcome.value for o in store.outcomes()] == ["missed", "missed"]
        assert [a.attempt for a in store.answers()] == [1, 2, 3, 1]
