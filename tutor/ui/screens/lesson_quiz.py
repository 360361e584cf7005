"""The lesson screen's question loop: predict, try again, then reveal (a mixin of ``LessonScreen``).

An :class:`~tutor.grading.attempts.Encounter` holds the state of the question on screen. Every
graded attempt is saved; when the encounter ends (a right answer, a give-up, or the last allowed
try) the real answer is revealed once and the outcome is saved. After that nothing typed is
graded: Enter moves on, so re-typing a revealed answer can never count as knowing it.
"""
from __future__ import annotations

import dataclasses

from rich.console import Group
from rich.text import Text
from textual.widgets import Input, OptionList, Static

from tutor.common.i18n import _, ngettext
from tutor.grading.answers import AnswerError
from tutor.grading.kinds import Truth, kind_of
from tutor.grading.quiz import QuestionError, grade, truth_for
from tutor.grading.reveal_focus import question_reveal
from tutor.ui.widgets.answer_preview import AnswerPreview
from tutor.ui.widgets.prose import Prose
from tutor.ui.widgets.tensor_view import TensorView


def question_problem(error: Exception) -> Text:
    return Text(_("This question has a problem (tell the lesson's author): {error}").format(error=error), style="red")


def tries(count: int) -> str:
    return ngettext("{count} try", "{count} tries", count).format(count=count)


class QuizMixin:
    def show_choices(self) -> None:
        """A choice question's options as a list to pick from (Tab, arrows, Enter); letters still work."""
        options = self.query_one("#choices", OptionList)
        options.clear_options()
        choices = getattr(self.question, "choices", None) or []
        options.add_options([f"{chr(ord('a') + i)}) {choice}" for i, choice in enumerate(choices)])
        options.display = bool(choices)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.submit(chr(ord("a") + event.option_index))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.submit(event.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.preview_answer(event.value)

    def preview_answer(self, text: str) -> None:
        """The question kind's preview of the text being typed (a formula as it reads), none after the reveal."""
        preview = None if self.encounter.revealed else kind_of(self.question).preview(self.question, text)
        self.query_one("#answer-preview", AnswerPreview).show(preview)

    def feedback(self, text: Text | str) -> None:
        self.say("#feedback", text)

    def say(self, selector: str, text: Text | str) -> None:
        """Feedback and hints take no line while empty: on 24 lines every line counts."""
        box = self.query_one(selector, Static)
        box.update(Prose(text))
        box.display = bool(str(text))

    def submit(self, text: str) -> None:
        answer_box = self.query_one("#answer", Input)
        if self.encounter.revealed:   # nothing is graded after the reveal
            answer_box.value = ""
            self.action_next_question()
            return
        if self.live is None:
            self.feedback(Text(_("The model is still loading; your answer is kept. Press Enter again in a moment."),
                               style="yellow"))
            return
        try:
            truth = truth_for(self.question, self.live.tensors, self.live.sizes)
            result = grade(self.question, text, truth, self.live.sizes)
        except AnswerError as error:   # unreadable text costs no attempt
            self.feedback(Text(_("Couldn't read that: {error}. Try again.").format(error=error), style="yellow"))
            return
        except QuestionError as error:
            self.feedback(question_problem(error))
            return
        attempt = self.encounter.record(result.correct)
        self.app.record_answer(self.lesson.id, self.question.id, text, result.correct, self.encounter.hints_used,
                               self.live.variant, attempt)
        if result.correct:
            self.reveal(truth, text, Text("✓ " + result.feedback, style="bold green"))
        elif self.encounter.revealed:
            self.reveal(truth, text, Text("✗ " + _("{feedback} That was the last try; here is the real answer.")
                                          .format(feedback=result.feedback), style="bold red"))
        else:
            answer_box.offer_for_replacing()
            left = self.encounter.attempts_left
            verdict = Text("✗ " + result.feedback, style="bold red")
            verdict.append("\n" + _("{tries} left: try again, ctrl+t for a hint, ctrl+g to give up and see the "
                                   "answer.").format(tries=tries(left)), style="")
            self.feedback(verdict)

    def action_give_up(self) -> None:
        if self.encounter.revealed or self.live is None:
            return
        try:
            truth = truth_for(self.question, self.live.tensors, self.live.sizes)
        except QuestionError as error:
            self.feedback(question_problem(error))
            return
        self.encounter.give_up()
        self.reveal(truth, None, Text(_("Here is the real answer."), style="bold"))

    def action_hint(self) -> None:
        hints = self.question.hints
        if not hints:
            self.say("#hints", Text(_("No hints for this question."), style="dim"))
            return
        shown = min(self.encounter.hints_used + 1, len(hints))
        if not self.encounter.revealed:
            self.encounter.hint_shown(shown)
        lines = [_("Hint {number}: {hint}").format(number=i + 1, hint=self.live_text(hint))
                 for i, hint in enumerate(hints[:shown])]
        self.say("#hints", Text("\n".join(lines), style="cyan"))

    def enter_goes_to(self) -> str:
        """What Enter does after a reveal, said under the verdict."""
        if self.question_index + 1 >= len(self.lesson.questions):
            return _("Enter: the lesson's summary.")
        return _("Enter: next question.")

    def reveal(self, truth: Truth, last_answer: str | None, verdict: Text) -> None:
        """Show the real answer once, and save how the question ended."""
        encounter = self.encounter
        self.outcomes.setdefault(self.question.id, encounter.outcome)   # the first visit's outcome is the score
        self.app.record_outcome(self.lesson.id, self.question.id, encounter.outcome, len(encounter.results),
                                encounter.hints_used, self.live.variant)
        if self.question.reveal:
            verdict.append("\n" + self.live_text(self.question.reveal), style="")
        if self.lesson.model.vary:   # the question, which shows them, may have scrolled away on a small screen
            verdict.append("\n" + _("sizes: {sizes}").format(sizes=self.live.variant), style="italic")
        verdict.append("\n" + self.enter_goes_to(), style="dim")
        self.feedback(verdict)
        self.query_one("#answer", Input).value = ""
        self.query_one("#reveal").display = True
        self.call_after_refresh(self.show_reveal)   # and again when the reveal row has its size (RevealRow)
        yours = Text(last_answer.strip()) if last_answer is not None else Text(_("(gave up)"), style="italic")
        self.query_one("#your-answer", Static).update(
            Group(Text(_("Your answer"), style="bold"), yours, Text(_("Expected"), style="bold"), Text(truth.display)))
        if truth.tensor is not None:
            reveal = question_reveal(self.question, truth.tensor_label, self.live.tensors, self.live.sizes,
                                     self.live.token_labels)
            if reveal is not None:
                reveal = dataclasses.replace(reveal, title=self.reveal_title(truth.tensor_label))
            self.query_one("#real-tensor", TensorView).show(reveal)

    def show_reveal(self) -> None:
        """Small terminals: the verdict at the top of the quiz pane and the tensor under it; the
        question and the answer box scroll out of sight (Enter still moves on)."""
        self.query_one("#quiz").scroll_to_widget(self.query_one("#feedback"), top=True, animate=False)

    def reveal_title(self, label: str) -> str:
        """Model probes keep their names (the lesson teaches them); an experiment's outputs are internal."""
        if not label or label.split(".", 1)[0] in self.lesson.model.experiments:
            return _("the real values")
        return _("real {name}").format(name=label)
