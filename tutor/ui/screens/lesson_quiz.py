"""The lesson screen's question loop drawn: predict, try again, then reveal (a mixin of ``QuestionScreen``, the lesson's and Review's).

The rules are the question session's (:class:`tutor.session.question.QuestionSession`): it grades,
records every try in the store before answering, and returns a :class:`~tutor.session.question.Step`
built from what the store recorded; this mixin only draws that step (the verdict, its "Practice"
label, the tries left, the reveal).  After the reveal Enter moves on; a resolved question shown
again is practice, graded and labelled so, and counted nowhere.
"""
from __future__ import annotations

import dataclasses

from rich.console import Group
from rich.text import Text
from textual import work
from textual.widgets import Input, OptionList, Static

from tutor.common.i18n import P_, _, message_of, ngettext, translated
from tutor.grading.kinds import Truth
from tutor.grading.quiz import QuestionError
from tutor.grading.reveal_focus import question_reveal
from tutor.progress.records import Mode
from tutor.session.question import Happened, QuestionSession, Step
from tutor.session.sample_sight import sighted_on_opening
from tutor.ui.messages import AnswerGraded
from tutor.ui.widgets.answer_preview import AnswerPreview
from tutor.ui.widgets.prose import Prose
from tutor.ui.widgets.tensor_view import TensorView


def question_problem(error: Exception) -> Text:
    return Text(_("This question has a problem (tell the lesson's author): {error}").format(error=error), style="red")


def unreadable_text(error: Exception) -> Text:
    """An answer that could not be read, and why.  The why may end its own sentence (Python's
    "Perhaps you forgot a comma?"): then no second full stop follows it ("?." before)."""
    shown = translated(message_of(error))
    if shown.endswith(tuple(".?!。？！")):
        return Text(_("Couldn't read that: {error} Try again.").format(error=shown), style="yellow")
    return Text(_("Couldn't read that: {error}. Try again.").format(error=shown), style="yellow")


def seen_text(numbers: tuple[int, ...]) -> Text:
    """The look-ahead rule, said where it applied: these untried questions now count as not got."""
    listed = P_("between the numbers of a list", ", ").join(str(index + 1) for index in numbers)
    return Text(ngettext("This shows the answer to question {numbers}, which you have not tried: it now counts as "
                         "not got (answer seen) and comes back in Review.",
                         "This shows the answers to questions {numbers}, which you have not tried: they now count "
                         "as not got (answer seen) and come back in Review.", len(numbers)).format(numbers=listed),
                style="yellow")


def answer_seen_text(lesson, seen_in: tuple[str, str]) -> str:
    """Why a question the learner never answered counts as not got: where its answer was on screen."""
    question_id, where = seen_in
    number = next((i + 1 for i, question in enumerate(lesson.questions) if question.id == question_id), None)
    place = {"prompt": _("the text of question {number}"), "hint": _("a hint of question {number}"),
             "reveal": _("the answer shown after question {number}")}.get(where, _("the text of question {number}"))
    if where == "sample":   # tutor.session.sample_sight
        place = _("the dashboard's Sample tab")
    elif number is None:
        place = _("another question")
    return _("You saw this question's answer before trying it, in {place}, so it counts as not got (answer "
             "seen) and comes back in Review. Answers here are practice.").format(place=place.format(number=number))


def tries(count: int) -> str:
    return ngettext("{count} try", "{count} tries", count).format(count=count)


