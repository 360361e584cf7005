"""Drive the app as a learner would, with Textual's Pilot."""

from textual.widgets import Input, Tree

from journey_helpers import graded, text_of, type_answer, wait_for_live
from tutor.ui.app import TutorApp
from tutor.ui.screens.lesson import LessonScreen


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
        await wait_for_live(pilot, screen)
        # the box is Q·Kᵀ/√d_k, the answer to question 4: folded until that question is finished
        assert text_of(screen, "#formula-fold") == "▸ Formula shown after question 4"

        # garbage first: a clear message, nothing revealed
        await type_answer(pilot, "banana")
        assert "Couldn't read that" in text_of(screen, "#feedback")
        assert text_of(screen, "#real-tensor") == ""

        screen.query_one(Input).value = ""
        await type_answer(pilot, "2x3x5x5")
        assert "Right" in text_of(screen, "#feedback")
        assert "(2, 3, 5, 5)" in text_of(screen, "#your-answer")
        # show: limits the reveal to one head's (L, L) table: the whole tensor's axis names
        # would spell the next question's (B, H, L, L)
        assert "blocks.0.attn.scores[0, 0]  shape (5, 5)" in text_of(screen, "#real-tensor")

        await pilot.press("enter")           # empty line: next question
        await graded(pilot)
        await pilot.pause()
        assert "Question 2/4" in text_of(screen, "#question")
        await type_answer(pilot, "(B, H, L, D)")
        assert "Not quite" in text_of(screen, "#feedback") and "tries left" in text_of(screen, "#feedback")
        assert text_of(screen, "#your-answer") == ""      # no reveal before a give-up or the last try
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert "(B, H, 2, L)" in text_of(screen, "#your-answer")   # question 2 scores two new characters (cached-two, 5d47560)
        assert "blocks.0.attn.scores" in text_of(screen, "#real-tensor")
        assert [a.correct for a in app.progress.session_answers] == [True, False]

        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LessonScreen)


async def test_roadmap_opens_a_lesson_with_enter(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen)
        assert app.screen.query_one(Input).has_focus
