"""The lesson screen's live tensors (a mixin of ``QuestionScreen``, the lesson's and Review's): computed off the UI thread,
recomputed when the app's model or the lesson file changes, and poured into the lesson's text.

Every number a lesson shows or grades comes from here, so the learner always sees the model
they have now; a result computed for an older version of the lesson (or older weights) is
dropped by its ``generation``.
"""
from __future__ import annotations

from rich.text import Text
from textual import work
from textual.widgets import Input, Static

from tutor.live.lesson_claims import BrokenClaims, broken_claims
from tutor.common.i18n import M_, P_, _, error_text, message_of, ngettext, translated
from tutor.course.catalog import LoadedLesson
from tutor.course.placeholders import fill_report, lesson_problems, preview, short_message
from tutor.live.weights_label import localized_label
from tutor.ui.messages import BoxAnswered, LiveFailed, LiveReady
from tutor.ui.reload_check import problems_text
from tutor.ui.widgets.formula_box import FormulaBox
from tutor.common.reflow import reflow
from tutor.ui.widgets.prose import Prose


def formula_mark(check) -> Text:
    """A learner needs to know that the formula is the model's, not the author's numbers: a short
    mark when it matches, the size of the difference only when it does not."""
    if check is None or (check.ok and check.max_error is None):
        return Text()   # nothing to compare (the formula names no tensor), or it was not checked
    if check.ok:
        return Text(_("✓ formula matches the model"), style="green")
    if check.max_error is None:
        return Text(_("✗ the formula could not be checked against the model: {message}")
                    .format(message=translated(check.message)), style="yellow")
    return Text(_("✗ the formula and the model differ by up to {error} (tell the lesson's author)")
                .format(error=f"{check.max_error:.2g}"), style="yellow")


def claims_text(claims: BrokenClaims) -> str:
    """Which parts of the lesson may not hold on the learner's model, never what an answer is."""
    numbers = claims.questions
    parts = [ngettext("question {numbers}", "questions {numbers}", len(numbers)).format(
        numbers=P_("between the numbers of a list", ", ").join(map(str, numbers)))] if numbers else []
    parts += [_("the formula")] if claims.formula else []
    where = _("{questions} and {formula}").format(questions=parts[0], formula=parts[1]) if len(parts) == 2 \
        else parts[0]
    return _("This lesson was checked on the shipped model; on yours it may not hold at {parts} (a number, "
             "a hint or a claim in the text may be off). Your answers are graded on your model; Ctrl+O shows "
             "the lesson on the shipped model.").format(parts=where)