class QuizMixin:
    def open_session(self) -> None:
        """The question's session from its record, however it came back on screen (a restart, Escape
        and reopen, Ctrl+N/B, Ctrl+R, a reload, new weights): tries and hints used stay used."""
        ready = self.live is not None
        if ready:   # a Sample run on these weights showed this question's answer before it opened
            sighted_on_opening(self.app.progress, self.lesson, self.question_index,
                               getattr(self.live, "model_identity", ""))
        self.session = QuestionSession(self.app.progress, self.lesson, self.question_index, self.wanted_mode,
                                       self.app.clock, live_ready=ready, look_ahead=self.look_ahead if ready else None)
        self.session.given_away = self.question_index + 1 in self.claims.given_away
        self.seen_here = self.session.prompt_shown()   # said under the prompt (show_prompt)

    def show_record(self) -> None:
        """Say what is already used of an open question, and show the hints already seen."""
        session = self.session
        if session.hints_shown:
            self.show_hints(session.hints_shown)
        if session.tried_before:
            self.feedback(Text(_("You have already tried this question: {tries} left. Your first attempt "
                                 "still counts.").format(tries=tries(session.encounter.attempts_left)), style="yellow"))

    def show_choices(self) -> None:
        """The kind's pick-list (a choice's options) to pick from (Tab, arrows, Enter); typing still works."""
        options = self.query_one("#choices", OptionList)
        options.clear_options()
        picks = self.session.options()
        options.add_options([f"{pick.label}) {pick.text}" for pick in picks])
        options.display = bool(picks)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.submit(self.session.options()[event.option_index].answer)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.submit(event.value)

    def on_answer_input_paste_refused(self, event) -> None:
        """A paste too long for the answer box: said under it, where the verdicts are (the typed text stays)."""
        event.stop()
        self.feedback(Text(event.text, style="yellow"))

    def on_input_changed(self, event: Input.Changed) -> None:
        self.preview_answer(event.value)

    def preview_answer(self, text: str) -> None:
        """The question kind's preview of the text being typed (a formula as it reads), none after the reveal."""
        self.query_one("#answer-preview", AnswerPreview).show(self.session.preview(text))

    def feedback(self, text: Text | str) -> None:
        self.say("#feedback", text)

    def say(self, selector: str, text: Text | str) -> None:
        """Feedback and hints take no line while empty: on 24 lines every line counts."""
        box = self.query_one(selector, Static)
        box.update(Prose(text))
        box.display = bool(str(text))
        if box.display:   # a tall formula preview can push a nudge below a 24-line screen: bring it into view
            box.scroll_visible(animate=False)

    def not_ready_text(self) -> Text:
        """Why Enter cannot grade yet.  "Still loading" only while it is: a Review card whose lesson
        needs another model answered every Enter with it, and the way out was only in the banner."""
        if self.live_problem is None:
            return Text(_("The model is still loading; your answer is kept. Press Enter again in a moment."),
                        style="yellow")
        return Text(_("This question cannot be graded on this model: {problem}\nCtrl+N moves on to the next "
                      "question; your answer is kept.").format(problem=self.live_problem), style="yellow")

    def submit(self, text: str) -> None:
        """Enter in the answer box: grading runs in a worker (a formula's can take a second and a
        half), and the screen stays live meanwhile; a second Enter before the verdict is ignored, so
        one answer is never two tries."""
        if self.checking:
            return
        step = self.session.before_grading(text, self.live)
        if step is not None:
            self.draw_step(step)
            return
        self.checking = True
        self.grade_answer(self.session, text, self.live)

    @work(thread=True, group="grade")
    def grade_answer(self, session: QuestionSession, text: str, live) -> None:
        """The grade step, off the UI thread; it writes nothing (the store is written on the UI thread)."""
        self.post_message(AnswerGraded(session, session.grade(text, live)))

    def on_answer_graded(self, message: AnswerGraded) -> None:
        """The record step.  A verdict for a question the learner has left (Escape, Ctrl+N/B, Ctrl+R,
        a reload, the next Review card: each opens a new session) is dropped unrecorded: its verdict was
        never seen, so the try is not counted and the question asks again when it comes back."""
        if message.session is not self.session:
            return
        self.checking = False
        self.draw_step(self.session.record(message.graded))

    def watch_checking(self, checking: bool) -> None:
        self.query_one("#answer", Input).set_class(checking, "-checking")
        if checking:
            self.feedback(Text(_("Checking your answer…"), style="italic"))

    def draw_step(self, step: Step) -> None:
        """What an Enter did, as the session returned it; a try may open the formula box."""
        self.draw_happened(step)
        if step.happened is not Happened.MOVE_ON:   # moving on shows the next question, which asks itself
            self.show_formula_fold()

    def draw_happened(self, step: Step) -> None:
        answer_box = self.query_one("#answer", Input)
        happened = step.happened
        if happened is Happened.MOVE_ON:   # nothing is graded after the reveal
            answer_box.value = ""
            self.action_next_question()
        elif happened is Happened.NOT_READY:
            self.feedback(self.not_ready_text())
        elif happened is Happened.GIVEN_AWAY:
            self.feedback(Text(_("On your model the text already shows this question's answer, so an answer here "
                                 "cannot be scored: Ctrl+O shows the lesson on the shipped model, where it can, and "
                                 "Ctrl+G gives up."), style="yellow"))
        elif happened is Happened.UNREADABLE:   # unreadable text costs no attempt
            answer_box.offer_for_replacing()   # as after a wrong try: `约 4.56` then `4.56` is not `约 4.564.56`
            self.feedback(unreadable_text(step.error))
        elif happened is Happened.QUESTION_PROBLEM:
            self.feedback(question_problem(step.error))
        elif happened is Happened.RIGHT:
            self.reveal(step, self.labelled(step, Text("✓ " + step.feedback, style="bold green")))
        elif happened is Happened.LAST_WRONG:
            self.reveal(step, self.labelled(step, Text("✗ " + _("{feedback} That was the last try; here is the "
                                                               "real answer.").format(feedback=step.feedback),
                                                       style="bold red")))
        else:
            answer_box.offer_for_replacing()
            verdict = self.labelled(step, Text("✗ " + step.feedback, style="bold red"))
            verdict.append("\n" + _("{tries} left: try again, ctrl+t for a hint, ctrl+g to give up and see the "
                                   "answer.").format(tries=tries(step.attempts_left)), style="")
            self.feedback(verdict)

    def labelled(self, step: Step, verdict: Text) -> Text:
        """A practice verdict says so first (as the store recorded the try): graded, and counted nowhere."""
        if step.mode is not Mode.PRACTICE:
            return verdict
        return Text(_("Practice") + " · ", style="bold magenta") + verdict

    def action_give_up(self) -> None:
        step = self.session.give_up(self.live)
        if step.happened is Happened.QUESTION_PROBLEM:
            self.feedback(question_problem(step.error))
        elif step.revealed:
            self.reveal(step, Text(_("Here is the real answer."), style="bold"))
        self.show_formula_fold()

    def action_hint(self) -> None:
        step = self.session.hint()
        if not step.hints:
            self.say("#hints", Text(_("No hints for this question."), style="dim"))
            return
        self.show_hints(step.hints, step.seen)
        self.show_formula_fold()   # a hint that shows another question's answer resolves it

    def show_hints(self, shown: int, seen: tuple[int, ...] = ()) -> None:
        hints = self.question.hints
        lines = Text("\n".join(_("Hint {number}: {hint}").format(number=i + 1, hint=self.live_text(hint))
                               for i, hint in enumerate(hints[:shown])), style="cyan")
        if seen:
            lines.append("\n").append(seen_text(seen))
        self.say("#hints", lines)
        # the newest hint is the last line: on 24 rows hint 2 stayed below the pane's edge
        self.call_after_refresh(self.query_one("#quiz").scroll_end, animate=False)

    def enter_goes_to(self) -> str:
        """What Enter does after a reveal, said under the verdict."""
        if self.question_index + 1 >= len(self.lesson.questions):
            return _("Enter: the lesson's summary.")
        return _("Enter: next question.")

    def reveal(self, step: Step, verdict: Text) -> None:
        """Show the real answer (the store has already resolved the record, or this was practice)."""
        if self.question.reveal:
            verdict.append("\n" + self.live_text(self.question.reveal), style="")
        if step.seen:
            verdict.append("\n").append(seen_text(step.seen))
        if self.lesson.model.vary:   # the question, which shows them, may have scrolled away on a small screen
            verdict.append("\n" + _("sizes: {sizes}").format(sizes=self.live.variant), style="italic")
        verdict.append("\n" + self.enter_goes_to(), style="dim")
        self.feedback(verdict)
        self.query_one("#answer", Input).value = ""
        self.query_one("#reveal").display = True
        self.call_after_refresh(self.show_reveal)   # and again when the reveal row has its size (RevealRow)
        self.revealed_answer = step.answer
        self.show_reveal_box(step.truth)

    def show_reveal_box(self, truth: Truth) -> None:
        """The learner's answer beside the expected one, and the real tensor: drawn again in the new
        language when F4 is pressed on a reveal."""
        last_answer = self.revealed_answer
        yours = Text(last_answer.strip()) if last_answer is not None else Text(_("(gave up)"), style="italic")
        self.query_one("#your-answer", Static).update(
            Group(Text(_("Your answer"), style="bold"), Prose(yours), Text(_("Expected"), style="bold"),
                  Prose(truth.display)))   # a Chinese choice breaks between characters, not only at its spaces
        if truth.tensor is not None:
            reveal = question_reveal(self.question, truth.tensor_label, self.live.tensors, self.live.sizes,
                                     self.live.token_labels)
            if reveal is not None:
                reveal = dataclasses.replace(reveal, title=self.reveal_title(truth.tensor_label))
            self.query_one("#real-tensor", TensorView).show(reveal)

    def reword_reveal(self) -> None:
        """F4 on a reveal: its box and tensor in the new language (the truth again from the live
        tensors, so a choice reads as the translated lesson words it)."""
        if not self.query_one("#reveal").display or self.live is None:
            return
        try:
            truth = self.session.truth(self.live)
        except QuestionError:
            return   # said when the reveal was first drawn
        self.show_reveal_box(truth)

    def show_reveal(self) -> None:
        """Small terminals: the verdict at the top of the quiz pane and the tensor under it; the
        question and the answer box scroll out of sight (Enter still moves on)."""
        self.query_one("#quiz").scroll_to_widget(self.query_one("#feedback"), top=True, animate=False)

    def reveal_title(self, label: str) -> str:
        """Model probes keep their names (the lesson teaches them); an experiment's outputs are internal."""
        if not label or label.split(".", 1)[0] in self.lesson.model.experiments:
            return _("the real values")
        return _("real {name}").format(name=label)
