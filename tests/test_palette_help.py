"""Keyboard-first: the help screen, the command palette, stats, the theme key, Escape."""
import re

import pytest

from journey_helpers import graded, record_notifications, text_of, wait_until, write_lesson
from textual.command import CommandList, CommandPalette
from textual.widgets import DataTable, Sparkline

from progress_helpers import answer_once
from tutor.ui.app import TutorApp
from tutor.ui.palette import LessonCommands
from tutor.progress.store import ProgressStore
from tutor.ui.screens.help import HelpScreen
from tutor.ui.screens.lesson import LessonScreen
from tutor.ui.screens.roadmap import RoadmapScreen
from tutor.ui.screens.stats import StatsScreen


def make_app(home, lessons=None):
    return TutorApp(home=home, lesson_dirs=[lessons] if lessons else [], preload_model=False, watch_interval=None)


async def test_question_mark_shows_the_keys_of_every_screen_and_escape_goes_back(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = text_of(app.screen, "#help-keys")
        for section in ("Everywhere", "Roadmap", "Lesson", "Review", "Stats"):
            assert section in keys
        for line in ("Open lesson", "Hint", "New sizes", "Theme", "Command palette", "Skip"):
            assert line in keys
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)


async def test_f1_opens_help_from_a_lesson_where_question_mark_is_typed(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("la-scaled-scores")
        await pilot.pause()
        await pilot.press("question_mark")            # typed into the answer box, not a key
        assert isinstance(app.screen, LessonScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)


async def test_the_command_palette_finds_a_lesson_by_name(tmp_path):
    app = make_app(tmp_path / "home", write_lesson(tmp_path / "lessons"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"journey test")
        await wait_until(pilot, lambda: app.screen.query_one(CommandList).option_count, "the palette's matches")
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen)
        assert app.screen.lesson.id == "zz-journey"


async def test_stats_show_answers_accuracy_streak_and_escape_returns(tmp_path):
    with ProgressStore(tmp_path) as store:
        answer_once(store, "la-scaled-scores", "scores-shape", "2x2x4x4", True)
        answer_once(store, "la-scaled-scores", "cached-two", "(B, L)", False)
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        stats = app.screen
        assert isinstance(stats, StatsScreen)
        summary = text_of(stats, "#stats-summary")
        assert "Questions finished: 2" in summary and "Right first time: 50%" in summary and "Streak: 1 day" in summary
        assert re.search(r"Review: 0 due now, next in (9|10) min", summary)   # a miss returns 10 min later
        assert stats.query_one(Sparkline).data[-1] == 2.0
        table = stats.query_one(DataTable)
        assert table.row_count == len(app.catalog.index.tracks)
        assert [str(c) for c in table.get_row_at(0)][0] == "Linear algebra"
        assert "50%" in [str(c) for c in table.get_row_at(0)]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)


async def test_review_with_nothing_due_says_so(tmp_path):
    app = make_app(tmp_path)
    told = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)
        assert any("Nothing to review" in message for message, _ in told)


async def test_the_theme_key_toggles_light_and_dark_and_is_remembered(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        start = app.theme
        await pilot.press("f2")
        await pilot.pause()
        assert app.theme != start
        assert app.theme in ("textual-light", "textual-dark")
        chosen = app.theme
    again = make_app(tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert again.theme == chosen
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert again.theme == start


@pytest.mark.parametrize("typed, title", [("cost of -log p", "Confident and wrong: the cost of −log p"),
                                          ("one-hot x W_E", "Embedding lookup = one-hot × W_E"),
                                          ("descent W W -", "Gradient descent: W ← W − η∇L")])
async def test_the_palette_finds_a_title_typed_with_an_ascii_minus_or_x(tmp_path, typed, title):
    """Issue 33: before, "-" never matched "−" nor "x" "×", so these found nothing."""
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*typed)
        await wait_until(pilot, lambda: app.screen.query_one(CommandList).option_count, "the palette's matches")
        shown = [str(app.screen.query_one(CommandList).get_option_at_index(i).prompt)
                 for i in range(app.screen.query_one(CommandList).option_count)]
        assert any(title in line for line in shown), shown
        # the list above may still hold an earlier key's matches; the search for the whole query:
        found = [str(hit.text) async for hit in LessonCommands(app.screen).search(typed)]
        assert any(title in line for line in found), found
