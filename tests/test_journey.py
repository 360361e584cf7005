"""A learner's journey through the app: answer, quit, reopen, resume, review; and a database
that cannot be used never stops the app."""
import sqlite3
from datetime import datetime, timedelta, timezone

from journey_helpers import graded, record_notifications, text_of, type_answer, wait_for_live, write_lesson
from textual.widgets import Tree

from progress_helpers import answer_once
from tutor.progress.records import Answer
from tutor.ui.app import TutorApp
from tutor.progress.store import ProgressStore
from tutor.ui.screens.lesson import LessonScreen
from tutor.ui.screens.review import ReviewScreen
from tutor.ui.screens.roadmap import RoadmapScreen


def make_app(home, lessons, **kw):
    return TutorApp(home=home, lesson_dirs=[lessons], preload_model=False, watch_interval=None, **kw)


def labels(app) -> dict[str, str]:
    """Tree data -> label text, for every node that has data (lessons and journey entries)."""
    tree = app.screen.query_one(Tree)
    nodes = list(tree.root.children) + [n for t in tree.root.children for n in t.children]
    return {n.data: str(n.label) for n in nodes if n.data}


async def test_answer_quit_reopen_resume_and_review(tmp_path):
    home, lessons = tmp_path / "home", write_lesson(tmp_path / "lessons")

    # day 1: a new learner starts on the roadmap, misses question 1, gets question 2 right, quits
    today = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
    app = make_app(home, lessons)
    app.clock = lambda: today
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, RoadmapScreen)
        app.open_lesson("zz-journey")
        await pilot.pause()
        lesson = app.screen
        await wait_for_live(pilot, lesson)
        await type_answer(pilot, "(B, H, L, D)")
        assert "✗ Not quite." in text_of(lesson, "#feedback")
        await pilot.press("ctrl+g")       # give up: the answer is revealed
        await pilot.pause()
        assert "(B, H, L, L)" in text_of(lesson, "#your-answer")
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        assert "Question 2/2" in text_of(lesson, "#question")
        await type_answer(pilot, "a")
        assert "✓ Right." in text_of(lesson, "#feedback")
        await pilot.press("escape")
        await pilot.pause()
        assert labels(app)["zz-journey"] == "✓ 2/2 Journey test lesson · 50% first time"   # finished: not got, right
        await pilot.press("q")
    assert [(a.question_id, a.correct) for a in app.progress.session_answers] == [("sym", False), ("pick", True)]
    with ProgressStore(home) as store:
        assert [(a.question_id, a.correct) for a in store.answers()] == [("sym", False), ("pick", True)]
        assert store.last_position() == ("zz-journey", 1)
        first_variant = store.answers()[0].variant

    # day 2: the app reopens at question 2, says so; the missed question is due for review
    tomorrow = today + timedelta(days=1)
    app = make_app(home, lessons)
    app.clock = lambda: tomorrow
    told = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        resumed = app.screen
        assert isinstance(resumed, LessonScreen) and resumed.lesson.id == "zz-journey"
        assert resumed.question_index == 1
        assert any("Reopened" in message and "question 2" in message for message, _ in told)

        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)
        assert labels(app)["@review"] == "Review (1 due)"
        tree = app.screen.query_one(Tree)
        assert tree.cursor_node is not None and tree.cursor_node.data == "@review"   # due first

        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        review = app.screen
        assert isinstance(review, ReviewScreen)
        assert review.question.id == "sym"
        assert review.variant_seed is not None            # a varied lesson comes back with new sizes
        await wait_for_live(pilot, review)
        assert "sizes now:" in text_of(review, "#question")
        assert review.live.variant != first_variant
        await type_answer(pilot, "(B, H, L, L)")
        assert "✓ Right." in text_of(review, "#feedback")
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        assert "Review finished" in text_of(review, "#feedback")
        await pilot.press("escape")
        await pilot.pause()
        now = labels(app)
        assert now["@review"].startswith("Review (0 due) · next in ")
        assert now["zz-journey"] == "✓ 2/2 Journey test lesson · 50% first time"   # review is not a score

    with ProgressStore(home) as store:
        last = store.answers()[-1]
        assert (last.question_id, last.correct, last.variant) == ("sym", True, review.live.variant)
        assert store.due_reviews(tomorrow).due == []
        assert [(o.outcome.value, o.role.value) for o in store.outcomes()] == [
            ("missed", "score"), ("first_try", "score"), ("first_try", "review")]
        assert store.card("zz-journey", "sym").due > tomorrow + timedelta(hours=23)   # FSRS: days later
        assert store.last_position() == ("zz-journey", 1)   # reviewing does not move the resume point


