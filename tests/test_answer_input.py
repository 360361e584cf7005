"""The answer box under a burst of keys: capped at the typed-answer limit, every key in order.

Before: 10 KB typed as keystrokes took 8.5 s and 100 KB hung the app (Input recomputes cell
positions on each key, so each key cost more than the last); and letters typed right after 200+
backspaces were lost, because Textual applied each backspace only after it had bubbled up to the
App, by which time the letters behind it were already in the box.
"""
from textual import events
from textual.widgets import Input

from journey_helpers import wait_for_live, wait_until
from tutor.grading.answers import MAX_ANSWER_CHARS
from tutor.ui.app import TutorApp
from tutor.ui.screens.lesson import LessonScreen
from tutor.ui.widgets.answer_input import AnswerInput


def burst(app, keys) -> None:
    """Post keys the way the terminal driver does: all queued before any is handled."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else {"backspace": "\x7f"}.get(key)))


async def open_answer_box(pilot, app) -> Input:
    app.open_lesson("la-scaled-scores")
    await pilot.pause()
    assert isinstance(app.screen, LessonScreen)
    await wait_for_live(pilot, app.screen)
    box = app.screen.query_one("#answer", Input)
    assert isinstance(box, AnswerInput) and box.has_focus
    return box


async def test_letters_after_a_burst_of_backspaces_are_kept(tmp_path):
    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        box = await open_answer_box(pilot, app)
        burst(app, list("hello world") + ["backspace"] * 250 + list("(2, 4, 8)") + ["left", "backspace"] + ["7"])
        await wait_until(pilot, lambda: box.value == "(2, 4, 7)", "every key of the burst, in order")


async def test_a_10_kb_burst_is_capped_and_the_box_still_answers(tmp_path):
    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        box = await open_answer_box(pilot, app)
        burst(app, ["x"] * 10_000)
        await wait_until(pilot, lambda: box.value == "x" * MAX_ANSWER_CHARS, "the burst, capped")
        await pilot.press("backspace", "backspace", "y")   # still taking keys, in order
        assert box.value == "x" * (MAX_ANSWER_CHARS - 2) + "y"
        box.value = ""
        box.insert_text_at_cursor("x" * 10_000)           # a bracketed paste is refused whole, not stored
        assert len(box.value) <= MAX_ANSWER_CHARS


async def test_the_answer_after_a_wrong_try_replaces_it(tmp_path):
    """Before: the wrong answer stayed with the cursor at its end, so `64x64` was appended and
    `256, 25664x64` was graded (three axes, a lost try); now on la-ffn-shapes, whose b_in is (32,) at D = 8."""
    from journey_helpers import type_answer

    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("la-ffn-shapes")
        await pilot.pause()
        await wait_for_live(pilot, app.screen)
        box = app.screen.query_one("#answer", Input)
        await type_answer(pilot, "256, 256")
        assert box.value == "256, 256" and box.selected_text == "256, 256"
        await type_answer(pilot, "32")
        assert [(answer.answer, answer.correct) for answer in app.progress.session_answers] == \
            [("256, 256", False), ("32", True)]


async def test_typing_repaints_the_box_without_laying_out_the_screen_and_still_scrolls(tmp_path, monkeypatch):
    """Textual's Input asks for a layout of the whole screen on every key (its text width is a
    layout reactive): a third of a keypress's CPU, paid by every served tab.  The box is not sized
    by its text, so a repaint does; a long answer still scrolls to keep the cursor in view."""
    from textual.widget import Widget

    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        box = await open_answer_box(pilot, app)
        layouts = []
        refresh = Widget.refresh

        def spy(widget, *args, layout=False, **kwargs):
            if layout and widget is box:
                layouts.append(widget)
            return refresh(widget, *args, layout=layout, **kwargs)

        monkeypatch.setattr(Widget, "refresh", spy)
        await pilot.press(*"(2, 4, 8)")
        assert box.value == "(2, 4, 8)" and layouts == []
        await pilot.press(*("x" * 150))
        await pilot.pause()
        assert box.virtual_size.width == len(box.value) + 1
        assert box.scroll_x == box.max_scroll_x > 0   # the cursor at the end is in view


async def test_in_a_browser_the_cursor_is_steady(tmp_path, monkeypatch):
    """Each blink is a repaint sent to the browser: an idle served lesson spent most of its CPU on it."""
    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        assert (await open_answer_box(pilot, app)).cursor_blink   # in a terminal it blinks
    monkeypatch.setattr(TutorApp, "is_web", property(lambda app: True))
    served = TutorApp(home=tmp_path, watch_interval=None)
    async with served.run_test(size=(100, 30)) as pilot:
        assert not (await open_answer_box(pilot, served)).cursor_blink


async def test_the_answer_after_an_unreadable_one_replaces_it(tmp_path):
    """Before: a refused answer (no try spent) kept the cursor at its end, so after `约 4.56` was
    refused, typing `4.56` submitted `约 4.564.56`, refused again, and so on without end."""
    from journey_helpers import open_live_lesson, type_answer

    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        box = (await open_live_lesson(pilot, "it-information-entropy")).query_one("#answer", Input)
        await type_answer(pilot, "约 2.97")
        assert box.value == "约 2.97" and box.selected_text == "约 2.97"
        assert app.progress.session_answers == []   # refused, no try spent
        await type_answer(pilot, "2.97")
        assert [(answer.answer, answer.correct) for answer in app.progress.session_answers] == [("2.97", True)]