class LiveMixin:
    @work(thread=True, exclusive=True, group="live")
    def load_live(self) -> None:
        """Torch and SymPy load here, off the UI thread; the screen is usable meanwhile."""
        lesson, generation = self.lesson, self.generation
        self.live_problem = None   # computing again (Ctrl+O, new sizes, the next card): loading is true now
        try:
            from tutor.formulas.parse import FormulaError
            from tutor.live.compute import compute_live
            from tutor.live.formula_check import FormulaCheck, check_formula, render_spec

            live = compute_live(lesson, self.app.hub, self.variant_seed, on_shipped=self.on_shipped)
            try:   # a formula that does not parse must not keep the learner from the questions
                formula_text = render_spec(lesson.formula)
                check = check_formula(lesson.formula, live.tensors, live.sizes)
            except FormulaError as error:
                formula_text = lesson.formula.expr
                check = FormulaCheck(None, False, M_("the formula does not parse: {error}", error=message_of(error)))
            from tutor.live.box_leaks import live_box_answers
            from tutor.session.look_ahead import look_ahead

            message = LiveReady(lesson.id, live, formula_text, check.message, generation, check,
                                self.claims_on_this_model(lesson, live), look_ahead(lesson, live),
                                live_box_answers(lesson, live, formula_text))
        except Exception as error:  # any failure is shown in the lesson, never a traceback
            from tutor.live.compute import RequirementNotMet

            text = error_text(error)
            if isinstance(error, RequirementNotMet):
                text = _("{error}. Press Ctrl+O to see this lesson on the shipped model; your own weights "
                         "stay the app's model for everything else.").format(error=error_text(error))
            message = LiveFailed(lesson.id, text, generation)
        self.post_message(message)   # its generation is checked on the UI thread, where reloads happen

    def claims_on_this_model(self, lesson, live) -> BrokenClaims:
        """Where the lesson's text stops being true on the learner's own weights (tutor.live.lesson_claims).

        The shipped model is the one ``tutor lessons check`` vouches for, and a lesson with random or
        text weights never sees the learner's model; an author's answers are written for the lesson's
        own sizes, so a lesson drawn at other sizes is checked once more at its own."""
        from tutor.live.compute import compute_live

        hub = self.app.hub
        if lesson.model.weights != "trained" or self.on_shipped or hub.current_is_shipped():
            return BrokenClaims()
        own = live if self.variant_seed is None or not lesson.model.vary else compute_live(lesson, hub)
        return broken_claims(lesson, own)

    def on_live_ready(self, message: LiveReady) -> None:
        if message.generation != self.generation:
            return   # computed for a version of the lesson that has since been reloaded
        self.claims = message.claims
        self.look_ahead = message.look_ahead
        self.box_answers = message.box_answers
        self.live = live = message.live
        self.query_one("#formula", FormulaBox).show(message.formula_text, self.lesson.formula.expr)
        self.formula_check = message.check
        self.show_formula_mark()
        self.show_live_status()
        self.show_texts()
        self.show_question()

    @work(thread=True, exclusive=True, group="box")
    def analyse_box(self) -> None:
        """The box rule's analysis on the lesson as it reads now (after F4), on the same live tensors."""
        lesson, live, generation = self.lesson, self.live, self.generation
        if live is None:
            return   # the lesson's worker analyses it when the tensors arrive
        from tutor.formulas.parse import FormulaError
        from tutor.live.box_leaks import live_box_answers
        from tutor.live.formula_check import render_spec

        try:
            drawn = render_spec(lesson.formula)
        except FormulaError:   # drawn as its source, and said so by the formula's mark
            drawn = None
        self.post_message(BoxAnswered(lesson.id, live_box_answers(lesson, live, drawn), generation))

    def on_box_answered(self, message: BoxAnswered) -> None:
        if message.generation != self.generation or message.lesson_id != self.lesson.id or self.live is None:
            return
        self.box_answers = message.answers
        self.show_formula_fold()

    def show_formula_mark(self) -> None:
        """Kept as the check, not as its words, so that F4 says it again in the new language."""
        mark = formula_mark(self.formula_check)
        self.query_one("#formula-check", Static).update(mark)
        self.query_one("#formula-check").display = bool(mark.plain)

    def show_live_status(self) -> None:
        """Which weights and input the tensors come from, and any live number that could not be filled."""
        live = self.live
        status = Text()
        status.append(_("Weights: "), style="bold")
        status.append(localized_label(live.weights_label) + "\n")
        status.append(_("Input: "), style="bold")
        status.append("  ".join(repr(row) for row in live.rows) + f"   ({live.variant}, D_head={live.sizes['D_head']})")
        problems = lesson_problems(self.lesson, live.tensors, live.sizes)
        if problems:
            where, error = problems[0]
            status.append("\n" + _("A live number in the text could not be filled{more}, shown as ⟨error⟩ "
                                   "(tell the lesson's author): {where}: {error}").format(
                more=_(" (and {count} more)").format(count=len(problems) - 1) if len(problems) > 1 else "",
                where=".".join(map(str, where)), error=translated(short_message(error))), style="yellow")
        if self.claims:
            status.append("\n" + claims_text(self.claims), style="yellow")
        if self.check_problems:
            status.append("\n" + problems_text(self.check_problems), style="bold red")
        self.status(status)

    live_problem: str | None = None   # why the live tensors could not be computed, until they are computed again

    def on_live_failed(self, message: LiveFailed) -> None:
        if message.generation != self.generation:
            return
        self.live_problem = message.error   # what Enter says instead of "still loading"
        self.status(Text(_("Could not compute this lesson's tensors: {error}").format(error=message.error),
                         style="bold red"))

    def status(self, text: Text | str) -> None:
        """The line above the explanation: which weights and input, or what went wrong."""
        self.query_one("#live-status", Static).update(Prose(text))
        self.call_after_refresh(self.fit_formula)   # a longer status leaves the formula fewer rows

    def live_text(self, text: str) -> str:
        """Lesson text with its {{ placeholders }}: … until the live tensors arrive, then their values."""
        if self.live is None:
            return preview(text)
        return fill_report(text, self.live.tensors, self.live.sizes)[0]

    def show_texts(self) -> None:
        """The explanation and the formula's translation, filled from the current live tensors."""
        self.query_one("#explanation", Static).update(Prose(reflow(self.live_text(self.lesson.explanation))))
        words = _("In words: ") + self.live_text(self.lesson.formula.translation)
        self.query_one("#translation", Static).update(Prose(words))
        self.query_one("#body-translation", Static).update(Prose(words))   # where a compact screen shows it

    def lessons_changed(self, reloads) -> None:
        """Hot reload: take the edited lesson in place, or show why the edit could not be used."""
        for reload in reloads:
            if reload.path != self.item.path and reload.old_id != self.lesson.id:
                continue
            if reload.checked:   # the live check of the version on screen found problems
                self.check_problems = reload.problems
                self.status(Text(problems_text(reload.problems), style="bold red"))
            elif reload.broken:
                self.status(Text(_("The edited lesson file has a problem; this is the last good version.") +
                                 f"\n{reload.problems[0]}", style="bold red"))
            elif reload.removed or reload.new_id is None:
                self.status(Text(_("The lesson file was removed; this is its last version."), style="yellow"))
            else:
                self.swap_lesson(self.app.catalog.get(reload.new_id))

    def swap_lesson(self, item: LoadedLesson) -> None:
        """Show the reloaded lesson at the same question (clamped) and recompute its tensors."""
        self.item, self.lesson = item, item.lesson
        self.check_problems = []
        self.generation += 1
        self.question_index = min(self.question_index, len(self.lesson.questions) - 1)
        self.title = self.lesson.title
        self.query_one("#lesson-title", Static).update(Prose(Text(self.lesson.title, style="bold")))
        self.query_one("#formula", FormulaBox).show(self.lesson.formula.expr, self.lesson.formula.expr)
        self.query_one("#formula-check").display = False
        self.formula_check = None
        self.live = self.box_answers = None   # the box rule waits for the new draw's analysis
        self.show_texts()
        self.status(_("Lesson file reloaded; recomputing the live tensors…"))
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
        # this showing's own activity: tries from an earlier showing (the record) do not pin old weights
        busy = self.session.acted or self.query_one("#answer", Input).value.strip()
        if busy or not self.is_current:
            return
        self.generation += 1   # a result still being computed with the old weights is dropped
        self.live = self.box_answers = None   # the box rule waits for the new draw's analysis
        self.status(_("New weights: {label}. Recomputing the live tensors…").format(label=localized_label(hub.label)))
        self.load_live()
