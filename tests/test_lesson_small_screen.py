"""Issue 33: the lesson at 80x24 while a question is open.

Before: the header, a boxed formula beside its words, a three-row answer box and the feedback
left the lesson text 0 to 6 rows, and la-cbow-skipgram's hint 2 stayed below the quiz pane's
edge with no key to reach it (the answer box took ↑ ↓ for itself and did nothing with them).
"""
from textual.widgets import Header

from journey_helpers import text_of, type_answer, wait_for_live, wait_until
from tutor.ui.app import TutorApp
from tutor.ui.screens.question_screen import TEXT_LINES
from tutor.ui.widgets.formula_box import FormulaBox

CBOW_GRADIENT = 3   # la-cbow-skipgram's formula question


def visible(pane, widget) -> bool:
    """Every row of ``widget`` inside ``pane``'s viewport."""
    return pane.region.y <= widget.region.y and widget.region.bottom <= pane.region.bottom


async def cbow_gradient(pilot):
    """la-cbow-skipgram's formula question, opened on ``pilot``'s app; its screen."""
    pilot.app.open_lesson("la-cbow-skipgram", CBOW_GRADIENT)
    await pilot.pause()
    return pilot.app.screen


async def test_the_text_keeps_8_rows_and_both_hints_are_reached_by_keys_at_80x24(tmp_path):
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await cbow_gradient(pilot)
        await wait_for_live(pilot, screen)
        assert screen.compact and not screen.query_one(Header).display
        assert screen.query_one(FormulaBox).outer_size.height == 1          # folded to one row
        assert "In words" in text_of(screen, "#body-translation")            # its words moved into the text
        assert screen.query_one("#answer").outer_size.height == 1
        assert screen.query_one("#lesson-body").size.height >= TEXT_LINES

        await type_answer(pilot, "(p - y) @ E")
        await wait_until(pilot, lambda: "constant factor" in text_of(screen, "#feedback"), "the factor nudge")
        await pilot.press("ctrl+t", "ctrl+t")
        quiz, hints = screen.query_one("#quiz"), screen.query_one("#hints")
        await wait_until(pilot, lambda: "Hint 2" in text_of(screen, "#hints") and visible(quiz, hints),
                         "hint 2 in view")
        assert screen.query_one("#lesson-body").size.height >= TEXT_LINES   # still, with two hints open
        bottom = quiz.scroll_y
        assert bottom > 0
        await pilot.press("up", "up")
        assert quiz.scroll_y == bottom - 2 and screen.query_one("#answer").has_focus
        await pilot.press("down", "down")
        assert quiz.scroll_y == bottom and visible(quiz, hints)


async def test_a_tall_screen_keeps_the_header_and_the_boxed_formula(tmp_path):
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await cbow_gradient(pilot)
        assert not screen.compact and screen.query_one(Header).display
        assert screen.query_one(FormulaBox).outer_size.height == 3
        assert screen.query_one("#answer").outer_size.height == 3


async def test_the_roadmap_keeps_a_lessons_score_at_80_columns(tmp_path):
    """Issue 33: a long title pushed "· 50% first time" past the right edge at 80 columns.  The
    title ends in "…" instead, and a wider screen shows it whole again."""
    from datetime import datetime, timezone

    from progress_helpers import answer_once
    from tutor.progress.store import ProgressStore

    lesson = "co-sparse-attention"      # the longest title, 73 characters
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    questions = [q.id for q in app.catalog.get(lesson).lesson.questions]
    title = app.catalog.get(lesson).lesson.title
    with ProgressStore(tmp_path) as store:
        now = datetime(2026, 12, 5, 12, tzinfo=timezone.utc)
        answer_once(store, lesson, questions[0], "right", True, now=now)
        answer_once(store, lesson, questions[1], "wrong", False, now=now)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.move_cursor_to(lesson)
        await pilot.pause()
        lines = [row for row in screen_rows(app) if title[:30] in row]
        assert len(lines) == 1, lines
        assert lines[0].rstrip().endswith("· 50% first time") and "…" in lines[0], lines[0]
        await pilot.resize_terminal(160, 24)
        await pilot.pause()
        assert any(title + " · 50% first time" in row for row in screen_rows(app))


def screen_rows(app) -> list[str]:
    """The screen's text, a row a line, as a terminal shows it."""
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]
