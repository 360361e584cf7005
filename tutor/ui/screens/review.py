"""Review: the due questions, one after another, on the question screen the learner knows from lessons.

The question screen (tutor.ui.screens.question_screen) draws what the question session returns,
so grading, hints, the reveal and hot reload behave exactly as in a lesson; Review says only
which question comes next, and remembers no place.  Lessons that vary their sizes
get a fresh seed for each review question, so the learner re-derives the answer instead of
remembering the numbers.  Tries here are review tries: a due card is rated once, by the first
encounter with it in review (kept in its record, so Ctrl+R or a restart continues it); once
rated, its answer seen, answering again is practice and moves nothing.
"""
from __future__ import annotations

import random

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from tutor.common.i18n import N_, _
from tutor.course.catalog import LoadedLesson
from tutor.progress.records import Mode
from tutor.ui.messages import LiveReady
from tutor.ui.screens.question_screen import QuestionScreen
from tutor.ui.widgets.prose import Prose

MAX_REDRAWS = 5   # a lesson whose ranges allow few sizes may have to repeat one


def fresh_seed(item: LoadedLesson) -> int | None:
    return random.randrange(1, 2**31) if item.lesson.model.vary else None


class ReviewScreen(QuestionScreen):
    wanted_mode = Mode.REVIEW
    BINDINGS = [
        Binding("ctrl+n", "next_question", N_("Skip")),
        Binding("ctrl+b", "previous_question", N_("Previous question"), show=False),
    ]

    def __init__(self, queue: list[tuple[LoadedLesson, int]]) -> None:
        self.queue = queue
        self.step = 0
        self.redraws = 0
        item, index = queue[0]
        super().__init__(item, variant_seed=fresh_seed(item), question_index=index)   # localizes the keys

    def on_mount(self) -> None:
        # Textual then runs QuestionScreen.on_mount too (handlers run along the MRO): no super() here
        self._show_step()

    def on_live_ready(self, message: LiveReady) -> None:
        """Runs before the question screen's handler: sizes that repeat the last answer's are drawn again."""
        if getattr(message, "generation", self.generation) != self.generation or not self.lesson.model.vary:
            return
        if self.redraws < MAX_REDRAWS and \
                message.live.variant == self.app.last_variant(self.lesson.id, self.question.id):
            self.redraws += 1
            message.prevent_default()   # the question screen never shows the repeated sizes
            self.variant_seed = fresh_seed(self.item)
            self.load_live()

    def remember_position(self) -> None:
        """Review is not a place to resume: the lesson position stays where the learner left it."""

    def _show_step(self) -> None:
        self.sub_title = _("Review {number}/{count}").format(number=self.step + 1, count=len(self.queue))
        self.query_one("#lesson-title", Static).update(Prose(Text(
            _("Review {number} of {count} · {title}").format(number=self.step + 1, count=len(self.queue),
                                                             title=self.lesson.title), style="bold")))

    def change_language(self, item: LoadedLesson) -> None:
        """F4 in review: the questions still to come in the new language too, and the review's own
        heading ("复习 1/3 · …") rather than the lesson's plain title."""
        catalog = self.app.catalog
        self.queue = [(catalog.get(queued.lesson.id) or queued, index) for queued, index in self.queue]
        super().change_language(item)
        self._show_step()

    def question_label(self) -> str:
        """The heading already numbers the review ("Review 1 of 3"): the question's place in its
        lesson says so, or the two counts read as one ("复习第 1/1 题" over "第 1/5 题")."""
        return _("Question {number}/{total} of the lesson").format(number=self.question_index + 1,
                                                                   total=len(self.lesson.questions))

    def enter_goes_to(self) -> str:
        if self.step + 1 >= len(self.queue):
            return _("Enter: finish the review.")
        return _("Enter: next review question.")

    def action_previous_question(self) -> None:
        self.feedback(Text(_("Review goes forward only; ctrl+n skips a question."), style="dim"))

    def action_next_question(self) -> None:
        if self.step + 1 >= len(self.queue):
            self.feedback(Text(_("✓ Review finished: no more questions due. Escape returns to the roadmap."),
                               style="bold"))
            return
        self.step += 1
        self.redraws = 0
        item, index = self.queue[self.step]
        self.question_index = index
        if item.lesson is self.lesson and not item.lesson.model.vary:
            self.show_question()   # same lesson, same sizes: the live tensors still hold
        else:
            self.variant_seed = fresh_seed(item)
            self.swap_lesson(item)   # also recomputes the live tensors, with the new seed
            self.status(_("Computing the live tensors…"))
        self._show_step()
