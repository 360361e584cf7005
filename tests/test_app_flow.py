"""Drive the app as a learner would, with Textual's Pilot."""
import asyncio
import io

from rich.console import Console

from textual.widgets import Input, Static, Tree

from tutor.app import TutorApp
from tutor.screens.lesson import LessonScreen


def _text(screen, selector: str) -> str:
    """What a Static shows, as plain text (Rich renderables included)."""
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(screen.query_one(selector, Static).content)
    return console.export_text().strip()


async def _wait_for_live(pilot, screen: LessonScreen) -> None:
    for _ in range(200):
        if screen.live is not None:
            return
        await asyncio.sleep(0.05)
        await pilot.pause()
    raise AssertionError("the lesson's live tensors never arrived: " + _text(screen, "#live-status"))


async def _type(pilot, text: str) -> None:
    await pilot.press(*list(text))
    await pilot.press("enter")
    await pilot.pause()


async def test_open_a_lesson_answer_right_then_wrong_and_see_the_real_tensor(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.screen.query_one(Tree)
        # the journey entries (Review, Stats) come first, then the tracks in teaching order
        assert "Linear algebra" in str(tree.root.children[2].label)
        app.open_lesson("la-scaled-scores")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LessonScreen)
        await _wait_for_live(pilot, screen)
        assert "agree" in _text(screen, "#live-status")
        assert "Q⋅K" in _text(screen, "#formula") or "Q·K" in _text(screen, "#formula")

        # garbage first: a clear message, nothing revealed
        await _type(pilot, "banana")
        assert "Couldn't read that" in _text(screen, "#feedback")
        assert _text(screen, "#real-tensor") == ""

        screen.query_one(Input).value = ""
        await _type(pilot, "2x2x4x4")
        assert "Right" in _text(screen, "#feedback")
        assert "(2, 2, 4, 4)" in _text(screen, "#your-answer")
        assert "shape (2, 2, 4, 4)" in _text(screen, "#real-tensor")

        await pilot.press("enter")           # empty line: next question
        await pilot.pause()
        assert "Question 2/3" in _text(screen, "#question")
        await _type(pilot, "(B, H, L, D)")
        assert "Not quite" in _text(screen, "#feedback")
        assert "(B, H, L, L)" in _text(screen, "#your-answer")
        assert "blocks.0.attn.scores" in _text(screen, "#real-tensor")
        assert [a[3] for a in app.answers] == [True, False]

        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LessonScreen)


async def test_roadmap_opens_a_lesson_with_enter(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen)
        assert app.screen.query_one(Input).has_focus
