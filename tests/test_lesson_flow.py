"""The flow around a lesson: its summary, the next lesson, Escape to the roadmap, review counts
that move with the clock.  Time comes from an injected clock; nothing waits on the wall clock
beyond Pilot pauses."""
from datetime import datetime, timedelta, timezone

from textual.command import CommandList, CommandPalette
from textual.widgets import Tree

from journey_helpers import graded, text_of, type_answer, wait_for_live, wait_until, write_lesson
from tutor.progress.records import Mode
from tutor.ui.app import TutorApp
from tutor.ui.messages import ModelReady
from tutor.ui.screens.lesson import LessonScreen
from tutor.ui.screens.lesson_summary import LessonSummaryScreen, duration
from tutor.ui.screens.roadmap import REVIEW, RoadmapScreen

START = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def make_app(tmp_path, clock=None) -> TutorApp:
    app = TutorApp(home=tmp_path / "home", lesson_dirs=[write_lesson(tmp_path / "lessons")], preload_model=False,
                   watch_interval=None)
    if clock is not None:
        app.clock = clock
    return app


def review_label(app) -> str:
    roadmap = next(s for s in app.screen_stack if isinstance(s, RoadmapScreen))
    return next(str(node.label) for node in roadmap.query_one(Tree).root.children if node.data == REVIEW)


async def test_the_last_question_leads_to_a_summary_and_enter_opens_the_next_lesson(tmp_path):
    clock = Clock()
    app = make_app(tmp_path, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("zz-journey")
        await pilot.pause()
        lesson = app.screen
        await wait_for_live(pilot, lesson)
        await type_answer(pilot, "(B, H, L, L)")            # right first time
        assert "Enter: next question." in text_of(lesson, "#feedback")
        await pilot.press("enter")
        await graded(pilot)
        clock.now += timedelta(minutes=3, seconds=5)
        await pilot.press("ctrl+g")                          # the second question: given up, so it comes back
        await pilot.pause()
        assert "Enter: the lesson's summary." in text_of(lesson, "#feedback")
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()

        summary = app.screen
        assert isinstance(summary, LessonSummaryScreen)
        text = " ".join(text_of(summary, "#summary-text", width=200).split())
        assert "Right first time: 1 of 2 questions" in text
        assert "Time: 3 min 5 s" in text
        assert "Review will bring back: question 2, in 10 min" in text   # FSRS's relearning step
        order = [item.lesson for item in app.catalog.ordered()]
        following = order[[lesson.id for lesson in order].index("zz-journey") + 1]
        assert f"Enter: the next lesson, “{following.title}”." in text
        assert app.store.last_position() == (following.id, 0)            # 'tutor' goes on from there

        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.lesson.id == following.id
        assert [type(s).__name__ for s in app.screen_stack] == ["RoadmapScreen", "LessonScreen"]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)


async def test_a_lesson_ends_with_a_summary_even_when_questions_were_skipped(tmp_path):
    app = make_app(tmp_path, Clock())
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("zz-journey")
        await pilot.pause()
        await pilot.press("ctrl+n", "ctrl+n")
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, LessonSummaryScreen)
        text = " ".join(text_of(summary, "#summary-text", width=200).split())
        assert "Right first time: 0 of 2 questions (2 not finished yet)" in text
        assert "Review will bring back nothing from this lesson" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)


def test_durations_read_as_a_person_says_them():
    assert [duration(timedelta(seconds=s)) for s in (0, 45, 372, 3900)] == ["0 s", "45 s", "6 min 12 s", "1 h 5 min"]


async def test_escape_from_a_lesson_opened_with_the_palette_goes_to_the_roadmap(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("la-tensors")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"journey test")
        await wait_until(pilot, lambda: app.screen.query_one(CommandList).option_count, "the palette's matches")
        await pilot.press("enter")
        await graded(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, LessonScreen) and app.screen.lesson.id == "zz-journey",
                         "the lesson from the palette")
        assert sum(isinstance(s, LessonScreen) for s in app.screen_stack) == 1   # the first lesson was closed
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)


async def test_the_roadmap_review_count_follows_the_clock(tmp_path, monkeypatch):
    monkeypatch.setattr(RoadmapScreen, "review_tick_seconds", 0.02)
    clock = Clock()
    app = make_app(tmp_path, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.progress.give_up("zz-journey", "sym", Mode.SCORED, 3, None)   # not got: due again in 10 minutes
        app.screen.refresh_progress()
        assert review_label(app) == "Review (0 due) · next in 10 min"
        clock.now += timedelta(minutes=8)
        await wait_until(pilot, lambda: review_label(app) == "Review (0 due) · next in 2 min", "the countdown")
        clock.now += timedelta(minutes=3)
        await wait_until(pilot, lambda: review_label(app) == "Review (1 due)", "the card falling due")


async def test_the_model_ready_note_leaves_the_header(tmp_path, monkeypatch):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        timers = []   # the timer is injected: the test fires it instead of waiting for it
        monkeypatch.setattr(app, "set_timer", lambda delay, callback, **kwargs: timers.append((delay, callback)))
        app.post_message(ModelReady("shipped", 2.5))
        await pilot.pause()
        assert app.sub_title == "model ready in 2.5s"
        [callback] = [callback for delay, callback in timers if delay == TutorApp.model_note_seconds]
        callback()
        assert app.sub_title == ""


async def test_the_stats_screen_follows_the_clock(tmp_path, monkeypatch):
    """Before: Stats said "0 due now, next in 10 min" until it was closed and opened again."""
    from tutor.ui.screens.stats import StatsScreen

    monkeypatch.setattr(StatsScreen, "review_tick_seconds", 0.02)
    clock = Clock()
    app = make_app(tmp_path, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.progress.give_up("zz-journey", "sym", Mode.SCORED, 3, None)   # not got: due again in 10 minutes
        await pilot.press("s")
        await pilot.pause()

        def summary() -> str:
            return text_of(app.screen, "#stats-summary")

        assert "Review: 0 due now, next in 10 min" in summary()
        clock.now += timedelta(minutes=8)
        await wait_until(pilot, lambda: "next in 2 min" in summary(), "the countdown")
        clock.now += timedelta(minutes=3)
        await wait_until(pilot, lambda: "Review: 1 due now" in summary(), "the card falling due")
