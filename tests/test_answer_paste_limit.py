"""A paste longer than an answer may be is refused with the reason, not with a bell alone."""
from textual.app import App, ComposeResult
from textual import events

from tutor.grading.answers import MAX_ANSWER_CHARS
from tutor.ui.widgets.answer_input import AnswerInput


class OneBox(App):
    def __init__(self) -> None:
        super().__init__()
        self.told: list[str] = []
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield AnswerInput(id="answer")

    def notify(self, message, **options) -> None:
        self.told.append(str(message))

    def bell(self) -> None:
        self.bells += 1


async def test_a_paste_over_the_cap_is_refused_whole_and_said():
    app = OneBox()
    async with app.run_test() as pilot:
        box = app.query_one(AnswerInput)
        box.focus()
        box.post_message(events.Paste("x" * 2500))
        await pilot.pause()
        assert box.value == ""
        assert app.bells == 1
        assert app.told == [f"That paste is too long: it has 2,500 characters and an answer holds at most "
                            f"{MAX_ANSWER_CHARS:,}. Nothing was pasted; what you typed is kept."]
        box.post_message(events.Paste("(2, 4, 8)"))   # one that fits goes in as before
        await pilot.pause()
        assert box.value == "(2, 4, 8)"


async def test_a_paste_that_fits_only_beside_what_is_there_counts_the_selection():
    app = OneBox()
    async with app.run_test() as pilot:
        box = app.query_one(AnswerInput)
        box.focus()
        box.value = "y" * 1500
        box.post_message(events.Paste("x" * 600))      # 2100 with what is there
        await pilot.pause()
        assert box.value == "y" * 1500 and len(app.told) == 1
        box.action_select_all()
        box.post_message(events.Paste("x" * 600))      # replaces the selection: fits
        await pilot.pause()
        assert box.value == "x" * 600


async def test_typing_past_the_cap_says_why_once():
    app = OneBox()
    async with app.run_test() as pilot:
        box = app.query_one(AnswerInput)
        box.focus()
        box.value = "y" * MAX_ANSWER_CHARS
        box.cursor_position = MAX_ANSWER_CHARS
        await pilot.press("z", "z")
        assert box.value == "y" * MAX_ANSWER_CHARS and app.bells == 2
        assert app.told == [f"An answer holds at most {MAX_ANSWER_CHARS:,} characters."]


async def test_a_100_kb_paste_on_the_lesson_screen_is_said_under_the_box_and_keeps_what_was_typed(tmp_path):
    """Last session's replay: a 100 KB paste (`(2,` x 30,000 with a title sequence and a BEL) left the box
    empty with no word that stayed on screen (a toast, gone before the learner looked: the paste takes
    seconds to arrive).  Now the feedback line says it until the next try, and the typed text stays."""
    from journey_helpers import text_of

    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_lesson("la-tensors")
        await pilot.pause()
        box = app.screen.query_one("#answer", AnswerInput)
        box.focus()
        await pilot.press("(", "8")
        box.post_message(events.Paste("(2," * 30_000 + "\x1b]0;x\x07"))
        await pilot.pause()
        assert box.value == "(8"
        shown = text_of(app.screen, "#feedback", width=200)
        assert shown.startswith("That paste is too long: it has 90,004 characters") and "what you typed is kept" in shown
        assert app.progress.store.answers() == [] and app.progress.store.question_records() == []
