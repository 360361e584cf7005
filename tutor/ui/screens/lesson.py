"""One lesson: explanation, formula, question; predict first, then see the real tensor."""
from __future__ import annotations

import random

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, Static

from tutor.course.catalog import LoadedLesson
from tutor.grading.attempts import Encounter
from tutor.grading.kinds import allowed_attempts
from tutor.ui.messages import LiveFailed, LiveReady
from tutor.course.placeholders import fill_report, lesson_problems, preview, short_message
from tutor.ui.screens.lesson_quiz import QuizMixin
from tutor.ui.widgets.answer_input import AnswerInput
from tutor.ui.widgets.tensor_view import TensorView


def reflow(text: str) -> str:
    """Join an author's hard-wrapped lines so the terminal wraps them at its own width."""
    paragraphs = [" ".join(line.strip() for line in block.splitlines()) for block in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


class LessonScreen(QuizMixin, Screen):
    DEFAULT_CSS = "#choices { height: auto; max-height: 10; margin: 0; }"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+t", "hint", "Hint"),
        Binding("ctrl+g", "give_up", "Give up"),
        Binding("ctrl+n", "next_question", "Next"),
        Binding("ctrl+b", "previous_question", "Prev"),
        Binding("ctrl+r", "new_sizes", "New sizes"),
        Binding("ctrl+o", "on_shipped", "Shipped model", show=False),
    ]

    def __init__(self, item: LoadedLesson, variant_seed: int | None = None, question_index: int = 0) -> None:
        super().__init__()
        self.item = item
        self.lesson = item.lesson
        self.variant_seed = variant_seed
        self.live = None
        self.question_index = max(0, min(question_index, len(self.lesson.questions) - 1))
        self.encounter = Encounter()
        self.generation = 0   # bumped when the lesson file reloads: older live results are dropped
        self.on_shipped = False   # the learner chose the shipped model for a lesson their model does not fit

    def compose(self) -> ComposeResult:
        lesson = self.lesson
        yield Header()
        with VerticalScroll(id="lesson-body"):
            yield Static(Text(lesson.title, style="bold"), id="lesson-title")
            # which weights and input the tensors come from: first, so small terminals show it too
            yield Static(Text("Loading the model… the question opens when the live tensors are ready."),
                         id="live-status")
            yield Static(Text(reflow(preview(lesson.explanation))), id="explanation")
            yield Static(Text(lesson.formula.expr), id="formula")
            yield Static(Text("In words: " + preview(lesson.formula.translation)), id="translation")
        with VerticalScroll(id="quiz"):
            yield Static(id="question")
            yield AnswerInput(placeholder="your prediction, then Enter", id="answer")   # capped, keys in order
            yield OptionList(id="choices")
            yield Static(id="feedback")
            yield Static(id="hints")
            with Horizontal(id="reveal"):
                yield Static(id="your-answer")
                yield TensorView(id="real-tensor")
        yield Footer()

    def on_mount(self) -> None:
        self.title = self.lesson.title
        self.query_one("#answer", Input).focus()
        self.show_question()
        self.load_live()
        self.app.model_signal.subscribe(self, lambda _label: self.model_changed(), immediate=True)
        self.app.lessons_signal.subscribe(self, self.lessons_changed, immediate=True)

    @work(thread=True, exclusive=True, group="live")
    def load_live(self) -> None:
        """Torch and SymPy load here, off the UI thread; the screen is usable meanwhile."""
        lesson, generation = self.lesson, self.generation
        try:
            from tutor.live.formula_check import check_formula, render_spec
            from tutor.formulas.parse import FormulaError
            from tutor.live.compute import compute_live

            live = compute_live(lesson, self.app.hub, self.variant_seed, on_shipped=self.on_shipped)
            try:   # a formula that does not parse must not keep the learner from the questions
                formula_text = render_spec(lesson.formula)
                agreement = check_formula(lesson.formula, live.tensors, live.sizes).message
            except FormulaError as error:
                formula_text, agreement = lesson.formula.expr, f"the formula does not parse: {error}"
            message = LiveReady(lesson.id, live, formula_text, agreement, generation)
        except Exception as error:  # any failure is shown in the lesson, never a traceback
            from tutor.live.compute import RequirementNotMet

            text = f"{type(error).__name__}: {error}"
            if isinstance(error, RequirementNotMet):
                text = (f"{error}. Press Ctrl+O to see this lesson on the shipped model; your own weights "
                        "stay the app's model for everything else.")
            message = LiveFailed(lesson.id, text, generation)
        self.post_message(message)   # its generation is checked on the UI thread, where reloads happen

    def on_live_ready(self, message: LiveReady) -> None:
        if message.generation != self.generation:
            return   # computed for a version of the lesson that has since been reloaded
        self.live = message.live
        live = message.live
        self.query_one("#formula", Static).update(Text(message.formula_text))
        status = Text()
        status.append("Weights: ", style="bold")
        status.append(live.weights_label + "\n")
        status.append("Input: ", style="bold")
        status.append("  ".join(repr(row) for row in live.rows) + f"   ({live.variant}, D_head={live.sizes['D_head']})\n")
        status.append(message.agreement, style="green" if "agree " in message.agreement else "yellow")
        problems = lesson_problems(self.lesson, live.tensors, live.sizes)
        if problems:
            where, error = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            status.append(f"\nA live number in the text could not be filled{more}, shown as ⟨error⟩ "
                          f"(tell the lesson's author): {'.'.join(map(str, where))}: {short_message(error)}", style="yellow")
        self.query_one("#live-status", Static).update(status)
        self.show_texts()
        self.show_question()

    def on_live_failed(self, message: LiveFailed) -> None:
        if message.generation != self.generation:
            return
        self.query_one("#live-status", Static).update(
            Text(f"Could not compute this lesson's tensors: {message.error}", style="bold red"))

    def live_text(self, text: str) -> str:
        """Lesson text with its {{ placeholders }}: … until the live tensors arrive, then their values."""
        if self.live is None:
            return preview(text)
        return fill_report(text, self.live.tensors, self.live.sizes)[0]

    def show_texts(self) -> None:
        """The explanation and the formula's translation, filled from the current live tensors."""
        self.query_one("#explanation", Static).update(Text(reflow(self.live_text(self.lesson.explanation))))
        self.query_one("#translation", Static).update(Text("In words: " + self.live_text(self.lesson.formula.translation)))

    @property
    def question(self):
        return self.lesson.questions[self.question_index]

    def show_question(self) -> None:
        self.remember_position()
        total = len(self.lesson.questions)
        text = Text(f"Question {self.question_index + 1}/{total}  ", style="bold")
        text.append(self.live_text(self.question.prompt))
        self.show_choices()
        if self.live is not None and self.lesson.model.vary:
            text.append(f"\n  sizes now: {self.live.variant}", style="italic")
        self.query_one("#question", Static).update(text)
        self.query_one("#feedback", Static).update("")
        self.query_one("#hints", Static).update("")
        self.query_one("#your-answer", Static).update("")
        self.query_one("#real-tensor", TensorView).clear()
        self.encounter = Encounter(allowed=allowed_attempts(self.question, self.lesson.attempts))
        self.query_one("#reveal").display = False   # nothing to compare yet
        self.model_changed()   # weights replaced while the learner was on the last question

    def remember_position(self) -> None:
        """Saved on every question change, so 'tutor' reopens here next time."""
        self.app.save_position(self.lesson.id, self.question_index)

    def action_next_question(self) -> None:
        if self.question_index + 1 < len(self.lesson.questions):
            self.question_index += 1
            self.show_question()
        else:
            self.query_one("#feedback", Static).update(
                Text("That was the last question. Escape returns to the roadmap.", style="bold"))

    def action_previous_question(self) -> None:
        if self.question_index > 0:
            self.question_index -= 1
            self.show_question()

    def action_new_sizes(self) -> None:
        if not self.lesson.model.vary:
            self.query_one("#feedback", Static).update(Text("This lesson uses fixed sizes.", style="dim"))
            return
        self.variant_seed = random.randrange(1, 2**31)
        self.live = None
        self.query_one("#live-status", Static).update(Text("Drawing new sizes…"))
        self.load_live()

    def action_on_shipped(self) -> None:
        """Show a lesson the current model does not fit on the shipped model, leaving the hub alone."""
        if self.on_shipped or self.lesson.model.requires is None:
            return
        self.on_shipped = True
        self.generation += 1
        self.live = None
        self.query_one("#live-status", Static).update(Text("Loading the shipped model for this lesson…"))
        self.load_live()

    def lessons_changed(self, reloads) -> None:
        """Hot reload: take the edited lesson in place, or show why the edit could not be used."""
        for reload in reloads:
            if reload.path != self.item.path and reload.old_id != self.lesson.id:
                continue
            if reload.broken:
                self.query_one("#live-status", Static).update(Text(
                    f"The edited lesson file has a problem; this is the last good version.\n{reload.problems[0]}",
                    style="bold red"))
            elif reload.removed or reload.new_id is None:
                self.query_one("#live-status", Static).update(Text(
                    "The lesson file was removed; this is its last version.", style="yellow"))
            else:
                self.swap_lesson(self.app.catalog.get(reload.new_id))

    def swap_lesson(self, item: LoadedLesson) -> None:
        """Show the reloaded lesson at the same question (clamped) and recompute its tensors."""
        self.item, self.lesson = item, item.lesson
        self.generation += 1
        self.question_index = min(self.question_index, len(self.lesson.questions) - 1)
        self.title = self.lesson.title
        self.query_one("#lesson-title", Static).update(Text(self.lesson.title, style="bold"))
        self.query_one("#explanation", Static).update(Text(reflow(preview(self.lesson.explanation))))
        self.query_one("#formula", Static).update(Text(self.lesson.formula.expr))
        self.query_one("#translation", Static).update(Text("In words: " + preview(self.lesson.formula.translation)))
        self.query_one("#live-status", Static).update(Text("Lesson file reloaded; recomputing the live tensors…"))
        self.live = None
        self.show_question()
        self.load_live()

    def on_screen_resume(self) -> None:
        self.model_changed()

    def model_changed(self) -> None:
        """The dashboard replaced the app's model: recompute with it, but never under a learner who
        is answering, reading hints or a reveal; then the next question (or coming back) does it."""
        hub = self.app.hub
        if self.lesson.model.weights != "trained" or self.live is None or self.live.hub_version == hub.version \
                or self.on_shipped:
            return
        busy = self.encounter.results or self.encounter.revealed or self.encounter.hints_used or \
            self.encounter.gave_up or self.query_one("#answer", Input).value.strip()
        if busy or not self.is_current:
            return
        self.generation += 1   # a result still being computed with the old weights is dropped
        self.live = None
        self.query_one("#live-status", Static).update(Text(f"New weights: {hub.label}. Recomputing the live tensors…"))
        self.load_live()

    def action_back(self) -> None:
        self.app.pop_screen()