async def test_roadmap_shows_completion_in_words_at_80x24(tmp_path):
    home, lessons = tmp_path / "home", write_lesson(tmp_path / "lessons")
    with ProgressStore(home) as store:
        answer_once(store, "zz-journey", "sym", "(B, H, L, L)", True)
        answer_once(store, "zz-journey", "pick", "a", True)
    app = make_app(home, lessons)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = labels(app)
        assert shown["zz-journey"] == "✓ 2/2 Journey test lesson · 100% first time"
        assert shown["@stats"] == "Stats · streak 1 day"
        tree = app.screen.query_one(Tree)
        assert any("% done" in str(n.label) and "Linear algebra" in str(n.label) for n in tree.root.children)
        # no position was saved, so the app stays on the roadmap; the cursor is on an unfinished lesson
        assert isinstance(app.screen, RoadmapScreen)
        assert tree.cursor_node.data not in (None, "zz-journey", "@review", "@stats")


async def test_a_newer_database_is_refused_but_the_app_runs_without_saving(tmp_path):
    home, lessons = tmp_path / "home", write_lesson(tmp_path / "lessons")
    home.mkdir()
    con = sqlite3.connect(home / "progress.db")
    con.execute("PRAGMA user_version = 99")
    con.close()
    before = (home / "progress.db").read_bytes()
    app = make_app(home, lessons)
    told = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.store is None
        await pilot.press("c")   # the start asks first: continue without saving
        await pilot.pause()
        assert any("newer version" in m and "NOT be saved" in m and o.get("severity") == "error" for m, o in told)
        assert "NOT being saved" in text_of(app.screen, "#roadmap-status")
        assert labels(app)["@review"].startswith("Review (off")
        app.progress.record(Answer("zz-journey", "sym", "x", False, 0, app.clock()))   # in memory only, no crash
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)
    assert [(a.question_id, a.answer) for a in app.progress.session_answers] == [("sym", "x")]
    assert (home / "progress.db").read_bytes() == before


async def test_a_corrupt_database_is_moved_aside_and_the_learner_told_where(tmp_path):
    home, lessons = tmp_path / "home", write_lesson(tmp_path / "lessons")
    home.mkdir()
    (home / "progress.db").write_bytes(b"this is not a database" * 100)
    app = make_app(home, lessons)
    told = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.store is not None
        moved = [m for m, _ in told if "moved to" in m]
        assert moved and str(app.store.recovered_from) in moved[0]
        app.progress.record(Answer("zz-journey", "sym", "x", False, 0, app.clock()))
    with ProgressStore(home) as store:
        assert store.answer_count() == 1


def test_due_times_and_day_counts_read_as_a_person_says_them():
    from datetime import date

    from tutor.ui.progress_labels import recent_days, when

    now = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
    assert when(now - timedelta(minutes=1), now) == "now"
    assert when(now + timedelta(minutes=8), now) == "in 8 min"
    assert when(now + timedelta(hours=3), now) == "in 3 h"
    assert when(now + timedelta(days=6), now) == "in 6 days"
    assert recent_days({date(2025, 3, 1): 4, date(2025, 2, 27): 1}, date(2025, 3, 1), 4) == [0, 1, 0, 4]


def test_settings_survive_a_restart_and_a_broken_file_means_defaults(tmp_path):
    from tutor.common.settings import SETTINGS_NAME, load_settings, save_setting

    assert load_settings(tmp_path) == {}
    save_setting(tmp_path / "new", "theme", "textual-light")
    assert load_settings(tmp_path / "new") == {"theme": "textual-light"}
    (tmp_path / "new" / SETTINGS_NAME).write_text("{not json")
    assert load_settings(tmp_path / "new") == {}
